/// (In a module wrapper.) A private helper mutates its argument in place (reference semantics
/// across func.call) and returns a view of it.
module {
  func.func private @scale_row(%m: tensor<2x3xf32>, %k: tensor<3xf32>) -> tensor<3xf32> {
    %r = view.select %m {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
    mut.mul_ %r, %k : tensor<3xf32>
    return %r : tensor<3xf32>
  }
  func.func @main(%x: tensor<2x3xf32>, %k: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
    %r = func.call @scale_row(%x, %k) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %x, %r : tensor<2x3xf32>, tensor<3xf32>
  }
}
