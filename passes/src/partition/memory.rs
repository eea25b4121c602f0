//! The memory model of a partition: peak bytes alive while the forward and
//! then the backward run in a given op order, and the cost of what the
//! backward recomputes.
//!
//! Liveness, not sums, per storage (a view shares its base's bytes):
//! primals are alive throughout (the caller holds its
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
    let out: u64 =
        ctx.results(op).iter().map(|&r| ctx.value_tensor(r).map_or(0, |t| t.numel_at_hint().max(0) as u64)).sum();
    match op_class(ctx, op) {
        OpClass::View => 0,
        OpClass::Matmul => {
            let k = ctx.operands(op).next().and_then(|a| ctx.value_tensor(a)).and_then(|t| t.shape.last().copied());
            let k = aot_ir::sym::at_hint(k.unwrap_or(1)).unwrap_or(1);
            2 * out * k.max(1) as u64
        }
        OpClass::Reduction => {
            ctx.operands(op).next().and_then(|a| ctx.value_tensor(a)).map_or(out, |t| t.numel_at_hint().max(0) as u64)
        }
        // Philox: ten rounds of multiplies per four words.
        OpClass::Random => 4 * out.max(1),
        _ => out.max(1),
    }
}

/// Peak bytes of running `fw_order` then `bw_order` (op indices of `g`).
///
/// Memory is counted per storage: a view costs nothing of its own and keeps
/// the storage it shares alive as long as any alias of it is alive.
pub fn footprint(ctx: &Context, g: &JointGraph, saved: &[Value], fw_order: &[usize], bw_order: &[usize]) -> Footprint {
    let st = |v: Value| g.storage(v);
    let owns = |v: Value| g.storage(v) == v;
    let primal_storage: FxHashSet<Value> = g.primals.iter().map(|&p| st(p)).collect();
    let mut live: u64 = primal_storage.iter().map(|&p| bytes(ctx, p)).sum();
    let mut peak = live;
    // Last use of each storage within a phase, through any of its aliases.
    let last_use = |order: &[usize]| -> FxHashMap<Value, usize> {
        let mut m = FxHashMap::default();
        for (t, &i) in order.iter().enumerate() {
            for v in ctx.operands(g.ops[i]) {
                m.insert(st(v), t);
            }
        }
        m
    };
    let pinned_fw: FxHashSet<Value> = g.fw_outputs.iter().chain(saved).map(|&v| st(v)).collect();
    let fw_last = last_use(fw_order);
    let mut dying: FxHashMap<usize, Vec<Value>> = FxHashMap::default();
    for (t, &i) in fw_order.iter().enumerate() {
        for &r in ctx.results(g.ops[i]).iter().filter(|&&r| owns(r)) {
            live += bytes(ctx, r);
            match fw_last.get(&r) {
                _ if pinned_fw.contains(&r) => {}
                Some(&end) if end >= t => dying.entry(end).or_default().push(r),
                _ => dying.entry(t).or_default().push(r),
            }
        }
        peak = peak.max(live);
        for v in dying.remove(&t).unwrap_or_default() {
            live -= bytes(ctx, v);
        }
    }
    // Backward: tangents arrive; saved storages die at their last use.
    let tangent_storage: FxHashSet<Value> = g.tangents.iter().map(|&t| st(t)).collect();
    live += tangent_storage.iter().map(|&t| bytes(ctx, t)).sum::<u64>();
    peak = peak.max(live);
    let bw_last = last_use(bw_order);
    let pinned_bw: FxHashSet<Value> = g.grads.iter().chain(&g.fw_outputs).map(|&v| st(v)).collect();
    let mut dying: FxHashMap<usize, Vec<Value>> = FxHashMap::default();
    let held: FxHashSet<Value> = saved.iter().map(|&v| st(v)).chain(tangent_storage).collect();
    for &v in &held {
        // The caller holds primals; outputs and gradients stay to the end.
        if pinned_bw.contains(&v) || primal_storage.contains(&v) {
            continue;
        }
        match bw_last.get(&v) {
            Some(&end) => dying.entry(end).or_default().push(v),
            None => live -= bytes(ctx, v),
        }
    }
    let mut recompute = 0;
    for (t, &i) in bw_order.iter().enumerate() {
        let op = g.ops[i];
        if g.fw_required[i] {
            recompute += op_cost(ctx, op);
        }
        for &r in ctx.results(op).iter().filter(|&&r| owns(r)) {
            live += bytes(ctx, r);
            if !pinned_bw.contains(&r) {
                let end = bw_last.get(&r).copied().filter(|&e| e >= t).unwrap_or(t);
                dying.entry(end).or_default().push(r);
            }
        }
        peak = peak.max(live);
        for v in dying.remove(&t).unwrap_or_default() {
            live = live.saturating_sub(bytes(ctx, v));
        }
    }
    Footprint {
        saved: saved.len(),
        saved_bytes: saved_bytes(ctx, g, saved),
        peak_bytes: peak,
        recompute_cost: recompute,
    }
}

/// Bytes the saved values keep alive for the backward: each storage once,
/// and nothing for the caller's own arguments (it holds them anyway).
pub fn saved_bytes(ctx: &Context, g: &JointGraph, saved: &[Value]) -> u64 {
    let primal_storage: FxHashSet<Value> = g.primals.iter().map(|&p| g.storage(p)).collect();
    let storages: FxHashSet<Value> =
        saved.iter().map(|&v| g.storage(v)).filter(|s| !primal_storage.contains(s)).collect();
    storages.iter().map(|&s| bytes(ctx, s)).sum()
}
