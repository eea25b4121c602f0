// Every comma-separated list of the syntax goes through one helper
// (`Parser::parse_comma_separated` / `parse_list_until`): empty lists are
// accepted where the syntax allows them, and a list that does not end
// names the token it expected, at the token found instead.

// RUN: aot-opt %s --split-input-file | FileCheck %s --check-prefix=OK
// (Lists that do not end: comma-lists-invalid.mlir.)

// Empty lists: an empty function signature and result list, empty array
// attributes and attribute dictionaries, an empty dialect attribute.
// OK-LABEL: func.func @empty()
// OK-SAME:  attributes {aot.x = [], aot.y = {}}
func.func @empty() -> () attributes {aot.x = [], aot.y = {}} {
  return
}

// -----

// Non-empty lists of each kind round-trip.
// OK-LABEL: func.func @lists(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// OK-SAME:  aot.a = [1, [2, 3], "s"]
// OK:       %[[S:.*]] = tensor.add %arg0, %arg1
// OK:       return %[[S]], %arg1 : tensor<2xf32>, tensor<2xf32>
func.func @lists(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {aot.a = [1, [2, 3], "s"]} {
  %s = "tensor.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %s, %b : tensor<2xf32>, tensor<2xf32>
}
