// A slice with a huge step addresses one element: no overflow.
// RUN: aot-run %s --entry huge_step --random-inputs 3 --mode compiled --backend cranelift | FileCheck %s --check-prefix=STEP
// STEP: "outputs"
// STEP: -0.7663489580154419
func.func @huge_step(%x: tensor<4xf32>) -> tensor<1xf32> {
  %v = view.slice %x {dim = 0, start = 1, end = 4, step = 9223372036854775807} : tensor<4xf32> -> tensor<1xf32>
  %c = tensor.clone %v : tensor<1xf32>
  return %c : tensor<1xf32>
}
