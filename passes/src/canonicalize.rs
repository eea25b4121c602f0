//! `canonicalize`: the driver that applies the folds and canonicalization
//! patterns ops declare (see [`aot_ir::fold`]) to value-semantics functions.
//!
//! A greedy rewriter in MLIR's canonicalizer model: each round folds or
//! rewrites every op whose declaration offers a fold or pattern, then runs
//! CSE and removes dead pure ops, until a round changes nothing (at most 16
//! rounds). What the identities are lives with the ops: the view dialect's
//! (`scatter(b, view(b, A), A) == b`, reading back a region just written,
//! identity views, reshape chains, a second write covering the first, ...)
//! in `aot_dialects::view`, `cast` to the same type in `aot_dialects::tensor`.
//!
//! The driver adds the one rule no op can see: a value that a trailing
//! metadata mutation (`set_`, `as_strided_`, `resize_` of an argument)
//! consumes is dead after it, so the op producing it is kept for its later
//! uses. Under reference semantics nothing applies (views are objects there,
//! and identity matters).

use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use aot_runtime::interp::VALUE_SEMANTICS;

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
            if rw.is_erased(op) || rw.num_results(op) != 1 {
                continue;
            }
            let replacement = aot_ir::fold::fold(rw, op).or_else(|| aot_ir::fold::canonicalize(rw, op));
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
        if aot_ir::cse::eliminate_common_subexpressions(rw, func, &aot_ir::cse::Conservative) > 0 {
            changed = true;
        }
        // Dead pure ops (backwards, so whole chains go).
        let mut cur = rw.block_last_op(body);
        while let Some(op) = cur {
            cur = rw.prev_op(op);
            if !rw.has_trait(op, Traits::TERMINATOR)
                && rw.results(op).iter().all(|&r| !rw.has_uses(r))
                && aot_ir::effects::is_effect_free(rw, op)
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

struct Canonicalizer;

impl Pass for Canonicalizer {
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
        summary: "Apply the folds and canonicalization patterns ops declare, in value-semantics functions",
        description: "Applies each op's declared folds and patterns until none applies, with CSE and dead-code removal \
between rounds: a scatter of an unchanged view of its own base is the base, reading back a region just written is the \
written value, a second write to the same region supersedes the first, whole-base scatters are their source, identity \
views and inverse view pairs vanish, reshape chains become one reshape, same-type casts vanish. Scatters marked \
aot.hidden_write are kept. Functions without value semantics are left alone.",
        anchor: None,
        options: &[],
        statistics: &[StatisticSpec { name: "num-rewrites", description: "Patterns applied" }],
        create: |_: &PassOptions| Ok(Box::new(Canonicalizer)),
    }
}
