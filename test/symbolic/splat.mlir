// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
//
// A splat of a symbolic shape (the ignored labels a causal
// language model's loss pads with): a kernel stores its value, the
// integer exactly, over the run-time size.
func.func @f(%x: tensor<s0x4xi64>) -> (tensor<s0x5xi64>, tensor<s0x1xi64>) {
  %c = tensor.constant dense<-100> : tensor<s0x1xi64>
  %y = tensor.cat %x, %c {dim = 1} : tensor<s0x4xi64>, tensor<s0x1xi64> -> tensor<s0x5xi64>
  return %y, %c : tensor<s0x5xi64>, tensor<s0x1xi64>
}
