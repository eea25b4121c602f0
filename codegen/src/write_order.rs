//! Reads that a later write into an argument would clobber, materialized
//! before the write.
//!
//! After `functionalize`, a function has value semantics except for its
//! trailing writes into arguments (`mut.copy_` and the other in-place ops
//! kept for mutated inputs). Native code does not copy views: a view of an
//! argument is index arithmetic over the argument's memory, read when its
//! consumer runs. So when the epilogue first writes argument `A` and then
//! copies a view of `A` into argument `B` (`copy_(b, a)` followed by a
//! write to `a` through a detached alias, say), the second copy would read
//! the new contents of `A` instead of the value the view had when it was
//! defined. The interpreter has the same hazard only for the arguments
//! themselves (its other SSA values are snapshots, but an argument is the
//! caller's tensor, which the epilogue writes), so it runs this pass too.
//!
//! [`protect_reads`] restores value semantics: for each in-place write, the
//! values defined before it that alias the written argument (through view
//! and metadata ops) and are read later (by an in-place op or the `return`)
//! are cloned just before the write, and those later reads take the clone.
//! Pure ops never follow the epilogue. The clone is a fresh contiguous copy,
//! so native code reads it from its own buffer. Registered as the pass
//! `protect-reads`, the first of the codegen pipeline.

use aot_dialects::func::{FuncOp, FuncView};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use rustc_hash::{FxHashMap, FxHashSet};

/// Materializes, before each in-place write into an argument, the reads of
/// that argument that a later in-place op would otherwise make after it;
/// returns how many snapshots it made.
pub fn protect_reads(ctx: &mut Context, func: Op) -> Result<u64, Diagnostic> {
    let Some(entry) = FuncView::new(ctx, func).and_then(|f| f.entry_block(ctx)) else { return Ok(0) };
    let mut snapshots = 0u64;
    let ops: Vec<Op> = ctx.block_ops(entry).collect();
    // Which arguments each value may share memory with.
    let mut aliases: FxHashMap<Value, FxHashSet<usize>> = FxHashMap::default();
    for (i, &a) in ctx.block_args(entry).iter().enumerate() {
        aliases.insert(a, std::iter::once(i).collect());
    }
    // Only in-place ops and the terminator read after a write: scanning
    // just them keeps the pass linear in the ops times the (few) writes.
    let readers: Vec<(usize, Op)> = ops
        .iter()
        .enumerate()
        .filter(|(_, &o)| ctx.has_trait(o, Traits::INPLACE) || ctx.has_trait(o, Traits::TERMINATOR))
        .map(|(i, &o)| (i, o))
        .collect();
    let mut rw = Rewriter::new(ctx);
    for (at, &op) in ops.iter().enumerate() {
        if rw.has_trait(op, Traits::VIEW) || rw.has_trait(op, Traits::METADATA_MUTATION) {
            let mut set = FxHashSet::default();
            for v in rw.operands(op) {
                if let Some(s) = aliases.get(&v) {
                    set.extend(s.iter().copied());
                }
            }
            for &r in rw.results(op) {
                aliases.insert(r, set.clone());
            }
            continue;
        }
        if !rw.has_trait(op, Traits::INPLACE) || rw.num_operands(op) == 0 {
            continue;
        }
        let written = match aliases.get(&rw.operand(op, 0)) {
            Some(s) if !s.is_empty() => s.clone(),
            _ => continue,
        };
        // Values read by later in-place ops (not as their destination)
        // that share memory with what this op writes.
        let mut clobbered: Vec<Value> = Vec::new();
        for &(_, later) in readers.iter().filter(|(i, _)| *i > at) {
            for (k, v) in rw.operands(later).enumerate() {
                if !reads_after_write(&rw, later, k, v) {
                    continue;
                }
                let hit = aliases.get(&v).is_some_and(|s| !s.is_disjoint(&written));
                if hit && !clobbered.contains(&v) {
                    clobbered.push(v);
                }
            }
        }
        for v in clobbered {
            rw.set_insertion_point(InsertPoint::Before(op));
            rw.set_loc(rw.op_loc(op));
            let ty = rw.value_type(v);
            let snap = rw.build_typed1(aot_dialects::tensor::CLONE, &[v], &[], ty);
            let later: FxHashSet<Op> = readers.iter().filter(|(i, _)| *i > at).map(|&(_, o)| o).collect();
            rw.replace_uses_if(v, snap, |ctx, u| {
                later.contains(&u.op) && reads_after_write(ctx, u.op, u.index as usize, v)
            });
            aliases.insert(snap, FxHashSet::default());
            snapshots += 1;
        }
    }
    Ok(snapshots)
}

struct ProtectReads;

impl Pass for ProtectReads {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let f = FuncView { op };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        let n = protect_reads(ctx, op)?;
        st.add_stat("num-snapshots", n);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "protect-reads",
        name: "ProtectReads",
        summary: "Snapshot the reads of an argument that its in-place epilogue would clobber",
        description: "On a value-semantics function: for each trailing in-place write into an argument, values \
defined before it that share memory with the written argument (through views and metadata ops) and are read \
after it (by a later in-place op or the return) are cloned just before the write, and those reads take the \
clone. Native code and the interpreter read views of arguments when their consumer runs, so without the \
snapshot a read would see the new contents.",
        anchor: Some(FuncOp::NAME),
        options: &[],
        statistics: &[StatisticSpec { name: "num-snapshots", description: "Values cloned before a write" }],
        create: |_: &PassOptions| Ok(Box::new(ProtectReads)),
    }
}

/// Whether operand `k` of `op`, placed after the epilogue's first write, is
/// a read of memory: a source of an in-place op, or a returned value the
/// runtime copies out (a mutated input's new value, an output). A returned
/// argument counts too: it may be another argument's new value (`copy_(b,
/// a)` returns `a` for `b`), read after the epilogue wrote `a`. (Where it is
/// an output that *is* the input, the runtime hands back the argument object
/// and the snapshot goes unused.)
fn reads_after_write(ctx: &Context, op: Op, k: usize, _v: Value) -> bool {
    if ctx.has_trait(op, Traits::INPLACE) {
        return k > 0;
    }
    ctx.has_trait(op, Traits::TERMINATOR)
}
