// Reproducer stack_overflow_parser_nested_module_100000: `module {` nested
// 100000 deep overflowed the parser's stack. Nesting is limited (default
// 256, AOT_MAX_NESTING): 256 nested modules parse, verify, print and run the
// training pipeline; one more is a located error.

// RUN: %python -c "print('module {\n' * 100000 + '}\n' * 100000)" > %t.deep
// RUN: not aot-opt %t.deep 2>&1 | FileCheck %s
// CHECK: ir-parser-nested-module.mlir.tmp.deep:257:8: error: nesting deeper than 256 (raise the limit with AOT_MAX_NESTING)

// RUN: %python -c "print('module {\n' * 256 + '}\n' * 256)" > %t.ok
// RUN: aot-opt %t.ok --pass-pipeline='builtin.module(aot-train)' | FileCheck %s --check-prefix=OK
// OK-COUNT-256: module {

// RUN: env AOT_MAX_NESTING=3 not aot-opt %t.ok 2>&1 | FileCheck %s --check-prefix=ENV
// ENV: ir-parser-nested-module.mlir.tmp.ok:4:8: error: nesting deeper than 3 (raise the limit with AOT_MAX_NESTING)

// A function at the deepest level goes through verification, the training
// pipeline and printing.
// RUN: %python -c "print('module {\n' * 255 + 'func.func @main(%%x: tensor<3x4xf32>) -> tensor<4xi64> {\n  %%0 = tensor.neg %%x : tensor<3x4xf32>\n  %%1 = tensor.argmax %%0 {dim = 0} : tensor<3x4xf32> -> tensor<4xi64>\n  return %%1 : tensor<4xi64>\n}\n' + '}\n' * 255)" > %t.fn
// RUN: aot-opt %t.fn --pass-pipeline='builtin.module(aot-train)' | FileCheck %s --check-prefix=FN
// FN: func.func @main
// FN: tensor.neg
// FN: tensor.argmax
