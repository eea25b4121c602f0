// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s

/// Binary elementwise ops, with broadcasting and without.
// CHECK-LABEL: func.func @binary
// CHECK: tensor.add %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK: tensor.sub %arg0, %arg0 : tensor<2x3xf32>
// CHECK: tensor.mul %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK: tensor.div %arg0, %arg0 : tensor<2x3xf32>
// CHECK: tensor.pow %arg0, %arg0 : tensor<2x3xf32>
// CHECK: tensor.maximum %arg0, %arg0 : tensor<2x3xf32>
// CHECK: tensor.minimum %arg1, %arg0 : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %0 = tensor.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = tensor.sub %a, %a : tensor<2x3xf32>
  %2 = tensor.mul %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %3 = tensor.div %a, %a : tensor<2x3xf32>
  %4 = tensor.pow %a, %a : tensor<2x3xf32>
  %5 = tensor.maximum %a, %a : tensor<2x3xf32>
  %6 = tensor.minimum %b, %a : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

/// Comparisons produce i1; where selects with three-way broadcasting; fmod
/// and remainder broadcast like the arithmetic ops.
// CHECK-LABEL: func.func @compare_where
// CHECK: %[[EQ:.*]] = tensor.eq %arg0, %arg1 : tensor<4xi64> -> tensor<4xi1>
// CHECK: tensor.ne %arg0, %arg1 : tensor<4xi64> -> tensor<4xi1>
// CHECK: tensor.lt %arg0, %arg1 : tensor<4xi64> -> tensor<4xi1>
// CHECK: tensor.le %arg0, %arg1 : tensor<4xi64> -> tensor<4xi1>
// CHECK: tensor.gt %arg0, %arg1 : tensor<4xi64> -> tensor<4xi1>
// CHECK: tensor.ge %arg0, %arg1 : tensor<4xi64> -> tensor<4xi1>
// CHECK: tensor.where %[[EQ]], %arg2, %arg3 : tensor<4xi1>, tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
// CHECK: tensor.fmod %arg2, %arg3 : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
// CHECK: tensor.remainder %arg2, %arg3 : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
func.func @compare_where(%a: tensor<4xi64>, %b: tensor<4xi64>, %x: tensor<2x4xf32>, %y: tensor<f32>) {
  %0 = tensor.eq %a, %b : tensor<4xi64> -> tensor<4xi1>
  %1 = tensor.ne %a, %b : tensor<4xi64> -> tensor<4xi1>
  %2 = tensor.lt %a, %b : tensor<4xi64> -> tensor<4xi1>
  %3 = tensor.le %a, %b : tensor<4xi64> -> tensor<4xi1>
  %4 = tensor.gt %a, %b : tensor<4xi64> -> tensor<4xi1>
  %5 = tensor.ge %a, %b : tensor<4xi64> -> tensor<4xi1>
  %6 = tensor.where %0, %x, %y : tensor<4xi1>, tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
  %7 = tensor.fmod %x, %y : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
  %8 = tensor.remainder %x, %y : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
  return
}

/// A fused multiply-add broadcasts its three operands; half types are
/// accepted (computed in f32, rounded once).
// CHECK-LABEL: func.func @fma
// CHECK: tensor.fma %arg0, %arg1, %arg2 : tensor<2x4xf32>, tensor<f32>, tensor<4xf32> -> tensor<2x4xf32>
// CHECK: tensor.fma %arg3, %arg3, %arg3 : tensor<3xbf16>
// CHECK: tensor.lerp %arg0, %arg2, %arg1 : tensor<2x4xf32>, tensor<4xf32>, tensor<f32> -> tensor<2x4xf32>
// CHECK: tensor.lerp %arg3, %arg3 {weight = 0.3} : tensor<3xbf16>
func.func @fma(%a: tensor<2x4xf32>, %b: tensor<f32>, %c: tensor<4xf32>, %h: tensor<3xbf16>) {
  %0 = tensor.fma %a, %b, %c : tensor<2x4xf32>, tensor<f32>, tensor<4xf32> -> tensor<2x4xf32>
  %1 = tensor.fma %h, %h, %h : tensor<3xbf16>
  %2 = tensor.lerp %a, %c, %b : tensor<2x4xf32>, tensor<4xf32>, tensor<f32> -> tensor<2x4xf32>
  %3 = tensor.lerp %h, %h {weight = 0.3} : tensor<3xbf16>
  return
}

