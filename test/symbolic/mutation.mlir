// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%x: tensor<s0x4xf32>, %y: tensor<4xf32>) -> (tensor<s0x4xf32>, tensor<4xs0xf32>) {
  mut.add_ %x, %y : tensor<s0x4xf32>, tensor<4xf32>
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<s0x4xf32> -> tensor<4xs0xf32>
  mut.mul_ %t, %t : tensor<4xs0xf32>, tensor<4xs0xf32>
  %c = tensor.clone %x : tensor<s0x4xf32>
  mut.mul_ %c, %y {aot.no_grad} : tensor<s0x4xf32>, tensor<4xf32>
  return %c, %t : tensor<s0x4xf32>, tensor<4xs0xf32>
}
