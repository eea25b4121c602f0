// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s

/// Data mutations have no results.
// CHECK-LABEL: func.func @data
// CHECK: mut.copy_ %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>
// CHECK: mut.copy_ %arg0, %arg2 : tensor<2x3xf32>, tensor<2x3xi64>
// CHECK: mut.add_ %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>
// CHECK: mut.sub_ %arg0, %arg0 : tensor<2x3xf32>
// CHECK: mut.mul_ %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>
// CHECK: mut.div_ %arg0, %arg0 : tensor<2x3xf32>
// CHECK: mut.fill_ %arg0 {value = 1.5} : tensor<2x3xf32>
// CHECK: mut.zero_ %arg0 : tensor<2x3xf32>
// CHECK: mut.relu_ %arg0 : tensor<2x3xf32>
// CHECK: mut.neg_ %arg0 : tensor<2x3xf32>
// CHECK: mut.exp_ %arg0 : tensor<2x3xf32>
// CHECK: mut.sigmoid_ %arg0 : tensor<2x3xf32>
// CHECK: mut.tanh_ %arg0 : tensor<2x3xf32>
// CHECK: mut.clamp_ %arg0 {max = 2.0} : tensor<2x3xf32>
// CHECK: mut.index_put_ %arg0, %arg3, %arg1 {accumulate} : tensor<2x3xf32>, tensor<4xi64>, tensor<3xf32>
// CHECK: mut.add_ %arg0, %arg1 {aot.no_grad} : tensor<2x3xf32>, tensor<3xf32>
func.func @data(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<2x3xi64>, %idx: tensor<4xi64>) {
  mut.copy_ %x, %y : tensor<2x3xf32>, tensor<3xf32>
  mut.copy_ %x, %i : tensor<2x3xf32>, tensor<2x3xi64>
  mut.add_ %x, %y : tensor<2x3xf32>, tensor<3xf32>
  mut.sub_ %x, %x : tensor<2x3xf32>
  mut.mul_ %x, %y : tensor<2x3xf32>, tensor<3xf32>
  mut.div_ %x, %x : tensor<2x3xf32>
  mut.fill_ %x {value = 1.5} : tensor<2x3xf32>
  mut.zero_ %x : tensor<2x3xf32>
  mut.relu_ %x : tensor<2x3xf32>
  mut.neg_ %x : tensor<2x3xf32>
  mut.exp_ %x : tensor<2x3xf32>
  mut.sigmoid_ %x : tensor<2x3xf32>
  mut.tanh_ %x : tensor<2x3xf32>
  mut.clamp_ %x {max = 2.0} : tensor<2x3xf32>
  mut.index_put_ %x, %idx, %y {accumulate} : tensor<2x3xf32>, tensor<4xi64>, tensor<3xf32>
  mut.add_ %x, %y {aot.no_grad} : tensor<2x3xf32>, tensor<3xf32>
  return
}

/// Metadata mutations return the same object as a new value.
// CHECK-LABEL: func.func @metadata
// CHECK: %[[T:.*]] = mut.t_ %arg0 : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: %[[U:.*]] = mut.transpose_ %[[T]] {dim0 = 0, dim1 = 1} : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK: %[[V:.*]] = mut.unsqueeze_ %[[U]] {dim = 0} : tensor<2x3xf32> -> tensor<1x2x3xf32>
// CHECK: %[[W:.*]] = mut.squeeze_ %[[V]] : tensor<1x2x3xf32> -> tensor<2x3xf32>
// CHECK: %[[A:.*]] = mut.as_strided_ %[[W]] {offset = 1, size = [2], stride = [2]} : tensor<2x3xf32> -> tensor<2xf32>
// CHECK: %[[R:.*]] = mut.resize_ %[[A]] {size = [4, 4]} : tensor<2xf32> -> tensor<4x4xf32>
// CHECK: %[[S:.*]] = mut.set_ %[[R]], %arg1 : tensor<4x4xf32>, tensor<5xf32> -> tensor<5xf32>
// CHECK: return %[[S]]
func.func @metadata(%x: tensor<2x3xf32>, %src: tensor<5xf32>) -> tensor<5xf32> {
  %0 = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = mut.transpose_ %0 {dim0 = 0, dim1 = 1} : tensor<3x2xf32> -> tensor<2x3xf32>
  %2 = mut.unsqueeze_ %1 {dim = 0} : tensor<2x3xf32> -> tensor<1x2x3xf32>
  %3 = mut.squeeze_ %2 : tensor<1x2x3xf32> -> tensor<2x3xf32>
  %4 = mut.as_strided_ %3 {size = [2], stride = [2], offset = 1} : tensor<2x3xf32> -> tensor<2xf32>
  %5 = mut.resize_ %4 {size = [4, 4]} : tensor<2xf32> -> tensor<4x4xf32>
  %6 = mut.set_ %5, %src : tensor<4x4xf32>, tensor<5xf32> -> tensor<5xf32>
  return %6 : tensor<5xf32>
}
