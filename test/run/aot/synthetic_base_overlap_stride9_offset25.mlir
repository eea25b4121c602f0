/// test_input_mutation_false_aliasing, overlapping: (4,4) views with row
/// stride 9 at offsets 0 and 25 share elements, so both mutations go through one
/// synthetic base (as_strided_scatter in the graph).
func.func @main(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<16xf32> {
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<4x4xf32>, tensor<f32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<4x4xf32>, tensor<f32>
  %ac = tensor.clone %a : tensor<4x4xf32>
  %bc = tensor.clone %b : tensor<4x4xf32>
  %av = view.view %ac {shape = [-1]} : tensor<4x4xf32> -> tensor<16xf32>
  %bv = view.view %bc {shape = [-1]} : tensor<4x4xf32> -> tensor<16xf32>
  %0 = tensor.add %av, %bv : tensor<16xf32>
  return %0 : tensor<16xf32>
}
