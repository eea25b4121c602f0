// REQUIRES: llvm, mlir
// The LLVM and MLIR backends keep their compiled objects on disk
// (AOT_CACHE_DIR): a second process takes them instead of compiling, gets
// the same bits, and a damaged object is compiled again, never run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env AOT_CACHE_DIR=%t/cache AOT_JIT_CACHE_LOG=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend llvm --grad -o %t/llvm1.json 2>%t/llvm1.log
// RUN: FileCheck %s --check-prefix=COLD < %t/llvm1.log
// RUN: env AOT_CACHE_DIR=%t/cache AOT_JIT_CACHE_LOG=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend llvm --grad -o %t/llvm2.json 2>%t/llvm2.log
// RUN: FileCheck %s --check-prefix=WARM < %t/llvm2.log
// RUN: %python -c "import sys; sys.exit(open(sys.argv[1]).read() != open(sys.argv[2]).read())" %t/llvm1.json %t/llvm2.json
// RUN: env AOT_CACHE_DIR=%t/cache AOT_JIT_CACHE_LOG=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend mlir --grad -o %t/mlir1.json 2>%t/mlir1.log
// RUN: FileCheck %s --check-prefix=COLD < %t/mlir1.log
// RUN: env AOT_CACHE_DIR=%t/cache AOT_JIT_CACHE_LOG=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend mlir --grad -o %t/mlir2.json 2>%t/mlir2.log
// RUN: FileCheck %s --check-prefix=WARM < %t/mlir2.log
// RUN: %python -c "import sys; sys.exit(open(sys.argv[1]).read() != open(sys.argv[2]).read())" %t/llvm1.json %t/mlir2.json
//
// Every object damaged (one byte flipped, the length kept): each lookup
// refuses it, compiles again and stores a good one; the answer is the same.
// RUN: %python -c "import glob, sys; [open(p, 'r+b').write(bytes([open(p, 'rb').read(1)[0] ^ 1])) for p in glob.glob(sys.argv[1] + '/jit-v1/objects/*.o')]" %t/cache
// RUN: env AOT_CACHE_DIR=%t/cache AOT_JIT_CACHE_LOG=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend llvm --grad -o %t/llvm3.json 2>%t/llvm3.log
// RUN: FileCheck %s --check-prefix=DAMAGED < %t/llvm3.log
// RUN: %python -c "import sys; sys.exit(open(sys.argv[1]).read() != open(sys.argv[2]).read())" %t/llvm1.json %t/llvm3.json
// RUN: env AOT_CACHE_DIR=%t/cache AOT_JIT_CACHE_LOG=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend llvm --grad -o %t/llvm4.json 2>%t/llvm4.log
// RUN: FileCheck %s --check-prefix=WARM < %t/llvm4.log
//
// AOT_JIT_CACHE=0: no cache at all.
// RUN: env AOT_CACHE_DIR=%t/off AOT_JIT_CACHE=0 AOT_JIT_CACHE_LOG=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend llvm --grad -o %t/llvm5.json 2>%t/llvm5.log
// RUN: FileCheck %s --check-prefix=OFF --allow-empty < %t/llvm5.log
// RUN: not ls %t/off

// COLD: aot: jit cache: miss
// COLD: aot: jit cache: store
// COLD-NOT: aot: jit cache: hit

// WARM: aot: jit cache: hit
// WARM-NOT: aot: jit cache: miss
// WARM-NOT: aot: jit cache: store

// DAMAGED: aot: jit cache: rejected (checksum)
// DAMAGED: aot: jit cache: store

// OFF-NOT: aot: jit cache
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 1, index = 0} : tensor<3x2xf32> -> tensor<3xf32>
  mut.add_ %s, %y : tensor<3xf32>
  %m = tensor.mul %x, %x : tensor<2x3xf32>
  %e = tensor.exp %m : tensor<2x3xf32>
  return %t, %e : tensor<3x2xf32>, tensor<2x3xf32>
}
