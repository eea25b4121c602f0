//! `partition{strategy=default|min-cut, memory-budget=F}`: splits a joint
//! function into a forward and a backward function, with the values saved
//! between them.
//!
//! The forward keeps the joint's symbol and returns AOTAutograd's forward
//! outputs followed by the saved values (`forward returns, [RNG offset],
//! saved...`); the backward, `@<name>_backward`, takes `(saved...,
//! tangents...)` (`aot.saved = j`, `aot.tangent = k`; the forward's saved
//! results carry `aot.saved = j` too) and returns the
//! gradients (`aot.grad = i`). They name each other (`aot.backward`,
//! `aot.forward`) and the forward records
//! `aot.partition = #aot.partition<strategy, num_forward, num_saved,
//! saved_bytes, peak_bytes>`.
//!
//! - `default`: save every forward value the backward uses (a view: the
//!   value whose storage it shares, the view replayed in the backward).
//!   Shapes are static, so a backward that only needs a value's shape needs
//!   nothing saved for it (AOTAutograd saves the size instead of the tensor).
//!   Constants are recreated in the backward, not saved.
//! - `min-cut`: `mincut.rs`; the backward is then ordered like the autograd
//!   engine would run it — each gradient op, preceded by just the
//!   recomputation it needs — to keep peak memory low.
//! - `memory-budget` (min-cut only, 0 to 1): candidate partitions from the
//!   runtime-optimal min cut (1) to the most recomputing one (0) are
//!   measured with the liveness model of `memory.rs`; the budget picks the
//!   cheapest whose modelled peak fits `lowest + budget · (min-cut − lowest)`,
//!   so a larger budget never means a larger peak.
//!
//! A saved primal that the call mutates is saved as a clone taken before the
//! mutation (the runtime writes mutations back into the caller's tensor).

pub mod graph;
pub mod memory;
pub mod mincut;

use crate::joint::{JointInfo, JOINT_ATTR};
use crate::meta::{MutationType, ViewAndMutationMeta};
use aot_dialects::autodiff::{op_class, OpClass};
use aot_dialects::func::{FuncOp, FuncView};
use aot_ir::pass::{OptionKind, Pass, PassInfo, PassOptionSpec, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use aot_runtime::interp::VALUE_SEMANTICS;
use graph::JointGraph;
use memory::{footprint, Footprint};
use mincut::BanPolicy;
use rustc_hash::{FxHashMap, FxHashSet};

pub const PARTITION_ATTR: &str = "aot.partition";
/// Forward function attribute: the backward's symbol.
pub const BACKWARD_ATTR: &str = "aot.backward";
/// Backward function attribute: the forward's symbol.
pub const FORWARD_ATTR: &str = "aot.forward";
/// Backward argument attribute (and forward result attribute): the index
/// among the saved values.
pub const SAVED: &str = aot_dialects::func::SAVED;

crate::record! {
    /// What `partition` recorded.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct PartitionInfo = "aot.partition" {
        pub strategy: String,
        /// Forward results before the saved values.
        pub num_forward: usize,
        pub num_saved: usize,
        /// Storage the saved values keep alive, each storage once, the
        /// caller's arguments excluded (`memory::saved_bytes`).
        pub saved_bytes: u64,
        /// Modelled peak of forward then backward (`memory::footprint`).
        pub peak_bytes: u64,
    }
}

