// The same TwoTensor passed twice and mutated through one of them
// (upstream refuses mutated duplicates of subclasses, pytorch#114975).
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<4xf32>>, %y: !aot.subclass<@TwoTensor, tensor<4xf32>>) -> !aot.subclass<@TwoTensor, tensor<4xf32>> {
  %c = tensor.constant dense<3.0> : tensor<4xf32>
  mut.mul_ %x, %c : !aot.subclass<@TwoTensor, tensor<4xf32>>, tensor<4xf32>
  %0 = tensor.add %y, %x : !aot.subclass<@TwoTensor, tensor<4xf32>>
  return %0 : !aot.subclass<@TwoTensor, tensor<4xf32>>
}
