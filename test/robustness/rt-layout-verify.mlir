// Reproducers panic_overlap_rs_48_layout_strides_shorter_than_rank and
// panic_overlap_rs_57_layout_strides_empty, and the layouts whose extent
// wrapped (panic_buffer_rs_*, signal_SIGSEGV_cranelift_input_view_stride_overflow):
// the calling-convention attributes are verified once, by func.func.
// RUN: aot-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{'func.func' op argument 0: 'aot.layout' has 2 strides for a tensor of rank 3}}
func.func @short(%a: tensor<4x3x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [4, 1]>}) -> tensor<4x3x2xf32> {
  return %a : tensor<4x3x2xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 0: 'aot.layout' has 0 strides for a tensor of rank 2}}
func.func @empty(%a: tensor<4x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = []>}) -> tensor<4x3xf32> {
  return %a : tensor<4x3xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 0: 'aot.layout' addresses storage elements beyond the 64-bit range}}
func.func @wraps(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [4611686018427387904]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 0: 'aot.layout' offset and strides must be non-negative}}
func.func @negative(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [-1]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 1: 'aot.layout' reaches storage element 9, outside its storage of 8 elements}}
func.func @outside(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}, %b: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 6, strides = [1]>}) -> tensor<4xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 8, requires_grad = false>]} {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 1: 'aot.same_as' must name an earlier argument of the same type}}
func.func @same_as_type(%a: tensor<4xf32>, %b: tensor<2xf32> {aot.same_as = 0}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument 0: 'aot.same_as' must name an earlier argument of the same type}}
func.func @same_as_self(%a: tensor<4xf32> {aot.same_as = 0}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A valid shared storage passes.
func.func @ok(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}, %b: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 4, strides = [1]>}) -> tensor<4xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 8, requires_grad = false>]} {
  return %a : tensor<4xf32>
}
