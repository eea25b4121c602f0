// Subclass values at aot-run's JSON boundary (docs/subclasses.md): a
// subclass argument is its inner tensors, checked against the class (name,
// inner count, constant metadata); outputs, final arguments and gradients
// come back as subclass values; a dense tangent for a subclass output is
// used for every component.
// RUN: aot-run %s --inputs %S/Inputs/subclass-ok.json | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=OUT
// RUN: aot-run %s --inputs %S/Inputs/subclass-ok.json --mode compiled | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=OUT
// RUN: aot-run %s --inputs %S/Inputs/subclass-ok.json --grad --tangents %S/Inputs/subclass-tangents.json | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=GRAD
// RUN: aot-run %s --inputs %S/Inputs/subclass-ok.json --mode compiled --grad --tangents %S/Inputs/subclass-tangents.json | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=GRAD
// RUN: aot-run %s --inputs %S/Inputs/subclass-ok.json --mode compiled --backend interp --grad --tangents %S/Inputs/subclass-tangents-sub.json | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=GRADSUB
// RUN: aot-run %s --inputs %S/Inputs/subclass-same-as.json | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=SAMEAS
// RUN: not aot-run %s --inputs %S/Inputs/subclass-ok.json --grad --tangents %S/Inputs/subclass-tangent-wrong.json 2>&1 | FileCheck %s --check-prefix=TANGENT
// RUN: not aot-run %s --inputs %S/Inputs/subclass-wrong-class.json 2>&1 | FileCheck %s --check-prefix=CLASS
// RUN: not aot-run %s --inputs %S/Inputs/subclass-inner-count.json --mode compiled 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not aot-run %s --inputs %S/Inputs/subclass-meta.json 2>&1 | FileCheck %s --check-prefix=META
// RUN: not aot-run %s --inputs %S/Inputs/subclass-dense-for-sub.json 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: aot-run %s --inputs %S/Inputs/subclass-shared-grad.json --mode compiled --grad | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=SHARED
// RUN: aot-run %s --inputs %S/Inputs/subclass-shared-grad.json --grad | %python -c "import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))" | FileCheck %s --check-prefix=SHARED
// RUN: not aot-run %s --inputs %S/Inputs/subclass-same-as-grad.json --mode compiled --grad 2>&1 | FileCheck %s --check-prefix=DUPGRAD
// RUN: not aot-run %s --entry written --inputs %S/Inputs/subclass-shared-grad.json --mode compiled --grad 2>&1 | FileCheck %s --check-prefix=WRITTEN
// RUN: not aot-run %s --inputs %S/Inputs/subclass-inner-grad.json 2>&1 | FileCheck %s --check-prefix=INNERGRAD

// OUT-LABEL: "outputs"
// OUT: "alias_of_arg": null
// OUT: "inner": [
// OUT: "data": [0.5, 0.5, 6.0]
// OUT: "data": [5.0, 5.0, 60.0]
// OUT: "meta": {"scale": 2}
// OUT: "requires_grad": true
// OUT: "subclass": "Scaled"
// OUT: "data": [-9.0, -18.0, -27.0]
// OUT: "requires_grad": false

// A dense tangent [1, 2, 3] for the Scaled output: both components get it
// (d(x*y)/dx = y per component); the dense output's tangent is absent.
// GRAD: "grads": [
// GRAD: "inner": [
// GRAD: "data": [0.5, 0.5, 6.0]
// GRAD: "data": [0.5, 0.5, 6.0]
// GRAD: "subclass": "Scaled"
// GRAD: null

// GRADSUB: "grads": [
// GRADSUB: "data": [0.5, 0.25, 2.0]
// GRADSUB: "data": [1.0, 0.5, 4.0]

// The second argument is the first's inner tensor "b".
// SAMEAS: "outputs"
// SAMEAS: "data": [4.0, 10.0, 18.0]
// SAMEAS: "data": [16.0, 25.0, 36.0]

// TANGENT: aot-run: error: tangent of output 1: the output is a dense tensor, but the tangent is a subclass "Scaled"
// CLASS: aot-run: error: argument 0: the function takes a @Scaled value, but the input is a "TwoTensor" value
// COUNT: aot-run: error: argument 0: @Scaled has 2 inner tensors, but the input gives 1
// META: aot-run: error: argument 0: @Scaled was compiled for the constant metadata {"scale":2}, but the input has {"scale":3}
// DENSE: aot-run: error: argument 0: the function takes a @Scaled value: give {"subclass": "Scaled", "inner": [...]}
// A dense argument that requires grad, read by the components: its
// gradient is a @Scaled value (each component's use separately).
// SHARED: "grads": [null, {"dtype": "f32", "inner": [{"data": [1.0, 2.0, 3.0], "dtype": "f32", "shape": [3]}, {"data": [1.0, 2.0, 3.0], "dtype": "f32", "shape": [3]}], "meta": {"scale": 2}, "shape": [3], "subclass": "Scaled"}]
// ... unless a value depending on it is written before the components read it.
// ... or when it is a duplicate (here of an inner tensor that requires
// grad): its replicas would be the same tensor.
// DUPGRAD: aot-run: error: argument 1 is a dense tensor that requires grad and is shared by the components of a subclass op
// WRITTEN: aot-run: error: argument 1 is a dense tensor that requires grad and is shared by the components of a subclass op
// INNERGRAD: aot-run: error: argument 0 inner tensor 0: an inner tensor takes 'requires_grad' from its subclass value; remove it here
aot.subclass @Scaled {inner = ["lo", "hi"], meta = {scale = 2}}
func.func @main(%x: !aot.subclass<@Scaled, tensor<3xf32>>, %y: tensor<3xf32>) -> (!aot.subclass<@Scaled, tensor<3xf32>>, tensor<3xf32>) {
  %0 = tensor.mul %x, %y : !aot.subclass<@Scaled, tensor<3xf32>>, tensor<3xf32> -> !aot.subclass<@Scaled, tensor<3xf32>>
  %a, %b = aot.subclass_unwrap %x : !aot.subclass<@Scaled, tensor<3xf32>> -> (tensor<3xf32>, tensor<3xf32>)
  %1 = tensor.sub %a, %b : tensor<3xf32>
  %2 = view.detach %1 : tensor<3xf32>
  return %0, %2 : !aot.subclass<@Scaled, tensor<3xf32>>, tensor<3xf32>
}

func.func @written(%x: !aot.subclass<@Scaled, tensor<3xf32>>, %y: tensor<3xf32>) -> !aot.subclass<@Scaled, tensor<3xf32>> {
  %c = tensor.constant dense<1.0> : tensor<3xf32>
  %z = tensor.mul %y, %c : tensor<3xf32>
  mut.add_ %z, %c : tensor<3xf32>
  %0 = tensor.mul %x, %z : !aot.subclass<@Scaled, tensor<3xf32>>, tensor<3xf32> -> !aot.subclass<@Scaled, tensor<3xf32>>
  return %0 : !aot.subclass<@Scaled, tensor<3xf32>>
}
