#!/usr/bin/env bash
# The README's test command (and CI's, through .ci/run): every test of the
# project, from a clean clone, with one compile of the workspace per
# feature set. docs/testing.md lists the sections, what each costs, and
# the budget a new suite has to fit.
#
# Sections, in order:
#   setup     Debian's LLVM 19, MLIR 19, Graphviz and Chromium (apt-get, as
#             root, when missing),
#             the venvs .venv (lit, filecheck, jsonschema, NVIDIA's ptxas
#             wheel) and test/.venv (PyTorch, pytest, pytest-xdist,
#             maturin, transformers, torchvision, timm): started in the background, so that the downloads
#             overlap the first compile.
#   default   the default build (no optional feature): compiled, and its
#             unit tests run.
#   lit       the lit suite on the default build's aot-opt and aot-run.
#   dot       `aot-opt --emit=dot` on every corpus program at four stages,
#             and `--emit=dot-partition` after aot-train, each picture
#             rendered by Graphviz.
#   features  the workspace with every optional feature (`cuda,mlir`;
#             `llvm` comes with `cuda`): one build for everything below.
#   cargo     every cargo test of that build: the Cranelift, interpreter,
#             LLVM, MLIR and CUDA suites in one run.
#   python    aot_torch's extension module linked from the default build
#             (`pip install ./python` with the dev profile: nothing of the
#             workspace compiles again), in the background from the first
#             test binary of `cargo` on.
#   lit-features  the lit tests the default build leaves unsupported
#             (the LLVM, CUDA and MLIR ones), on that build's tools.
#   fuzz      bounded aot-fuzz runs, a fixed number of executions per
#             target, the three targets at once.
#   ptx       every kernel of the corpus as PTX, through ptxas.
#   pytest    the Python package's tests against eager PyTorch, spread
#             over the cores.
#
# Each section prints its start time; the end prints the time of every
# section and the counts of what ran. An empty run of any suite fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
logs="$root/target/test-all"
mkdir -p "$logs"
cores=$(nproc 2>/dev/null || echo 2)
venv="$root/.venv"
pyvenv="$root/test/.venv"
# The LLVM and MLIR backends' objects, kept between runs in target/ (not
# in the user's ~/.cache): a re-run links what an earlier run compiled,
# and a fresh clone starts empty.
export AOT_CACHE_DIR="$root/target/aot-cache"

# ---------------------------------------------------------------- timing
t0=$SECONDS
section_name=""
section_start=0
timings=()
clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
# read_cpu sets cpu_now to the CPU seconds (user + system) of the
# processes this script has waited for. `times` must run in this shell (in
# a pipeline or $(...) it would run in a fork, whose counters start at
# zero), so it writes to a file and the result is a global.
cpu_now=0
read_cpu() {
  # (One file per shell: a background section measures itself too.)
  local f="$logs/.times.$BASHPID"
  times >"$f"
  cpu_now=$(tail -n 1 "$f" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] } printf "%d", s }')
}
section_cpu=0
end_section() {
  if [ -n "$section_name" ]; then
    local took=$((SECONDS - section_start))
    read_cpu
    local cpu=$((cpu_now - section_cpu))
    timings+=("$(printf '  %-12s %5d s %6d CPU-s' "$section_name" "$took" "$cpu")")
    echo "-- $section_name: ${took} s, ${cpu} CPU-s"
  fi
  section_name=""
}
section() {
  end_section
  section_name=$1
  section_start=$SECONDS
  read_cpu
  section_cpu=$cpu_now
  echo "== [$(clock $((SECONDS - t0)))] $1: $2"
}
fail() {
  echo "error: $*" >&2
  exit 1
}
# bg_section NAME NICE DESCRIPTION FUNCTION: a section that runs in the
# background beside the sections that follow it (they leave a core partly
# idle: cargo's test binaries run one after another, each with a long
# tail). Its output goes to target/test-all/NAME.out; its own wall time and
# CPU seconds are measured inside it, and reported by join_section.
declare -A bg_pid
# A failure in the foreground stops the background sections too.
stop_background() {
  local pid
  for pid in "${bg_pid[@]}"; do
    pkill -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
}
trap stop_background EXIT
bg_section() {
  local name=$1 nice=$2 description=$3
  shift 3
  echo "== [$(clock $((SECONDS - t0)))] $name (in the background): $description"
  (
    set -euo pipefail
    # Niced when the foreground section is the critical path.
    [ "$nice" -eq 0 ] || renice -n "$nice" -p $BASHPID >/dev/null 2>&1 || true
    start=$SECONDS
    set +e
    "$@"
    rc=$?
    set -e
    took=$((SECONDS - start))
    read_cpu
    echo "$took $cpu_now" >"$logs/$name.took"
    exit $rc
  ) >"$logs/$name.out" 2>&1 &
  bg_pid[$name]=$!
}
# join_section NAME: waits for a background section between two
# foreground ones (its CPU seconds then count in no foreground section),
# shows its output and records its time. Fails when it failed.
join_section() {
  local name=$1 rc=0
  end_section
  wait "${bg_pid[$name]}" || rc=$?
  cat "$logs/$name.out"
  local took=0 cpu=0
  if [ -s "$logs/$name.took" ]; then read -r took cpu <"$logs/$name.took"; fi
  timings+=("$(printf '  %-12s %5d s %6d CPU-s  (in the background)' "$name" "$took" "$cpu")")
  echo "-- $name: ${took} s, ${cpu} CPU-s (in the background, joined at $(clock $((SECONDS - t0))))"
  return $rc
}

