// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(simplify))' --split-input-file | FileCheck %s
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(simplify))' --split-input-file --pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(simplify{iter-limit=1}))' --split-input-file --pass-statistics 2>&1 | FileCheck %s --check-prefix=ITERS
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(simplify{node-limit=5}))' --split-input-file --pass-statistics 2>&1 | FileCheck %s --check-prefix=NODES
// RUN: not aot-opt %s --pass-pipeline='builtin.module(func.func(simplify{time-limit-ms=0}))' 2>&1 | FileCheck %s --check-prefix=BADOPT

/// --pass-statistics reports the e-graph, why saturation stopped, and ops
/// and modelled cost before and after; a limit stops saturation early and
/// the statistics say which.
// STATS:       Simplify
// STATS-NEXT:    (S) {{[0-9]+}} egraph-nodes
// STATS-NEXT:    (S) {{[0-9]+}} egraph-classes
// STATS-NEXT:    (S) {{[0-9]+}} iterations
// STATS-NEXT:    (S) {{[1-9][0-9]*}} stop-saturated
// STATS-NEXT:    (S) 0 stop-node-limit
// STATS-NEXT:    (S) 0 stop-iteration-limit
// STATS-NEXT:    (S) 0 stop-time-limit
// STATS:         (S) {{[1-9][0-9]*}} num-rewrites
// STATS-NEXT:    (S) {{[0-9]+}} ops-before
// STATS-NEXT:    (S) {{[0-9]+}} ops-after
// STATS-NEXT:    (S) {{[0-9]+}} cost-before
// STATS-NEXT:    (S) {{[0-9]+}} cost-after
// STATS-NEXT:    (S) {{[1-9][0-9]*}} functions-rewritten
// STATS-NEXT:    (S) 0 functions-unordered
// ITERS:         (S) {{[1-9][0-9]*}} stop-iteration-limit
// NODES:         (S) {{[1-9][0-9]*}} stop-node-limit
// BADOPT:        error: invalid options for pass 'simplify': option 'time-limit-ms' must be positive

