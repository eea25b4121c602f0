// RUN: aot-run %s --inputs %S/Inputs/mutate.json | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --grad | FileCheck %s --check-prefix=GRAD
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --grad --grad-method fd -o %t.json && FileCheck %s --check-prefix=GRAD --input-file=%t.json

/// A write through a view of a transposed argument lands in the argument;
/// the returned transpose aliases argument 0 and keeps its strides.
// CHECK:      "args_after": [
// CHECK:        "data": [
// CHECK-NEXT:     11.0,
// CHECK-NEXT:     22.0,
// CHECK-NEXT:     33.0,
// CHECK-NEXT:     4.0,
// CHECK:      "outputs": [
// CHECK:        "alias_of_arg": 0,
// CHECK:        "requires_grad": true,
// CHECK:        "stride": [
// CHECK-NEXT:     1,
// CHECK-NEXT:     3
// CHECK:        "alias_of_arg": null,

/// d/dx of sum(t) + sum(x'^2) + sum(x') with x' = x + [y; 0]: 2 + 2x'.
// GRAD:      "grads": [
// GRAD-NEXT:   {
// GRAD-NEXT:     "data": [
// GRAD-NEXT:       24.0,
// GRAD-NEXT:       46.0,
// GRAD-NEXT:       68.0,
// GRAD-NEXT:       10.0,
// GRAD-NEXT:       12.0,
// GRAD-NEXT:       14.0
// GRAD:        null
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 1, index = 0} : tensor<3x2xf32> -> tensor<3xf32>
  mut.add_ %s, %y : tensor<3xf32>
  %m = tensor.mul %x, %x : tensor<2x3xf32>
  return %t, %m : tensor<3x2xf32>, tensor<2x3xf32>
}
