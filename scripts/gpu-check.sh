#!/usr/bin/env bash
# The prepared GPU check (docs/devices.md, docs/cuda.md), for a machine with
# an NVIDIA GPU (a CUDA 12.8+ driver, cuBLAS) and this project's build
# requirements (Rust, LLVM 19: see the README):
#
#   bash scripts/gpu-check.sh
#
# 1. builds the integration suite with the cargo feature `cuda`;
# 2. runs the device suites on the GPU: the CUDA tests (tests/suite/cuda.rs,
#    resident calls among them), the differential, gradient and convention
#    corpora on the `cuda` backend (resident: arguments placed in the GPU's
#    memory before each call), the PTX and device-hook tests, and the
#    host-memory device's resident suites;
# 3. the CUDA cases of the Python package (python/tests/test_cuda.py), where
#    PyTorch with CUDA and an aot_torch built with `cuda` are installed;
# 4. the timings: tests/suite/cuda.rs::gpu_timings (host tensors and
#    resident ones) and, where PyTorch with CUDA is installed (the test
#    venv, or the `python3` on PATH), PyTorch's eager and torch.compile on
#    the same graphs (bench/pytorch/gpu_timings.py);
#
# each step under its own time limit, the whole within 10 minutes once
# built.
#
# On a GPU machine without a Rust toolchain, build the suite elsewhere
# (`cargo test --release --features cuda --test suite --no-run`, the same
# CPU architecture) and name it: `AOT_SUITE=path/to/suite bash
# scripts/gpu-check.sh` skips the build and runs that binary over this
# checkout's corpus (AOT_SOURCE_ROOT). Everything goes to $OUT/gpu-check.log ($OUT, else target/gpu-check).
# Exits 77 (skipped) where the machine has no GPU, non-zero when a step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/target/gpu-check}
mkdir -p "$out"
log="$out/gpu-check.log"
: >"$log"
say() { echo "$*" | tee -a "$log"; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  say "gpu-check: skipped: no NVIDIA GPU here (nvidia-smi lists none)"
  exit 77
fi
nvidia-smi -L | tee -a "$log"

export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}
# libdevice: CUDA_HOME's, else NVIDIA's PyPI wheel in the test venv.
if [ -z "${AOT_LIBDEVICE:-}" ]; then
  for p in "${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc" \
    .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc; do
    if [ -f "$p" ]; then export AOT_LIBDEVICE=$p; break; fi
  done
fi
say "libdevice: ${AOT_LIBDEVICE:-(none found: kernels calling libdevice will be refused)}"

failed=0
step() {
  local name=$1 limit=$2
  shift 2
  say "== $name (at most ${limit}s)"
  local t0=$SECONDS
  timeout "$limit" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  say "== $name: exit $rc after $((SECONDS - t0))s"
  [ "$rc" -eq 0 ] || failed=1
}

if [ -n "${AOT_SUITE:-}" ]; then
  suite=("$AOT_SUITE")
  export AOT_SOURCE_ROOT=$root
  say "suite: $AOT_SUITE (prebuilt)"
else
  suite=(cargo test --release --features cuda --test suite --)
  step "build (cuda)" 1800 cargo test --release --features cuda --test suite --no-run
fi
step "device suites" "${AOT_SUITES_LIMIT:-360}" "${suite[@]}" \
  cuda:: cuda_matches_eager cuda_gradients_match_pytorch random_conventions_match_eager_on_the_gpu \
  ptx:: device_hook:: hostdev resident
step "timings (aot)" 120 "${suite[@]}" cuda::gpu_timings --ignored --nocapture
py=""
for c in .venv/bin/python test/.venv/bin/python python3; do
  if command -v "$c" >/dev/null && "$c" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    py=$c
    break
  fi
done
if [ -n "$py" ]; then
  # aot_torch built with the cargo feature `cuda` (installed, or on
  # PYTHONPATH: scripts/build-gpu-suite.sh --python makes one).
  if "$py" -c 'import sys, aot_torch; sys.exit(aot_torch._native.cuda_unavailable() is not None)' 2>>"$log"; then
    step "pytest (CUDA tensors through aot_torch)" 300 "$py" -m pytest -q -p no:cacheprovider -rs \
      python/tests/test_cuda.py
  else
    say "== pytest (CUDA): skipped: no aot_torch with CUDA for $py"
  fi
  step "timings (PyTorch eager and torch.compile)" 180 "$py" bench/pytorch/gpu_timings.py
else
  say "== pytest and timings (PyTorch): skipped: no PyTorch with CUDA here"
fi
if [ "$failed" -ne 0 ]; then
  say "gpu-check: FAILED (see $log)"
  exit 1
fi
say "gpu-check: passed"
