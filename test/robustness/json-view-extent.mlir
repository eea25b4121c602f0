// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-stride-overflow.json 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-stride-overflow.json --mode compiled 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-stride-overflow.json --mode compiled --backend interp 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-stride-overflow.json --mode compiled --compile-for %S/Inputs/json-view-ok.json 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-ok.json --mode compiled --compile-for %S/Inputs/json-view-stride-overflow.json 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not aot-run %s --entry argmax --inputs %S/Inputs/json-view-i32-max-stride.json 2>&1 | FileCheck %s --check-prefix=I32
// RUN: not aot-run %s --entry argmax --inputs %S/Inputs/json-view-i32-max-stride.json --mode compiled 2>&1 | FileCheck %s --check-prefix=I32
// RUN: not aot-run %s --entry two --inputs %S/Inputs/json-view-offset-overflow.json 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not aot-run %s --entry two --inputs %S/Inputs/json-view-offset-overflow.json --mode compiled 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-outside.json 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-rank.json 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not aot-run %s --entry neg --inputs %S/Inputs/json-view-negative-stride.json 2>&1 | FileCheck %s --check-prefix=NEG-STRIDE
// RUN: aot-run %s --entry neg --inputs %S/Inputs/json-view-ok.json | FileCheck %s --check-prefix=OK
// RUN: aot-run %s --entry neg --inputs %S/Inputs/json-view-ok.json --mode compiled --compile-for %S/Inputs/json-view-ok.json | FileCheck %s --check-prefix=OK

/// A view argument whose extent overflows 64 bits or leaves its storage is
/// an error naming the argument at the JSON boundary (inputs and
/// --compile-for alike), in every mode: it never reaches the runtime, where
/// it was an index panic, an out-of-memory abort, or memory corruption in
/// native code. (Reproducers: panic_buffer_rs_7x/9x_input_view_stride_overflow_*,
/// signal_SIGSEGV_cranelift_input_view_stride_overflow,
/// signal_SIGABRT_heap_corruption_cranelift_input_view_overflow,
/// oom_resize_of_overflowing_input_view.)
// STRIDE: aot-run: error: argument 0: a view with size [4], stride [4611686018427387904] and offset 0 overflows a 64-bit index
// I32: aot-run: error: argument 0: a view with size [2, 4], stride [4, 9223372036854775807] and offset 0 overflows a 64-bit index
// OFFSET: aot-run: error: argument 0: a view with size [2], stride [9223372036854775807] and offset 4611686018427387904 overflows a 64-bit index
// OUTSIDE: aot-run: error: argument 0: a view with size [4], stride [2] and offset 0 reaches element 6, outside its storage of 4 elements
// RANK: aot-run: error: argument 0: 1 sizes but 2 strides
// NEG-STRIDE: aot-run: error: argument 0: negative stride in [-1]
// OK: "outputs"
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @argmax(%a: tensor<2x4xi32>) -> tensor<2xi64> {
  %0 = tensor.argmax %a {dim = 1} : tensor<2x4xi32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

func.func @two(%x: tensor<2xf32>, %src: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = mut.resize_ %x {size = [2, 2]} : tensor<2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
