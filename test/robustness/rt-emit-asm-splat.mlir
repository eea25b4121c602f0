// Reproducer oom_emit_asm_materializes_splat_constant_2pow41: --emit=asm must
// not materialize a splat constant of 2^41 elements; the sizes are refused
// before lowering.
// RUN: not aot-opt %s --pass-pipeline='builtin.module(aot-train)' --emit=asm 2>&1 | FileCheck %s
// CHECK: rt-emit-asm-splat.mlir:6:1: error: 'func.func' op block argument: a value of type tensor<1099511627776x2xf32> needs 8796093022208 bytes, more than the allocation limit
func.func @mixed_mutations(%x: tensor<1099511627776x2xf32> {aot.requires_grad, aot.non_leaf}, %y: tensor<1099511627776x2xf32> {aot.requires_grad, aot.non_leaf}, %z: tensor<1099511627776x2xf32> {aot.requires_grad, aot.non_leaf}) -> tensor<1099511627776x2xf32> {
  %c = tensor.constant dense<2.0> : tensor<1099511627776x2xf32>
  %d = view.detach %z : tensor<1099511627776x2xf32>
  mut.mul_ %d, %c : tensor<1099511627776x2xf32>
  %0 = tensor.add %x, %y : tensor<1099511627776x2xf32>
  %1 = tensor.add %0, %z : tensor<1099511627776x2xf32>
  return %1 : tensor<1099511627776x2xf32>
}