# ------------------------------------------------- background set-up jobs
declare -A job_pid
# start NAME FUNCTION: runs FUNCTION in the background, its output in
# target/test-all/NAME.log. Niced: the compile in the foreground is the
# critical path, and the downloads and unpacking fill its idle moments
# (the long single-crate compiles, the links).
start() {
  local name=$1
  shift
  (set -euo pipefail; renice -n 10 -p $BASHPID >/dev/null 2>&1 || true; "$@") >"$logs/$name.log" 2>&1 &
  job_pid[$name]=$!
}
# finish NAME: waits for it; on failure shows its log and stops.
finish() {
  local name=$1
  if ! wait "${job_pid[$name]}"; then
    tail -n 60 "$logs/$name.log" >&2
    fail "set-up step '$name' failed (log: $logs/$name.log)"
  fi
}

# Debian's LLVM 19 (the `llvm` and `cuda` features: llvm-sys, NVPTX) and
# MLIR 19 (the `mlir` feature: melior's bindings need libclang; mlir-opt
# and mlir-cpu-runner for the lit tests); Graphviz (`dot`, with the fonts it
# only recommends) for the pictures of `aot-opt --emit=dot` and of the
# compile report; Chromium, headless, to load the compile report as a
# person would.
apt_packages=(llvm-19-dev llvm-19-tools libpolly-19-dev libzstd-dev zlib1g-dev libmlir-19-dev mlir-19-tools libclang-19-dev
  graphviz fonts-liberation2 chromium)
have_llvm_mlir() {
  { [ -n "${LLVM_SYS_191_PREFIX:-}" ] || [ -x /usr/lib/llvm-19/bin/llvm-config ]; } &&
    [ -x /usr/lib/llvm-19/bin/mlir-opt ] && [ -e /usr/lib/llvm-19/lib/libMLIR.so ] &&
    [ -e /usr/lib/llvm-19/lib/libclang.so ]
}
have_system_packages() {
  have_llvm_mlir && command -v dot >/dev/null && command -v chromium >/dev/null
}
install_system_packages() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # Without the packages they only recommend: compiler-rt with its 32-bit
  # C library, binfmt-support or systemd; nothing here uses them.
  apt-get install -y -q --no-install-recommends "${apt_packages[@]}"
  # The downloaded archives (about 700 MB) are not needed once unpacked.
  apt-get clean
}
ptxas_of() {
  "$venv/bin/python" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null
}
tools_venv() {
  if [ -x "$venv/bin/lit" ] && [ -x "$venv/bin/filecheck" ] && "$venv/bin/python" -c 'import jsonschema' 2>/dev/null &&
    [ -x "$(ptxas_of || true)" ]; then
    return 0
  fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir lit filecheck jsonschema nvidia-cuda-nvcc-cu12
}
torch_venv() {
  if "$pyvenv/bin/python" -c 'import torch, pytest, xdist, maturin, transformers, torchvision, timm' 2>/dev/null; then
    return 0
  fi
  python3 -m venv "$pyvenv"
  # (No copy of the 2.8 GB of wheels in pip's cache: the venv is what a
  # re-run reuses.)
  # transformers, torchvision, timm: the real-model tests build small
  # models of each with random weights.
  "$pyvenv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir torch torchvision pytest \
    pytest-xdist 'maturin>=1.9.4,<2' 'transformers>=5.24,<6' 'timm>=1.0.31,<2'
}

