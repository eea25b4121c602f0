// d = x.detach(); d.mul_(x): the in-place op autograd records gives d a history
// of its own (it requires grad, its gradient reaches x through the operand);
// the write stays hidden from x's own history.
func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  "mut.mul_"(%v0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  return %v0 : tensor<2xf32>
}
