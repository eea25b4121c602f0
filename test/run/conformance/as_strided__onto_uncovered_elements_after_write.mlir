// Two interleaved views of one storage; as_strided_ of one onto elements no argument
// covers, a fill_ of the other, then exp_: the storage is passed whole and the
// uncovered elements keep their values (the flat base's placeholder is replaced by
// the storage even after a write folded the scatters that built it).
func.func @main(%arg0: tensor<7xf32>, %arg1: tensor<7xf32>) -> (tensor<f32>) {
  %v0 = "mut.as_strided_"(%arg0) {size = [4], stride = [3], offset = 12 : i64} : (tensor<7xf32>) -> tensor<4xf32>
  "mut.fill_"(%arg1) {value = -1.06 : f64} : (tensor<7xf32>) -> ()
  "mut.exp_"(%v0) : (tensor<4xf32>) -> ()
  %v1 = "tensor.full"() {value = -1.44 : f64} : () -> tensor<f32>
  return %v1 : tensor<f32>
}
