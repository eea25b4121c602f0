// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @uniform_int() {
  // expected-error@+1 {{'rng.uniform' op result must be a floating point tensor}}
  %0 = rng.uniform : tensor<4xi64>
  return
}

// -----

func.func @uniform_bounds() {
  // expected-error@+1 {{'rng.uniform' op low (2) must not exceed high (1)}}
  %0 = rng.uniform {low = 2.0, high = 1.0} : tensor<4xf32>
  return
}

// -----

func.func @normal_std() {
  // expected-error@+1 {{'rng.normal' op std must be non-negative}}
  %0 = rng.normal {std = -1.0} : tensor<4xf32>
  return
}

// -----

func.func @bernoulli_int(%p: tensor<4xi64>) {
  // expected-error@+1 {{'rng.bernoulli' op bernoulli requires a floating point element type, got i64}}
  %0 = rng.bernoulli %p : tensor<4xi64>
  return
}

// -----

func.func @dropout_p(%x: tensor<4xf32>) {
  // expected-error@+1 {{'rng.dropout' op dropout probability has to be between 0 and 1, but got 1.5}}
  %0:2 = rng.dropout %x {p = 1.5} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  return
}

// -----

func.func @dropout_mask(%x: tensor<4xf32>) {
  // expected-error@+1 {{'rng.dropout' op inferred type(s) 'tensor<4xf32>, tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>, tensor<4xf32>'}}
  %0:2 = rng.dropout %x : tensor<4xf32> -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @philox_seed(%s: tensor<1xi64>, %o: tensor<i64>) {
  // expected-error@+1 {{'rng.philox_uniform' op seed must be a tensor<i64>}}
  %0 = rng.philox_uniform %s, %o : tensor<1xi64>, tensor<i64> -> tensor<4xf32>
  return
}

// -----

func.func @philox_offset(%s: tensor<i64>, %o: tensor<i32>, %x: tensor<4xf32>) {
  // expected-error@+1 {{'rng.philox_dropout' op offset must be a tensor<i64>, got tensor<i32>}}
  %0:2 = rng.philox_dropout %s, %o, %x : tensor<i64>, tensor<i32>, tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  return
}

// -----

func.func @philox_bernoulli_arity(%s: tensor<i64>, %o: tensor<i64>) {
  // expected-error@+1 {{'rng.philox_bernoulli' op expected 3 operands, but found 2}}
  %0 = "rng.philox_bernoulli"(%s, %o) : (tensor<i64>, tensor<i64>) -> tensor<4xf32>
  return
}
