// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,rng-functionalize,joint),partition)' | FileCheck %s --check-prefixes=CHECK,DEF
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,rng-functionalize,joint),partition)' | aot-opt --split-input-file > /dev/null
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,rng-functionalize,joint),partition{strategy=min-cut})' | FileCheck %s --check-prefixes=CHECK,MC

/// A chain of cos: the default partition saves every intermediate the
/// backward uses; the min cut saves only the input and recomputes the chain
/// (AOTAutograd's test: forward with 1 input and 2 outputs). The forward
/// keeps the symbol and names its backward.
// CHECK-LABEL:  func.func @cos_chain
// DEF-SAME:       (%arg0: tensor<64xf32> {aot.requires_grad}) -> (tensor<64xf32>, tensor<64xf32> {aot.saved = 0}, tensor<64xf32> {aot.saved = 1}, tensor<64xf32> {aot.saved = 2})
// DEF-SAME:       aot.backward = @cos_chain_backward, {{.*}}aot.partition = #aot.partition<strategy = "default", num_forward = 1, num_saved = 3, saved_bytes = 512
// MC-SAME:        (%arg0: tensor<64xf32> {aot.requires_grad}) -> (tensor<64xf32>, tensor<64xf32> {aot.saved = 0})
// MC-SAME:        aot.backward = @cos_chain_backward, {{.*}}aot.partition = #aot.partition<strategy = "min-cut", num_forward = 1, num_saved = 1, saved_bytes = 0
// MC:             return %{{.*}}, %arg0 : tensor<64xf32>, tensor<64xf32>
// CHECK-LABEL:  func.func @cos_chain_backward
// DEF-SAME:       (%arg0: tensor<64xf32> {aot.saved = 0}, %arg1: tensor<64xf32> {aot.saved = 1}, %arg2: tensor<64xf32> {aot.saved = 2}, %arg3: tensor<64xf32> {aot.tangent = 0}) -> (tensor<64xf32> {aot.grad = 0})
// MC-SAME:        (%arg0: tensor<64xf32> {aot.saved = 0}, %arg1: tensor<64xf32> {aot.tangent = 0}) -> (tensor<64xf32> {aot.grad = 0})
// CHECK-SAME:     aot.forward = @cos_chain
// MC:             %[[C1:.*]] = tensor.cos %arg0
// MC-NEXT:        %[[C2:.*]] = tensor.cos %[[C1]]
// MC-NEXT:        tensor.sin %[[C2]]
func.func @cos_chain(%x: tensor<64xf32> {aot.requires_grad}) -> tensor<64xf32> {
  %a = tensor.cos %x : tensor<64xf32>
  %b = tensor.cos %a : tensor<64xf32>
  %c = tensor.cos %b : tensor<64xf32>
  return %c : tensor<64xf32>
}

// -----

/// The backward of a broadcasting add needs only shapes: they are static
/// types here, so nothing is saved (AOTAutograd saves sizes).
// CHECK-LABEL:  func.func @shapes_only
// CHECK-SAME:     -> tensor<8x16xf32>
// CHECK-SAME:     num_saved = 0, saved_bytes = 0
// CHECK-LABEL:  func.func @shapes_only_backward
// CHECK-SAME:     (%arg0: tensor<8x16xf32> {aot.tangent = 0}) -> (tensor<8x16xf32> {aot.grad = 0}, tensor<16xf32> {aot.grad = 1})
func.func @shapes_only(%x: tensor<8x16xf32> {aot.requires_grad}, %b: tensor<16xf32> {aot.requires_grad}) -> tensor<8x16xf32> {
  %0 = tensor.add %x, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

/// layer_norm's mean and rstd results are saved one by one.
// CHECK-LABEL:  func.func @layer_norm
// CHECK:          %[[LN:.*]]:3 = tensor.layer_norm
// CHECK:          return %[[LN]]#0, %arg0, %arg1, %[[LN]]#1, %[[LN]]#2
// CHECK-LABEL:  func.func @layer_norm_backward
// CHECK-SAME:     %arg2: tensor<4x1xf32> {aot.saved = 2}, %arg3: tensor<4x1xf32> {aot.saved = 3}
// CHECK-NOT:      tensor.layer_norm
func.func @layer_norm(%x: tensor<4x8xf32> {aot.requires_grad}, %w: tensor<8xf32> {aot.requires_grad}, %b: tensor<8xf32> {aot.requires_grad}) -> tensor<4x8xf32> {
  %y:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 1} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %y#0 : tensor<4x8xf32>
}

// -----

/// Dropout is never recomputed with fresh randomness: its mask is saved and
/// the backward draws nothing. The RNG offset stays a forward return.
// CHECK-LABEL:  func.func @dropout
// CHECK-SAME:     -> (tensor<32xf32>, tensor<i64> {aot.rng_offset}
// CHECK:          %[[D:.*]]:2 = rng.philox_dropout
// CHECK:          return {{.*}}%[[D]]#1
// CHECK-LABEL:  func.func @dropout_backward
// CHECK-SAME:     tensor<32xi1> {aot.saved
// CHECK-NOT:      rng.
// CHECK:          return
func.func @dropout(%x: tensor<32xf32> {aot.requires_grad}) -> tensor<32xf32> {
  %d:2 = rng.dropout %x {p = 0.5} : tensor<32xf32> -> (tensor<32xf32>, tensor<32xi1>)
  %e = tensor.exp %d#0 : tensor<32xf32>
  return %e : tensor<32xf32>
}

// -----

