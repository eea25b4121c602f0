#!/usr/bin/env bash
# The heavy randomized suites at their full size. `scripts/test-all.sh` runs
# a fixed prefix of each (docs/testing.md, "Adding a suite"); this runs all of
# their cases. Run it after `scripts/test-all.sh` has set the machine up, and
# before a change to what these suites cover lands. Its figures are in
# docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
echo "== random calling conventions, 24 per corpus case, on every CPU backend and MLIR"
AOT_FULL=1 cargo test --locked --workspace --exclude aot-python --features cuda,mlir --test suite -- conventions::
echo "== all full suites passed in $((SECONDS - t0)) s"
