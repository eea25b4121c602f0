// RUN: aot-opt %s --split-input-file --verify-diagnostics

aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @dense_result(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>) {
  // expected-error@+1 {{'tensor.neg' op inferred type(s) '!aot.subclass<@TwoTensor, tensor<3xf32>>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = tensor.neg %x : !aot.subclass<@TwoTensor, tensor<3xf32>> -> tensor<3xf32>
  return
}

// -----

aot.subclass @TwoTensor {inner = ["a", "b"]}
aot.subclass @Other {inner = ["p"]}
func.func @two_classes(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>, %y: !aot.subclass<@Other, tensor<3xf32>>) {
  // expected-error@+1 {{'tensor.add' op takes values of two subclasses, @TwoTensor and @Other: per-component dispatch needs one}}
  %0 = tensor.add %x, %y : !aot.subclass<@TwoTensor, tensor<3xf32>>, !aot.subclass<@Other, tensor<3xf32>> -> !aot.subclass<@TwoTensor, tensor<3xf32>>
  return
}

// -----

aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @dense_mutated_by_components(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>, %y: tensor<3xf32>) {
  // expected-error@+1 {{'mut.add_' op mutates a dense tensor with a @TwoTensor operand: each component would mutate it once; mutate a subclass value instead}}
  mut.add_ %y, %x : tensor<3xf32>, !aot.subclass<@TwoTensor, tensor<3xf32>>
  return
}

// -----

aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @unwrap_count(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>) {
  // expected-error@+1 {{'aot.subclass_unwrap' op @TwoTensor has 2 inner tensors (a, b), but the op has 1}}
  %a = aot.subclass_unwrap %x : !aot.subclass<@TwoTensor, tensor<3xf32>> -> tensor<3xf32>
  return
}

// -----

aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @wrap_shape(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'aot.subclass_wrap' op inner tensor 'b' has type tensor<4xf32>, but @TwoTensor needs tensor<3xf32>}}
  %0 = aot.subclass_wrap %a, %b : tensor<3xf32>, tensor<4xf32> -> !aot.subclass<@TwoTensor, tensor<3xf32>>
  return
}

// -----

func.func @undeclared(%a: tensor<3xf32>) {
  // expected-error@+1 {{'aot.subclass_wrap' op subclass @Missing is not declared in this module}}
  %0 = aot.subclass_wrap %a : tensor<3xf32> -> !aot.subclass<@Missing, tensor<3xf32>>
  return
}

// -----

// expected-error@+1 {{'aot.subclass' op 'inner' names must be non-empty and unique, got "a" twice or empty}}
aot.subclass @Dup {inner = ["a", "a"]}

// -----

// expected-error@+1 {{'aot.subclass' op 'inner_classes' has 1 entries but 'inner' has 2: give one class (or "") per inner tensor}}
aot.subclass @Mismatch {inner = ["a", "b"], inner_classes = [""]}

// -----

// expected-error@+1 {{'aot.subclass' op requires attribute 'inner'}}
aot.subclass @NoInner {meta = {k = 1}}

// -----

// expected-error@+1 {{expected the outer tensor type in subclass type}}
func.func @bad_type(%x: !aot.subclass<@TwoTensor, f32>) {
  return
}

// -----

func.func @in_function() {
  // expected-error@+1 {{'aot.subclass' op must be declared at module level}}
  aot.subclass @Inner {inner = ["a"]}
  return
}
