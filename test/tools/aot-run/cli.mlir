// UNSUPPORTED: llvm, cuda, mlir
// RUN: aot-run --help | FileCheck %s --check-prefix=HELP
// RUN: aot-run --help | FileCheck %s --check-prefix=NO-OUTSIDE
// RUN: aot-run --version | FileCheck %s --check-prefix=VERSION
// RUN: not aot-run %s --entry @two --random-inputs 1 --backend interp 2>&1 | FileCheck %s --check-prefix=EAGER-BACKEND
// RUN: not aot-run %s --entry @two --random-inputs 1 --backend cranelift 2>&1 | FileCheck %s --check-prefix=EAGER-BACKEND
// RUN: not aot-run %s --entry two --random-inputs 1 --mode compiled --backend cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not aot-run %s --entry two --random-inputs 1 --mode compiled --backend nosuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: aot-run %s --entry @two --inputs %S/Inputs/two.json | FileCheck %s --check-prefix=TWO
// RUN: aot-run %s --entry two --inputs %S/Inputs/two.json | FileCheck %s --check-prefix=TWO
// RUN: not aot-run %s --entry @nosuch --random-inputs 1 2>&1 | FileCheck %s --check-prefix=NOSUCH
// RUN: aot-run %s --entry @nullary | FileCheck %s --check-prefix=NULLARY
// RUN: aot-run %s --entry nullary --mode compiled | FileCheck %s --check-prefix=NULLARY
// RUN: not aot-run %s --entry two 2>&1 | FileCheck %s --check-prefix=NEEDS-INPUTS
// RUN: not aot-run %s --entry random --inputs %S/Inputs/random.json --mode compiled --pipeline 'builtin.module(func.func(functionalize,collect-metadata))' 2>&1 | FileCheck %s --check-prefix=NATIVE
// RUN: aot-run %s --entry random --inputs %S/Inputs/random.json --mode compiled --pipeline 'builtin.module(func.func(functionalize,collect-metadata))' --backend interp | FileCheck %s --check-prefix=TWO-RANDOM
// RUN: not aot-run %s --entry two --random-inputs 1 --max-alloc-bytes 8 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: aot-run %s --entry two --random-inputs 1 --max-alloc-bytes 1k | FileCheck %s --check-prefix=TWO-RANDOM
// RUN: not aot-run %s --entry two --random-inputs 1 --max-alloc-bytes 20 2>&1 | FileCheck %s --check-prefix=DRAWN
// RUN: not aot-run %s --entry two --random-inputs 1 --max-alloc-bytes lots 2>&1 | FileCheck %s --check-prefix=BAD-LIMIT

/// The command line: help text for every flag, pointing inside the
/// repository; --backend only in compiled mode, only the backends this build
/// has, cranelift by default; --entry with or without '@'; a function
/// without arguments runs without inputs; --max-alloc-bytes.
// HELP: docs/reference/json.md
// HELP: --inputs <INPUTS>
// HELP-NEXT: Input file: the arguments as JSON (docs/reference/json.md)
// HELP: --backend <cranelift|hostdev|interp>
// HELP-NEXT: Backend of --mode compiled: cranelift (native code; the default)
// HELP: --max-alloc-bytes <BYTES>
// NO-OUTSIDE-NOT: ir-contract
// NO-OUTSIDE-NOT: llvm
// NO-OUTSIDE-NOT: cuda
// This build has no LLVM or CUDA backend, so the version names none.
// VERSION: aot-run {{[0-9]+\.[0-9]+\.[0-9]+$}}
// EAGER-BACKEND: aot-run: error: --backend needs --mode compiled (eager mode always runs the reference interpreter)
// CUDA: aot-run: error: backend 'cuda' is not available: this build of aot has no CUDA backend (build with the cargo feature `cuda`); available: cranelift, hostdev, interp
// UNKNOWN: aot-run: error: unknown backend 'nosuch' (available: cranelift, hostdev, interp)
// TWO: "outputs": [
// TWO: 4.0
// NOSUCH: aot-run: error: no function named '@nosuch' in the module
// NULLARY: "args_after": [],
// NULLARY: "outputs": [
// NULLARY: 7.0
// NEEDS-INPUTS: aot-run: error: give --inputs FILE or --random-inputs SEED
// The default backend of compiled mode is native code: a stateful random
// op has no native form (the interpreter runs it).
// NATIVE: error: 'rng.uniform' op draws from the global generator: run rng-functionalize before lowering to loops
// LIMIT: aot-run: error: argument 0 needs 16 bytes, more than the allocation limit of 8 bytes (raise it with AOT_MAX_ALLOC_BYTES or --max-alloc-bytes)
// TWO-RANDOM: "outputs"
// DRAWN: aot-run: error: argument 0 (its random values, drawn as 8-byte numbers) needs 32 bytes, more than the allocation limit of 20 bytes
// BAD-LIMIT: expected a byte count such as 1048576, 512M or 4G, got 'lots'
func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @nullary() -> tensor<f32> {
  %0 = tensor.full {value = 7.0} : tensor<f32>
  return %0 : tensor<f32>
}

func.func @random(%x: tensor<4xf32>) -> tensor<4xf32> {
  %u = rng.uniform {high = 1.0, low = 0.0} : tensor<4xf32>
  %r = tensor.add %x, %u : tensor<4xf32>
  return %r : tensor<4xf32>
}
