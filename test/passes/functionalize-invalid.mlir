// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(functionalize))'

/// PyTorch's in-place rules are checked at compile time, with a location.
func.func @leaf_inplace(%x: tensor<3xf32> {aot.requires_grad}) {
  %c = tensor.constant dense<1.0> : tensor<3xf32>
  // expected-error@+1 {{'mut.add_' op a leaf Variable that requires grad is being used in an in-place operation.}}
  mut.add_ %x, %c : tensor<3xf32>
  return
}

// -----

func.func @view_of_leaf_inplace(%x: tensor<3xf32> {aot.requires_grad}) {
  %s = view.slice %x {dim = 0, start = 1} : tensor<3xf32> -> tensor<2xf32>
  // expected-error@+1 {{'mut.zero_' op a view of a leaf Variable that requires grad is being used in an in-place operation.}}
  mut.zero_ %s : tensor<2xf32>
  return
}

// -----

func.func @view_incompatible(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %t = view.t %x : tensor<2x3xf32> -> tensor<3x2xf32>
  // expected-error@+1 {{'view.view' op view size is not compatible with input tensor's size and stride}}
  %v = view.view %t {shape = [6]} : tensor<3x2xf32> -> tensor<6xf32>
  return %v : tensor<6xf32>
}

// -----

// PyTorch refuses element-wise writes through an expanded view (fill_ and
// zero_, which give every element one value, are allowed).
func.func @write_expanded(%x: tensor<3xf32>, %s: tensor<f32>) {
  %e = view.expand %x {shape = [2, 3]} : tensor<3xf32> -> tensor<2x3xf32>
  // expected-error@+1 {{'mut.mul_' op unsupported operation: more than one element of the written-to tensor refers to a single memory location}}
  mut.mul_ %e, %s : tensor<2x3xf32>, tensor<f32>
  return
}

// -----

func.func @unbind_inplace(%x: tensor<2x3xf32> {aot.requires_grad, aot.non_leaf}) {
  %u:2 = view.unbind %x : tensor<2x3xf32> -> (tensor<3xf32>, tensor<3xf32>)
  // expected-error@+1 {{'mut.neg_' op Output 0 of Unbind is a view and is being modified inplace}}
  mut.neg_ %u#0 : tensor<3xf32>
  return
}

// -----

func.func @resize_requires_grad(%x: tensor<3xf32> {aot.requires_grad, aot.non_leaf}) {
  // expected-error@+1 {{'mut.resize_' op cannot resize variables that require grad}}
  %r = mut.resize_ %x {size = [4]} : tensor<3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @as_strided_outside_storage(%a: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}, %b: tensor<1xf32> {aot.layout = #aot.layout<storage = 0, offset = 3, strides = [1]>}) -> tensor<4xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 4, requires_grad = false>]} {
  // expected-error@+1 {{'view.as_strided' op reaches storage element 4, outside its storage of 4 elements}}
  %v = view.as_strided %a {size = [4], stride = [1], offset = 1} : tensor<2xf32> -> tensor<4xf32>
  return %v : tensor<4xf32>
}

// -----

/// Arguments in a declared shared storage with symbolic sizes: the
/// storage's extent would be an expression the coverage analysis cannot
/// visit.
// expected-error@+1 {{argument 0: 'aot.layout' on an argument with symbolic sizes (tensor<s0xf32>) is not supported yet}}
func.func @symbolic_layout(%x: tensor<s0xf32> {aot.layout = #aot.layout<storage = 0, strides = [1], offset = 0>}) -> tensor<s0xf32> {
  return %x : tensor<s0xf32>
}

// -----

/// A declared storage of 2^62 f32 elements: its byte size overflows, which
/// the write's replay of PyTorch's storage check once multiplied unchecked
/// (a panic the pipeline fuzzer found).
// expected-error@+1 {{argument 0: storage 0 of 4611686018427387904 f32 elements has more bytes than a 64-bit count holds}}
func.func @storage_bytes_overflow(
    %x: tensor<3x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [2, 1]>},
    %z: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 12, strides = [2]>},
    %y: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 6, strides = [3]>})
    -> tensor<3x3xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 4611686018427387904, requires_grad = true>]} {
  mut.neg_ %y : tensor<2xf32>
  return %x : tensor<3x3xf32>
}

