/// tensor.constant of several kinds: i64, i1, splat f64, 0-d i32, f16.
func.func @main() -> (tensor<2x2xi64>, tensor<3xi1>, tensor<2x2xf64>, tensor<i32>, tensor<2xf16>) {
  %0 = tensor.constant dense<[[1, -2], [3, 40]]> : tensor<2x2xi64>
  %1 = tensor.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = tensor.constant dense<0.25> : tensor<2x2xf64>
  %3 = tensor.constant dense<-7> : tensor<i32>
  %4 = tensor.constant dense<[0.1, 65504.0]> : tensor<2xf16>
  return %0, %1, %2, %3, %4 : tensor<2x2xi64>, tensor<3xi1>, tensor<2x2xf64>, tensor<i32>, tensor<2xf16>
}
