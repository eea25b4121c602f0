//! `canonicalize`: local simplifications of value-semantics graphs.
//!
//! A greedy pattern rewriter (MLIR's canonicalizer model) over functions
//! with value semantics; each pattern states the identity it applies:
//!
//! - `scatter(b, view(b, A), A) == b` — writing back an unchanged region
//!   (for `as_strided_scatter`, `view` may be any chain of views from `b`
//!   whose composed layout is `A`);
//! - `view(scatter(b, s, A), A) == s` — reading back what was just written
//!   (not for an `as_strided` region that reaches an element twice);
//! - `scatter(scatter(b, s1, A), s2, A) == scatter(b, s2, A)` — the second
//!   write covers the first;
//! - a scatter whose region is the whole base `== src`;
//! - identity views (`alias`, reshapes to the same shape, full slices,
//!   `transpose(d, d)`, identity permutations, contiguous `as_strided` of
//!   the whole value) `== x`, and `transpose(transpose(x, a, b), a, b) == x`,
//!   `t(t(x)) == x`, a chain of reshape-like views == one reshape;
//! - `cast` to the same type `== x`.
//!
//! Scatters marked `aot.hidden_write` are never folded: autograd must still
//! see their base pass through. Under reference semantics no pattern applies
//! (views are objects there, and identity matters). Dead pure ops are removed
//! afterwards.

use crate::functionalize::HIDDEN_WRITE;
use crate::purity::{is_removable_pure, VALUE_SEMANTICS};
use aot_dialects::tensor::CastOp;
use aot_dialects::view::{view_interface, view_of_scatter, Inverse};
use aot_dialects::view::{
    AliasOp, AsStridedOp, AsStridedScatterOp, ReshapeOp, SliceOp, SliceScatterOp, SplitOp, TOp, TransposeOp, UnbindOp,
};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use aot_runtime::interp::NO_GRAD;

/// Inherent attributes only (dialect-prefixed ones do not change meaning).
fn core_attrs(ctx: &Context, op: Op) -> Vec<NamedAttr> {
    ctx.attrs(op).iter().copied().filter(|a| !ctx.sym_str(a.name).contains('.')).collect()
}

fn def_of(ctx: &Context, v: Value) -> Option<Op> {
    ctx.defining_op(v)
}

fn is_scatter(ctx: &Context, op: Op) -> Option<&'static str> {
    view_of_scatter(ctx.op_name(op))
}

fn hidden(ctx: &Context, op: Op) -> bool {
    ctx.has_attr(op, HIDDEN_WRITE)
}

fn is_contiguous_layout(size: &[i64], stride: &[i64], offset: i64) -> bool {
    offset == 0 && aot_dialects::view::contiguous_strides(size)[..] == *stride
}

/// Only `as_strided` regions can repeat an element; other views of a value
/// select distinct positions.
fn region_may_self_overlap(ctx: &Context, op: Op) -> bool {
    if !ctx.isa::<AsStridedOp>(op) {
        return false;
    }
    let av = AttrView::of_op(ctx, op);
    match (av.list("size"), av.list("stride")) {
        (Some(size), Some(stride)) => aot_runtime::overlap::may_reach_an_element_twice(&size, &stride),
        _ => true,
    }
}

/// Does `v` come from `base` through single-result view ops whose composed
/// layout is the region of `scatter` (an `as_strided_scatter`)?
fn chain_lands_on(ctx: &Context, v: Value, base: Value, scatter: Op) -> bool {
    let mut steps: Vec<Op> = Vec::new();
    let mut cur = v;
    while cur != base {
        let Some(op) = def_of(ctx, cur) else { return false };
        let Some(vi) = view_interface(ctx.op_name(op)) else { return false };
        if ctx.num_results(op) != 1 || matches!(vi.inverse, Inverse::ReadOnly) || steps.len() > 64 {
            return false;
        }
        // A gradient stop (detach, a no_grad view) on the way: writing the
        // value back changes what the gradient reaches, if not the data.
        let stops = ctx.op_def(op).is_some_and(|d| d.interface::<aot_runtime::interp::Detaches>().is_some())
            || ctx.has_attr(op, NO_GRAD);
        if stops {
            return false;
        }
        steps.push(op);
        cur = ctx.operand(op, 0);
    }
    let Some(t) = ctx.value_tensor(base) else { return false };
    let mut l = aot_dialects::view::Layout::contiguous(&t.shape);
    for &op in steps.iter().rev() {
        let vi = view_interface(ctx.op_name(op)).expect("checked");
        match (vi.layout)(&AttrView::of_op(ctx, op), &l).ok().and_then(|ls| ls.into_iter().next()) {
            Some(next) => l = next,
            None => return false,
        }
    }
    let av = AttrView::of_op(ctx, scatter);
    let (Some(size), Some(stride)) = (av.list("size"), av.list("stride")) else { return false };
    l.sizes[..] == size[..] && l.strides[..] == stride[..] && l.offset == av.i64("offset").unwrap_or(0)
}

