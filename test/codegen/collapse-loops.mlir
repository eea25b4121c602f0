// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse,collapse-loops))' | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse,collapse-loops))' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS:      CollapseLoops
// STATS-NEXT:   (S) 1 num-unit-loops
// STATS-NEXT:   (S) 4 num-collapsed

/// A 2x2 image plane is one loop of four (contiguous in both buffers); the
/// per-channel bias varies along the channel loop but not the plane, so
/// the channel loop stays. Accesses read one-dimensional views.
// CHECK-LABEL: func.func @bias
// CHECK-DAG:     %[[X:.*]] = loop.view %arg0 : memref<8x16x2x2xf32> -> memref<512xf32>
// CHECK-DAG:     %[[B:.*]] = loop.view %{{.*}} : memref<8x16x2x2xf32, strided<[0, 1, 0, 0], offset: 0>> -> memref<16xf32>
// CHECK:         loop.kernel "exp_1" ({{.*}}= %[[X]] : memref<512xf32>, {{.*}}= %[[B]] : memref<16xf32>,
// CHECK-NEXT:      loop.for %[[N:.*]] = 0 to 8 parallel {
// CHECK-NEXT:        loop.for %[[C:.*]] = 0 to 16 {
// CHECK-NEXT:          loop.for %[[K:.*]] = 0 to 4 {
// CHECK:                 loop.load %{{.*}}[%{{.*}}] : memref<512xf32>
// CHECK:                 loop.load %{{.*}}[%[[C]]] : memref<16xf32>
// CHECK:                 loop.exp
// CHECK:                 loop.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<512xf32>
func.func @bias(%x: tensor<8x16x2x2xf32>, %b: tensor<16x1x1xf32>) -> tensor<8x16x2x2xf32> {
  %0 = tensor.add %x, %b : tensor<8x16x2x2xf32>, tensor<16x1x1xf32> -> tensor<8x16x2x2xf32>
  %1 = tensor.exp %0 : tensor<8x16x2x2xf32>
  return %1 : tensor<8x16x2x2xf32>
}

// -----

/// A transposed read is not contiguous across the two dimensions: the nest
/// stays as it was. (The result is laid out as the first operand, which
/// is row-major; a transposed first operand would lay it out transposed,
/// and every access would be contiguous.)
// CHECK-LABEL: func.func @transposed
// CHECK:         loop.for %{{.*}} = 0 to 4 parallel {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:          loop.load %{{.*}} : memref<4x2x2xf32>
// CHECK-NEXT:          loop.load %{{.*}} : memref<4x2x2xf32, strided<[4, 1, 2], offset: 0>>
func.func @transposed(%x: tensor<4x2x2xf32>, %y: tensor<4x2x2xf32>) -> tensor<4x2x2xf32> {
  %t = view.transpose %x {dim0 = 1, dim1 = 2} : tensor<4x2x2xf32> -> tensor<4x2x2xf32>
  %0 = tensor.add %y, %t : tensor<4x2x2xf32>, tensor<4x2x2xf32> -> tensor<4x2x2xf32>
  return %0 : tensor<4x2x2xf32>
}

// -----

/// A reduction over a 2x2 plane is one reduction loop of four, adding the
/// same elements in the same order.
// CHECK-LABEL: func.func @mean
// CHECK:         loop.for %{{.*}} = 0 to 8 parallel {
// CHECK-NEXT:      %[[Z:.*]] = loop.constant 0.0 : f32
// CHECK-NEXT:      %[[S:.*]] = loop.for %{{.*}} = 0 to 4 iter_args(%[[A:.*]] = %[[Z]]) -> (f32) {
// CHECK:             %[[V:.*]] = loop.load %{{.*}}[%{{.*}}] : memref<128xf32>
// CHECK-NEXT:        %[[T:.*]] = loop.add %[[A]], %[[V]] : f32
// CHECK-NEXT:        loop.yield %[[T]] : f32
// CHECK:           loop.div %[[S]]
func.func @mean(%x: tensor<4x8x2x2xf32>) -> tensor<4x8x1x1xf32> {
  %0 = tensor.mean %x {dims = [2, 3], keepdim} : tensor<4x8x2x2xf32> -> tensor<4x8x1x1xf32>
  return %0 : tensor<4x8x1x1xf32>
}

// -----

/// A loop of one iteration is its body, at index 0.
// CHECK-LABEL: func.func @unit
// CHECK:         loop.for %[[I:.*]] = 0 to 4 parallel {
// CHECK-NEXT:      %[[Z:.*]] = loop.constant 0 : index
// CHECK-NEXT:      loop.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:        loop.load %{{.*}}[%[[I]], %[[Z]], %[[J]]]
func.func @unit(%x: tensor<4x1x3xf32>) -> tensor<4x1x3xf32> {
  %0 = tensor.exp %x : tensor<4x1x3xf32>
  return %0 : tensor<4x1x3xf32>
}

