// RUN: aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=asm -o /dev/null
// RUN: not aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=asm --max-alloc-bytes 1k 2>&1 | FileCheck %s
// RUN: not aot-opt %s --max-alloc-bytes 1x 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: aot-opt --help | FileCheck %s --check-prefix=HELP

/// --max-alloc-bytes sets the allocation limit (suffixes k, M, G, T), as
/// AOT_MAX_ALLOC_BYTES does; every flag has help text.
// CHECK: error: {{.*}}more than the allocation limit of 1024 bytes
// BAD: expected a byte count such as 1048576, 512M or 4G, got '1x'
// HELP: --print-ir-before-all
// HELP-NEXT: Print the IR before every pass
// HELP: --print-ir-after-all
// HELP-NEXT: Print the IR after every pass
// HELP: --max-alloc-bytes <BYTES>
// HELP-NEXT: Largest single allocation in bytes
func.func @f(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = tensor.full {value = 1.0} : tensor<4096xf32>
  %1 = tensor.add %x, %0 : tensor<4096xf32>
  return %1 : tensor<4096xf32>
}
