// Programs PyTorch rejects: eager raises PyTorch's error at the op, and a
// compiled run (inference or training, interpreter or native) fails too.
// Compiled runs get one function alone (the pipeline compiles every function).
// RUN: not aot-run %s --entry nograd_view --random-inputs 0 2>&1 | FileCheck %s --check-prefix=NOGRAD
// RUN: sed -n '/^func.func @nograd_view(/,/^}/p' %s > %t.nograd.mlir
// RUN: not aot-run %t.nograd.mlir --random-inputs 0 --mode compiled --backend interp 2>&1 | FileCheck %s --check-prefix=NOGRAD-C
// RUN: not aot-run %t.nograd.mlir --random-inputs 0 --mode compiled --pipeline aot-train --grad 2>&1 | FileCheck %s --check-prefix=NOGRAD-C
// RUN: not aot-run %s --entry view_of_nograd_view --random-inputs 0 2>&1 | FileCheck %s --check-prefix=VOV
// RUN: sed -n '/^func.func @view_of_nograd_view(/,/^}/p' %s > %t.vov.mlir
// RUN: not aot-run %t.vov.mlir --random-inputs 0 --mode compiled 2>&1 | FileCheck %s --check-prefix=VOV-C
// RUN: not aot-run %t.vov.mlir --random-inputs 0 --mode compiled --pipeline aot-train --backend interp --grad 2>&1 | FileCheck %s --check-prefix=VOV-C
// RUN: not aot-run %s --entry split_output --random-inputs 0 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: sed -n '/^func.func @split_output(/,/^}/p' %s > %t.split.mlir
// RUN: not aot-run %t.split.mlir --random-inputs 0 --mode compiled 2>&1 | FileCheck %s --check-prefix=SPLIT-C
// RUN: not aot-run %s --entry index_put_self --random-inputs 0 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: sed -n '/^func.func @index_put_self(/,/^}/p' %s > %t.index.mlir
// RUN: not aot-run %t.index.mlir --random-inputs 0 --mode compiled 2>&1 | FileCheck %s --check-prefix=INDEX-C
// RUN: not aot-run %t.index.mlir --random-inputs 0 --mode compiled --pipeline aot-train --grad 2>&1 | FileCheck %s --check-prefix=INDEX-C
// RUN: not aot-run %s --entry unbind_used_after_write --random-inputs 0 2>&1 | FileCheck %s --check-prefix=USE
// RUN: sed -n '/^func.func @unbind_used_after_write(/,/^}/p' %s > %t.use.mlir
// RUN: not aot-run %t.use.mlir --random-inputs 0 --mode compiled 2>&1 | FileCheck %s --check-prefix=USE-C
// RUN: not aot-run %t.use.mlir --random-inputs 0 --mode compiled --pipeline aot-train --backend interp --grad 2>&1 | FileCheck %s --check-prefix=USE-C

// NOGRAD: conformance-errors.mlir:[[# @LINE + 6]]:3: error: 'mut.zero_' op A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden.
// NOGRAD-NOT: "outputs"
// NOGRAD-C: :3: error: 'mut.zero_' op A view was created in no_grad mode and is being modified inplace with grad mode enabled.
// NOGRAD-C-NOT: "outputs"
func.func @nograd_view(%x: tensor<4x3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %v:4 = "view.unbind"(%x) {dim = 0 : i64, aot.no_grad} : (tensor<4x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  "mut.zero_"(%v#3) : (tensor<3xf32>) -> ()
  return %v#3 : tensor<3xf32>
}

// VOV: conformance-errors.mlir:[[# @LINE + 8]]:3: error: 'mut.div_' op Output 0 of Unsqueeze is a view of a view which was created in no_grad mode and is being modified inplace with grad mode enabled.
// VOV-NOT: "outputs"
// VOV-C: :3: error: 'mut.div_' op Output 0 of Unsqueeze is a view of a view which was created in no_grad mode
// VOV-C-NOT: "outputs"
func.func @view_of_nograd_view(%x: tensor<3x2xf32> {aot.requires_grad}) -> tensor<1x2x1xf32> {
  %v0 = "view.reshape"(%x) {shape = [3, 2, 1], aot.no_grad} : (tensor<3x2xf32>) -> tensor<3x2x1xf32>
  %v1 = "view.unsqueeze"(%v0) {dim = 1 : i64} : (tensor<3x2x1xf32>) -> tensor<3x1x2x1xf32>
  %v2 = "tensor.full"() {value = -0.76 : f64} : () -> tensor<1x2x1xf32>
  "mut.div_"(%v1, %v2) : (tensor<3x1x2x1xf32>, tensor<1x2x1xf32>) -> ()
  return %v2 : tensor<1x2x1xf32>
}

// SPLIT: conformance-errors.mlir:[[# @LINE + 8]]:3: error: 'mut.mul_' op Output 1 of SplitWithSizes is a view and is being modified inplace. This view is the output of a function that returns multiple views.
// SPLIT-NOT: "outputs"
// SPLIT-C: :3: error: 'mut.mul_' op Output 1 of SplitWithSizes is a view and is being modified inplace.
// SPLIT-C-NOT: "outputs"
func.func @split_output(%x: tensor<2x4xf32> {aot.requires_grad}) -> tensor<2x4xf32> {
  %c = "tensor.exp"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s:2 = "view.split"(%c) {dim = 1 : i64, sizes = [2, 2]} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %k = "tensor.full"() {value = 2.0 : f64} : () -> tensor<2x2xf32>
  "mut.mul_"(%s#1, %k) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
  return %c : tensor<2x4xf32>
}

// INDEX: conformance-errors.mlir:[[# @LINE + 7]]:3: error: 'mut.index_put_' op unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location.
// INDEX-NOT: "outputs"
// INDEX-C: :3: error: 'mut.index_put_' op unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location.
// INDEX-C-NOT: "outputs"
func.func @index_put_self(%x: tensor<3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %c = "tensor.exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %i = "tensor.constant"() {value = dense<[2, 0, 1]> : tensor<3xi64>} : () -> tensor<3xi64>
  "mut.index_put_"(%c, %i, %c) : (tensor<3xf32>, tensor<3xi64>, tensor<3xf32>) -> ()
  return %c : tensor<3xf32>
}

// An unbind output is used in grad mode after its base was written (here under
// no_grad, through another output): PyTorch's indirect form of the error.
// USE: conformance-errors.mlir:[[# @LINE + 8]]:3: error: 'tensor.mul' op Output 1 of Unbind is a view and its base or another view of its base has been modified inplace. This view is the output of a function that returns multiple views.
// USE-NOT: "outputs"
// USE-C: :3: error: 'tensor.mul' op Output 1 of Unbind is a view and its base or another view of its base has been modified inplace.
// USE-C-NOT: "outputs"
func.func @unbind_used_after_write(%x: tensor<2x3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %c = "tensor.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u:2 = "view.unbind"(%c) {dim = 0 : i64} : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  "mut.relu_"(%u#0) {aot.no_grad} : (tensor<3xf32>) -> ()
  %m = "tensor.mul"(%u#1, %u#1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %m : tensor<3xf32>
}
