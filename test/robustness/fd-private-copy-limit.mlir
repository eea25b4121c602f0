// Finite differences perturb a self-overlapping argument (strides [0, 1])
// through a private copy of its elements; a program that reaches the
// storage around the argument fails on that copy, and aot-run reports the
// finite-difference limit rather than the error the copy caused (the torch
// fuzzer, seed 612516). The run without gradients is fine.
// RUN: not aot-run %s --inputs %S/Inputs/fd-private-copy-limit.json --grad 2>&1 | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/fd-private-copy-limit.json | FileCheck %s --check-prefix=PLAIN
// CHECK: aot-run: error: finite differences cannot separate argument 0 from the arguments it overlaps: on a private copy of its elements the program fails: {{.*}}fd-private-copy-limit.mlir:13:3: error: 'view.as_strided' op a view with size [1], stride [1] and offset 4 reaches element 4, outside its storage of 4 elements
// PLAIN: "outputs"
func.func @main(%arg0: tensor<2x2xf32>) -> tensor<1xf32> {
  %c = tensor.full {value = 2.0} : tensor<f32>
  %m = tensor.mul %arg0, %c : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %v = view.as_strided %arg0 {size = [1], stride = [1], offset = 4, aot.no_grad} : tensor<2x2xf32> -> tensor<1xf32>
  %s = tensor.sum %m {dims = [0]} : tensor<2x2xf32> -> tensor<2xf32>
  %t = view.slice %s {dim = 0, start = 0, end = 1, step = 1} : tensor<2xf32> -> tensor<1xf32>
  %r = tensor.add %t, %v : tensor<1xf32>, tensor<1xf32> -> tensor<1xf32>
  return %r : tensor<1xf32>
}
