//! The memory model of a partition: peak bytes alive while the forward and
//! then the backward run in a given op order, and the cost of what the
//! backward recomputes.
//!
//! Liveness, not sums: primals are alive throughout (the caller holds its
//! arguments — parameters, data — for the whole step); a forward value lives from its op to its last forward use,
//! or to the end of the call when it is returned or saved; a saved value
//! lives on into the backward until its last backward use; the forward's
//! outputs stay alive to the end (the caller holds them); tangents live to
//! their last use, gradients to the end. The peak is the largest total at
//! any op boundary. This is what `memory-budget` selects against, so that a
//! larger budget never gives a larger modelled peak (upstream sums saved
//! bytes, and its budget is not monotonic in measured peak memory).

use super::graph::{bytes, JointGraph};
use aot_dialects::autodiff::{op_class, OpClass};
use aot_ir::*;
use rustc_hash::{FxHashMap, FxHashSet};

/// A partition's measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub saved: usize,
    pub saved_bytes: u64,
    pub peak_bytes: u64,
    /// Estimated work the backward repeats (element-ops; matmuls 2·m·n·k).
    pub recompute_cost: u64,
}

/// Work of one op, for the recompute cost.
pub fn op_cost(ctx: &Context, op: Op) -> u64 {
    let out: u64 = ctx.results(op).iter().map(|&r| ctx.value_tensor(r).map_or(0, |t| t.numel().max(0) as u64)).sum();
    match op_class(ctx, op) {
        OpClass::View => 0,
        OpClass::Matmul => {
            let k = ctx.operands(op).next().and_then(|a| ctx.value_tensor(a)).and_then(|t| t.shape.last().copied());
            2 * out * k.unwrap_or(1).max(1) as u64
        }
        OpClass::Reduction => {
            ctx.operands(op).next().and_then(|a| ctx.value_tensor(a)).map_or(out, |t| t.numel() as u64)
        }
        _ => out.max(1),
    }
}

/// Peak bytes of running `fw_order` then `bw_order` (op indices of `g`).
pub fn footprint(ctx: &Context, g: &JointGraph, saved: &[Value], fw_order: &[usize], bw_order: &[usize]) -> Footprint {
    let mut live: u64 = g.primals.iter().map(|&p| bytes(ctx, p)).sum();
    let mut peak = live;
    // Last use of each value within a phase.
    let last_use = |order: &[usize]| -> FxHashMap<Value, usize> {
        let mut m = FxHashMap::default();
        for (t, &i) in order.iter().enumerate() {
            for v in ctx.operands(g.ops[i]) {
                m.insert(v, t);
            }
        }
        m
    };
    let pinned_fw: FxHashSet<Value> = g.fw_outputs.iter().copied().chain(saved.iter().copied()).collect();
    let fw_last = last_use(fw_order);
    let mut dying: FxHashMap<usize, Vec<Value>> = FxHashMap::default();
    for (t, &i) in fw_order.iter().enumerate() {
        for &r in ctx.results(g.ops[i]) {
            live += bytes(ctx, r);
            match fw_last.get(&r) {
                _ if pinned_fw.contains(&r) => {}
                Some(&end) => dying.entry(end).or_default().push(r),
                None => dying.entry(t).or_default().push(r),
            }
        }
        peak = peak.max(live);
        for v in dying.remove(&t).unwrap_or_default() {
            live -= bytes(ctx, v);
        }
    }
    // Backward: tangents arrive; saved values die at their last use.
    live += g.tangents.iter().map(|&t| bytes(ctx, t)).sum::<u64>();
    peak = peak.max(live);
    let bw_last = last_use(bw_order);
    let pinned_bw: FxHashSet<Value> = g.grads.iter().copied().chain(g.fw_outputs.iter().copied()).collect();
    let mut dying: FxHashMap<usize, Vec<Value>> = FxHashMap::default();
    for v in saved.iter().chain(&g.tangents) {
        // The caller holds primals; outputs and gradients stay to the end.
        if pinned_bw.contains(v) || g.primals.contains(v) {
            continue;
        }
        match bw_last.get(v) {
            Some(&end) => dying.entry(end).or_default().push(*v),
            None => live -= bytes(ctx, *v),
        }
    }
    let mut recompute = 0;
    for (t, &i) in bw_order.iter().enumerate() {
        let op = g.ops[i];
        if g.fw_required[i] {
            recompute += op_cost(ctx, op);
        }
        for &r in ctx.results(op) {
            live += bytes(ctx, r);
            if !pinned_bw.contains(&r) {
                dying.entry(*bw_last.get(&r).unwrap_or(&t)).or_default().push(r);
            }
        }
        peak = peak.max(live);
        for v in dying.remove(&t).unwrap_or_default() {
            live = live.saturating_sub(bytes(ctx, v));
        }
    }
    Footprint {
        saved: saved.len(),
        saved_bytes: saved.iter().map(|&v| bytes(ctx, v)).sum(),
        peak_bytes: peak,
        recompute_cost: recompute,
    }
}
