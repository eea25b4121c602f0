//! Which innermost loops vectorize, and how each value behaves across
//! their iterations (see the parent module for the rules); emission is the
//! parent's.

use crate::affine::expr_of;
use aot_dialects::r#loop::analysis;
use aot_dialects::r#loop::{Binary, LoopOp, ScalarOp, Unary};
use aot_ir::{Context, ElemType, Op, TypeData, Value};
use rustc_hash::FxHashMap;

/// How a value behaves across the iterations of the loop.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// The same in every iteration.
    Uniform,
    /// An index that moves with the induction variable (addresses only).
    Index,
    /// A different f32 (or mask) per iteration.
    Lane,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Reduce {
    Add,
    Max,
    Min,
}

pub(super) struct Plan {
    pub kinds: FxHashMap<Value, Kind>,
    /// Loads and stores whose element offset moves by other than 1 per
    /// iteration (a slice with a step, a transposed operand): their
    /// lanes are gathered or scattered one element at a time.
    pub strides: FxHashMap<Op, i64>,
    /// Per carried value (in order): the reduction and the op updating it.
    pub reductions: Vec<(Reduce, Op)>,
}

pub(super) fn is_f32(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::Elem(ElemType::F32))
}

/// A bf16 value: lanes of it exist only between a load and a cast to f32,
/// or a cast from f32 and a store (unit stride both).
pub(super) fn is_bf16(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::Elem(ElemType::BF16))
}

pub(super) fn is_i1(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::Elem(ElemType::I1))
}

pub(super) fn is_index(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::Index)
}

/// The coefficient of the induction variable in a load/store's element
/// offset; `None` when the address is not affine in it.
pub(super) fn address_coef(
    ctx: &Context,
    kinds: &FxHashMap<Value, Kind>,
    op: Op,
    buf: Value,
    first: usize,
    iv: Value,
) -> Option<i64> {
    let m = analysis::memref(ctx, buf)?;
    let (strides, _) = aot_dialects::r#loop::layout(m);
    let mut coef = 0i64;
    // Per dimension, so that a symbolic stride (a run-time size) is never
    // taken for a number: one along the loop keeps the scalar loop, one
    // across it (a row's stride) moves every lane alike.
    for (i, &s) in ctx.operands(op).skip(first).zip(strides.iter()) {
        if s == 0 {
            continue;
        }
        let e = expr_of(ctx, i);
        for &(atom, _) in &e.terms {
            if atom != iv && kinds.get(&atom).copied() != Some(Kind::Uniform) && !is_outer(ctx, atom, iv) {
                return None;
            }
        }
        let k = e.coef(iv);
        if k != 0 {
            if aot_ir::sym::is_symbolic(s) {
                return None;
            }
            coef = coef.checked_add(k.checked_mul(s)?)?;
        }
    }
    Some(coef)
}

/// A value defined outside the loop whose induction variable is `iv`.
pub(super) fn is_outer(ctx: &Context, v: Value, iv: Value) -> bool {
    let Some(body) = (match ctx.value_def(iv) {
        aot_ir::ValueDef::BlockArg { block, .. } => Some(block),
        _ => None,
    }) else {
        return false;
    };
    match ctx.value_def(v) {
        aot_ir::ValueDef::BlockArg { block, .. } => block != body,
        aot_ir::ValueDef::Result { op, .. } => ctx.op_block(op) != Some(body),
    }
}

