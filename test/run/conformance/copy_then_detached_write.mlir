// copy_(arg2, arg1) then a write to arg1 through a detached alias: native code
// must copy the value arg1 had before the write (its views are index
// arithmetic, so the epilogue snapshots reads that a later write clobbers).
func.func @main(%arg0: tensor<1xf32>, %arg1: tensor<1xf32>, %arg2: tensor<4xf32>) -> (tensor<1xf32>) {
  "mut.copy_"(%arg2, %arg1) : (tensor<4xf32>, tensor<1xf32>) -> ()
  %v0 = "view.detach"(%arg1) : (tensor<1xf32>) -> tensor<1xf32>
  "mut.neg_"(%v0) : (tensor<1xf32>) -> ()
  return %arg0 : tensor<1xf32>
}
