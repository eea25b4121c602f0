// A reader that goes away before the output is written (`| head`) is an
// error with a message, not a panic: aot-run's print! panicked on the
// broken pipe (aot-opt writes through the same kind of checked write). The
// output (about 200 kB) is larger than a pipe's buffer, so aot-run is
// still writing when `head` exits.
// RUN: sh -c 'aot-run %s --random-inputs 1 2>%t.err | head -c 1 >/dev/null'
// RUN: FileCheck %s < %t.err
// CHECK: aot-run: error: could not write the output: Broken pipe
// CHECK-NOT: panicked
func.func @main(%x: tensor<64x400xf32>) -> tensor<64x400xf32> {
  %0 = tensor.tanh %x : tensor<64x400xf32> -> tensor<64x400xf32>
  return %0 : tensor<64x400xf32>
}
