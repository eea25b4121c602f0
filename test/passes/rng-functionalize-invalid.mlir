// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(rng-functionalize))'

/// The new arguments and result are part of the calling convention, which
/// lives in aot.meta.
// expected-error@+1 {{has random ops but no aot.meta: run 'collect-metadata' before 'rng-functionalize'}}
func.func @no_meta() -> tensor<4xf32> {
  %u = rng.uniform : tensor<4xf32>
  return %u : tensor<4xf32>
}
