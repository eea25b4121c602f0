//! The view dialect's folds and canonicalization patterns (see
//! [`aot_ir::fold`]), each declared on the op it simplifies:
//!
//! - every single-result view: `view(scatter(b, s, A), A) == s`, reading back
//!   what was just written (not for an `as_strided` region that reaches an
//!   element twice: the read then gives each element's last write);
//! - identity views: `alias`, reshape-likes and `expand` to the same type,
//!   `transpose(d, d)`, `t` of rank < 2, identity permutations, full slices,
//!   a contiguous `as_strided` of the whole value; `f(f(y)) == y` for the
//!   self-inverse `transpose` and `t` with equal attributes; a chain of
//!   reshape-likes is one reshape (a pattern: it builds the reshape);
//! - every scatter: `scatter(b, view(b, A), A) == b`, writing back an
//!   unchanged region (for `as_strided_scatter`, any chain of views from `b`
//!   whose composed layout is `A`); a region covering the whole base is
//!   `src`; `scatter(scatter(b, s1, A), s2, A) == scatter(b, s2, A)`, the
//!   second write covers the first (a pattern).
//!
//! Meaning is preserved exactly, including what autograd sees: nothing folds
//! through a view made under no_grad (`aot.no_grad`), a detach, or a scatter
//! marked [`HIDDEN_WRITE`]. These identities hold in value semantics only;
//! the driver applies them to functions that have it.

use super::{
    contiguous_strides, view_interface, view_of_scatter, AsStridedOp, Inverse, Layout, ReshapeOp, HIDDEN_WRITE,
};
use aot_ir::*;
use aot_runtime::interp::{Detaches, NO_GRAD};

/// Inherent attributes only (dialect-prefixed ones do not change meaning).
pub(super) fn core_attrs(ctx: &Context, op: Op) -> Vec<NamedAttr> {
    ctx.attrs(op).iter().copied().filter(|a| !ctx.sym_str(a.name).contains('.')).collect()
}

fn hidden(ctx: &Context, op: Op) -> bool {
    ctx.has_attr(op, HIDDEN_WRITE)
}

/// The scatter `op` is, if it is one and no fold may look through it.
pub(super) fn visible_scatter(ctx: &Context, op: Op) -> Option<OpRef> {
    view_of_scatter(ctx.op_name(op)).filter(|_| !hidden(ctx, op))
}

pub(super) fn is_contiguous_layout(size: &[i64], stride: &[i64], offset: i64) -> bool {
    offset == 0 && contiguous_strides(size)[..] == *stride
}

/// Whether the `as_strided` attributes of `op` describe a contiguous layout
/// of the whole value.
fn whole_contiguous(ctx: &Context, op: Op) -> Option<bool> {
    let av = AttrView::of_op(ctx, op);
    let (size, stride) = (av.list("size")?, av.list("stride")?);
    Some(is_contiguous_layout(&size, &stride, av.i64("offset").unwrap_or(0)))
}

/// Only `as_strided` regions can repeat an element; other views of a value
/// select distinct positions.
pub(super) fn region_may_self_overlap(ctx: &Context, op: Op) -> bool {
    if !ctx.isa::<AsStridedOp>(op) {
        return false;
    }
    let av = AttrView::of_op(ctx, op);
    match (av.list("size"), av.list("stride")) {
        (Some(size), Some(stride)) => aot_runtime::overlap::may_reach_an_element_twice(&size, &stride),
        _ => true,
    }
}

/// The operand of a single-result view that folds may look through.
fn view_operand(ctx: &Context, op: Op) -> Option<Value> {
    (ctx.num_results(op) == 1 && ctx.num_operands(op) == 1 && !ctx.has_attr(op, NO_GRAD)).then(|| ctx.operand(op, 0))
}

/// The operand of `op` when `op`'s result has the operand's type.
fn same_type_operand(ctx: &Context, op: Op) -> Option<Value> {
    let x = view_operand(ctx, op)?;
    (ctx.value_type(x) == ctx.result_type(op, 0)).then_some(x)
}

/// `view(scatter(b, s, A), A) == s`.
fn read_back(ctx: &Context, op: Op) -> Option<Value> {
    let x = view_operand(ctx, op)?;
    let s = ctx.defining_op(x)?;
    let hit = visible_scatter(ctx, s).is_some_and(|v| v.matches(ctx, op))
        && core_attrs(ctx, s) == core_attrs(ctx, op)
        && !region_may_self_overlap(ctx, op);
    hit.then(|| ctx.operand(s, 1))
}

