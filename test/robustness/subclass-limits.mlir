// Hostile subclass declarations end in a located error, never a stack
// overflow or an exponential blow-up: a chain of 100000 nested classes
// (nesting is bounded by AOT_MAX_NESTING), classes that double their leaves
// at each of 40 levels (2^40 dense tensors; bounded by AOT_MAX_INLINE_OPS),
// and a cycle.

// RUN: %python -c "import sys; n=100000; t='!aot.subclass<@C' + str(n - 1) + ', tensor<2xf32>>'; sys.stdout.write('aot.subclass @C0 {inner = [\"a\"]}\n' + ''.join(f'aot.subclass @C{i} {{inner = [\"a\"], inner_classes = [\"C{i - 1}\"]}}\n' for i in range(1, n)) + 'func.func @main(%%x: ' + t + ') -> ' + t + ' {\n  %%0 = tensor.neg %%x : ' + t + '\n  return %%0 : ' + t + '\n}\n')" > %t.chain
// RUN: not aot-opt %t.chain --pass-pipeline='builtin.module(aot-inference)' 2>&1 | FileCheck %s --check-prefix=CHAIN
// RUN: not aot-run %t.chain --random-inputs 1 --mode compiled 2>&1 | FileCheck %s --check-prefix=CHAIN
// CHAIN: error: 'aot.subclass' op subclass @C{{[0-9]+}} is nested more than 256 classes deep (AOT_MAX_NESTING)

// RUN: %python -c "import sys; n=40; t='!aot.subclass<@D' + str(n - 1) + ', tensor<2xf32>>'; sys.stdout.write('aot.subclass @D0 {inner = [\"a\", \"b\"]}\n' + ''.join(f'aot.subclass @D{i} {{inner = [\"a\", \"b\"], inner_classes = [\"D{i - 1}\", \"D{i - 1}\"]}}\n' for i in range(1, n)) + 'func.func @main(%%x: ' + t + ') {\n  return\n}\n')" > %t.wide
// RUN: not aot-opt %t.wide --pass-pipeline='builtin.module(aot-train)' 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: error: 'aot.subclass' op subclass @D{{[0-9]+}} flattens to more than 1000000 dense tensors (AOT_MAX_INLINE_OPS)

// RUN: not aot-opt %s --pass-pipeline='builtin.module(func.func(flatten-subclasses))' 2>&1 | FileCheck %s --check-prefix=CYCLE
// CYCLE: error: 'aot.subclass' op subclass @{{A|B}} contains itself
aot.subclass @A {inner = ["x"], inner_classes = ["B"]}
aot.subclass @B {inner = ["y"], inner_classes = ["A"]}
func.func @main(%x: !aot.subclass<@A, tensor<2xf32>>) -> !aot.subclass<@A, tensor<2xf32>> {
  return %x : !aot.subclass<@A, tensor<2xf32>>
}
