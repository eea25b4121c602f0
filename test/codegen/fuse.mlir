// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse))' | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse))' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse{target=cranelift}))' | FileCheck %s
// RUN: not aot-opt %s --pass-pipeline='builtin.module(func.func(fuse{target=nosuch}))' 2>&1 | FileCheck %s --check-prefix=TARGET

// `fuse` fuses for a code generator of the target list (Cranelift when none
// is named); another name is an error that lists them.
// TARGET: invalid options for pass 'fuse': unknown target 'nosuch' (available: cranelift, hostdev, llvm, ptx, cuda, mlir)

// Statistics over the whole file: 44 kernels in, 23 out.
// STATS:      Fuse
// STATS-NEXT:   (S) 15 num-inlined
// STATS-NEXT:   (S) 2 num-fused
// STATS-NEXT:   (S) 4 num-siblings
// STATS-NEXT:   (S) 3 num-merged-loops
// STATS-NEXT:   (S) 23 num-kernels

/// A chain of five elementwise ops (with a broadcast operand) becomes one
/// kernel: every intermediate buffer is gone, the input is loaded once.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: loop.alloc
// CHECK-NOT:     loop.alloc
// CHECK:         loop.kernel
// CHECK-COUNT-2:   loop.load
// CHECK-NOT:       loop.load
// CHECK:           loop.add
// CHECK:           loop.mul
// CHECK:           loop.max
// CHECK:           loop.sub
// CHECK:           loop.exp
// CHECK:           loop.store
// CHECK-NOT:     loop.kernel
// CHECK:         return
func.func @chain(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = tensor.add %x, %b : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
  %1 = tensor.mul %0, %0 : tensor<64x128xf32>
  %2 = tensor.relu %1 : tensor<64x128xf32>
  %3 = tensor.sub %2, %x : tensor<64x128xf32>
  %4 = tensor.exp %3 : tensor<64x128xf32>
  return %4 : tensor<64x128xf32>
}

// -----

