// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s

/// Shape-changing views.
// CHECK-LABEL: func.func @reshapes
// CHECK: view.view %arg0 {shape = [6, -1]} : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: view.reshape %arg0 {shape = [-1]} : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK: view.permute %arg0 {dims = [2, 0, 1]} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK: view.transpose %arg0 {dim0 = 0, dim1 = -1} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK: view.t %arg1 : tensor<3x5xf32> -> tensor<5x3xf32>
// CHECK: view.t %arg2 : tensor<5xf32>
// CHECK: view.expand %arg2 {shape = [2, -1]} : tensor<5xf32> -> tensor<2x5xf32>
func.func @reshapes(%x: tensor<2x3x4xf32>, %m: tensor<3x5xf32>, %v: tensor<5xf32>) {
  %0 = view.view %x {shape = [6, -1]} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = view.reshape %x {shape = [-1]} : tensor<2x3x4xf32> -> tensor<24xf32>
  %2 = view.permute %x {dims = [2, 0, 1]} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %3 = view.transpose %x {dim0 = 0, dim1 = -1} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %4 = view.t %m : tensor<3x5xf32> -> tensor<5x3xf32>
  %5 = view.t %v : tensor<5xf32>
  %6 = view.expand %v {shape = [2, -1]} : tensor<5xf32> -> tensor<2x5xf32>
  return
}

/// Views that select parts.
// CHECK-LABEL: func.func @selections
// CHECK: view.slice %arg0 {dim = 1, end = 5, start = 1, step = 2} : tensor<4x6xf32> -> tensor<4x2xf32>
// CHECK: view.slice %arg0 {dim = 0, start = -2} : tensor<4x6xf32> -> tensor<2x6xf32>
// CHECK: view.select %arg0 {dim = 0, index = -1} : tensor<4x6xf32> -> tensor<6xf32>
// CHECK: view.squeeze %arg1 : tensor<1x4x1xf32> -> tensor<4xf32>
// CHECK: view.squeeze %arg1 {dim = 0} : tensor<1x4x1xf32> -> tensor<4x1xf32>
// CHECK: view.unsqueeze %arg0 {dim = -1} : tensor<4x6xf32> -> tensor<4x6x1xf32>
// CHECK: view.diagonal %arg0 {offset = 1} : tensor<4x6xf32> -> tensor<4xf32>
// CHECK: view.diagonal %arg0 {dim1 = 1, dim2 = 0, offset = -1} : tensor<4x6xf32> -> tensor<4xf32>
// CHECK: view.as_strided %arg0 {offset = 1, size = [2, 2], stride = [6, 1]} : tensor<4x6xf32> -> tensor<2x2xf32>
func.func @selections(%x: tensor<4x6xf32>, %y: tensor<1x4x1xf32>) {
  %0 = view.slice %x {dim = 1, start = 1, end = 5, step = 2} : tensor<4x6xf32> -> tensor<4x2xf32>
  %1 = view.slice %x {dim = 0, start = -2} : tensor<4x6xf32> -> tensor<2x6xf32>
  %2 = view.select %x {dim = 0, index = -1} : tensor<4x6xf32> -> tensor<6xf32>
  %3 = view.squeeze %y : tensor<1x4x1xf32> -> tensor<4xf32>
  %4 = view.squeeze %y {dim = 0} : tensor<1x4x1xf32> -> tensor<4x1xf32>
  %5 = view.unsqueeze %x {dim = -1} : tensor<4x6xf32> -> tensor<4x6x1xf32>
  %6 = view.diagonal %x {offset = 1} : tensor<4x6xf32> -> tensor<4xf32>
  %7 = view.diagonal %x {offset = -1, dim1 = 1, dim2 = 0} : tensor<4x6xf32> -> tensor<4xf32>
  %8 = view.as_strided %x {size = [2, 2], stride = [6, 1], offset = 1} : tensor<4x6xf32> -> tensor<2x2xf32>
  return
}

/// Multi-result views, aliases.
// CHECK-LABEL: func.func @multi
// CHECK: %{{.*}}:2 = view.unbind %arg0 : tensor<2x3xf32> -> (tensor<3xf32>, tensor<3xf32>)
// CHECK: %{{.*}}:3 = view.unbind %arg0 {dim = 1} : tensor<2x3xf32> -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: %{{.*}}:2 = view.split %arg0 {dim = 1, sizes = [1, 2]} : tensor<2x3xf32> -> (tensor<2x1xf32>, tensor<2x2xf32>)
// CHECK: view.alias %arg0 : tensor<2x3xf32>
// CHECK: view.detach %arg0 : tensor<2x3xf32>
func.func @multi(%x: tensor<2x3xf32>) {
  %0:2 = view.unbind %x : tensor<2x3xf32> -> (tensor<3xf32>, tensor<3xf32>)
  %1:3 = view.unbind %x {dim = 1} : tensor<2x3xf32> -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %2:2 = view.split %x {dim = 1, sizes = [1, 2]} : tensor<2x3xf32> -> (tensor<2x1xf32>, tensor<2x2xf32>)
  %3 = view.alias %x : tensor<2x3xf32>
  %4 = view.detach %x : tensor<2x3xf32>
  return
}

/// Scatter ops: the inverse of each view.
// CHECK-LABEL: func.func @scatters
// CHECK: view.slice_scatter %arg0, %arg1 {dim = 1, end = 4, start = 2} : tensor<4x6xf32>, tensor<4x2xf32> -> tensor<4x6xf32>
// CHECK: view.select_scatter %arg0, %arg2 {dim = 0, index = 3} : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
// CHECK: view.diagonal_scatter %arg0, %arg3 : tensor<4x6xf32>, tensor<4xf32> -> tensor<4x6xf32>
// CHECK: view.as_strided_scatter %arg0, %arg1 {offset = 0, size = [4, 2], stride = [6, 2]} : tensor<4x6xf32>, tensor<4x2xf32> -> tensor<4x6xf32>
func.func @scatters(%b: tensor<4x6xf32>, %s: tensor<4x2xf32>, %r: tensor<6xf32>, %d: tensor<4xf32>) {
  %0 = view.slice_scatter %b, %s {dim = 1, start = 2, end = 4} : tensor<4x6xf32>, tensor<4x2xf32> -> tensor<4x6xf32>
  %1 = view.select_scatter %b, %r {dim = 0, index = 3} : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %2 = view.diagonal_scatter %b, %d : tensor<4x6xf32>, tensor<4xf32> -> tensor<4x6xf32>
  %3 = view.as_strided_scatter %b, %s {size = [4, 2], stride = [6, 2], offset = 0} : tensor<4x6xf32>, tensor<4x2xf32> -> tensor<4x6xf32>
  return
}
