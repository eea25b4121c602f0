// `index_select`, `gather` and `scatter_add` take indices in [0, size), as
// PyTorch's do: a negative one is an error (eager mode, the interpreter and
// native code alike), not an element counted from the end. `index_put`
// (advanced indexing, `x[i] = v`) counts a negative index from the end, and
// so does its gradient of the values.
// RUN: not aot-run %s --entry index_select --inputs %S/Inputs/rt-negative-index.json 2>&1 | FileCheck %s --check-prefix=SEL
// RUN: not aot-run %s --entry index_select --inputs %S/Inputs/rt-negative-index.json --mode compiled --backend interp 2>&1 | FileCheck %s --check-prefix=SEL
// RUN: not aot-run %s --entry index_select --inputs %S/Inputs/rt-negative-index.json --mode compiled --backend cranelift 2>&1 | FileCheck %s --check-prefix=SEL
// SEL: rt-negative-index.mlir:[[# @LINE + 2]]:3: error: 'tensor.index_select' op index {{.*}}out of bounds for dimension
func.func @index_select(%x: tensor<4x2xf32>, %i: tensor<2xi64>) -> tensor<2x2xf32> {
  %0 = tensor.index_select %x, %i {dim = 0} : tensor<4x2xf32>, tensor<2xi64> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// RUN: aot-run %s --entry index_put --inputs %S/Inputs/rt-negative-index-put.json --mode compiled --backend cranelift --grad | FileCheck %s --check-prefix=PUT
// RUN: aot-run %s --entry index_put --inputs %S/Inputs/rt-negative-index-put.json --mode compiled --backend interp --grad | FileCheck %s --check-prefix=PUT
// The last row is written (index -1), and each value's gradient is the sum of
// the tangents (ones) of the two rows it was written to.
// PUT: "grads"
// PUT: 2.0
// PUT-NEXT: 2.0
// PUT: "outputs"
// PUT: 5.0
// PUT-NEXT: 7.0
// PUT-NEXT: 1.0
// PUT-NEXT: 1.0
// PUT-NEXT: 1.0
// PUT-NEXT: 1.0
// PUT-NEXT: 5.0
// PUT-NEXT: 7.0
func.func @index_put(%x: tensor<4x2xf32>, %i: tensor<2xi64>, %v: tensor<1x2xf32> {aot.requires_grad}) -> tensor<4x2xf32> {
  %0 = tensor.index_put %x, %i, %v : tensor<4x2xf32>, tensor<2xi64>, tensor<1x2xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
