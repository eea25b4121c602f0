// as_strided_ of an intermediate that copy_ filled from a 0-d value: the
// base is a broadcast, whose own storage (3 elements) as_strided addresses.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<2x2xf32>) {
  %v0 = "tensor.abs"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  %v1 = "tensor.full"() {value = 0.5 : f64} : () -> tensor<f32>
  %v2 = "tensor.add"(%v0, %v1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %v3 = "tensor.full"() {value = 0.06 : f64} : () -> tensor<f32>
  "mut.copy_"(%v2, %v3) : (tensor<3xf32>, tensor<f32>) -> ()
  %v4 = "mut.as_strided_"(%v2) {size = [2, 2], stride = [0, 1], offset = 0 : i64} : (tensor<3xf32>) -> tensor<2x2xf32>
  return %v4 : tensor<2x2xf32>
}
