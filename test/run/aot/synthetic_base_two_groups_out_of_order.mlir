/// f(a, c.view(-1), b.view(-1), b, c, d) from AOTAutograd's docs: two
/// storages, both mutated through one view; the synthetic bases come first,
/// ordered by first appearance (c's, then b's), then a and d.
func.func @main(%a: tensor<2xf32>, %c1: tensor<4xf32>, %b1: tensor<6xf32>, %b: tensor<2x3xf32>, %c: tensor<2x2xf32>, %d: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>, tensor<2xf32>) {
  mut.add_ %c1, %c1 : tensor<4xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<2x3xf32>, tensor<f32>
  %0 = tensor.mul %a, %d : tensor<2xf32>
  %1 = tensor.sin %c : tensor<2x2xf32>
  %2 = view.view %b1 {shape = [2, 3]} : tensor<6xf32> -> tensor<2x3xf32>
  %3 = tensor.add %2, %b : tensor<2x3xf32>
  return %1, %3, %0 : tensor<2x2xf32>, tensor<2x3xf32>, tensor<2xf32>
}
