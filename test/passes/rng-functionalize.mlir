// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata))' | FileCheck %s --check-prefix=BEFORE
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,rng-functionalize))' | FileCheck %s

/// Stateful random ops in program order become philox ops of the new
/// (seed, offset) arguments. Each op starts where the previous ones' draws
/// end, rounded up to a multiple of 4: uniform draws 15 words (offset 0),
/// dropout 15 (offset 16), normal of 7 draws 14 (offset 32); the advanced
/// offset (48) is the last result, after the forward returns.
// BEFORE-LABEL: func.func @three_ops
// BEFORE-SAME:    num_forward_returns = 3, num_forward = 3>
// BEFORE:         rng.uniform
// CHECK-LABEL:  func.func @three_ops
// CHECK-SAME:     (%arg0: tensor<3x5xf32>, %arg1: tensor<i64> {aot.rng_seed}, %arg2: tensor<i64> {aot.rng_offset}) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<7xf32>, tensor<i64> {aot.rng_offset})
// CHECK-SAME:     aot.convention = #aot.convention<args = [#aot.arg<type = tensor<3x5xf32>>], storages = []>
// CHECK-SAME:     is_rng_op_functionalized = true
// CHECK-SAME:     num_forward_returns = 3, num_forward = 4>
// CHECK-NEXT:     %[[U:.*]] = rng.philox_uniform %arg1, %arg2 {high = 1.0, low = -1.0} : tensor<i64> -> tensor<3x5xf32>
// CHECK-NEXT:     %[[C16:.*]] = tensor.constant dense<16> : tensor<i64>
// CHECK-NEXT:     %[[O16:.*]] = tensor.add %arg2, %[[C16]] : tensor<i64>
// CHECK-NEXT:     %[[D:.*]]:2 = rng.philox_dropout %arg1, %[[O16]], %arg0 {p = 0.5}
// CHECK-NEXT:     %[[C32:.*]] = tensor.constant dense<32> : tensor<i64>
// CHECK-NEXT:     %[[O32:.*]] = tensor.add %arg2, %[[C32]] : tensor<i64>
// CHECK-NEXT:     %[[N:.*]] = rng.philox_normal %arg1, %[[O32]] : tensor<i64> -> tensor<7xf32>
// CHECK-NEXT:     %[[C48:.*]] = tensor.constant dense<48> : tensor<i64>
// CHECK-NEXT:     %[[END:.*]] = tensor.add %arg2, %[[C48]] : tensor<i64>
// CHECK-NEXT:     return %[[U]], %[[D]]#0, %[[N]], %[[END]]
// CHECK-NOT:      rng.uniform
func.func @three_ops(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<7xf32>) {
  %u = rng.uniform {low = -1.0, high = 1.0} : tensor<3x5xf32>
  %d:2 = rng.dropout %x {p = 0.5} : tensor<3x5xf32> -> (tensor<3x5xf32>, tensor<3x5xi1>)
  %n = rng.normal : tensor<7xf32>
  return %u, %d#0, %n : tensor<3x5xf32>, tensor<3x5xf32>, tensor<7xf32>
}

// -----

/// Dropout in eval mode draws nothing: the next op starts at the same
/// offset. A mutation of an input keeps its place before the offset.
// CHECK-LABEL:  func.func @eval_dropout
// CHECK-SAME:     -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64> {aot.rng_offset})
// CHECK-SAME:     mutated_inp_runtime_indices = [0]
// CHECK:          rng.philox_dropout %arg1, %arg2, %arg0 {train = false}
// CHECK:          %[[B:.*]] = rng.philox_bernoulli %arg1, %arg2, %{{.*}} : tensor<i64>, tensor<i64>, tensor<4xf32> -> tensor<4xf32>
// CHECK:          %[[C4:.*]] = tensor.constant dense<4> : tensor<i64>
// CHECK-NEXT:     %[[END:.*]] = tensor.add %arg2, %[[C4]]
// CHECK-NEXT:     return %{{.*}}, %{{.*}}, %[[B]], %[[END]]
func.func @eval_dropout(%x: tensor<4xf32> {aot.requires_grad, aot.non_leaf}) -> (tensor<4xf32>, tensor<4xf32>) {
  %d:2 = rng.dropout %x {train = false} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  %p = tensor.full {value = 0.5} : tensor<4xf32>
  %b = rng.bernoulli %p : tensor<4xf32>
  mut.mul_ %x, %b : tensor<4xf32>
  return %d#0, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

/// No random ops: nothing changes.
// CHECK-LABEL:  func.func @deterministic
// CHECK-SAME:     (%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:      aot.rng
// CHECK-NOT:      is_rng_op_functionalized
func.func @deterministic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Over symbolic sizes a draw's word count is an expression: a dropout of
/// s0x8 values takes s0*8 words (a multiple of 4 already), a normal draw
/// of 2*s0 + 1 values ((2*s0 + 2) floordiv 2)*4 rounded up to a block, so
/// each later offset, and the returned one, is offset + tensor.size_value
/// of the expression, which every call evaluates.
// BEFORE-LABEL: func.func @symbolic
// CHECK-LABEL:  func.func @symbolic
// CHECK-SAME:     %[[SEED:[a-z0-9]+]]: tensor<i64> {aot.rng_seed}, %[[OFF:[a-z0-9]+]]: tensor<i64> {aot.rng_offset}
// CHECK:          rng.philox_dropout %[[SEED]], %[[OFF]], %{{.*}} {p = 0.5}
// CHECK:          %[[W1:.*]] = tensor.size_value {size = array<i64: (s0*8)>} : tensor<i64>
// CHECK:          %[[AT1:.*]] = tensor.add %[[OFF]], %[[W1]] : tensor<i64>
// CHECK:          rng.philox_normal %[[SEED]], %[[AT1]]
// CHECK:          %[[W2:.*]] = tensor.size_value {size = array<i64: (s0*12 + 4)>} : tensor<i64>
// CHECK:          %[[END:.*]] = tensor.add %[[OFF]], %[[W2]] : tensor<i64>
// CHECK:          return {{.*}}%[[END]]
func.func @symbolic(%x: tensor<s0x8xf32>) -> (tensor<s0x8xf32>, tensor<(s0*2 + 1)xf32>) {
  %d:2 = rng.dropout %x {p = 0.5} : tensor<s0x8xf32> -> (tensor<s0x8xf32>, tensor<s0x8xi1>)
  %n = rng.normal : tensor<(s0*2 + 1)xf32>
  return %d#0, %n : tensor<s0x8xf32>, tensor<(s0*2 + 1)xf32>
}
