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
echo "== all tests passed (cargo: $passed, lit: $total)"
