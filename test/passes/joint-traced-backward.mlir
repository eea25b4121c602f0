// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint))' | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint,partition))' | FileCheck %s --check-prefix=PART
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,rng-functionalize,joint,partition))' | FileCheck %s --check-prefix=RNG

/// A backward the frontend traced (aot.traced_backward) replaces the
/// reverse sweep: DTensor's gradient of a Partial -> Replicate all-reduce
/// is the replicated tangent itself, where the derivative of the dense
/// collective would all-reduce it. The traced backward recomputes the
/// forward's product; the common-subexpression pass after the splice
/// merges it with the forward's, and the private function is gone. %b
/// takes no gradient (unreached): zeros, marked aot.no_cotangent.
// CHECK-LABEL: func.func @row_parallel
// CHECK-SAME:    %arg3: tensor<2x4xf32> {aot.tangent = 0}
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<2x3xf32> {aot.grad = 0}, tensor<3x4xf32> {aot.grad = 1}, tensor<4xf32> {aot.grad = 2, aot.no_cotangent})
// CHECK-SAME:    aot.joint = #aot.joint<num_forward = 1, tangents = [0], grads = [0, 1, 2], no_tangents = false>
// CHECK:         %[[P:.*]] = tensor.matmul %arg0, %arg1
// CHECK-NEXT:    dist.all_reduce %[[P]]
// CHECK-NOT:     tensor.matmul %arg0, %arg1
// CHECK-NOT:     dist.all_reduce
// CHECK:         %[[T:.*]] = view.transpose %arg1
// CHECK:         %[[GX:.*]] = tensor.matmul %arg3, %[[T]]
// CHECK:         return %{{.*}}, %[[GX]], %{{.*}}, %{{.*}}
// CHECK-NOT:     traced
// PART-LABEL:   func.func @row_parallel
// PART-SAME:      aot.backward = @row_parallel_backward
// PART:         func.func @row_parallel_backward
// PART-NOT:       dist.all_reduce
// PART:           return
func.func @row_parallel(%x: tensor<2x3xf32> {aot.requires_grad}, %w: tensor<3x4xf32> {aot.requires_grad}, %b: tensor<4xf32> {aot.requires_grad}) -> tensor<2x4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "row_parallel_traced", tangents = [0], grads = [0, 1, 2], unreached = [2]>} {
  %p = tensor.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %r = dist.all_reduce %p {group = "0", size = 2, reduce = "sum"} : tensor<2x4xf32> -> tensor<2x4xf32>
  %y = tensor.add %r, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
func.func private @row_parallel_traced(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>, %g: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) {
  %p = tensor.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %r = dist.all_reduce %p {group = "0", size = 2, reduce = "sum"} : tensor<2x4xf32> -> tensor<2x4xf32>
  %wt = view.transpose %w {dim0 = 0, dim1 = 1} : tensor<3x4xf32> -> tensor<4x3xf32>
  %gx = tensor.matmul %g, %wt : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %xt = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %gw = tensor.matmul %xt, %g : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
  %z = tensor.full {value = 0.0} : tensor<4xf32>
  return %gx, %gw, %z : tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>
}

// -----

/// A dropout in a traced program: the backward recomputes the forward's
/// draw to read its mask. Both name it (`aot.draw`, the frontend's tag of
/// the traced node), so the backward reads the forward's mask instead of
/// drawing a second one; after `rng-functionalize` the forward's draw is
/// a Philox op of the call's state, and the partition saves its mask for
/// the backward.
// CHECK-LABEL: func.func @dropout
// CHECK:         %[[D:.*]]:2 = rng.dropout %arg0 {aot.draw = "0.0", p = 0.5}
// CHECK-NOT:     rng.
// CHECK:         tensor.where %[[D]]#1
// RNG-LABEL:   func.func @dropout
// RNG:           %[[D:.*]]:2 = rng.philox_dropout
// RNG-NOT:       rng.
// RNG:           return {{.*}}%[[D]]#1
// RNG-LABEL:   func.func @dropout_backward
// RNG-NOT:       rng.
// RNG:           tensor.where
func.func @dropout(%x: tensor<8xf32> {aot.requires_grad}) -> tensor<8xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "dropout_traced", tangents = [0], grads = [0], unreached = []>} {
  %d:2 = rng.dropout %x {p = 0.5, aot.draw = "0.0"} : tensor<8xf32> -> (tensor<8xf32>, tensor<8xi1>)
  return %d#0 : tensor<8xf32>
}
func.func private @dropout_traced(%x: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<8xf32> {
  %d:2 = rng.dropout %x {p = 0.5, aot.draw = "0.0"} : tensor<8xf32> -> (tensor<8xf32>, tensor<8xi1>)
  %two = tensor.full {value = 2.0} : tensor<8xf32>
  %z = tensor.full {value = 0.0} : tensor<8xf32>
  %s = tensor.mul %g, %two : tensor<8xf32>
  %gx = tensor.where %d#1, %s, %z : tensor<8xi1>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %gx : tensor<8xf32>
}
