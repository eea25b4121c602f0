// A scalar argument grows its storage (resize_ to two elements), fills it and is
// then set_ onto another argument's storage. The epilogue writes the old storage's
// value back at the argument's initial layout, read out of the grown storage (a
// copy of the whole two elements into the scalar did not verify).
func.func @main(%arg0: tensor<f32>, %arg1: tensor<2x2xf32>) -> (tensor<f32>) {
  %v0 = "mut.resize_"(%arg0) {size = [2]} : (tensor<f32>) -> tensor<2xf32>
  "mut.fill_"(%v0) {value = -0.64 : f64} : (tensor<2xf32>) -> ()
  %v2 = "mut.set_"(%v0, %arg1) : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %v3 = "tensor.full"() {value = 0.09 : f64} : () -> tensor<f32>
  return %v3 : tensor<f32>
}
