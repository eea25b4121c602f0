// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cleanup))' | FileCheck %s
// RUN: aot-opt %s --pass-pipeline='cleanup' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: not aot-opt %s --pass-pipeline='cleanup{x=1}' 2>&1 | FileCheck %s --check-prefix=OPTS

/// A named pipeline stands for its passes; an unanchored pipeline runs on the module.
// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %[[M:.*]] = tensor.mul
// CHECK-NEXT:    %[[A:.*]] = tensor.add %[[M]], %[[M]]
// CHECK-NEXT:    return %[[A]]
// DUMP: Pass Manager with builtin.module(cse,dce)
// OPTS: error: pipeline 'cleanup' takes no options

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  %1 = tensor.mul %x, %x : tensor<4xf32>
  %c = tensor.constant dense<1.0> : tensor<4xf32>
  %2 = tensor.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
