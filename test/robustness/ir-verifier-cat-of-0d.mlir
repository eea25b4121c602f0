// Reproducer panic_tensor_mod_rs_424_verifier_cat_of_0d: `tensor.cat` of
// 0-d operands indexed the shape out of bounds in shape inference. It is an
// error, with PyTorch's message.

// RUN: not aot-opt %s --split-input-file 2>&1 | FileCheck %s

func.func @main(%x: tensor<f32>) -> tensor<6xf32> {
  // CHECK: ir-verifier-cat-of-0d.mlir:[[# @LINE + 1]]:3: error: 'tensor.cat' op zero-dimensional tensor (at position 0) cannot be concatenated
  %0 = tensor.cat %x, %x {dim = 0} : tensor<f32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @second(%x: tensor<2xf32>, %y: tensor<f32>) -> tensor<3xf32> {
  // CHECK: ir-verifier-cat-of-0d.mlir:[[# @LINE + 1]]:3: error: 'tensor.cat' op zero-dimensional tensor (at position 1) cannot be concatenated
  %0 = tensor.cat %x, %y {dim = 0} : tensor<2xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The concatenated size must fit i64 (each operand's type alone is valid).
func.func @overflow(%x: tensor<4611686018427387904xi8>) -> tensor<1xi8> {
  // CHECK: ir-verifier-cat-of-0d.mlir:[[# @LINE + 1]]:3: error: 'tensor.cat' op concatenated size along dimension 0 overflows a 64-bit integer
  %0 = tensor.cat %x, %x {dim = 0} : tensor<4611686018427387904xi8> -> tensor<1xi8>
  return %0 : tensor<1xi8>
}
