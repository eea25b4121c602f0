#!/usr/bin/env bash
# The training-step comparison of bench/README.md, side by side in one run:
# `aot-bench native train` (native code: Cranelift, and LLVM when
# AOT_BENCH_LLVM=1, which builds with the `llvm` feature), PyTorch eager and
# torch.compile (Inductor) on the same models, at each thread count
# (default: 1 and 2).
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
backends=(cranelift)
if [ "${AOT_BENCH_LLVM:-0}" = 1 ]; then
  cargo build --release -q -p aot-bench --features llvm
  backends+=(llvm)
else
  cargo build --release -q -p aot-bench
fi
for t in "${threads[@]}"; do
  echo "== $t thread(s)"
  for b in "${backends[@]}"; do
    AOT_NUM_THREADS=$t target/release/aot-bench native train --backend "$b"
  done
  "$py" bench/pytorch/eager_step.py --threads "$t"
  "$py" bench/pytorch/eager_step.py --threads "$t" --compile
done
