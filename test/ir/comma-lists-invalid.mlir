// A comma-separated list that does not end names the token it expected,
// at the token found instead (see comma-lists.mlir).

// RUN: not aot-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: comma-lists-invalid.mlir:[[# @LINE + 1]]:53: error: expected ')' in function signature
func.func @sig(%a: tensor<2xf32>, %b: tensor<2xf32> %c) {
  return
}

// -----

// ERR: comma-lists-invalid.mlir:[[# @LINE + 1]]:44: error: expected ']' in array attribute
func.func @arr() attributes {aot.a = [1, 2 3]} {
  return
}

// -----

// ERR: comma-lists-invalid.mlir:[[# @LINE + 1]]:41: error: expected '}' in attribute dictionary
func.func @dict() attributes {aot.a = 1 aot.b = 2} {
  return
}

// -----

func.func @results(%a: tensor<2xf32>) {
  // ERR: comma-lists-invalid.mlir:[[# @LINE + 1]]:61: error: expected ')' to end result types
  %0 = "tensor.neg"(%a) : (tensor<2xf32>) -> (tensor<2xf32> tensor<2xf32>)
  return
}

// -----

// ERR: comma-lists-invalid.mlir:[[# @LINE + 1]]:73: error: expected ')' in function result list
func.func @res_list(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32> tensor<2xf32>) {
  return %a, %a : tensor<2xf32>, tensor<2xf32>
}
