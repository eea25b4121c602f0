// RUN: aot-opt %s --print-debuginfo | FileCheck %s
// RUN: aot-opt %s --print-debuginfo | aot-opt --print-debuginfo | FileCheck %s

/// Ops get the file/line/column of their first token; explicit locations win.
// CHECK: tensor.add %arg0, %arg0 : tensor<2xf32> loc("{{.*}}locations.mlir":10:3)
// CHECK: tensor.mul %0, %0 : tensor<2xf32> loc("user.py":42:7)
// CHECK: tensor.mul %1, %1 : tensor<2xf32> loc("fc1"("model.py":3:1))
// CHECK: tensor.add %2, %2 : tensor<2xf32> loc(fused["a.py":1:1, unknown])
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tensor.add %x, %x : tensor<2xf32>
  %1 = tensor.mul %0, %0 : tensor<2xf32> loc("user.py":42:7)
  %2 = tensor.mul %1, %1 : tensor<2xf32> loc("fc1"("model.py":3:1))
  %3 = tensor.add %2, %2 : tensor<2xf32> loc(fused["a.py":1:1, unknown])
  return %3 : tensor<2xf32>
}
