// Run-time check failures in compiled code name the op and its location as
// eager mode does (the _error_quality reproducers: gather, index_select,
// scatter_add, embedding and index_put with an index out of range).
// RUN: not aot-run %s --entry gather --inputs %S/Inputs/rt-gather-oob.json 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not aot-run %s --entry gather --inputs %S/Inputs/rt-gather-oob.json --mode compiled --backend interp 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not aot-run %s --entry gather --inputs %S/Inputs/rt-gather-oob.json --mode compiled --backend cranelift 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not aot-run %s --entry gather --inputs %S/Inputs/rt-gather-oob.json --mode compiled --backend cranelift --grad 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: rt-compiled-error-location.mlir:10:3: error: 'tensor.gather' op index {{.*}}out of bounds for dimension
func.func @gather(%x: tensor<2x3xf32> {aot.requires_grad}, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = tensor.gather %x, %i {dim = 1} : tensor<2x3xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// RUN: not aot-run %s --entry embedding --inputs %S/Inputs/rt-embedding-oob.json --mode compiled --backend cranelift 2>&1 | FileCheck %s --check-prefix=EMB
// EMB: rt-compiled-error-location.mlir:17:3: error: 'tensor.embedding' op index out of range in self (the table has 4 rows)
func.func @embedding(%w: tensor<4x2xf32>, %i: tensor<3xi64>) -> tensor<3x2xf32> {
  %0 = tensor.embedding %w, %i : tensor<4x2xf32>, tensor<3xi64> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
