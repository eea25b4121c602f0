// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @padding(%x: tensor<1x1x8xf32>) {
  // expected-error@+1 {{'tensor.max_pool' op padding 2 must be at most half the kernel size 3 (spatial dimension 0)}}
  %0:2 = tensor.max_pool %x {kernel_size = [3], padding = [2]} : tensor<1x1x8xf32> -> (tensor<1x1x4xf32>, tensor<1x1x4xi64>)
  return
}

// -----

func.func @too_small(%x: tensor<1x1x2x8xf32>) {
  // expected-error@+1 {{'tensor.avg_pool' op the output would have size 0 in spatial dimension 0: the input's size 2 is too small for a window of 3 taps (dilation 1, padding 0)}}
  %0 = tensor.avg_pool %x {kernel_size = [3, 3]} : tensor<1x1x2x8xf32> -> tensor<1x1x1x2xf32>
  return
}

// -----

func.func @entries(%x: tensor<1x1x8x8xf32>) {
  // expected-error@+1 {{'tensor.max_pool' op 'stride' must have 2 entries (one per spatial dimension), got 1}}
  %0:2 = tensor.max_pool %x {kernel_size = [2, 2], stride = [2]} : tensor<1x1x8x8xf32> -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @kernel_zero(%x: tensor<1x1x8xf32>) {
  // expected-error@+1 {{'tensor.max_pool' op 'kernel_size' entries must be at least 1, got 0}}
  %0:2 = tensor.max_pool %x {kernel_size = [0]} : tensor<1x1x8xf32> -> (tensor<1x1x4xf32>, tensor<1x1x4xi64>)
  return
}

// -----

func.func @no_kernel(%x: tensor<1x1x8xf32>) {
  // expected-error@+1 {{'tensor.avg_pool' op requires attribute 'kernel_size'}}
  %0 = tensor.avg_pool %x : tensor<1x1x8xf32> -> tensor<1x1x4xf32>
  return
}

// -----

func.func @divisor_zero(%x: tensor<1x1x8xf32>) {
  // expected-error@+1 {{'tensor.avg_pool' op 'divisor_override' must not be zero}}
  %0 = tensor.avg_pool %x {kernel_size = [2], divisor_override = 0} : tensor<1x1x8xf32> -> tensor<1x1x4xf32>
  return
}

// -----

func.func @rank(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.max_pool' op the input must be [N, C, *spatial] with at least one spatial dimension, got rank 2}}
  %0:2 = tensor.max_pool %x {kernel_size = [2]} : tensor<4x8xf32> -> (tensor<4x4xf32>, tensor<4x4xi64>)
  return
}

// -----

func.func @empty_channels(%x: tensor<1x0x8xf32>) {
  // expected-error@+1 {{'tensor.avg_pool' op the input must have non-empty channel and spatial dimensions, got [1, 0, 8]}}
  %0 = tensor.avg_pool %x {kernel_size = [2]} : tensor<1x0x8xf32> -> tensor<1x0x4xf32>
  return
}

// -----

func.func @integers(%x: tensor<1x1x8xi32>) {
  // expected-error@+1 {{'tensor.max_pool' op}}
  %0:2 = tensor.max_pool %x {kernel_size = [2]} : tensor<1x1x8xi32> -> (tensor<1x1x4xi32>, tensor<1x1x4xi64>)
  return
}

// -----

func.func @overflow(%x: tensor<1x1x8xf32>) {
  // expected-error@+1 {{'tensor.max_pool' op the dilated window's extent overflows}}
  %0:2 = tensor.max_pool %x {kernel_size = [3], dilation = [9223372036854775807]} : tensor<1x1x8xf32> -> (tensor<1x1x4xf32>, tensor<1x1x4xi64>)
  return
}

// -----

func.func @indices(%g: tensor<1x1x2xf32>, %i: tensor<1x1x2xi32>) {
  // expected-error@+1 {{'tensor.max_pool_grad' op the indices must be i64 of the output gradient's shape tensor<1x1x2xf32>, got tensor<1x1x2xi32>}}
  %0 = tensor.max_pool_grad %g, %i {input_shape = [1, 1, 4]} : tensor<1x1x2xf32>, tensor<1x1x2xi32> -> tensor<1x1x4xf32>
  return
}

// -----

func.func @grad_shape(%g: tensor<1x1x3xf32>) {
  // expected-error@+1 {{'tensor.avg_pool_grad' op the output gradient must have shape [1, 1, 2] for input [1, 1, 4], got tensor<1x1x3xf32>}}
  %0 = tensor.avg_pool_grad %g {kernel_size = [2], input_shape = [1, 1, 4]} : tensor<1x1x3xf32> -> tensor<1x1x4xf32>
  return
}

// -----

func.func @grad_channels(%g: tensor<1x2x2xf32>, %i: tensor<1x2x2xi64>) {
  // expected-error@+1 {{'tensor.max_pool_grad' op 'input_shape' [1, 3, 4] must have the output gradient's batch and channels, got tensor<1x2x2xf32>}}
  %0 = tensor.max_pool_grad %g, %i {input_shape = [1, 3, 4]} : tensor<1x2x2xf32>, tensor<1x2x2xi64> -> tensor<1x3x4xf32>
  return
}
