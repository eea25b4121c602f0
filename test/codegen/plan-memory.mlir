// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(lower-to-loops,plan-memory))' | FileCheck %s
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(lower-to-loops,plan-memory))' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

/// Four 16 KiB temporaries, never more than two alive at once (a product
/// reads one and writes the next): the arena holds two slots, and the third
/// and fourth temporaries reuse the first two. The result keeps its own
/// storage (no offset).
// CHECK-LABEL: func.func @chain
// CHECK:         %[[T1:.*]] = loop.alloc {offset = 0} : memref<64x64xf32>
// CHECK:         loop.kernel "exp_0"
// CHECK:         %[[T2:.*]] = loop.alloc {offset = 16384} : memref<64x64xf32>
// CHECK:         loop.matmul
// CHECK:         %[[T3:.*]] = loop.alloc {offset = 0} : memref<64x64xf32>
// CHECK:         loop.kernel "tanh_1"
// CHECK:         %[[T4:.*]] = loop.alloc {offset = 16384} : memref<64x64xf32>
// CHECK:         loop.matmul
// CHECK:         %[[R:.*]] = loop.alloc : memref<64xf32>
// CHECK:         return %[[R]]
/// (The statistics add up both functions of this file; the symbolic one
/// below counts the same figures at its size hint.)
// STATS:       PlanMemory
// STATS-NEXT:    (S) 8 num-planned
// STATS-NEXT:    (S) 65536 arena-bytes
// STATS-NEXT:    (S) 131072 unplanned-bytes
// STATS-NEXT:    (S) 512 result-bytes
// STATS-NEXT:    (S) 66048 peak-bytes
func.func @chain(%x: tensor<64x64xf32>) -> tensor<64xf32> {
  %a = tensor.exp %x : tensor<64x64xf32>
  %b = tensor.mm %a, %a : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %c = tensor.tanh %b : tensor<64x64xf32>
  %d = tensor.mm %c, %c : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %e = tensor.sum %d {dims = [1]} : tensor<64x64xf32> -> tensor<64xf32>
  return %e : tensor<64xf32>
}

/// With symbolic sizes there are no byte counts to place: each temporary
/// gets its lifetime, its first and last host op (`live`), and the host
/// program places the temporaries the same way per set of symbol values,
/// when a call brings new sizes (the chain above, with s0 rows). The
/// statistics count this function at the size hint (s0 = 64): the same
/// figures again.
// CHECK-LABEL: func.func @symbolic_chain
// CHECK:         loop.alloc {live = array<i64: 1, 3>} : memref<s0x64xf32>
// CHECK:         loop.kernel "exp_0"
// CHECK:         loop.alloc {live = array<i64: 3, 5>} : memref<s0x64xf32>
// CHECK:         loop.matmul
// CHECK:         loop.alloc {live = array<i64: 5, 7>} : memref<s0x64xf32>
// CHECK:         loop.kernel "tanh_1"
// CHECK:         loop.alloc {live = array<i64: 7, 9>} : memref<s0x64xf32>
// CHECK:         loop.matmul
// CHECK:         %[[R:.*]] = loop.alloc : memref<s0xf32>
// CHECK:         return %[[R]]
func.func @symbolic_chain(%x: tensor<s0x64xf32>, %w: tensor<64x64xf32>) -> tensor<s0xf32> {
  %a = tensor.exp %x : tensor<s0x64xf32>
  %b = tensor.mm %a, %w : tensor<s0x64xf32>, tensor<64x64xf32> -> tensor<s0x64xf32>
  %c = tensor.tanh %b : tensor<s0x64xf32>
  %d = tensor.mm %c, %w : tensor<s0x64xf32>, tensor<64x64xf32> -> tensor<s0x64xf32>
  %e = tensor.sum %d {dims = [1]} : tensor<s0x64xf32> -> tensor<s0xf32>
  return %e : tensor<s0xf32>
}