/// Views with no identity of their own (`select`, `diagonal`).
pub(super) fn view(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op)
}

/// `alias(x) == x`.
pub(super) fn alias(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op).or_else(|| view_operand(ctx, op))
}

/// Reshape-likes and `expand` to the operand's own type are the operand.
pub(super) fn same_shape(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op).or_else(|| same_type_operand(ctx, op))
}

/// `f(f(y)) == y` for a self-inverse view with equal attributes.
fn involution(ctx: &Context, op: Op) -> Option<Value> {
    let inner = ctx.defining_op(view_operand(ctx, op)?)?;
    let same = ctx.op_name(inner) == ctx.op_name(op)
        && core_attrs(ctx, inner) == core_attrs(ctx, op)
        && !ctx.has_attr(inner, NO_GRAD);
    same.then(|| ctx.operand(inner, 0))
}

/// `transpose(x, d, d) == x`, and an involution.
pub(super) fn transpose(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op)
        .or_else(|| {
            let x = same_type_operand(ctx, op)?;
            let av = AttrView::of_op(ctx, op);
            let r = ctx.value_tensor(x)?.rank() as i64;
            let norm = |d: i64| if d < 0 { d + r } else { d };
            (norm(av.i64("dim0")?) == norm(av.i64("dim1")?)).then_some(x)
        })
        .or_else(|| involution(ctx, op))
}

/// `t(x) == x` below rank 2, and an involution.
pub(super) fn t(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op)
        .or_else(|| {
            let x = same_type_operand(ctx, op)?;
            (ctx.value_tensor(x)?.rank() < 2).then_some(x)
        })
        .or_else(|| involution(ctx, op))
}

/// The identity permutation.
pub(super) fn permute(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op).or_else(|| {
        let x = same_type_operand(ctx, op)?;
        let dims = AttrView::of_op(ctx, op).list("dims")?;
        let r = dims.len() as i64;
        dims.iter().enumerate().all(|(i, &d)| (if d < 0 { d + r } else { d }) == i as i64).then_some(x)
    })
}

/// A unit-step slice of the whole dimension.
pub(super) fn slice(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op).or_else(|| {
        let x = same_type_operand(ctx, op)?;
        (AttrView::of_op(ctx, op).i64("step").unwrap_or(1) == 1).then_some(x)
    })
}

/// A contiguous `as_strided` of the whole value.
pub(super) fn as_strided(ctx: &Context, op: Op) -> Option<Value> {
    read_back(ctx, op).or_else(|| {
        let x = same_type_operand(ctx, op)?;
        whole_contiguous(ctx, op)?.then_some(x)
    })
}

/// A chain of reshape-like views (`view`, `reshape`, `squeeze`,
/// `unsqueeze`) is one reshape of the chain's source, or the source itself
/// when the shapes agree.
pub(super) fn collapse_reshapes(rw: &mut Rewriter<'_>, op: Op) -> Option<Value> {
    let inner = rw.defining_op(view_operand(rw, op)?)?;
    let reshape_like = view_interface(rw.op_name(inner)).is_some_and(|v| matches!(v.inverse, Inverse::Reshape));
    if !reshape_like || rw.has_attr(inner, NO_GRAD) {
        return None;
    }
    let src = rw.operand(inner, 0);
    let shape = rw.value_tensor(rw.result(op, 0))?.shape.to_vec();
    if rw.value_tensor(src)?.shape[..] == shape[..] {
        return Some(src);
    }
    rw.set_insertion_point(InsertPoint::Before(op));
    rw.set_loc(rw.op_loc(op));
    let s = rw.i64_list_attr(&shape);
    ReshapeOp::build1(rw, &[src], &[("shape", s)]).ok()
}

/// The scatter's base and source, when folds may look through it.
fn scatter_operands(ctx: &Context, op: Op) -> Option<(Value, Value)> {
    visible_scatter(ctx, op)?;
    (ctx.num_results(op) == 1 && ctx.num_operands(op) == 2).then(|| (ctx.operand(op, 0), ctx.operand(op, 1)))
}

