// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
//
// The products' lowering of attention that GPUs get chunks the batch by
// static sizes: the CUDA backend compiles this function per size.
// PTX refuses: an attention of f32 heads over the symbolic size s0 runs only as the host's fused kernel
func.func @f(%q: tensor<2xs0x4xf32>, %k: tensor<2xs1x4xf32>, %v: tensor<2xs1x4xf32>) -> (tensor<2xs0x4xf32>, tensor<2xs0xs1xf32>, tensor<s0x2xf32>) {
  %o:2 = tensor.attention %q, %k, %v : tensor<2xs0x4xf32>, tensor<2xs1x4xf32>, tensor<2xs1x4xf32> -> (tensor<2xs0x4xf32>, tensor<2xs0xf32>)
  %kt = view.transpose %k {dim0 = 1, dim1 = 2} : tensor<2xs1x4xf32> -> tensor<2x4xs1xf32>
  %sc = tensor.matmul %q, %kt : tensor<2xs0x4xf32>, tensor<2x4xs1xf32> -> tensor<2xs0xs1xf32>
  %p = tensor.softmax %sc {dim = 2} : tensor<2xs0xs1xf32> -> tensor<2xs0xs1xf32>
  %m = tensor.amax %o#0 {dims = [2]} : tensor<2xs0x4xf32> -> tensor<2xs0xf32>
  %mt = view.permute %m {dims = [1, 0]} : tensor<2xs0xf32> -> tensor<s0x2xf32>
  return %o#0, %p, %mt : tensor<2xs0x4xf32>, tensor<2xs0xs1xf32>, tensor<s0x2xf32>
}
