// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-reproducer.json 2>&1 | FileCheck %s --check-prefix=REPRO
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-reproducer.json --mode compiled --pipeline aot-train --backend cranelift 2>&1 | FileCheck %s --check-prefix=REPRO
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-extra-mutated.json 2>&1 | FileCheck %s --check-prefix=EXTRA-MUT
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-extra-mutated.json --mode compiled 2>&1 | FileCheck %s --check-prefix=EXTRA-MUT
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-extra-output.json 2>&1 | FileCheck %s --check-prefix=EXTRA-OUT
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-extra-output.json --mode compiled 2>&1 | FileCheck %s --check-prefix=EXTRA-OUT
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-null.json 2>&1 | FileCheck %s --check-prefix=NULL
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-null.json --mode compiled 2>&1 | FileCheck %s --check-prefix=NULL
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-nan-entry.json 2>&1 | FileCheck %s --check-prefix=NAN-ENTRY
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-key.json 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-entry-key.json 2>&1 | FileCheck %s --check-prefix=ENTRY-KEY
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-count.json 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-count.json --mode compiled 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-shape.json 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-dtype.json --mode compiled 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-nested.json | FileCheck %s --check-prefix=NESTED
// RUN: aot-run %s --inputs %S/Inputs/json-tanh.json --grad --tangents %S/Inputs/json-tangents-nested.json --mode compiled | FileCheck %s --check-prefix=NESTED
// RUN: not aot-run %s --inputs %S/Inputs/json-ragged-data.json 2>&1 | FileCheck %s --check-prefix=RAGGED
// RUN: not aot-run %s --inputs %S/Inputs/json-nested-wrong-shape.json 2>&1 | FileCheck %s --check-prefix=NESTED-SHAPE
// RUN: aot-run %s --inputs %S/Inputs/json-nested-data.json -o %t.nested.json
// RUN: aot-run %s --inputs %S/Inputs/json-tanh.json -o %t.flat.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a != b)" %t.nested.json %t.flat.json
// RUN: not aot-run %s --inputs %S/Inputs/json-unknown-top-key.json 2>&1 | FileCheck %s --check-prefix=TOP-KEY
// RUN: not aot-run %s --inputs %S/Inputs/json-negative-shape.json 2>&1 | FileCheck %s --check-prefix=NEG-SHAPE
// RUN: not aot-run %s --inputs %S/Inputs/json-negative-view-size.json 2>&1 | FileCheck %s --check-prefix=NEG-VIEW

/// Tangent files and input data are checked entry by entry: extra entries,
/// null for a tensor that takes part in the gradient, strings where a tensor
/// belongs, ragged nested lists, unknown keys and wrong shapes, counts or
/// dtypes are errors naming the entry, in both modes. Nested data must have
/// exactly the tensor's shape; a negative size is reported as such.
/// (Reproducer: silent_tangents_and_data_nonsense_accepted.)
// REPRO: aot-run: error: tangents.outputs[0]: ragged nested list
// EXTRA-MUT: aot-run: error: tangents.mutated_args: 1 entry, but the call mutates 0 arguments that autograd sees
// EXTRA-OUT: aot-run: error: tangents.outputs: 2 entries, but the function has 1 output
// NULL: aot-run: error: tangents.outputs[0]: null, but this tensor takes part in the gradient
// NAN-ENTRY: aot-run: error: tangents.outputs[0]: expected a tensor object, a list of values or null, got "nan"
// KEY: aot-run: error: tangents: unknown key 'output' (allowed: outputs, mutated_args)
// ENTRY-KEY: aot-run: error: tangents.outputs[0]: unknown key 'stride' (allowed: dtype, shape, data)
// COUNT: aot-run: error: tangents.outputs[0]: expected 6 values, got 5
// SHAPE: aot-run: error: tangents.outputs[0]: shape [2, 3], but the tensor has shape [3, 2]
// DTYPE: aot-run: error: tangents.outputs[0]: dtype f64, but the tensor is f32
// NESTED: "grads": [
// NESTED-NEXT: {
// NESTED-NEXT: "data": [
// NESTED-NEXT: 0.0,
// NESTED-NEXT: 0.0,
// NESTED-NEXT: 0.0,
// NESTED-NEXT: 0.0,
// NESTED-NEXT: {{[0-9.e-]+}},
// NESTED-NEXT: {{[0-9.e-]+}}
// NESTED-NEXT: ],
// RAGGED: aot-run: error: argument 0: 'data': ragged nested list
// NESTED-SHAPE: aot-run: error: argument 0: 'data' is a nested list of shape [2, 3], but the shape is [3, 2]
// TOP-KEY: aot-run: error: input file: unknown key 'arg' (allowed: storages, args)
// NEG-SHAPE: aot-run: error: argument 0: negative size in shape [-3, -2]
// NEG-VIEW: aot-run: error: argument 0: negative size in [-3, 2]
func.func @main(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = tensor.tanh %a : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
