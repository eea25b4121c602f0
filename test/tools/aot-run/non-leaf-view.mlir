// RUN: aot-run %s --inputs %S/Inputs/nonleaf-view.json --grad | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/nonleaf-view.json --grad --mode compiled | FileCheck %s
// RUN: not aot-run %s --inputs %S/Inputs/nonleaf-view-shared.json 2>&1 | FileCheck %s --check-prefix=SHARED

/// A non-leaf view that requires grad, alone over its storage, of a base the
/// call is not given (a view of an activation from an earlier graph): an
/// argument with a history of its own. It is written where it lies (at
/// offset 1), and its gradient is that of its value on entry. The objective
/// is the output's sum plus the written argument's (2vw + vw): 3w for v,
/// 3v for w.
// CHECK:      "args_after": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "data": [
// CHECK-NEXT:       1.0,
// CHECK-NEXT:       -9.0
// CHECK:          "offset": 1,
// CHECK:      "grads": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "data": [
// CHECK-NEXT:       1.5,
// CHECK-NEXT:       -9.0
// CHECK:          "data": [
// CHECK-NEXT:       6.0,
// CHECK-NEXT:       9.0

/// Beside another view of its storage, the two gradients would meet in a
/// base the runtime does not have: the storage must be a differentiable one.
// SHARED: aot-run: error: argument 0: a non-leaf view beside other views of its storage needs the storage to be a differentiable base ("base": true)
func.func @main(%v: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  mut.mul_ %v, %w : tensor<2xf32>, tensor<2xf32>
  %c = tensor.full {value = 2.0} : tensor<2xf32>
  %r = tensor.mul %v, %c : tensor<2xf32>
  return %r : tensor<2xf32>
}