/// Softmax written out (max, subtract, exp, sum, divide): the row max is
/// forwarded into the kernel that subtracts it, the row sum into the one
/// that divides by it; exp, read by both the sum and the division, is
/// computed once and stored (a math function costs more to compute twice
/// than its write and read: `MATH_COST`).
// CHECK-LABEL: func.func @softmax
// CHECK:         %[[E:.*]] = loop.alloc : memref<4x8xf32>
// CHECK:         loop.kernel
// CHECK:           loop.for %[[I:.*]] = 0 to 4 parallel {
// CHECK:             %[[M:.*]] = loop.for {{.*}} iter_args
// CHECK:               loop.max
// CHECK:             loop.for
// CHECK:               loop.sub %{{.*}}, %[[M]]
// CHECK:               loop.exp
// CHECK:               loop.store {{.*}}, %{{.*}}[%[[I]], %{{.*}}]
// CHECK:         %[[O:.*]] = loop.alloc : memref<4x8xf32>
// CHECK:         loop.kernel
// CHECK:             %[[S:.*]] = loop.for {{.*}} iter_args
// CHECK-NOT:           loop.exp
// CHECK:             loop.for
// CHECK:               loop.div %{{.*}}, %[[S]]
// CHECK-NOT:     loop.kernel
// CHECK:         return %[[O]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = tensor.amax %x {dims = [1], keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = tensor.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %e = tensor.exp %d : tensor<4x8xf32>
  %s = tensor.sum %e {dims = [1], keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tensor.div %e, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

/// The softmax op is one kernel from the start.
// CHECK-LABEL: func.func @softmax_op
// CHECK-COUNT-1: loop.kernel
// CHECK-NOT:     loop.kernel
func.func @softmax_op(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tensor.softmax %x {dim = 1} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

/// Views between producer and consumer are index arithmetic: transposes
/// and reshapes that line up stay affine, and a reshape that refactors the
/// producer's dimensions divides. A pointwise op over a transpose is laid
/// out as its operand (as eager lays it out), so its loops run in the
/// producer's order and the transpose costs nothing.
// CHECK-LABEL: func.func @views
// CHECK:         loop.kernel
// CHECK:           loop.for %[[I:.*]] = 0 to 4 parallel {
// CHECK:             loop.for %[[J:.*]] = 0 to 6 {
// CHECK-NEXT:          loop.load %{{.*}}[%[[I]], %[[J]]] : memref<4x6xf32>
// CHECK-NEXT:          loop.exp
// CHECK-NEXT:          loop.neg
// CHECK:         loop.kernel
// CHECK-NOT:       loop.div
// CHECK:           loop.tanh
// CHECK:         loop.kernel
// CHECK:           loop.div
// CHECK:           loop.rem
// CHECK:           loop.sin
// CHECK:           loop.cos
func.func @views(%x: tensor<4x6xf32>, %y: tensor<24xf32>, %z: tensor<4x6xf32>) -> (tensor<6x4xf32>, tensor<4x6xf32>, tensor<3x8xf32>) {
  %e = tensor.exp %x : tensor<4x6xf32>
  %t = view.t %e : tensor<4x6xf32> -> tensor<6x4xf32>
  %n = tensor.neg %t : tensor<6x4xf32>
  %s = tensor.sin %y : tensor<24xf32>
  %r = view.reshape %s {shape = [4, 6]} : tensor<24xf32> -> tensor<4x6xf32>
  %c = tensor.cos %r : tensor<4x6xf32>
  %u = view.t %c : tensor<4x6xf32> -> tensor<6x4xf32>
  %v = tensor.tanh %u : tensor<6x4xf32>
  %w = view.reshape %v {shape = [4, 6]} : tensor<6x4xf32> -> tensor<4x6xf32>
  %s2 = tensor.sin %z : tensor<4x6xf32>
  %r2 = view.reshape %s2 {shape = [3, 8]} : tensor<4x6xf32> -> tensor<3x8xf32>
  %c2 = tensor.cos %r2 : tensor<3x8xf32>
  return %n, %w, %c2 : tensor<6x4xf32>, tensor<4x6xf32>, tensor<3x8xf32>
}

// -----

/// A buffer the function returns is kept (its producer stays a kernel),
/// and so is one read by the GEMM.
// CHECK-LABEL: func.func @kept
// CHECK:         loop.kernel "exp_0"
// CHECK:         loop.matmul
// CHECK:         loop.kernel
func.func @kept(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.exp %x : tensor<4x4xf32>
  %m = tensor.mm %e, %e : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %n = tensor.neg %m : tensor<4x4xf32>
  return %e, %n : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

/// A read is never moved past a write of the same storage: the negation of
/// %c must read it before the trailing update of %a, which may share its
/// storage (arguments can be views of one storage).
// CHECK-LABEL: func.func @ordered
// CHECK:         loop.kernel "neg_1"
// CHECK:         loop.kernel "copy_
// CHECK-SAME:      %arg0
// CHECK:         loop.kernel "copy_
// CHECK-SAME:      %arg1
func.func @ordered(%a: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %z = tensor.full {value = 1.0} : tensor<4xf32>
  %n = tensor.neg %c : tensor<4xf32>
  mut.copy_ %a, %z : tensor<4xf32>, tensor<4xf32>
  mut.copy_ %c, %n : tensor<4xf32>, tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

/// Sibling fusion: a row sum and a row maximum of one input are independent
/// kernels over the same rows; they become one kernel whose two reductions
/// are one loop carrying both values, reading each element once.
// CHECK-LABEL: func.func @siblings
// CHECK:         loop.kernel
// CHECK:           loop.for %{{.*}} = 0 to 16 parallel {
// CHECK:             %[[R:.*]]:2 = loop.for {{.*}} iter_args({{.*}}, {{.*}}) -> (f32, f32) {
// CHECK-COUNT-1:       loop.load
// CHECK-NOT:           loop.load
// CHECK:               loop.add
// CHECK:               loop.max
// CHECK:               loop.yield
// CHECK:             loop.store %[[R]]#0
// CHECK:             loop.store %[[R]]#1
// CHECK-NOT:     loop.kernel
// CHECK:         return
func.func @siblings(%x: tensor<16x64xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %s = tensor.sum %x {dims = [1]} : tensor<16x64xf32> -> tensor<16xf32>
  %m = tensor.amax %x {dims = [1]} : tensor<16x64xf32> -> tensor<16xf32>
  return %s, %m : tensor<16xf32>, tensor<16xf32>
}

// -----

/// Stores between sibling reductions move after the merged loop: the
/// first sum's row is stored, then a second sum of the same input and a
/// third of another merge into one pass (a batch norm backward's sums).
// CHECK-LABEL: func.func @stored_between
// CHECK:         loop.kernel
// CHECK:           loop.for %{{.*}} = 0 to 8 parallel {
// CHECK:             %[[R:.*]]:3 = loop.for {{.*}} -> (f32, f32, f32) {
// CHECK:             loop.store %[[R]]#0
// CHECK:             loop.store %[[R]]#1
// CHECK:             loop.store %[[R]]#2
// CHECK-NOT:     loop.kernel
func.func @stored_between(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %a = tensor.sum %x {dims = [1]} : tensor<8x32xf32> -> tensor<8xf32>
  %xx = tensor.mul %x, %x : tensor<8x32xf32>
  %b = tensor.sum %xx {dims = [1]} : tensor<8x32xf32> -> tensor<8xf32>
  %xy = tensor.mul %x, %y : tensor<8x32xf32>
  %c = tensor.sum %xy {dims = [1]} : tensor<8x32xf32> -> tensor<8xf32>
  return %a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

/// Not siblings: the second kernel reads the first one's result in other
/// rows (a transposed broadcast), so they stay two kernels in order.
// CHECK-LABEL: func.func @dependent
// CHECK:         loop.kernel "sum_
// CHECK:         loop.kernel "add_
func.func @dependent(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = tensor.sum %x {dims = [1], keepdim} : tensor<8x8xf32> -> tensor<8x1xf32>
  %t = view.transpose %s {dim0 = 0, dim1 = 1} : tensor<8x1xf32> -> tensor<1x8xf32>
  %y = tensor.add %x, %t : tensor<8x8xf32>, tensor<1x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

/// A merge that would cost a loop its lanes is left out: the row sum of x
/// vectorizes, the row sum of its transpose (a strided read) does not, so
/// the fused kernel keeps two reduction loops.
// CHECK-LABEL: func.func @lanes_kept
// CHECK:         loop.kernel
// CHECK:           loop.for %{{.*}} = 0 to 16 parallel {
// CHECK:             loop.for {{.*}} iter_args({{[^,]*}}) -> (f32)
// CHECK:             loop.for {{.*}} iter_args({{[^,]*}}) -> (f32)
// CHECK-NOT:     loop.kernel
func.func @lanes_kept(%x: tensor<16x16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = tensor.sum %x {dims = [1]} : tensor<16x16xf32> -> tensor<16xf32>
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<16x16xf32> -> tensor<16x16xf32>
  %b = tensor.sum %t {dims = [1]} : tensor<16x16xf32> -> tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}

// -----

/// A producer read inside a reduction that visits each of its elements many
/// times (a convolution's weight gradient reads the output gradient once per
/// kernel tap: 9 times here) is not inlined, where it would be computed as
/// many times; one read per element (the sum) still inlines it.
// CHECK-LABEL: func.func @reused_in_a_reduction
// CHECK: loop.kernel "exp_
// CHECK: loop.kernel "conv_weight_grad_
// CHECK-NOT: loop.kernel "exp_
// CHECK: loop.kernel "sum_
// CHECK: loop.exp
// CHECK: return
func.func @reused_in_a_reduction(%g: tensor<2x4x6x6xf32>, %x: tensor<2x4x6x6xf32>) -> (tensor<4x1x3x3xf32>, tensor<f32>) {
  %e = tensor.exp %g : tensor<2x4x6x6xf32>
  %0 = tensor.conv_weight_grad %e, %x {padding = [1, 1], groups = 4, kernel_size = [3, 3]} : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32> -> tensor<4x1x3x3xf32>
  %f = tensor.exp %x : tensor<2x4x6x6xf32>
  %1 = tensor.sum %f {dims = []} : tensor<2x4x6x6xf32> -> tensor<f32>
  return %0, %1 : tensor<4x1x3x3xf32>, tensor<f32>
}

// -----

/// A reshape copy of a slice fused into a row kernel (a language model's
/// shifted logits into its loss's log-softmax): row `r` of the copy is row
/// `r mod 3` of slice `r div 3`, a quotient of the row alone, where the flat
/// index's quotient `(8·r + j) div 24` divided every element of the row.
// CHECK-LABEL: func.func @reshaped_rows
// CHECK:         loop.kernel "log_softmax
// CHECK:           loop.for %[[R:.*]] = 0 to 6 parallel {
// CHECK:             loop.for %{{.*}} = 0 to 8 iter_args
// CHECK:               loop.div %[[R]], %{{.*}} : index
// CHECK-NEXT:          loop.rem %[[R]], %{{.*}} : index
func.func @reshaped_rows(%x: tensor<2x4x8xf32>) -> tensor<6x8xf32> {
  %s = view.slice %x {dim = 1, start = 0, end = 3, step = 1} : tensor<2x4x8xf32> -> tensor<2x3x8xf32>
  %r = view.reshape %s {shape = [6, 8]} : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %y = tensor.log_softmax %r {dim = 1} : tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}
