/// test_input_mutation_false_aliasing: a is (2,4,3) with strides
/// (110,24,4) at offset 5 (last element 195), b is contiguous from 196:
/// no overlap, no synthetic base.
func.func @main(%a: tensor<2x4x3xf32>, %b: tensor<24xf32>) -> tensor<24xf32> {
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<2x4x3xf32>, tensor<f32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<24xf32>, tensor<f32>
  %ac = tensor.clone %a : tensor<2x4x3xf32>
  %av = view.view %ac {shape = [-1]} : tensor<2x4x3xf32> -> tensor<24xf32>
  %bc = tensor.clone %b : tensor<24xf32>
  %0 = tensor.add %av, %bc : tensor<24xf32>
  return %0 : tensor<24xf32>
}
