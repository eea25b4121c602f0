#!/usr/bin/env bash
# Before/after figures for a change, side by side in one run: builds
# `aot-bench` at git revision BASE (in a temporary worktree, its own target
# directory) and at the working tree, then runs each benchmark on both,
# alternating, ROUNDS times (default 3), and prints every result so the
# best of each can be read off. Used for the "not slower" checks of
# refactoring issues.
#
#   bash bench/compare-builds.sh BASE [ROUNDS]
#
# BEFORE_BIN / AFTER_BIN name aot-bench binaries built already (of BASE and
# of the working tree): no build then, so that a run started while other
# work compiles can be repeated alone on a quiet machine.
#
# Benchmarks: compile time of aot-train on the 12-layer encoder (both
# partitions), the fused elementwise chain at 1 and 2 threads, the per-call
# overhead, and the native training steps at 1 and 2 threads.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/compare-builds.sh BASE [ROUNDS]}
rounds=${2:-3}
declare -A bin=([before]="${BEFORE_BIN:-}" [after]="${AFTER_BIN:-}")
if [ -z "${bin[before]}" ]; then
  wt=$(mktemp -d)/base
  trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
  git worktree add -q --detach "$wt" "$base"
  (cd "$wt" && CARGO_TARGET_DIR="$wt/target" cargo build --release -q -p aot-bench)
  bin[before]="$wt/target/release/aot-bench"
fi
if [ -z "${bin[after]}" ]; then
  cargo build --release -q -p aot-bench
  bin[after]="target/release/aot-bench"
fi
bench() {
  local label=$1 envs=$2
  shift 2
  for r in $(seq "$rounds"); do
    for side in before after; do
      echo "== $label [$side, round $r]"
      env $envs "${bin[$side]}" "$@"
    done
  done
}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "base: $(git rev-parse --short "$base"), after: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' + working tree')"
bench "train compile time" "" train --reps 10
bench "native elementwise, 1 thread" "AOT_NUM_THREADS=1" native elementwise
bench "native elementwise, 2 threads" "AOT_NUM_THREADS=2" native elementwise
bench "native overhead" "" native overhead
# MATMUL_NUM_THREADS is for builds before the switch to the `gemm` crate
# (matrixmultiply's own pool); later builds ignore it.
bench "native train, 1 thread" "AOT_NUM_THREADS=1 MATMUL_NUM_THREADS=1" native train
bench "native train, 2 threads" "AOT_NUM_THREADS=2 MATMUL_NUM_THREADS=2" native train
