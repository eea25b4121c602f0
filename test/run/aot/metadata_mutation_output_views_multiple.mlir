/// test_input_output_view_metadata_mutate_multiple: b.mul_(3); c.t_();
/// return a, b.view(b.shape), c.view(c.shape): outputs alias inputs, the last
/// one after the in-place transpose (strides [1, 3]).
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>) {
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %b, %three : tensor<2x2xf32>, tensor<f32>
  %ct = mut.t_ %c : tensor<2x3xf32> -> tensor<3x2xf32>
  %bv = view.view %b {shape = [2, 2]} : tensor<2x2xf32> -> tensor<2x2xf32>
  %cv = view.view %ct {shape = [3, 2]} : tensor<3x2xf32> -> tensor<3x2xf32>
  return %a, %bv, %cv : tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>
}
