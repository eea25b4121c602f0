//! Value semantics, as generic passes see it.
//!
//! What a pass may remove or merge is what ops declare about memory
//! ([`aot_ir::effects`]): `Pure` ops, and view ops inside a function with
//! value semantics (marked `aot.value_semantics` by `functionalize`), where a
//! view computes its result by value; under reference semantics a view is a
//! new tensor object whose identity matters.

/// The function attribute `functionalize` sets on functions it rewrote
/// (the interpreter reads it too).
pub use aot_runtime::interp::VALUE_SEMANTICS;
