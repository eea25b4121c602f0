// RUN: aot-opt %s --split-input-file --verify-diagnostics

/// A character that starts no token.
func.func @bad_token(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unexpected character '$'}}
  %0 = tensor.add %x, $x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unterminated_string() attributes {
  // expected-error@+1 {{expected '"' in string literal}}
  aot.s = "abc
} {
  return
}

// -----

func.func @unknown_custom_op(%x: tensor<4xf32>) {
  // expected-error@+1 {{custom op 'tensor.frobnicate' is unknown}}
  %0 = tensor.frobnicate %x : tensor<4xf32>
  return
}

// -----

func.func @unknown_generic_op(%x: tensor<4xf32>) {
  // expected-error@+1 {{unregistered operation 'foo.bar' found in dialect ('foo') that does not allow unknown operations}}
  %0 = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @use_of_undeclared(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{use of undeclared SSA value name '%y'}}
  %0 = tensor.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @use_before_def(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{operand #1 does not dominate this use}}
  %0 = tensor.add %x, %1 : tensor<4xf32>
  // expected-note@+1 {{operand defined here}}
  %1 = tensor.mul %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @type_mismatch_of_uses(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{use of value '%x' expects different type than prior uses: 'tensor<3xf32>' vs 'tensor<4xf32>'}}
  %0 = tensor.add %x, %x : tensor<3xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @inferred_type_mismatch(%x: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'tensor.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = "tensor.add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @not_broadcastable(%x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.add' op operands are not broadcast-compatible: [4] and [3]}}
  %0 = tensor.add %x, %y : tensor<4xf32>, tensor<3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mixed_element_types(%x: tensor<4xf32>, %y: tensor<4xf64>) {
  // expected-error@+1 {{'tensor.mul' op requires the same element type for all operands, got f32 and f64}}
  %0 = tensor.mul %x, %y : tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>
  return
}

// -----

func.func @wrong_operand_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.add' op expected 2 operands, but found 1}}
  %0 = "tensor.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @operand_type_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected 2 operand types but had 1}}
  %0 = "tensor.add"(%x, %x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @result_binding_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{operation defines 1 results but was provided 2 to bind}}
  %0:2 = tensor.add %x, %x : tensor<4xf32>
  return
}

// -----

func.func @missing_attribute() {
  // expected-error@+1 {{'tensor.constant' op requires attribute 'value'}}
  %0 = "tensor.constant"() : () -> tensor<2xf32>
  return
}

// -----

func.func @unknown_attribute(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.add' op has unknown attribute 'alpha'}}
  %0 = tensor.add %x, %x {alpha = 2.0} : tensor<4xf32>
  return
}

// -----

func.func @wrong_attribute_kind() {
  // expected-error@+1 {{'tensor.constant' op attribute 'value' expects a dense elements attribute}}
  %0 = "tensor.constant"() {value = 1.0} : () -> tensor<f32>
  return
}

// -----

func.func @dense_shape_mismatch() {
  // expected-error@+1 {{inferred shape of elements literal ([2]) does not match type ([3])}}
  %0 = tensor.constant dense<[1.0, 2.0]> : tensor<3xf32>
  return
}

// -----

func.func @dense_ragged() {
  // expected-error@+1 {{tensor literal is invalid; ranks are not consistent between elements}}
  %0 = tensor.constant dense<[[1.0, 2.0], [3.0]]> : tensor<2x2xf32>
  return
}

// -----

func.func @dense_float_in_int() {
  // expected-error@+1 {{expected integer elements for i64, got a float}}
  %0 = tensor.constant dense<[1.5]> : tensor<1xi64>
  return
}

// -----

func.func @int_out_of_range() attributes {
  // expected-error@+1 {{integer constant out of range for i8}}
  aot.x = 300 : i8
} {
  return
}

// -----

func.func @unknown_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{unknown type 'float32'}}
  %0 = tensor.add %x, %x : float32
  return
}

// -----

// expected-error@+1 {{unsupported integer type 'i16' (supported: i1, i8, i32, i64)}}
func.func @odd_int(%x: i16) {
  return
}

// -----

// expected-error@+1 {{invalid element type 'f8'}}
func.func @bad_element(%x: tensor<4xf8>) {
  return
}

// -----

func.func @redefinition(%x: tensor<4xf32>) {
  %0 = tensor.add %x, %x : tensor<4xf32>
  // expected-error@+1 {{redefinition of SSA value '%0'}}
  %0 = tensor.mul %x, %x : tensor<4xf32>
  return
}

// -----

func.func @dup(%x: tensor<4xf32>) {
  // expected-note@-1 {{see existing symbol definition here}}
  return
}
// expected-error@+1 {{redefinition of symbol named 'dup'}}
func.func @dup(%x: tensor<4xf32>) {
  return
}

// -----

func.func @return_type(%x: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'func.return' op type of return operand 0 ('tensor<4xf32>') doesn't match function result type ('tensor<3xf32>') in function @return_type}}
  return %x : tensor<4xf32>
}

// -----

func.func @return_count(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error@+1 {{'func.return' op has 1 operands, but enclosing function (@return_count) returns 2}}
  return %x : tensor<4xf32>
}

// -----

func.func @no_terminator(%x: tensor<4xf32>) {
  // expected-error@+1 {{block in 'func.func' must end with a terminator, but ends with 'tensor.add'}}
  %0 = tensor.add %x, %x : tensor<4xf32>
}

// -----

func.func @terminator_not_last(%x: tensor<4xf32>) {
  // expected-error@+1 {{'func.return' op must be the last operation in the parent block}}
  "func.return"() : () -> ()
  %0 = tensor.add %x, %x : tensor<4xf32>
  return
}

// -----

func.func @call_unknown(%x: tensor<4xf32>) {
  // expected-error@+1 {{'func.call' op 'nowhere' does not reference a valid function}}
  %0 = func.call @nowhere(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func private @callee(tensor<4xf32>) -> tensor<4xf32>
func.func @call_mismatch(%x: tensor<3xf32>) {
  // expected-error@+1 {{'func.call' op operand type mismatch: expected operand type 'tensor<4xf32>', but provided 'tensor<3xf32>' for operand number 0}}
  %0 = func.call @callee(%x) : (tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

// expected-error@+1 {{'func.func' op entry block must have 1 arguments to match function signature}}
"func.func"() ({
^bb0:
  "func.return"() : () -> ()
}) {sym_name = "sig", function_type = (tensor<4xf32>) -> ()} : () -> ()

// -----

func.func @missing_colon(%x: tensor<4xf32>) {
  // expected-error@+2 {{expected ':' followed by operand types}}
  %0 = tensor.add %x, %x
  return
}

// -----

/// A hexadecimal float literal is the type's bit pattern: 16 bits for f16.
func.func @hex_too_wide() {
  // expected-error@+1 {{hexadecimal float literal has more than the 16 bits of f16}}
  %0 = loop.constant 0x17C00 : f16
  return
}

// -----

func.func @unclosed_region(%x: tensor<4xf32>) {
  return
// expected-error@+1 {{expected '}' to end region}}
