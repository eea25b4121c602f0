//! The min-cut rematerialization partitioner (AOTAutograd's strategy):
//! which forward values to save so that the backward recomputes the rest
//! cheaply.
//!
//! Every value X the gradients need becomes `X_in → X_out` with the cost of
//! saving X (bytes × 1.1^clamp(distance to the backward, 1, 100), doubled
//! when X would not be materialized anyway because every user fuses with
//! it; views infinite: their base is saved instead; primals and forward
//! outputs free, since the caller holds them anyway — upstream's free
//! parameters); every data edge is
//! `X_out → Y_in` (infinite). Values computed from tangents drain into the
//! sink; primals and *banned* values (ops that must not be recomputed) hang
//! from the source. The minimum cut (petgraph's `dinics`, the cut read from
//! the residual graph) is the set of saved values; everything on the sink
//! side the backward needs is recomputed there. Capacities are integers
//! (bytes × 16), so the cut is exact.
//!
//! Bans, for forward values only: matmul-class and random ops (never
//! recomputed with fresh randomness), ops outside the recomputable allowlist
//! (pointwise, views, reductions, creation, copies, gather/index), reductions
//! whose result is more than 4× smaller than their input, and values with a
//! backward user they cannot fuse into. `aggressive` keeps only the reduction
//! ban (ops outside the allowlist become recomputable, matmuls and random
//! ops never).

