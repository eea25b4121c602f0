// A three-component class with constant metadata (part of its identity).
aot.subclass @Tagged {inner = ["p", "q", "r"], meta = {scale = 2, tag = "fp8"}}
func.func @main(%t: !aot.subclass<@Tagged, tensor<4xf32>>, %y: tensor<4xf32>) -> !aot.subclass<@Tagged, tensor<4xf32>> {
  %0 = tensor.add %t, %y : !aot.subclass<@Tagged, tensor<4xf32>>, tensor<4xf32> -> !aot.subclass<@Tagged, tensor<4xf32>>
  %1 = tensor.mul %0, %0 : !aot.subclass<@Tagged, tensor<4xf32>>
  return %1 : !aot.subclass<@Tagged, tensor<4xf32>>
}