// -----

/// An as_strided view of an argument of symbolic size that its range puts
/// past the end for every size allowed (s0 <= 4): refused as the static
/// case is.
func.func @symbolic_as_strided_outside(%x: tensor<s0xf32>) -> tensor<5xf32> attributes {aot.symbols = {s0 = array<i64: 2, 4>}} {
  // expected-error@+1 {{'view.as_strided' op reaches storage element 4, outside its storage of s0 elements}}
  %v = view.as_strided %x {size = [5], stride = [1], offset = 0} : tensor<s0xf32> -> tensor<5xf32>
  return %v : tensor<5xf32>
}

// -----

/// An `as_strided_` of an argument of symbolic size moves the argument onto
/// elements its writes then reach: not tracked for symbolic storages yet,
/// so refused (it gave wrong values).
func.func @symbolic_as_strided_of_argument(%x: tensor<s0xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'mut.as_strided_' op an as_strided_ of an argument with symbolic sizes is not supported yet}}
  %v = mut.as_strided_ %x {size = [3], stride = [1], offset = 1, aot.no_grad} : tensor<s0xf32> -> tensor<3xf32>
  mut.neg_ %v : tensor<3xf32>
  return %v : tensor<3xf32>
}

// -----

/// The same write where the ranges (s0 <= 7) prove the operand partly
/// inside the written-to elements at every size: PyTorch's error, as with
/// static sizes.
func.func @symbolic_operand_overlaps(%x: tensor<s0xf32>) -> tensor<s0xf32> attributes {aot.symbols = {s0 = array<i64: 4, 7>}} {
  %a = view.slice %x {dim = 0, start = 0, end = 4} : tensor<s0xf32> -> tensor<4xf32>
  %b = view.slice %x {dim = 0, start = -4, end = 9223372036854775807} : tensor<s0xf32> -> tensor<4xf32>
  // expected-error@+1 {{'mut.add_' op unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location}}
  mut.add_ %a, %b : tensor<4xf32>, tensor<4xf32>
  return %x : tensor<s0xf32>
}

// -----

/// Where the ranges (4 <= s0 <= 100) leave it to the size (the elements
/// overlap below s0 = 8 only), eager raises at some sizes and not at
/// others: one compile cannot serve both, so it is refused.
func.func @symbolic_operand_overlap_undecided(%x: tensor<s0xf32>) -> tensor<s0xf32> attributes {aot.symbols = {s0 = array<i64: 4, 100>}} {
  %a = view.slice %x {dim = 0, start = 0, end = 4} : tensor<s0xf32> -> tensor<4xf32>
  %b = view.slice %x {dim = 0, start = -4, end = 9223372036854775807} : tensor<s0xf32> -> tensor<4xf32>
  // expected-error@+1 {{'mut.add_' op an in-place op whose operand overlaps the written-to tensor at some sizes and not at others is not supported yet with symbolic sizes}}
  mut.add_ %a, %b : tensor<4xf32>, tensor<4xf32>
  return %x : tensor<s0xf32>
}

// -----

/// With symbolic sizes a layout must be dense in some order of the
/// dimensions over a storage of the argument's own: every second element
/// is not.
// expected-error@+1 {{argument 0: 'aot.layout' on an argument with symbolic sizes (tensor<s0xf32>) is not supported yet, but for a dense layout (a permutation of its dimensions) of a storage of its own}}
func.func @symbolic_layout_not_dense(%x: tensor<s0xf32> {aot.layout = #aot.layout<storage = 0, strides = [2], offset = 0>}) -> tensor<s0xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = (s0*2)>]} {
  return %x : tensor<s0xf32>
}