/// A clamp with tensor bounds broadcasts its three operands, integers too.
// CHECK-LABEL: func.func @clamp_tensor
// CHECK: tensor.clamp_tensor %arg0, %arg1, %arg2 : tensor<2x4xf32>, tensor<4xf32>, tensor<f32> -> tensor<2x4xf32>
// CHECK: tensor.clamp_tensor %arg3, %arg3, %arg3 : tensor<3xi64>
// CHECK: tensor.glu %arg0, %arg1 : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
// CHECK: tensor.bce_logits %arg0, %arg1 : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
func.func @clamp_tensor(%x: tensor<2x4xf32>, %lo: tensor<4xf32>, %hi: tensor<f32>, %i: tensor<3xi64>) {
  %0 = tensor.clamp_tensor %x, %lo, %hi : tensor<2x4xf32>, tensor<4xf32>, tensor<f32> -> tensor<2x4xf32>
  %1 = tensor.clamp_tensor %i, %i, %i : tensor<3xi64>
  %2 = tensor.glu %x, %lo : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %3 = tensor.bce_logits %x, %lo : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return
}

/// Unary elementwise ops.
// CHECK-LABEL: func.func @unary
// CHECK-COUNT-30: : tensor<3xf32>
// CHECK: tensor.gelu %arg0 {approximate = "tanh"} : tensor<3xf32>
// CHECK: tensor.clamp %arg0 {max = 1.0, min = -1.0} : tensor<3xf32>
// CHECK: tensor.clamp %arg0 {min = 0} : tensor<3xf32>
// CHECK: tensor.pow_scalar %arg0 {exponent = 3.0} : tensor<3xf32>
// CHECK: tensor.pow_scalar %arg0 {exponent = -0.5} : tensor<3xf32>
// CHECK: tensor.neg %arg1 : tensor<3xi32>
func.func @unary(%x: tensor<3xf32>, %i: tensor<3xi32>) {
  %0 = tensor.neg %x : tensor<3xf32>
  %1 = tensor.abs %x : tensor<3xf32>
  %2 = tensor.exp %x : tensor<3xf32>
  %3 = tensor.log %x : tensor<3xf32>
  %4 = tensor.log1p %x : tensor<3xf32>
  %40 = tensor.expm1 %x : tensor<3xf32>
  %41 = tensor.floor %x : tensor<3xf32>
  %42 = tensor.ceil %x : tensor<3xf32>
  %43 = tensor.trunc %x : tensor<3xf32>
  %44 = tensor.round %x : tensor<3xf32>
  %5 = tensor.sqrt %x : tensor<3xf32>
  %6 = tensor.rsqrt %x : tensor<3xf32>
  %7 = tensor.reciprocal %x : tensor<3xf32>
  %8 = tensor.sin %x : tensor<3xf32>
  %9 = tensor.cos %x : tensor<3xf32>
  %10 = tensor.tanh %x : tensor<3xf32>
  %11 = tensor.sigmoid %x : tensor<3xf32>
  %45 = tensor.silu %x : tensor<3xf32>
  %46 = tensor.hardswish %x : tensor<3xf32>
  %47 = tensor.hardsigmoid %x : tensor<3xf32>
  %90 = tensor.mish %x : tensor<3xf32>
  %91 = tensor.logit %x : tensor<3xf32>
  %92 = tensor.logit %x {eps = 1.0e-3} : tensor<3xf32>
  %50 = tensor.elu %x {alpha = 2.0, input_scale = 0.5} : tensor<3xf32>
  %51 = tensor.softplus %x {beta = 2.0, threshold = 10.0} : tensor<3xf32>
  %52 = tensor.log_sigmoid %x : tensor<3xf32>
  %12 = tensor.relu %x : tensor<3xf32>
  %13 = tensor.erf %x : tensor<3xf32>
  %14 = tensor.sign %x : tensor<3xf32>
  %15 = tensor.gelu %x : tensor<3xf32>
  %16 = tensor.gelu %x {approximate = "tanh"} : tensor<3xf32>
  %17 = tensor.clamp %x {min = -1.0, max = 1.0} : tensor<3xf32>
  %18 = tensor.clamp %x {min = 0 : i64} : tensor<3xf32>
  %48 = tensor.pow_scalar %x {exponent = 3.0} : tensor<3xf32>
  %49 = tensor.pow_scalar %x {exponent = -0.5} : tensor<3xf32>
  %19 = tensor.neg %i : tensor<3xi32>
  return
}

