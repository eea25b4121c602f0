// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse))' --split-input-file | FileCheck %s
// RUN: aot-opt %s --pass-pipeline='builtin.module(cse)' --split-input-file | FileCheck %s

/// Identical pure ops collapse into the first one.
// CHECK-LABEL: func.func @simple_duplicate
// CHECK-NEXT:    %[[M:.*]] = tensor.mul %arg0, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = tensor.add %[[M]], %[[M]] : tensor<4xf32>
// CHECK-NEXT:    return %[[A]]
func.func @simple_duplicate(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %y : tensor<4xf32>
  %1 = tensor.mul %x, %y : tensor<4xf32>
  %2 = tensor.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

/// Commutative ops match with their operands swapped.
// CHECK-LABEL: func.func @commutative
// CHECK-NEXT:    %[[M:.*]] = tensor.mul %arg0, %arg1
// CHECK-NEXT:    tensor.add %[[M]], %[[M]]
func.func @commutative(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %y : tensor<4xf32>
  %1 = tensor.mul %y, %x : tensor<4xf32>
  %2 = tensor.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

/// `maximum` and `minimum` are not commutative: of -0 and +0 they return
/// the first, as PyTorch does, so swapped operands are another value.
// CHECK-LABEL: func.func @max_min_keep_their_order
// CHECK-COUNT-2: tensor.maximum
// CHECK-COUNT-2: tensor.minimum
func.func @max_min_keep_their_order(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tensor.maximum %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = tensor.maximum %y, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = tensor.minimum %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = tensor.minimum %y, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

/// Chains of duplicates collapse transitively.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: tensor.mul
// CHECK-COUNT-1: tensor.add
// CHECK-NOT:     tensor.
func.func @chain(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  %1 = tensor.add %0, %x : tensor<4xf32>
  %2 = tensor.mul %x, %x : tensor<4xf32>
  %3 = tensor.add %2, %x : tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

/// Different attributes keep ops apart.
// CHECK-LABEL: func.func @attributes_differ
// CHECK:         tensor.constant dense<1.0>
// CHECK:         tensor.constant dense<2.0>
func.func @attributes_differ() -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = tensor.constant dense<1.0> : tensor<2xf32>
  %1 = tensor.constant dense<2.0> : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

/// Equal constants merge, also when written in different spellings.
// CHECK-LABEL: func.func @equal_constants
// CHECK-NEXT:    %[[C:.*]] = tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]], %[[C]]
func.func @equal_constants() -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = tensor.constant dense<[1.0e0, 2]> : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

/// Ops in different functions are never merged (functions are isolated).
// CHECK-LABEL: func.func @first
// CHECK:         tensor.mul
// CHECK-LABEL: func.func @second
// CHECK:         tensor.mul
func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Calls may have side effects: they are never merged.
// CHECK-LABEL: func.func @calls_stay
// CHECK-COUNT-2: call @ext
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
func.func @calls_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = func.call @ext(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @ext(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

/// Loads only read memory (the memory-effect interface of loop.load): two
/// loads of one element merge when nothing in the kernel writes memory.
// CHECK-LABEL: func.func @loads_merge_without_writes
// CHECK:         loop.kernel
// CHECK-COUNT-1:   loop.load
// CHECK-NOT:       loop.load
// CHECK:           loop.add %[[V:.*]], %[[V]]
func.func @loads_merge_without_writes(%x: memref<4xf32>) {
  loop.kernel "k" (%a = %x : memref<4xf32>) {
    loop.for %i = 0 to 4 {
      %v = loop.load %a[%i] : memref<4xf32>
      %w = loop.load %a[%i] : memref<4xf32>
      %s = loop.add %v, %w : f32
    }
  }
  return
}

// -----

/// A store to another argument may write the loaded memory (arguments can
/// be views of one storage), so the loads stay apart.
// CHECK-LABEL: func.func @store_to_a_possible_alias
// CHECK-COUNT-2: loop.load
func.func @store_to_a_possible_alias(%x: memref<4xf32>, %y: memref<4xf32>) {
  loop.kernel "k" (%a = %x : memref<4xf32>, %b = %y : memref<4xf32>) {
    loop.for %i = 0 to 4 {
      %v = loop.load %a[%i] : memref<4xf32>
      loop.store %v, %b[%i] : memref<4xf32>
      %w = loop.load %a[%i] : memref<4xf32>
      loop.store %w, %b[%i] : memref<4xf32>
    }
  }
  return
}

// -----

/// Stores and assertions are never merged, even when identical.
// CHECK-LABEL: func.func @effects_stay
// CHECK-COUNT-2: loop.assert
// CHECK-COUNT-2: loop.store
func.func @effects_stay(%x: memref<4xf32>) {
  loop.kernel "k" (%a = %x : memref<4xf32>) {
    loop.for %i = 0 to 4 {
      %z = loop.constant 0.0 : f32
      %c = loop.cmp %z, %z {predicate = "eq"} : f32 -> i1
      loop.assert %c {msg = "m"} : i1
      loop.assert %c {msg = "m"} : i1
      loop.store %z, %a[%i] : memref<4xf32>
      loop.store %z, %a[%i] : memref<4xf32>
    }
  }
  return
}
