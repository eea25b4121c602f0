// RUN: aot-run %s --inputs %S/Inputs/aliased.json | FileCheck %s
// RUN: not aot-run %s --inputs %S/Inputs/outside.json 2>&1 | FileCheck %s --check-prefix=OUTSIDE

/// Two arguments view one storage: writing through the first is seen
/// through the second (which starts at element 2).
// CHECK:      "args_after": [
// CHECK:        "data": [
// CHECK-NEXT:     0.0,
// CHECK-NEXT:     2.0,
// CHECK-NEXT:     4.0,
// CHECK-NEXT:     6.0
// CHECK:        "data": [
// CHECK-NEXT:     4.0,
// CHECK-NEXT:     6.0,
// CHECK-NEXT:     4.0,
// CHECK-NEXT:     5.0
// CHECK:        "offset": 2,
// CHECK:      "outputs": [
// CHECK:        "alias_of_arg": 0,

// OUTSIDE: aot-run: error: argument 1: a view with size [2, 2], stride [2, 1] and offset 1 reaches element 4, outside its storage of 4 elements
func.func @main(%a: tensor<4xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  mut.add_ %a, %a : tensor<4xf32>
  return %b : tensor<2x2xf32>
}
