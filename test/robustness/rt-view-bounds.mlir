// A strided view whose extent fits 64 bits but leaves its storage is
// PyTorch's bounds error.
// RUN: not aot-run %s --entry outside --random-inputs 3 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: rt-view-bounds.mlir:6:3: error: 'view.as_strided' op {{.*}}outside its storage of 4 elements
func.func @outside(%x: tensor<4xf32>) -> tensor<2xf32> {
  %v = view.as_strided %x {size = [2], stride = [1000], offset = 0} : tensor<4xf32> -> tensor<2xf32>
  return %v : tensor<2xf32>
}
