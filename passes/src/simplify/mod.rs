//! `simplify`: equality saturation over a value-semantics function with egg.
//!
//! The function's dataflow becomes an e-graph ([`lang`]): every pure op an
//! e-node, every value it cannot look into (arguments, results of ops with
//! effects) a leaf. The rules of [`rules`] are applied by egg's runner until
//! nothing new is learnt or a limit (e-nodes, iterations, time) is reached;
//! the statistics say which. Then the cheapest function is extracted under
//! a cost model of bytes moved and flops ([`lang::node_cost`]), not term
//! size, and written back.
//!
//! What the rewrite preserves:
//! - ops with effects (stateful random draws, in-graph mutations of
//!   arguments, calls) keep their relative order, and each pure value is
//!   computed before its first user and after the effectful ops it reads;
//!   if the extracted graph cannot be ordered that way (a value chosen
//!   through an op that runs later), the function is left as it was;
//! - a value that a metadata mutation consumes (operand 0 of `set_`,
//!   `as_strided_`, `resize_`) is dead afterwards, so the op producing it
//!   stays an op of its own and its class is never merged with another;
//! - the function's signature and results, with their attributes (the
//!   facts `functionalize` and `joint` record there), are untouched; only
//!   which ops compute the results changes. Results equal their old values
//!   element for element (rules are exact, see [`rules`]);
//! - when the cheapest graph is the one already there, the function is not
//!   touched at all (op order included).

pub mod lang;
pub mod rules;

use aot_ir::effects::is_effect_free;
use aot_ir::pass::{OptionKind, Pass, PassInfo, PassOptionSpec, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use aot_runtime::interp::VALUE_SEMANTICS;
use egg::Language;
use egg::{Id, Rewrite, Runner, SearchMatches, StopReason, Subst};
use lang::{ClassData, Facts, Graph, Head, TNode};
use rules::{AttrVal, Cx, Roots, Rule, Term, RULES};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

/// The runner's limits.
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    pub nodes: usize,
    pub iterations: usize,
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { nodes: 100_000, iterations: 16, time: Duration::from_millis(1000) }
    }
}

/// Why saturation stopped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    Saturated,
    NodeLimit,
    IterationLimit,
    TimeLimit,
}

/// What one function's simplification did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub enodes: usize,
    pub eclasses: usize,
    pub iterations: usize,
    pub stop: Option<Stop>,
    /// Rule applications that changed the e-graph.
    pub rewrites: usize,
    pub ops_before: usize,
    pub ops_after: usize,
    /// Modelled cost (see [`lang::node_cost`]) of the pure ops before and
    /// after, each op counted once.
    pub cost_before: f64,
    pub cost_after: f64,
    /// The function was rewritten (false: the graph was already cheapest,
    /// or could not be ordered).
    pub rewritten: bool,
    /// The extracted graph could not be ordered; the function is unchanged.
    pub unordered: bool,
    /// The rules that changed the e-graph, by name.
    pub fired: Vec<&'static str>,
}

/// One op of the body, as read before the e-graph takes the context.
struct BodyOp {
    op: Op,
    name: OpName,
    attrs: Vec<NamedAttr>,
    operands: SmallVec<[Value; 4]>,
    results: SmallVec<[Value; 2]>,
    loc: Location,
    /// Enters the e-graph as a node (else: an opaque op, its results leaves).
    pure: bool,
}

fn all_tensors(ctx: &Context, vals: impl IntoIterator<Item = Value>) -> bool {
    vals.into_iter().all(|v| ctx.value_tensor(v).is_some())
}

/// Whether `op` can be an e-node: effect-free, regionless, typed by
/// inference, over tensors only, its results used only in `body`, and not
/// consumed by a metadata mutation.
fn is_pure_node(ctx: &Context, op: Op, body: Block) -> bool {
    let Some(def) = ctx.op_def(op) else { return false };
    (def.infer.is_some() || ctx.num_results(op) == 1)
        && !def.has(Traits::TERMINATOR)
        && ctx.regions(op).is_empty()
        && ctx.num_results(op) > 0
        && is_effect_free(ctx, op)
        && all_tensors(ctx, ctx.operands(op))
        && all_tensors(ctx, ctx.results(op).iter().copied())
        && ctx.results(op).iter().all(|&r| {
            ctx.uses(r).all(|u| {
                ctx.op_block(u.op) == Some(body) && !(u.index == 0 && ctx.has_trait(u.op, Traits::METADATA_MUTATION))
            })
        })
}

