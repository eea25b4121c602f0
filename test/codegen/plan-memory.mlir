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
// STATS:       PlanMemory
// STATS-NEXT:    (S) 4 num-planned
// STATS-NEXT:    (S) 32768 arena-bytes
// STATS-NEXT:    (S) 65536 unplanned-bytes
// STATS-NEXT:    (S) 256 result-bytes
// STATS-NEXT:    (S) 33024 peak-bytes
func.func @chain(%x: tensor<64x64xf32>) -> tensor<64xf32> {
  %a = tensor.exp %x : tensor<64x64xf32>
  %b = tensor.mm %a, %a : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %c = tensor.tanh %b : tensor<64x64xf32>
  %d = tensor.mm %c, %c : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %e = tensor.sum %d {dims = [1]} : tensor<64x64xf32> -> tensor<64xf32>
  return %e : tensor<64xf32>
}
