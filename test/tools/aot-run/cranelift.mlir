// RUN: aot-run %s --inputs %S/Inputs/mutate.json -o %t.eager.json
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-inference --backend cranelift -o %t.native.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a != b)" %t.eager.json %t.native.json
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-train --backend cranelift --grad | FileCheck %s --check-prefix=GRAD
// RUN: aot-run %s --inputs %S/Inputs/mutate.json --mode eager --grad | FileCheck %s --check-prefix=GRAD
// RUN: env AOT_PROFILE=1 aot-run %s --inputs %S/Inputs/mutate.json --mode compiled --pipeline aot-inference --backend cranelift 2>&1 >/dev/null | FileCheck %s --check-prefix=PROFILE
// RUN: not aot-run %s --entry random --inputs %S/Inputs/random.json --mode compiled --pipeline 'builtin.module(func.func(functionalize,collect-metadata))' --backend cranelift 2>&1 | FileCheck %s --check-prefix=STATEFUL

/// AOT_PROFILE=1: when the compiled function goes away, the native runtime
/// prints each step's time, the slowest first, with its own work around
/// the steps (binding and handing results over) in the same table.
// PROFILE:      aot profile: 3 steps, 1 call, {{[0-9.]+}} us per call on {{[0-9]+}} thread
// PROFILE-NEXT:   share   us/call  step
// PROFILE-DAG: {{[0-9.]+}}%{{ +[0-9.]+}} kernel #0 'copy_{{[0-9]+}}' (one thread)
// PROFILE-DAG: {{[0-9.]+}}%{{ +[0-9.]+}} kernel #1 'copy_{{[0-9]+}}' (one thread)
// PROFILE-DAG: {{[0-9.]+}}%{{ +[0-9.]+}} kernel #2 'mul_{{[0-9]+}}' (one thread)
// PROFILE-DAG: {{[0-9.]+}}%{{ +[0-9.]+}} binding arguments (copies of non-contiguous ones) and allocating results
// PROFILE-DAG: {{[0-9.]+}}%{{ +[0-9.]+}} handing results over (wrapping buffers, copying constants and written copies back)

/// Native code keeps the calling convention: the write through the
/// transposed view reaches argument 0, the returned transpose aliases it,
/// and the result is exactly eager's (these ops round identically).
/// Gradients through the mutation and the aliased output match eager's.
// GRAD:      "grads": [
// GRAD-NEXT:   {
// GRAD:          "data": [
// GRAD-NEXT:       24.0,
// GRAD-NEXT:       46.0,
// GRAD-NEXT:       68.0,
// GRAD-NEXT:       10.0,
// GRAD-NEXT:       12.0,
// GRAD-NEXT:       14.0
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 1, index = 0} : tensor<3x2xf32> -> tensor<3xf32>
  mut.add_ %s, %y : tensor<3xf32>
  %m = tensor.mul %x, %x : tensor<2x3xf32>
  return %t, %m : tensor<3x2xf32>, tensor<2x3xf32>
}

/// A stateful random op has no native form until rng-functionalize makes
/// its generator state explicit: a located error, not a crash.
// STATEFUL: cranelift.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'rng.uniform' op draws from the global generator: run rng-functionalize before lowering to loops
func.func @random(%x: tensor<4xf32>) -> tensor<4xf32> {
  %u = rng.uniform {high = 1.0, low = 0.0} : tensor<4xf32>
  %r = tensor.add %x, %u : tensor<4xf32>
  return %r : tensor<4xf32>
}
