// RUN: not aot-run %s --mode compiled --compile-for %S/Inputs/dup.json --inputs %S/Inputs/distinct.json 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not aot-run %s --mode compiled --compile-for %S/Inputs/distinct.json --inputs %S/Inputs/dup.json 2>&1 | FileCheck %s --check-prefix=DISTINCT
// RUN: not aot-run %s --mode compiled --compile-for %S/Inputs/distinct.json --inputs %S/Inputs/requires-grad.json 2>&1 | FileCheck %s --check-prefix=RG
// RUN: not aot-run %s --mode compiled --compile-for %S/Inputs/requires-grad.json --inputs %S/Inputs/distinct.json 2>&1 | FileCheck %s --check-prefix=NORG
// RUN: not aot-run %s --mode compiled --compile-for %S/Inputs/two-storages.json --inputs %S/Inputs/overlapping.json 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not aot-run %s --mode compiled --compile-for %S/Inputs/overlapping.json --inputs %S/Inputs/two-storages.json 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: aot-run %s --mode compiled --compile-for %S/Inputs/distinct.json --inputs %S/Inputs/distinct.json | FileCheck %s --check-prefix=OK

/// A compiled function checks at every call that its arguments still match
/// the convention it was compiled for, and refuses the call otherwise:
/// duplicates both ways, requires_grad both ways, two views whose overlap
/// appears only at the call (pytorch issue 139789), and views compiled as
/// one storage (a synthetic base) given two storages.
// DUP: aot-run: error: argument 1 would be a duplicate of argument 0: the function was compiled for the same tensor in both places, but got two distinct tensors
// DISTINCT: aot-run: error: arguments 0 and 1 are the same tensor, and the function mutates argument 0, but it was compiled for distinct tensors
// RG: aot-run: error: argument 0 requires grad, but the function was compiled for an argument that does not
// NORG: aot-run: error: argument 0 does not require grad, but the function was compiled for an argument that does
// OVERLAP: aot-run: error: arguments 0 and 1 may overlap in memory, and the function mutates argument 0, but it was compiled for independent arguments
// SHARED: aot-run: error: arguments 0 and 1 were compiled as views of one storage, but got tensors with different storages
// OK: "outputs"
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  mut.neg_ %a : tensor<4xf32>
  %0 = tensor.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
