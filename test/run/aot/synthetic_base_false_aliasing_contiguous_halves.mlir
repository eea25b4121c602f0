/// test_input_mutation_false_aliasing: contiguous halves of a 4x4 (no overlap).
/// Both are mutated; they share a storage but no element, so no synthetic
/// base is needed: the graph is the one for independent inputs.
func.func @main(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<8xf32> {
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<2x4xf32>, tensor<f32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<2x4xf32>, tensor<f32>
  %ac = tensor.clone %a : tensor<2x4xf32>
  %bc = tensor.clone %b : tensor<2x4xf32>
  %av = view.view %ac {shape = [-1]} : tensor<2x4xf32> -> tensor<8xf32>
  %bv = view.view %bc {shape = [-1]} : tensor<2x4xf32> -> tensor<8xf32>
  %0 = tensor.add %av, %bv : tensor<8xf32>
  return %0 : tensor<8xf32>
}
