// REQUIRES: cuda
// --emit=ptx prints one PTX module per public function for the GPU that
// --gpu-arch names. Several architectures, comma-separated, come one after
// the other from one run of the pipelines, each after a `// gpu-arch` line
// (scripts/check-ptx.py asks for sm_80 and sm_90 that way).
// RUN: aot-opt %s --emit=ptx --gpu-arch=sm_90 | FileCheck %s --check-prefix=ONE
// RUN: aot-opt %s --emit=ptx --gpu-arch=sm_80,sm_90 | FileCheck %s --check-prefix=BOTH
// RUN: not aot-opt %s --emit=ptx --gpu-arch=sm_80,sm_80 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not aot-opt %s --emit=ptx --gpu-arch=sm_80,sm_7 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// ONE-NOT: gpu-arch
// ONE: // function @f
// ONE: .target sm_90
// ONE: .entry

// BOTH: // gpu-arch sm_80
// BOTH-NEXT: // function @f
// BOTH: .target sm_80
// BOTH: .entry
// BOTH: // gpu-arch sm_90
// BOTH-NEXT: // function @f
// BOTH: .target sm_90
// BOTH: .entry

// TWICE: aot-opt: error: --gpu-arch names sm_80 twice
// UNKNOWN: aot-opt: error: unknown GPU architecture 'sm_7' (available: sm_80, sm_90)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
