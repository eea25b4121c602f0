// Found by the PyTorch fuzzer: aot-train panicked in synthetic-base ("two
// members") when a lone argument that requires grad is read beyond its own
// elements through as_strided. It is a clear refusal now (its storage would
// be a synthetic base, which carries no gradient); inference still runs.
// RUN: not aot-run %s --inputs %S/Inputs/rt-read-beyond-arg.json --mode compiled --pipeline aot-train --grad --backend interp 2>&1 | FileCheck %s
// RUN: aot-run %s --inputs %S/Inputs/rt-read-beyond-arg.json --mode compiled --backend cranelift | FileCheck %s --check-prefix=INFER
// CHECK: rt-read-beyond-arg-train.mlir:9:1: error: 'func.func' op argument 0 requires grad and the program reads storage elements outside it
// INFER: "outputs"
func.func @main(%arg0: tensor<2x2xf32>) -> (tensor<2x1xf32>) {
  %v0 = "view.as_strided"(%arg0) {size = [3], stride = [1], offset = 0 : i64} : (tensor<2x2xf32>) -> tensor<3xf32>
  %v1 = "tensor.constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %v2 = "tensor.index_select"(%arg0, %v1) {dim = 1 : i64} : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return %v2 : tensor<2x1xf32>
}
