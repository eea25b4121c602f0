// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint{no-tangents=true}))' | FileCheck %s

/// A scalar loss: with no-tangents there is no tangent argument, the seed is
/// ones; mean's gradient is broadcast and scaled by 1/12.
// CHECK-LABEL:  func.func @loss
// CHECK-SAME:     (%arg0: tensor<4x3xf32> {aot.requires_grad}, %arg1: tensor<3xf32> {aot.requires_grad})
// CHECK-SAME:     aot.joint = #aot.joint<num_forward = 1, tangents = [0], grads = [0, 1], no_tangents = true>
// CHECK:          %[[ONE:.*]] = tensor.full {value = 1.0} : tensor<f32>
// CHECK:          %[[R:.*]] = view.reshape %[[ONE]] {shape = array<i64: 1, 1>}
// CHECK:          view.expand %[[R]] {shape = array<i64: 4, 3>}
// CHECK:          tensor.full {value = 0.08333333333333333} : tensor<f32>
func.func @loss(%x: tensor<4x3xf32> {aot.requires_grad}, %w: tensor<3xf32> {aot.requires_grad}) -> tensor<f32> {
  %0 = tensor.mul %x, %w : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %1 = tensor.mean %0 : tensor<4x3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

/// Two differentiable outputs are not a loss.
// expected-error@+1 {{no-tangents differentiates one output (a loss), but 2 forward returns take a tangent}}
func.func @two(%x: tensor<4xf32> {aot.requires_grad}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tensor.exp %x : tensor<4xf32>
  %1 = tensor.sin %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
