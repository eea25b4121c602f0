// 20,000 mut.div_ of one clone by the same argument, both arguments requiring
// grad: the argument has 20,000 users. Context::users deduplicated them with a
// linear search (quadratic per call), and the check of what a derivative
// rule reads (autodiff::saved_by_backward, run per op by functionalize's
// autograd model) collected the whole block per op: 2,967 of these ops took
// 3.7 s in every grad mode (an aot-fuzz hang), 20,000 would take minutes. Now
// users keep a hash set past 16 and the check walks only the rule's own ops.
// RUN: %python %S/Inputs/gen.py shareddiv 20000 > %t.mlir
// RUN: aot-run %t.mlir --random-inputs 3 --mode eager --grad | FileCheck %s
// CHECK: "grads": [

// Compiled training computes what eager does (a size a debug build compiles
// quickly).
// RUN: %python %S/Inputs/gen.py shareddiv 300 > %t.300.mlir
// RUN: aot-run %t.300.mlir --random-inputs 3 --mode eager -o %t.eager.json
// RUN: aot-run %t.300.mlir --random-inputs 3 --mode compiled --backend cranelift -o %t.native.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a['outputs'][0]['data'] != b['outputs'][0]['data'])" %t.eager.json %t.native.json
