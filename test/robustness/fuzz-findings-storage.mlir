// Inputs aot-fuzz found (minimized): shared storages whose layouts span far
// more elements than the arguments hold. functionalize allocated a coverage
// map per storage element (1 TB) and an overlap bitmap per element of a
// huge-strided span (274 GB); both are bounded by the allocation limit now.
// RUN: not aot-opt %s --split-input-file --pass-pipeline='builtin.module(aot-inference)' 2>&1 | FileCheck %s

// CHECK: error: {{.*}}more than the allocation limit
func.func @declared(%a: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}, %b: tensor<1xf32> {aot.layout = #aot.layout<storage = 0, offset = 3, strides = [1]>}) -> tensor<4xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 1099511627776, requires_grad = false>]} {
  %v = view.as_strided %a {size = [4], stride = [1], offset = 0} : tensor<2xf32> -> tensor<4xf32>
  return %v : tensor<4xf32>
}

// -----

// CHECK: error:
func.func @wide(%a: tensor<2x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [3, 1]>}, %b: tensor<2x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [4611686018427387904, 1]>}) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %bt = mut.t_ %b : tensor<2x3xf32> -> tensor<3x2xf32>
  %three = tensor.full {value = 0.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<2x3xf32>, tensor<f32>
  %0 = tensor.add %a, %a : tensor<2x3xf32>
  return %bt, %0 : tensor<3x2xf32>, tensor<2x3xf32>
}
