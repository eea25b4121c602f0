//! The `dist` dialect: PyTorch's functional collectives
//! (`_c10d_functional.all_reduce`, `all_gather_into_tensor`,
//! `reduce_scatter_tensor`, `all_to_all_single` with equal splits,
//! `broadcast`, `wait_tensor`) as pure ops on value-semantics tensors.
//!
//! Every op names its process group (`group`, PyTorch's group name) and the
//! group's size (`size`), a constant of the compile; the runtime runs it
//! through the communicator registered for that group
//! (`aot_runtime::dist`), which calls back into the process group the
//! caller set up. Collectives run when their op runs, so `dist.wait` (the
//! functional collectives' completion) is the identity.
//!
//! Invariants: every rank of a group runs the same program (SPMD), so the
//! passes, which are deterministic, make the same decisions on every rank:
//! an op removed as dead or merged with an equal one is removed or merged
//! everywhere, and the collectives that run are the same, in the same
//! order, on every rank. Derivatives are those of the sum of every rank's
//! objective, as eager's autograd gives them: an all-reduce's is the same
//! all-reduce (a sum's, an average's), an all-gather's a reduce-scatter of
//! sums and the other way round, an all-to-all's an all-to-all; a maximum,
//! a minimum, a product and a broadcast are not differentiated.

pub mod kernels;

use crate::autodiff::{Grads, Vjp, VjpCtx};
use crate::shape::*;
use aot_ir::*;
use aot_runtime::dist::Reduce;
use aot_runtime::Kernel;

aot_ir::op_handle!(pub AllReduceOp = "dist.all_reduce");
aot_ir::op_handle!(pub AllGatherOp = "dist.all_gather");
aot_ir::op_handle!(pub ReduceScatterOp = "dist.reduce_scatter");
aot_ir::op_handle!(pub AllToAllOp = "dist.all_to_all");
aot_ir::op_handle!(pub BroadcastOp = "dist.broadcast");
aot_ir::op_handle!(pub WaitOp = "dist.wait");

/// The group's name and size, checked.
pub fn group_of(a: &AttrView<'_>) -> Result<(String, i64), String> {
    let group = a.str("group").ok_or("missing 'group' (the process group's name)")?;
    let size = a.i64("size").ok_or("missing 'size' (the process group's size)")?;
    if size < 1 {
        return Err(format!("a process group has at least one rank, got size {size}"));
    }
    Ok((group.to_string(), size))
}

/// The `reduce` attribute.
pub fn reduce_of(a: &AttrView<'_>) -> Result<Reduce, String> {
    let r = a.str("reduce").ok_or("missing 'reduce'")?;
    Reduce::parse(r).ok_or_else(|| format!("'reduce' must be sum, avg, product, max or min, got \"{r}\""))
}

fn input(ic: &InferCtx<'_>) -> Result<TensorType, String> {
    let x = operand_tensor(ic, 0)?.clone();
    if x.elem == ElemType::I1 {
        return Err("collectives take numbers, not booleans".into());
    }
    Ok(x)
}

fn infer_same(ic: &InferCtx<'_>) -> InferResult {
    let x = input(ic)?;
    group_of(&AttrView::of_attrs(ic.ctx, ic.attrs))?;
    one(x.shape.clone(), x.elem)
}

fn infer_all_reduce(ic: &InferCtx<'_>) -> InferResult {
    reduce_of(&AttrView::of_attrs(ic.ctx, ic.attrs))?;
    infer_same(ic)
}

/// Dimension 0 of `x`, which a collective splits or stacks.
fn rows(x: &TensorType, what: &str) -> Result<i64, String> {
    x.shape
        .first()
        .copied()
        .ok_or_else(|| format!("{what} needs a tensor of rank 1 or more (it works along dimension 0)"))
}

fn infer_all_gather(ic: &InferCtx<'_>) -> InferResult {
    let x = input(ic)?;
    let (_, size) = group_of(&AttrView::of_attrs(ic.ctx, ic.attrs))?;
    let n = rows(&x, "an all-gather")?;
    let mut shape = x.shape.to_vec();
    shape[0] = n.checked_mul(size).ok_or("the gathered size overflows")?;
    one(shape, x.elem)
}

