// t_ on a TwoTensor input: a metadata mutation applied to each component
// (upstream AOTAutograd refuses metadata mutations of subclass inputs).
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<2x3xf32>>) -> !aot.subclass<@TwoTensor, tensor<3x2xf32>> {
  %0 = mut.t_ %x : !aot.subclass<@TwoTensor, tensor<2x3xf32>> -> !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  %1 = tensor.mul %0, %0 : !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  return %1 : !aot.subclass<@TwoTensor, tensor<3x2xf32>>
}
