#!/usr/bin/env bash
# Runs every test of the project from a clean clone: the cargo tests (unit,
# property, golden and differential tests) and the lit suite. It creates its
# own Python venv with lit and filecheck from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

echo "== build"
# `python` (aot_torch's extension module) is built by maturin below.
cargo build --workspace --exclude aot-python --all-targets --locked

echo "== cargo test"
cargo test --workspace --exclude aot-python --locked 2>&1 | tee target/cargo-test.log
# An empty cargo run must not pass silently.
passed=$(awk '/^test result: ok\./ {n += $4} END {print n + 0}' target/cargo-test.log)
if [ "${passed:-0}" -lt 1 ]; then
  echo "error: cargo test ran no test" >&2
  exit 1
fi

echo "== lit"
venv="$root/.venv"
if [ ! -x "$venv/bin/lit" ] || [ ! -x "$venv/bin/filecheck" ] || ! "$venv/bin/python" -c 'import jsonschema' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check lit filecheck jsonschema
fi
export AOT_BIN_DIR="$root/target/debug"
set +e
"$venv/bin/lit" -sv test/ 2>&1 | tee target/lit.log
status=${PIPESTATUS[0]}
set -e
total=$(grep -E '^Total Discovered Tests:' target/lit.log | awk '{print $4}')
if [ "${total:-0}" -lt 1 ]; then
  echo "error: lit discovered no test" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "error: lit failed" >&2
  exit "$status"
