// RUN: aot-opt %s --verify-diagnostics --pass-pipeline='builtin.module(partition)'
// RUN: not aot-opt %s --pass-pipeline='builtin.module(partition{memory-budget=0.5})' 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not aot-opt %s --pass-pipeline='builtin.module(partition{strategy=greedy})' 2>&1 | FileCheck %s --check-prefix=STRATEGY

// BUDGET: memory-budget needs strategy=min-cut
// STRATEGY: greedy

/// partition splits what joint built.
// expected-error@+1 {{is not a joint function: run 'joint' before 'partition'}}
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
