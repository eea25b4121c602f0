/// Batchnorm in training mode: normalise x with the batch statistics and
/// update the running buffers (not requiring grad) in place with values
/// outside autograd: running.mul_(0.9); running.add_(0.1 * stat), the mean
/// through view.detach, the variance under aot.no_grad; the step counter
/// (i64, 0-d) is incremented. x itself is not mutated.
func.func @main(%x: tensor<4x3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>, %n: tensor<i64>) -> tensor<4x3xf32> {
  %mean = tensor.mean %x {dims = [0], keepdim} : tensor<4x3xf32> -> tensor<1x3xf32>
  %var = tensor.var %x {dims = [0], keepdim, correction = 0} : tensor<4x3xf32> -> tensor<1x3xf32>
  %eps = tensor.full {value = 1.0e-5} : tensor<f32>
  %ve = tensor.add %var, %eps : tensor<1x3xf32>, tensor<f32> -> tensor<1x3xf32>
  %r = tensor.rsqrt %ve : tensor<1x3xf32>
  %c = tensor.sub %x, %mean : tensor<4x3xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
  %out = tensor.mul %c, %r : tensor<4x3xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
  %m = tensor.full {value = 0.9} : tensor<f32>
  %k = tensor.full {value = 0.1} : tensor<f32>
  %md = view.detach %mean : tensor<1x3xf32>
  %mf = view.view %md {shape = [3]} : tensor<1x3xf32> -> tensor<3xf32>
  %mu = tensor.mul %mf, %k : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  mut.mul_ %rm, %m : tensor<3xf32>, tensor<f32>
  mut.add_ %rm, %mu : tensor<3xf32>
  %uv = tensor.var %x {dims = [0], correction = 1, aot.no_grad} : tensor<4x3xf32> -> tensor<3xf32>
  %vu = tensor.mul %uv, %k {aot.no_grad} : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  mut.mul_ %rv, %m : tensor<3xf32>, tensor<f32>
  mut.add_ %rv, %vu : tensor<3xf32>
  %one = tensor.full {value = 1} : tensor<i64>
  mut.add_ %n, %one : tensor<i64>
  return %out : tensor<4x3xf32>
}
