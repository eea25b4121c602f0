// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s

/// Stateful random ops draw from the global generator.
// CHECK-LABEL: func.func @stateful
// CHECK: rng.uniform {high = 2.0, low = -1.0} : tensor<4xf32>
// CHECK: rng.normal {mean = 0.5, std = 2.0} : tensor<2x2xf64>
// CHECK: rng.bernoulli %arg0 : tensor<4xf32>
// CHECK: %{{.*}}:2 = rng.dropout %arg0 {p = 0.25} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
// CHECK: %{{.*}}:2 = rng.dropout %arg0 {train = false} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
func.func @stateful(%p: tensor<4xf32>) {
  %0 = rng.uniform {low = -1.0, high = 2.0} : tensor<4xf32>
  %1 = rng.normal {mean = 0.5, std = 2.0} : tensor<2x2xf64>
  %2 = rng.bernoulli %p : tensor<4xf32>
  %3:2 = rng.dropout %p {p = 0.25} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  %4:2 = rng.dropout %p {train = false} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  return
}

/// Functional random ops take the Philox state as operands.
// CHECK-LABEL: func.func @functional
// CHECK: rng.philox_uniform %arg0, %arg1 : tensor<i64> -> tensor<4xf32>
// CHECK: rng.philox_normal %arg0, %arg1 {std = 3.0} : tensor<i64> -> tensor<3xbf16>
// CHECK: rng.philox_bernoulli %arg0, %arg1, %arg2 : tensor<i64>, tensor<i64>, tensor<4xf32> -> tensor<4xf32>
// CHECK: %{{.*}}:2 = rng.philox_dropout %arg0, %arg1, %arg2 {p = 0.5} : tensor<i64>, tensor<i64>, tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
func.func @functional(%seed: tensor<i64>, %offset: tensor<i64>, %x: tensor<4xf32>) {
  %0 = rng.philox_uniform %seed, %offset : tensor<i64>, tensor<i64> -> tensor<4xf32>
  %1 = rng.philox_normal %seed, %offset {std = 3.0} : tensor<i64>, tensor<i64> -> tensor<3xbf16>
  %2 = rng.philox_bernoulli %seed, %offset, %x : tensor<i64>, tensor<i64>, tensor<4xf32> -> tensor<4xf32>
  %3:2 = rng.philox_dropout %seed, %offset, %x {p = 0.5} : tensor<i64>, tensor<i64>, tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  return
}
