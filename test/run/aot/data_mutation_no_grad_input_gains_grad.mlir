/// An input that does not require grad is mutated with a value that does:
/// afterwards it requires grad (running.add_(batch_mean) without detach), and
/// the output computed from it requires grad too.
func.func @main(%x: tensor<2x3xf32>, %run: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %m = tensor.mean %x {dims = [0]} : tensor<2x3xf32> -> tensor<3xf32>
  mut.add_ %run, %m : tensor<3xf32>
  %0 = tensor.mul %run, %run : tensor<3xf32>
  return %0, %run : tensor<3xf32>, tensor<3xf32>
}