/// Classifies the ops of `block` (the vectorized loop's body, or a loop
/// nested in it) for lanes along `iv`. A nested loop runs the same
/// iterations in every lane: its induction variable is uniform, its
/// carried values are lanes (each lane reduces its own column).
pub(super) fn classify_block(
    ctx: &Context,
    block: aot_ir::Block,
    iv: Value,
    nested: bool,
    kinds: &mut FxHashMap<Value, Kind>,
    strides: &mut FxHashMap<Op, i64>,
    any_lane: &mut bool,
) -> Option<()> {
    let kind = |kinds: &FxHashMap<Value, Kind>, v: Value| kinds.get(&v).copied().unwrap_or(Kind::Uniform);
    for o in ctx.block_ops(block) {
        let op_kind = LoopOp::of(ctx, o);
        let ks: Vec<Kind> = ctx.operands(o).map(|v| kind(kinds, v)).collect();
        let result = match op_kind {
            Some(LoopOp::Yield) => continue,
            Some(LoopOp::For) => {
                let inner = ctx.single_block(o, 0)?;
                let args = ctx.block_args(inner).to_vec();
                // Uniform bounds (attributes), carried values f32 lanes.
                if !nested || ks.contains(&Kind::Index) || args[1..].iter().any(|&c| !is_f32(ctx, c)) {
                    return None;
                }
                kinds.insert(args[0], Kind::Uniform);
                for &c in &args[1..] {
                    kinds.insert(c, Kind::Lane);
                }
                classify_block(ctx, inner, iv, nested, kinds, strides, any_lane)?;
                let term = ctx.block_ops(inner).last()?;
                if ctx.operands(term).any(|v| kind(kinds, v) == Kind::Index) {
                    return None;
                }
                *any_lane = true;
                Kind::Lane
            }
            Some(LoopOp::Constant | LoopOp::Size) => Kind::Uniform,
            Some(LoopOp::Load) => {
                let buf = ctx.operand(o, 0);
                match address_coef(ctx, kinds, o, buf, 1, iv)? {
                    // The same address in every lane (a broadcast operand:
                    // stride 0 along the loop), whatever the indices are.
                    0 => Kind::Uniform,
                    1 if is_bf16(ctx, ctx.result(o, 0)) => Kind::Lane,
                    k if is_f32(ctx, ctx.result(o, 0)) || is_i1(ctx, ctx.result(o, 0)) => {
                        if k != 1 {
                            strides.insert(o, k);
                        }
                        Kind::Lane
                    }
                    _ => return None,
                }
            }
            Some(LoopOp::Store) => {
                let (v, buf) = (ctx.operand(o, 0), ctx.operand(o, 1));
                // Every lane stores to its own element.
                match address_coef(ctx, kinds, o, buf, 2, iv)? {
                    0 => return None,
                    1 if is_bf16(ctx, v) => {}
                    _ if !is_f32(ctx, v) && !is_i1(ctx, v) => return None,
                    1 => {}
                    k => {
                        strides.insert(o, k);
                    }
                }
                *any_lane = true;
                continue;
            }
            Some(LoopOp::Assert | LoopOp::Philox) => {
                if ks.iter().any(|&k| k != Kind::Uniform) {
                    return None;
                }
                Kind::Uniform
            }
            _ => {
                let r = ctx.result(o, 0);
                if ks.iter().all(|&k| k == Kind::Uniform) {
                    Kind::Uniform
                } else if is_index(ctx, r) {
                    // Affine address arithmetic on the induction variable.
                    let affine = matches!(
                        op_kind,
                        Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Add | Binary::Sub | Binary::Mul)))
                    );
                    if !affine || ks.contains(&Kind::Lane) {
                        return None;
                    }
                    Kind::Index
                } else if index_cmp(ctx, o, iv, kinds) {
                    // A test on the column (a causal mask): a mask lane per
                    // iteration, from the induction variable's lanes.
                    *any_lane = true;
                    Kind::Lane
                } else if ks.contains(&Kind::Index) {
                    return None;
                } else if lane_op(ctx, o) {
                    *any_lane = true;
                    Kind::Lane
                } else {
                    return None;
                }
            }
        };
        for &r in ctx.results(o) {
            kinds.insert(r, result);
        }
    }
    Some(())
}

