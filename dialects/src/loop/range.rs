//! Integer ranges of loop-dialect values, and the divisions they make
//! unsigned.
//!
//! `loop.div` and `loop.rem` on integers round toward negative infinity, so
//! a backend emits a signed division plus a sign fix-up. Lowered kernels
//! divide flat indices by shape extents, and there the dividend is never
//! negative: the fix-up is dead and the division is the unsigned one, which
//! is cheaper and which LLVM's vectorizer can see through (with signed
//! divisions of a split loop's index it gave up on a whole Philox kernel).
//! Proving it takes a range analysis, kept here so every backend draws the
//! same conclusion from the same facts.
//!
//! Invariants: a range is an inclusive `(lo, hi)` of the value's
//! mathematical result, computed with checked arithmetic, so a range exists
//! only where the wrapping result the backends compute equals it. A loop's
//! induction variable lies in `[lower, upper)`: a backend that runs a slice
//! of a loop (a split loop) clamps the slice into those bounds.

use super::{Binary, LoopOp, ScalarOp};
use aot_ir::{Context, ElemType, Op, TypeData, Value, ValueDef};
use rustc_hash::{FxHashMap, FxHashSet};

/// Deepest chain of operands followed before a value counts as unknown
/// (bounds the recursion on hostile input).
const MAX_DEPTH: u32 = 64;

/// Memoized integer ranges of one kernel's values.
#[derive(Default)]
pub struct Ranges {
    known: FxHashMap<Value, Option<(i64, i64)>>,
}

impl Ranges {
    /// The inclusive range of an integer or index value, if provable.
    pub fn of(&mut self, ctx: &Context, v: Value) -> Option<(i64, i64)> {
        self.range(ctx, v, 0)
    }

    fn range(&mut self, ctx: &Context, v: Value, depth: u32) -> Option<(i64, i64)> {
        if let Some(&r) = self.known.get(&v) {
            return r;
        }
        if depth > MAX_DEPTH || !is_int(ctx, v) {
            return None;
        }
        let r = self.compute(ctx, v, depth);
        self.known.insert(v, r);
        r
    }

    fn compute(&mut self, ctx: &Context, v: Value, depth: u32) -> Option<(i64, i64)> {
        let op = match ctx.value_def(v) {
            ValueDef::BlockArg { block, index: 0 } => {
                let l = ctx.block_parent_op(block)?;
                if LoopOp::of(ctx, l) != Some(LoopOp::For) {
                    return None;
                }
                let (lower, upper, step) =
                    (ctx.attr_i64(l, "lower")?, ctx.attr_i64(l, "upper")?, ctx.attr_i64(l, "step")?);
                // A run-time trip count bounds nothing here.
                if aot_ir::sym::is_symbolic(upper) {
                    return None;
                }
                // An empty loop never binds its variable: any range holds.
                return (step >= 1).then(|| (lower, upper.saturating_sub(1).max(lower)));
            }
            ValueDef::BlockArg { .. } => return None,
            ValueDef::Result { op, .. } => op,
        };
        let operand = |i: usize, s: &mut Ranges| s.range(ctx, ctx.operand(op, i), depth + 1);
        match LoopOp::of(ctx, op)? {
            LoopOp::Constant => ctx.attr_i64(op, "value").map(|c| (c, c)),
            LoopOp::Scalar(ScalarOp::Cast) => {
                // Only between 64-bit integer types: no truncation.
                let wide = |t| matches!(ctx.type_data(t), TypeData::Index | TypeData::Elem(ElemType::I64));
                if wide(ctx.value_type(ctx.operand(op, 0))) && wide(ctx.value_type(v)) {
                    operand(0, self)
                } else {
                    None
                }
            }
            LoopOp::Scalar(ScalarOp::Binary(bin)) => {
                let a = operand(0, self)?;
                let b = operand(1, self)?;
                binary(bin, a, b)
            }
            _ => None,
        }
    }

    /// Whether floor division by `d` of `n` is the unsigned division: `n`
    /// is never negative and `d` is a positive constant.
    pub fn unsigned_division(&mut self, ctx: &Context, n: Value, d: Value) -> bool {
        matches!(self.of(ctx, n), Some((lo, _)) if lo >= 0)
            && matches!(self.of(ctx, d), Some((c, c2)) if c == c2 && c > 0)
    }
}

fn is_int(ctx: &Context, v: Value) -> bool {
    match ctx.type_data(ctx.value_type(v)) {
        TypeData::Index => true,
        TypeData::Elem(e) => e.is_int() && *e != ElemType::I1,
        _ => false,
    }
}

/// The range of a binary op's result from its operands' ranges.
fn binary(bin: Binary, (al, ah): (i64, i64), (bl, bh): (i64, i64)) -> Option<(i64, i64)> {
    match bin {
        Binary::Add => Some((al.checked_add(bl)?, ah.checked_add(bh)?)),
        Binary::Sub => Some((al.checked_sub(bh)?, ah.checked_sub(bl)?)),
        Binary::Mul => {
            let p = [al.checked_mul(bl)?, al.checked_mul(bh)?, ah.checked_mul(bl)?, ah.checked_mul(bh)?];
            Some((*p.iter().min()?, *p.iter().max()?))
        }
        // Floor division by a positive constant is monotonic.
        Binary::Div if bl == bh && bl > 0 => Some((al.div_euclid(bl), ah.div_euclid(bl))),
        Binary::Rem if bl == bh && bl > 0 => {
            if al >= 0 && ah < bl {
                Some((al, ah))
            } else {
                Some((0, bl - 1))
            }
        }
        Binary::Max => Some((al.max(bl), ah.max(bh))),
        Binary::Min => Some((al.min(bl), ah.min(bh))),
        _ => None,
    }
}

/// The integer `loop.div`/`loop.rem` ops inside `kernel` that are unsigned
/// divisions (see [`Ranges::unsigned_division`]).
pub fn unsigned_divisions(ctx: &Context, kernel: Op) -> FxHashSet<Op> {
    let mut ranges = Ranges::default();
    let mut out = FxHashSet::default();
    ctx.walk_pre(kernel, &mut |o| {
        if matches!(LoopOp::of(ctx, o), Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Div | Binary::Rem))))
            && ctx.num_operands(o) == 2
            && ranges.unsigned_division(ctx, ctx.operand(o, 0), ctx.operand(o, 1))
        {
            out.insert(o);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_follow_checked_arithmetic() {
        assert_eq!(binary(Binary::Add, (0, 3), (4, 4)), Some((4, 7)));
        assert_eq!(binary(Binary::Sub, (0, 3), (4, 4)), Some((-4, -1)));
        assert_eq!(binary(Binary::Mul, (-2, 3), (4, 5)), Some((-10, 15)));
        assert_eq!(binary(Binary::Div, (-5, 9), (4, 4)), Some((-2, 2)));
        assert_eq!(binary(Binary::Rem, (0, 3), (4, 4)), Some((0, 3)));
        assert_eq!(binary(Binary::Rem, (-9, 30), (4, 4)), Some((0, 3)));
        // A division by a value that is not one positive constant, and any
        // overflow, give no range.
        assert_eq!(binary(Binary::Div, (0, 9), (1, 4)), None);
        assert_eq!(binary(Binary::Div, (0, 9), (-4, -4)), None);
        assert_eq!(binary(Binary::Add, (0, i64::MAX), (1, 1)), None);
        assert_eq!(binary(Binary::Mul, (0, 1 << 62), (4, 4)), None);
    }
}
