// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @head_size(%q: tensor<2x4x8xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x5xf32>) {
  // expected-error@+1 {{'tensor.attention' op the key's last dimension must be the query's 8, got 4}}
  %0:2 = tensor.attention %q, %k, %v : tensor<2x4x8xf32>, tensor<2x6x4xf32>, tensor<2x6x5xf32> -> (tensor<2x4x5xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @value_rows(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x5x5xf32>) {
  // expected-error@+1 {{'tensor.attention' op the value must have the key's 6 rows, got 5}}
  %0:2 = tensor.attention %q, %k, %v : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x5x5xf32> -> (tensor<2x4x5xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @batch(%q: tensor<2x4x8xf32>, %k: tensor<3x6x8xf32>, %v: tensor<3x6x5xf32>) {
  // expected-error@+1 {{'tensor.attention' op query, key and value must have the same batch dimensions}}
  %0:2 = tensor.attention %q, %k, %v : tensor<2x4x8xf32>, tensor<3x6x8xf32>, tensor<3x6x5xf32> -> (tensor<2x4x5xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @mask_shape(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>, %m: tensor<4x5xi1>) {
  // expected-error@+1 {{'tensor.attention' op the mask tensor<4x5xi1> does not broadcast to the scores' shape [2, 4, 6]}}
  %0:2 = tensor.attention %q, %k, %v, %m : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<4x5xi1> -> (tensor<2x4x5xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @mask_type(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>, %m: tensor<4x6xf64>) {
  // expected-error@+1 {{'tensor.attention' op the mask must be boolean or f32, got tensor<4x6xf64>}}
  %0:2 = tensor.attention %q, %k, %v, %m : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<4x6xf64> -> (tensor<2x4x5xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @integers(%q: tensor<2x4x8xi32>, %k: tensor<2x6x8xi32>, %v: tensor<2x6x5xi32>) {
  // expected-error@+1 {{'tensor.attention' op}}
  %0:2 = tensor.attention %q, %k, %v : tensor<2x4x8xi32>, tensor<2x6x8xi32>, tensor<2x6x5xi32> -> (tensor<2x4x5xi32>, tensor<2x4xi32>)
  return
}

// -----

func.func @lse(%g: tensor<2x4x5xf32>, %q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>, %o: tensor<2x4x5xf32>, %l: tensor<2x5xf32>) {
  // expected-error@+1 {{'tensor.attention_grad' op the log-sum-exp must be f32 of shape [2, 4], got tensor<2x5xf32>}}
  %0:3 = tensor.attention_grad %g, %q, %k, %v, %o, %l : tensor<2x4x5xf32>, tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<2x4x5xf32>, tensor<2x5xf32> -> (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>)
  return
}