/// A rule resolved against a context: its root op names as ids.
struct Resolved {
    rule: &'static Rule,
    roots: SmallVec<[OpName; 4]>,
}

impl Resolved {
    fn new(ctx: &mut Context, rule: &'static Rule) -> Resolved {
        let names: Vec<&'static str> = match rule.roots {
            Roots::Ops(names) => names.to_vec(),
            Roots::Where(pred) => aot_ir::registry::all_ops().into_iter().filter(|d| pred(d)).map(|d| d.name).collect(),
        };
        Resolved { rule, roots: names.into_iter().map(|n| ctx.op_name_id(n)).collect() }
    }

    fn rooted(&self, n: &TNode) -> bool {
        matches!(n.head, Head::Op(name) if self.roots.contains(&name))
    }

    /// The terms the rule gives for class `id`'s nodes.
    fn terms(&self, g: &Graph<'_>, id: Id) -> Vec<Term> {
        let cx = Cx { g };
        g[id]
            .nodes
            .iter()
            .filter(|n| self.rooted(n) && cx.clean_op(n).is_some())
            .filter_map(|n| (self.rule.rewrite)(&cx, n, id))
            .collect()
    }
}

/// The searcher and applier of one rule: the search asks whether a class
/// has a node the rule rewrites, the application asks the rule again and
/// adds what it gives (the class may have grown since, which only finds
/// more equal terms).
struct RuleImpl(Resolved);

impl<'c> egg::Searcher<TNode, Facts<'c>> for RuleImpl {
    fn search_eclass_with_limit(&self, g: &Graph<'c>, eclass: Id, limit: usize) -> Option<SearchMatches<'_, TNode>> {
        (limit > 0 && !self.0.terms(g, eclass).is_empty()).then(|| SearchMatches {
            eclass,
            substs: vec![Subst::default()],
            ast: None,
        })
    }

    fn search_with_limit(&self, g: &Graph<'c>, limit: usize) -> Vec<SearchMatches<'_, TNode>> {
        let mut classes: Vec<Id> = Vec::new();
        for name in &self.0.roots {
            if let Some(ids) = g.classes_for_op(&Head::Op(*name)) {
                classes.extend(ids);
            }
        }
        classes.sort_unstable();
        classes.dedup();
        let mut out = Vec::new();
        let mut left = limit;
        for id in classes {
            if left == 0 {
                break;
            }
            if let Some(m) = self.search_eclass_with_limit(g, id, left) {
                left -= m.substs.len();
                out.push(m);
            }
        }
        out
    }

    fn vars(&self) -> Vec<egg::Var> {
        Vec::new()
    }
}

impl<'c> egg::Applier<TNode, Facts<'c>> for RuleImpl {
    fn apply_one(
        &self,
        g: &mut Graph<'c>,
        eclass: Id,
        _: &Subst,
        _: Option<&egg::PatternAst<TNode>>,
        _: egg::Symbol,
    ) -> Vec<Id> {
        let mut changed = Vec::new();
        for term in self.0.terms(g, eclass) {
            let Some(new) = add_term(g, &term) else { continue };
            let (a, b) = (g.find(eclass), g.find(new));
            // Only values of one type are equal; a term whose inferred type
            // differs (a rule meeting type promotion) is dropped.
            if a == b || g[a].data.ty().is_none() || g[a].data.ty() != g[b].data.ty() || pinned(g, a) || pinned(g, b) {
                continue;
            }
            if g.union(a, b) {
                changed.push(g.find(a));
            }
        }
        changed
    }
}

/// Whether class `id` holds a value a metadata mutation consumes.
fn pinned(g: &Graph<'_>, id: Id) -> bool {
    g[id].nodes.iter().any(|n| matches!(n.head, Head::Leaf(k) if g.analysis.pinned.contains(&k)))
}

/// Adds a rule's term; `None` if an attribute cannot be made.
fn add_term(g: &mut Graph<'_>, term: &Term) -> Option<Id> {
    match term {
        Term::Class(id) => Some(*id),
        Term::Like { head, attrs, children } => {
            let children = children.iter().map(|c| add_term(g, c)).collect::<Option<_>>()?;
            Some(g.add(TNode { head: *head, attrs: *attrs, ty: None, children }))
        }
        Term::Op { name, attrs, ty, children } => {
            let children = children.iter().map(|c| add_term(g, c)).collect::<Option<_>>()?;
            let facts = &mut g.analysis;
            let mut named = Vec::with_capacity(attrs.len());
            for (key, val) in attrs {
                let value = match val {
                    AttrVal::I64(v) => facts.ctx.i64_attr(*v),
                    AttrVal::F64(v) => facts.ctx.f64_attr(*v),
                    AttrVal::List(v) => facts.ctx.i64_list_attr(v),
                };
                named.push(NamedAttr { name: facts.ctx.sym(key), value });
            }
            let attrs = facts.intern_attrs(named);
            let head = Head::Op(facts.ctx.op_name_id(name));
            Some(g.add(TNode { head, attrs, ty: *ty, children }))
        }
    }
}

/// Tree cost over a table of node costs.
struct TableCost<'t>(&'t FxHashMap<TNode, f64>);

impl egg::CostFunction<TNode> for TableCost<'_> {
    type Cost = f64;