/// Matmul-class ops are never recomputed: the min cut saves the first
/// linear's output and recomputes only tanh from it in the backward.
// CHECK-LABEL:  func.func @mlp
// MC:             %[[H:.*]] = tensor.linear %arg0, %arg1
// MC:             return %{{.*}}, %arg0, %arg2, %[[H]], %{{.*}} :
// CHECK-LABEL:  func.func @mlp_backward
// CHECK-NOT:      tensor.linear
// MC:             tensor.tanh %arg2
// CHECK:          return
func.func @mlp(%x: tensor<16x32xf32>, %w1: tensor<64x32xf32> {aot.requires_grad}, %w2: tensor<8x64xf32> {aot.requires_grad}) -> tensor<16x8xf32> {
  %h = tensor.linear %x, %w1 : tensor<16x32xf32>, tensor<64x32xf32> -> tensor<16x64xf32>
  %r = tensor.tanh %h : tensor<16x64xf32>
  %s = tensor.sigmoid %r : tensor<16x64xf32>
  %y = tensor.linear %s, %w2 : tensor<16x64xf32>, tensor<8x64xf32> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

/// A view is saved as the value whose storage it shares: the backward
/// needs both %a (tanh's gradient) and its transpose %t (the matmul's), one
/// 8x16xf32 storage (512 bytes); the default saves %a once and replays the
/// transpose, and the caller's %w costs nothing. The min cut saves only
/// arguments and recomputes the tanh.
// CHECK-LABEL:  func.func @saved_view
// DEF-SAME:       num_saved = 2, saved_bytes = 512
// DEF:          func.func @saved_view_backward(%{{.*}}: tensor<8x4xf32> {aot.saved = 0}, %[[A:.*]]: tensor<8x16xf32> {aot.saved = 1}
// DEF:            view.t %[[A]]
// MC-SAME:        num_saved = 2, saved_bytes = 0
func.func @saved_view(%x: tensor<8x16xf32> {aot.requires_grad}, %w: tensor<8x4xf32> {aot.requires_grad}) -> tensor<16x4xf32> {
  %a = tensor.tanh %x : tensor<8x16xf32>
  %t = view.t %a : tensor<8x16xf32> -> tensor<16x8xf32>
  %m = tensor.mm %t, %w : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  return %m : tensor<16x4xf32>
}

// -----

/// Over symbolic sizes: the backward of a sum receives only the f32
/// tangent, which does not have s0 as a size. The forward saves s0's value
/// (tensor.size_value, an i64 saved value) and the backward binds the
/// symbol from it (aot.symbol).
// CHECK-LABEL: func.func @symbolic_sum(
// CHECK:         %[[S:.*]] = tensor.size_value {size = array<i64: s0>} : tensor<i64>
// CHECK:         return %{{.*}}, %[[S]] : tensor<f32>, tensor<i64>
// CHECK-LABEL: func.func @symbolic_sum_backward(
// CHECK-SAME:    tensor<i64> {aot.saved = 0, aot.symbol = 0}
// CHECK:         view.expand %{{.*}} {shape = array<i64: s0>}
func.func @symbolic_sum(%x: tensor<s0xf32> {aot.requires_grad}) -> tensor<f32> {
  %s = tensor.sum %x : tensor<s0xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

/// The backward carries the ranges and guards of the symbols it binds
/// only: s1 never reaches it, so neither do its range nor the guards that
/// mention it (the output re-parses).
// CHECK-LABEL: func.func @symbolic_facts_backward(
// CHECK-SAME:    aot.symbols = {s0 = array<i64: 3, 9>}
// CHECK-NOT:     aot.guards
func.func @symbolic_facts(%x: tensor<s0xf32> {aot.requires_grad}, %y: tensor<s1xf32>) -> (tensor<f32>, tensor<s1xf32>) attributes {aot.symbols = {s0 = array<i64: 3, 9>, s1 = array<i64: 2, 5>}, aot.guards = ["s1 <= s0", "s1 != 4"]} {
  %s = tensor.sum %x : tensor<s0xf32> -> tensor<f32>
  %e = tensor.exp %y : tensor<s1xf32>
  return %s, %e : tensor<f32>, tensor<s1xf32>
}

// -----

/// A saved value typed over a symbol that no whole size of it binds
/// (channels viewed in pairs over `(s0 floordiv 2)` positions), where no
/// op of the backward has a symbolic result (a convolution's weight
/// gradient): the forward saves the symbol's value too, and the backward
/// takes it as an argument marked `aot.symbol`.
// CHECK-LABEL: func.func @symbol_inside_a_saved_size(
// CHECK-SAME:    tensor<i64> {aot.saved = 1}
// CHECK-LABEL: func.func @symbol_inside_a_saved_size_backward(
// CHECK-SAME:    tensor<2x8x(s0 floordiv 2)xf32> {aot.saved = 0}
// CHECK-SAME:    tensor<i64> {aot.saved = 1, aot.symbol = 0}
func.func @symbol_inside_a_saved_size(%x: tensor<2x4xs0xf32>, %w: tensor<3x8x1xf32> {aot.requires_grad}) -> tensor<2x3x(s0 floordiv 2)xf32> attributes {aot.guards = ["(s0 mod 2) == 0"]} {
  %v = view.view %x {shape = array<i64: 2, 8, (s0 floordiv 2)>} : tensor<2x4xs0xf32> -> tensor<2x8x(s0 floordiv 2)xf32>
  %e = tensor.exp %v : tensor<2x8x(s0 floordiv 2)xf32>
  %y = tensor.conv %e, %w {stride = [1], padding = [0], dilation = [1], groups = 1} : tensor<2x8x(s0 floordiv 2)xf32>, tensor<3x8x1xf32> -> tensor<2x3x(s0 floordiv 2)xf32>
  return %y : tensor<2x3x(s0 floordiv 2)xf32>
}
