// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(dedupe))'

/// dedupe reads how functionalize traced each duplicate from aot.meta.
// expected-error@+1 {{has duplicated arguments but no aot.meta: run 'collect-metadata' before 'dedupe'}}
func.func @no_meta(%a: tensor<3xf32>, %b: tensor<3xf32> {aot.same_as = 0}) -> tensor<3xf32> {
  %0 = tensor.add %a, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}