use super::graph::{bytes, JointGraph};
use aot_dialects::autodiff::{op_class, OpClass};
use aot_ir::*;
use petgraph::graph::{Graph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use rustc_hash::{FxHashMap, FxHashSet};

const INF: u64 = 1 << 60;

/// Can a consumer of class `b` fuse the computation of a producer of class `a`?
pub fn fusible(a: OpClass, b: OpClass) -> bool {
    matches!(a, OpClass::Pointwise | OpClass::View | OpClass::Cheap)
        && matches!(b, OpClass::Pointwise | OpClass::View | OpClass::Reduction)
}

/// Which values must not be recomputed.
pub struct BanPolicy {
    pub aggressive: bool,
    /// Values allowed to be recomputed whatever their class (budget search).
    pub unbanned: FxHashSet<Value>,
}

pub struct Solution {
    pub saved: Vec<Value>,
}

/// Distance of each forward op's results to the backward: 0 for ops the
/// forward does not need, else 1 + the smallest distance of a user.
fn distances(ctx: &Context, g: &JointGraph) -> Vec<u32> {
    let n = g.ops.len();
    let mut dist = vec![u32::MAX; n];
    for i in (0..n).rev() {
        if !g.fw_required[i] {
            dist[i] = 0;
            continue;
        }
        let mut d = u32::MAX;
        for &r in ctx.results(g.ops[i]) {
            for &u in g.users.get(&r).map(|v| &v[..]).unwrap_or(&[]) {
                d = d.min(dist[u].saturating_add(1));
            }
        }
        dist[i] = d;
    }
    dist
}

/// Is `v` (a result of op `i`) banned from recomputation?
fn banned(ctx: &Context, g: &JointGraph, i: usize, v: Value, policy: &BanPolicy) -> bool {
    if policy.unbanned.contains(&v) {
        return false;
    }
    let op = g.ops[i];
    let class = op_class(ctx, op);
    match class {
        OpClass::View => return false,
        OpClass::Matmul | OpClass::Random => return true,
        OpClass::Other if !policy.aggressive => return true,
        _ => {}
    }
    if class == OpClass::Reduction {
        let input = ctx.operands(op).next().map(|x| bytes(ctx, x)).unwrap_or(0);
        if bytes(ctx, v).saturating_mul(4) < input {
            return true;
        }
    }
    if policy.aggressive {
        return false;
    }
    // A backward user it cannot fuse into.
    g.users.get(&v).is_some_and(|us| us.iter().any(|&u| !g.fw_required[u] && !fusible(class, op_class(ctx, g.ops[u]))))
}

/// Solves the min cut; returns the values to save (arguments first, then in
/// program order).
pub fn solve(ctx: &Context, g: &JointGraph, policy: &BanPolicy) -> Solution {
    let dist = distances(ctx, g);
    let mut net: Graph<(), u64> = Graph::new();
    let source = net.add_node(());
    let sink = net.add_node(());
    let mut ends: FxHashMap<Value, (NodeIndex, NodeIndex)> = FxHashMap::default();
    let mut node =
        |net: &mut Graph<(), u64>, v: Value| *ends.entry(v).or_insert_with(|| (net.add_node(()), net.add_node(())));
    let is_primal = |v: Value| g.primals.contains(&v);
    // Values the gradients need, with the op defining them (None: argument).
    let mut relevant: Vec<(Value, Option<usize>)> = Vec::new();
    let mut seen: FxHashSet<Value> = FxHashSet::default();
    for &a in &g.primals {
        if g.users.get(&a).is_some_and(|us| us.iter().any(|&u| g.for_grads[u])) || g.grads.contains(&a) {
            relevant.push((a, None));
            seen.insert(a);
        }
    }
    for (i, &op) in g.ops.iter().enumerate() {
        if g.for_grads[i] {
            for &r in ctx.results(op) {
                if seen.insert(r) {
                    relevant.push((r, Some(i)));
                }
            }
        }
    }
    for &(v, def) in &relevant {
        let (vin, vout) = node(&mut net, v);
        if def.is_some_and(|i| g.tangent_dep[i]) || (def.is_some_and(|i| !g.fw_required[i]) && g.grads.contains(&v)) {
            net.add_edge(vin, sink, INF);
            continue;
        }
        let class = def.map(|i| op_class(ctx, g.ops[i]));
        let ban = match def {
            None => is_primal(v),
            Some(i) => g.fw_required[i] && banned(ctx, g, i, v, policy),
        };
        if ban {
            net.add_edge(source, vin, INF);
        }
        if g.grads.contains(&v) {
            net.add_edge(vout, sink, INF);
        }
        let weight = match class {
            // The caller holds its arguments (parameters, data) anyway.
            None => 0,
            Some(OpClass::View) => INF,
            // The caller holds the forward's outputs anyway: free to save.
            _ if g.fw_outputs.contains(&v) => 1,
            _ => {
                let d = def.map_or(1, |i| dist[i].clamp(1, 100)) as i32;
                let mut w = bytes(ctx, v) as f64 * 1.1f64.powi(d);
                let materialized = match def {
                    None => true,
                    Some(i) => g.users.get(&v).is_some_and(|us| {
                        us.iter().any(|&u| !fusible(op_class(ctx, g.ops[i]), op_class(ctx, g.ops[u])))
                    }),
                };
                if !materialized {
                    w *= 2.0;
                }
                (w * 16.0).round() as u64 + 1
            }
        };
        net.add_edge(vin, vout, weight);
        for &u in g.users.get(&v).map(|v| &v[..]).unwrap_or(&[]) {
            if !g.for_grads[u] {
                continue;
            }
            for &r in ctx.results(g.ops[u]) {
                let (rin, _) = node(&mut net, r);
                net.add_edge(vout, rin, INF);
            }
        }
    }
    let (_, flows) = petgraph::algo::dinics(&net, source, sink);
    // The source side of the cut, in the residual graph.
    let mut reach = vec![false; net.node_count()];
    let mut queue = std::collections::VecDeque::from([source]);
    reach[source.index()] = true;
    while let Some(u) = queue.pop_front() {
        for e in net.edges_directed(u, Direction::Outgoing) {
            let t = e.target();
            if !reach[t.index()] && *e.weight() > flows[e.id().index()] {
                reach[t.index()] = true;
                queue.push_back(t);
            }
        }
        for e in net.edges_directed(u, Direction::Incoming) {
            let s = e.source();
            if !reach[s.index()] && flows[e.id().index()] > 0 {
                reach[s.index()] = true;
                queue.push_back(s);
            }
        }
    }
    let saved = relevant
        .iter()
        .filter(|(v, _)| {
            let (vin, vout) = ends[v];
            reach[vin.index()] && !reach[vout.index()]
        })
        .map(|&(v, _)| v)
        .collect();
    Solution { saved }
}