fi
# A fixed number of executions (not seconds) keeps the inputs the same on
# every machine; the per-input timeout is generous because this is a debug
# build on a loaded machine (the long campaigns in docs/fuzzing.md use a
# release build and the default 10 s).
echo "== fuzz (bounded: a fixed number of executions per target, seed 1; docs/fuzzing.md)"
for spec in roundtrip:100000 pipeline:40000 run:40000; do
  t=${spec%%:*}
  runs=${spec##*:}
  if ! cargo run --quiet --locked -p aot-fuzz -- run "$t" --runs "$runs" --seed 1 --timeout 60 | tee target/fuzz-$t.log; then
    grep -o 'artifact: .*' "target/fuzz-$t.log" | cut -d' ' -f2 | while read -r a; do cat "$a.txt"; head -c 4000 "$a"; echo; done
    echo "error: fuzz target $t found a crash or a broken law (artifacts above)" >&2
    exit 1
  fi
done
# The Python package: `pip install ./python` builds aot_torch (maturin,
# cargo, release profile) into a venv with PyTorch from PyPI (the one the
# goldens are generated with), then pytest runs its tests: the
# torch.compile backend against eager PyTorch, DDP on two processes,
# torch.export import, the FX translator against aot-run.
echo "== Python package aot_torch (pip install ./python; pytest)"
pyvenv="$root/test/.venv"
if [ ! -x "$pyvenv/bin/pytest" ] || ! "$pyvenv/bin/python" -c 'import torch, pytest' 2>/dev/null; then
  python3 -m venv "$pyvenv"
  "$pyvenv/bin/pip" install --quiet --disable-pip-version-check torch pytest
fi
"$pyvenv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./python
set +e
# The `pytest` script, not `python -m pytest`: the latter would put the
# working directory first on sys.path, shadowing the installed package.
AOT_RUN="$root/target/debug/aot-run" "$pyvenv/bin/pytest" -v -p no:cacheprovider python/tests 2>&1 | tee target/pytest.log
status=${PIPESTATUS[0]}
set -e
py_passed=$(grep -oE '[0-9]+ passed' target/pytest.log | tail -1 | awk '{print $1}')
if [ "$status" -ne 0 ]; then
  echo "error: the Python package's tests failed" >&2
  exit "$status"
fi
if [ "${py_passed:-0}" -lt 1 ]; then
  echo "error: pytest ran no test" >&2
  exit 1
fi
# The LLVM backend (cargo feature `llvm`) needs LLVM 19: Debian's packages,
# installed here when missing (CI runs as root); the default build above
# needs only cargo.
# The `cuda` feature adds PTX generation to it (LLVM's NVPTX target, in the
# same packages), so one build with `--features cuda` covers both.
echo "== LLVM backend (--features cuda, which includes llvm): the differential, gradient, convention, accuracy, embedding and PTX tests"
if [ -z "${LLVM_SYS_191_PREFIX:-}" ] && [ ! -x /usr/lib/llvm-19/bin/llvm-config ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q llvm-19-dev libpolly-19-dev libzstd-dev zlib1g-dev
  else
    echo "error: LLVM 19 is missing: install llvm-19-dev libpolly-19-dev libzstd-dev zlib1g-dev, or set LLVM_SYS_191_PREFIX" >&2
    exit 1
  fi
fi
# The GPU tests (`cuda_*`, `tests/cuda.rs`, the runtime's device tests) run
# here too: without a GPU each says why and passes, so the feature is
# checked to build, link and fail gracefully everywhere.
llvm_tests=(--test differential --test gradients --test conventions --test embedding --test native --test tensor_api --test gemm --test split --test openmp_team --test ptx --test cuda)
cargo test --locked --features cuda "${llvm_tests[@]}" 2>&1 | tee target/cargo-test-llvm.log
cargo test --locked --features cuda -p aot-runtime -p aot-codegen --lib cuda 2>&1 | tee -a target/cargo-test-llvm.log
llvm_passed=$(awk '/^test result: ok\./ {n += $4} END {print n + 0}' target/cargo-test-llvm.log)
for t in llvm_matches_eager llvm_gradients_match_pytorch random_conventions_match_eager_in_llvm_code \
  the_mlp_example_trains_on_llvm every_math_row_is_accurate_on_llvm \
  llvm_scopes_only_buffers_no_other_operand_can_share llvm_philox_multiplies_32_bit_lanes \
  matmul_layouts_are_exact_on_several_threads kernels_are_grid_stride_entries_calling_libdevice \
  cuda_matches_eager cuda_gradients_match_pytorch random_conventions_match_eager_on_the_gpu \
  the_mlp_example_trains_on_the_gpu gpu_philox_draws_are_the_hosts_bit_for_bit without_a_gpu_compiling_says_why \
  cuda::tests::size_classes_round_like_pytorch cuda::tests::opening_the_gpu_reports_rather_than_panics \
  cuda::tests::col_major_reads_unit_strides_either_way \
  a_failed_check_writes_its_code_to_the_status_word ptx_for_a_named_architecture_is_text_only \
  a_libdevice_that_cannot_be_read_is_a_located_error philox_kernels_split_across_threads_draw_what_one_thread_draws \
  parallel_steps_run_on_an_openmp_team; do
  if ! grep -q "^test $t ... ok" target/cargo-test-llvm.log; then
    echo "error: the LLVM test $t did not run and pass" >&2
    exit 1
  fi
done
# Every kernel of the corpus as PTX for sm_80 and sm_90, with libdevice
# linked in, assembled and linked by ptxas (NVIDIA's PyPI wheel, into the
# venv; no GPU needed).
echo "== PTX: ptxas on every kernel of the corpus"
ptxas=$("$venv/bin/python" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || true)
if [ ! -x "${ptxas:-/nonexistent}" ]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check nvidia-cuda-nvcc-cu12
  ptxas=$("$venv/bin/python" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))')
fi
cargo build --locked --features cuda -p aot-opt
# The wheel ships libdevice too: linked in, every module must be complete.
libdevice="$(dirname "$(dirname "$ptxas")")/nvvm/libdevice/libdevice.10.bc"
"$venv/bin/python" scripts/check-ptx.py --aot-opt target/debug/aot-opt --ptxas "$ptxas" --libdevice "$libdevice" test/run | tee target/ptx.log
# Export to upstream MLIR (cargo feature `mlir`): MLIR 19 through melior
# (Debian's libmlir-19-dev, mlir-19-tools for mlir-opt and mlir-cpu-runner,
# libclang-19-dev for melior's bindings), installed here when missing.
echo "== MLIR export (--features mlir): every corpus program exported and verified, mlir-opt, run by MLIR against eager"
if [ ! -x /usr/lib/llvm-19/bin/mlir-opt ] || [ ! -e /usr/lib/llvm-19/lib/libMLIR.so ] || [ ! -e /usr/lib/llvm-19/lib/libclang.so ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q libmlir-19-dev mlir-19-tools libclang-19-dev
  else
    echo "error: MLIR 19 is missing: install libmlir-19-dev mlir-19-tools libclang-19-dev" >&2
    exit 1
  fi
fi
export MLIR_SYS_190_PREFIX="${MLIR_SYS_190_PREFIX:-/usr/lib/llvm-19}" TABLEGEN_190_PREFIX="${TABLEGEN_190_PREFIX:-/usr/lib/llvm-19}"
cargo test --locked --features mlir --test mlir 2>&1 | tee target/cargo-test-mlir.log
# --backend mlir: the differential, gradient and convention suites through
# MLIR's own compiler, for every program that exports.
cargo test --locked --features mlir --test differential --test gradients --test conventions mlir 2>&1 | tee -a target/cargo-test-mlir.log
for t in corpus_programs_export_or_name_the_op_that_does_not training_models_export_forward_and_backward \
  mlir_reports_what_it_rejects mlir_opt_reads_and_lowers_exported_modules \
  exported_programs_run_by_mlir_compute_what_eager_computes mlir_draws_are_the_native_backends_bit_for_bit \
  mlir_matches_eager mlir_gradients_match_pytorch \
  random_conventions_match_eager_through_mlir; do
  if ! grep -q "^test $t ... ok" target/cargo-test-mlir.log; then
    echo "error: the MLIR test $t did not run and pass" >&2
    exit 1
  fi
done
mlir_passed=$(awk '/^test result: ok\./ {n += $4} END {print n + 0}' target/cargo-test-mlir.log)
cargo build --locked --features mlir -p aot-opt -p aot-run
"$venv/bin/lit" -sv test/tools/aot-opt/emit-mlir.mlir test/tools/aot-opt/emit-mlir-refused.mlir test/tools/aot-run/backend-mlir.mlir 2>&1 | tee target/lit-mlir.log
if ! grep -qE '^ *Passed *: 3 ' target/lit-mlir.log; then
  echo "error: the MLIR lit tests did not all run and pass" >&2
  exit 1
fi
# The default build again, so that a later lit run sees the binaries it tests.
cargo build --locked -p aot-opt -p aot-run
ptx_checked=$(grep -oE '^ptxas: [0-9]+' target/ptx.log | awk '{print $2}')
echo "== all tests passed (cargo: $passed, lit: $total, pytest: $py_passed, cargo with LLVM: $llvm_passed, PTX modules through ptxas: $ptx_checked, cargo with MLIR: $mlir_passed)"
