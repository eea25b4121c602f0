// Reductions of a 0-d tensor take no explicit dim: shape inference used to
// index the empty shape (and the kernels and lowerings still would), so an
// explicit dim on a 0-d operand is a verifier error. Without one the
// reduction is the identity on the one element.

// RUN: not aot-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: aot-run %S/Inputs/zero-dim-full-reduction.mlir --random-inputs 1 --mode compiled --backend cranelift | FileCheck %s --check-prefix=EXEC

func.func @sum(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: zero-dim-reductions.mlir:[[# @LINE + 1]]:3: error: 'tensor.sum' op cannot reduce a 0-d tensor along dimension 0 (leave out 'dims')
  %0 = tensor.sum %x {dims = [0]} : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @amax(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: zero-dim-reductions.mlir:[[# @LINE + 1]]:3: error: 'tensor.amax' op cannot reduce a 0-d tensor along dimension -1 (leave out 'dims')
  %0 = tensor.amax %x {dims = [-1], keepdim} : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @argmax_keepdim(%x: tensor<f32>) -> tensor<i64> {
  // CHECK: zero-dim-reductions.mlir:[[# @LINE + 1]]:3: error: 'tensor.argmax' op cannot reduce a 0-d tensor along dimension 0 (leave out 'dim')
  %0 = tensor.argmax %x {dim = 0, keepdim} : tensor<f32> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @argmax(%x: tensor<f32>) -> tensor<i64> {
  // CHECK: zero-dim-reductions.mlir:[[# @LINE + 1]]:3: error: 'tensor.argmax' op cannot reduce a 0-d tensor along dimension -1 (leave out 'dim')
  %0 = tensor.argmax %x {dim = -1} : tensor<f32> -> tensor<i64>
  return %0 : tensor<i64>
}

// The full reductions of a 0-d tensor compile and return the element (and index 0).
// EXEC-LABEL: "args_after"
// EXEC: "data": [
// EXEC-NEXT: [[$X:[-0-9.e]+]]
// EXEC-LABEL: "outputs"
// EXEC: "data": [
// EXEC-NEXT: [[$X]]
// EXEC: "data": [
// EXEC-NEXT: 0
