// Reproducer stack_overflow_parser_open_brackets_100000: an op's type of
// `(` repeated 100000 times overflowed the parser's stack. Function types
// count toward the nesting limit.

// RUN: %python -c "print('\"func.return\"() :' + '(' * 100000)" > %t.deep
// RUN: not aot-opt %t.deep 2>&1 | FileCheck %s
// CHECK: ir-parser-open-brackets.mlir.tmp.deep:1:273: error: nesting deeper than 256 (raise the limit with AOT_MAX_NESTING)

// RUN: %python -c "print('func.func @f() attributes {aot.t = ' + '(' * 255 + ') -> ()' * 255 + '} {\n  return\n}')" > %t.ok
// RUN: aot-opt %t.ok | aot-opt > %t.out
// RUN: %python -c "import sys; sys.exit(('aot.t = ' + '(' * 255 + ') -> ()' * 255 + '}') not in open(sys.argv[1]).read())" %t.out
