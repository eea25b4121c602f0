// RUN: aot-opt %s --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --print-generic | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops))' | FileCheck %s --check-prefix=LOOPS
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(aot-train)' | FileCheck %s --check-prefix=JOINT

/// A depthwise 7x7 convolution with a bias: the attributes round-trip, and
/// the lowering pads the input once, then sums the 49 taps in one kernel
/// body (no im2col buffer, no matrix product).
// CHECK-LABEL: func.func @depthwise
// CHECK: tensor.conv %arg0, %arg1, %arg2 {groups = 4, padding = [3, 3]} : tensor<2x4x8x8xf32>, tensor<4x1x7x7xf32>, tensor<4xf32> -> tensor<2x4x8x8xf32>
// LOOPS-LABEL: func.func @depthwise
// LOOPS: loop.alloc : memref<2x4x14x14xf32>
// LOOPS: loop.kernel "zero_
// LOOPS: loop.kernel "copy_
// LOOPS: loop.kernel "conv_
// LOOPS-COUNT-49: loop.load {{.*}}memref<4x1x7x7xf32>
// LOOPS-NOT: loop.matmul
// LOOPS: return
// JOINT-LABEL: func.func @depthwise
// JOINT-DAG: tensor.conv_input_grad {{.*}}input_shape = array<i64: 2, 4, 8, 8>
// JOINT-DAG: tensor.conv_weight_grad {{.*}}kernel_size = array<i64: 7, 7>
func.func @depthwise(%x: tensor<2x4x8x8xf32> {aot.requires_grad}, %w: tensor<4x1x7x7xf32> {aot.requires_grad}, %b: tensor<4xf32> {aot.requires_grad}) -> tensor<2x4x8x8xf32> {
  %0 = tensor.conv %x, %w, %b {padding = [3, 3], groups = 4} : tensor<2x4x8x8xf32>, tensor<4x1x7x7xf32>, tensor<4xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

/// The derivative ops carry what their operands do not tell: the input's
/// shape, the kernel's size.
// CHECK-LABEL: func.func @grads
// CHECK: tensor.conv_input_grad %arg0, %arg1 {groups = 2, input_shape = [1, 4, 9], stride = [2]} : tensor<1x6x4xf32>, tensor<6x2x3xf32> -> tensor<1x4x9xf32>
// CHECK: tensor.conv_weight_grad %arg0, %arg2 {groups = 2, kernel_size = [3], stride = [2]} : tensor<1x6x4xf32>, tensor<1x4x9xf32> -> tensor<6x2x3xf32>
// Two input channels per group: the input gradient is a GEMM into columns
// and col2im, the weight gradient im2col and a GEMM.
// LOOPS-LABEL: func.func @grads
// LOOPS: loop.matmul {{.*}}, memref<2x6x4xf32>{{$}}
// LOOPS: loop.kernel "col2im_
// LOOPS: loop.kernel "im2col_
// LOOPS: loop.matmul {{.*}}memref<2x3x6xf32>
func.func @grads(%g: tensor<1x6x4xf32>, %w: tensor<6x2x3xf32>, %x: tensor<1x4x9xf32>) -> (tensor<1x4x9xf32>, tensor<6x2x3xf32>) {
  %0 = tensor.conv_input_grad %g, %w {stride = [2], groups = 2, input_shape = [1, 4, 9]} : tensor<1x6x4xf32>, tensor<6x2x3xf32> -> tensor<1x4x9xf32>
  %1 = tensor.conv_weight_grad %g, %x {stride = [2], groups = 2, kernel_size = [3]} : tensor<1x6x4xf32>, tensor<1x4x9xf32> -> tensor<6x2x3xf32>
  return %0, %1 : tensor<1x4x9xf32>, tensor<6x2x3xf32>
}

// -----

/// A dense grouped convolution with a bias: the windows copied once into
/// columns, one GEMM per group over both images' positions, then the result
/// moved into place with the bias added. For one image the GEMM writes the
/// result itself, onto the bias.
// CHECK-LABEL: func.func @dense
// LOOPS-LABEL: func.func @dense
// LOOPS: loop.kernel "im2col_
// LOOPS: loop.matmul {{.*}} : memref<2x3x18xf32>, memref<2x18x40xf32>, memref<2x3x40xf32>
// LOOPS: loop.kernel "conv_out_
// LOOPS-NOT: loop.kernel
// LOOPS: return
func.func @dense(%x: tensor<2x4x6x7xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x4x5xf32> {
  %0 = tensor.conv %x, %w, %b {groups = 2} : tensor<2x4x6x7xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<2x6x4x5xf32>
  return %0 : tensor<2x6x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @dense_one_image
// LOOPS-LABEL: func.func @dense_one_image
// LOOPS: loop.kernel "im2col_
// LOOPS: loop.kernel "conv_bias_
// LOOPS: loop.matmul {{.*}} {accumulate} : memref<2x3x18xf32>, memref<2x18x20xf32>, memref<2x3x20xf32>
// LOOPS-NOT: loop.kernel
// LOOPS: return
func.func @dense_one_image(%x: tensor<1x4x6x7xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x5xf32> {
  %0 = tensor.conv %x, %w, %b {groups = 2} : tensor<1x4x6x7xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<1x6x4x5xf32>
  return %0 : tensor<1x6x4x5xf32>
}

// -----

/// A pointwise convolution of a channels-last input reads it in place as
/// the rows of one GEMM per group, `X [N·P, C] · Wᵀ`, onto the preloaded
/// bias: no columns copied, and the result is channels-last too.
// CHECK-LABEL: func.func @pointwise_channels_last
// LOOPS-LABEL: func.func @pointwise_channels_last
// LOOPS-SAME:    -> memref<2x6x3x5xf32, strided<[90, 1, 30, 6], offset: 0>>
// LOOPS-NOT: im2col
// LOOPS: loop.kernel "conv_bias_
// LOOPS: loop.matmul {{.*}} {accumulate} : memref<2x30x2xf32, strided<[2, 4, 1], offset: 0>>, memref<2x2x3xf32, strided<[6, 1, 2], offset: 0>>, memref<2x30x3xf32, strided<[3, 6, 1], offset: 0>>
// LOOPS-NOT: loop.kernel
// LOOPS: return
func.func @pointwise_channels_last(%xl: tensor<2x3x5x4xf32>, %w: tensor<6x2x1x1xf32>, %b: tensor<6xf32>) -> tensor<2x6x3x5xf32> {
  %x = view.permute %xl {dims = [0, 3, 1, 2]} : tensor<2x3x5x4xf32> -> tensor<2x4x3x5xf32>
  %0 = tensor.conv %x, %w, %b {groups = 2} : tensor<2x4x3x5xf32>, tensor<6x2x1x1xf32>, tensor<6xf32> -> tensor<2x6x3x5xf32>
  return %0 : tensor<2x6x3x5xf32>
}

// -----

/// Channel-major, with 64 positions per image: one GEMM `W · Xₙ` per image
/// straight into the result.
// CHECK-LABEL: func.func @pointwise_per_image
// LOOPS-LABEL: func.func @pointwise_per_image
// LOOPS-NOT: loop.kernel
// LOOPS: loop.matmul {{.*}} : memref<2x1x6x4xf32, strided<[0, 24, 4, 1], offset: 0>>, memref<2x1x4x64xf32>, memref<2x1x6x64xf32>
// LOOPS-NOT: loop.kernel
// LOOPS: return
func.func @pointwise_per_image(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x1x1xf32>) -> tensor<2x6x8x8xf32> {
  %0 = tensor.conv %x, %w : tensor<2x4x8x8xf32>, tensor<6x4x1x1xf32> -> tensor<2x6x8x8xf32>
  return %0 : tensor<2x6x8x8xf32>
}

// -----

/// Small maps of several images keep one GEMM over all their positions
/// (per image it would be four columns wide): columns, then the move.
// CHECK-LABEL: func.func @pointwise_small_maps
// LOOPS-LABEL: func.func @pointwise_small_maps
// LOOPS: loop.kernel "im2col_
// LOOPS: loop.matmul {{.*}} : memref<1x6x4xf32>, memref<1x4x8xf32>, memref<1x6x8xf32>
// LOOPS: loop.kernel "conv_out_
func.func @pointwise_small_maps(%x: tensor<2x4x2x2xf32>, %w: tensor<6x4x1x1xf32>) -> tensor<2x6x2x2xf32> {
  %0 = tensor.conv %x, %w : tensor<2x4x2x2xf32>, tensor<6x4x1x1xf32> -> tensor<2x6x2x2xf32>
  return %0 : tensor<2x6x2x2xf32>
}

// -----

/// A squeeze-and-excite convolution over `[N, C, 1, 1]`: the images are
/// the rows of one GEMM.
// CHECK-LABEL: func.func @pointwise_squeeze
// LOOPS-LABEL: func.func @pointwise_squeeze
// LOOPS-NOT: im2col
// LOOPS: loop.kernel "conv_bias_
// LOOPS: loop.matmul {{.*}} {accumulate} : memref<1x2x4xf32>, memref<1x4x6xf32, strided<[24, 1, 4], offset: 0>>, memref<1x2x6xf32>
// LOOPS-NOT: loop.kernel
// LOOPS: return
func.func @pointwise_squeeze(%x: tensor<2x4x1x1xf32>, %w: tensor<6x4x1x1xf32>, %b: tensor<6xf32>) -> tensor<2x6x1x1xf32> {
  %0 = tensor.conv %x, %w, %b : tensor<2x4x1x1xf32>, tensor<6x4x1x1xf32>, tensor<6xf32> -> tensor<2x6x1x1xf32>
  return %0 : tensor<2x6x1x1xf32>
}

// -----

/// A pointwise convolution's gradients from channels-last operands, where
/// they lie: `dX = dY·W` per group into a channels-last result, `dW =
/// dYᵀ·X` over every row.
// CHECK-LABEL: func.func @pointwise_grads_rows
// LOOPS-LABEL: func.func @pointwise_grads_rows
// LOOPS-SAME:    -> (memref<2x4x3x5xf32, strided<[60, 1, 20, 4], offset: 0>>, memref<6x2x1x1xf32>)
// LOOPS-NOT: loop.kernel
// LOOPS: loop.matmul {{.*}} : memref<2x30x3xf32, strided<[3, 6, 1], offset: 0>>, memref<2x3x2xf32>, memref<2x30x2xf32, strided<[2, 4, 1], offset: 0>>
// LOOPS: loop.matmul {{.*}} : memref<2x3x30xf32, strided<[3, 1, 6], offset: 0>>, memref<2x30x2xf32, strided<[2, 4, 1], offset: 0>>, memref<2x3x2xf32>
// LOOPS-NOT: loop.kernel
// LOOPS: return
func.func @pointwise_grads_rows(%gl: tensor<2x3x5x6xf32>, %w: tensor<6x2x1x1xf32>, %xl: tensor<2x3x5x4xf32>) -> (tensor<2x4x3x5xf32>, tensor<6x2x1x1xf32>) {
  %g = view.permute %gl {dims = [0, 3, 1, 2]} : tensor<2x3x5x6xf32> -> tensor<2x6x3x5xf32>
  %x = view.permute %xl {dims = [0, 3, 1, 2]} : tensor<2x3x5x4xf32> -> tensor<2x4x3x5xf32>
  %0 = tensor.conv_input_grad %g, %w {groups = 2, input_shape = [2, 4, 3, 5]} : tensor<2x6x3x5xf32>, tensor<6x2x1x1xf32> -> tensor<2x4x3x5xf32>
  %1 = tensor.conv_weight_grad %g, %x {groups = 2, kernel_size = [1, 1]} : tensor<2x6x3x5xf32>, tensor<2x4x3x5xf32> -> tensor<6x2x1x1xf32>
  return %0, %1 : tensor<2x4x3x5xf32>, tensor<6x2x1x1xf32>
}

// -----

/// Channel-major with 64 positions per image: `dX = Wᵀ·dYₙ` per image, and
/// `dW` the per-image products added up onto zeros (no columns, no col2im).
// CHECK-LABEL: func.func @pointwise_grads_images
// LOOPS-LABEL: func.func @pointwise_grads_images
// LOOPS-NOT: loop.kernel
// LOOPS: loop.matmul {{.*}} : memref<2x1x4x6xf32, strided<[0, 24, 1, 4], offset: 0>>, memref<2x1x6x64xf32>, memref<2x1x4x64xf32>
// LOOPS: loop.kernel "zero_
// LOOPS: loop.matmul {{.*}} {accumulate} : memref<2x1x6x64xf32>, memref<2x1x64x4xf32, strided<[256, 256, 1, 64], offset: 0>>, memref<2x1x6x4xf32, strided<[0, 24, 4, 1], offset: 0>>
// LOOPS-NOT: loop.kernel
// LOOPS: return
func.func @pointwise_grads_images(%g: tensor<2x6x8x8xf32>, %w: tensor<6x4x1x1xf32>, %x: tensor<2x4x8x8xf32>) -> (tensor<2x4x8x8xf32>, tensor<6x4x1x1xf32>) {
  %0 = tensor.conv_input_grad %g, %w {input_shape = [2, 4, 8, 8]} : tensor<2x6x8x8xf32>, tensor<6x4x1x1xf32> -> tensor<2x4x8x8xf32>
  %1 = tensor.conv_weight_grad %g, %x {kernel_size = [1, 1]} : tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<6x4x1x1xf32>
  return %0, %1 : tensor<2x4x8x8xf32>, tensor<6x4x1x1xf32>
}