impl PartitionInfo {
    pub fn of_func(ctx: &Context, func: Op) -> Result<Option<PartitionInfo>, String> {
        ctx.get_attr(func, PARTITION_ATTR).map(|a| Self::from_attr(ctx, a)).transpose()
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Strategy {
    Default,
    MinCut,
}

struct Partition {
    strategy: Strategy,
    budget: Option<f64>,
}

/// A candidate: what to save and in which order the backward runs.
#[derive(Clone)]
struct Plan {
    saved: Vec<Value>,
    fw_order: Vec<usize>,
    bw_order: Vec<usize>,
    footprint: Footprint,
}

fn is_creation(ctx: &Context, op: Op) -> bool {
    ctx.num_operands(op) == 0 && ctx.num_results(op) > 0
}

/// `default`: save the forward values the backward uses.
fn default_saved(ctx: &Context, g: &JointGraph) -> Vec<Value> {
    let in_bw: Vec<bool> =
        (0..g.ops.len()).map(|i| g.for_grads[i] && (!g.fw_required[i] || is_creation(ctx, g.ops[i]))).collect();
    let mut saved: FxHashSet<Value> = FxHashSet::default();
    let mut consider = |v: Value| {
        if g.is_tangent(v) {
            return;
        }
        match g.def(ctx, v) {
            None => {
                saved.insert(v);
            }
            Some(j) if !in_bw[j] => {
                saved.insert(v);
            }
            _ => {}
        }
    };
    for (i, &op) in g.ops.iter().enumerate() {
        if in_bw[i] {
            for v in ctx.operands(op) {
                consider(v);
            }
        }
    }
    for &v in &g.grads {
        consider(v);
    }
    // A view is saved as the value whose storage it shares (the backward
    // replays the view, which costs nothing): the liveness model already
    // counts that storage, while saved views would each be returned as a
    // strided view the backward must copy in (a convolution's nine window
    // slices of one padded input were nine copies a call).
    let saved = saved.into_iter().map(|v| g.storage(v)).filter(|&v| !g.is_tangent(v)).collect();
    ordered(ctx, g, saved)
}

/// Saved values in a stable order: arguments, then program order.
fn ordered(ctx: &Context, g: &JointGraph, set: FxHashSet<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = g.args.iter().copied().filter(|a| set.contains(a)).collect();
    for &op in &g.ops {
        out.extend(ctx.results(op).iter().copied().filter(|r| set.contains(r)));
    }
    out
}

/// The backward in joint order.
fn joint_order(in_bw: &[bool]) -> Vec<usize> {
    (0..in_bw.len()).filter(|&i| in_bw[i]).collect()
}

/// The backward as the autograd engine would run it: gradient ops in joint
/// order, each preceded by the recomputation it needs, just in time.
fn engine_order(ctx: &Context, g: &JointGraph, in_bw: &[bool]) -> Vec<usize> {
    let mut done = vec![false; in_bw.len()];
    let mut order = Vec::new();
    fn pull(ctx: &Context, g: &JointGraph, in_bw: &[bool], i: usize, done: &mut [bool], order: &mut Vec<usize>) {
        if done[i] {
            return;
        }
        done[i] = true;
        for v in ctx.operands(g.ops[i]) {
            if let Some(j) = g.def(ctx, v) {
                if in_bw[j] {
                    pull(ctx, g, in_bw, j, done, order);
                }
            }
        }
        order.push(i);
    }
    for i in 0..in_bw.len() {
        if in_bw[i] && g.tangent_dep[i] {
            pull(ctx, g, in_bw, i, &mut done, &mut order);
        }
    }
    for i in 0..in_bw.len() {
        if in_bw[i] {
            pull(ctx, g, in_bw, i, &mut done, &mut order);
        }
    }
    order
}

fn make_plan(ctx: &Context, g: &JointGraph, saved: Vec<Value>, engine: bool) -> Result<Plan, String> {
    let set: FxHashSet<Value> = saved.iter().copied().collect();
    let in_bw = g.backward_ops(ctx, &set)?;
    // Only what the backward reads (a cut may pass through free values it
    // does not need).
    let used: FxHashSet<Value> = (0..g.ops.len())
        .filter(|&i| in_bw[i])
        .flat_map(|i| ctx.operands(g.ops[i]).collect::<Vec<_>>())
        .chain(g.grads.iter().copied())
        .collect();
    let saved: Vec<Value> = saved.into_iter().filter(|v| used.contains(v)).collect();
    let fw = g.forward_ops(ctx, &saved);
    let fw_order: Vec<usize> = (0..g.ops.len()).filter(|&i| fw[i]).collect();
    let bw_order = if engine { engine_order(ctx, g, &in_bw) } else { joint_order(&in_bw) };
    let footprint = footprint(ctx, g, &saved, &fw_order, &bw_order);
    Ok(Plan { saved, fw_order, bw_order, footprint })
}

/// Candidates for a memory budget: the min cut with more and more banned
/// values allowed to be recomputed (most bytes freed per unit of work
/// first), down to everything but stateful random ops. Two such sequences:
/// one that keeps `rng.philox_*` results saved and one that may replay
/// them (they are pure functions of an explicit seed and offset, so a
/// recomputation draws exactly what the forward drew, as checkpointed
/// dropout does). The min cut's objective is not the peak, so neither
/// sequence dominates; more candidates can only lower the lowest peak.
fn budget_candidates(ctx: &Context, g: &JointGraph, base: &Plan) -> Result<Vec<Plan>, String> {
    let mut out = Vec::new();
    let mut seen: FxHashSet<Vec<Value>> = FxHashSet::default();
    seen.insert(base.saved.clone());
    for replay_random in [false, true] {
        // Banned forward values the gradients need, by bytes per work.
        let mut pool: Vec<(Value, f64)> = Vec::new();
        for (i, &op) in g.ops.iter().enumerate() {
            if !(g.fw_required[i] && g.for_grads[i]) {
                continue;
            }
            let class = op_class(ctx, op);
            let replayable = ctx.op_def(op).is_some_and(|d| d.has(Traits::PURE));
            if class == OpClass::View || (class == OpClass::Random && !(replay_random && replayable)) {
                continue;
            }
            for &r in ctx.results(op) {
                let work = memory::op_cost(ctx, op).max(1) as f64;
                pool.push((r, graph::bytes(ctx, r) as f64 / work));
            }
        }
        pool.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        let mut steps: Vec<usize> = Vec::new();
        let mut k = 1;
        while k < pool.len() {
            steps.push(k);
            k *= 2;
        }
        steps.push(pool.len());
        for k in steps {
            let policy = BanPolicy { aggressive: true, unbanned: pool[..k].iter().map(|p| p.0).collect() };
            let sol = mincut::solve(ctx, g, &policy);
            if seen.insert(sol.saved.clone()) {
                out.push(make_plan(ctx, g, sol.saved, true)?);
            }
        }
    }
    Ok(out)
}

/// Picks by budget: the least recompute among candidates whose modelled
/// peak fits `lowest + budget · (min-cut − lowest)`.
fn pick_budget(base: Plan, candidates: Vec<Plan>, budget: f64) -> Plan {
    let hi = base.footprint.peak_bytes;
    let lo = candidates.iter().map(|c| c.footprint.peak_bytes).min().unwrap_or(hi).min(hi);
    let target = lo as f64 + budget.clamp(0.0, 1.0) * (hi - lo) as f64;
    std::iter::once(base)
        .chain(candidates)
        .filter(|c| c.footprint.peak_bytes as f64 <= target + 0.5)
        .min_by_key(|c| (c.footprint.recompute_cost, c.footprint.peak_bytes))
        .expect("the lowest-peak candidate always fits")
}

impl Pass for Partition {
    fn run(&mut self, ctx: &mut Context, func: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let Some(f) = FuncView::new(ctx, func) else { return Ok(()) };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        let err = |ctx: &Context, m: String| Diagnostic::op_error(ctx, func, m);
        let info = match JointInfo::of_func(ctx, func) {
            Ok(Some(i)) => i,
            Ok(None) => {
                if ctx.has_attr(func, PARTITION_ATTR) || ctx.has_attr(func, FORWARD_ATTR) {
                    return Ok(());
                }
                return Err(err(ctx, "is not a joint function: run 'joint' before 'partition'".into()));
            }
            Err(m) => return Err(err(ctx, format!("has malformed aot.joint: {m}"))),
        };
        let meta = ViewAndMutationMeta::of_func(ctx, func).map_err(|m| err(ctx, m))?;
        let g = JointGraph::new(ctx, func, &info).map_err(|m| err(ctx, m))?;
        let default = make_plan(ctx, &g, default_saved(ctx, &g), false).map_err(|m| err(ctx, m))?;
        let (plan, name) = match self.strategy {
            Strategy::Default => (default, "default"),
            Strategy::MinCut => {
                // Nothing the backward needs from the forward: nothing to cut.
                let needs_forward = g.grads.iter().any(|&v| !g.is_tangent(v))
                    && (0..g.ops.len()).any(|i| g.for_grads[i] && g.fw_required[i]);
                if !needs_forward {
                    (default, "min-cut")
                } else {
                    let sol = mincut::solve(ctx, &g, &BanPolicy { aggressive: false, unbanned: FxHashSet::default() });
                    let mc = make_plan(ctx, &g, sol.saved, true).map_err(|m| err(ctx, m))?;
                    st.add_stat("default-saved-bytes", default.footprint.saved_bytes);
                    st.add_stat("default-peak-bytes", default.footprint.peak_bytes);
                    match self.budget {
                        Some(b) if b < 1.0 => {
                            let cands = budget_candidates(ctx, &g, &mc).map_err(|m| err(ctx, m))?;
                            (pick_budget(mc, cands, b), "min-cut")
                        }
                        _ => (mc, "min-cut"),
                    }
                }
            }
        };
        st.add_stat("num-saved", plan.footprint.saved as u64);
        st.add_stat("saved-bytes", plan.footprint.saved_bytes);
        st.add_stat("peak-bytes", plan.footprint.peak_bytes);
        st.add_stat("recompute-cost", plan.footprint.recompute_cost);
        let mutated: Vec<bool> = (0..g.args.len())
            .map(|i| {
                meta.as_ref()
                    .and_then(|m| m.input_info.get(i))
                    .is_some_and(|x| x.mutation_type != MutationType::NotMutated)
            })
            .collect();
        let info = PartitionInfo {
            strategy: name.to_string(),
            num_forward: info.num_forward,
            num_saved: plan.saved.len(),
            saved_bytes: plan.footprint.saved_bytes,
            peak_bytes: plan.footprint.peak_bytes,
        };
        build(ctx, func, &g, &plan, &mutated, info).map_err(|m| err(ctx, m))
    }
}

/// The symbols the backward's ops and gradients mention that none of the
/// values it receives (saved values and tangents) has as a whole
/// dimension, in order.
fn backward_symbols(ctx: &Context, g: &JointGraph, plan: &Plan) -> Vec<u32> {
    let mut used = Vec::new();
    for &i in &plan.bw_order {
        let op = g.ops[i];
        for &r in ctx.results(op) {
            aot_ir::sym::type_symbols(ctx, ctx.value_type(r), &mut used);
        }
        for a in ctx.attrs(op) {
            aot_ir::sym::attr_symbols(ctx, a.value, &mut used);
        }
    }
    for &v in &g.grads {
        aot_ir::sym::type_symbols(ctx, ctx.value_type(v), &mut used);
    }
    let received: Vec<Type> = plan.saved.iter().chain(&g.tangents).map(|&v| ctx.value_type(v)).collect();
    // (What it receives is typed over symbols too: a saved `[s0, 12, (s2
    // floordiv 2)]` needs s2, which no whole size of it binds.)
    for &t in &received {
        aot_ir::sym::type_symbols(ctx, t, &mut used);
    }
    used.sort_unstable();
    used.dedup();
    let bound: Vec<u32> = aot_ir::sym::bindings(ctx, &received).iter().map(|b| b.0).collect();
    used.into_iter().filter(|k| !bound.contains(k)).collect()
}

/// Gives `bw` the ranges and guards of `func` over the symbols `bw` binds
/// (the sizes of its arguments, and the symbols passed as values).
fn copy_symbol_facts(rw: &mut Rewriter<'_>, func: Op, bw: Op, arg_types: &[Type], passed: &[u32]) {
    let mut bound: Vec<u32> = aot_ir::sym::bindings(rw, arg_types).iter().map(|b| b.0).collect();
    bound.extend_from_slice(passed);
    // The forward's facts were verified with it.
    if let Ok(facts) = aot_ir::sym::Facts::of_func(rw, func) {
        facts.restricted_to(&bound).set_on(rw, bw);
    }
}

/// Splits `func` into the forward (in place) and a new backward function.
fn build(
    ctx: &mut Context,
    func: Op,
    g: &JointGraph,
    plan: &Plan,
    mutated: &[bool],
    info: PartitionInfo,
) -> Result<(), String> {
    let f = FuncView { op: func };
    let name = f.name(ctx).to_string();
    let module = ctx.parent_op(func).ok_or("a function outside a module")?;
    let mut bw_name = format!("{name}_backward");
    let mut n = 1;
    while aot_dialects::func::lookup_func(ctx, module, &bw_name).is_some() {
        n += 1;
        bw_name = format!("{name}_backward_{n}");
    }
    let mut rw = Rewriter::new(ctx);
    // Symbols the backward computes with but no value it receives has as a
    // size: the forward saves their values too (`tensor.size_value`), and
    // the backward takes them as arguments marked `aot.symbol`.
    let symbol_values = backward_symbols(&rw, g, plan);
    let mut saved: Vec<Value> = plan.saved.clone();
    let num_tensor_saved = saved.len();
    if !symbol_values.is_empty() {
        let entry = FuncView { op: func }.entry_block(&rw).ok_or("a declaration")?;
        let first = rw.block_first_op(entry).ok_or("an empty body")?;
        rw.set_insertion_point(InsertPoint::Before(first));
        rw.set_loc(rw.op_loc(func));
        let ty = rw.tensor_type(&[], ElemType::I64);
        for &k in &symbol_values {
            let size = rw.i64_list_attr(&[aot_ir::sym::symbol(k)]);
            saved.push(rw.build_typed1(aot_dialects::tensor::SizeValueOp::NAME, &[], &[("size", size)], ty));
        }
    }
    let mut info = info;
    info.num_saved = saved.len();
    info.saved_bytes += 8 * symbol_values.len() as u64;
    let plan = &Plan { saved, ..(*plan).clone() };
    // The backward function: (saved..., tangents...) -> grads.
    let mut arg_types: Vec<Type> = plan.saved.iter().map(|&v| rw.value_type(v)).collect();
    arg_types.extend(g.tangents.iter().map(|&t| rw.value_type(t)));
    let region = rw.create_region();
    let block = rw.create_block(region, &arg_types);
    let bargs: Vec<Value> = rw.block_args(block).to_vec();
    let grad_types: Vec<Type> = g.grads.iter().map(|&v| rw.value_type(v)).collect();
    let fty = rw.intern_type(TypeData::Function { inputs: arg_types.clone(), results: grad_types });
    let loc = rw.op_loc(func);
    let mut state = OperationState::new(rw.op_name_id(FuncOp::NAME), loc);
    let sym = rw.str_attr(&bw_name);
    let ft = rw.type_attr(fty);
    state.attrs.push(NamedAttr { name: rw.sym("sym_name"), value: sym });
    state.attrs.push(NamedAttr { name: rw.sym("function_type"), value: ft });
    state.regions.push(region);
    rw.set_insertion_point(InsertPoint::After(func));
    let bw = rw.create(state);
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    for (j, &v) in plan.saved.iter().enumerate() {
        map.insert(v, bargs[j]);
    }
    for (k, &t) in g.tangents.iter().enumerate() {
        map.insert(t, bargs[plan.saved.len() + k]);
    }
    // Backward ops: clones of what the forward also runs, the rest moved.
    let fw_set: FxHashSet<usize> = plan.fw_order.iter().copied().collect();
    rw.set_insertion_point(InsertPoint::End(block));
    for &i in &plan.bw_order {
        let op = g.ops[i];
        let operands: Vec<Value> = rw.operands(op).map(|v| map.get(&v).copied().unwrap_or(v)).collect();
        if fw_set.contains(&i) {
            let c = rw.clone_op(op, &operands);
            for (&r, &n) in rw.results(op).to_vec().iter().zip(rw.results(c).to_vec().iter()) {
                map.insert(r, n);
            }
        } else {
            rw.move_to_end(op, block);
            for (k, v) in operands.into_iter().enumerate() {
                if rw.operand(op, k) != v {
                    rw.set_operand(op, k, v);
                }
            }
        }
    }
    let grads: Vec<Value> = g.grads.iter().map(|v| map.get(v).copied().unwrap_or(*v)).collect();
    rw.set_insertion_point(InsertPoint::End(block));
    rw.set_loc(rw.op_loc(g.ret));
    aot_dialects::func::ReturnOp::build_typed(&mut rw, &grads, &[], &[]);
    // Backward attributes.
    let bf = FuncView { op: bw };
    let mut arg_attrs: Vec<Vec<NamedAttr>> = Vec::new();
    for j in 0..plan.saved.len() {
        let a = rw.i64_attr(j as i64);
        let mut attrs = vec![NamedAttr { name: rw.sym(SAVED), value: a }];
        if let Some(&k) = j.checked_sub(num_tensor_saved).and_then(|i| symbol_values.get(i)) {
            let v = rw.i64_attr(k as i64);
            attrs.push(NamedAttr { name: rw.sym(aot_ir::sym::SYMBOL_ARG_ATTR), value: v });
        }
        rw.sort_named_attrs(&mut attrs);
        arg_attrs.push(attrs);
    }
    let fa = f.all_arg_attrs(&rw);
    for &t in &g.tangents {
        let i = g.args.iter().position(|&a| a == t).expect("an argument");
        arg_attrs.push(fa[i].clone());
    }
    bf.set_all_arg_attrs(&mut rw, arg_attrs);
    let ra = f.all_res_attrs(&rw);
    bf.set_all_res_attrs(&mut rw, ra[g.num_forward..].to_vec());
    let unit = rw.unit_attr();
    rw.set_attr(bw, VALUE_SEMANTICS, unit);
    // The backward's symbols are the forward's: the ranges and guards of
    // those it binds (a symbol it never sees has no value there).
    copy_symbol_facts(&mut rw, func, bw, &arg_types, &symbol_values);
    let fwd_sym = rw.symbol_ref_attr(&name);
    rw.set_attr(bw, FORWARD_ATTR, fwd_sym);
    // The forward: its outputs, then the saved values (a mutated primal as
    // a clone taken first).
    let entry = f.entry_block(&rw).expect("has a body");
    let first = rw.block_first_op(entry).expect("a return at least");
    rw.set_insertion_point(InsertPoint::Before(first));
    rw.set_loc(rw.op_loc(func));
    let mut outs: Vec<Value> = g.fw_outputs.clone();
    for &v in &plan.saved {
        let i = g.args.iter().position(|&a| a == v);
        if i.is_some_and(|i| mutated.get(i).copied().unwrap_or(false)) {
            let c = rw.build1(aot_dialects::tensor::CLONE, &[v], &[]).map_err(|d| d.message)?;
            outs.push(c);
        } else {
            outs.push(v);
        }
    }
    rw.set_operands(g.ret, &outs);
    let mut res_attrs = f.all_res_attrs(&rw);
    res_attrs.truncate(g.num_forward);
    // (The saved results say so, `aot.saved = j`: only the backward reads
    // them, so their layout is the compiler's to choose.)
    for j in 0..outs.len() - res_attrs.len() {
        let a = rw.i64_attr(j as i64);
        res_attrs.push(vec![NamedAttr { name: rw.sym(SAVED), value: a }]);
    }
    f.set_all_res_attrs(&mut rw, res_attrs);
    // Ops only the backward needs are gone (moved); dead ones are removed.
    let keep: Vec<bool> = g.args.iter().map(|a| !g.is_tangent(*a)).collect();
    for i in (0..g.ops.len()).rev() {
        let op = g.ops[i];
        if rw.op_block(op) == Some(entry) && !fw_set.contains(&i) {
            if rw.results(op).iter().any(|&r| rw.has_uses(r)) {
                return Err(format!("'{}' is needed by both functions but was not split", rw.op_name(op)));
            }
            rw.erase_op(op);
        }
    }
    f.erase_args(&mut rw, &keep)?;
    f.sync_function_type(&mut rw);
    rw.remove_attr(func, JOINT_ATTR);
    let a = info.to_attr(&mut rw);
    rw.set_attr(func, PARTITION_ATTR, a);
    let bsym = rw.symbol_ref_attr(&bw_name);
    rw.set_attr(func, BACKWARD_ATTR, bsym);
    crate::canonicalize::simplify_function(&mut rw, func);
    crate::canonicalize::simplify_function(&mut rw, bw);
    Ok(())
}

inventory::submit! {
    PassInfo {
        argument: "partition",
        name: "Partition",
        summary: "Split a joint function into forward and backward functions (default or min-cut rematerialization)",
        description: "The forward keeps the joint's symbol and returns the forward outputs followed by the saved values; \
the backward (@<name>_backward) takes the saved values and the tangents and returns the gradients. default saves every \
forward value the backward uses; min-cut solves AOTAutograd's max-flow/min-cut problem (petgraph's dinics) to recompute \
cheap values in the backward instead of saving them, never recomputing random or matmul-class ops, and orders the \
backward like the autograd engine. memory-budget (0..1, min-cut) trades recomputation for memory using a liveness \
model of peak memory, monotonic in the budget. Statistics report saved tensors, saved bytes and modelled peak bytes.",
        anchor: Some(FuncOp::NAME),
        options: &[
            PassOptionSpec {
                name: "strategy",
                kind: OptionKind::Enum(&["default", "min-cut"]),
                default: "default",
                description: "default: save what the backward uses; min-cut: recompute cheap values instead",
            },
            PassOptionSpec {
                name: "memory-budget",
                kind: OptionKind::Float,
                default: "1",
                description: "With min-cut: 0 (save as little as possible) to 1 (the runtime-optimal min cut)",
            },
        ],
        statistics: &[
            StatisticSpec { name: "num-saved", description: "Values saved for the backward" },
            StatisticSpec { name: "saved-bytes", description: "Bytes of storage the saved values keep alive (arguments excluded)" },
            StatisticSpec { name: "peak-bytes", description: "Modelled peak memory of forward + backward" },
            StatisticSpec { name: "recompute-cost", description: "Estimated work the backward recomputes" },
            StatisticSpec { name: "default-saved-bytes", description: "Saved bytes of the default partition (min-cut runs)" },
            StatisticSpec { name: "default-peak-bytes", description: "Modelled peak of the default partition (min-cut runs)" },
        ],
        create: |o: &PassOptions| {
            let strategy = match o.get_str("strategy").as_str() {
                "default" => Strategy::Default,
                "min-cut" => Strategy::MinCut,
                other => return Err(format!("unknown strategy '{other}' (expected default or min-cut)")),
            };
            let b = o.get_float("memory-budget");
            if !(0.0..=1.0).contains(&b) {
                return Err(format!("memory-budget must be in [0, 1], got {b}"));
            }
            if strategy == Strategy::Default && b < 1.0 {
                return Err("memory-budget needs strategy=min-cut".into());
            }
            Ok(Box::new(Partition { strategy, budget: Some(b) }))
        },
    }
}
