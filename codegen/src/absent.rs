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
//! their uses see zeros. [`saved_value_needs`] reads the same rule the
//! other way: per saved value, which present tangents keep an op that
//! reads it.

use aot_dialects::func::FuncView;
use aot_dialects::tensor::FullOp;
use aot_ir::effects::{is_effect_free, memory_effects, Effect};
use aot_ir::rewriter::{InsertPoint, Rewriter};
use aot_ir::{Context, Diagnostic, Op, OpKind, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

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
        let writes = writes_memory(ctx, op);
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

/// An op that writes memory, or whose effects are not known (left alone by
/// the specialisation, so it reads its operands whatever is absent).
fn writes_memory(ctx: &Context, op: Op) -> bool {
    memory_effects(ctx, op).is_some_and(|e| e.iter().any(|(k, _)| *k == Effect::Write))
        || (!is_effect_free(ctx, op) && memory_effects(ctx, op).is_none())
}

/// What a saved value's read depends on, given the tangents present.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SavedNeed {
    /// Read whatever is absent: a result of the function, or an operand
    /// (through values computed from saved values alone) of an op that
    /// writes memory, which [`drop_absent_tangents`] leaves alone.
    Always,
    /// Read only where one of these tangents (positions among the tangent
    /// arguments) is present: every op that reads it computes a value
    /// [`drop_absent_tangents`] turns into a zero when all of them are
    /// absent.
    Tangents(Vec<usize>),
}

/// Per argument of backward function `func` before `first_tangent` (a
/// saved value), which present tangents keep an op that reads it: a value
/// computed from absent tangents alone is a zero that reads nothing (see
/// [`drop_absent_tangents`]), so a saved value the backward reads only for
/// such values is not read at all. The runtime's caller uses it to tell
/// whether writing the memory a saved value shares with an argument, after
/// the forward, changes a backward given some tangents.
pub fn saved_value_needs(ctx: &Context, func: Op, first_tangent: usize) -> Result<Vec<SavedNeed>, Diagnostic> {
    let view = FuncView::new(ctx, func).ok_or_else(|| Diagnostic::op_error(ctx, func, "not a function"))?;
    let args = view.args(ctx).to_vec();
    let block = view.entry_block(ctx).ok_or_else(|| Diagnostic::op_error(ctx, func, "has no body"))?;
    if first_tangent > args.len() {
        return Err(Diagnostic::op_error(
            ctx,
            func,
            format!("has {} arguments, not {first_tangent} saved", args.len()),
        ));
    }
    let ret = view.return_op(ctx);
    // An op reads its operands and what its regions use from outside.
    let reads = |op: Op| -> Vec<Value> {
        let mut vs: Vec<Value> = Vec::new();
        ctx.walk_pre(op, &mut |inner| vs.extend(ctx.operands(inner)));
        vs
    };
    let ops: Vec<Op> = ctx.block_ops(block).collect();
    // The tangents each tangent-derived value is computed from.
    let mut from: FxHashMap<Value, BTreeSet<usize>> =
        args[first_tangent..].iter().enumerate().map(|(j, &a)| (a, BTreeSet::from([j]))).collect();
    let mut op_from: FxHashMap<Op, BTreeSet<usize>> = FxHashMap::default();
    for &op in &ops {
        if Some(op) == ret {
            continue;
        }
        let t: BTreeSet<usize> = reads(op).iter().filter_map(|v| from.get(v)).flatten().copied().collect();
        if t.is_empty() {
            continue;
        }
        for &r in ctx.results(op) {
            from.insert(r, t.clone());
        }
        op_from.insert(op, t);
    }
    // Backwards: what keeps a read of each value computed from saved
    // values alone (None: always read).
    let mut need: FxHashMap<Value, Option<BTreeSet<usize>>> = FxHashMap::default();
    let merge = |into: &mut Option<BTreeSet<usize>>, add: Option<BTreeSet<usize>>| match (into.as_mut(), add) {
        (Some(s), Some(a)) => s.extend(a),
        _ => *into = None,
    };
    for &op in ops.iter().rev() {
        let writes = writes_memory(ctx, op);
        let keep: Option<BTreeSet<usize>> = if Some(op) == ret || writes {
            None
        } else if let Some(t) = op_from.get(&op) {
            Some(t.clone())
        } else {
            let mut k = Some(BTreeSet::new());
            for r in ctx.results(op) {
                if let Some(n) = need.get(r) {
                    merge(&mut k, n.clone());
                }
            }
            k
        };
        for v in reads(op) {
            if from.contains_key(&v) {
                continue;
            }
            let e = need.entry(v).or_insert_with(|| Some(BTreeSet::new()));
            merge(e, keep.clone());
        }
    }
    Ok(args[..first_tangent]
        .iter()
        .map(|a| match need.get(a) {
            None => SavedNeed::Tangents(Vec::new()),
            Some(None) => SavedNeed::Always,
            Some(Some(s)) => SavedNeed::Tangents(s.iter().copied().collect()),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(text: &str, first_tangent: usize) -> Vec<SavedNeed> {
        let mut ctx = Context::new();
        let opts = aot_ir::parser::ParseOptions { file: "needs.mlir".into(), first_line: 1 };
        let module = aot_ir::parse_module(&mut ctx, text, &opts).unwrap();
        let f = aot_dialects::func::funcs(&ctx, module)[0].op;
        saved_value_needs(&ctx, f, first_tangent).unwrap()
    }

    /// `%s0` meets tangent 0; `%s1` tangent 1 through a value of saved
    /// values alone (`cos`); `%s3` a value both reach; `%s2` is returned,
    /// read whatever; `%s4` is read by nothing.
    #[test]
    fn a_saved_value_is_read_for_the_tangents_its_uses_meet() {
        let text = "func.func @bwd(%s0: tensor<3xf32>, %s1: tensor<3xf32>, %s2: tensor<3xf32>, %s3: tensor<3xf32>,
    %s4: tensor<3xf32>, %t0: tensor<3xf32>, %t1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = tensor.mul %s0, %t0 : tensor<3xf32>
  %c = tensor.cos %s1 : tensor<3xf32>
  %b = tensor.mul %c, %t1 : tensor<3xf32>
  %d = tensor.add %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %e = tensor.mul %s3, %d : tensor<3xf32>
  return %e, %s2 : tensor<3xf32>, tensor<3xf32>
}
";
        use SavedNeed::*;
        assert_eq!(
            needs(text, 5),
            vec![Tangents(vec![0]), Tangents(vec![1]), Always, Tangents(vec![0, 1]), Tangents(vec![])]
        );
    }

    #[test]
    fn more_saved_values_than_arguments_is_an_error() {
        let mut ctx = Context::new();
        let opts = aot_ir::parser::ParseOptions { file: "needs.mlir".into(), first_line: 1 };
        let text = "func.func @bwd(%s0: tensor<3xf32>) -> tensor<3xf32> {\n  return %s0 : tensor<3xf32>\n}\n";
        let module = aot_ir::parse_module(&mut ctx, text, &opts).unwrap();
        let f = aot_dialects::func::funcs(&ctx, module)[0].op;
        assert!(saved_value_needs(&ctx, f, 2).is_err());
        assert_eq!(saved_value_needs(&ctx, f, 1).unwrap(), vec![SavedNeed::Always]);
    }
}
