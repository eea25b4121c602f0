// Reproducer wrong_roundtrip_generic_form_of_empty_module: the generic form
// of an empty module, `"builtin.module"() ({ })`, did not re-parse. As in
// MLIR it is a module with one empty block.

// RUN: aot-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: aot-opt %S/Inputs/empty-generic-modules.mlir | FileCheck %s --check-prefix=NESTED

// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: }) : () -> ()
// CHECK: module {
// CHECK-NEXT: }

module {
}

// NESTED: module {
// NESTED-NEXT: module {
// NESTED-NEXT: }
// NESTED-NEXT: module @named {
// NESTED-NEXT: }
// NESTED-NEXT: }
