// RUN: aot-run %s --random-inputs 7 --dump-inputs %t.inputs.json -o %t.a.json
// RUN: aot-run %s --inputs %t.inputs.json -o %t.b.json
// RUN: %python -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a != b)" %t.a.json %t.b.json
// RUN: aot-run %s --random-inputs 7 | FileCheck %s

/// Random inputs honour the signature's requires_grad and duplicates and
/// are reproducible from their seed.
// CHECK: "alias_of_arg": null,
// CHECK: "requires_grad": true,
func.func @main(%x: tensor<3xf32> {aot.requires_grad}, %y: tensor<3xf32> {aot.same_as = 0}) -> tensor<3xf32> {
  %0 = tensor.mul %x, %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}
