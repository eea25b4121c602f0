
// The element count itself overflows i64.
// SPLIT: ir-huge-type-aot-train.mlir:[[# @LINE + 127]]:21: error: invalid type 'tensor<4611686018427387905x4xf32>': its element count overflows a 64-bit integer
func.func @main(%a: tensor<0x0x0x0x4611686018427387905x4xf32>) {
  return
}