    fn cost<C: FnMut(Id) -> f64>(&mut self, n: &TNode, mut costs: C) -> f64 {
        let own = self.0.get(n).copied().unwrap_or(f64::INFINITY);
        n.children.iter().fold(own, |acc, &c| acc + costs(c))
    }
}

/// The cost of every node; among nodes of equal cost, the ones the function
/// had (`written`, canonical) cost a little less, so that a rewrite never
/// trades an op for an equally cheap one (a commuted operand order, say).
fn cost_table(g: &Graph<'_>, written: &FxHashSet<TNode>) -> FxHashMap<TNode, f64> {
    const NEW: f64 = 1e-3;
    let mut table = FxHashMap::default();
    for class in g.classes() {
        for n in &class.nodes {
            let operands: Option<Vec<&TensorType>> =
                n.children.iter().map(|&c| g[c].data.ty().and_then(|t| g.analysis.tensor(t))).collect();
            let cost = operands.and_then(|o| lang::node_cost(&g.analysis, n, &class.data, &o));
            let extra = if written.contains(n) { 0.0 } else { NEW };
            table.insert(n.clone(), cost.map_or(f64::INFINITY, |c| c + extra));
        }
    }
    table
}

/// One step of the rewritten body.
enum Step {
    /// Create the op of class `class`.
    Emit {
        class: Id,
        name: OpName,
        attrs: Vec<NamedAttr>,
        types: SmallVec<[Type; 1]>,
        loc: Location,
        children: SmallVec<[Id; 3]>,
    },
    /// Class `class` is result `index` of class `of`'s op.
    Project { class: Id, of: Id, index: usize },
    /// Move opaque op `k` (index into the body) here.
    Opaque(usize),
}

