// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops))' | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops{host-kernels=false}))' | FileCheck %s --check-prefix=DEVICE

/// Elementwise ops get one kernel: a loop per result dimension, the
/// outermost parallel; a broadcast operand is a stride-0 view, not a copy.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME:    (%[[X:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8xf32>) -> memref<4x8xf32>
// CHECK:         %[[BV:.*]] = loop.view %[[B]] : memref<8xf32> -> memref<4x8xf32, strided<[0, 1], offset: 0>>
// CHECK:         %[[O:.*]] = loop.alloc : memref<4x8xf32>
// CHECK:         loop.kernel "add_0" (%[[A0:.*]] = %[[X]] : memref<4x8xf32>, %[[A1:.*]] = %[[BV]] : {{.*}}, %[[A2:.*]] = %[[O]] : memref<4x8xf32>)
// CHECK:           loop.for %[[I:.*]] = 0 to 4 parallel {
// CHECK:             loop.for %[[J:.*]] = 0 to 8 {
// CHECK:               %[[L0:.*]] = loop.load %[[A0]][%[[I]], %[[J]]]
// CHECK:               %[[L1:.*]] = loop.load %[[A1]][%[[I]], %[[J]]]
// CHECK:               %[[S:.*]] = loop.add %[[L0]], %[[L1]] : f32
// CHECK:               loop.store %[[S]], %[[A2]][%[[I]], %[[J]]]
// CHECK:         return %[[O]] : memref<4x8xf32>
func.func @elementwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

/// Views are layouts of the same allocation; a reshape no strides can
/// express copies first (as the interpreter does).
// CHECK-LABEL: func.func @views
// CHECK-SAME:    -> (memref<6x4xf32, strided<[1, 6], offset: 0>>, memref<24xf32>)
// CHECK:         %[[T:.*]] = loop.view %arg0 : memref<4x6xf32> -> memref<6x4xf32, strided<[1, 6], offset: 0>>
// CHECK:         %[[C:.*]] = loop.alloc : memref<6x4xf32>
// CHECK:         loop.kernel "copy_0" ({{.*}} = %[[T]] : {{.*}}, {{.*}} = %[[C]] : memref<6x4xf32>)
// CHECK:         %[[R:.*]] = loop.view %[[C]] : memref<6x4xf32> -> memref<24xf32>
// CHECK:         return %[[T]], %[[R]]
func.func @views(%x: tensor<4x6xf32>) -> (tensor<6x4xf32>, tensor<24xf32>) {
  %t = view.t %x : tensor<4x6xf32> -> tensor<6x4xf32>
  %r = view.reshape %t {shape = [24]} : tensor<6x4xf32> -> tensor<24xf32>
  return %t, %r : tensor<6x4xf32>, tensor<24xf32>
}

// -----

/// Half types are storage types: arithmetic happens in f32 and rounds
/// back after every op.
// CHECK-LABEL: func.func @bf16
// CHECK:         %[[V:.*]] = loop.load {{.*}} : memref<8xbf16>
// CHECK-NEXT:    %[[W:.*]] = loop.cast %[[V]] : bf16 -> f32
// CHECK-NEXT:    %[[E:.*]] = loop.exp %[[W]] : f32
// CHECK-NEXT:    %[[N:.*]] = loop.cast %[[E]] : f32 -> bf16
// CHECK-NEXT:    loop.store %[[N]]
func.func @bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = tensor.exp %x : tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

