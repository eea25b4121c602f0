// Two views of one differentiable base: %x reaches storage elements twice
// (strides [1, 1]) and is returned; %y, which shares one of %x's doubled
// elements, is negated in place. Gradients reach the base once per position
// of %x, not once per position and again per write-back. %z, untouched,
// shares the storage too.
func.func @main(%x: tensor<3x2xf32>, %z: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<3x2xf32>) {
  "mut.neg_"(%y) : (tensor<2xf32>) -> ()
  return %x : tensor<3x2xf32>
}