/// Simplifies one function; `None` when it has no value semantics or no
/// single-block body.
pub fn simplify_function(ctx: &mut Context, func: Op, limits: Limits) -> Option<Report> {
    if !ctx.has_attr(func, VALUE_SEMANTICS) {
        return None;
    }
    let body = ctx.single_block(func, 0)?;
    let term_op = ctx.block_last_op(body).filter(|&o| ctx.has_trait(o, Traits::TERMINATOR))?;
    let args: Vec<Value> = ctx.block_args(body).to_vec();
    let mut body_ops: Vec<BodyOp> = Vec::new();
    for op in ctx.block_ops(body) {
        if op == term_op {
            continue;
        }
        body_ops.push(BodyOp {
            op,
            name: ctx.op_name_of(op),
            attrs: ctx.attrs(op).to_vec(),
            operands: ctx.operand_vec(op),
            results: ctx.results(op).iter().copied().collect(),
            loc: ctx.op_loc(op),
            pure: is_pure_node(ctx, op, body),
        });
    }
    let term_operands = ctx.operand_vec(term_op);
    // The written result type of each pure op without type inference.
    let ctx_declared: Vec<Option<Type>> = body_ops
        .iter()
        .map(|o| {
            let inferred = ctx.op_def(o.op).is_some_and(|d| d.infer.is_some());
            (o.pure && !inferred).then(|| ctx.value_type(o.results[0]))
        })
        .collect();
    let mut report = Report { ops_before: body_ops.iter().filter(|o| o.pure).count(), ..Report::default() };
    if report.ops_before == 0 {
        return Some(report);
    }
    // Values consumed by a metadata mutation.
    let killed: FxHashSet<Value> = body_ops
        .iter()
        .filter(|o| ctx.has_trait(o.op, Traits::METADATA_MUTATION))
        .filter_map(|o| o.operands.first().copied())
        .collect();
    let value_types: FxHashMap<Value, Type> =
        args.iter().chain(body_ops.iter().flat_map(|o| o.results.iter())).map(|&v| (v, ctx.value_type(v))).collect();
    let rules: Vec<Rewrite<TNode, Facts<'_>>> = RULES
        .iter()
        .map(|r| {
            let resolved = Resolved::new(ctx, r);
            Rewrite::new(r.name, RuleImpl(Resolved { rule: r, roots: resolved.roots.clone() }), RuleImpl(resolved))
                .expect("rules bind no variables")
        })
        .collect();

    let mut runner: Runner<TNode, Facts<'_>, ()> = Runner::new(Facts::new(ctx))
        .with_node_limit(limits.nodes)
        .with_iter_limit(limits.iterations)
        .with_time_limit(limits.time);
    let g = &mut runner.egraph;
    let mut class_of: FxHashMap<Value, Id> = FxHashMap::default();
    // What each leaf stands for.
    let mut leaf_values: Vec<Value> = Vec::new();
    // The opaque op (body index) whose result each leaf is; `None`: an
    // argument.
    let mut leaf_owner: Vec<Option<usize>> = Vec::new();
    let mut add_leaf = |g: &mut Graph<'_>, v: Value, owner: Option<usize>, pinned: bool| -> Id {
        let k = leaf_values.len() as u32;
        leaf_values.push(v);
        leaf_owner.push(owner);
        g.analysis.leaf_types.push(value_types[&v]);
        if pinned {
            g.analysis.pinned.insert(k);
        }
        let attrs = g.analysis.intern_attrs(Vec::new());
        g.add(TNode { head: Head::Leaf(k), attrs, ty: None, children: SmallVec::new() })
    };
    for &a in &args {
        let id = add_leaf(g, a, None, killed.contains(&a));
        class_of.insert(a, id);
    }
    // (body op index, its node, its class) of every pure op.
    let mut original: Vec<(usize, TNode, Id)> = Vec::new();
    let mut first_op_of: FxHashMap<Id, usize> = FxHashMap::default();
    for (k, o) in body_ops.iter().enumerate() {
        if !o.pure {
            for &r in &o.results {
                let id = add_leaf(g, r, Some(k), killed.contains(&r));
                class_of.insert(r, id);
            }
            continue;
        }
        let attrs = g.analysis.intern_attrs(o.attrs.clone());
        let children = o.operands.iter().map(|v| class_of[v]).collect();
        let declared = ctx_declared[k];
        let node = TNode { head: Head::Op(o.name), attrs, ty: declared, children };
        let id = g.add(node.clone());
        original.push((k, node, id));
        first_op_of.entry(id).or_insert(k);
        if o.results.len() == 1 {
            class_of.insert(o.results[0], id);
        } else {
            for (i, &r) in o.results.iter().enumerate() {
                let p =
                    g.add(TNode { head: Head::Proj(i as u32), attrs, ty: None, children: SmallVec::from_elem(id, 1) });
                first_op_of.entry(p).or_insert(k);
                class_of.insert(r, p);
            }
        }
    }

    let runner = runner.run(&rules);
    let g = &runner.egraph;
    report.enodes = g.total_number_of_nodes();
    report.eclasses = g.number_of_classes();
    report.iterations = runner.iterations.len();
    report.rewrites = runner.iterations.iter().map(|it| it.applied.values().sum::<usize>()).sum();
    report.fired = RULES
        .iter()
        .map(|r| r.name)
        .filter(|&name| runner.iterations.iter().any(|it| it.applied.contains_key(&egg::Symbol::from(name))))
        .collect();
    report.stop = match runner.stop_reason {
        Some(StopReason::Saturated) => Some(Stop::Saturated),
        Some(StopReason::NodeLimit(_)) => Some(Stop::NodeLimit),
        Some(StopReason::IterationLimit(_)) => Some(Stop::IterationLimit),
        Some(StopReason::TimeLimit(_)) => Some(Stop::TimeLimit),
        Some(StopReason::Other(_)) | None => None,
    };

    let written: FxHashSet<TNode> = original
        .iter()
        .map(|(_, n, _)| n.clone().map_children(|c| g.find(c)))
        .chain(g.classes().flat_map(|c| c.nodes.iter().filter(|n| !matches!(n.head, Head::Op(_))).cloned()))
        .collect();
    let table = cost_table(g, &written);
    report.cost_before = original
        .iter()
        .map(|(_, n, _)| table.get(&n.clone().map_children(|c| g.find(c))).copied().unwrap_or(0.0))
        .sum();
    let extractor = egg::Extractor::new(g, TableCost(&table));
    let leaves = Leaves { values: &leaf_values, owner: &leaf_owner };
    let plan =
        plan(g, &extractor, &table, &body_ops, &term_operands, &class_of, &first_op_of, &original, leaves, &mut report);
    drop(extractor);
    let ctx = runner.egraph.analysis.ctx;
    let Some(plan) = plan else { return Some(report) };
    apply(ctx, &body_ops, term_op, plan);
    report.rewritten = true;
    Some(report)
}

