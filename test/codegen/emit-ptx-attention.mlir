// REQUIRES: cuda
// A target with a device of its own lowers attention without the host's
// fused kernel (`lower-to-loops{host-kernels=false}`, chosen by the
// target's pipeline): its row kernel is PTX like every other kernel,
// where a `loop.attention` step would run on the host in the middle of
// the device's call.
// RUN: aot-opt %s --emit=ptx --gpu-arch=sm_90 | FileCheck %s
// CHECK: // function @attn
// CHECK: .visible .entry attention_softmax_{{[0-9_]+}}(
func.func @attn(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %o:2 = tensor.attention %q, %k, %v {causal} : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32> -> (tensor<2x16x8xf32>, tensor<2x16xf32>)
  return %o#0 : tensor<2x16x8xf32>
}
