// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(protect-reads))' --pass-statistics 2>&1 | FileCheck %s

// A read of an argument placed after the epilogue's first write into that
// argument takes a snapshot made before the write.

/// b = a (through a view of a), written after a itself was overwritten:
/// the view is cloned before the first write, and the second copy reads
/// the clone.
// CHECK-LABEL: func.func @view_read_after_write
// CHECK:         %[[V:.*]] = view.alias %arg0
// CHECK:         %[[S:.*]] = tensor.clone %[[V]]
// CHECK-NEXT:    mut.copy_ %arg0, %arg2
// CHECK-NEXT:    mut.copy_ %arg1, %[[S]]
func.func @view_read_after_write(%a: tensor<4xf32>, %b: tensor<4xf32>, %n: tensor<4xf32>) {
  %v = view.alias %a : tensor<4xf32> -> tensor<4xf32>
  mut.copy_ %a, %n : tensor<4xf32>, tensor<4xf32>
  mut.copy_ %b, %v : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

/// Reads of other memory, or before any write, are left alone.
// CHECK-LABEL: func.func @no_hazard
// CHECK-NOT:     tensor.clone
// CHECK:         return
func.func @no_hazard(%a: tensor<4xf32>, %b: tensor<4xf32>, %n: tensor<4xf32>) {
  %v = view.alias %n : tensor<4xf32> -> tensor<4xf32>
  mut.copy_ %a, %n : tensor<4xf32>, tensor<4xf32>
  mut.copy_ %b, %v : tensor<4xf32>, tensor<4xf32>
  return
}

// CHECK: Pass statistics report
// CHECK: ProtectReads
// CHECK: (S) 1 num-snapshots
