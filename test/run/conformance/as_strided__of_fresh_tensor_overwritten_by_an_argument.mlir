// A fresh tensor overwritten whole by copy_ from an argument, then moved
// by as_strided_: offsets count in the fresh tensor's own storage, not in
// the argument's (the storage's new base is a copy, not the argument).
func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>) {
  %v0 = "tensor.div"(%arg1, %arg0) : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  "mut.copy_"(%v0, %arg0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
  %v1 = "mut.as_strided_"(%v0) {size = [2], stride = [1], offset = 0 : i64} : (tensor<2x2xf32>) -> tensor<2xf32>
  return %v1 : tensor<2xf32>
}
