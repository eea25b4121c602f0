// Reproducer panic_affine_rs_125_zero_size_dim_rng_fusion: fusing over a
// zero-size dim divided by zero; and an empty argument counts as contiguous
// (set_ between empty arguments was refused by native code).
// RUN: aot-run %s --entry rng_fusion --random-inputs 1 --mode compiled --backend cranelift | FileCheck %s --check-prefix=RNG
// RNG: "outputs"
// RNG: "shape": [
// RNG-NEXT: 6,
// RNG-NEXT: 0
func.func @rng_fusion(%x: tensor<6x0xf32>) -> tensor<6x0xf32> {
  %0 = rng.normal {mean = 0.0, std = 1.0} : tensor<6x0xf32>
  %1 = tensor.add %x, %0 : tensor<6x0xf32>
  %2 = tensor.mul %1, %1 : tensor<6x0xf32>
  return %2 : tensor<6x0xf32>
}

// RUN: aot-run %s --entry set_empty --random-inputs 1 --mode compiled --backend cranelift | FileCheck %s --check-prefix=SET
// SET: "outputs"
func.func @set_empty(%a: tensor<2x0x2xf32>, %b: tensor<2x0x2xf32>) -> tensor<2x0x2xf32> {
  %s = mut.set_ %a, %b {aot.no_grad} : tensor<2x0x2xf32>
  %0 = tensor.mul %s, %b : tensor<2x0x2xf32>
  return %0 : tensor<2x0x2xf32>
}