/// Orders the extracted graph; `None` when it is the original graph or
/// cannot be ordered (see the module comment).
#[allow(clippy::too_many_arguments)]
fn plan(
    g: &Graph<'_>,
    ex: &egg::Extractor<'_, TableCost<'_>, TNode, Facts<'_>>,
    table: &FxHashMap<TNode, f64>,
    body_ops: &[BodyOp],
    term_operands: &[Value],
    class_of: &FxHashMap<Value, Id>,
    first_op_of: &FxHashMap<Id, usize>,
    original: &[(usize, TNode, Id)],
    leaves: Leaves<'_>,
    report: &mut Report,
) -> Option<Plan> {
    let canon = |id: Id| g.find(id);
    // The chosen node of every class some root needs, from the roots down.
    let end = body_ops.len();
    let mut chosen: FxHashMap<Id, TNode> = FxHashMap::default();
    let mut rank: FxHashMap<Id, usize> = FxHashMap::default();
    let mut loc: FxHashMap<Id, Location> = FxHashMap::default();
    let mut stack: Vec<(Id, usize, Location)> = Vec::new();
    let mut roots: Vec<(usize, &[Value], Location)> =
        body_ops.iter().enumerate().filter(|(_, o)| !o.pure).map(|(k, o)| (k, &o.operands[..], o.loc)).collect();
    let term_loc = body_ops.last().map_or_else(|| g.analysis.ctx.unknown_loc(), |o| o.loc);
    roots.push((end, term_operands, term_loc));
    for &(k, operands, l) in &roots {
        stack.extend(operands.iter().map(|v| (canon(class_of[v]), k, l)));
    }
    while let Some((id, user_rank, user_loc)) = stack.pop() {
        if let Some(r) = rank.get_mut(&id) {
            *r = (*r).min(first_op_of.get(&id).copied().unwrap_or(user_rank));
            continue;
        }
        let own = first_op_of.get(&id).copied();
        rank.insert(id, own.unwrap_or(user_rank));
        let l = own.map_or(user_loc, |k| body_ops[k].loc);
        loc.insert(id, l);
        let node = ex.find_best_node(id).clone();
        if !table.get(&node).is_some_and(|c| c.is_finite()) {
            return None;
        }
        if let Head::Op(_) | Head::Proj(_) = node.head {
            let r = rank[&id];
            stack.extend(node.children.iter().map(|&c| (canon(c), r, l)));
        }
        chosen.insert(id, node);
    }
    let ops_after = chosen.values().filter(|n| matches!(n.head, Head::Op(_))).count();
    report.cost_after = chosen.values().map(|n| table[n]).sum();
    report.ops_after = ops_after;
    // Unchanged: every original op chosen for its own class, none merged.
    let originals: FxHashSet<TNode> = original.iter().map(|(_, n, _)| n.clone().map_children(canon)).collect();
    let kept: FxHashSet<&TNode> = chosen.values().filter(|n| !matches!(n.head, Head::Leaf(_))).collect();
    let unchanged = ops_after == original.len()
        && originals.len() == original.len()
        && kept.len() == chosen.values().filter(|n| !matches!(n.head, Head::Leaf(_))).count()
        && kept.iter().all(|n| originals.contains(*n))
        && original.iter().all(|(_, n, id)| chosen.get(&canon(*id)) == Some(&n.clone().map_children(canon)));
    if unchanged {
        report.cost_after = report.cost_before;
        return None;
    }

    // Kahn's algorithm, earliest original position first: classes wait for
    // their operands (a leaf of an opaque op waits for that op), opaque ops
    // for their operands and the previous opaque op.
    #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    enum Item {
        Class(Id),
        Opaque(usize),
    }
    let mut waiting: FxHashMap<Item, usize> = FxHashMap::default();
    let mut users: FxHashMap<Item, Vec<Item>> = FxHashMap::default();
    let mut edge = |from: Item, to: Item, waiting: &mut FxHashMap<Item, usize>| {
        users.entry(from).or_default().push(to);
        *waiting.entry(to).or_default() += 1;
    };
    // What a class stands on: a class (emitted), an opaque op (its
    // result), or nothing (an argument).
    let dep = |id: Id| -> Option<Item> {
        match chosen.get(&id).map(|n| n.head) {
            Some(Head::Leaf(k)) => leaves.owner[k as usize].map(Item::Opaque),
            _ => Some(Item::Class(id)),
        }
    };
    let mut items: Vec<Item> = Vec::new();
    for (&id, n) in &chosen {
        if matches!(n.head, Head::Leaf(_)) {
            continue;
        }
        items.push(Item::Class(id));
        waiting.entry(Item::Class(id)).or_default();
        for &c in &n.children {
            if let Some(d) = dep(canon(c)) {
                edge(d, Item::Class(id), &mut waiting);
            }
        }
    }
    let mut previous: Option<usize> = None;
    for (k, o) in body_ops.iter().enumerate().filter(|(_, o)| !o.pure) {
        items.push(Item::Opaque(k));
        waiting.entry(Item::Opaque(k)).or_default();
        if let Some(p) = previous {
            edge(Item::Opaque(p), Item::Opaque(k), &mut waiting);
        }
        for v in &o.operands {
            if let Some(d) = dep(canon(class_of[v])) {
                edge(d, Item::Opaque(k), &mut waiting);
            }
        }
        previous = Some(k);
    }
    let key = |it: Item| match it {
        Item::Class(id) => (rank[&id], 1, usize::from(id)),
        Item::Opaque(k) => (k, 0, k),
    };
    let mut ready: BinaryHeap<Reverse<((usize, usize, usize), Item)>> =
        items.iter().filter(|it| waiting[it] == 0).map(|&it| Reverse((key(it), it))).collect();
    let mut steps = Vec::with_capacity(items.len());
    while let Some(Reverse((_, it))) = ready.pop() {
        steps.push(match it {
            Item::Opaque(k) => Step::Opaque(k),
            Item::Class(id) => {
                let n = &chosen[&id];
                match n.head {
                    Head::Proj(i) => Step::Project { class: id, of: canon(n.children[0]), index: i as usize },
                    Head::Op(name) => {
                        let data: &ClassData = &g[id].data;
                        Step::Emit {
                            class: id,
                            name,
                            attrs: g.analysis.attrs(n.attrs).to_vec(),
                            types: data.types.clone(),
                            loc: loc[&id],
                            children: n.children.iter().map(|&c| canon(c)).collect(),
                        }
                    }
                    Head::Leaf(_) => unreachable!("leaves are not items"),
                }
            }
        });
        for &u in users.get(&it).map(|v| &v[..]).unwrap_or(&[]) {
            let w = waiting.get_mut(&u).expect("every user waits");
            *w -= 1;
            if *w == 0 {
                ready.push(Reverse((key(u), u)));
            }
        }
    }
    if steps.len() != items.len() {
        report.unordered = true;
        return None;
    }
    // The value each operand of an opaque op or the terminator reads: a
    // leaf's own value, or the class whose op the plan creates.
    let operand = |v: &Value| -> Operand {
        let id = canon(class_of[v]);
        match chosen[&id].head {
            Head::Leaf(k) => Operand::Value(leaves.values[k as usize]),
            _ => Operand::Class(id),
        }
    };
    let opaque_operands = body_ops
        .iter()
        .enumerate()
        .filter(|(_, o)| !o.pure)
        .map(|(k, o)| (k, o.operands.iter().map(operand).collect()))
        .collect();
    let leaf_of = chosen
        .iter()
        .filter_map(|(&id, n)| match n.head {
            Head::Leaf(k) => Some((id, leaves.values[k as usize])),
            _ => None,
        })
        .collect();
    Some(Plan { steps, opaque_operands, term_operands: term_operands.iter().map(operand).collect(), leaf_of })
}