/// `x` split along dimension 0 into `size` equal parts.
fn part_shape(x: &TensorType, size: i64, what: &str) -> Result<Vec<i64>, String> {
    let n = rows(x, what)?;
    if n % size != 0 {
        return Err(format!("{what} splits dimension 0 ({n}) into {size} equal parts: it must divide"));
    }
    let mut shape = x.shape.to_vec();
    shape[0] = n / size;
    Ok(shape)
}

fn infer_reduce_scatter(ic: &InferCtx<'_>) -> InferResult {
    let x = input(ic)?;
    reduce_of(&AttrView::of_attrs(ic.ctx, ic.attrs))?;
    let (_, size) = group_of(&AttrView::of_attrs(ic.ctx, ic.attrs))?;
    one(part_shape(&x, size, "a reduce-scatter")?, x.elem)
}

fn infer_all_to_all(ic: &InferCtx<'_>) -> InferResult {
    let x = input(ic)?;
    let (_, size) = group_of(&AttrView::of_attrs(ic.ctx, ic.attrs))?;
    part_shape(&x, size, "an all-to-all")?;
    one(x.shape.clone(), x.elem)
}

fn infer_broadcast(ic: &InferCtx<'_>) -> InferResult {
    let (_, size) = group_of(&AttrView::of_attrs(ic.ctx, ic.attrs))?;
    let src = attr_i64(ic, "src")?;
    if !(0..size).contains(&src) {
        return Err(format!("'src' must be a rank of the group (0 to {}), got {src}", size - 1));
    }
    infer_same(ic)
}

fn infer_wait(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    one(x.shape.clone(), x.elem)
}

/// The group attributes of the op being differentiated, for the op that
/// computes its derivative.
fn group_attrs(c: &mut VjpCtx<'_, '_>, reduce: Option<&str>) -> Vec<(&'static str, Attribute)> {
    let mut out = Vec::new();
    for name in ["group", "size"] {
        if let Some(a) = c.attrs().get(name) {
            out.push((name, a));
        }
    }
    if let Some(r) = reduce {
        let a = c.rw.str_attr(r);
        out.push(("reduce", a));
    }
    out
}

fn not_differentiable(c: &VjpCtx<'_, '_>, what: &str) -> Diagnostic {
    Diagnostic::op_error(c.rw, c.op, format!("{what} is not differentiable (eager's autograd has no formula for it)"))
}

/// The reduction whose derivative is the same collective: a sum's, an
/// average's.
fn linear_reduce(c: &VjpCtx<'_, '_>, what: &str) -> Result<&'static str, Diagnostic> {
    match reduce_of(&c.attrs()) {
        Ok(Reduce::Sum) => Ok("sum"),
        Ok(Reduce::Avg) => Ok("avg"),
        Ok(r) => Err(not_differentiable(c, &format!("{what} with reduce \"{}\"", r.name()))),
        Err(m) => Err(Diagnostic::op_error(c.rw, c.op, m)),
    }
}

/// `y = all_reduce(x)` on every rank: `dx = all_reduce(g)` (Σ over the
/// ranks' objectives; divided by the size for an average).
fn vjp_all_reduce(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    if !c.need(0) {
        return Ok(c.grads([None]));
    }
    let r = linear_reduce(c, "an all-reduce")?;
    let g = c.g()?;
    let attrs = group_attrs(c, Some(r));
    let gx = c.op1(AllReduceOp::NAME, &[g], &attrs)?;
    Ok(c.grads([Some(gx)]))
}

/// `y = all_gather(x)`: `dx = reduce_scatter(g, sum)`.
fn vjp_all_gather(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    if !c.need(0) {
        return Ok(c.grads([None]));
    }
    let g = c.g()?;
    let attrs = group_attrs(c, Some("sum"));
    let gx = c.op1(ReduceScatterOp::NAME, &[g], &attrs)?;
    Ok(c.grads([Some(gx)]))
}

