// Reproducer stack_overflow_parser_nested_dense_100000: a dense literal of
// `[` nested 100000 deep overflowed the parser's stack. Dense lists count
// toward the nesting limit.

// RUN: %python -c "print('\"func.func\"() ({\n}) {function_type = () -> (), sym_name = dense<' + '[' * 100000 + '1.0' + ']' * 100000 + '> : tensor<1xf32>} : () -> ()')" > %t.deep
// RUN: not aot-opt %t.deep 2>&1 | FileCheck %s
// CHECK: ir-parser-nested-dense.mlir.tmp.deep:2:304: error: nesting deeper than 256 (raise the limit with AOT_MAX_NESTING)

// RUN: %python -c "print('%%c = tensor.constant dense<' + '[' * 64 + '2.5' + ']' * 64 + '> : tensor<' + '1x' * 64 + 'f32>')" > %t.ok
// RUN: aot-opt %t.ok > %t.out
// RUN: %python -c "import sys; sys.exit(('dense<' + '[' * 64 + '2.5' + ']' * 64 + '>') not in open(sys.argv[1]).read())" %t.out
