// A generic op whose type lacks `-> results` is reported at the end of its
// type, not at the next line's first token (as MLIR reports a missing token
// that belongs to the end of a line).

// RUN: not aot-opt %s --split-input-file 2>&1 | FileCheck %s

func.func @f(%a: tensor<2xf32>) {
  // CHECK: generic-missing-result-type.mlir:[[# @LINE + 1]]:42: error: expected '->' in function type
  %0 = "tensor.neg"(%a) : (tensor<2xf32>)
  %1 = "tensor.neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A missing type after the attribute dictionary.
func.func @g(%a: tensor<2xf32>) {
  // CHECK: generic-missing-result-type.mlir:[[# @LINE + 1]]:48: error: expected ':' followed by operation type
  %0 = "tensor.neg"(%a) {aot.x = tensor<2xf32>}
  return
}

// -----

// On the same line the error stays at the unexpected token.
func.func @h(%a: tensor<2xf32>) {
  // CHECK: generic-missing-result-type.mlir:[[# @LINE + 1]]:43: error: expected '->' in function type
  %0 = "tensor.neg"(%a) : (tensor<2xf32>) tensor<2xf32>
  return
}

// -----

// At the end of the file, after a tensor type the parser has seen before.
// CHECK: generic-missing-result-type.mlir:[[# @LINE + 1]]:54: error: expected ')' in function type
%0 = "tensor.neg"(%a) : (tensor<2xf32>, tensor<2xf32>