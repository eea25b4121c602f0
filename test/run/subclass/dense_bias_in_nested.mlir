// A dense bias requiring grad added to a nested class's components (three
// leaves): its gradient is a value of that class.
aot.subclass @TwoTensor {inner = ["a", "b"]}
aot.subclass @Nested {inner = ["x", "y"], inner_classes = ["TwoTensor", ""]}
func.func @main(%n: !aot.subclass<@Nested, tensor<5xf32>>, %b: tensor<5xf32>) -> !aot.subclass<@Nested, tensor<5xf32>> {
  %0 = tensor.add %n, %b : !aot.subclass<@Nested, tensor<5xf32>>, tensor<5xf32> -> !aot.subclass<@Nested, tensor<5xf32>>
  %1 = tensor.mul %0, %0 : !aot.subclass<@Nested, tensor<5xf32>>
  return %1 : !aot.subclass<@Nested, tensor<5xf32>>
}
