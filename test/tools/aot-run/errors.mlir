// RUN: not aot-run %s --inputs %S/Inputs/bad-json.json 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: not aot-run %s --inputs %S/Inputs/shape.json 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not aot-run %s --inputs %S/Inputs/count.json 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not aot-run %s --inputs %S/Inputs/leaf.json 2>&1 | FileCheck %s --check-prefix=LEAF
// RUN: not aot-run %s --inputs %S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not aot-run %s --inputs %S/Inputs/does-not-exist.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not aot-run %s 2>&1 | FileCheck %s --check-prefix=NOINPUTS
// RUN: not aot-run %s --inputs %S/Inputs/mutate.json --entry nope 2>&1 | FileCheck %s --check-prefix=ENTRY

// JSON: aot-run: error: malformed JSON: EOF while parsing
// SHAPE: aot-run: error: argument 0: the function expects tensor<2x3xf32>, but the input is a f32 tensor of shape [3]
// COUNT: aot-run: error: argument 0: 'data' has 4 values but shape [2, 3] needs 6
// LEAF: errors.mlir:21:3: error: 'mut.add_' op a view of a leaf Variable that requires grad is being used in an in-place operation.
// KEY: aot-run: error: argument 0: unknown key 'requires_gard'
// MISSING: aot-run: error: could not read inputs '{{.*}}does-not-exist.json'
// NOINPUTS: aot-run: error: give --inputs FILE or --random-inputs SEED
// ENTRY: aot-run: error: no function named '@nope' in the module
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 1, index = 0} : tensor<3x2xf32> -> tensor<3xf32>
  mut.add_ %s, %y : tensor<3xf32>
  %m = tensor.mul %x, %x : tensor<2x3xf32>
  return %t, %m : tensor<3x2xf32>, tensor<2x3xf32>
}
