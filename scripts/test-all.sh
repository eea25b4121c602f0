#!/usr/bin/env bash
# Runs every test of the project from a clean clone: the cargo tests (unit,
# property, golden and differential tests) and the lit suite. It creates its
# own Python venv with lit and filecheck from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

echo "== build"
cargo build --workspace --all-targets --locked

echo "== cargo test"
cargo test --workspace --locked 2>&1 | tee target/cargo-test.log
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
echo "== all tests passed (cargo: $passed, lit: $total)"
