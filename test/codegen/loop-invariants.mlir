// RUN: aot-opt %s --split-input-file --emit=clif-opt | FileCheck %s

/// Cranelift hoists loop-invariant arithmetic and loads out of a kernel's
/// loops (its e-graph elaboration) when each loop's body is the loop
/// header's else-target: it walks the dominator tree else-target first and
/// forgets the loops it is in on entering a block outside them, so an exit
/// visited first left every body below it without hoisting. A 2x2 max
/// pool then divided its flat (image, channel) index and reloaded the
/// buffers' base pointers for every output element.
///
/// The base pointers load at entry, before any loop; the division of the
/// parallel loop's index (`ushr`/`band` by 32) sits before the innermost
/// loop's header, whose body loads the four taps.
// CHECK-LABEL: ; kernel max_pool_0
// CHECK:       block0(v0: i64, v1: i64, v2: i64):
// CHECK-DAG:     load.i64 notrap readonly can_move v0{{$}}
// CHECK-DAG:     load.i64 notrap readonly can_move v0+8{{$}}
// CHECK:         jump block1
// CHECK:         brif
// CHECK:         ushr.i64 {{v[0-9]+}}, {{v[0-9]+}}  ; {{v[0-9]+}} = 5
// CHECK:         brif
// CHECK:         load.f32
func.func @static_pool(%x: tensor<4x32x16x16xf32>) -> (tensor<4x32x8x8xf32>, tensor<4x32x8x8xi64>) {
  %0:2 = tensor.max_pool %x {kernel_size = [2, 2], stride = [2, 2]} : tensor<4x32x16x16xf32> -> (tensor<4x32x8x8xf32>, tensor<4x32x8x8xi64>)
  return %0#0, %0#1 : tensor<4x32x8x8xf32>, tensor<4x32x8x8xi64>
}

// -----

/// Over symbolic sizes the sizes the kernel reads from the size table
/// load at entry too, not in the loops that multiply by them.
// CHECK-LABEL: ; kernel max_pool_0
// CHECK:       block0(v0: i64, v1: i64, v2: i64):
// CHECK-DAG:     load.i64 notrap readonly can_move v0+24
// CHECK-DAG:     load.i64 notrap readonly can_move v{{[0-9]+}}+8{{$}}
// CHECK-DAG:     load.i64 notrap readonly can_move v0{{$}}
// CHECK:         jump block1
// CHECK:         brif
// CHECK:         sshr.i64
// CHECK:         brif
// CHECK:         load.f32
func.func @symbolic_pool(%x: tensor<s0x32xs1xs1xf32>) -> (tensor<s0x32x(s1 floordiv 2)x(s1 floordiv 2)xf32>, tensor<s0x32x(s1 floordiv 2)x(s1 floordiv 2)xi64>) {
  %0:2 = tensor.max_pool %x {kernel_size = [2, 2], stride = [2, 2]} : tensor<s0x32xs1xs1xf32> -> (tensor<s0x32x(s1 floordiv 2)x(s1 floordiv 2)xf32>, tensor<s0x32x(s1 floordiv 2)x(s1 floordiv 2)xi64>)
  return %0#0, %0#1 : tensor<s0x32x(s1 floordiv 2)x(s1 floordiv 2)xf32>, tensor<s0x32x(s1 floordiv 2)x(s1 floordiv 2)xi64>
}
