// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint))' | FileCheck %s

/// joint(primals, tangents) -> (forward returns, grads): one tangent per
/// traced tangent (aot.tangent = the forward return it belongs to), one
/// gradient per primal that requires grad (aot.grad = the primal); none for
/// %c. The broadcast operand's gradient is summed back to its shape.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:    (%arg0: tensor<2x3xf32> {aot.requires_grad}, %arg1: tensor<3xf32> {aot.requires_grad}, %arg2: tensor<2x3xf32>, %arg3: tensor<2x3xf32> {aot.tangent = 0})
// CHECK-SAME:    -> (tensor<2x3xf32>, tensor<2x3xf32> {aot.grad = 0}, tensor<3xf32> {aot.grad = 1})
// CHECK-SAME:    aot.joint = #aot.joint<num_forward = 1, tangents = [0], grads = [0, 1], no_tangents = false>
// CHECK:         %[[M:.*]] = tensor.mul %arg0, %arg1
// CHECK:         %[[Y:.*]] = tensor.add %[[M]], %arg2
// CHECK:         %[[GX:.*]] = tensor.mul %arg3, %arg1
// CHECK:         %[[T:.*]] = tensor.mul %arg3, %arg0
// CHECK:         %[[S:.*]] = tensor.sum %[[T]] {dims = array<i64: 0>, keepdim} : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK:         %[[GB:.*]] = view.reshape %[[S]] {shape = array<i64: 3>}
// CHECK:         return %[[Y]], %[[GX]], %[[GB]]
func.func @broadcast(%x: tensor<2x3xf32> {aot.requires_grad}, %b: tensor<3xf32> {aot.requires_grad}, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.mul %x, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = tensor.add %0, %c : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

/// What stops gradients, as autograd: an op under no_grad (exp), a
/// detached alias (sin's input), a comparison (no tangent for the i1
/// output, nor for the no_grad output): d/dx (exp(x)·x + sin(detach x)) is
/// exp(x) only.
// CHECK-LABEL: func.func @stops
// CHECK-SAME:    (%arg0: tensor<4xf32> {aot.requires_grad}, %arg1: tensor<4xf32> {aot.tangent = 0})
// CHECK-SAME:    aot.joint = #aot.joint<num_forward = 3, tangents = [0], grads = [0], no_tangents = false>
// CHECK:         %[[E:.*]] = tensor.exp %arg0 {aot.no_grad}
// CHECK-NOT:     tensor.cos
// CHECK:         %[[G:.*]] = tensor.mul %arg1, %[[E]]
// CHECK-NEXT:    return %{{.*}}, %{{.*}}, %[[E]], %[[G]]
func.func @stops(%x: tensor<4xf32> {aot.requires_grad}) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>) {
  %e = tensor.exp %x {aot.no_grad} : tensor<4xf32>
  %d = view.detach %x : tensor<4xf32>
  %s = tensor.sin %d : tensor<4xf32>
  %p = tensor.mul %e, %x : tensor<4xf32>
  %q = tensor.add %p, %s : tensor<4xf32>
  %z = tensor.full {value = 0.0} : tensor<f32>
  %gt = tensor.gt %x, %z : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
  return %q, %gt, %e : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>
}

// -----

/// `with no_grad: a.mul_(2); return a + 3`: the hidden write keeps a's
/// gradient identity, so the gradient is the tangent itself (1, not 2); the
/// in-graph mutation stays last.
// CHECK-LABEL: func.func @hidden
// CHECK:         %[[H:.*]] = view.as_strided_scatter %arg0, %{{.*}} {aot.hidden_write
// CHECK:         %[[Y:.*]] = tensor.add %[[H]]
// CHECK:         mut.copy_ %arg0, %[[H]] {aot.no_grad}
// CHECK-NEXT:    return %[[Y]], %arg1
func.func @hidden(%a: tensor<4xf32> {aot.requires_grad, aot.non_leaf}) -> tensor<4xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two {aot.no_grad} : tensor<4xf32>, tensor<f32>
  %three = tensor.full {value = 3.0} : tensor<f32>
  %0 = tensor.add %a, %three : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// A scalar loss takes a tangent like any output (see
