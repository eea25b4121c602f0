// REQUIRES: cuda, libdevice
// With AOT_LIBDEVICE, the libdevice functions a module calls are linked in
// and inlined: nothing is left external. Each module links a copy of the
// library cut down to the functions it calls (remembered per process by
// the set of names), which gives the module what linking the whole library
// and dropping the rest gave. Two functions with different calls, for two
// architectures, in one process: four links, two distinct cut copies.
// RUN: env AOT_LIBDEVICE=%libdevice aot-opt %s --emit=ptx --gpu-arch=sm_80,sm_90 | FileCheck %s
// RUN: not env AOT_LIBDEVICE=%t.missing.bc aot-opt %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK-NOT: .extern .func
// CHECK: // gpu-arch sm_80
// CHECK: // function @sine
// CHECK-NOT: .extern
// CHECK: .visible .entry
// CHECK: // function @tangent
// CHECK-NOT: .extern
// CHECK: .visible .entry
// CHECK: // gpu-arch sm_90
// CHECK: // function @sine
// CHECK-NOT: .extern
// CHECK: .visible .entry
// CHECK: // function @tangent
// CHECK-NOT: .extern
// CHECK: .visible .entry

// MISSING: emit-ptx-libdevice.mlir:{{[0-9]+}}:1: error: {{.*}}cannot read libdevice at {{.*}}.missing.bc (AOT_LIBDEVICE)

func.func @sine(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tensor.sin %x : tensor<64xf32>
  return %0 : tensor<64xf32>
}

func.func @tangent(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tensor.tan %x : tensor<64xf32>
  return %0 : tensor<64xf32>
}
