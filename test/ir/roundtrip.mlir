// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s

/// Function signatures keep argument and result attribute dictionaries.
// CHECK-LABEL: func.func @signature(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32> {aot.requires_grad},
// CHECK-SAME:    %[[Y:.*]]: tensor<2x3xf32>)
// CHECK-SAME:    -> (tensor<4xf32> {aot.note = "out"}, tensor<2x3xf32>)
// CHECK:         return %[[X]], %[[Y]] : tensor<4xf32>, tensor<2x3xf32>
func.func @signature(%x: tensor<4xf32> {aot.requires_grad}, %y: tensor<2x3xf32>) -> (tensor<4xf32> {aot.note = "out"}, tensor<2x3xf32>) {
  return %x, %y : tensor<4xf32>, tensor<2x3xf32>
}

/// Ops written in the generic form print in their custom form.
// CHECK-LABEL: func.func @generic_to_custom
// CHECK:         %[[M:.*]] = tensor.mul %arg0, %arg0 : tensor<4xf32>
// CHECK:         %[[A:.*]] = tensor.add %[[M]], %arg1 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
func.func @generic_to_custom(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  %0 = "tensor.mul"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "tensor.add"(%0, %b) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  "func.return"(%1) : (tensor<4xf32>) -> ()
}

/// Scalar, 0-d and multi-dimensional types; `return` without values.
// CHECK-LABEL: func.func @types(%arg0: tensor<f32>, %arg1: tensor<1x2x3x4xi64>, %arg2: tensor<0xbf16>, %arg3: tensor<5xf16>, %arg4: tensor<2xi1>, %arg5: tensor<3xi8>, %arg6: tensor<3xi32>, %arg7: tensor<2xf64>)
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @types(%a: tensor<f32>, %b: tensor<1x2x3x4xi64>, %c: tensor<0xbf16>, %d: tensor<5xf16>, %e: tensor<2xi1>, %f: tensor<3xi8>, %g: tensor<3xi32>, %h: tensor<2xf64>) {
  return
}

/// Dense constants: lists, nested lists, splats, booleans, integers, exponents.
// CHECK-LABEL: func.func @constants
// CHECK: tensor.constant dense<[1.0, -2.5, 1.0e-7, 3.0e20]> : tensor<4xf32>
// CHECK: tensor.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
// CHECK: tensor.constant dense<0.5> : tensor<2x2xf32>
// CHECK: tensor.constant dense<[true, false]> : tensor<2xi1>
// CHECK: tensor.constant dense<7> : tensor<i32>
// CHECK: tensor.constant dense<[0.1, 0.2]> : tensor<2xf64>
func.func @constants() {
  %0 = tensor.constant dense<[1.0, -2.5, 1e-7, 3.0e+20]> : tensor<4xf32>
  %1 = tensor.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %2 = tensor.constant dense<0.5> : tensor<2x2xf32>
  %3 = tensor.constant dense<[true, false]> : tensor<2xi1>
  %4 = tensor.constant dense<7> : tensor<i32>
  %5 = tensor.constant dense<[0.1, 0.2]> : tensor<2xf64>
  return
}

/// Every attribute kind prints back as it was written (dialect-prefixed
/// attributes are allowed on any op).
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: attributes {aot.array = [1, -2, 3], aot.bool = false, aot.dense_array = array<i64: 1, 0>, aot.dict = {a = 1 : i32, b}, aot.empty_array = array<i64>, aot.f32 = 0.5 : f32, aot.f64 = 0.25, aot.float_array = array<f64: 0.5, -1.0>, aot.int = 3, aot.layout = #aot.layout<storage = 0, offset = 2, strides = [1]>, aot.nan = 0x7FC00000 : f32, aot.str = "a \"quoted\"\n string", aot.sym = @other, aot.type = tensor<2xf32>, aot.unit}
func.func @attributes() attributes {aot.int = 3 : i64, aot.f64 = 0.25, aot.f32 = 0.5 : f32, aot.bool = false, aot.str = "a \"quoted\"\n string", aot.array = [1, -2, 3], aot.dense_array = array<i64: 1, 0>, aot.empty_array = array<i64>, aot.float_array = array<f64: 0.5, -1.0>, aot.unit, aot.dict = {b, a = 1 : i32}, aot.sym = @other, aot.type = tensor<2xf32>, aot.layout = #aot.layout<storage = 0, offset = 2, strides = [1]>, aot.nan = 0x7FC00000 : f32} {
  return
}

/// Private declarations have no body and print their argument types only.
// CHECK-LABEL: func.func private @decl(tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32>
func.func private @decl(tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32>

/// Calls print with their callee's function type.
// CHECK-LABEL: func.func @caller
// CHECK: %[[R:.*]] = call @decl(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @decl(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

/// Symbol names that are not identifiers are quoted.
// CHECK-LABEL: func.func @"quoted name"()
func.func @"quoted name"() {
  return
}