/// joint-no-tangents.mlir for the variant without).
// CHECK-LABEL: func.func @loss
// CHECK-SAME:    %arg2: tensor<f32> {aot.tangent = 0}
func.func @loss(%x: tensor<4x3xf32> {aot.requires_grad}, %w: tensor<3xf32> {aot.requires_grad}) -> tensor<f32> {
  %0 = tensor.mul %x, %w : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %1 = tensor.mean %0 : tensor<4x3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

/// x.mul_(w); return x.view(-1), tanh(x): the mutated input takes a tangent
/// (forward return 0), the tanh output too (return 2); the view output
/// aliases x and is not differentiated here (the runtime routes its tangent
/// into x's).
// CHECK-LABEL: func.func @aliased
// CHECK-SAME:    %arg2: tensor<2x3xf32> {aot.tangent = 0}, %arg3: tensor<2x3xf32> {aot.tangent = 2}
// CHECK-SAME:    aot.joint = #aot.joint<num_forward = 3, tangents = [0, 2], grads = [0, 1], no_tangents = false>
// CHECK:         %[[X:.*]] = tensor.mul %arg0, %arg1
// CHECK:         %[[T:.*]] = tensor.tanh %[[X]]
// CHECK:         %[[D:.*]] = tensor.mul %arg3,
// CHECK:         %[[G:.*]] = tensor.add %arg2, %[[D]]
// CHECK:         %[[GA:.*]] = tensor.mul %[[G]], %arg1
// CHECK:         %[[GW:.*]] = tensor.mul %[[G]], %arg0
// CHECK:         return %[[X]], %{{.*}}, %[[T]], %[[GA]], %[[GW]]
func.func @aliased(%x: tensor<2x3xf32> {aot.requires_grad, aot.non_leaf}, %w: tensor<2x3xf32> {aot.requires_grad}) -> (tensor<6xf32>, tensor<2x3xf32>) {
  mut.mul_ %x, %w : tensor<2x3xf32>
  %v = view.view %x {shape = [-1]} : tensor<2x3xf32> -> tensor<6xf32>
  %t = tensor.tanh %x : tensor<2x3xf32>
  return %v, %t : tensor<6xf32>, tensor<2x3xf32>
}

// -----

/// A self-overlapping argument read through its storage (as_strided): the
/// scatter placing it there shares each element's cotangent among the
/// positions holding it, as PyTorch's as_strided backward does, so that its
/// positions summed back count the element once.
// CHECK-LABEL: func.func @self_overlapping_split
// CHECK:         view.as_strided_scatter {{.*}}, %arg0 {aot.split_grad, offset = 0, size = array<i64: 2, 2>, stride = array<i64: 1, 1>}
// CHECK:         %[[C:.*]] = tensor.constant dense<{{\[\[}}1.0, 2.0], [2.0, 1.0]]> : tensor<2x2xf32>
// CHECK:         tensor.div %{{.*}}, %[[C]]
func.func @self_overlapping_split(%x: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1, 1]>, aot.requires_grad}) -> tensor<3xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 3, requires_grad = false>]} {
  %s = view.as_strided %x {offset = 0, size = [3], stride = [1]} : tensor<2x2xf32> -> tensor<3xf32>
  %r = tensor.neg %s : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// Overlapping windows (a convolution's im2col, unfold): each slice's
/// cotangent goes into its region of one accumulated gradient, not into a
/// zero tensor of its own that an add of the whole shape then sums. The
/// first window scatters into zeros; each later one adds into its region
/// of the gradient so far (a read of that region, an add of the region's
/// size, a scatter into the previous gradient, which lowering does in
/// place).
// CHECK-LABEL: func.func @windows
// CHECK:         %[[Z:.*]] = tensor.full {value = 0.0} : tensor<5xf32>
// CHECK:         %[[G1:.*]] = view.slice_scatter %[[Z]], %[[T1:.*]] {dim = 0, end = [[E1:[0-9]+]], start = [[S1:[0-9]+]]}
// CHECK:         %[[R:.*]] = view.slice %[[G1]] {dim = 0, end = [[E2:[0-9]+]], start = [[S2:[0-9]+]]}
// CHECK:         %[[A:.*]] = tensor.add %[[R]], %{{.*}} : tensor<3xf32>
// CHECK:         %[[G2:.*]] = view.slice_scatter %[[G1]], %[[A]] {dim = 0, end = [[E2]], start = [[S2]]}
// CHECK-NOT:     tensor.add {{.*}} : tensor<5xf32>
// CHECK:         return %{{.*}}, %[[G2]]
func.func @windows(%x: tensor<5xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %a = view.slice %x {dim = 0, start = 0, end = 3} : tensor<5xf32> -> tensor<3xf32>
  %b = view.slice %x {dim = 0, start = 2, end = 5} : tensor<5xf32> -> tensor<3xf32>
  %c = tensor.mul %a, %b : tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

/// Disjoint pieces (an unbind's or a split's: attention's q, k and v of
/// one projection): each later piece's cotangent goes into a region
/// nothing reached yet, so it is the region's value, with no read of the
/// zeros and no add (eager's `stack`/`cat` backward gives it so; `0 + s`
/// would turn a `-0.0` into `0.0`). Once the pieces cover the dimension,
/// the gradient is their concatenation (a selected piece unsqueezed): no
/// zero tensor is left to fill (the scatters before it are dead). The
/// overlapping windows above still add.
// CHECK-LABEL: func.func @pieces
// CHECK-NOT:     tensor.add
// CHECK:         %[[S:.*]] = tensor.cat %{{.*}}, %{{.*}} {dim = 1} : tensor<2x2xf32> -> tensor<2x4xf32>
// CHECK-NOT:     tensor.add
// CHECK:         %[[G:.*]] = tensor.cat %{{.*}}, %{{.*}}, %{{.*}} {dim = 0} : tensor<1x4xf32> -> tensor<3x4xf32>
// CHECK:         return %{{.*}}, %{{.*}}, %[[G]], %[[S]]
func.func @pieces(%x: tensor<3x4xf32> {aot.requires_grad}, %y: tensor<2x4xf32> {aot.requires_grad}) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %q = view.select %x {dim = 0, index = 0} : tensor<3x4xf32> -> tensor<4xf32>
  %k = view.select %x {dim = 0, index = 1} : tensor<3x4xf32> -> tensor<4xf32>
  %v = view.select %x {dim = 0, index = 2} : tensor<3x4xf32> -> tensor<4xf32>
  %qk = tensor.mul %q, %k : tensor<4xf32>
  %o = tensor.mul %qk, %v : tensor<4xf32>
  %a = view.slice %y {dim = 1, start = 0, end = 2} : tensor<2x4xf32> -> tensor<2x2xf32>
  %b = view.slice %y {dim = 1, start = 2, end = 4} : tensor<2x4xf32> -> tensor<2x2xf32>
  %c = tensor.mul %a, %b : tensor<2x2xf32>
  return %o, %c : tensor<4xf32>, tensor<2x2xf32>
}

// -----

/// Two of three pieces: a chain of scatters into the zeros, still without
/// an add, and no concatenation (index 1 stays zero).
// CHECK-LABEL: func.func @some_pieces
// CHECK:         %[[Z:.*]] = tensor.full {value = 0.0} : tensor<3x4xf32>
// CHECK:         %[[G1:.*]] = view.select_scatter %[[Z]], %{{.*}} {dim = 0, index = 2}
// CHECK-NOT:     tensor.add
// CHECK:         %[[G2:.*]] = view.select_scatter %[[G1]], %{{.*}} {dim = 0, index = 0}
// CHECK-NOT:     tensor.cat
// CHECK:         return %{{.*}}, %[[G2]]
func.func @some_pieces(%x: tensor<3x4xf32> {aot.requires_grad}) -> tensor<4xf32> {
  %q = view.select %x {dim = 0, index = 0} : tensor<3x4xf32> -> tensor<4xf32>
  %v = view.select %x {dim = 0, index = 2} : tensor<3x4xf32> -> tensor<4xf32>
  %o = tensor.mul %q, %v : tensor<4xf32>
  return %o : tensor<4xf32>
}

// -----

/// A primal no cotangent reaches (its only use is dead, or under no_grad)
/// gets zeros marked aot.no_cotangent: eager autograd leaves its .grad None,
/// and the runtime reports it so. One that is reached keeps a plain aot.grad.
// CHECK-LABEL: func.func @unreached
// CHECK-SAME:    -> (tensor<3xf32>, tensor<3xf32> {aot.grad = 0}, tensor<3xf32> {aot.grad = 1, aot.no_cotangent}, tensor<3xf32> {aot.grad = 2, aot.no_cotangent})
func.func @unreached(%x: tensor<3xf32> {aot.requires_grad}, %y: tensor<3xf32> {aot.requires_grad}, %z: tensor<3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %0 = tensor.exp %y : tensor<3xf32>
  %1 = tensor.sin %z {aot.no_grad} : tensor<3xf32>
  %2 = tensor.mul %x, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

/// Over symbolic sizes: mean's gradient scales by 1/(s0*4), a size only a
/// call knows, so the joint computes it with tensor.size_value.
// CHECK-LABEL: func.func @symbolic_mean
// CHECK:         %[[N:.*]] = tensor.size_value {numerator = 1.0, size = array<i64: (s0*4)>} : tensor<f32>
// CHECK:         tensor.mul %{{.*}}, %[[N]] : tensor<s0x4xf32>, tensor<f32> -> tensor<s0x4xf32>
func.func @symbolic_mean(%x: tensor<s0x4xf32> {aot.requires_grad}) -> tensor<f32> {
  %e = tensor.exp %x : tensor<s0x4xf32>
  %m = tensor.mean %e : tensor<s0x4xf32> -> tensor<f32>
  return %m : tensor<f32>
}
