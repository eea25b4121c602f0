#!/usr/bin/env bash
# The training-step comparison of bench/README.md, side by side in one run:
# `aot-bench native train` (native code, Cranelift) and PyTorch eager on the
# same models, at each thread count (default: 1 and 2).
#
#   bash bench/native-vs-eager.sh [THREADS...]
#
# PyTorch runs on $AOT_BENCH_PYTHON when set, else on bench/.venv, created
# with torch on first use (bench/pytorch/python.sh); torch is not a project
# dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
py=$(bash bench/pytorch/python.sh)
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
cargo build --release -q -p aot-bench
for t in "${threads[@]}"; do
  echo "== $t thread(s)"
  AOT_NUM_THREADS=$t MATMUL_NUM_THREADS=$t target/release/aot-bench native train
  "$py" bench/pytorch/eager_step.py --threads "$t"
done