/// Reductions carry their accumulator through iter_args.
// CHECK-LABEL: func.func @reduce
// CHECK:         loop.for %[[I:.*]] = 0 to 4 parallel {
// CHECK:           %[[Z:.*]] = loop.constant 0.0 : f32
// CHECK:           %[[S:.*]] = loop.for %[[J:.*]] = 0 to 8 iter_args(%[[A:.*]] = %[[Z]]) -> (f32) {
// CHECK:             %[[N:.*]] = loop.add %[[A]], %{{.*}} : f32
// CHECK:             loop.yield %[[N]] : f32
// CHECK:           loop.store %[[S]], %{{.*}}[%[[I]]] : memref<4xf32>
func.func @reduce(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tensor.sum %x {dims = [1]} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// f32/f64 matrix products go to the external GEMM on strided views: the
/// weight is transposed by its layout, the bias broadcast into the output
/// first and the product accumulated onto it.
// CHECK-LABEL: func.func @linear
// CHECK:         %[[X3:.*]] = loop.view %arg0 : memref<2x4x8xf32> -> memref<1x8x8xf32>
// CHECK:         %[[WT:.*]] = loop.view %arg1 : memref<3x8xf32> -> memref<1x8x3xf32, strided<[24, 1, 8], offset: 0>>
// CHECK:         %[[O:.*]] = loop.alloc : memref<2x4x3xf32>
// CHECK:         %[[O3:.*]] = loop.view %[[O]] : memref<2x4x3xf32> -> memref<1x8x3xf32>
// CHECK:         loop.kernel "copy_0"
// CHECK:         loop.matmul %[[X3]], %[[WT]], %[[O3]] {accumulate}
// CHECK:         return %[[O]]
func.func @linear(%x: tensor<2x4x8xf32>, %w: tensor<3x8xf32>, %b: tensor<3xf32>) -> tensor<2x4x3xf32> {
  %0 = tensor.linear %x, %w, %b : tensor<2x4x8xf32>, tensor<3x8xf32>, tensor<3xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

/// bf16 operands go to the GEMM as they are, summed into an f32 buffer
/// that one kernel rounds into the bf16 result; f16 operands are first
/// widened by copy kernels.
// CHECK-LABEL: func.func @bf16_mm
// CHECK-NOT:     loop.kernel
// CHECK:         %[[S:.*]] = loop.alloc : memref<2x4xf32>
// CHECK-NEXT:    loop.matmul %arg0, %arg1, %[[S]] : memref<2x3xbf16>, memref<3x4xbf16>, memref<2x4xf32>
// CHECK-NEXT:    loop.kernel "copy_0" (%{{.*}} = %[[S]] : memref<2x4xf32>, %{{.*}} : memref<2x4xbf16>)
func.func @bf16_mm(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xbf16> {
  %0 = tensor.mm %a, %b : tensor<2x3xbf16>, tensor<3x4xbf16> -> tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

/// A fused multiply-add is one `loop.fma` per element; bf16 operands are
/// widened to f32, fused there and rounded once.
// CHECK-LABEL: func.func @bf16_fma
// CHECK:         loop.kernel "fma_0"
// CHECK-COUNT-3:   loop.cast %{{.*}} : bf16 -> f32
// CHECK:           %[[F:.*]] = loop.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[R:.*]] = loop.cast %[[F]] : f32 -> bf16
// CHECK-NEXT:      loop.store %[[R]]
func.func @bf16_fma(%a: tensor<8xbf16>, %b: tensor<bf16>, %c: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = tensor.fma %a, %b, %c : tensor<8xbf16>, tensor<bf16>, tensor<8xbf16> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// CHECK-LABEL: func.func @f16_mm
// CHECK:         loop.kernel "copy_0" ({{.*}} : memref<2x3xf16>, {{.*}} : memref<2x3xf32>)
// CHECK:         loop.kernel "copy_1" ({{.*}} : memref<3x4xf16>, {{.*}} : memref<3x4xf32>)
// CHECK:         loop.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<2x3xf32>, memref<3x4xf32>, memref<2x4xf32>
func.func @f16_mm(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = tensor.mm %a, %b : tensor<2x3xf16>, tensor<3x4xf16> -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

/// Other element types multiply in a loop kernel.
// CHECK-LABEL: func.func @int_mm
// CHECK-NOT:     loop.matmul
// CHECK:         loop.kernel "matmul_0"
// CHECK:           loop.for {{.*}} = 0 to 3 iter_args({{.*}}) -> (i64)
func.func @int_mm(%a: tensor<2x3xi64>, %b: tensor<3x4xi64>) -> tensor<2x4xi64> {
  %0 = tensor.mm %a, %b : tensor<2x3xi64>, tensor<3x4xi64> -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

/// Indices are wrapped once and checked: an out-of-range index fails the
/// call with the interpreter's message instead of reading out of bounds.
// CHECK-LABEL: func.func @gather
// CHECK:         loop.assert %{{.*}} {msg = "'tensor.gather' op index out of bounds for dimension 1 with size 4"} : i1
// CHECK:         %[[J:.*]] = loop.cast %{{.*}} : i64 -> index
// CHECK:         loop.load %{{.*}}[%{{.*}}, %[[J]]] : memref<3x4xf32>
func.func @gather(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = tensor.gather %x, %i {dim = 1} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

/// Dropout draws one Philox block per four elements: full blocks in a
/// parallel loop, the remainder after it; the offset is checked.
// CHECK-LABEL: func.func @dropout
// CHECK:         loop.assert %{{.*}} {msg = "'rng.philox_dropout' op Philox offset must be a non-negative multiple of 4"}
// CHECK:         loop.for %{{.*}} = 0 to 1 parallel {
// CHECK:           %{{.*}}:4 = loop.philox
// CHECK:         %{{.*}}:4 = loop.philox
// CHECK-NOT:     loop.philox
// CHECK:         return
func.func @dropout(%s: tensor<i64>, %o: tensor<i64>, %x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xi1>) {
  %d:2 = rng.philox_dropout %s, %o, %x {p = 0.5} : tensor<i64>, tensor<i64>, tensor<6xf32> -> (tensor<6xf32>, tensor<6xi1>)
  return %d#0, %d#1 : tensor<6xf32>, tensor<6xi1>
}

// -----

/// Arguments keep the layout the calling convention gives them in their
/// storage; trailing in-graph mutations of arguments become a copy kernel
/// into the argument's buffer and loop.rebind.
// CHECK-LABEL: func.func @arguments
// CHECK-SAME:    (%[[A:[^:]*]]: memref<3xf32>, %[[S:[^:]*]]: memref<2x2xf32, strided<[1, 3], offset: 1>> {aot.layout = {{.*}}}, %[[C:[^:]*]]: memref<4xf32>)
// CHECK:         loop.kernel "copy_{{.*}}" ({{.*}} = %[[C]] : memref<4xf32>)
// CHECK:         loop.rebind %[[A]], %[[S]] : memref<3xf32>, memref<2x2xf32, strided<[1, 3], offset: 1>> -> memref<2x2xf32, strided<[1, 3], offset: 1>>
func.func @arguments(%a: tensor<3xf32>, %s: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [1, 3]>}, %c: tensor<4xf32>) -> tensor<2x2xf32> {
  %z = tensor.full {value = 0.0} : tensor<4xf32>
  mut.copy_ %c, %z : tensor<4xf32>, tensor<4xf32>
  %r = mut.set_ %a, %s : tensor<3xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

/// A scatter writes into its base's buffer when that buffer is a fresh
/// allocation nothing uses afterwards (through any value or view): %c
/// writes its region into %b's buffer, whose last reader is the region
/// view %r that %c's source adds to. A base still used later (%z,
/// returned) or an argument (%x) is copied first.
// CHECK-LABEL: func.func @scatter_in_place
// CHECK:         %[[Z:.*]] = loop.alloc : memref<8xf32>
// CHECK:         loop.kernel "full_{{[0-9]+}}"
// CHECK:         %[[B:.*]] = loop.alloc : memref<8xf32>
// CHECK:         loop.kernel "copy_{{[0-9]+}}" ({{.*}} = %[[Z]] : memref<8xf32>, {{.*}} = %[[B]] : memref<8xf32>)
// CHECK:         %[[V1:.*]] = loop.view %[[B]] : memref<8xf32> -> memref<3xf32
// CHECK:         loop.kernel "copy_{{[0-9]+}}" ({{.*}} = %arg1 : memref<3xf32>, {{.*}} = %[[V1]]
// CHECK:         %[[R:.*]] = loop.view %[[B]] : memref<8xf32> -> memref<3xf32, strided<[1], offset: 4>>
// CHECK:         loop.kernel "add_{{[0-9]+}}"
// CHECK-NOT:     loop.alloc : memref<8xf32>
// CHECK:         %[[V2:.*]] = loop.view %[[B]] : memref<8xf32> -> memref<3xf32, strided<[1], offset: 4>>
// CHECK:         loop.kernel "copy_{{[0-9]+}}" ({{.*}} = %{{.*}} : memref<3xf32>, {{.*}} = %[[V2]]
// CHECK:         %[[D:.*]] = loop.alloc : memref<8xf32>
// CHECK:         loop.kernel "copy_{{[0-9]+}}" ({{.*}} = %arg0 : memref<8xf32>, {{.*}} = %[[D]] : memref<8xf32>)
// CHECK:         return %[[B]], %[[D]], %[[Z]]
func.func @scatter_in_place(%x: tensor<8xf32>, %g: tensor<3xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %z = tensor.full {value = 0.0} : tensor<8xf32>
  %b = view.slice_scatter %z, %g {dim = 0, start = 0, end = 3} : tensor<8xf32>, tensor<3xf32> -> tensor<8xf32>
  %r = view.slice %b {dim = 0, start = 4, end = 7} : tensor<8xf32> -> tensor<3xf32>
  %s = tensor.add %r, %g : tensor<3xf32>
  %c = view.slice_scatter %b, %s {dim = 0, start = 4, end = 7} : tensor<8xf32>, tensor<3xf32> -> tensor<8xf32>
  %d = view.slice_scatter %x, %g {dim = 0, start = 1, end = 4} : tensor<8xf32>, tensor<3xf32> -> tensor<8xf32>
  return %c, %d, %z : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

/// Softmax computes each exponential once: a loop stores it into the
/// result, the sum reads it from there, and the last loop scales it by the
/// sum's reciprocal. A result narrower than the arithmetic computes it
/// again from the input.
// CHECK-LABEL: func.func @softmax
// CHECK:         loop.kernel "softmax
// CHECK:           loop.for {{.*}} iter_args
// CHECK:             loop.max
// CHECK:           loop.for
// CHECK:             %[[E:.*]] = loop.exp
// CHECK:             loop.store %[[E]]
// CHECK:           %[[S:.*]] = loop.for {{.*}} iter_args
// CHECK-NOT:         loop.exp
// CHECK:             loop.add
// CHECK:           %[[R:.*]] = loop.div %{{.*}}, %[[S]]
// CHECK:           loop.for
// CHECK-NOT:         loop.exp
// CHECK:             loop.mul %{{.*}}, %[[R]]
// CHECK:             loop.store
// CHECK-LABEL: func.func @softmax_bf16
// CHECK:           loop.for {{.*}} iter_args
// CHECK:             loop.exp
// CHECK-NOT:         loop.store
// CHECK:             loop.add
// CHECK:           loop.for
// CHECK:             loop.exp
// CHECK:             loop.mul
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tensor.softmax %x {dim = 1} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @softmax_bf16(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %y = tensor.softmax %x {dim = 1} : tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

/// A scatter covering its whole base is its source, also one autograd does
/// not see (an in-place activation, `x.silu_()`, after functionalize): no
/// kernel copies the result over the base, the product is returned as is.
// CHECK-LABEL: func.func @whole_scatter
// CHECK:         loop.kernel "exp_0"
// CHECK:         loop.kernel "sigmoid_1"
// CHECK:         %[[P:.*]] = loop.alloc : memref<4x8xf32>
// CHECK-NEXT:    loop.kernel "mul_2"
// CHECK-NOT:     loop.kernel
// CHECK:         return %[[P]]
func.func @whole_scatter(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.exp %x : tensor<4x8xf32>
  %1 = tensor.sigmoid %0 : tensor<4x8xf32>
  %2 = tensor.mul %0, %1 : tensor<4x8xf32>
  %3 = view.as_strided_scatter %0, %2 {aot.hidden_write, offset = 0, size = array<i64: 4, 8>, stride = array<i64: 8, 1>} : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

/// Not when the source is an argument: the result would be the caller's
/// memory. The base is copied and the argument written into it.
// CHECK-LABEL: func.func @whole_scatter_of_argument
// CHECK:         loop.kernel "exp_0"
// CHECK:         loop.kernel "copy_{{[0-9]+}}" (%{{.*}} = %arg1
// CHECK:         return
func.func @whole_scatter_of_argument(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.exp %x : tensor<4x8xf32>
  %1 = view.as_strided_scatter %0, %y {aot.hidden_write, offset = 0, size = array<i64: 4, 8>, stride = array<i64: 8, 1>} : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

/// A pointwise result is laid out as its first operand that is not
/// broadcast (here the second) when that one is a dense permutation:
/// channels-last stays channels-last, and the loops run in memory order,
/// so the store and that operand's loads are unit-stride.
// CHECK-LABEL: func.func @channels_last
// CHECK-SAME:    -> memref<2x4x3x5xf32, strided<[60, 1, 20, 4], offset: 0>>
// CHECK:         %[[O:.*]] = loop.alloc : memref<2x3x5x4xf32>
// CHECK:         %[[V:.*]] = loop.view %[[O]] : memref<2x3x5x4xf32> -> memref<2x4x3x5xf32, strided<[60, 1, 20, 4], offset: 0>>
// CHECK:         loop.for %[[N:.*]] = 0 to 2 parallel {
// CHECK-NEXT:      loop.for %[[H:.*]] = 0 to 3 {
// CHECK-NEXT:        loop.for %[[W:.*]] = 0 to 5 {
// CHECK-NEXT:          loop.for %[[C:.*]] = 0 to 4 {
// CHECK-NEXT:            loop.load %{{.*}}[%[[N]], %[[C]], %[[H]], %[[W]]] : memref<2x4x3x5xf32, strided<[0, 1, 0, 0], offset: 0>>
// CHECK-NEXT:            loop.load %{{.*}}[%[[N]], %[[C]], %[[H]], %[[W]]] : memref<2x4x3x5xf32, strided<[60, 1, 20, 4], offset: 0>>
// CHECK-NEXT:            loop.add
// CHECK-NEXT:            loop.store %{{.*}}, %{{.*}}[%[[N]], %[[H]], %[[W]], %[[C]]] : memref<2x3x5x4xf32>
// CHECK:         return %[[V]]
func.func @channels_last(%xl: tensor<2x3x5x4xf32>, %b: tensor<4x1x1xf32>) -> tensor<2x4x3x5xf32> {
  %x = view.permute %xl {dims = [0, 3, 1, 2]} : tensor<2x3x5x4xf32> -> tensor<2x4x3x5xf32>
  %0 = tensor.add %b, %x : tensor<4x1x1xf32>, tensor<2x4x3x5xf32> -> tensor<2x4x3x5xf32>
  return %0 : tensor<2x4x3x5xf32>
}

// -----

/// On the host an f32 attention is one `loop.attention`, the fused kernel
/// that never stores the scores, whatever its size. For a device target
/// (`host-kernels=false`), one whose scores outgrow a core's L2 (32 items
/// of 256×256 f32, 8 MB) runs in batch chunks of about a megabyte, at most
/// eight: per chunk the scores' product, the row kernel and the product
/// with the values, on views of the chunk's items (here four heads of one
/// batch entry), so each chunk's scores are still in cache when the next
/// step reads them. A small one stays one product, one kernel, one product.
// CHECK-LABEL: func.func @attention_chunks
// CHECK-NOT:     loop.kernel
// CHECK:         loop.attention %arg0, %arg1, %arg2, %{{.*}}, %{{.*}} {scale = 0.17677669529663687} : memref<4x8x256x32xf32>, memref<4x8x256x32xf32>, memref<4x8x256x32xf32>, memref<4x8x256x32xf32>, memref<4x8x256xf32>
// CHECK-NOT:     loop.kernel
// CHECK-LABEL: func.func @attention_small
// CHECK-NOT:     loop.kernel
// CHECK:         loop.attention
// DEVICE-LABEL: func.func @attention_chunks
// DEVICE:         loop.view %arg0 : memref<4x8x256x32xf32> -> memref<1x4x256x32xf32>
// DEVICE:         loop.matmul
// DEVICE-SAME:      memref<1x4x256x256xf32>
// DEVICE:         loop.kernel "attention_softmax_0" ({{.*}}: memref<1x4x256x256xf32>, {{.*}}: memref<1x4x256xf32>)
// DEVICE:         loop.matmul
// DEVICE:         memref<1x4x256x32xf32, strided<[32768, 8192, 32, 1], offset: 32768>>
// DEVICE-COUNT-7: loop.kernel "attention_softmax_
// DEVICE-NOT:     loop.kernel "attention_softmax_
// DEVICE-LABEL: func.func @attention_small
// DEVICE-COUNT-1: loop.kernel "attention_softmax_
// DEVICE-NOT:     loop.kernel "attention_softmax_
func.func @attention_chunks(%q: tensor<4x8x256x32xf32>, %k: tensor<4x8x256x32xf32>, %v: tensor<4x8x256x32xf32>) -> tensor<4x8x256x32xf32> {
  %o:2 = tensor.attention %q, %k, %v : tensor<4x8x256x32xf32>, tensor<4x8x256x32xf32>, tensor<4x8x256x32xf32> -> (tensor<4x8x256x32xf32>, tensor<4x8x256xf32>)
  return %o#0 : tensor<4x8x256x32xf32>
}

func.func @attention_small(%q: tensor<4x8x64x32xf32>, %k: tensor<4x8x64x32xf32>, %v: tensor<4x8x64x32xf32>) -> tensor<4x8x64x32xf32> {
  %o:2 = tensor.attention %q, %k, %v : tensor<4x8x64x32xf32>, tensor<4x8x64x32xf32>, tensor<4x8x64x32xf32> -> (tensor<4x8x64x32xf32>, tensor<4x8x64xf32>)
  return %o#0 : tensor<4x8x64x32xf32>
}

// -----

/// Symbolic sizes stay expressions: the buffers have symbolic shapes, a
/// broadcast operand is a view whose strides are expressions (`s1` for
/// the leading dimension of `s0x1xs1`), and the loops run to symbolic
/// upper bounds. Each elementwise op is its own kernel (`fuse` does not
/// take symbolic sizes yet).
// CHECK-LABEL: func.func @symbolic
// CHECK-SAME:    (%[[X:.*]]: memref<s0x1xs1xf32>, %[[Y:.*]]: memref<s0x4xs1xf32>) -> memref<s0x4xs1xf32>
// CHECK:         %[[XV:.*]] = loop.view %[[X]] : memref<s0x1xs1xf32> -> memref<s0x4xs1xf32, strided<[s1, 0, 1], offset: 0>>
// CHECK:         %[[O:.*]] = loop.alloc : memref<s0x4xs1xf32>
// CHECK:         loop.kernel "add_0" (%[[A0:.*]] = %[[XV]] : {{.*}}, %[[A1:.*]] = %[[Y]] : memref<s0x4xs1xf32>, %[[A2:.*]] = %[[O]] : memref<s0x4xs1xf32>)
// CHECK:           loop.for %[[I:.*]] = 0 to s0 parallel {
// CHECK:             loop.for %[[J:.*]] = 0 to 4 {
// CHECK:               loop.for %[[K:.*]] = 0 to s1 {
// CHECK:                 loop.load %[[A0]][%[[I]], %[[J]], %[[K]]] : memref<s0x4xs1xf32, strided<[s1, 0, 1], offset: 0>>
// CHECK:         %[[E:.*]] = loop.alloc : memref<s0x4xs1xf32>
// CHECK:         loop.kernel "exp_1" (%{{.*}} = %[[O]] : memref<s0x4xs1xf32>, %{{.*}} = %[[E]] : memref<s0x4xs1xf32>)
// CHECK:           loop.for %{{.*}} = 0 to s0 parallel {
// CHECK:         return %[[E]] : memref<s0x4xs1xf32>
func.func @symbolic(%x: tensor<s0x1xs1xf32>, %y: tensor<s0x4xs1xf32>) -> tensor<s0x4xs1xf32> {
  %0 = tensor.add %x, %y : tensor<s0x1xs1xf32>, tensor<s0x4xs1xf32> -> tensor<s0x4xs1xf32>
  %1 = tensor.exp %0 : tensor<s0x4xs1xf32>
  return %1 : tensor<s0x4xs1xf32>
}

// -----

/// An op whose own sizes are static lowers as in a static function (a
/// scalar constant here), and broadcasts into the symbolic one as a
/// stride-0 view.
// CHECK-LABEL: func.func @symbolic_with_static_ops
// CHECK:         %[[C:.*]] = loop.alloc : memref<f32>
// CHECK:         loop.kernel "full_0" (%{{.*}} = %[[C]] : memref<f32>)
// CHECK:         %[[CV:.*]] = loop.view %[[C]] : memref<f32> -> memref<s0xf32, strided<[0], offset: 0>>
// CHECK:         loop.kernel "mul_1" (%{{.*}} = %arg0 : memref<s0xf32>, %{{.*}} = %[[CV]] : memref<s0xf32, strided<[0], offset: 0>>, %{{.*}} : memref<s0xf32>)
// CHECK:           loop.for %{{.*}} = 0 to s0 parallel {
func.func @symbolic_with_static_ops(%x: tensor<s0xf32>) -> tensor<s0xf32> {
  %c = tensor.full {value = 2.0} : tensor<f32>
  %0 = tensor.mul %x, %c : tensor<s0xf32>, tensor<f32> -> tensor<s0xf32>
  return %0 : tensor<s0xf32>
}

// -----

/// A count of symbolic size is read in the kernel: a mean over s0 rows
/// divides by `loop.size s0` (from the call's size table), converted to
/// the sum's type; an embedding's index check compares with its static
/// table size.
// CHECK-LABEL: func.func @symbolic_counts
// CHECK:         loop.kernel "mean_0"
// CHECK:           %[[N:.*]] = loop.size s0
// CHECK:           %[[F:.*]] = loop.cast %[[N]] : index -> f32
// CHECK:           loop.div %{{.*}}, %[[F]] : f32
// CHECK:         loop.kernel "embedding_1"
// CHECK:           loop.for %{{.*}} = 0 to s0 parallel {
// CHECK:             loop.constant 10{{$}}
func.func @symbolic_counts(%x: tensor<s0x8xf32>, %w: tensor<10x8xf32>, %i: tensor<s0xi64>) -> (tensor<8xf32>, tensor<s0x8xf32>) {
  %0 = tensor.mean %x {dims = [0]} : tensor<s0x8xf32> -> tensor<8xf32>
  %1 = tensor.embedding %w, %i : tensor<10x8xf32>, tensor<s0xi64> -> tensor<s0x8xf32>
  return %0, %1 : tensor<8xf32>, tensor<s0x8xf32>
}

// -----

/// A convolution and a pooling over symbolic image sizes: the padded
/// input, the columns and the pooled result are buffers of size
/// expressions, the im2col windows loop to the output's symbolic sizes,
/// and the GEMM's columns are the batch's positions. A pooling in ceil
/// mode pads its input's end by `stride - 1` whatever the size (the taps
/// past the last window are never read).
// CHECK-LABEL: func.func @symbolic_image_conv
// CHECK:         loop.alloc : memref<s0x3x(s1 + 2)x(s2 + 2)xf32>
// CHECK:         loop.view %{{.*}} -> memref<s0x3xs1xs2xf32, strided<[(s1*6 + s1*s2*3 + s2*6 + 12), (s1*2 + s1*s2 + s2*2 + 4), (s2 + 2), 1], offset: (s2 + 3)>>
// CHECK:         %[[COLS:.*]] = loop.alloc : memref<1x27xs0x(((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2))xf32>
// CHECK:         loop.kernel "im2col_2"
// CHECK:                       loop.for %{{.*}} = 0 to ((s1 + 1) floordiv 2) {
// CHECK-NEXT:                    loop.for %{{.*}} = 0 to ((s2 + 1) floordiv 2) {
// CHECK:         loop.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<1x4x27xf32>, memref<1x27x(s0*((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2))xf32>, memref<1x4x(s0*((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2))xf32>
// CHECK:         loop.alloc : memref<s0x4x(((s1 + 1) floordiv 2) + 1)x(((s2 + 1) floordiv 2) + 1)xf32>
// CHECK:         loop.kernel "avg_pool
// CHECK:           loop.for %{{.*}} = 0 to ((s2 + 3) floordiv 4) {
func.func @symbolic_image_conv(%x: tensor<s0x3xs1xs2xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>, tensor<s0x4x((s1 - 1) floordiv 4 + 1)x((s2 - 1) floordiv 4 + 1)xf32>) attributes {aot.symbols = {s1 = array<i64: 4, 64>, s2 = array<i64: 4, 64>}} {
  %0 = tensor.conv %x, %w {padding = [1, 1], stride = [2, 2]} : tensor<s0x3xs1xs2xf32>, tensor<4x3x3x3xf32> -> tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>
  %1 = tensor.avg_pool %0 {kernel_size = [2, 2], stride = [2, 2], ceil_mode} : tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32> -> tensor<s0x4x((s1 - 1) floordiv 4 + 1)x((s2 - 1) floordiv 4 + 1)xf32>
  return %0, %1 : tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>, tensor<s0x4x((s1 - 1) floordiv 4 + 1)x((s2 - 1) floordiv 4 + 1)xf32>
}

// -----

/// A weight gradient over symbolic image sizes: the output gradient's
/// rows per output channel are copied out of a `[1, 4, s0, ...]` view
/// (one group); the copy leaves its dimension of one element out, so that
/// its outermost loop, the one split across threads, runs over the
/// channels (symbolic functions are not collapsed after lowering).
// CHECK-LABEL: func.func @symbolic_weight_grad
// CHECK:         loop.kernel "copy_1" (%{{.*}} = %{{.*}} : memref<4xs0x(s1 - 2)x(s2 - 2)xf32, strided<
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 4 parallel {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to s0 {
// CHECK:         loop.matmul
func.func @symbolic_weight_grad(%g: tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>, %x: tensor<s0x3xs1xs2xf32>) -> tensor<4x3x3x3xf32> attributes {aot.symbols = {s1 = array<i64: 4, 64>, s2 = array<i64: 4, 64>}} {
  %0 = tensor.conv_weight_grad %g, %x {kernel_size = array<i64: 3, 3>} : tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>, tensor<s0x3xs1xs2xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

/// Positions and constants of symbolic size (`arange`, `full`) are kernels
/// looping to the symbolic bound, and an elementwise op over a permuted
/// symbolic layout (the heads of an attention, transposed) keeps that
/// layout's order when the strides compare by the symbols' ranges: the
/// result is laid out as its operand, the loops in its memory order.
// CHECK-LABEL: func.func @symbolic_generators
// CHECK:         loop.kernel "arange_0"
// CHECK:           loop.for %{{.*}} = 0 to s0 parallel {
// CHECK:         loop.kernel "full_1"
// CHECK:         %[[O:.*]] = loop.alloc : memref<4xs0x8xf32>
// CHECK:         loop.view %[[O]] : memref<4xs0x8xf32> -> memref<s0x4x8xf32, strided<[8, (s0*8), 1], offset: 0>>
// CHECK:         loop.kernel "neg_2"
// CHECK:           loop.for %{{.*}} = 0 to 4 parallel {
// CHECK:             loop.for %{{.*}} = 0 to s0 {
func.func @symbolic_generators(%x: tensor<4xs0x8xf32>) -> (tensor<s0xi64>, tensor<s0x4xf32>, tensor<s0x4x8xf32>) {
  %p = tensor.arange {start = 0.0, step = 1.0} : tensor<s0xi64>
  %f = tensor.full {value = 1.5} : tensor<s0x4xf32>
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<4xs0x8xf32> -> tensor<s0x4x8xf32>
  %n = tensor.neg %t : tensor<s0x4x8xf32>
  return %p, %f, %n : tensor<s0xi64>, tensor<s0x4xf32>, tensor<s0x4x8xf32>
}

// -----

/// A view with symbolic sizes whose operand's buffer the lowering laid out
/// permuted (the clone of a transpose keeps its operand's order) cannot be
/// expressed by strides for every value of the symbols: in a lowered
/// function it copies into a contiguous buffer first, as a static view
/// does, rather than refusing the function.
// CHECK-LABEL: func.func @symbolic_view_of_a_permuted_buffer
// CHECK:         loop.kernel "clone_0"
// CHECK:         %[[C:.*]] = loop.alloc : memref<s1xs0x32xf32>
// CHECK:         loop.kernel "copy_1"
// CHECK:         %[[V:.*]] = loop.view %[[C]] : memref<s1xs0x32xf32> -> memref<(s0*s1)x32xf32>
// CHECK:         return %[[V]]
func.func @symbolic_view_of_a_permuted_buffer(%x: tensor<s0xs1x32xf32>) -> tensor<(s0*s1)x32xf32> {
  %1 = view.transpose %x {dim0 = 1, dim1 = 0} : tensor<s0xs1x32xf32> -> tensor<s1xs0x32xf32>
  %2 = tensor.clone %1 : tensor<s1xs0x32xf32>
  %3 = view.view %2 {shape = array<i64: (s0*s1), 32>} : tensor<s1xs0x32xf32> -> tensor<(s0*s1)x32xf32>
  return %3 : tensor<(s0*s1)x32xf32>
}
