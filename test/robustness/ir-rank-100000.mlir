// Reproducers stack_overflow_codegen_rank_100000_emit_asm and
// stack_overflow_codegen_rank_100000_cranelift: a tensor of rank 100000
// overflowed code generation's stack. Rank is limited (default 64,
// AOT_MAX_RANK) where the type is written.

// RUN: %python -c "print('func.func @main(%%x: tensor<' + '1x' * 100000 + 'f32>) -> tensor<' + '1x' * 100000 + 'f32> {\n  %%0 = tensor.neg %%x : tensor<' + '1x' * 100000 + 'f32>\n  return %%0 : tensor<' + '1x' * 100000 + 'f32>\n}')" > %t.deep
// RUN: not aot-opt %t.deep --emit=asm 2>&1 | FileCheck %s
// RUN: not aot-run %t.deep --random-inputs 3 --mode compiled --backend cranelift 2>&1 | FileCheck %s
// CHECK: ir-rank-100000.mlir.tmp.deep:1:21: error: invalid tensor type of rank 100000: rank 100000 is more than the limit of 64 (raise it with AOT_MAX_RANK)

// Rank 64 is accepted; 65 is not; the limit follows AOT_MAX_RANK.
// RUN: %python -c "print('func.func @main(%%x: tensor<' + '1x' * 64 + 'f32>) -> tensor<' + '1x' * 64 + 'f32> {\n  return %%x : tensor<' + '1x' * 64 + 'f32>\n}')" > %t.64
// RUN: aot-opt %t.64 | FileCheck %s --check-prefix=OK
// OK: func.func @main
// RUN: %python -c "print('func.func @main(%%x: tensor<' + '1x' * 65 + 'f32>) {\n  return\n}')" > %t.65
// RUN: not aot-opt %t.65 2>&1 | FileCheck %s --check-prefix=R65
// R65: ir-rank-100000.mlir.tmp.65:1:21: error: invalid tensor type of rank 65: rank 65 is more than the limit of 64 (raise it with AOT_MAX_RANK)
// RUN: env AOT_MAX_RANK=65 aot-opt %t.65 | FileCheck %s --check-prefix=OK
