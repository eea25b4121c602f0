// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @channels(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error@+1 {{'tensor.conv' op the weight must have 4 input channels per group (4 / 1 groups), got 3}}
  %0 = tensor.conv %x, %w : tensor<1x4x8xf32>, tensor<4x3x3xf32> -> tensor<1x4x6xf32>
  return
}

// -----

func.func @groups(%x: tensor<1x4x8xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error@+1 {{'tensor.conv' op 4 input and 3 output channels must both divide into 2 groups}}
  %0 = tensor.conv %x, %w {groups = 2} : tensor<1x4x8xf32>, tensor<3x2x3xf32> -> tensor<1x3x6xf32>
  return
}

// -----

func.func @kernel_too_large(%x: tensor<1x1x4xf32>, %w: tensor<1x1x3xf32>) {
  // expected-error@+1 {{'tensor.conv' op kernel size 3 (dilated 5) is larger than the padded input size 4 in spatial dimension 0}}
  %0 = tensor.conv %x, %w {dilation = [2]} : tensor<1x1x4xf32>, tensor<1x1x3xf32> -> tensor<1x1x1xf32>
  return
}

// -----

func.func @stride_zero(%x: tensor<1x1x4xf32>, %w: tensor<1x1x3xf32>) {
  // expected-error@+1 {{'tensor.conv' op 'stride' entries must be at least 1, got 0}}
  %0 = tensor.conv %x, %w {stride = [0]} : tensor<1x1x4xf32>, tensor<1x1x3xf32> -> tensor<1x1x2xf32>
  return
}

// -----

func.func @attr_rank(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error@+1 {{'tensor.conv' op 'padding' must have 2 entries (one per spatial dimension), got 1}}
  %0 = tensor.conv %x, %w {padding = [1]} : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @padding_overflow(%x: tensor<1x1x4xf32>, %w: tensor<1x1x3xf32>) {
  // expected-error@+1 {{'tensor.conv' op padded size overflows}}
  %0 = tensor.conv %x, %w {padding = [9223372036854775807]} : tensor<1x1x4xf32>, tensor<1x1x3xf32> -> tensor<1x1x4xf32>
  return
}

// -----

func.func @integer(%x: tensor<1x1x4xi32>, %w: tensor<1x1x3xi32>) {
  // expected-error@+1 {{'tensor.conv' op a convolution requires a floating point element type, got i32}}
  %0 = tensor.conv %x, %w : tensor<1x1x4xi32>, tensor<1x1x3xi32> -> tensor<1x1x2xi32>
  return
}

// -----

func.func @bias(%x: tensor<1x2x4xf32>, %w: tensor<2x1x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.conv' op the bias must have shape [2], got tensor<3xf32>}}
  %0 = tensor.conv %x, %w, %b {groups = 2} : tensor<1x2x4xf32>, tensor<2x1x3xf32>, tensor<3xf32> -> tensor<1x2x2xf32>
  return
}

// -----

func.func @rank(%x: tensor<2x4xf32>, %w: tensor<2x4xf32>) {
  // expected-error@+1 {{'tensor.conv' op operands must be [N, C, *spatial] with at least one spatial dimension, got rank 2}}
  %0 = tensor.conv %x, %w : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @input_grad_shape(%g: tensor<1x2x5xf32>, %w: tensor<2x1x3xf32>) {
  // expected-error@+1 {{'tensor.conv_input_grad' op the output gradient must have shape [1, 2, 4] for input [1, 2, 6], got tensor<1x2x5xf32>}}
  %0 = tensor.conv_input_grad %g, %w {groups = 2, input_shape = [1, 2, 6]} : tensor<1x2x5xf32>, tensor<2x1x3xf32> -> tensor<1x2x6xf32>
  return
}

// -----

func.func @weight_grad_kernel(%g: tensor<1x2x4xf32>, %x: tensor<1x2x6xf32>) {
  // expected-error@+1 {{'tensor.conv_weight_grad' op 'kernel_size' must have 1 entries and the output gradient rank 3}}
  %0 = tensor.conv_weight_grad %g, %x {groups = 2, kernel_size = [3, 3]} : tensor<1x2x4xf32>, tensor<1x2x6xf32> -> tensor<2x1x3x3xf32>
  return
}

// -----

func.func @missing_input_shape(%g: tensor<1x2x4xf32>, %w: tensor<2x1x3xf32>) {
  // expected-error@+1 {{'tensor.conv_input_grad' op requires attribute 'input_shape'}}
  %0 = tensor.conv_input_grad %g, %w {groups = 2} : tensor<1x2x4xf32>, tensor<2x1x3xf32> -> tensor<1x2x6xf32>
  return
}
