/// view.view of a 0-d tensor to shape [1].
func.func @main(%a: tensor<f32>) -> tensor<1xf32> {
  %0 = view.view %a {shape = [1]} : tensor<f32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
