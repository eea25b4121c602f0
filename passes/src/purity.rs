//! Which ops a generic pass may remove, merge or move.
//!
//! An op is removable when it has the `Pure` trait. View ops alias their
//! operand under reference semantics, so they are only treated as pure in a
//! function that has value semantics (marked `aot.value_semantics` by
//! `functionalize`), where a view computes its result by value.

use aot_ir::*;

/// The function attribute `functionalize` sets on functions it rewrote
/// (the interpreter reads it too).
pub use aot_runtime::interp::VALUE_SEMANTICS;

/// Is `op` inside a function with value semantics?
pub fn in_value_semantics(ctx: &Context, op: Op) -> bool {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if ctx.isa::<aot_dialects::func::FuncOp>(p) {
            return ctx.has_attr(p, VALUE_SEMANTICS);
        }
        cur = ctx.parent_op(p);
    }
    false
}

/// May `op` be erased when unused, or merged with an equivalent op?
pub fn is_removable_pure(ctx: &Context, op: Op) -> bool {
    let Some(def) = ctx.op_def(op) else { return false };
    if def.has(Traits::PURE) {
        return true;
    }
    def.has(Traits::VIEW) && !def.has(Traits::INPLACE) && in_value_semantics(ctx, op)
}
