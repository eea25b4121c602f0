// RUN: aot-run %s --inputs %S/Inputs/json-i64-exact.json | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/json-i64-exact.json --mode compiled --backend cranelift | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/json-i64-exact.json --mode compiled --backend interp | FileCheck %s
// RUN: not aot-run %s --inputs %S/Inputs/json-i64-fraction.json 2>&1 | FileCheck %s --check-prefix=FRACTION
// RUN: not aot-run %s --inputs %S/Inputs/json-i64-too-big.json 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not aot-run %s --inputs %S/Inputs/json-i64-nan.json 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not aot-run %s --inputs %S/Inputs/json-i1-two.json 2>&1 | FileCheck %s --check-prefix=BOOL

/// Integer inputs are read exactly (never through f64) and printed exactly;
/// a value that is not an integer of the dtype is an error naming the entry.
/// (Reproducer: silent_i64_inputs_rounded_through_f64.)
// CHECK: "args_after": [
// CHECK: 9007199254740993,
// CHECK-NEXT: 9223372036854775807,
// CHECK: "outputs": [
// CHECK: "data": [
// CHECK-NEXT: 9007199254740993,
// CHECK-NEXT: 9223372036854775807,
// CHECK-NEXT: -9223372036854775807,
// CHECK-NEXT: 123456789012345678
// FRACTION: aot-run: error: argument 1: 'data': value 1.5 at index 2 is not a valid i64
// BIG: aot-run: error: argument 1: 'data': value 9223372036854775808 at index 0 is not a valid i64
// NAN: aot-run: error: argument 2: 'data': value "nan" at index 3 is not a valid i64
// BOOL: aot-run: error: argument 0: 'data': value 2 at index 1 is not a valid i1
func.func @main(%a: tensor<4xi1>, %b: tensor<4xi64>, %c: tensor<4xi64>) -> tensor<4xi64> {
  %0 = tensor.where %a, %b, %c : tensor<4xi1>, tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