/// The leaves of the e-graph: the value each stands for and the opaque op
/// (body index) that defines it, `None` for an argument.
#[derive(Copy, Clone)]
struct Leaves<'a> {
    values: &'a [Value],
    owner: &'a [Option<usize>],
}

/// What an operand of a kept op reads in the rewritten body.
#[derive(Copy, Clone)]
enum Operand {
    Value(Value),
    Class(Id),
}

/// The rewritten body, in order.
struct Plan {
    steps: Vec<Step>,
    /// The operands of each opaque op (by body index) and of the terminator.
    opaque_operands: FxHashMap<usize, Vec<Operand>>,
    term_operands: Vec<Operand>,
    /// Classes whose chosen node is a leaf, and the leaf's value.
    leaf_of: FxHashMap<Id, Value>,
}

/// Writes the ordered graph into the body: new ops and moved opaque ops
/// before the terminator, in order; then the old pure ops go.
fn apply(ctx: &mut Context, body_ops: &[BodyOp], term_op: Op, plan: Plan) {
    let mut rw = Rewriter::new(ctx);
    rw.set_insertion_point(InsertPoint::Before(term_op));
    let mut value: FxHashMap<Id, Value> = plan.leaf_of;
    let mut tuple: FxHashMap<Id, Op> = FxHashMap::default();
    let read = |value: &FxHashMap<Id, Value>, o: &Operand| match *o {
        Operand::Value(v) => v,
        Operand::Class(id) => value[&id],
    };
    for step in plan.steps {
        match step {
            Step::Emit { class, name, attrs, types, loc, children } => {
                let mut st = OperationState::new(name, loc);
                st.operands = children.iter().map(|c| value[c]).collect();
                st.result_types = types.iter().copied().collect();
                st.attrs = attrs;
                let op = rw.create(st);
                if rw.num_results(op) == 1 {
                    value.insert(class, rw.result(op, 0));
                } else {
                    tuple.insert(class, op);
                }
            }
            Step::Project { class, of, index } => {
                let v = rw.result(tuple[&of], index);
                value.insert(class, v);
            }
            Step::Opaque(k) => {
                let op = body_ops[k].op;
                let operands: Vec<Value> = plan.opaque_operands[&k].iter().map(|o| read(&value, o)).collect();
                rw.set_operands(op, &operands);
                rw.move_before(op, term_op);
            }
        }
    }
    let operands: Vec<Value> = plan.term_operands.iter().map(|o| read(&value, o)).collect();
    rw.set_operands(term_op, &operands);
    for o in body_ops.iter().rev().filter(|o| o.pure) {
        if o.results.iter().all(|&r| !rw.has_uses(r)) {
            rw.erase_op(o.op);
        }
    }
}

