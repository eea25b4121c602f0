// Two TwoTensor inputs whose components are overlapping views of the same
// storages, one of them mutated (upstream refuses synthetic bases of subclasses).
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>, %y: !aot.subclass<@TwoTensor, tensor<3xf32>>) -> !aot.subclass<@TwoTensor, tensor<3xf32>> {
  %c = tensor.constant dense<1.0> : tensor<3xf32>
  mut.add_ %x, %c : !aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<3xf32>
  %0 = tensor.mul %y, %y : !aot.subclass<@TwoTensor, tensor<3xf32>>
  return %0 : !aot.subclass<@TwoTensor, tensor<3xf32>>
}
