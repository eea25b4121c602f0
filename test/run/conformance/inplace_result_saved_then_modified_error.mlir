// golden: expect-error
// tanh_ saves its result (x itself, after the write); a later add_ changes it.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %x = "tensor.clone"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  "mut.tanh_"(%x) : (tensor<3xf32>) -> ()
  %one = "tensor.full"() {value = 1.0 : f64} : () -> tensor<f32>
  "mut.add_"(%x, %one) : (tensor<3xf32>, tensor<f32>) -> ()
  return %x : tensor<3xf32>
}
