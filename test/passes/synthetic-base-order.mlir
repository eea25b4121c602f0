// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(synthetic-base))'

/// synthetic-base reads the mutations from aot.meta...
// expected-error@+1 {{has arguments in shared storages but no aot.meta: run 'collect-metadata' before 'synthetic-base'}}
func.func @no_meta(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                   %b: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 2, strides = [1]>}) -> tensor<4xf32> {
  mut.neg_ %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

/// ... and needs duplicates removed first.
// expected-error@+1 {{has duplicated arguments: run 'dedupe' before 'synthetic-base'}}
func.func @dupes(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                 %b: tensor<4xf32> {aot.same_as = 0}) -> tensor<4xf32> {
  mut.neg_ %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

/// Arguments without a shared storage: nothing to do, no metadata needed.
func.func @plain(%a: tensor<4xf32>) -> tensor<4xf32> {
  mut.neg_ %a : tensor<4xf32>
  return %a : tensor<4xf32>
}