struct Simplify {
    limits: Limits,
}

impl Pass for Simplify {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let funcs: Vec<Op> = if ctx.isa::<aot_dialects::func::FuncOp>(op) {
            vec![op]
        } else {
            ctx.nested_ops(op).into_iter().filter(|&o| ctx.isa::<aot_dialects::func::FuncOp>(o)).collect()
        };
        for f in funcs {
            let Some(r) = simplify_function(ctx, f, self.limits) else { continue };
            st.max_stat("egraph-nodes", r.enodes as u64);
            st.max_stat("egraph-classes", r.eclasses as u64);
            st.add_stat("iterations", r.iterations as u64);
            let stop = match r.stop {
                Some(Stop::Saturated) => "stop-saturated",
                Some(Stop::NodeLimit) => "stop-node-limit",
                Some(Stop::IterationLimit) => "stop-iteration-limit",
                Some(Stop::TimeLimit) => "stop-time-limit",
                None => "stop-empty",
            };
            st.add_stat(stop, 1);
            st.add_stat("num-rewrites", r.rewrites as u64);
            st.add_stat("ops-before", r.ops_before as u64);
            st.add_stat("ops-after", r.ops_after as u64);
            st.add_stat("cost-before", r.cost_before.round() as u64);
            st.add_stat("cost-after", r.cost_after.round() as u64);
            st.add_stat("functions-rewritten", u64::from(r.rewritten));
            st.add_stat("functions-unordered", u64::from(r.unordered));
        }
        Ok(())
    }
}