/// Casts take their element type from the result.
// CHECK-LABEL: func.func @casts
// CHECK: tensor.cast %arg0 : tensor<2xf32> -> tensor<2xi64>
// CHECK: tensor.cast %arg0 : tensor<2xf32> -> tensor<2xbf16>
// CHECK: tensor.cast %arg0 : tensor<2xf32> -> tensor<2xi1>
func.func @casts(%x: tensor<2xf32>) {
  %0 = tensor.cast %x : tensor<2xf32> -> tensor<2xi64>
  %1 = tensor.cast %x : tensor<2xf32> -> tensor<2xbf16>
  %2 = tensor.cast %x : tensor<2xf32> -> tensor<2xi1>
  return
}

/// Running sums: forward and from the end, integers and bools in i64, 0-d.
// CHECK-LABEL: func.func @cumsum
// CHECK: tensor.cumsum %arg0 {dim = 1} : tensor<2x3xf32>
// CHECK: tensor.cumsum %arg0 {dim = -2, reverse} : tensor<2x3xf32>
// CHECK: tensor.cumsum %arg1 {dim = 0} : tensor<4xi1> -> tensor<4xi64>
// CHECK: tensor.cumsum %arg2 {dim = 0} : tensor<f64>
func.func @cumsum(%x: tensor<2x3xf32>, %b: tensor<4xi1>, %s: tensor<f64>) {
  %0 = tensor.cumsum %x {dim = 1} : tensor<2x3xf32>
  %1 = tensor.cumsum %x {dim = -2, reverse} : tensor<2x3xf32>
  %2 = tensor.cumsum %b {dim = 0} : tensor<4xi1> -> tensor<4xi64>
  %3 = tensor.cumsum %s {dim = 0} : tensor<f64>
  return
}

/// Sorting positions: ascending and descending, integers, a 0-d tensor.
// CHECK-LABEL: func.func @argsort
// CHECK: tensor.argsort %arg0 {dim = 1} : tensor<2x3xf32> -> tensor<2x3xi64>
// CHECK: tensor.argsort %arg0 {descending, dim = -2} : tensor<2x3xf32> -> tensor<2x3xi64>
// CHECK: tensor.argsort %arg1 {dim = 0} : tensor<4xi32> -> tensor<4xi64>
// CHECK: tensor.argsort %arg2 {dim = 0} : tensor<f64> -> tensor<i64>
func.func @argsort(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %s: tensor<f64>) {
  %0 = tensor.argsort %x {dim = 1} : tensor<2x3xf32> -> tensor<2x3xi64>
  %1 = tensor.argsort %x {dim = -2, descending} : tensor<2x3xf32> -> tensor<2x3xi64>
  %2 = tensor.argsort %i {dim = 0} : tensor<4xi32> -> tensor<4xi64>
  %3 = tensor.argsort %s {dim = 0} : tensor<f64> -> tensor<i64>
  return
}

