//! Folds and canonicalization patterns declared on the op they simplify, as
//! MLIR's `hasFolder` and `getCanonicalizationPatterns`.
//!
//! An op lists a [`Fold`] and/or [`Canonicalization`] among its
//! [`OpDef::interfaces`](crate::OpDef::interfaces); the `canonicalize` pass
//! is only the driver that applies them until nothing changes. Both kinds
//! look at one op with a single result and return the value that result
//! equals:
//! - a fold never changes the IR: it returns an existing value (an operand,
//!   a value further up the chain);
//! - a pattern may create ops before `op` (with the rewriter's insertion
//!   point there), and returns the new value.
//!
//! Neither erases anything: the driver replaces the result's uses and erases
//! the op, after checking what it alone knows (a value that a trailing
//! metadata mutation consumes keeps its own op). A fold or pattern that does
//! not apply returns `None` and leaves the IR untouched.

use crate::{Context, Op, Rewriter, Value};

/// The value `op`'s only result equals, if the op's identity applies.
pub type FoldFn = fn(&Context, Op) -> Option<Value>;

/// A rewrite of `op` that may build ops before it; returns the replacement
/// of its only result.
pub type PatternFn = fn(&mut Rewriter<'_>, Op) -> Option<Value>;

/// The op's folder.
pub struct Fold(pub FoldFn);

/// The op's canonicalization patterns, tried in order after its folder.
pub struct Canonicalization(pub &'static [PatternFn]);

/// Folds `op` with its own folder, if it declares one.
pub fn fold(ctx: &Context, op: Op) -> Option<Value> {
    let f = ctx.op_def(op)?.interface::<Fold>()?;
    (f.0)(ctx, op)
}

/// Applies `op`'s first canonicalization pattern that matches.
pub fn canonicalize(rw: &mut Rewriter<'_>, op: Op) -> Option<Value> {
    let patterns = rw.op_def(op)?.interface::<Canonicalization>()?;
    patterns.0.iter().find_map(|p| p(rw, op))
}
