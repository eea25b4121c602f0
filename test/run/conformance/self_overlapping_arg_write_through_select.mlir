// An argument with a self-overlapping layout (size [2,2], stride [1,1]); add_ through
// select(dim=1): storage element 1 is [0,1] and [1,0] at once, so both see the write.
// A write through any view of a self-overlapping object goes to the storage at the
// written view's own layout.
func.func @main(%arg0: tensor<2x2xf32>) -> (tensor<2x2xf32>) {
  %v0 = "view.select"(%arg0) {dim = 1 : i64, index = 1 : i64} : (tensor<2x2xf32>) -> tensor<2xf32>
  %v1 = "tensor.full"() {value = 10.0 : f64} : () -> tensor<f32>
  "mut.add_"(%v0, %v1) : (tensor<2xf32>, tensor<f32>) -> ()
  return %arg0 : tensor<2x2xf32>
}