# GB free on the file system of target/ (CI's disk is not large: the
# summary reports what a run took).
disk_free() { df -Pk "$root" | awk 'NR == 2 { printf "%.1f", $4 / 1048576 }'; }
disk_at_start=$(disk_free)

# ------------------------------------------------------------------ run
section setup "system packages, venvs and crates (downloads in the background)"
echo "disk: $disk_at_start GB free"
if ! have_system_packages; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    start apt install_system_packages
  else
    fail "LLVM 19, MLIR 19, Graphviz or Chromium is missing: install ${apt_packages[*]} (or set LLVM_SYS_191_PREFIX and MLIR_SYS_190_PREFIX)"
  fi
fi
start tools-venv tools_venv
start torch-venv torch_venv
cargo fetch --locked

# Only the crates that differ between the feature sets compile twice: the
# dialects and passes do not depend on any feature, and `syn` resolves the
# same in both builds (ir/Cargo.toml says why).
section default "the default build: compile, then its unit tests"
# Every crate's unit tests, the tools' too, and the integration tests of
# every crate but the facade run here (and only here): only the facade,
# the code generators and what links them change with the features. The
# facade's integration suite runs in `cargo`, with every backend. The
# examples are built to check that they link.
member_tests=()
while read -r t; do member_tests+=(--test "$t"); done < <(
  cargo metadata --locked --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] not in ("aot", "aot-python"):
        for t in p["targets"]:
            if "test" in t["kind"]:
                print(t["name"])')
[ "${#member_tests[@]}" -ge 2 ] || fail "cargo metadata listed no integration test of the crates"
default_tests=(--workspace --exclude aot-python --lib --bins --examples "${member_tests[@]}")
cargo test --locked "${default_tests[@]}" --no-run
cargo test --locked "${default_tests[@]}" 2>&1 | tee "$logs/cargo-default.log"
# The documentation's examples here, not in `cargo`: they need no feature,
# and each links into its own executable, which without LLVM and MLIR
# takes half as long.
cargo test --locked --workspace --exclude aot-python --doc 2>&1 | tee -a "$logs/cargo-default.log"
default_passed=$(awk '/^test result: ok\./ {n += $4} END {print n + 0}' "$logs/cargo-default.log")
[ "$default_passed" -ge 1 ] || fail "the default build's tests ran no test"
# The tools as users build them, for the lit suite's first pass, and the
# fuzz driver (it runs the interpreter and Cranelift only, which no
# feature changes).
cargo build --locked -p aot-opt -p aot-run -p aot-fuzz --bins

# `pip install ./python` as users run it, but with the dev profile and
# without build isolation: maturin then links the extension module against
# the crates the default build compiled (a plain install for users keeps
# pyproject.toml's release profile). It runs in the background once
# `cargo` runs its test binaries: maturin's cargo waits for any other cargo
# that builds in target/ (and blocks it), and cargo's test runs leave part
# of a core idle, which its one compile at a time and its link fill.
install_python() {
  # (The build backend runs `maturin` from PATH: the venv's.)
  PATH="$pyvenv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" "$pyvenv/bin/pip" install --quiet --disable-pip-version-check \
    --no-build-isolation --no-deps --force-reinstall ./python
  "$pyvenv/bin/python" -c 'import aot_torch._native' || fail "aot_torch's extension module does not import"
}
end_section

