// Found by aot-fuzz (pipeline target): loop fusion restarted its pair scan
// after every fusion, so N in-place writes through one detached alias
// (N scatter kernels after aot-inference) took about N^3 pair tests:
// 800 writes took 90 s. Fusion now resumes its scan and pairs a kernel only
// with the kernels that read what it writes; 2,000 writes compile at once.
// RUN: %python %S/Inputs/gen.py detached 2000 > %t.mlir
// RUN: aot-opt %t.mlir --pass-pipeline='builtin.module(aot-inference)' --emit=asm | FileCheck %s
// CHECK: ; function @main
// RUN: aot-run %t.mlir --random-inputs 1 > %t.eager.json
// RUN: aot-run %t.mlir --random-inputs 1 --mode compiled --backend cranelift > %t.native.json
// RUN: %python -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); sys.exit(a['outputs'] != b['outputs'] or a['args_after'] != b['args_after'])" %t.eager.json %t.native.json

// Found by the 35-minute aot-fuzz campaign: 3,600 writes to an argument
// under no_grad still took 14 s in fuse, which re-walked the whole block
// after every one of its ~7,000 fusions. The scan is incremental now.
// RUN: %python %S/Inputs/gen.py nograd 4000 > %t.nograd.mlir
// RUN: aot-opt %t.nograd.mlir --pass-pipeline='builtin.module(aot-inference)' --emit=asm | FileCheck %s

// Found by the same campaign: N copies into one argument, lowered as written
// (before functionalize), made fusion try every later writer of the buffer
// as a partner of each kernel (quadratic, 4 s at N = 3,600 on a loaded
// machine). Only the first reader of a kernel's output can fuse with it.
// RUN: %python %S/Inputs/gen.py copies 4000 > %t.copies.mlir
// RUN: aot-opt %t.copies.mlir --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse,plan-memory))' | FileCheck %s --check-prefix=COPIES
// COPIES: loop.kernel