/// `scatter(b, view(b, A), A) == b`.
pub(super) fn scatter(ctx: &Context, op: Op) -> Option<Value> {
    let (b, src) = scatter_operands(ctx, op)?;
    let v = ctx.defining_op(src)?;
    let view = view_of_scatter(ctx.op_name(op))?;
    (view.matches(ctx, v) && ctx.operand(v, 0) == b && core_attrs(ctx, v) == core_attrs(ctx, op)).then_some(b)
}

/// A region covering the whole base: the result is `src`.
fn whole_region(ctx: &Context, op: Op, covers: impl FnOnce() -> Option<bool>) -> Option<Value> {
    let (_, src) = scatter_operands(ctx, op)?;
    (ctx.value_type(src) == ctx.result_type(op, 0) && covers()?).then_some(src)
}

/// A unit-step slice scatter over the whole dimension is its source.
pub(super) fn slice_scatter(ctx: &Context, op: Op) -> Option<Value> {
    scatter(ctx, op).or_else(|| whole_region(ctx, op, || Some(AttrView::of_op(ctx, op).i64("step").unwrap_or(1) == 1)))
}

/// `as_strided_scatter(b, V(b), A) == b` when the view chain V from b lands
/// exactly on region A (writing back what is already there); a contiguous
/// region of the whole base is the source.
pub(super) fn as_strided_scatter(ctx: &Context, op: Op) -> Option<Value> {
    scatter(ctx, op)
        .or_else(|| {
            let (b, src) = scatter_operands(ctx, op)?;
            chain_lands_on(ctx, src, b, op).then_some(b)
        })
        .or_else(|| whole_region(ctx, op, || whole_contiguous(ctx, op)))
}

/// Does `v` come from `base` through single-result view ops whose composed
/// layout is the region of `scatter` (an `as_strided_scatter`)?
fn chain_lands_on(ctx: &Context, v: Value, base: Value, scatter: Op) -> bool {
    let mut steps: Vec<Op> = Vec::new();
    let mut cur = v;
    while cur != base {
        let Some(op) = ctx.defining_op(cur) else { return false };
        let Some(vi) = view_interface(ctx.op_name(op)) else { return false };
        if ctx.num_results(op) != 1 || matches!(vi.inverse, Inverse::ReadOnly) || steps.len() > 64 {
            return false;
        }
        // A gradient stop (detach, a no_grad view) on the way: writing the
        // value back changes what the gradient reaches, if not the data.
        let stops = ctx.op_def(op).is_some_and(|d| d.interface::<Detaches>().is_some()) || ctx.has_attr(op, NO_GRAD);
        if stops {
            return false;
        }
        steps.push(op);
        cur = ctx.operand(op, 0);
    }
    let Some(t) = ctx.value_tensor(base) else { return false };
    let mut l = Layout::contiguous(&t.shape);
    for &op in steps.iter().rev() {
        let Some(vi) = view_interface(ctx.op_name(op)) else { return false };
        match (vi.layout)(&AttrView::of_op(ctx, op), &l).ok().and_then(|ls| ls.into_iter().next()) {
            Some(next) => l = next,
            None => return false,
        }
    }
    let av = AttrView::of_op(ctx, scatter);
    let (Some(size), Some(stride)) = (av.list("size"), av.list("stride")) else { return false };
    l.sizes[..] == size[..] && l.strides[..] == stride[..] && l.offset == av.i64("offset").unwrap_or(0)
}

/// `scatter(scatter(b, s1, A), s2, A) == scatter(b, s2, A)`.
pub(super) fn merge_scatters(rw: &mut Rewriter<'_>, op: Op) -> Option<Value> {
    let (inner_base, s2) = scatter_operands(rw, op)?;
    let inner = rw.defining_op(inner_base)?;
    let same = rw.op_name(inner) == rw.op_name(op)
        && scatter_operands(rw, inner).is_some()
        && core_attrs(rw, inner) == core_attrs(rw, op);
    if !same {
        return None;
    }
    let b = rw.operand(inner, 0);
    let name = rw.op_name(op).to_string();
    let attrs = rw.attrs(op).to_vec();
    rw.set_insertion_point(InsertPoint::Before(op));
    rw.set_loc(rw.op_loc(op));
    rw.build_named1(&name, &[b, s2], &attrs).ok()
}