# A fixed number of executions (not seconds) keeps the inputs the same on
# every machine; the per-input timeout is generous because this is a debug
# build on a loaded machine (the long campaigns in docs/fuzzing.md use a
# release build and the default 10 s). The targets are independent, and
# each driver is one process: they run side by side.
# It runs in the background from here to the end, niced: the compiles,
# `cargo` and `ptx` leave part of a core idle (one crate or one link at a
# time, test binaries with long tails), and the fuzz drivers fill it. It
# runs a copy of the driver: the driver starts its workers from its own
# executable, which a later build would replace.
run_fuzz() {
  cp target/debug/aot-fuzz "$logs/aot-fuzz"
  declare -A fuzz_pid
  for spec in roundtrip:100000 pipeline:40000 run:40000; do
    t=${spec%%:*}
    "$logs/aot-fuzz" run "$t" --runs "${spec##*:}" --seed 1 --timeout 60 >"$logs/fuzz-$t.log" 2>&1 &
    fuzz_pid[$t]=$!
  done
  fuzz_failed=0
  fuzz_runs=0
  for t in roundtrip pipeline run; do
    if ! wait "${fuzz_pid[$t]}"; then
      fuzz_failed=1
      cat "$logs/fuzz-$t.log"
      grep -o 'artifact: .*' "$logs/fuzz-$t.log" | cut -d' ' -f2 | while read -r a; do
        cat "$a.txt"
        head -c 4000 "$a"
        echo
      done
    fi
    tail -n 1 "$logs/fuzz-$t.log"
    n=$(grep -oE '^aot-fuzz: target [a-z]+: [0-9]+ executions' "$logs/fuzz-$t.log" | awk '{print $4}')
    fuzz_runs=$((fuzz_runs + ${n:-0}))
  done
  [ "$fuzz_failed" -eq 0 ] || fail "aot-fuzz found a crash or a broken law (artifacts above)"
  [ "$fuzz_runs" -ge 1 ] || fail "aot-fuzz ran nothing"
  echo "$fuzz_runs" >"$logs/fuzz.runs"
}
bg_section fuzz 10 "bounded aot-fuzz: a fixed number of executions per target, seed 1, three targets at once" run_fuzz

# lit runs twice. First on the default build's aot-opt and aot-run, the
# tools as a plain `cargo build` makes them: the tests of what a build
# without LLVM, CUDA or MLIR says (`REQUIRES: !llvm` and the like) run
# here, and the backend tests report themselves unsupported. Those, and
# only those, run again on the feature build's tools in `lit-features`.
section lit "the lit suite on the default build's tools"
finish tools-venv
# LLVM's FileCheck (Debian's llvm-19-tools, which llvm-19-dev pulls in)
# starts in a millisecond, the PyPI clone in a fifth of a second: over the
# suite's ~360 FileCheck runs that is most of lit's time. test/lit.cfg.py
# takes LLVM's when it is there.
if [ -n "${job_pid[apt]:-}" ]; then
  finish apt
fi
set +e
AOT_BIN_DIR="$root/target/debug" "$venv/bin/lit" -sv --show-unsupported test/ 2>&1 | tee "$logs/lit.log"
status=${PIPESTATUS[0]}
set -e
total=$(awk '/^Total Discovered Tests:/ {print $4}' "$logs/lit.log")
lit_count() { sed -nE "s/^ *$1 *: *([0-9]+).*/\\1/p" "$2" | tail -n 1; }
lit_passed=$(lit_count Passed "$logs/lit.log")
[ "${total:-0}" -ge 1 ] || fail "lit discovered no test"
[ "$status" -eq 0 ] || fail "lit failed"
# lit_unsupported LOG: the tests a `lit --show-unsupported` run lists
# under "Unsupported Tests (n):", one "  aot :: path" per line.
lit_unsupported() { awk '/^Unsupported Tests/ {on = 1; next} on && /^  aot :: / {print $3; next} {on = 0}' "$1"; }
lit_unsupported "$logs/lit.log" >"$logs/lit-unsupported.txt"

# The Graphviz picture of every corpus program as written, after each
# pipeline and after the codegen pipeline's loops, and of its partition
# alone, rendered by `dot`.
section dot "aot-opt --emit=dot on every corpus program at four stages and its partition, through Graphviz"
"$venv/bin/python" scripts/check-dot.py --aot-opt target/debug/aot-opt --jobs "$cores" test/run | tee "$logs/dot.log"
dot_rendered=$(grep -oE '^dot: [0-9]+' "$logs/dot.log" | awk '{print $2}')
[ "${dot_rendered:-0}" -ge 1 ] || fail "no Graphviz picture was rendered"

# Every optional feature (`cuda,mlir`; `llvm` is part of `cuda`) changes
# only the code generators, the facade and what links them: the tools for
# lit-features, and the test binaries of the facade (its unit tests and the
# integration suite) and of aot-codegen. Each of those links LLVM and MLIR
# statically (mlir-sys asks for the static archives): about 270 MB and
# several seconds of linking apiece, so no other binary is built with them.
features=(--locked --features cuda,mlir)
feature_tests=(-p aot -p aot-codegen --lib --tests)
section features "the tools, the facade's and aot-codegen's tests with every optional feature (cuda,mlir)"
cargo build "${features[@]}" -p aot-opt -p aot-run --bins
cargo test "${features[@]}" "${feature_tests[@]}" --no-run

