// A chain of 20,000 tensor.sin ops. `fuse` once restarted from the last
// kernel after each inlining and rescanned the whole body each time
// (quadratic), and folded the chain into one kernel of 20,000 formulas,
// which Cranelift's register allocator compiles super-linearly (over 10 s
// for --emit=asm). Now one sweep inlines the chain and kernels stop growing
// at MAX_KERNEL_OPS (400) ops: the chain becomes several kernels, every sin
// kept.
// RUN: %python %S/Inputs/gen.py sin 20000 > %t.mlir
// RUN: aot-opt %t.mlir --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse))' > %t.fused.mlir
// RUN: %python %S/Inputs/kernel_sizes.py %t.fused.mlir | FileCheck %s
// CHECK: kernels: {{[1-9][0-9]+}}
// CHECK-NEXT: largest: {{[1-3]?[0-9]?[0-9]}}{{$}}
// CHECK-NEXT: sin ops: 20000

// End to end at a size a debug build compiles quickly: split kernels
// compute what the interpreter does.
// RUN: %python %S/Inputs/gen.py sin 2000 > %t.2000.mlir
// RUN: aot-opt %t.2000.mlir --emit=asm | FileCheck %s --check-prefix=ASM
// RUN: aot-run %t.2000.mlir --random-inputs 3 -o %t.eager.json
// RUN: aot-run %t.2000.mlir --random-inputs 3 --mode compiled --backend cranelift -o %t.native.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a != b)" %t.eager.json %t.native.json
// ASM: ; kernel
// ASM: ; kernel
