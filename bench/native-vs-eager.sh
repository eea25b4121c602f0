#!/usr/bin/env bash
# The training-step comparison of bench/README.md, side by side in one run:
# `aot-bench native train` (native code, Cranelift) and PyTorch eager on the
# same models, at each thread count.
#
#   bash bench/native-vs-eager.sh [PYTHON_WITH_TORCH] [THREADS...]
#
# PYTHON_WITH_TORCH defaults to /work/torch-venv/bin/python; torch is not a
# project dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-/work/torch-venv/bin/python}
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
cargo build --release -q -p aot-bench
for t in "${threads[@]}"; do
  echo "== $t thread(s)"
  AOT_NUM_THREADS=$t MATMUL_NUM_THREADS=$t target/release/aot-bench native train
  "$py" bench/pytorch/eager_step.py --threads "$t"
done
