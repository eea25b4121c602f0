// copy_ of a constant into an intermediate that requires grad, both returned:
// value semantics computes them as one value, but they are two tensors with their
// own requires_grad (and storage).
func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %v0 = "tensor.gelu"(%arg0) {approximate = "tanh"} : (tensor<2xf32>) -> tensor<2xf32>
  %v1 = "tensor.full"() {value = 1.11 : f64} : () -> tensor<2xf32>
  "mut.copy_"(%v0, %v1) : (tensor<2xf32>, tensor<2xf32>) -> ()
  return %v1, %v0 : tensor<2xf32>, tensor<2xf32>
}
