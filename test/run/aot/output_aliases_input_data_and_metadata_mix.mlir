/// Mixed mutations with returned views: a.mul_(2) (data) and b.t_()
/// (metadata); return a.view(4), b.select(0, 0) and b itself.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<3x2xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two : tensor<2x2xf32>, tensor<f32>
  %bt = mut.t_ %b : tensor<2x3xf32> -> tensor<3x2xf32>
  %av = view.view %a {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %bs = view.select %bt {dim = 0, index = 0} : tensor<3x2xf32> -> tensor<2xf32>
  return %av, %bs, %bt : tensor<4xf32>, tensor<2xf32>, tensor<3x2xf32>
}
