// Reproducer stack_overflow_parser_nested_attr_list_20000: an attribute of
// `[` nested 20000 deep overflowed the parser's stack. Array attributes
// (and dictionaries) count toward the nesting limit.

// RUN: %python -c "print('func.func @f() attributes {aot.a = ' + '[' * 20000 + '} {\n  return\n}')" > %t.deep
// RUN: not aot-opt %t.deep 2>&1 | FileCheck %s --strict-whitespace
// CHECK: ir-parser-nested-attr-list.mlir.tmp.deep:1:291: error: nesting deeper than 256 (raise the limit with AOT_MAX_NESTING)
// The 20000-byte line is echoed as a window around the column.
// CHECK-NEXT: {{^\.\.\.\[{160}\.\.\.$}}
// CHECK-NEXT: {{^ {83}\^$}}

// RUN: %python -c "print('func.func @f() attributes {aot.a = ' + '{a = ' * 300 + '} {\n  return\n}')" > %t.dict
// RUN: not aot-opt %t.dict 2>&1 | FileCheck %s --check-prefix=DICT
// DICT: ir-parser-nested-attr-list.mlir.tmp.dict:1:1311: error: nesting deeper than 256 (raise the limit with AOT_MAX_NESTING)

// RUN: %python -c "print('func.func @f() attributes {aot.a = ' + '[' * 255 + '1' + ']' * 255 + '} {\n  return\n}')" > %t.ok
// RUN: aot-opt %t.ok | aot-opt > %t.out
// RUN: %python -c "import sys; sys.exit(('aot.a = ' + '[' * 255 + '1' + ']' * 255 + '}') not in open(sys.argv[1]).read())" %t.out