pub(super) fn analyze(ctx: &Context, op: Op) -> Option<Plan> {
    if ctx.attr_i64(op, "step").unwrap_or(1) != 1 {
        return None;
    }
    let body = ctx.single_block(op, 0)?;
    let args = ctx.block_args(body).to_vec();
    let iv = args[0];
    let mut kinds: FxHashMap<Value, Kind> = FxHashMap::default();
    kinds.insert(iv, Kind::Index);
    for &c in &args[1..] {
        if !is_f32(ctx, c) {
            return None;
        }
        kinds.insert(c, Kind::Lane);
    }
    let mut any_lane = false;
    let mut strides = FxHashMap::default();
    // Loops nested in the vectorized one interleave the iterations of four
    // lanes: only sound when the iterations are independent.
    let nested = ctx.has_attr(op, "parallel");
    let kind = |kinds: &FxHashMap<Value, Kind>, v: Value| kinds.get(&v).copied().unwrap_or(Kind::Uniform);
    classify_block(ctx, body, iv, nested, &mut kinds, &mut strides, &mut any_lane)?;
    // Gathered lanes pay off in an innermost loop without reductions;
    // across an outer loop (channels of a row kernel) every inner load
    // would be a gather where the inner loop itself vectorizes with
    // whole-vector loads.
    if !strides.is_empty() && ctx.block_ops(body).any(|o| LoopOp::of(ctx, o) == Some(LoopOp::For)) {
        return None;
    }
    // Index values feed addresses only.
    for (&v, &k) in &kinds {
        if k == Kind::Index && v != iv {
            for u in ctx.uses(v) {
                let ok = match LoopOp::of(ctx, u.op) {
                    Some(LoopOp::Load) => u.index >= 1,
                    Some(LoopOp::Store) => u.index >= 2,
                    _ => kind(&kinds, ctx.result(u.op, 0)) == Kind::Index,
                };
                if !ok {
                    return None;
                }
            }
        }
    }
    // Carried values: reductions.
    let term = ctx.block_ops(body).last()?;
    let mut reductions = Vec::new();
    for (k, &c) in args[1..].iter().enumerate() {
        let y = ctx.operand(term, k);
        let upd = ctx.defining_op(y)?;
        let r = match LoopOp::of(ctx, upd) {
            Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Add))) => Reduce::Add,
            Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Max))) => Reduce::Max,
            Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Min))) => Reduce::Min,
            _ => return None,
        };
        let uses: Vec<_> = ctx.uses(c).collect();
        if uses.len() != 1 || uses[0].op != upd || ctx.operands(upd).filter(|&v| v == c).count() != 1 {
            return None;
        }
        // The new value is used only by the yield.
        if ctx.uses(y).count() != 1 {
            return None;
        }
        reductions.push((r, upd));
        any_lane = true;
    }
    // A reduction along a strided dimension stays sequential: it is the
    // scalar remainder of a column reduction, whose vector part sums each
    // column in order (an element's value must not depend on which loop
    // reached it).
    if !strides.is_empty() && !reductions.is_empty() {
        return None;
    }
    any_lane.then_some(Plan { kinds, strides, reductions })
}

/// An integer comparison of the induction variable `iv` itself with a
/// uniform value (either side): it has a lane form, each lane comparing
/// its own iteration's index. (Other index values feed addresses only.)
pub(super) fn index_cmp(ctx: &Context, o: Op, iv: Value, kinds: &FxHashMap<Value, Kind>) -> bool {
    if LoopOp::of(ctx, o) != Some(LoopOp::Scalar(ScalarOp::Cmp)) || ctx.num_operands(o) != 2 {
        return false;
    }
    let uniform = |v: Value| kinds.get(&v).copied().unwrap_or(Kind::Uniform) == Kind::Uniform && is_index(ctx, v);
    let (a, b) = (ctx.operand(o, 0), ctx.operand(o, 1));
    (a == iv && uniform(b)) || (b == iv && uniform(a))
}

/// Ops with a lane-wise form on f32 values and masks (and the casts
/// between f32 and bf16 lanes).
pub(super) fn lane_op(ctx: &Context, o: Op) -> bool {
    let Some(LoopOp::Scalar(kind)) = LoopOp::of(ctx, o) else { return false };
    let f32_result = || is_f32(ctx, ctx.result(o, 0));
    match kind {
        ScalarOp::Binary(b) => match b {
            Binary::Add | Binary::Sub | Binary::Mul | Binary::Div | Binary::Max | Binary::Min => f32_result(),
            Binary::And | Binary::Or | Binary::Xor => is_i1(ctx, ctx.result(o, 0)),
            Binary::Rem | Binary::Shr => false,
        },
        ScalarOp::Unary(
            Unary::Neg
            | Unary::Abs
            | Unary::Sqrt
            | Unary::Rsqrt
            | Unary::Floor
            | Unary::Ceil
            | Unary::Trunc
            | Unary::Round,
        ) => f32_result(),
        ScalarOp::Math(_) => f32_result() && !ctx.has_attr(o, "exact"),
        ScalarOp::Fma => f32_result(),
        ScalarOp::Cmp => is_f32(ctx, ctx.operand(o, 0)),
        ScalarOp::Select => (f32_result() || is_i1(ctx, ctx.result(o, 0))) && is_i1(ctx, ctx.operand(o, 0)),
        ScalarOp::Cast => {
            let x = ctx.operand(o, 0);
            (f32_result() && (is_i1(ctx, x) || is_bf16(ctx, x))) || (is_bf16(ctx, ctx.result(o, 0)) && is_f32(ctx, x))
        }
    }
}

/// Which operand of a binary op is a non-NaN `loop.constant`, if one is.
pub(super) fn constant_operand(ctx: &Context, op: Op) -> Option<usize> {
    (0..2).find(|&k| {
        let v = ctx.operand(op, k);
        ctx.defining_op(v).is_some_and(|d| {
            LoopOp::of(ctx, d) == Some(LoopOp::Constant)
                && ctx.get_attr(d, "value").and_then(|a| ctx.attr_as_f64(a)).is_some_and(|x| !x.is_nan())
        })
    })
}
