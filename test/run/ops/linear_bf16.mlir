/// tensor.linear in bf16 with gradients: the GEMMs read bf16 operands and
/// sum in f32 (an odd depth, 17), each result rounded once.
func.func @main(%x: tensor<2x3x17xbf16>, %w: tensor<5x17xbf16>, %b: tensor<5xbf16>) -> tensor<2x3x5xbf16> {
  %0 = tensor.linear %x, %w, %b : tensor<2x3x17xbf16>, tensor<5x17xbf16>, tensor<5xbf16> -> tensor<2x3x5xbf16>
  return %0 : tensor<2x3x5xbf16>
}
