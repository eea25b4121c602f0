// RUN: aot-run %s --random-inputs 1 --sizes s0=3,s1=5 | FileCheck %s --check-prefix=HEADS
// RUN: aot-run %s --mode compiled --random-inputs 1 --sizes s0=3,s1=5 | FileCheck %s --check-prefix=HEADS

/// A view of a non-contiguous layout with symbolic sizes takes strides
/// where the layout's contiguous chunks match the new sizes for every value
/// of the symbols: the heads of a slice of a fused projection.
// HEADS:      "outputs": [
// HEADS:        "shape": [
// HEADS-NEXT:     3,
// HEADS-NEXT:     5,
// HEADS-NEXT:     2,
// HEADS-NEXT:     4
// HEADS-NEXT:   ],
// HEADS-NEXT:   "stride": [
// HEADS-NEXT:     120,
// HEADS-NEXT:     24,
// HEADS-NEXT:     4,
// HEADS-NEXT:     1
func.func @heads(%x: tensor<s0xs1x24xf32>) -> tensor<s0xs1x2x4xf32> {
  %q = view.slice %x {dim = 2, start = 8, end = 16} : tensor<s0xs1x24xf32> -> tensor<s0xs1x8xf32>
  %h = view.view %q {shape = array<i64: s0, s1, 2, 4>} : tensor<s0xs1x8xf32> -> tensor<s0xs1x2x4xf32>
  return %h : tensor<s0xs1x2x4xf32>
}
