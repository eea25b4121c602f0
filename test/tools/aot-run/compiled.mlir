// RUN: aot-run %s --inputs %S/Inputs/mutate.json -o %t.eager.json
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --backend interp --pipeline aot-inference -o %t.compiled.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a != b)" %t.eager.json %t.compiled.json
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --backend interp --pipeline 'builtin.module(func.func(functionalize{keep-input-mutations=false},collect-metadata))' | FileCheck %s
// RUN: not aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline 'builtin.module(func.func(functionalize))' 2>&1 | FileCheck %s --check-prefix=NOMETA
// RUN: not aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --backend llvm 2>&1 | FileCheck %s --check-prefix=BACKEND

/// Compiled through aot-inference, the call is indistinguishable from eager:
/// the write through the transposed view reaches argument 0 and the returned
/// transpose still aliases it.
// CHECK:      "args_after": [
// CHECK:        "data": [
// CHECK-NEXT:     11.0,
// CHECK:      "alias_of_arg": 0,
// NOMETA: error: 'func.func' op the pipeline 'builtin.module(func.func(functionalize))' did not produce aot.meta
// BACKEND: aot-run: error: backend 'llvm' is not available: this build of aot has no LLVM backend (build with the cargo feature `llvm`); available: cranelift, hostdev, interp
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 1, index = 0} : tensor<3x2xf32> -> tensor<3xf32>
  mut.add_ %s, %y : tensor<3xf32>
  %m = tensor.mul %x, %x : tensor<2x3xf32>
  return %t, %m : tensor<3x2xf32>, tensor<2x3xf32>
}
