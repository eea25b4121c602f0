// RUN: aot-run %s --mode compiled --backend hostdev --random-inputs 3 | FileCheck %s
// RUN: aot-run %s --mode compiled --backend hostdev --random-inputs 3 --grad | FileCheck %s --check-prefix=GRAD
// RUN: aot-run %s --mode compiled --backend cranelift --random-inputs 3 | FileCheck %s --check-prefix=HOST

/// On the host-memory device, aot-run places the arguments in the device's
/// memory before the call: the call copies nothing across the bus (the
/// mutated argument is written in place there, the result is allocated
/// there). The constant went to the device once, when the code was loaded.
// CHECK:      "crossings": {
// CHECK-NEXT:   "constant_uploads": 1,
// CHECK-NEXT:   "downloaded_bytes": 0,
// CHECK-NEXT:   "downloads": 0,
// CHECK-NEXT:   "uploaded_bytes": 0,
// CHECK-NEXT:   "uploads": 0
// CHECK-NEXT: },

/// Forward and backward: the tangent is placed on the device too; the
/// gradient of x is made there. The forward and the backward each load
/// their own copy of the constant.
// GRAD:      "crossings": {
// GRAD-NEXT:   "constant_uploads": 2,
// GRAD-NEXT:   "downloaded_bytes": 0,
// GRAD-NEXT:   "downloads": 0,
// GRAD-NEXT:   "uploaded_bytes": 0,
// GRAD-NEXT:   "uploads": 0
// GRAD-NEXT: },
// GRAD:      "grads": [

/// A host backend reports no crossings.
// HOST-NOT: crossings
func.func @main(%x: tensor<4x3xf32> {aot.requires_grad}, %acc: tensor<3xf32>) -> tensor<4x3xf32> {
  %c = tensor.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = tensor.mul %x, %c : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %s = tensor.sum %y {dims = [0]} : tensor<4x3xf32> -> tensor<3xf32>
  mut.add_ %acc, %s {aot.no_grad} : tensor<3xf32>, tensor<3xf32>
  %e = tensor.exp %y : tensor<4x3xf32>
  return %e : tensor<4x3xf32>
}
