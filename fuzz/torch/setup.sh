#!/usr/bin/env bash
# Prints the path of a Python with torch and numpy for the PyTorch differential
# fuzzer (fuzz/torch/run.py). AOT_TORCH_PYTHON, when set, names an existing
# one; else fuzz/torch/.venv (gitignored) is created on first use with
# torch and numpy from PyPI. Nothing here is part of the Rust build or of
# scripts/test-all.sh.
#
#   PY=$(fuzz/torch/setup.sh) && nice -n 10 "$PY" fuzz/torch/run.py --seeds 0..999
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ -n "${AOT_TORCH_PYTHON:-}" ]]; then
  if ! "$AOT_TORCH_PYTHON" -c 'import torch, numpy' >/dev/null 2>&1; then
    echo "setup.sh: AOT_TORCH_PYTHON=$AOT_TORCH_PYTHON cannot import torch and numpy" >&2
    exit 1
  fi
  echo "$AOT_TORCH_PYTHON"
  exit 0
fi

venv="$here/.venv"
if ! "$venv/bin/python" -c 'import torch, numpy' >/dev/null 2>&1; then
  echo "setup.sh: creating $venv with torch and numpy (from PyPI, several minutes)" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --upgrade pip >&2
  "$venv/bin/pip" install --quiet torch numpy >&2
fi
echo "$venv/bin/python"
