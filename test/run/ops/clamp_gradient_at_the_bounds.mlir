// golden: no-fd (inputs exactly at clamp's bounds, where finite differences see half a slope)
// clamp's gradient passes strictly inside [min, max]: PyTorch gives 0 to an
// input equal to a bound (the torch fuzzer, seed 606179, met one after a
// clamp_ under no_grad had written the bound into its argument).
func.func @main(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %a = tensor.clamp %x {min = 0.5, max = 1.0} : tensor<5xf32>
  %b = tensor.clamp %x {min = 0.5} : tensor<5xf32>
  return %a, %b : tensor<5xf32>, tensor<5xf32>
}
