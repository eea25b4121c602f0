// RUN: not aot-run %s --entry huge_dims --random-inputs 168 2>&1 | FileCheck %s --check-prefix=DIMS
// RUN: not aot-run %s --entry huge_dims --random-inputs 168 --mode compiled 2>&1 | FileCheck %s --check-prefix=DIMS
// RUN: not aot-run %s --entry huge_arg --random-inputs 3 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not aot-run %s --entry huge_arg --random-inputs 3 --grad 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not aot-run %s --entry huge_arg --random-inputs 3 --mode compiled --pipeline aot-train --grad 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not aot-run %s --entry huge_second --random-inputs 400 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: not aot-run %s --entry small --inputs %S/Inputs/json-small.json --max-alloc-bytes 8 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not aot-run %s --entry small --inputs %S/Inputs/json-small-storage.json --max-alloc-bytes 8 2>&1 | FileCheck %s --check-prefix=STORAGE
// RUN: env AOT_MAX_ALLOC_BYTES=8 not aot-run %s --entry small --inputs %S/Inputs/json-small.json 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: aot-run %s --entry small --inputs %S/Inputs/json-small.json --max-alloc-bytes 16

/// --random-inputs for an argument type larger than the allocation limit is
/// an error naming the argument before anything is allocated (it was a
/// capacity-overflow panic or an out-of-memory abort), in every mode; so are
/// input files whose arguments or storages exceed the limit.
/// (Reproducers: panic_capacity_overflow_run_mod_rs_423_random_inputs_huge_type,
/// oom_random_inputs_huge_dim_1..5, oom_huge_shape_argument.)
// DIMS: aot-run: error: argument 0 needs 26388279066624 bytes, more than the allocation limit of {{[0-9]+}} bytes (raise it with AOT_MAX_ALLOC_BYTES or --max-alloc-bytes)
// ARG: aot-run: error: argument 0 needs 4398046511104 bytes, more than the allocation limit of {{[0-9]+}} bytes
// SECOND: aot-run: error: argument 1 needs 8796093022208 bytes, more than the allocation limit of {{[0-9]+}} bytes
// FILE: aot-run: error: argument 0 needs 16 bytes, more than the allocation limit of 8 bytes
// STORAGE: aot-run: error: storage 0 needs 16 bytes, more than the allocation limit of 8 bytes
func.func @huge_dims(%a: tensor<2x1099511627776x3xf32>, %b: tensor<2x1099511627776x3xf32>) -> tensor<2x1099511627776x3xf32> {
  %0 = tensor.pow %a, %b : tensor<2x1099511627776x3xf32>
  return %0 : tensor<2x1099511627776x3xf32>
}

func.func @huge_arg(%x: tensor<1099511627776xf32> {aot.requires_grad}) -> tensor<1099511627776xf32> {
  %y = tensor.neg %x : tensor<1099511627776xf32>
  return %y : tensor<1099511627776xf32>
}

func.func @huge_second(%x: tensor<2xi64>, %y: tensor<1099511627776xi64>) -> tensor<2xi64> {
  return %x : tensor<2xi64>
}

func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tensor.neg %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
