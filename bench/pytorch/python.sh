#!/usr/bin/env bash
# Prints the path of a Python interpreter that has torch, for the PyTorch
# side of the benchmarks (torch is not a project dependency):
#
#   - $AOT_BENCH_PYTHON, when set (any Python with torch installed);
#   - else bench/.venv/bin/python, creating that virtual environment and
#     installing torch into it on first use (CPU wheels from
#     $AOT_BENCH_TORCH_INDEX, default https://download.pytorch.org/whl/cpu;
#     needs network access and about 1 GB of disk).
#
#   py=$(bash bench/pytorch/python.sh) && "$py" bench/pytorch/eager_step.py
set -euo pipefail
if [ -n "${AOT_BENCH_PYTHON:-}" ]; then
  if ! "$AOT_BENCH_PYTHON" -c 'import torch' >/dev/null 2>&1; then
    echo "error: AOT_BENCH_PYTHON=$AOT_BENCH_PYTHON cannot import torch" >&2
    exit 1
  fi
  echo "$AOT_BENCH_PYTHON"
  exit 0
fi
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
if ! "$venv/bin/python" -c 'import torch' >/dev/null 2>&1; then
  echo "creating $venv with torch (set AOT_BENCH_PYTHON to use an existing Python with torch)" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    --index-url "${AOT_BENCH_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}" torch >&2
fi
echo "$venv/bin/python"