/// `y = reduce_scatter(x, sum)`: `dx = all_gather(g)` (an average's
/// divided by the size).
fn vjp_reduce_scatter(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    if !c.need(0) {
        return Ok(c.grads([None]));
    }
    let r = linear_reduce(c, "a reduce-scatter")?;
    let g = c.g()?;
    let attrs = group_attrs(c, None);
    let gx = c.op1(AllGatherOp::NAME, &[g], &attrs)?;
    let gx = if r == "avg" {
        let size = c.attrs().i64("size").unwrap_or(1);
        c.scale(gx, 1.0 / size as f64)?
    } else {
        gx
    };
    Ok(c.grads([Some(gx)]))
}

/// `y = all_to_all(x)`: part `s` of rank `r`'s result is part `r` of rank
/// `s`'s input, so `dx = all_to_all(g)`.
fn vjp_all_to_all(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    if !c.need(0) {
        return Ok(c.grads([None]));
    }
    let g = c.g()?;
    let attrs = group_attrs(c, None);
    let gx = c.op1(AllToAllOp::NAME, &[g], &attrs)?;
    Ok(c.grads([Some(gx)]))
}

fn vjp_broadcast(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    if !c.need(0) {
        return Ok(c.grads([None]));
    }
    Err(not_differentiable(c, "a broadcast"))
}

fn vjp_wait(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    if !c.need(0) {
        return Ok(c.grads([None]));
    }
    let g = c.g()?;
    Ok(c.grads([Some(g)]))
}

const GROUP: [AttrSpec; 2] = [AttrSpec::required("group", AttrKind::Str), AttrSpec::required("size", AttrKind::I64)];
const REDUCING: &[AttrSpec] = &[GROUP[0], GROUP[1], AttrSpec::required("reduce", AttrKind::Str)];
const PLAIN: &[AttrSpec] = &GROUP;
const BROADCAST: &[AttrSpec] = &[GROUP[0], GROUP[1], AttrSpec::required("src", AttrKind::I64)];
const PD: Traits = Traits::PURE.union(Traits::DIFFERENTIABLE);

macro_rules! collective {
    ($name:expr, $summary:literal, $attrs:expr, $infer:expr, $vjp:expr) => {
        inventory::submit! {
            OpDef {
                name: $name,
                summary: $summary,
                traits: PD,
                operands: Arity::Exact(1),
                results: Arity::Exact(1),
                attrs: $attrs,
                infer: Some($infer),
                syntax: Syntax::Functional,
                interfaces: &[&Kernel(kernels::collective), &Vjp($vjp), &crate::lowering::Lower(kernels::lower_collective)],
                ..OpDef::DEFAULT
            }
        }
    };
}

collective!(
    AllReduceOp::NAME,
    "Every rank's input reduced (sum, avg, product, max, min) on every rank (_c10d_functional.all_reduce)",
    REDUCING,
    infer_all_reduce,
    vjp_all_reduce
);
collective!(
    AllGatherOp::NAME,
    "Every rank's input stacked along dimension 0 in rank order (_c10d_functional.all_gather_into_tensor)",
    PLAIN,
    infer_all_gather,
    vjp_all_gather
);
collective!(
    ReduceScatterOp::NAME,
    "Every rank's input reduced, split along dimension 0; rank r keeps part r (_c10d_functional.reduce_scatter_tensor)",
    REDUCING,
    infer_reduce_scatter,
    vjp_reduce_scatter
);
collective!(
    AllToAllOp::NAME,
    "Each input split along dimension 0; rank r gets part r of every rank's, in rank order (_c10d_functional.all_to_all_single, equal splits)",
    PLAIN,
    infer_all_to_all,
    vjp_all_to_all
);
collective!(
    BroadcastOp::NAME,
    "Rank src's input on every rank (_c10d_functional.broadcast)",
    BROADCAST,
    infer_broadcast,
    vjp_broadcast
);

inventory::submit! {
    OpDef {
        name: WaitOp::NAME,
        summary: "A collective's result once complete (_c10d_functional.wait_tensor): the identity, collectives run when their op runs",
        traits: PD,
        operands: Arity::Exact(1),
        results: Arity::Exact(1),
        infer: Some(infer_wait),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(kernels::wait), &Vjp(vjp_wait), &crate::lowering::Lower(kernels::lower_wait)],
        ..OpDef::DEFAULT
    }
}
