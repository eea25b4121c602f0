//! `plan-memory`: lays out a lowered function's temporary buffers in one
//! arena, reusing bytes between buffers whose lifetimes do not overlap.
//!
//! A temporary is a `loop.alloc` whose allocation does not leave the
//! function (no returned view of it, no `loop.rebind` onto it). Its
//! lifetime runs from the first host op that uses it (through any view) to
//! the last. Buffers are placed largest first at the lowest 64-byte-aligned
//! offset that overlaps no placed buffer alive at the same time (greedy by
//! size, as TFLite and XLA do); the offset is recorded on the alloc
//! (`offset`), which the runtime turns into a slice of an arena allocated
//! once per compiled function. Results keep their own storage.

use aot_dialects::func::{FuncOp, FuncView, ReturnOp};
use aot_dialects::r#loop::analysis;
use aot_dialects::r#loop::analysis::root_of;
use aot_dialects::r#loop::{self, LoopOp};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use rustc_hash::{FxHashMap, FxHashSet};

const ALIGN: u64 = 64;

/// What the plan came to, in bytes.
#[derive(Default, Debug, Clone, Copy)]
pub struct Plan {
    pub planned: u64,
    pub arena_bytes: u64,
    /// Bytes of every temporary if each had its own allocation.
    pub unplanned_bytes: u64,
    /// Buffers that leave the function.
    pub result_bytes: u64,
}

fn bytes(m: &MemRefType) -> u64 {
    r#loop::extent(m).max(0) as u64 * m.elem.byte_size() as u64
}

/// Plans the temporaries of lowered function `func`.
pub fn plan_function(ctx: &mut Context, func: Op) -> Result<Plan, Diagnostic> {
    let f = FuncView { op: func };
    let Some(entry) = f.entry_block(ctx) else { return Ok(Plan::default()) };
    let ops: Vec<Op> = ctx.block_ops(entry).collect();
    let pos: FxHashMap<Op, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    // Allocations that leave the function.
    let mut escaping: FxHashSet<Value> = FxHashSet::default();
    for &o in &ops {
        match LoopOp::of(ctx, o) {
            None if ctx.isa::<ReturnOp>(o) => escaping.extend(ctx.operands(o).map(|v| root_of(ctx, v))),
            Some(LoopOp::Rebind) => {
                escaping.insert(root_of(ctx, ctx.operand(o, 1)));
            }
            _ => {}
        }
    }
    // Lifetimes: first and last host op using each allocation.
    let mut life: FxHashMap<Value, (usize, usize)> = FxHashMap::default();
    for &o in &ops {
        for v in ctx.operands(o) {
            let r = root_of(ctx, v);
            if ctx.defining_op(r).is_some_and(|d| LoopOp::of(ctx, d) == Some(LoopOp::Alloc)) {
                let p = pos[&o];
                let e = life.entry(r).or_insert((p, p));
                e.0 = e.0.min(p);
                e.1 = e.1.max(p);
            }
        }
    }
    let mut plan = Plan::default();
    let mut temps: Vec<(Op, Value, u64, (usize, usize))> = Vec::new();
    for &o in &ops {
        if LoopOp::of(ctx, o) != Some(LoopOp::Alloc) {
            continue;
        }
        let r = ctx.result(o, 0);
        let m = analysis::memref(ctx, r).ok_or_else(|| Diagnostic::op_error(ctx, o, "not a buffer"))?;
        let n = bytes(m);
        if escaping.contains(&r) {
            plan.result_bytes += n;
            continue;
        }
        let Some(&l) = life.get(&r) else { continue };
        plan.unplanned_bytes += n;
        temps.push((o, r, n, l));
    }
    // Largest first; ties by first use, for a deterministic layout.
    temps.sort_by_key(|&(_, _, n, (a, _))| (std::cmp::Reverse(n), a));
    let mut placed: Vec<(u64, u64, (usize, usize))> = Vec::new();
    let mut offsets: Vec<(Op, u64)> = Vec::new();
    for &(o, _, n, (a, b)) in &temps {
        let mut busy: Vec<(u64, u64)> =
            placed.iter().filter(|&&(_, _, (c, d))| c <= b && a <= d).map(|&(off, len, _)| (off, off + len)).collect();
        busy.sort_unstable();
        let mut off = 0u64;
        for (s, e) in busy {
            if off + n <= s {
                break;
            }
            off = off.max(e.div_ceil(ALIGN) * ALIGN);
        }
        placed.push((off, n, (a, b)));
        offsets.push((o, off));
        plan.arena_bytes = plan.arena_bytes.max(off + n);
    }
    plan.planned = offsets.len() as u64;
    let mut rw = Rewriter::new(ctx);
    for (o, off) in offsets {
        let a = rw.i64_attr(off as i64);
        rw.set_attr(o, "offset", a);
    }
    Ok(plan)
}

struct PlanMemory;

impl Pass for PlanMemory {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let f = FuncView { op };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        // A function with symbolic sizes keeps every buffer its own
        // allocation (made per call at the call's sizes): placement in one
        // arena needs byte counts.
        if aot_ir::sym::first_symbolic_op(ctx, op).is_some() {
            return Ok(());
        }
        let p = plan_function(ctx, op)?;
        st.add_stat("num-planned", p.planned);
        st.add_stat("arena-bytes", p.arena_bytes);
        st.add_stat("unplanned-bytes", p.unplanned_bytes);
        st.add_stat("result-bytes", p.result_bytes);
        st.add_stat("peak-bytes", p.arena_bytes + p.result_bytes);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "plan-memory",
        name: "PlanMemory",
        summary: "Place temporary buffers in one arena, reusing bytes by liveness",
        description: "On a lowered function: every loop.alloc that does not leave the function gets an arena \
offset (its 'offset' attribute); buffers alive at the same time never share bytes, the others may. Largest \
buffers are placed first at the lowest free 64-byte-aligned offset. The runtime allocates the arena once per \
compiled function. Statistics report the arena size against the sum of the temporaries, and the peak of \
arena plus results.",
        anchor: Some(FuncOp::NAME),
        options: &[],
        statistics: &[
            StatisticSpec { name: "num-planned", description: "Temporaries placed in the arena" },
            StatisticSpec { name: "arena-bytes", description: "Bytes of the arena" },
            StatisticSpec { name: "unplanned-bytes", description: "Bytes of the temporaries without reuse" },
            StatisticSpec { name: "result-bytes", description: "Bytes of buffers returned to the caller" },
            StatisticSpec { name: "peak-bytes", description: "Arena plus results: the buffers a call holds at once, at most" },
        ],
        create: |_: &PassOptions| Ok(Box::new(PlanMemory)),
    }
}
