// REQUIRES: cuda
// RUN: aot-opt %s --split-input-file --emit=ptx | FileCheck %s

/// PTX kernels read symbolic sizes at run time, as the host backends'
/// kernels do (symbolic-sizes.mlir, symbolic-sizes-llvm.mlir): the entry's
/// array of operand addresses holds the size table's address after the
/// operands' (here at 16, after two), and each size the kernel uses is
/// loaded once from the table, in global memory, through the read-only
/// path (`ld.global.nc`: the table does not change during a call). The
/// loop without a parallel dimension runs on one block, its threads
/// striding over `s0` elements.
// CHECK-LABEL: // function @copy
// CHECK:       .visible .entry k_0(
// CHECK:         ld.param.u64 %[[OPS:rd[0-9]+]], [k_0_param_0];
// CHECK:         cvta.to.global.u64 %[[G:rd[0-9]+]], %[[OPS]];
// CHECK:         ld.global.u64 %[[T:rd[0-9]+]], [%[[G]]+16];
// CHECK:         cvta.to.global.u64 %[[TG:rd[0-9]+]], %[[T]];
// CHECK:         ld.global.nc.u64 %[[S0:rd[0-9]+]], [%[[TG]]];
// CHECK:         setp.lt.s64 %p{{[0-9]+}}, %rd{{[0-9]+}}, %[[S0]];
func.func @copy(%x: memref<s0xf32>) -> memref<s0xf32> {
  %o = loop.alloc : memref<s0xf32>
  loop.kernel "k" (%a = %x : memref<s0xf32>, %b = %o : memref<s0xf32>) {
    loop.for %i = 0 to s0 {
      %v = loop.load %a[%i] : memref<s0xf32>
      loop.store %v, %b[%i] : memref<s0xf32>
    }
  }
  return %o : memref<s0xf32>
}

// -----

/// From tensors: the fused kernel's three operands (x, the result, b), then
/// the table, whose entries are s1 (the row length and x's row stride) and
/// s0 (the rows). A warp shares each row (a row of `s1` counts as 64, the
/// size hint, when the plan is made; any length runs): its lanes start at
/// their lane number and step by 32, the rows of the launch's slice are
/// clamped to `s0`, and a row's address is `row * s1`.
// CHECK-LABEL: // function @rows
// CHECK:       .visible .entry mul_2_0(
// CHECK:         ld.param.u64 %[[OPS:rd[0-9]+]], [mul_2_0_param_0];
// CHECK:         cvta.to.global.u64 %[[G:rd[0-9]+]], %[[OPS]];
// CHECK:         ld.param.u64 %{{rd[0-9]+}}, [mul_2_0_param_2];
// CHECK:         ld.global.u64 %[[T:rd[0-9]+]], [%[[G]]+24];
// CHECK:         cvta.to.global.u64 %[[TG:rd[0-9]+]], %[[T]];
// CHECK:         ld.global.nc.u64 %[[S1:rd[0-9]+]], [%[[TG]]];
// CHECK:         ld.global.nc.u64 %[[S0:rd[0-9]+]], [%[[TG]]+8];
// CHECK:         min.s64 %{{rd[0-9]+}}, %[[S0]], %{{rd[0-9]+}};
// CHECK:         and.b64 %{{rd[0-9]+}}, %{{rd[0-9]+}}, 31;
// CHECK:         mul.lo.s64 %{{rd[0-9]+}}, %[[S1]], %{{rd[0-9]+}};
// CHECK:         bar.warp.sync
// CHECK-NOT:   .entry
func.func @rows(%x: tensor<s0xs1xf32>, %b: tensor<s1xf32>) -> tensor<s0xs1xf32> {
  %0 = tensor.add %x, %b : tensor<s0xs1xf32>, tensor<s1xf32> -> tensor<s0xs1xf32>
  %1 = tensor.exp %0 : tensor<s0xs1xf32>
  %2 = tensor.mul %1, %x : tensor<s0xs1xf32>, tensor<s0xs1xf32> -> tensor<s0xs1xf32>
  return %2 : tensor<s0xs1xf32>
}
