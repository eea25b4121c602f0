// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fuse))' | FileCheck %s

// Two kernels that store into one buffer (a scatter writing its region
// into its base's buffer in place, after the kernel that computed the
// base) never fuse: merged, a later iteration of the first would overwrite
// what an earlier iteration of the second wrote (here element 3 - i). The
// reader of the final buffer may take the second kernel in (it reads the
// element that kernel stores in the same iteration), never the first.
// CHECK-LABEL: func.func @other_element
// CHECK:         loop.kernel "k1"
// CHECK:           loop.store
// CHECK-NOT:       loop.store
// CHECK:         loop.kernel "k2"
// CHECK:           loop.sub
// CHECK:           loop.store
// CHECK-NOT:       loop.store
// CHECK:         loop.kernel "k3"
func.func @other_element(%x: memref<4xf32>, %y: memref<4xf32>) -> memref<4xf32> {
  %r = loop.alloc : memref<4xf32>
  loop.kernel "k1" (%a = %x : memref<4xf32>, %o = %r : memref<4xf32>) {
    loop.for %i = 0 to 4 parallel {
      %v = loop.load %a[%i] : memref<4xf32>
      loop.store %v, %o[%i] : memref<4xf32>
    }
  }
  loop.kernel "k2" (%b = %y : memref<4xf32>, %p = %r : memref<4xf32>) {
    loop.for %i = 0 to 4 parallel {
      %c3 = loop.constant 3 : index
      %j = loop.sub %c3, %i : index
      %v = loop.load %b[%i] : memref<4xf32>
      loop.store %v, %p[%j] : memref<4xf32>
    }
  }
  %out = loop.alloc : memref<4xf32>
  loop.kernel "k3" (%c = %r : memref<4xf32>, %q = %out : memref<4xf32>) {
    loop.for %i = 0 to 4 parallel {
      %v = loop.load %c[%i] : memref<4xf32>
      %w = loop.exp %v : f32
      loop.store %w, %q[%i] : memref<4xf32>
    }
  }
  return %out : memref<4xf32>
}