/// Reductions: dims (negative allowed), keepdim, all dims, integer sums widen to i64.
// CHECK-LABEL: func.func @reductions
// CHECK: tensor.sum %arg0 {dims = [-1]} : tensor<2x3x4xf32> -> tensor<2x3xf32>
// CHECK: tensor.sum %arg0 {dims = [0, 2], keepdim} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK: tensor.mean %arg0 : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: tensor.amax %arg0 {dims = [1]} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK: tensor.amin %arg0 {dims = [1], keepdim = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK: tensor.var %arg0 {correction = 0, dims = [2]} : tensor<2x3x4xf32> -> tensor<2x3xf32>
// CHECK: tensor.argmax %arg0 {dim = 1} : tensor<2x3x4xf32> -> tensor<2x4xi64>
// CHECK: tensor.argmax %arg0 : tensor<2x3x4xf32> -> tensor<i64>
// CHECK: tensor.sum %arg1 : tensor<5xi1> -> tensor<i64>
// CHECK: tensor.prod %arg0 {dims = [0, 2], keepdim} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK: tensor.amax %arg0 {nan_selects} : tensor<2x3x4xf32> -> tensor<f32>
func.func @reductions(%x: tensor<2x3x4xf32>, %b: tensor<5xi1>) {
  %0 = tensor.sum %x {dims = [-1]} : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %1 = tensor.sum %x {dims = [0, 2], keepdim} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %2 = tensor.mean %x : tensor<2x3x4xf32> -> tensor<f32>
  %3 = tensor.amax %x {dims = [1]} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %4 = tensor.amin %x {dims = [1], keepdim = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %5 = tensor.var %x {dims = [2], correction = 0} : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %6 = tensor.argmax %x {dim = 1} : tensor<2x3x4xf32> -> tensor<2x4xi64>
  %7 = tensor.argmax %x : tensor<2x3x4xf32> -> tensor<i64>
  %8 = tensor.sum %b : tensor<5xi1> -> tensor<i64>
  %9 = tensor.prod %x {dims = [0, 2], keepdim} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %10 = tensor.amax %x {nan_selects} : tensor<2x3x4xf32> -> tensor<f32>
  return
}

/// Softmax, log-softmax and layer norm (with and without affine parameters).
// CHECK-LABEL: func.func @normalization
// CHECK: tensor.softmax %arg0 {dim = -1} : tensor<4x8xf32>
// CHECK: tensor.log_softmax %arg0 {dim = 0} : tensor<4x8xf32>
// CHECK: %{{.*}}:3 = tensor.layer_norm %arg0, %arg1, %arg2 {eps = 1.0e-5, normalized_ndim = 1} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK: %{{.*}}:3 = tensor.layer_norm %arg0 {normalized_ndim = 2} : tensor<4x8xf32> -> (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
func.func @normalization(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) {
  %0 = tensor.softmax %x {dim = -1} : tensor<4x8xf32>
  %1 = tensor.log_softmax %x {dim = 0} : tensor<4x8xf32>
  %2:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 1, eps = 1.0e-5} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  %3:3 = tensor.layer_norm %x {normalized_ndim = 2} : tensor<4x8xf32> -> (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  return
}

/// The matmul family.
// CHECK-LABEL: func.func @matmuls
// CHECK: tensor.mm %arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK: tensor.bmm %arg2, %arg3 : tensor<5x2x3xf32>, tensor<5x3x4xf32> -> tensor<5x2x4xf32>
// CHECK: tensor.matmul %arg2, %arg1 : tensor<5x2x3xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
// CHECK: tensor.matmul %arg4, %arg1 : tensor<3xf32>, tensor<3x4xf32> -> tensor<4xf32>
// CHECK: tensor.matmul %arg4, %arg4 : tensor<3xf32> -> tensor<f32>
// CHECK: tensor.linear %arg0, %arg5, %arg6 : tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
// CHECK: tensor.linear %arg2, %arg5 : tensor<5x2x3xf32>, tensor<4x3xf32> -> tensor<5x2x4xf32>
func.func @matmuls(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %ba: tensor<5x2x3xf32>, %bb: tensor<5x3x4xf32>, %v: tensor<3xf32>, %w: tensor<4x3xf32>, %bias: tensor<4xf32>) {
  %0 = tensor.mm %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %1 = tensor.bmm %ba, %bb : tensor<5x2x3xf32>, tensor<5x3x4xf32> -> tensor<5x2x4xf32>
  %2 = tensor.matmul %ba, %b : tensor<5x2x3xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
  %3 = tensor.matmul %v, %b : tensor<3xf32>, tensor<3x4xf32> -> tensor<4xf32>
  %4 = tensor.matmul %v, %v : tensor<3xf32> -> tensor<f32>
  %5 = tensor.linear %a, %w, %bias : tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %6 = tensor.linear %ba, %w : tensor<5x2x3xf32>, tensor<4x3xf32> -> tensor<5x2x4xf32>
  return
}

/// Indexing ops.
// CHECK-LABEL: func.func @indexing
// CHECK: tensor.embedding %arg0, %arg1 : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
// CHECK: tensor.gather %arg2, %arg3 {dim = 1} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
// CHECK: tensor.index_select %arg2, %arg4 {dim = -1} : tensor<3x4xf32>, tensor<5xi64> -> tensor<3x5xf32>
// CHECK: tensor.scatter_add %arg2, %arg3, %arg5 {dim = 1} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32> -> tensor<3x4xf32>
// CHECK: tensor.index_put %arg2, %arg4, %arg6 {accumulate} : tensor<3x4xf32>, tensor<5xi64>, tensor<4xf32> -> tensor<3x4xf32>
func.func @indexing(%w: tensor<10x4xf32>, %i: tensor<2x3xi64>, %x: tensor<3x4xf32>, %g: tensor<3x2xi64>, %s: tensor<5xi64>, %src: tensor<3x2xf32>, %row: tensor<4xf32>) {
  %0 = tensor.embedding %w, %i : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  %1 = tensor.gather %x, %g {dim = 1} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  %2 = tensor.index_select %x, %s {dim = -1} : tensor<3x4xf32>, tensor<5xi64> -> tensor<3x5xf32>
  %3 = tensor.scatter_add %x, %g, %src {dim = 1} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32> -> tensor<3x4xf32>
  %4 = tensor.index_put %x, %s, %row {accumulate} : tensor<3x4xf32>, tensor<5xi64>, tensor<4xf32> -> tensor<3x4xf32>
  return
}

/// Concatenation, clone and tensor factories.
// CHECK-LABEL: func.func @factories
// CHECK: tensor.cat %arg0, %arg1, %arg0 {dim = 0} : tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x3xf32> -> tensor<5x3xf32>
// CHECK: tensor.clone %arg1 : tensor<1x3xf32>
// CHECK: tensor.full {value = 2.5} : tensor<2x2xf32>
// CHECK: tensor.full {value = 1.0} : tensor<3xi1>
// CHECK: tensor.fill %arg1 {value = -1.5} : tensor<1x3xf32>
// CHECK: tensor.overwrite %arg1, %{{.*}} : tensor<1x3xf32>{{$}}
// CHECK: tensor.arange {start = 1.0, step = 2.0} : tensor<5xi64>
// CHECK: tensor.arange : tensor<4xf32>
// CHECK: tensor.constant dense<[1, 2]> : tensor<2xi32>
func.func @factories(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  %0 = tensor.cat %a, %b, %a {dim = 0} : tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x3xf32> -> tensor<5x3xf32>
  %1 = tensor.clone %b : tensor<1x3xf32>
  %2 = tensor.full {value = 2.5} : tensor<2x2xf32>
  %3 = tensor.full {value = 1.0} : tensor<3xi1>
  %f = tensor.fill %b {value = -1.5} : tensor<1x3xf32>
  %o = tensor.overwrite %b, %f : tensor<1x3xf32>, tensor<1x3xf32> -> tensor<1x3xf32>
  %4 = tensor.arange {start = 1.0, step = 2.0} : tensor<5xi64>
  %5 = tensor.arange : tensor<4xf32>
  %6 = tensor.constant dense<[1, 2]> : tensor<2xi32>
  return
}

/// A size as a value: a symbolic size's value per call, or a ratio (what
/// mean's gradient scales by over a symbolic dimension).
// CHECK-LABEL: func.func @size_value(
// CHECK:         tensor.size_value {size = array<i64: s0>} : tensor<i64>
// CHECK:         tensor.size_value {numerator = 1.0, size = array<i64: (s0*4)>} : tensor<f32>
// CHECK:         tensor.size_value {size = array<i64: 12>} : tensor<f64>
func.func @size_value(%x: tensor<s0x4xf32>) -> (tensor<i64>, tensor<f32>, tensor<f64>) {
  %0 = tensor.size_value {size = array<i64: s0>} : tensor<i64>
  %1 = tensor.size_value {size = array<i64: (s0*4)>, numerator = 1.0} : tensor<f32>
  %2 = tensor.size_value {size = array<i64: 12>} : tensor<f64>
  return %0, %1, %2 : tensor<i64>, tensor<f32>, tensor<f64>
}
