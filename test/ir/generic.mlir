// RUN: aot-opt %s --print-generic | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt --print-generic | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s --check-prefix=CUSTOM

/// The generic form prints every op, including the module and functions,
/// with entry block arguments on a `^bb0` label.
// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "func.func"() ({
// CHECK-NEXT:   ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>):
// CHECK-NEXT:     %0 = "tensor.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:     %1 = "tensor.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
// CHECK-NEXT:     "func.return"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> ()
// CHECK-NEXT:   }) {arg_attrs = [{aot.requires_grad}, {}], function_type = (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>), sym_name = "g"} : () -> ()
// CHECK-NEXT: }) : () -> ()

// CUSTOM: func.func @g(%arg0: tensor<2xf32> {aot.requires_grad}, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CUSTOM:   tensor.add %arg0, %arg1 : tensor<2xf32>
func.func @g(%a: tensor<2xf32> {aot.requires_grad}, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = tensor.add %a, %b : tensor<2xf32>
  %1 = tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
