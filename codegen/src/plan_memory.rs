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
//!
//! A function with symbolic sizes has no byte counts to place: each
//! temporary gets its lifetime instead (`live = [first, last]`), and the
//! host program places the same way ([`place`]) per set of symbol values,
//! when it evaluates its types for a call's sizes. Invariant: two
//! buffers alive at one host op never share a byte, whichever way they
//! were placed.

use aot_dialects::func::{FuncOp, FuncView, ReturnOp};
use aot_dialects::r#loop::analysis;
use aot_dialects::r#loop::analysis::root_of;
use aot_dialects::r#loop::{self, LoopOp};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use rustc_hash::{FxHashMap, FxHashSet};

const ALIGN: u64 = 64;

/// A buffer's first and last host op (positions in the function's entry
/// block).
pub type Lifetime = (usize, usize);

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

/// The bytes buffer `m` spans (its extent), saturating.
pub(crate) fn bytes(m: &MemRefType) -> u64 {
    (r#loop::extent(m).max(0) as u64).saturating_mul(m.elem.byte_size() as u64)
}

/// Places buffers of `(bytes, (first, last))` (their lifetimes in host
/// ops) in one arena: largest first (ties by first use, for a
/// deterministic layout), each at the lowest 64-byte-aligned offset that
/// overlaps no placed buffer alive at the same time. Returns each
/// buffer's offset, in the order given, and the arena's bytes; `None`
/// when the arena's size overflows.
pub fn place(buffers: &[(u64, (usize, usize))]) -> Option<(Vec<u64>, u64)> {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(buffers[k].0), buffers[k].1 .0, k));
    let mut placed: Vec<(u64, u64, (usize, usize))> = Vec::new();
    let mut offsets = vec![0u64; buffers.len()];
    let mut arena = 0u64;
    for k in order {
        let (n, (a, b)) = buffers[k];
        let mut busy: Vec<(u64, u64)> =
            placed.iter().filter(|&&(_, _, (c, d))| c <= b && a <= d).map(|&(off, len, _)| (off, off + len)).collect();
        busy.sort_unstable();
        let mut off = 0u64;
        for (s, e) in busy {
            if off.checked_add(n)? <= s {
                break;
            }
            off = off.max(e.div_ceil(ALIGN).checked_mul(ALIGN)?);
        }
        let end = off.checked_add(n)?;
        placed.push((off, n, (a, b)));
        offsets[k] = off;
        arena = arena.max(end);
    }
    Some((offsets, arena))
}

/// The temporaries of lowered function `func`: each `loop.alloc` whose
/// allocation does not leave the function, with its lifetime (the first
/// and last host op using it, through any view), in the order of the
/// allocs; and the allocs that leave it.
pub(crate) fn temporaries(ctx: &Context, func: Op) -> (Vec<(Op, Lifetime)>, Vec<Op>) {
    let f = FuncView { op: func };
    let Some(entry) = f.entry_block(ctx) else { return (Vec::new(), Vec::new()) };
    let ops: Vec<Op> = ctx.block_ops(entry).collect();
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
    for (p, &o) in ops.iter().enumerate() {
        for v in ctx.operands(o) {
            let r = root_of(ctx, v);
            if ctx.defining_op(r).is_some_and(|d| LoopOp::of(ctx, d) == Some(LoopOp::Alloc)) {
                let e = life.entry(r).or_insert((p, p));
                e.0 = e.0.min(p);
                e.1 = e.1.max(p);
            }
        }
    }
    let (mut temps, mut results) = (Vec::new(), Vec::new());
    for &o in &ops {
        if LoopOp::of(ctx, o) != Some(LoopOp::Alloc) {
            continue;
        }
        let r = ctx.result(o, 0);
        if escaping.contains(&r) {
            results.push(o);
        } else if let Some(&l) = life.get(&r) {
            temps.push((o, l));
        }
    }
    (temps, results)
}

/// Bytes of buffer `m` with each symbol at its size hint
/// ([`aot_ir::sym::SIZE_HINT`]), saturating.
fn bytes_at_hint(m: &MemRefType) -> u64 {
    let n = m
        .shape
        .iter()
        .fold(1u64, |n, &d| n.saturating_mul(aot_ir::sym::at_hint(d).map_or(u64::MAX, |d| d.max(0) as u64)));
    n.saturating_mul(m.elem.byte_size() as u64)
}

/// Plans the temporaries of lowered function `func`. With symbolic sizes
/// each temporary gets its lifetime (`live = [first, last]`, host-op
/// positions) instead of an offset: the host program places them per set
/// of symbol values (`HostProgram::evaluate`, with [`place`]), and the
/// plan's figures are those at the size hint.
pub fn plan_function(ctx: &mut Context, func: Op) -> Result<Plan, Diagnostic> {
    let symbolic = aot_ir::sym::first_symbolic_op(ctx, func).is_some();
    let (temps, results) = temporaries(ctx, func);
    let size = |o: Op| {
        analysis::memref(ctx, ctx.result(o, 0))
            .map(|m| if symbolic { bytes_at_hint(m) } else { bytes(m) })
            .ok_or_else(|| Diagnostic::op_error(ctx, o, "not a buffer"))
    };
    let mut plan = Plan::default();
    for &o in &results {
        plan.result_bytes = plan.result_bytes.saturating_add(size(o)?);
    }
    let buffers: Vec<(u64, (usize, usize))> =
        temps.iter().map(|&(o, l)| Ok((size(o)?, l))).collect::<Result<_, Diagnostic>>()?;
    plan.unplanned_bytes = buffers.iter().fold(0u64, |a, b| a.saturating_add(b.0));
    let (offsets, arena) =
        place(&buffers).ok_or_else(|| Diagnostic::op_error(ctx, func, "the arena of the temporaries overflows"))?;
    plan.arena_bytes = arena;
    plan.planned = offsets.len() as u64;
    let mut rw = Rewriter::new(ctx);
    for (&(o, (a, b)), off) in temps.iter().zip(offsets) {
        if symbolic {
            let live = rw.i64_list_attr(&[a as i64, b as i64]);
            rw.set_attr(o, "live", live);
        } else {
            let a = rw.i64_attr(off as i64);
            rw.set_attr(o, "offset", a);
        }
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
arena plus results. In a function with symbolic sizes each temporary gets its lifetime instead (a 'live' \
attribute: its first and last host op), and the host program places the temporaries the same way per set of \
symbol values, when a call brings new sizes; its statistics are then those at the size hint (every symbol 64).",
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