// -----

/// An innermost loop of 1024 iterations or more keeps its nest; so does
/// the kernel's split loop (the runtime divides it across threads).
// CHECK-LABEL: func.func @long
// CHECK:         loop.for %{{.*}} = 0 to 4 parallel {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 1024 {
func.func @long(%x: tensor<4x2x1024xf32>) -> tensor<4x2x1024xf32> {
  %0 = tensor.exp %x : tensor<4x2x1024xf32>
  return %0 : tensor<4x2x1024xf32>
}

// -----

/// A shorter one (a 32×32 feature map's rows) absorbs its parent: one loop
/// of 32·32 iterations, long enough for the math strips (64 iterations
/// each) that a 32-iteration row never started; that loop is then long
/// enough to keep its own parent.
// CHECK-LABEL: func.func @rows
// CHECK:         loop.for %{{.*}} = 0 to 4 parallel {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 1024 {
// CHECK-NOT:           loop.for
func.func @rows(%x: tensor<4x2x32x32xf32>) -> tensor<4x2x32x32xf32> {
  %0 = tensor.exp %x : tensor<4x2x32x32xf32>
  return %0 : tensor<4x2x32x32xf32>
}

// -----

/// Symbolic sizes: the accesses index the two loops' variables directly,
/// so each reads a view with the two dimensions merged when the buffer's
/// sizes there are the trip counts and its strides are contiguous across
/// them, as expressions. The image plane (`s1·s1`, at the hint 64·64 long
/// enough) absorbs its rows; the batch stays a loop of its own, since the
/// input is a channels-first buffer permuted (its batch stride is
/// `s1·s1`, not `8·s1·s1`). The result takes the input's layout.
// CHECK-LABEL: func.func @symbolic_plane
// CHECK:         %[[XV:.*]] = loop.view %{{.*}} : memref<s0x8xs1xs1xf32, strided<[(s1*s1), (s0*s1*s1), s1, 1], offset: 0>> -> memref<s0x8x(s1*s1)xf32, strided<[(s1*s1), (s0*s1*s1), 1], offset: 0>>
// CHECK:         %[[OV:.*]] = loop.view %{{.*}} : memref<8xs0xs1xs1xf32> -> memref<8xs0x(s1*s1)xf32>
// CHECK:         loop.kernel "tanh_{{[0-9]+}}" (%[[A:.*]] = %[[XV]] : {{.*}}, %[[B:.*]] = %[[OV]] : {{.*}})
// CHECK-NEXT:      loop.for %[[C:.*]] = 0 to 8 parallel {
// CHECK-NEXT:        loop.for %[[N:.*]] = 0 to s0 {
// CHECK-NEXT:          loop.for %[[K:.*]] = 0 to (s1*s1) {
// CHECK-NEXT:            loop.load %[[A]][%[[N]], %[[C]], %[[K]]]
// CHECK-NEXT:            loop.tanh
// CHECK-NEXT:            loop.store %{{.*}}, %[[B]][%[[C]], %[[N]], %[[K]]]
func.func @symbolic_plane(%x: tensor<8xs0xs1xs1xf32>) -> tensor<s0x8xs1xs1xf32> {
  %0 = view.permute %x {dims = [1, 0, 2, 3]} : tensor<8xs0xs1xs1xf32> -> tensor<s0x8xs1xs1xf32>
  %1 = tensor.tanh %0 : tensor<s0x8xs1xs1xf32>
  return %1 : tensor<s0x8xs1xs1xf32>
}

// -----

/// An image's interior rows (a slice of each) are not contiguous with
/// each other: their stride `s1` is not their size `s1 - 2`. Nothing
/// merges.
// CHECK-LABEL: func.func @symbolic_interior
// CHECK:         loop.for %{{.*}} = 0 to s0 parallel {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to (s1 - 2) {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to (s1 - 2) {
func.func @symbolic_interior(%x: tensor<s0xs1xs1xf32>) -> tensor<s0x(s1 - 2)x(s1 - 2)xf32> {
  %0 = view.slice %x {dim = 1, start = 1, end = -1} : tensor<s0xs1xs1xf32> -> tensor<s0x(s1 - 2)xs1xf32>
  %1 = view.slice %0 {dim = 2, start = 1, end = -1} : tensor<s0x(s1 - 2)xs1xf32> -> tensor<s0x(s1 - 2)x(s1 - 2)xf32>
  %2 = tensor.exp %1 : tensor<s0x(s1 - 2)x(s1 - 2)xf32>
  return %2 : tensor<s0x(s1 - 2)x(s1 - 2)xf32>
}
