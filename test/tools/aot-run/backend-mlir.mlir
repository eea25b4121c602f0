// REQUIRES: mlir
// RUN: aot-run %s --inputs %S/Inputs/mutate.json -o %t.eager.json
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-inference --backend mlir -o %t.mlir.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a != b)" %t.eager.json %t.mlir.json
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend mlir --grad | FileCheck %s --check-prefix=GRAD
// RUN: aot-run %s --entry random --inputs %S/Inputs/random.json --mode compiled --pipeline aot-inference --backend mlir --seed 3 -o %t.rand-mlir.json
// RUN: aot-run %s --entry random --inputs %S/Inputs/random.json --mode compiled --pipeline aot-inference --backend cranelift --seed 3 -o %t.rand-native.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a != b)" %t.rand-mlir.json %t.rand-native.json
// RUN: not aot-run %s --entry argmax --random-inputs 0 --mode compiled --backend mlir 2>&1 | FileCheck %s --check-prefix=REFUSED

/// Upstream MLIR's compiler under this runtime's calling convention: the
/// write through the transposed view reaches argument 0, the returned
/// transpose aliases it, and the output file is exactly eager's. Gradients
/// through the mutation and the aliased output match eager's.
// GRAD:      "grads": [
// GRAD-NEXT:   {
// GRAD:          "data": [
// GRAD-NEXT:       24.0,
// GRAD-NEXT:       46.0,
// GRAD-NEXT:       68.0,
// GRAD-NEXT:       10.0,
// GRAD-NEXT:       12.0,
// GRAD-NEXT:       14.0
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 1, index = 0} : tensor<3x2xf32> -> tensor<3xf32>
  mut.add_ %s, %y : tensor<3xf32>
  %m = tensor.mul %x, %x : tensor<2x3xf32>
  return %t, %m : tensor<3x2xf32>, tensor<2x3xf32>
}

/// Random draws through MLIR are the native backend's, bit for bit (the
/// output files are equal).
func.func @random(%x: tensor<4xf32>) -> tensor<4xf32> {
  %u = rng.uniform {high = 1.0, low = 0.0} : tensor<4xf32>
  %r = tensor.add %x, %u : tensor<4xf32>
  return %r : tensor<4xf32>
}

/// An op without an upstream form: a located error naming it.
// REFUSED: backend-mlir.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'tensor.argmax' op 'tensor.argmax' is not exportable to upstream MLIR
func.func @argmax(%x: tensor<4xf32>) -> tensor<i64> {
  %0 = tensor.argmax %x : tensor<4xf32> -> tensor<i64>
  return %0 : tensor<i64>
}
