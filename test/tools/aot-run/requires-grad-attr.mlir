// RUN: aot-run %s --inputs %S/Inputs/rg-absent.json --grad | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/rg-absent.json --grad --mode compiled | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/rg-absent.json --mode compiled --compile-for %S/Inputs/rg-absent.json --grad | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/rg-true.json --grad | FileCheck %s
// RUN: not aot-run %s --inputs %S/Inputs/rg-false.json --grad 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not aot-run %s --inputs %S/Inputs/rg-absent.json --mode compiled --compile-for %S/Inputs/rg-false.json 2>&1 | FileCheck %s --check-prefix=CONFLICT

/// `{aot.requires_grad}` on a parameter is the default of the input file's
/// "requires_grad" (for --inputs and --compile-for alike, as for
/// --random-inputs); an explicit false that contradicts it is an error
/// naming the argument. The second argument has no attribute: its JSON
/// value (absent: false) stands.
// CHECK: "grads": [
// CHECK-NEXT: {
// CHECK-NEXT: "data": [
// CHECK-NEXT: 2.0,
// CHECK-NEXT: 4.0,
// CHECK-NEXT: 6.0
// CHECK-NEXT: ],
// CHECK: "shape": [
// CHECK: null
// CHECK-NEXT: ]
// CONFLICT: aot-run: error: argument 0: "requires_grad": false conflicts with the function's {aot.requires_grad} on this argument
func.func @main(%x: tensor<3xf32> {aot.requires_grad}, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tensor.mul %x, %x : tensor<3xf32>
  %1 = tensor.add %0, %y : tensor<3xf32>
  return %1 : tensor<3xf32>
}
