// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 3 -o %t.a.json
// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 3 -o %t.b.json
// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 4 -o %t.c.json
// RUN: %python -c "import json,sys; a,b,c=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(not (a == b and a != c))" %t.a.json %t.b.json %t.c.json
// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 3 --mode compiled --dump-ir %t.ir.mlir -o %t.d.json
// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 3 --calls 2 -o %t.e.json
// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 3 --calls 2 --mode compiled -o %t.f.json
// RUN: %python -c "import json,sys; a,d,e,f=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(not (a == d and e == f and e != a))" %t.a.json %t.d.json %t.e.json %t.f.json
// RUN: FileCheck %s --input-file %t.ir.mlir --check-prefix=IR

/// The same seed gives the same numbers; another seed other numbers.
/// Compiled (rng-functionalize), the numbers are the eager ones bit for bit,
/// and a second call continues the stream in both modes.
// IR: rng.philox_uniform %arg2, %arg3
// IR: rng.philox_normal %arg2, %{{.*}}
func.func @main(%a: tensor<4xf32>, %b: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %u = rng.uniform : tensor<4xf32>
  %n = rng.normal : tensor<2x2xf32>
  return %u, %n : tensor<4xf32>, tensor<2x2xf32>
}
