// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 3 -o %t.a.json
// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 3 -o %t.b.json
// RUN: aot-run %s --inputs %S/Inputs/aliased.json --seed 4 -o %t.c.json
// RUN: %python -c "import json,sys; a,b,c=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(not (a == b and a != c))" %t.a.json %t.b.json %t.c.json

/// The same seed gives the same numbers; another seed other numbers.
func.func @main(%a: tensor<4xf32>, %b: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %u = rng.uniform : tensor<4xf32>
  %n = rng.normal : tensor<2x2xf32>
  return %u, %n : tensor<4xf32>, tensor<2x2xf32>
}
