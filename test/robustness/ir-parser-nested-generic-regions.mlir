// Reproducer stack_overflow_parser_nested_generic_regions_20000: generic
// `"builtin.module"() ({` nested 20000 deep overflowed the parser's stack.
// At the nesting limit the generic form parses and re-prints.

// RUN: %python -c "print('\"builtin.module\"() ({\n' * 20000 + '}) : () -> ()\n' * 20000)" > %t.deep
// RUN: not aot-opt %t.deep 2>&1 | FileCheck %s
// CHECK: ir-parser-nested-generic-regions.mlir.tmp.deep:257:21: error: nesting deeper than 256 (raise the limit with AOT_MAX_NESTING)

// RUN: %python -c "print('\"builtin.module\"() ({\n' * 256 + '}) : () -> ()\n' * 256)" > %t.ok
// RUN: aot-opt %t.ok --print-generic > %t.generic
// RUN: aot-opt %t.generic | FileCheck %s --check-prefix=OK
// OK-COUNT-256: module {