# The GPU tests (`cuda_*`, the suite's `cuda` module; the CUDA runtime's
# own unit tests ran in `default`) run here too: without a GPU each says
# why and passes, so the feature is checked to build, link and fail
# gracefully everywhere.
section cargo "the feature build's tests (facade and codegen unit tests, the integration suite: all backends)"
rm -f "$logs/cargo.rc"
(
  set +e
  cargo test "${features[@]}" "${feature_tests[@]}" 2>&1 |
    tee "$logs/cargo.log"
  echo "${PIPESTATUS[0]}" >"$logs/cargo.rc"
) &
cargo_pid=$!
# (Stopped with the background sections if the script fails meanwhile.)
bg_pid[cargo]=$cargo_pid
# Cargo has let go of target/ once it runs the first test binary.
while kill -0 "$cargo_pid" 2>/dev/null && ! grep -q '^ *Running ' "$logs/cargo.log" 2>/dev/null; do
  sleep 1
done
finish torch-venv
# Not niced: pytest waits for it, and niced beside the test binaries, ptx
# and the fuzz targets it finished more than a minute after ptx on a
# fresh run.
bg_section python 0 "aot_torch's extension module from the default build (pip install ./python)" install_python
wait "$cargo_pid" || true
unset 'bg_pid[cargo]'
status=$(cat "$logs/cargo.rc" 2>/dev/null || echo 1)
[ "$status" -eq 0 ] || fail "cargo test failed"
passed=$(awk '/^test result: ok\./ {n += $4} END {print n + 0}' "$logs/cargo.log")
[ "$passed" -ge 1 ] || fail "cargo test ran no test"
# Passed tests per test binary (`Running tests/x.rs`, `tests/suite/main.rs`
# or `unittests src/lib.rs (target/debug/deps/crate-hash)`), as "binary
# test", where a test of the suite is `module::name`: the default build's
# and the feature build's.
awk '
  /^ *Running / {
    bin = $2
    if (bin ~ /^unittests/) { bin = $NF; sub(/.*\//, "", bin); sub(/-[0-9a-f]+\)$/, "", bin) }
    else { sub(/^tests\//, "", bin); sub(/\/main\.rs$/, "", bin); sub(/\.rs$/, "", bin) }
  }
  /^test .* \.\.\. ok$/ { print bin, $2 }
' "$logs/cargo-default.log" "$logs/cargo.log" >"$logs/cargo-passed.txt"
# The LLVM and CUDA tests: the suites the `cuda` feature extends, the
# thread tests, and the device's own; the MLIR tests: the mlir module
# and the MLIR variants of the differential, gradient and convention suites.
llvm_passed=$(awk '
  $1 == "suite" && $2 ~ /^(differential|gradients|conventions|embedding|native|tensor_api|ptx|cuda)::/ { n++ }
  $1 == "suite" && $2 ~ /^own_process::(matmul|philox|parallel_steps)/ { n++ }
  $1 == "aot_runtime_cuda" { n++ }
  $1 == "aot_codegen" && $2 ~ /cuda/ { n++ }
  END { print n + 0 }' "$logs/cargo-passed.txt")
mlir_passed=$(awk '
  $1 == "suite" && ($2 ~ /^mlir::/ || ($2 ~ /^(differential|gradients|conventions)::/ && $2 ~ /mlir/)) { n++ }
  END { print n + 0 }' "$logs/cargo-passed.txt")
for t in llvm_matches_eager llvm_gradients_match_pytorch random_conventions_match_eager_in_llvm_code \
  the_mlp_example_trains_on_llvm every_math_row_is_accurate_on_llvm \
  llvm_scopes_only_buffers_no_other_operand_can_share llvm_philox_multiplies_32_bit_lanes \
  matmul_layouts_are_exact_on_several_threads kernels_are_grid_stride_entries_calling_libdevice \
  cuda_matches_eager cuda_gradients_match_pytorch random_conventions_match_eager_on_the_gpu \
  the_mlp_example_trains_on_the_gpu gpu_philox_draws_are_the_hosts_bit_for_bit without_a_gpu_compiling_says_why \
  tests::size_classes_round_like_pytorch tests::opening_the_gpu_reports_rather_than_panics \
  tests::col_major_reads_unit_strides_either_way \
  a_failed_check_writes_its_code_to_the_status_word ptx_for_a_named_architecture_is_text_only \
  a_libdevice_that_cannot_be_read_is_a_located_error philox_kernels_split_across_threads_draw_what_one_thread_draws \
  parallel_steps_run_on_an_openmp_team \
  corpus_programs_export_or_name_the_op_that_does_not training_models_export_forward_and_backward \
  mlir_reports_what_it_rejects mlir_opt_reads_and_lowers_exported_modules bf16_conversions_lower_without_compiler_runtime_calls \
  exported_programs_run_by_mlir_compute_what_eager_computes mlir_draws_are_the_native_backends_bit_for_bit \
  mlir_matches_eager mlir_gradients_match_pytorch random_conventions_match_eager_through_mlir; do
  grep -qE " ([a-z_]+::)?$t\$" "$logs/cargo-passed.txt" || fail "the test $t did not run and pass"
done

section lit-features "the lit tests the default build left unsupported, on the feature build's tools"
lit_features=0
if [ -s "$logs/lit-unsupported.txt" ]; then
  mapfile -t rerun < <(sed 's|^|test/|' "$logs/lit-unsupported.txt")
  set +e
  AOT_BIN_DIR="$root/target/debug" "$venv/bin/lit" -sv --show-unsupported "${rerun[@]}" 2>&1 | tee "$logs/lit-features.log"
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" -eq 0 ] || fail "lit failed on the feature build"
  lit_features=$(lit_count Passed "$logs/lit-features.log")
  # Only a test that needs a GPU may stay unsupported: the feature build
  # has every backend.
  if lit_unsupported "$logs/lit-features.log" | grep -v -i gpu; then
    fail "lit left the tests above unsupported on the feature build"
  fi
fi
lit_passed=$((lit_passed + ${lit_features:-0}))

# Every kernel of the corpus as PTX for sm_80 and sm_90, with libdevice
# linked in, assembled and linked by ptxas (NVIDIA's PyPI wheel, no GPU
# needed).
section ptx "ptxas on every kernel of the corpus (sm_80 and sm_90, libdevice linked)"
ptxas=$(ptxas_of)
libdevice="$(dirname "$(dirname "$ptxas")")/nvvm/libdevice/libdevice.10.bc"
"$venv/bin/python" scripts/check-ptx.py --aot-opt target/debug/aot-opt --ptxas "$ptxas" --libdevice "$libdevice" --cache target/ptx-cache \
  --jobs "$cores" test/run test/symbolic | tee "$logs/ptx.log"
ptx_checked=$(grep -oE '^ptxas: [0-9]+' "$logs/ptx.log" | awk '{print $2}')

join_section python || fail "aot_torch's extension module did not build or install"

# The torch.compile backend against eager PyTorch, DDP on two processes,
# torch.export import, the FX translator against aot-run.
section pytest "the Python package's tests (pytest, spread over $cores workers)"
set +e
# The `pytest` script, not `python -m pytest`: the latter would put the
# working directory first on sys.path, shadowing the installed package.
# (The compile report's test loads the page in Chromium, which setup
# installed: there a missing browser is a failure, not a skip.)
AOT_REQUIRE_BROWSER=1 AOT_RUN="$root/target/debug/aot-run" "$pyvenv/bin/pytest" -v -p no:cacheprovider -n "$cores" python/tests 2>&1 |
  tee "$logs/pytest.log"
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || fail "the Python package's tests failed"
py_passed=$(grep -oE '[0-9]+ passed' "$logs/pytest.log" | tail -1 | awk '{print $1}')
[ "${py_passed:-0}" -ge 1 ] || fail "pytest ran no test"

# The fuzz targets ran niced beside everything since `cargo`: joined last,
# so that no foreground section waits for them while a core has work.
join_section fuzz || fail "the fuzz section failed"
fuzz_runs=$(cat "$logs/fuzz.runs")

end_section
echo "== time per section"
printf '%s\n' "${timings[@]}"
read_cpu
echo "  total        $(printf '%5d s %6d CPU-s' $((SECONDS - t0)) "$cpu_now")"
echo "== disk: $disk_at_start GB free at the start, $(disk_free) GB at the end; target/ $(du -sk target | awk '{ printf "%.1f", $1 / 1048576 }') GB, the venvs $(du -sck .venv test/.venv | awk 'END { printf "%.1f", $1 / 1048576 }') GB"
echo "== all tests passed in $(clock $((SECONDS - t0))) (cargo: $((default_passed + passed)): the default build's $default_passed, the feature build's $passed, of which LLVM and CUDA: $llvm_passed, MLIR: $mlir_passed; lit: $lit_passed of $total; Graphviz pictures: $dot_rendered; pytest: $py_passed; PTX modules through ptxas: $ptx_checked; fuzz executions: $fuzz_runs)"
