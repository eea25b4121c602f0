// RUN: aot-opt %s | FileCheck %s

/// Type and attribute aliases are expanded where used.
!vec = tensor<4xf32>
#layout = #aot.layout<storage = 0, offset = 0, strides = [1]>

// CHECK-LABEL: func.func @uses_aliases(%arg0: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}) -> tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.add %arg0, %arg0 : tensor<4xf32>
func.func @uses_aliases(%x: !vec {aot.layout = #layout}) -> !vec {
  %0 = tensor.add %x, %x : !vec
  return %0 : !vec
}