/// identity-view: views that read every element in order vanish.
// CHECK-LABEL: func.func @identity_views
// CHECK-NEXT:    return %arg0, %arg0, %arg0, %arg0, %arg0
func.func @identity_views(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) attributes {aot.value_semantics} {
  %a = view.alias %x : tensor<2x3xf32>
  %r = view.reshape %x {shape = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %s = view.slice %x {dim = 1, start = 0, end = 3} : tensor<2x3xf32> -> tensor<2x3xf32>
  %p = view.permute %x {dims = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %e = view.expand %x {shape = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %a, %r, %s, %p, %e : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// compose-views: transpose∘transpose and t∘transpose are the operand.
// CHECK-LABEL: func.func @transpose_transpose
// CHECK-NEXT:    return %arg0, %arg0
func.func @transpose_transpose(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) attributes {aot.value_semantics} {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %tt = view.transpose %t {dim0 = 1, dim1 = 0} : tensor<3x2xf32> -> tensor<2x3xf32>
  %u = view.t %t : tensor<3x2xf32> -> tensor<2x3xf32>
  return %tt, %u : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// compose-views: two permutes are one permute (a single swap is a transpose).
// CHECK-LABEL: func.func @permute_permute
// CHECK-NEXT:    %[[P:.*]] = view.permute %arg0 {dims = array<i64: 1, 2, 0>}
// CHECK-NEXT:    %[[T:.*]] = view.transpose %arg0 {dim0 = 0, dim1 = 2}
// CHECK-NEXT:    return %[[P]], %[[T]]
func.func @permute_permute(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<4x3x2xf32>) attributes {aot.value_semantics} {
  %a = view.permute %x {dims = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %b = view.permute %a {dims = array<i64: 0, 2, 1>} : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  %c = view.permute %a {dims = array<i64: 2, 0, 1>} : tensor<3x2x4xf32> -> tensor<4x3x2xf32>
  return %b, %c : tensor<3x4x2xf32>, tensor<4x3x2xf32>
}

// -----

/// compose-views: a chain of reshape-likes (view, reshape, squeeze,
/// unsqueeze) is one reshape, or nothing when it comes back to the shape.
// CHECK-LABEL: func.func @reshape_chains
// CHECK-NEXT:    %[[R:.*]] = view.reshape %arg0 {shape = array<i64: 3, 4>}
// CHECK-NEXT:    return %[[R]], %arg0
func.func @reshape_chains(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<2x6xf32>) attributes {aot.value_semantics} {
  %a = view.view %x {shape = array<i64: 12>} : tensor<2x6xf32> -> tensor<12xf32>
  %b = view.reshape %a {shape = array<i64: 3, 4>} : tensor<12xf32> -> tensor<3x4xf32>
  %u = view.unsqueeze %x {dim = 0} : tensor<2x6xf32> -> tensor<1x2x6xf32>
  %s = view.squeeze %u {dim = 0} : tensor<1x2x6xf32> -> tensor<2x6xf32>
  return %b, %s : tensor<3x4xf32>, tensor<2x6xf32>
}

// -----

/// compose-views: a slice of a slice on one dim is one slice.
// CHECK-LABEL: func.func @slice_of_slice
// CHECK-NEXT:    %[[S:.*]] = view.slice %arg0 {dim = 0, end = 7, start = 2, step = 4}
// CHECK-NEXT:    return %[[S]]
func.func @slice_of_slice(%x: tensor<10x3xf32>) -> tensor<2x3xf32> attributes {aot.value_semantics} {
  %a = view.slice %x {dim = 0, start = 2, end = 10, step = 2} : tensor<10x3xf32> -> tensor<4x3xf32>
  %b = view.slice %a {dim = 0, start = 0, end = 4, step = 2} : tensor<4x3xf32> -> tensor<2x3xf32>
  return %b : tensor<2x3xf32>
}

// -----

/// compose-views: selecting the dim unsqueeze inserted gives the operand;
/// expand of expand is one expand.
// CHECK-LABEL: func.func @select_unsqueeze_expand_expand
// CHECK-NEXT:    %[[E:.*]] = view.expand %arg0 {shape = array<i64: 4, 2, 3>}
// CHECK-NEXT:    return %arg0, %[[E]]
func.func @select_unsqueeze_expand_expand(%x: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<4x2x3xf32>) attributes {aot.value_semantics} {
  %u = view.unsqueeze %x {dim = 1} : tensor<1x3xf32> -> tensor<1x1x3xf32>
  %s = view.select %u {dim = 1, index = 0} : tensor<1x1x3xf32> -> tensor<1x3xf32>
  %e1 = view.expand %x {shape = array<i64: 2, 3>} : tensor<1x3xf32> -> tensor<2x3xf32>
  %e2 = view.expand %e1 {shape = array<i64: 4, 2, 3>} : tensor<2x3xf32> -> tensor<4x2x3xf32>
  return %s, %e2 : tensor<1x3xf32>, tensor<4x2x3xf32>
}

// -----

/// scatter-of-own-view: writing back an unchanged region is the base.
// CHECK-LABEL: func.func @scatter_of_own_view
// CHECK-NEXT:    return %arg0
func.func @scatter_of_own_view(%b: tensor<4x3xf32>) -> tensor<4x3xf32> attributes {aot.value_semantics} {
  %v = view.slice %b {dim = 0, start = 1, end = 3} : tensor<4x3xf32> -> tensor<2x3xf32>
  %s = view.slice_scatter %b, %v {dim = 0, start = 1, end = 3} : tensor<4x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}

// -----

/// view-of-scatter: reading back the region just written gives what was
/// written.
// CHECK-LABEL: func.func @view_of_scatter
// CHECK-NEXT:    return %arg1
func.func @view_of_scatter(%b: tensor<4x3xf32>, %src: tensor<3xf32>) -> tensor<3xf32> attributes {aot.value_semantics} {
  %s = view.select_scatter %b, %src {dim = 0, index = 2} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %r = view.select %s {dim = 0, index = 2} : tensor<4x3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// view-of-scatter does not apply where the region reaches an element twice
/// (each element then holds its last write, not the source).
// CHECK-LABEL: func.func @view_of_overlapping_scatter
// CHECK:         view.as_strided_scatter
// CHECK:         %[[R:.*]] = view.as_strided
// CHECK:         return %[[R]]
func.func @view_of_overlapping_scatter(%b: tensor<4xf32>, %src: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {aot.value_semantics} {
  %s = view.as_strided_scatter %b, %src {size = array<i64: 2, 2>, stride = array<i64: 1, 1>, offset = 0} : tensor<4xf32>, tensor<2x2xf32> -> tensor<4xf32>
  %r = view.as_strided %s {size = array<i64: 2, 2>, stride = array<i64: 1, 1>, offset = 0} : tensor<4xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

/// scatter-over-scatter: the second write to a region supersedes the first.
// CHECK-LABEL: func.func @scatter_over_scatter
// CHECK-NEXT:    %[[S:.*]] = view.slice_scatter %arg0, %arg2
// CHECK-NEXT:    return %[[S]]
func.func @scatter_over_scatter(%b: tensor<4xf32>, %s1: tensor<2xf32>, %s2: tensor<2xf32>) -> tensor<4xf32> attributes {aot.value_semantics} {
  %a = view.slice_scatter %b, %s1 {dim = 0, start = 0, end = 2} : tensor<4xf32>, tensor<2xf32> -> tensor<4xf32>
  %c = view.slice_scatter %a, %s2 {dim = 0, start = 0, end = 2} : tensor<4xf32>, tensor<2xf32> -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

/// whole-scatter: a region covering the whole base is the source.
// CHECK-LABEL: func.func @whole_scatter
// CHECK-NEXT:    return %arg1
func.func @whole_scatter(%b: tensor<4xf32>, %src: tensor<4xf32>) -> tensor<4xf32> attributes {aot.value_semantics} {
  %c = view.slice_scatter %b, %src {dim = 0, start = 0, end = 4} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

/// mul-by-one, div-by-one: on either side; a larger constant makes it a
/// broadcast of the operand.
// CHECK-LABEL: func.func @multiply_by_one
// CHECK-NEXT:    %[[E:.*]] = view.expand %arg0 {shape = array<i64: 2, 3>}
// CHECK-NEXT:    return %arg0, %arg0, %[[E]], %arg0
func.func @multiply_by_one(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>) attributes {aot.value_semantics} {
  %one = tensor.full {value = 1.0} : tensor<f32>
  %ones = tensor.full {value = 1.0} : tensor<2x3xf32>
  %a = tensor.mul %x, %one : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %b = tensor.mul %one, %x : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  %c = tensor.mul %ones, %x : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %d = tensor.div %x, %one : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %a, %b, %c, %d : tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// -----

/// add-zero: x + -0.0 and x - +0.0 are x; x + +0.0 is not (-0.0 + +0.0 is
/// +0.0), nor x - -0.0; for integers any zero is the identity.
// CHECK-LABEL: func.func @add_zero
// CHECK-NEXT:    %[[PZ:.*]] = tensor.full {value = 0.0} : tensor<f32>
// CHECK-NEXT:    %[[NZ:.*]] = tensor.full {value = -0.0} : tensor<f32>
// CHECK-NEXT:    %[[C:.*]] = tensor.add %arg0, %[[PZ]]
// CHECK-NEXT:    %[[D:.*]] = tensor.sub %arg0, %[[NZ]]
// CHECK-NEXT:    return %arg0, %arg0, %[[C]], %[[D]], %arg1
func.func @add_zero(%x: tensor<3xf32>, %i: tensor<3xi64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi64>) attributes {aot.value_semantics} {
  %pz = tensor.full {value = 0.0} : tensor<f32>
  %nz = tensor.full {value = -0.0} : tensor<f32>
  %iz = tensor.full {value = 0.0} : tensor<i64>
  %a = tensor.add %nz, %x : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  %b = tensor.sub %x, %pz : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %c = tensor.add %x, %pz : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %d = tensor.sub %x, %nz : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %e = tensor.add %i, %iz : tensor<3xi64>, tensor<i64> -> tensor<3xi64>
  return %a, %b, %c, %d, %e : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi64>
}

// -----

/// where-same and where-known-condition.
// CHECK-LABEL: func.func @selects
// CHECK-NEXT:    return %arg1, %arg1, %arg2
func.func @selects(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) attributes {aot.value_semantics} {
  %t = tensor.full {value = 1.0} : tensor<i1>
  %f = tensor.full {value = 0.0} : tensor<i1>
  %0 = tensor.where %c, %a, %a : tensor<3xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %1 = tensor.where %t, %a, %b : tensor<i1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %2 = tensor.where %f, %a, %b : tensor<i1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

/// `as_strided` places its layout in its operand's storage: where(c, x, x)
/// is a fresh value, and its own storage, where `x` (an argument, or a view
/// of it) is another's. The value `as_strided` reads stays an op of its
/// own; the same `where` elsewhere still folds (fuzz seed 52296).
// CHECK-LABEL: func.func @as_strided_keeps_its_operand
// CHECK:         %[[W:.*]] = tensor.where %{{.*}}, %arg0, %arg0
// CHECK-NEXT:    %[[S:.*]] = view.as_strided %[[W]] {offset = 1
// CHECK:         %[[W2:.*]] = tensor.where %{{.*}}, %arg1, %arg1
// CHECK:         view.as_strided_scatter %[[W2]]
// CHECK:         return %[[S]], %arg0,
func.func @as_strided_keeps_its_operand(%x: tensor<4x2xf32>, %y: tensor<4xf32>, %src: tensor<2xf32>) -> (tensor<3x3xf32>, tensor<4x2xf32>, tensor<4xf32>) attributes {aot.value_semantics} {
  %t = view.transpose %x {dim0 = 0, dim1 = 0} : tensor<4x2xf32> -> tensor<4x2xf32>
  %z = tensor.full {value = -0.01} : tensor<f32>
  %c = tensor.gt %t, %z : tensor<4x2xf32>, tensor<f32> -> tensor<4x2xi1>
  %w = tensor.where %c, %t, %t : tensor<4x2xi1>, tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  %s = view.as_strided %w {offset = 1, size = [3, 3], stride = [1, 0]} : tensor<4x2xf32> -> tensor<3x3xf32>
  %w1 = tensor.where %c, %t, %t : tensor<4x2xi1>, tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  %zy = tensor.full {value = 0.0} : tensor<f32>
  %cy = tensor.gt %y, %zy : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
  %w2 = tensor.where %cy, %y, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %sc = view.as_strided_scatter %w2, %src {size = [2], stride = [1], offset = 1} : tensor<4xf32>, tensor<2xf32> -> tensor<4xf32>
  return %s, %w1, %sc : tensor<3x3xf32>, tensor<4x2xf32>, tensor<4xf32>
}

// -----

/// neg-neg and cast-same.
// CHECK-LABEL: func.func @neg_neg_cast_same
// CHECK-NEXT:    return %arg0, %arg0
func.func @neg_neg_cast_same(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {aot.value_semantics} {
  %n = tensor.neg %x : tensor<3xf32>
  %nn = tensor.neg %n : tensor<3xf32>
  %c = tensor.cast %x : tensor<3xf32> -> tensor<3xf32>
  return %nn, %c : tensor<3xf32>, tensor<3xf32>
}

// -----

/// hoist-broadcast: an elementwise op on a broadcast runs before it, once
/// per element of the operand (the loss tangent of a backward pass).
// CHECK-LABEL: func.func @hoist_broadcast
// CHECK-NEXT:    %[[S:.*]] = tensor.full {value = 0.0625} : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = tensor.mul %arg0, %[[S]] : tensor<f32>
// CHECK-NEXT:    %[[E:.*]] = view.expand %[[M]] {shape = array<i64: 8, 2>} : tensor<f32> -> tensor<8x2xf32>
// CHECK-NEXT:    return %[[E]]
func.func @hoist_broadcast(%t: tensor<f32>) -> tensor<8x2xf32> attributes {aot.value_semantics} {
  %e = view.expand %t {shape = array<i64: 8, 2>} : tensor<f32> -> tensor<8x2xf32>
  %s = tensor.full {value = 0.0625} : tensor<f32>
  %m = tensor.mul %e, %s : tensor<8x2xf32>, tensor<f32> -> tensor<8x2xf32>
  return %m : tensor<8x2xf32>
}

// -----

/// hoist-broadcast does not apply when the other operand needs the full
/// shape.
// CHECK-LABEL: func.func @no_hoist_full_operand
// CHECK-NEXT:    view.expand
// CHECK-NEXT:    tensor.add
func.func @no_hoist_full_operand(%t: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> attributes {aot.value_semantics} {
  %e = view.expand %t {shape = array<i64: 2, 3>} : tensor<3xf32> -> tensor<2x3xf32>
  %m = tensor.add %e, %y : tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}

// -----

/// extremum-of-one: amax/amin over dims of size 1 is the operand; a sum
/// over them is kept (it turns -0.0 into +0.0).
// CHECK-LABEL: func.func @extremum_of_one
// CHECK-NEXT:    %[[R:.*]] = view.reshape %arg0 {shape = array<i64: 3>}
// CHECK-NEXT:    %[[S:.*]] = tensor.sum %arg0
// CHECK-NEXT:    return %arg0, %[[R]], %[[S]]
func.func @extremum_of_one(%x: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>) attributes {aot.value_semantics} {
  %a = tensor.amax %x {dims = [0], keepdim} : tensor<1x3xf32> -> tensor<1x3xf32>
  %b = tensor.amin %x {dims = [0]} : tensor<1x3xf32> -> tensor<3xf32>
  %c = tensor.sum %x {dims = [0]} : tensor<1x3xf32> -> tensor<3xf32>
  return %a, %b, %c : tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

/// reduce-splat: a sum of copies of a constant is a constant when every
/// partial sum is exact (6 ones); 0.1 is not exactly summable in f32.
// CHECK-LABEL: func.func @reduce_splat
// CHECK-DAG:     %[[SIX:.*]] = tensor.full {value = 6.0} : tensor<f32>
// CHECK-DAG:     %[[ONE:.*]] = tensor.full {value = 1.0} : tensor<3xf32>
// CHECK-DAG:     %[[TENTH:.*]] = tensor.full {value = 0.1} : tensor<2x3xf32>
// CHECK-DAG:     %[[S:.*]] = tensor.sum %[[TENTH]]
// CHECK:         return %[[SIX]], %[[ONE]], %[[S]]
func.func @reduce_splat() -> (tensor<f32>, tensor<3xf32>, tensor<f32>) attributes {aot.value_semantics} {
  %one = tensor.full {value = 1.0} : tensor<f32>
  %ones = view.expand %one {shape = array<i64: 2, 3>} : tensor<f32> -> tensor<2x3xf32>
  %six = tensor.sum %ones : tensor<2x3xf32> -> tensor<f32>
  %m = tensor.mean %ones {dims = [0]} : tensor<2x3xf32> -> tensor<3xf32>
  %tenth = tensor.full {value = 0.1} : tensor<2x3xf32>
  %s = tensor.sum %tenth : tensor<2x3xf32> -> tensor<f32>
  return %six, %m, %s : tensor<f32>, tensor<3xf32>, tensor<f32>
}

// -----

/// Common subexpressions merge, in either operand order of a commutative op.
// CHECK-LABEL: func.func @common_subexpressions
// CHECK-NEXT:    %[[M:.*]] = tensor.mul %arg0, %arg1
// CHECK-NEXT:    %[[A:.*]] = tensor.add %[[M]], %[[M]]
// CHECK-NEXT:    return %[[A]]
func.func @common_subexpressions(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> attributes {aot.value_semantics} {
  %0 = tensor.mul %x, %y : tensor<4xf32>
  %1 = tensor.mul %y, %x : tensor<4xf32>
  %2 = tensor.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

/// A node with a dialect-prefixed mark means more than its value: -(-x)
/// under no_grad for the inner negation stops gradients, so it stays.
// CHECK-LABEL: func.func @marked_nodes_match_no_rule
// CHECK-NEXT:    %[[N:.*]] = tensor.neg %arg0 {aot.no_grad}
// CHECK-NEXT:    %[[NN:.*]] = tensor.neg %[[N]]
// CHECK-NEXT:    return %[[NN]]
func.func @marked_nodes_match_no_rule(%x: tensor<3xf32>) -> tensor<3xf32> attributes {aot.value_semantics} {
  %n = tensor.neg %x {aot.no_grad} : tensor<3xf32>
  %nn = tensor.neg %n : tensor<3xf32>
  return %nn : tensor<3xf32>
}

// -----

/// Ops with effects keep their order and are never merged: two draws of
/// the generator are two values; the pure work between them is simplified.
// CHECK-LABEL: func.func @effects_keep_their_order
// CHECK-NEXT:    %[[U:.*]] = rng.uniform
// CHECK-NEXT:    %[[V:.*]] = rng.uniform
// CHECK-NEXT:    %[[A:.*]] = tensor.add %[[U]], %[[V]]
// CHECK-NEXT:    return %[[A]]
func.func @effects_keep_their_order() -> tensor<3xf32> attributes {aot.value_semantics} {
  %u = rng.uniform : tensor<3xf32>
  %n = tensor.neg %u : tensor<3xf32>
  %v = rng.uniform : tensor<3xf32>
  %nn = tensor.neg %n : tensor<3xf32>
  %a = tensor.add %nn, %v : tensor<3xf32>
  return %a : tensor<3xf32>
}

// -----

/// A value a metadata mutation consumes is dead after it: its op stays and
/// is not replaced by the (equal) argument.
// CHECK-LABEL: func.func @metadata_mutation_operand_keeps_its_op
// CHECK-NEXT:    %[[A:.*]] = view.alias %arg0
// CHECK-NEXT:    mut.resize_ %[[A]]
func.func @metadata_mutation_operand_keeps_its_op(%x: tensor<4xf32>) -> tensor<2xf32> attributes {aot.value_semantics} {
  %a = view.alias %x : tensor<4xf32>
  %r = mut.resize_ %a {size = array<i64: 2>} : tensor<4xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

/// Functions in reference semantics (views alias, no aot.value_semantics)
/// are left alone.
// CHECK-LABEL: func.func @reference_semantics_untouched
// CHECK-NEXT:    %[[N:.*]] = tensor.neg %arg0
// CHECK-NEXT:    %[[NN:.*]] = tensor.neg %[[N]]
// CHECK-NEXT:    return %[[NN]]
func.func @reference_semantics_untouched(%x: tensor<3xf32>) -> tensor<3xf32> {
  %n = tensor.neg %x : tensor<3xf32>
  %nn = tensor.neg %n : tensor<3xf32>
  return %nn : tensor<3xf32>
}

// -----

/// A function whose cheapest graph is its own is not touched, op order
/// included.
// CHECK-LABEL: func.func @already_cheapest
// CHECK-NEXT:    %[[B:.*]] = tensor.exp %arg1
// CHECK-NEXT:    %[[A:.*]] = tensor.exp %arg0
// CHECK-NEXT:    %[[S:.*]] = tensor.add %[[A]], %[[B]]
// CHECK-NEXT:    return %[[S]]
func.func @already_cheapest(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> attributes {aot.value_semantics} {
  %b = tensor.exp %y : tensor<3xf32>
  %a = tensor.exp %x : tensor<3xf32>
  %s = tensor.add %a, %b : tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

/// reduce-splat over symbolic sizes: a count that is a constant (4) folds;
/// a symbolic count (s0) does not, and must not become 0.
// CHECK-LABEL: func.func @reduce_splat_symbolic
// CHECK-DAG:     %[[FOUR:.*]] = tensor.full {value = 4.0} : tensor<s0xf32>
// CHECK-DAG:     %[[S:.*]] = tensor.sum %{{.*}} {dims = [0]} : tensor<s0x4xf32> -> tensor<4xf32>
// CHECK:         return %[[FOUR]], %[[S]]
func.func @reduce_splat_symbolic(%x: tensor<s0x4xf32>) -> (tensor<s0xf32>, tensor<4xf32>) attributes {aot.value_semantics} {
  %one = tensor.full {value = 1.0} : tensor<f32>
  %ones = view.expand %one {shape = array<i64: s0, 4>} : tensor<f32> -> tensor<s0x4xf32>
  %a = tensor.sum %ones {dims = [1]} : tensor<s0x4xf32> -> tensor<s0xf32>
  %b = tensor.sum %ones {dims = [0]} : tensor<s0x4xf32> -> tensor<4xf32>
  return %a, %b : tensor<s0xf32>, tensor<4xf32>
}

// -----

/// The rules that compare element counts over symbolic sizes: amax over a
/// dimension of size 1 is a reshape, transpose twice is the value, and an
/// elementwise op moves before the broadcast it reads (s0 elements, not
/// s0*4).
// CHECK-LABEL: func.func @counts_symbolic
// CHECK-DAG:     %[[R:.*]] = view.reshape %arg0 {shape = array<i64: s0>} : tensor<s0x1xf32> -> tensor<s0xf32>
// CHECK-DAG:     %[[E:.*]] = tensor.exp %arg0 : tensor<s0x1xf32>
// CHECK-DAG:     %[[B:.*]] = view.expand %[[E]] {shape = array<i64: s0, 4>} : tensor<s0x1xf32> -> tensor<s0x4xf32>
// CHECK:         return %[[R]], %[[B]]
func.func @counts_symbolic(%x: tensor<s0x1xf32>) -> (tensor<s0xf32>, tensor<s0x4xf32>) attributes {aot.value_semantics} {
  %m = tensor.amax %x {dims = [1]} : tensor<s0x1xf32> -> tensor<s0xf32>
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<s0x1xf32> -> tensor<1xs0xf32>
  %tt = view.transpose %t {dim0 = 0, dim1 = 1} : tensor<1xs0xf32> -> tensor<s0x1xf32>
  %e = view.expand %tt {shape = array<i64: s0, 4>} : tensor<s0x1xf32> -> tensor<s0x4xf32>
  %a = tensor.exp %e : tensor<s0x4xf32>
  return %m, %a : tensor<s0xf32>, tensor<s0x4xf32>
}
