// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint),partition{strategy=min-cut})' --emit=dot | diff -u %S/Inputs/emit-dot-min-cut.golden.dot -
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --emit=dot | FileCheck %s --check-prefix=INPUT
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint),partition)' --emit=dot | FileCheck %s --check-prefix=DEF
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --pass-pipeline='builtin.module(aot-inference,func.func(protect-reads,lower-to-loops,fuse,collapse-loops,plan-memory))' --emit=dot | FileCheck %s --check-prefix=LOOPS
// RUN: aot-opt %s --split-input-file --emit=dot | FileCheck %s --check-prefix=DAMAGED
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint),partition)' --emit=dot-partition | FileCheck %s --check-prefix=PART
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --emit=dot-partition | FileCheck %s --check-prefix=NOPART

/// The golden file is the picture after a min-cut partition: the forward
/// saves only %x (outlined in red with its bytes, a bold red edge of the
/// cut into the backward's `aot.saved = 0` argument), and the backward
/// recomputes tanh from it. To regenerate it after a deliberate change:
///   aot-opt test/tools/aot-opt/Inputs/emit-dot-program.mlir \
///     --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint),partition{strategy=min-cut})' \
///     --emit=dot > test/tools/aot-opt/Inputs/emit-dot-min-cut.golden.dot

/// Before any pass: a view is dashed and in its dialect's colour; the
/// in-place copy has a dark-red border and writes the view (a red edge).
// INPUT:      digraph "aot" {
// INPUT:        subgraph "cluster_[[F:op[0-9]+]]" {
// INPUT-NEXT:     label="func @step"
// INPUT:        [[ROW:op[0-9]+]] [label="view.select\nf32\n(view)", style="rounded,filled,dashed", fillcolor="#fff2cc"];
// INPUT:        [[COPY:op[0-9]+]] [label="mut.copy_\n(in place)", style="rounded,filled", fillcolor="#f4cccc", color="#8b0000", penwidth=2.5];
// INPUT-NEXT:   [[ROW]] -> [[COPY]] [color="#8b0000", fontcolor="#8b0000", penwidth=2, label="writes"];
// INPUT:        "legend mark view"
// INPUT:        "legend mark write"
// INPUT-NOT:    "legend mark saved"
// INPUT:      }

/// The default partition saves tanh's result (the backward uses it) and
/// does not recompute it; what the backward takes from saved values alone
/// (tanh's derivative, 1 - t² as one multiply-add of -t and t) is marked.
// DEF:        label="func @step\nforward (default partition): 2 saved
// DEF:        [[T:op[0-9]+]] [label="tensor.tanh\n4x8xf32\nsaved #{{[0-9]}}, 128 B", style="rounded,filled", fillcolor="#cfe2f3", color="#c0392b", penwidth=3];
// DEF:        label="func @step_backward\nbackward of @step"
// DEF-NOT:    label="tensor.tanh
// DEF:        [label="tensor.neg\n4x8xf32\nfrom saved values", style="rounded,filled,diagonals"
// DEF:        [label="tensor.fma\n4x8xf32\nfrom saved values", style="rounded,filled,diagonals"
// DEF-NOT:    label="tensor.tanh
// DEF:        [[T]] -> v{{[0-9]+}} [color="#c0392b", fontcolor="#c0392b", penwidth=2.5, style=bold, label="saved #{{[0-9]}}\n128 B"];

/// After the codegen pipeline: loops are clusters holding their bodies.
// LOOPS:      label="func @step"
// LOOPS:      subgraph "cluster_[[K:op[0-9]+]]" {
// LOOPS-NEXT:   label="loop.kernel"
// LOOPS-NEXT:   [[K]] [label="loop.kernel"
// LOOPS:        label="loop.for"
// LOOPS:        "legend dialect loop"

/// The partition alone (for modules too large to draw whole): the saved
/// values, the backward's arguments that receive them and the cut, with
/// the ops left out counted.
// PART:      subgraph "cluster_fw0" {
// PART-NEXT:   label="func @step\nforward (default partition): 2 saved, {{.*}}\n({{[0-9]+}} ops, not drawn)"
// PART:        "s[[T:v[0-9]+]]" [label="tensor.tanh\n4x8xf32\nsaved #{{[0-9]}}, 128 B", fillcolor="#cfe2f3", color="#c0392b", penwidth=3];
// PART:      subgraph "cluster_bw0" {
// PART-NEXT:   label="func @step_backward\nbackward of @step\n({{[0-9]+}} ops, not drawn)"
// PART:        "r[[A:v[0-9]+]]" [label="%arg{{[0-9]}}: 4x8xf32\naot.saved = {{[0-9]}}", shape=ellipse
// PART:      "s[[T]]" -> "r{{v[0-9]+}}" [color="#c0392b"
// NOPART:    label="no partition"

// -----

/// A partition record that does not match its function (more saved values
/// than results, a backward that does not exist) draws no partition, and
/// is no error.
// DAMAGED:      label="func @f"
// DAMAGED-NOT:  saved #
// DAMAGED:      }
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {aot.backward = @nowhere, aot.partition = #aot.partition<strategy = "min-cut", num_forward = 1, num_saved = 7, saved_bytes = 0, peak_bytes = 0>} {
  return %x : tensor<4xf32>
}
