// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,synthetic-base{training=true}))'

/// Training restriction (as upstream): overlapping members of a base must
/// be views of one differentiable base; here b is a leaf that requires grad
/// sharing the storage of a plain view.
// expected-error@+1 {{arguments 1 and 0 overlap in one storage and one of them is mutated, but they are not views of one differentiable base (argument 1 requires grad)}}
func.func @not_differentiable_views(%a: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [3, 1]>},
                                    %b: tensor<3xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [2]>, aot.requires_grad}) -> tensor<3xf32> {
  mut.neg_ %a : tensor<2x2xf32>
  %0 = tensor.mul %b, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

/// set_ on an argument that overlaps a mutated one.
// expected-error@+1 {{argument 0 aliases another mutated argument and has its storage changed (set_/resize_)}}
func.func @set_member(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                      %b: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 2, strides = [1]>},
                      %w: tensor<4xf32>) -> tensor<4xf32> {
  %a2 = mut.set_ %a, %w {aot.no_grad} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  mut.neg_ %b : tensor<4xf32>
  %0 = tensor.add %a2, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Views of one declared storage with symbolic sizes: their extents would
/// be expressions the overlap analysis cannot compare yet.
// expected-error@+1 {{argument 0: 'aot.layout' on an argument with symbolic sizes (tensor<s0xf32>) is not supported yet}}
func.func @symbolic_members(%a: tensor<s0xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}, %b: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}) -> tensor<s0xf32> {
  return %a : tensor<s0xf32>
}
