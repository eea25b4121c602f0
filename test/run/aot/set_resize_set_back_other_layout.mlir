/// set_ away and back onto the original storage but through a flat view:
/// the storage is unchanged, the metadata is not (2x2 -> 4).
func.func @main(%x: tensor<2x2xf32>, %other: tensor<3xf32>) -> tensor<4xf32> {
  %flat = view.view %x {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %a = mut.set_ %x, %other : tensor<2x2xf32>, tensor<3xf32> -> tensor<3xf32>
  %b = mut.set_ %a, %flat : tensor<3xf32>, tensor<4xf32> -> tensor<4xf32>
  %0 = tensor.neg %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
