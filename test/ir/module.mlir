// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

/// An explicit module with a name and attributes is kept as written; nothing
/// is wrapped around it.
// CHECK:      module @named attributes {aot.tag = "t"} {
// CHECK-NEXT:   func.func @f()
// CHECK:      }
// CHECK-NOT:  module
// GENERIC:      "builtin.module"() ({
// GENERIC-NEXT:   "func.func"() ({
// GENERIC-NEXT:     "func.return"() : () -> ()
// GENERIC-NEXT:   }) {function_type = () -> (), sym_name = "f"} : () -> ()
// GENERIC-NEXT: }) {aot.tag = "t", sym_name = "named"} : () -> ()
module @named attributes {aot.tag = "t"} {
  func.func @f() {
    return
  }
}