fn limits_from(o: &PassOptions) -> Result<Limits, String> {
    let positive = |name: &str| -> Result<u64, String> {
        u64::try_from(o.get_int(name))
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("option '{name}' must be positive"))
    };
    Ok(Limits {
        nodes: usize::try_from(positive("node-limit")?).unwrap_or(usize::MAX),
        iterations: usize::try_from(positive("iter-limit")?).unwrap_or(usize::MAX),
        time: Duration::from_millis(positive("time-limit-ms")?),
    })
}

inventory::submit! {
    PassInfo {
        argument: "simplify",
        name: "Simplify",
        summary: "Equality saturation (egg) over value-semantics functions, extracted by a cost model of bytes and flops",
        description: "Builds an e-graph of the function's pure ops (ops with effects, arguments and their results are \
opaque leaves; an op carrying a dialect-prefixed attribute such as aot.no_grad matches no rule), applies exact rules \
until saturation or a limit: view algebra (composed views become one reshape, transpose/permute, slice or expand, \
identity views vanish), scatter/view inverses, autodiff debris (x*1, x/1, x+-0.0, where(c,x,x), known conditions, \
-(-x), same-type casts, extrema over size-1 dims, sums of exactly summable splats), elementwise ops computed before a \
broadcast instead of after, and common subexpressions; then extracts the graph of least modelled cost (bytes moved \
plus flops/4 plus one per op) and writes it back, keeping ops with effects in order. Functions without value \
semantics are left alone; a function whose cheapest graph is its own is not touched.",
        anchor: None,
        options: &[
            PassOptionSpec {
                name: "node-limit",
                kind: OptionKind::Int,
                default: "100000",
                description: "Stop saturating when the e-graph holds this many e-nodes",
            },
            PassOptionSpec {
                name: "iter-limit",
                kind: OptionKind::Int,
                default: "16",
                description: "Stop saturating after this many iterations",
            },
            PassOptionSpec {
                name: "time-limit-ms",
                kind: OptionKind::Int,
                default: "1000",
                description: "Stop saturating after this many milliseconds (per function)",
            },
        ],
        statistics: &[
            StatisticSpec { name: "egraph-nodes", description: "E-nodes at the end of saturation (largest function)" },
            StatisticSpec { name: "egraph-classes", description: "E-classes at the end of saturation (largest function)" },
            StatisticSpec { name: "iterations", description: "Saturation iterations" },
            StatisticSpec { name: "stop-saturated", description: "Functions whose e-graph saturated" },
            StatisticSpec { name: "stop-node-limit", description: "Functions stopped by the e-node limit" },
            StatisticSpec { name: "stop-iteration-limit", description: "Functions stopped by the iteration limit" },
            StatisticSpec { name: "stop-time-limit", description: "Functions stopped by the time limit" },
            StatisticSpec { name: "stop-empty", description: "Functions without pure ops" },
            StatisticSpec { name: "num-rewrites", description: "Rule applications that changed the e-graph" },
            StatisticSpec { name: "ops-before", description: "Pure ops before" },
            StatisticSpec { name: "ops-after", description: "Pure ops after" },
            StatisticSpec { name: "cost-before", description: "Modelled cost of the pure ops before" },
            StatisticSpec { name: "cost-after", description: "Modelled cost of the pure ops after" },
            StatisticSpec { name: "functions-rewritten", description: "Functions rewritten" },
            StatisticSpec { name: "functions-unordered", description: "Functions left as they were: the extracted graph could not be ordered" },
        ],
        create: |o: &PassOptions| Ok(Box::new(Simplify { limits: limits_from(o)? })),
    }
}