/// The value `op`'s single result can be replaced by, if a pattern applies.
fn fold(ctx: &Context, op: Op) -> Option<Value> {
    let name = ctx.op_name(op);
    if ctx.num_results(op) != 1 || ctx.num_operands(op) == 0 {
        return None;
    }
    let res_ty = ctx.result_type(op, 0);
    let x = ctx.operand(op, 0);
    if let Some(view) = is_scatter(ctx, op) {
        if hidden(ctx, op) {
            return None;
        }
        let src = ctx.operand(op, 1);
        // scatter(b, view(b, A), A) == b
        if let Some(v) = def_of(ctx, src) {
            if ctx.op_name(v) == view && ctx.operand(v, 0) == x && core_attrs(ctx, v) == core_attrs(ctx, op) {
                return Some(x);
            }
        }
        // as_strided_scatter(b, V(b), A) == b when the view chain V from b
        // lands exactly on region A (writing back what is already there).
        if ctx.isa::<AsStridedScatterOp>(op) && chain_lands_on(ctx, src, x, op) {
            return Some(x);
        }
        // A region covering the whole base: the result is src.
        if ctx.value_type(src) == res_ty {
            let av = AttrView::of_op(ctx, op);
            let whole = if ctx.isa::<AsStridedScatterOp>(op) {
                let (size, stride) = (av.list("size")?, av.list("stride")?);
                is_contiguous_layout(&size, &stride, av.i64("offset").unwrap_or(0))
            } else {
                ctx.isa::<SliceScatterOp>(op) && av.i64("step").unwrap_or(1) == 1
            };
            if whole {
                return Some(src);
            }
        }
        return None;
    }
    let vi = view_interface(name)?;
    if ctx.has_attr(op, NO_GRAD) {
        return None;
    }
    // view(scatter(b, s, A), A) == s, unless A reaches an element twice:
    // then the read gives each element's last write, not s.
    if let Some(s) = def_of(ctx, x) {
        if is_scatter(ctx, s) == Some(name)
            && !hidden(ctx, s)
            && core_attrs(ctx, s) == core_attrs(ctx, op)
            && !region_may_self_overlap(ctx, op)
        {
            return Some(ctx.operand(s, 1));
        }
    }
    let same_type = ctx.value_type(x) == res_ty;
    match vi.inverse {
        Inverse::Identity if ctx.isa::<AliasOp>(op) => Some(x),
        Inverse::Reshape | Inverse::ReadOnly if same_type && !ctx.isa::<UnbindOp>(op) && !ctx.isa::<SplitOp>(op) => {
            Some(x)
        }
        Inverse::SelfInverse => {
            if same_type && ctx.isa::<TransposeOp>(op) {
                let av = AttrView::of_op(ctx, op);
                let r = ctx.value_tensor(x)?.rank() as i64;
                let norm = |d: i64| if d < 0 { d + r } else { d };
                if norm(av.i64("dim0")?) == norm(av.i64("dim1")?) {
                    return Some(x);
                }
            }
            if same_type && ctx.isa::<TOp>(op) && ctx.value_tensor(x)?.rank() < 2 {
                return Some(x);
            }
            // f(f(y)) == y for self-inverse views with equal attributes.
            let inner = def_of(ctx, x)?;
            if ctx.op_name(inner) == name
                && core_attrs(ctx, inner) == core_attrs(ctx, op)
                && !ctx.has_attr(inner, NO_GRAD)
            {
                return Some(ctx.operand(inner, 0));
            }
            None
        }
        Inverse::Permute if same_type => {
            let dims = AttrView::of_op(ctx, op).list("dims")?;
            let r = dims.len() as i64;
            dims.iter().enumerate().all(|(i, &d)| (if d < 0 { d + r } else { d }) == i as i64).then_some(x)
        }
        Inverse::Scatter(_) if same_type => {
            let av = AttrView::of_op(ctx, op);
            if ctx.isa::<SliceOp>(op) {
                (av.i64("step").unwrap_or(1) == 1).then_some(x)
            } else if ctx.isa::<AsStridedOp>(op) {
                let (size, stride) = (av.list("size")?, av.list("stride")?);
                is_contiguous_layout(&size, &stride, av.i64("offset").unwrap_or(0)).then_some(x)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Rewrites that create ops: chains of reshape-like views collapse into one
/// reshape of the chain's source, and `cast` to the same type disappears.
fn rewrite(rw: &mut Rewriter<'_>, op: Op) -> Option<Value> {
    let name = rw.op_name(op).to_string();
    // scatter(scatter(b, s1, A), s2, A) == scatter(b, s2, A)
    if is_scatter(rw, op).is_some() && !hidden(rw, op) {
        let inner = def_of(rw, rw.operand(op, 0))?;
        if rw.op_name(inner) != name || hidden(rw, inner) || core_attrs(rw, inner) != core_attrs(rw, op) {
            return None;
        }
        let (b, s2) = (rw.operand(inner, 0), rw.operand(op, 1));
        let attrs = rw.attrs(op).to_vec();
        rw.set_insertion_point(InsertPoint::Before(op));
        rw.set_loc(rw.op_loc(op));
        return rw.build_named1(&name, &[b, s2], &attrs).ok();
    }
    if rw.isa::<CastOp>(op) && rw.value_type(rw.operand(op, 0)) == rw.result_type(op, 0) {
        return Some(rw.operand(op, 0));
    }
    let vi = view_interface(&name)?;
    if !matches!(vi.inverse, Inverse::Reshape) || rw.isa::<UnbindOp>(op) || rw.has_attr(op, NO_GRAD) {
        return None;
    }
    let inner = def_of(rw, rw.operand(op, 0))?;
    let inner_name = rw.op_name(inner).to_string();
    if !matches!(view_interface(&inner_name).map(|v| v.inverse), Some(Inverse::Reshape)) || rw.has_attr(inner, NO_GRAD)
    {
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

/// Simplifies a value-semantics function until no pattern applies; returns
/// the number of rewrites.
pub fn simplify_function(rw: &mut Rewriter<'_>, func: Op) -> u64 {
    if !rw.has_attr(func, VALUE_SEMANTICS) {
        return 0;
    }
    let Some(body) = rw.single_block(func, 0) else { return 0 };
    let mut count = 0;
    for _round in 0..16 {
        let mut changed = false;
        let ops: Vec<Op> = rw.block_ops(body).collect();
        for op in ops {
            if rw.is_erased(op) {
                continue;
            }
            let replacement = fold(rw, op).or_else(|| rewrite(rw, op));
            if let Some(v) = replacement {
                let r = rw.result(op, 0);
                // A value a trailing metadata mutation (set_, as_strided_,
                // resize_ of an argument) consumes is dead after it: a
                // later use must keep reading through its own op.
                let killed = rw.uses(v).any(|u| u.index == 0 && rw.has_trait(u.op, Traits::METADATA_MUTATION));
                if v != r && !killed {
                    rw.replace_all_uses(r, v);
                    rw.erase_op(op);
                    count += 1;
                    changed = true;
                }
            }
        }
        if crate::cse::eliminate_common_subexpressions(rw, func) > 0 {
            changed = true;
        }
        // Dead pure ops (backwards, so whole chains go).
        let mut cur = rw.block_last_op(body);
        while let Some(op) = cur {
            cur = rw.prev_op(op);
            if !rw.has_trait(op, Traits::TERMINATOR)
                && rw.results(op).iter().all(|&r| !rw.has_uses(r))
                && is_removable_pure(rw, op)
            {
                rw.erase_op(op);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    count
}

struct Canonicalize;

impl Pass for Canonicalize {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let mut rw = Rewriter::new(ctx);
        let funcs: Vec<Op> = if rw.isa::<aot_dialects::func::FuncOp>(op) {
            vec![op]
        } else {
            rw.nested_ops(op).into_iter().filter(|&o| rw.isa::<aot_dialects::func::FuncOp>(o)).collect()
        };
        for f in funcs {
            let n = simplify_function(&mut rw, f);
            st.add_stat("num-rewrites", n);
        }
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "canonicalize",
        name: "Canonicalizer",
        summary: "Fold identity views and redundant scatters in value-semantics functions",
        description: "Applies local identities until none applies: a scatter of an unchanged view of its own base is the \
base, reading back a region just written is the written value, a second write to the same region supersedes the first, \
whole-base scatters are their source, identity views and inverse view pairs vanish, reshape chains become one reshape, \
same-type casts vanish. Scatters marked aot.hidden_write are kept. Functions without value semantics are left alone.",
        anchor: None,
        options: &[],
        statistics: &[StatisticSpec { name: "num-rewrites", description: "Patterns applied" }],
        create: |_: &PassOptions| Ok(Box::new(Canonicalize)),
    }
}
