// The JSON Schemas of docs/reference/schema/ describe what aot-run reads and
// writes: every output below (eager and compiled, with and without --grad,
// an output aliasing an argument, a differentiable base storage, a
// duplicate, exact i64 data) validates against output.schema.json, and the
// test corpus's inputs, tangents and PyTorch goldens against theirs.
//
// RUN: aot-run %s --inputs %S/Inputs/schema-base.json -o %t.eager.json
// RUN: aot-run %s --inputs %S/Inputs/schema-base.json --grad --tangents %S/Inputs/schema-tangents.json -o %t.eager-grad.json
// RUN: aot-run %s --inputs %S/Inputs/schema-base.json --mode compiled -o %t.compiled.json
// RUN: aot-run %s --inputs %S/Inputs/schema-base.json --mode compiled --grad --tangents %S/Inputs/schema-tangents.json -o %t.compiled-grad.json
// RUN: aot-run %s --random-inputs 3 --mode compiled --backend interp --grad --dump-inputs %t.random-inputs.json -o %t.random.json
// RUN: %python %repo/test/utils/validate_json.py %repo/docs/reference/schema/output.schema.json %t.eager.json %t.eager-grad.json %t.compiled.json %t.compiled-grad.json %t.random.json | FileCheck %s --check-prefix=VALID
// RUN: %python %repo/test/utils/validate_json.py %repo/docs/reference/schema/inputs.schema.json %S/Inputs/schema-base.json %t.random-inputs.json %repo/test/run/*/*.inputs.json
// RUN: %python %repo/test/utils/validate_json.py %repo/docs/reference/schema/tangents.schema.json %S/Inputs/schema-tangents.json %repo/test/run/*/*.tangents.json
// RUN: %python %repo/test/utils/validate_json.py %repo/docs/reference/schema/output.schema.json %repo/test/run/*/*.golden.json --skip-key error
// RUN: FileCheck %s < %t.compiled-grad.json
// RUN: FileCheck %s --check-prefix=EAGER < %t.eager-grad.json
//
// The schemas reject what aot-run rejects (an unknown key) and what it never
// writes (an alias_of_arg that is not an index).
// RUN: not %python %repo/test/utils/validate_json.py %repo/docs/reference/schema/inputs.schema.json %S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=REJECT-IN
// RUN: not %python %repo/test/utils/validate_json.py %repo/docs/reference/schema/output.schema.json %S/Inputs/schema-bad-output.json 2>&1 | FileCheck %s --check-prefix=REJECT-OUT

// VALID: validated 5 file(s) against output.schema.json: 5 ok, 0 failed

/// Output 0 views argument 0 (a view of the base storage), output 2 is
/// argument 4 itself; the base's gradient is in storage_grads.
// CHECK:      "grads": [
// CHECK-NEXT:   null,
// CHECK-NEXT:   null,
// CHECK-NEXT:   {
// CHECK-NEXT:     "data": [
// CHECK-NEXT:       27.5,
// CHECK:      "outputs": [
// CHECK:        "alias_of_arg": 0,
// CHECK:        "alias_of_arg": null,
// CHECK:        "alias_of_arg": 4,
// CHECK-NEXT:   "alias_of_output": null,
// CHECK-NEXT:   "data": [
// CHECK-NEXT:     9007199254740993,
// CHECK:      "storage_grads": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "data": [
// CHECK-NEXT:       0.75,
// CHECK-NEXT:       2.5,
// CHECK-NEXT:       5.25,
// CHECK-NEXT:       9.0,

// EAGER:      "storage_grads": [
// EAGER-NEXT:   {
// EAGER-NEXT:     "data": [
// EAGER-NEXT:       0.75,

// REJECT-IN: unknown-key.json: args/0: {{.*}} is not valid under any of the given schemas
// REJECT-OUT: schema-bad-output.json: outputs/0: {{.*}}'alias_of_arg': '0'} is not valid under any of the given schemas
func.func @main(%a: tensor<4xf32>, %b: tensor<2x2xf32>, %w: tensor<4xf32> {aot.requires_grad}, %w2: tensor<4xf32> {aot.requires_grad}, %i: tensor<2xi64>) -> (tensor<2x2xf32>, tensor<4xf32>, tensor<2xi64>) {
  mut.mul_ %a, %w : tensor<4xf32>
  %0 = view.view %a {shape = [2, 2]} : tensor<4xf32> -> tensor<2x2xf32>
  %s = tensor.sum %b : tensor<2x2xf32> -> tensor<f32>
  %1 = tensor.mul %w2, %s : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0, %1, %i : tensor<2x2xf32>, tensor<4xf32>, tensor<2xi64>
}
