#!/usr/bin/env bash
# The heavy suites at their full size. `scripts/test-all.sh` runs a fixed
# prefix of the random-convention suites' cases and every second corpus file
# of the MLIR corpus suites (docs/testing.md, "The suites that run a
# subset"); this runs all of their cases. Run it after `scripts/test-all.sh` has set the machine up, and
# before a change to what these suites cover lands. Its figures are in
# docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
echo "== random calling conventions, 24 per corpus case, on every CPU backend and MLIR"
AOT_FULL=1 cargo test --locked --workspace --exclude aot-python --features cuda,mlir --test suite -- conventions::
echo "== the MLIR corpus suites on every corpus file"
AOT_FULL=1 cargo test --locked --workspace --exclude aot-python --features cuda,mlir --test suite -- \
  differential::mlir_matches_eager gradients::mlir_gradients_match_pytorch \
  mlir::exported_programs_run_by_mlir_compute_what_eager_computes
echo "== all full suites passed in $((SECONDS - t0)) s"
