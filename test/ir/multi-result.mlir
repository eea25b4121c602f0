// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s

/// Results of a multi-result op are named as a group and used with `#N`;
/// a call returning several values is the simplest such op.
// CHECK-LABEL: func.func private @two
func.func private @two(tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)

// CHECK-LABEL: func.func @use_group
// CHECK:         %[[G:.*]]:2 = call @two(%arg0) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK:         %[[S:.*]] = tensor.add %[[G]]#0, %[[G]]#1 : tensor<2xf32>
func.func @use_group(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a:2 = func.call @two(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %s = tensor.add %a#0, %a#1 : tensor<2xf32>
  return %s : tensor<2xf32>
}

/// Several result names can bind the results of one op.
// CHECK-LABEL: func.func @named_results
// CHECK:         %[[G:.*]]:2 = call @two
// CHECK:         tensor.mul %[[G]]#1, %[[G]]#0
func.func @named_results(%x: tensor<2xf32>) -> tensor<2xf32> {
  %p, %q = func.call @two(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %s = tensor.mul %q, %p : tensor<2xf32>
  return %s : tensor<2xf32>
}
