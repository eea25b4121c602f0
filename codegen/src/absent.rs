//! A backward graph specialised for tangents no gradient reached.
//!
//! A compiled backward takes one tangent per differentiable output; the
//! runtime passes zeros for an output no gradient reached. PyTorch's
//! engine instead never runs a derivative that only absent gradients feed,
//! and the difference shows where the derivative multiplies by a value
//! that is not finite: `y = x / x` at `x = 0` has a derivative of `0 * nan
//! = nan` for a zero tangent, where eager sends nothing. A backward graph
//! is linear in its tangents, so a value computed from absent tangents
//! alone is exactly zero in eager's sense: [`drop_absent_tangents`] marks
//! those values (forward from the absent tangent arguments, through every
//! op whose tangent-derived operands are all marked), replaces each use of
//! one by a `tensor.full` zero, and removes the ops that computed them. A
//! zero that survives only meets other tangent-derived values (a sum with
//! a reached tangent's contribution), where it adds nothing.
//!
//! Invariants: the function keeps its signature (the runtime passes the
//! same arguments, the absent ones are no longer read); ops that write
//! memory are left alone; ops that may trap (an index check) stay, and only
//! their uses see zeros.

use aot_dialects::func::FuncView;
use aot_dialects::tensor::FullOp;
use aot_ir::effects::{is_effect_free, memory_effects, Effect};
use aot_ir::rewriter::{InsertPoint, Rewriter};
use aot_ir::{Context, Diagnostic, Op, OpKind, Value};
use rustc_hash::FxHashSet;

/// Specialises backward function `func` for the tangent arguments `absent`
/// (argument positions; the tangents are the arguments from `first_tangent`
/// on). Returns how many values were replaced by zeros.
pub fn drop_absent_tangents(
    ctx: &mut Context,
    func: Op,
    first_tangent: usize,
    absent: &[usize],
) -> Result<usize, Diagnostic> {
    let view = FuncView::new(ctx, func).ok_or_else(|| Diagnostic::op_error(ctx, func, "not a function"))?;
    let args = view.args(ctx).to_vec();
    let block = view.entry_block(ctx).ok_or_else(|| Diagnostic::op_error(ctx, func, "has no body"))?;
    if let Some(&bad) = absent.iter().find(|&&i| i < first_tangent || i >= args.len()) {
        return Err(Diagnostic::op_error(
            ctx,
            func,
            format!("argument {bad} is not a tangent (tangents are arguments {first_tangent}..{})", args.len()),
        ));
    }
    let mut tangent: FxHashSet<Value> = args[first_tangent..].iter().copied().collect();
    let mut zero: FxHashSet<Value> = absent.iter().map(|&i| args[i]).collect();
    let ret = view.return_op(ctx);
    let mut zero_ops: Vec<Op> = Vec::new();
    for op in ctx.block_ops(block).collect::<Vec<_>>() {
        if Some(op) == ret {
            continue;
        }
        let from_tangents: Vec<Value> = ctx.operands(op).filter(|v| tangent.contains(v)).collect();
        if from_tangents.is_empty() {
            continue;
        }
        let writes = memory_effects(ctx, op).is_some_and(|e| e.iter().any(|(k, _)| *k == Effect::Write))
            || (!is_effect_free(ctx, op) && memory_effects(ctx, op).is_none());
        let results = ctx.results(op).to_vec();
        tangent.extend(results.iter().copied());
        if !writes && from_tangents.iter().all(|v| zero.contains(v)) {
            zero.extend(results.iter().copied());
            zero_ops.push(op);
        }
    }
    let mut replaced = 0;
    let mut rw = Rewriter::new(ctx);
    let zero_attr = rw.f64_attr(0.0);
    for &i in absent {
        let a = args[i];
        if rw.ctx().uses(a).next().is_none() {
            continue;
        }
        rw.set_insertion_point(InsertPoint::Start(block));
        let ty = rw.ctx().value_type(a);
        let z = FullOp::build_typed1(&mut rw, &[], &[("value", zero_attr)], ty);
        rw.replace_all_uses(a, z);
        replaced += 1;
    }
    for op in zero_ops {
        rw.set_insertion_point(InsertPoint::Before(op));
        for r in rw.ctx().results(op).to_vec() {
            if rw.ctx().uses(r).next().is_none() {
                continue;
            }
            let ty = rw.ctx().value_type(r);
            let z = FullOp::build_typed1(&mut rw, &[], &[("value", zero_attr)], ty);
            rw.replace_all_uses(r, z);
            replaced += 1;
        }
        if is_effect_free(rw.ctx(), op) {
            rw.erase_op(op);
        }
    }
    Ok(replaced)
}
