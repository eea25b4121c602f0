// Found by aot-fuzz: a storage-view argument with a huge stride (a span of
// 2e11 elements holding 3) made functionalize's overlap test allocate a
// bitmap over the whole span (274 GB). The test now takes the smaller of the
// bitmap and a sorted list of the smaller layout's indices, so this compiles
// within a 2 GB address space.
// RUN: ulimit -v 2097152; aot-opt %s --pass-pipeline='builtin.module(aot-inference)' | FileCheck %s
// CHECK: func.func @strided
func.func @strided(%a: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [3, 1]>}, %b: tensor<3xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [99511627776]>}) -> tensor<3xf32> {
  mut.neg_ %a : tensor<2x2xf32>
  %0 = tensor.mul %b, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}

