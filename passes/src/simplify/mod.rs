//! `simplify`: equality saturation over a value-semantics function with egg.
//!
//! The function's dataflow becomes an e-graph ([`lang`]): every pure op an
//! e-node, every value it cannot look into (arguments, results of ops with
//! effects) a leaf. The rules of [`rules`] are applied in rounds over
//! egg's `EGraph` ([`saturate`]) until nothing new is learnt or a limit
//! (e-nodes, rounds, time) is reached; the statistics say which. Then the
//! cheapest function is extracted under a cost model of bytes moved and
//! flops ([`lang::node_cost`]), not term size ([`Extraction`]), and written
//! back.
//!
//! What the rewrite preserves:
//! - ops with effects (stateful random draws, in-graph mutations of
//!   arguments, calls) keep their relative order, and each pure value is
//!   computed before its first user and after the effectful ops it reads;
//!   if the extracted graph cannot be ordered that way (a value chosen
//!   through an op that runs later), the function is left as it was;
//! - a value that a metadata mutation consumes (operand 0 of `set_`,
//!   `as_strided_`, `resize_`) is dead afterwards, and `as_strided` (and
//!   its scatter) place their layout in their operand's storage: so the op
//!   producing such a value stays an op of its own and its class is never
//!   merged with another;
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
use egg::Id;
use egg::Language;
use lang::{Facts, Graph, Head, TNode};
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
    /// The results' types.
    types: SmallVec<[Type; 1]>,
    /// The written result type of a pure op without type inference (part
    /// of its e-node, see [`TNode::ty`]).
    declared: Option<Type>,
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
            ctx.uses(r).all(|u| ctx.op_block(u.op) == Some(body) && !(u.index == 0 && keeps_operand(ctx, u.op)))
        })
}

/// Whether `op`'s first operand must stay the value it is, not merely one
/// equal to it: a metadata mutation kills it, and `as_strided` (and its
/// scatter) place their layout in the operand's storage, not relative to
/// the operand's own layout, so an equal value in another storage (`x` for
/// `where(c, x, x)`, an argument's view for a fresh intermediate) would
/// read other elements (fuzz seed 52296).
fn keeps_operand(ctx: &Context, op: Op) -> bool {
    ctx.has_trait(op, Traits::METADATA_MUTATION)
        || [aot_dialects::view::AsStridedOp::NAME, aot_dialects::view::AsStridedScatterOp::NAME]
            .contains(&ctx.op_name(op))
}

/// A rule resolved against a context: its root op names as ids.
struct Resolved {
    rule: &'static Rule,
    roots: SmallVec<[OpName; 4]>,
}

impl Resolved {
    fn new(ctx: &mut Context, index: usize) -> Resolved {
        // The registry is fixed once the program runs: each rule's root
        // names are found once.
        static ROOTS: std::sync::OnceLock<Vec<Vec<&'static str>>> = std::sync::OnceLock::new();
        let roots = ROOTS.get_or_init(|| {
            RULES
                .iter()
                .map(|r| match r.roots {
                    Roots::Ops(names) => names.to_vec(),
                    Roots::Where(pred) => {
                        aot_ir::registry::all_ops().into_iter().filter(|d| pred(d)).map(|d| d.name).collect()
                    }
                })
                .collect()
        });
        Resolved { rule: &RULES[index], roots: roots[index].iter().map(|n| ctx.op_name_id(n)).collect() }
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

/// How saturation ended.
struct Saturation {
    iterations: usize,
    stop: Stop,
    /// Applications that changed the e-graph, per rule (indexed like `RULES`).
    applied: Vec<usize>,
}

/// Applies the rules until nothing changes or a limit is reached. The
/// first round searches every class a rule is rooted at; later rounds only
/// the classes a union changed and their parents: every rule reads a class
/// and its operands' classes, so no other class can match anew (egg's
/// `Runner` searches the whole e-graph each round, which on a 2,000-op
/// joint graph costs more than the rest of the pipeline). The terms a
/// search finds are applied as found; each union is checked for type
/// equality and never touches a pinned class.
fn saturate(g: &mut Graph<'_>, rules: &[Resolved], limits: Limits) -> Saturation {
    let start = std::time::Instant::now();
    let mut applied = vec![0usize; rules.len()];
    let mut dirty: Option<FxHashSet<Id>> = None;
    let mut iterations = 0;
    g.rebuild();
    let stop = loop {
        if iterations >= limits.iterations {
            break Stop::IterationLimit;
        }
        if start.elapsed() > limits.time {
            break Stop::TimeLimit;
        }
        if g.total_size() > limits.nodes {
            break Stop::NodeLimit;
        }
        iterations += 1;
        // Search: every (rule, class, term) found, before anything changes.
        let mut found: Vec<(usize, Id, Term)> = Vec::new();
        for (r, rule) in rules.iter().enumerate() {
            let mut classes: Vec<Id> = Vec::new();
            for name in &rule.roots {
                if let Some(ids) = g.classes_for_op(&Head::Op(*name)) {
                    classes.extend(ids.filter(|id| dirty.as_ref().is_none_or(|d| d.contains(id))));
                }
            }
            classes.sort_unstable();
            classes.dedup();
            for id in classes {
                found.extend(rule.terms(g, id).into_iter().map(|t| (r, id, t)));
            }
        }
        // Apply.
        let mut changed: Vec<Id> = Vec::new();
        for (r, id, term) in found {
            let Some(new) = add_term(g, &term) else { continue };
            let (a, b) = (g.find(id), g.find(new));
            // Only values of one type are equal; a term whose inferred type
            // differs (a rule meeting type promotion) is dropped.
            if a == b || g[a].data.ty().is_none() || g[a].data.ty() != g[b].data.ty() || pinned(g, a) || pinned(g, b) {
                continue;
            }
            if g.union(a, b) {
                applied[r] += 1;
                changed.push(a);
            }
            if g.total_size() > limits.nodes {
                break;
            }
        }
        g.rebuild();
        if changed.is_empty() {
            break Stop::Saturated;
        }
        let mut next: FxHashSet<Id> = FxHashSet::default();
        for id in changed {
            let c = g.find(id);
            next.insert(c);
            next.extend(g[c].parents().map(|p| g.find(p)));
        }
        dirty = Some(next);
    };
    Saturation { iterations, stop, applied }
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
        let pure = is_pure_node(ctx, op, body);
        let types: SmallVec<[Type; 1]> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
        let inferred = ctx.op_def(op).is_some_and(|d| d.infer.is_some());
        body_ops.push(BodyOp {
            op,
            name: ctx.op_name_of(op),
            attrs: ctx.attrs(op).to_vec(),
            operands: ctx.operand_vec(op),
            results: ctx.results(op).iter().copied().collect(),
            declared: (pure && !inferred).then(|| types[0]),
            types,
            loc: ctx.op_loc(op),
            pure,
        });
    }
    let term_operands = ctx.operand_vec(term_op);
    let mut report = Report { ops_before: body_ops.iter().filter(|o| o.pure).count(), ..Report::default() };
    if report.ops_before == 0 {
        return Some(report);
    }
    // Values consumed by a metadata mutation or placed in by `as_strided`.
    let killed: FxHashSet<Value> =
        body_ops.iter().filter(|o| keeps_operand(ctx, o.op)).filter_map(|o| o.operands.first().copied()).collect();
    let arg_types: Vec<Type> = args.iter().map(|&a| ctx.value_type(a)).collect();
    let rules: Vec<Resolved> = (0..RULES.len()).map(|i| Resolved::new(ctx, i)).collect();
    let mut egraph = Graph::new(Facts::new(ctx));
    let g = &mut egraph;
    let mut class_of: FxHashMap<Value, Id> = FxHashMap::default();
    // What each leaf stands for.
    let mut leaf_values: Vec<Value> = Vec::new();
    // The opaque op (body index) whose result each leaf is; `None`: an
    // argument.
    let mut leaf_owner: Vec<Option<usize>> = Vec::new();
    let mut add_leaf = |g: &mut Graph<'_>, v: Value, ty: Type, owner: Option<usize>, pinned: bool| -> Id {
        let k = leaf_values.len() as u32;
        leaf_values.push(v);
        leaf_owner.push(owner);
        g.analysis.leaf_types.push(ty);
        if pinned {
            g.analysis.pinned.insert(k);
        }
        let attrs = g.analysis.intern_attrs(Vec::new());
        g.add(TNode { head: Head::Leaf(k), attrs, ty: None, children: SmallVec::new() })
    };
    for (&a, &t) in args.iter().zip(&arg_types) {
        let id = add_leaf(g, a, t, None, killed.contains(&a));
        class_of.insert(a, id);
    }
    // (body op index, its node, its class) of every pure op.
    let mut original: Vec<(usize, TNode, Id)> = Vec::new();
    let mut first_op_of: FxHashMap<Id, usize> = FxHashMap::default();
    for (k, o) in body_ops.iter().enumerate() {
        if !o.pure {
            for (&r, &t) in o.results.iter().zip(&o.types) {
                let id = add_leaf(g, r, t, Some(k), killed.contains(&r));
                class_of.insert(r, id);
            }
            continue;
        }
        let attrs = g.analysis.intern_sorted(&o.attrs);
        let children = o.operands.iter().map(|v| class_of[v]).collect();
        let node = TNode { head: Head::Op(o.name), attrs, ty: o.declared, children };
        g.analysis.known = Some(o.types.clone());
        let id = g.add(node.clone());
        g.analysis.known = None;
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

    let sat = saturate(g, &rules, limits);
    let g = &egraph;
    report.enodes = g.total_number_of_nodes();
    report.eclasses = g.number_of_classes();
    report.iterations = sat.iterations;
    report.rewrites = sat.applied.iter().sum();
    report.fired = RULES.iter().zip(&sat.applied).filter(|(_, &n)| n > 0).map(|(r, _)| r.name).collect();
    report.stop = Some(sat.stop);
    let dense = Dense::new(g, &original);
    let ex = Extraction::new(g, &dense);
    report.cost_before = original.iter().map(|&(_, _, id)| ex.own[dense.original_node(g, id)]).sum();
    let leaves = Leaves { values: &leaf_values, owner: &leaf_owner };
    let plan = plan(g, &dense, &ex, &body_ops, &term_operands, &class_of, &first_op_of, leaves, &mut report);
    let ctx = egraph.analysis.ctx;
    let Some(plan) = plan else { return Some(report) };
    apply(ctx, &body_ops, term_op, plan);
    report.rewritten = true;
    Some(report)
}

/// Dense numbering of the saturated e-graph: classes `0..C` and their
/// nodes, for the extraction and the plan (hash maps per node cost more
/// than the whole saturation on large graphs).
struct Dense<'g> {
    classes: Vec<Id>,
    /// Class id -> dense class; `u32::MAX` for a non-canonical id.
    index: Vec<u32>,
    /// First global node index of each dense class, and one past the end.
    offsets: Vec<u32>,
    nodes: Vec<&'g TNode>,
    /// The original op (body index) whose node each global node is.
    op_of: Vec<Option<usize>>,
}

impl<'g> Dense<'g> {
    fn new(g: &'g Graph<'_>, original: &[(usize, TNode, Id)]) -> Dense<'g> {
        let classes: Vec<Id> = g.classes().map(|c| c.id).collect();
        let max = classes.iter().map(|&id| usize::from(id)).max().unwrap_or(0);
        let mut index = vec![u32::MAX; max + 1];
        let mut offsets = Vec::with_capacity(classes.len() + 1);
        let mut nodes = Vec::with_capacity(g.total_number_of_nodes());
        for (i, &id) in classes.iter().enumerate() {
            index[usize::from(id)] = i as u32;
            offsets.push(nodes.len() as u32);
            nodes.extend(g[id].nodes.iter());
        }
        offsets.push(nodes.len() as u32);
        let mut d = Dense { classes, index, offsets, nodes, op_of: Vec::new() };
        d.op_of = vec![None; d.nodes.len()];
        for (k, n, id) in original {
            let canonical = n.clone().map_children(|c| g.find(c));
            let c = d.class(g, *id);
            let range = d.offsets[c] as usize..d.offsets[c + 1] as usize;
            if let Some(i) = range.clone().find(|&i| *d.nodes[i] == canonical) {
                d.op_of[i].get_or_insert(*k);
            }
        }
        d
    }

    /// The dense class of (any id of) a class.
    fn class(&self, g: &Graph<'_>, id: Id) -> usize {
        self.index[usize::from(g.find(id))] as usize
    }

    /// The global index of the node an original op's class holds for it.
    fn original_node(&self, g: &Graph<'_>, id: Id) -> usize {
        let c = self.class(g, id);
        (self.offsets[c] as usize..self.offsets[c + 1] as usize)
            .find(|&i| self.op_of[i].is_some())
            .unwrap_or(self.offsets[c] as usize)
    }
}

/// The cheapest node of every class, by tree cost (a node's own cost, see
/// [`lang::node_cost`], plus its operands' classes' costs), found by
/// Knuth's generalization of Dijkstra's algorithm: a class is settled when
/// its cheapest candidate leaves the queue, and a node becomes a candidate
/// once all its operands are settled. O(E log E), where a fixpoint over the
/// classes (egg's `Extractor`) takes as many passes as the graph is deep.
/// Among equal costs, a node the function had wins, then the lower index.
struct Extraction {
    /// Own cost of every node (infinite: not extractable).
    own: Vec<f64>,
    /// Per dense class: its tree cost and chosen node.
    best: Vec<Option<(f64, u32)>>,
}

impl Extraction {
    fn new(g: &Graph<'_>, d: &Dense<'_>) -> Extraction {
        #[derive(PartialEq)]
        struct Key(f64, bool, u32);
        impl Eq for Key {}
        impl PartialOrd for Key {
            fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for Key {
            fn cmp(&self, o: &Self) -> std::cmp::Ordering {
                self.0.total_cmp(&o.0).then(self.1.cmp(&o.1)).then(self.2.cmp(&o.2))
            }
        }
        let n = d.nodes.len();
        let mut class_of = vec![0u32; n];
        for c in 0..d.classes.len() {
            class_of[d.offsets[c] as usize..d.offsets[c + 1] as usize].fill(c as u32);
        }
        let mut own = vec![f64::INFINITY; n];
        let mut pending = vec![0u32; n];
        // Parents as CSR: for each class, the nodes that read it.
        let mut count = vec![0u32; d.classes.len() + 1];
        for (i, node) in d.nodes.iter().enumerate() {
            let data = &g[d.classes[class_of[i] as usize]].data;
            let operands: Option<Vec<&TensorType>> = match node.head {
                Head::Op(_) => {
                    node.children.iter().map(|&c| g[c].data.ty().and_then(|t| g.analysis.tensor(t))).collect()
                }
                _ => Some(Vec::new()),
            };
            own[i] = operands.and_then(|o| lang::node_cost(&g.analysis, node, data, &o)).unwrap_or(f64::INFINITY);
            pending[i] = node.children.len() as u32;
            for &c in &node.children {
                count[d.class(g, c) + 1] += 1;
            }
        }
        for c in 0..d.classes.len() {
            count[c + 1] += count[c];
        }
        let mut fill = count.clone();
        let mut parents = vec![0u32; count[d.classes.len()] as usize];
        for (i, node) in d.nodes.iter().enumerate() {
            for &c in &node.children {
                let c = d.class(g, c);
                parents[fill[c] as usize] = i as u32;
                fill[c] += 1;
            }
        }
        let is_new = |i: usize| matches!(d.nodes[i].head, Head::Op(_)) && d.op_of[i].is_none();
        let mut queue: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
        for i in 0..n {
            if pending[i] == 0 && own[i].is_finite() {
                queue.push(Reverse(Key(own[i], is_new(i), i as u32)));
            }
        }
        let mut best: Vec<Option<(f64, u32)>> = vec![None; d.classes.len()];
        while let Some(Reverse(Key(cost, _, i))) = queue.pop() {
            let c = class_of[i as usize] as usize;
            if best[c].is_some() {
                continue;
            }
            best[c] = Some((cost, i));
            for &p in &parents[count[c] as usize..count[c + 1] as usize] {
                let p = p as usize;
                pending[p] -= 1;
                if pending[p] > 0 || best[class_of[p] as usize].is_some() {
                    continue;
                }
                let total = d.nodes[p]
                    .children
                    .iter()
                    .try_fold(own[p], |acc, &ch| best[d.class(g, ch)].map(|(cc, _)| acc + cc));
                if let Some(total) = total.filter(|t| t.is_finite()) {
                    queue.push(Reverse(Key(total, is_new(p), p as u32)));
                }
            }
        }
        Extraction { own, best }
    }
}

/// One step of the rewritten body.
enum Step {
    /// Create the op of (dense) class `class`.
    Emit {
        class: usize,
        name: OpName,
        attrs: Vec<NamedAttr>,
        types: SmallVec<[Type; 1]>,
        loc: Location,
        children: SmallVec<[usize; 3]>,
    },
    /// Keep original op `k` (body index) for class `class`, reading `children`.
    Keep { class: usize, k: usize, children: SmallVec<[usize; 3]> },
    /// Class `class` is result `index` of class `of`'s op.
    Project { class: usize, of: usize, index: usize },
    /// Move opaque op `k` (body index) here.
    Opaque(usize),
}

/// Orders the extracted graph; `None` when it is the original graph or
/// cannot be ordered (see the module comment).
#[allow(clippy::too_many_arguments)]
fn plan(
    g: &Graph<'_>,
    d: &Dense<'_>,
    ex: &Extraction,
    body_ops: &[BodyOp],
    term_operands: &[Value],
    class_of: &FxHashMap<Value, Id>,
    first_op_of: &FxHashMap<Id, usize>,
    leaves: Leaves<'_>,
    report: &mut Report,
) -> Option<Plan> {
    let nc = d.classes.len();
    let end = body_ops.len();
    // First original op of each dense class.
    let mut first = vec![usize::MAX; nc];
    for (&id, &k) in first_op_of {
        let c = d.class(g, id);
        first[c] = first[c].min(k);
    }
    // The chosen node of every class some root needs, from the roots down,
    // with the position it is needed at (rank) and a location.
    let mut chosen: Vec<Option<u32>> = vec![None; nc];
    let mut rank = vec![usize::MAX; nc];
    let mut loc: Vec<Option<Location>> = vec![None; nc];
    let mut stack: Vec<(usize, usize, Location)> = Vec::new();
    let term_loc = body_ops.last().map_or_else(|| g.analysis.ctx.unknown_loc(), |o| o.loc);
    for (k, o) in body_ops.iter().enumerate().filter(|(_, o)| !o.pure) {
        stack.extend(o.operands.iter().map(|v| (d.class(g, class_of[v]), k, o.loc)));
    }
    stack.extend(term_operands.iter().map(|v| (d.class(g, class_of[v]), end, term_loc)));
    let mut needed: Vec<usize> = Vec::new();
    while let Some((c, user_rank, user_loc)) = stack.pop() {
        let r = if first[c] == usize::MAX { user_rank } else { first[c] };
        if chosen[c].is_some() {
            rank[c] = rank[c].min(r);
            continue;
        }
        rank[c] = r;
        let l = if first[c] == usize::MAX { user_loc } else { body_ops[first[c]].loc };
        loc[c] = Some(l);
        let i = ex.best[c]?.1;
        chosen[c] = Some(i);
        needed.push(c);
        let node = d.nodes[i as usize];
        if !matches!(node.head, Head::Leaf(_)) {
            stack.extend(node.children.iter().map(|&ch| (d.class(g, ch), r, l)));
        }
    }
    let is_op = |c: usize| chosen[c].is_some_and(|i| matches!(d.nodes[i as usize].head, Head::Op(_)));
    report.ops_after = needed.iter().filter(|&&c| is_op(c)).count();
    report.cost_after = needed.iter().filter(|&&c| is_op(c)).map(|&c| ex.own[chosen[c].unwrap_or(0) as usize]).sum();
    // The value each class stands for, where it is an original value.
    let value_of = |c: usize| -> Option<Value> {
        let i = chosen[c]? as usize;
        match d.nodes[i].head {
            Head::Leaf(k) => Some(leaves.values[k as usize]),
            Head::Op(_) => d.op_of[i].filter(|&k| body_ops[k].results.len() == 1).map(|k| body_ops[k].results[0]),
            Head::Proj(p) => {
                let t = chosen[d.class(g, d.nodes[i].children[0])]? as usize;
                d.op_of[t].map(|k| body_ops[k].results[p as usize])
            }
        }
    };
    // Unchanged: every chosen op is an original op reading its own operands,
    // and every original op is chosen (none merged into another, none dead).
    let kept_ops: FxHashSet<usize> =
        needed.iter().filter_map(|&c| chosen[c].and_then(|i| d.op_of[i as usize])).collect();
    let pure_ops = body_ops.iter().filter(|o| o.pure).count();
    let reads_own = |c: usize| -> bool {
        let i = chosen[c].unwrap_or(0) as usize;
        let Some(k) = d.op_of[i] else { return false };
        d.nodes[i].children.iter().zip(&body_ops[k].operands).all(|(&ch, &v)| value_of(d.class(g, ch)) == Some(v))
    };
    let roots_read_own = body_ops
        .iter()
        .filter(|o| !o.pure)
        .flat_map(|o| o.operands.iter())
        .chain(term_operands)
        .all(|&v| value_of(d.class(g, class_of[&v])) == Some(v));
    let unchanged = kept_ops.len() == pure_ops
        && report.ops_after == pure_ops
        && needed.iter().filter(|&&c| is_op(c)).all(|&c| reads_own(c))
        && roots_read_own;
    if unchanged {
        report.cost_after = report.cost_before;
        return None;
    }

    // Kahn's algorithm, earliest original position first: items are the
    // needed non-leaf classes (0..nc) and the opaque ops (nc + k); classes
    // wait for their operands (a leaf of an opaque op waits for that op),
    // opaque ops for their operands and the previous opaque op.
    let item_count = nc + end;
    let mut waiting = vec![0u32; item_count];
    let dep = |c: usize| -> Option<usize> {
        let i = chosen[c]? as usize;
        match d.nodes[i].head {
            Head::Leaf(k) => leaves.owner[k as usize].map(|op| nc + op),
            _ => Some(c),
        }
    };
    // Edges (from, to): `to` waits for `from`.
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut items: Vec<usize> = Vec::new();
    for &c in &needed {
        let node = d.nodes[chosen[c].unwrap_or(0) as usize];
        if matches!(node.head, Head::Leaf(_)) {
            continue;
        }
        items.push(c);
        edges.extend(node.children.iter().filter_map(|&ch| dep(d.class(g, ch))).map(|from| (from as u32, c as u32)));
    }
    let mut previous: Option<usize> = None;
    for (k, o) in body_ops.iter().enumerate().filter(|(_, o)| !o.pure) {
        let it = nc + k;
        items.push(it);
        if let Some(p) = previous {
            edges.push(((nc + p) as u32, it as u32));
        }
        edges.extend(
            o.operands.iter().filter_map(|v| dep(d.class(g, class_of[v]))).map(|from| (from as u32, it as u32)),
        );
        previous = Some(k);
    }
    let mut start = vec![0u32; item_count + 1];
    for &(from, to) in &edges {
        start[from as usize + 1] += 1;
        waiting[to as usize] += 1;
    }
    for i in 0..item_count {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut users = vec![0u32; edges.len()];
    for &(from, to) in &edges {
        users[fill[from as usize] as usize] = to;
        fill[from as usize] += 1;
    }
    let key = |it: usize| if it >= nc { (it - nc, 0, it) } else { (rank[it], 1, it) };
    // (position, opaque ops before classes, index), item.
    type Ready = Reverse<((usize, usize, usize), usize)>;
    let mut ready: BinaryHeap<Ready> =
        items.iter().filter(|&&it| waiting[it] == 0).map(|&it| Reverse((key(it), it))).collect();
    let mut steps = Vec::with_capacity(items.len());
    while let Some(Reverse((_, it))) = ready.pop() {
        if it >= nc {
            steps.push(Step::Opaque(it - nc));
        } else {
            let i = chosen[it].unwrap_or(0) as usize;
            let node = d.nodes[i];
            let children: SmallVec<[usize; 3]> = node.children.iter().map(|&ch| d.class(g, ch)).collect();
            steps.push(match (node.head, d.op_of[i]) {
                (Head::Proj(p), _) => Step::Project { class: it, of: children[0], index: p as usize },
                (Head::Op(_), Some(k)) => Step::Keep { class: it, k, children },
                (Head::Op(name), None) => Step::Emit {
                    class: it,
                    name,
                    attrs: g.analysis.attrs(node.attrs).to_vec(),
                    types: g[d.classes[it]].data.types.clone(),
                    loc: loc[it].unwrap_or(term_loc),
                    children,
                },
                (Head::Leaf(_), _) => unreachable!("leaves are not items"),
            });
        }
        for &u in &users[start[it] as usize..start[it + 1] as usize] {
            let u = u as usize;
            waiting[u] -= 1;
            if waiting[u] == 0 {
                ready.push(Reverse((key(u), u)));
            }
        }
    }
    if steps.len() != items.len() {
        report.unordered = true;
        return None;
    }
    // What each operand of an opaque op or the terminator reads.
    let operand = |v: &Value| -> Operand {
        let c = d.class(g, class_of[v]);
        match d.nodes[chosen[c].unwrap_or(0) as usize].head {
            Head::Leaf(k) => Operand::Value(leaves.values[k as usize]),
            _ => Operand::Class(c),
        }
    };
    let opaque_operands = body_ops
        .iter()
        .enumerate()
        .filter(|(_, o)| !o.pure)
        .map(|(k, o)| (k, o.operands.iter().map(operand).collect()))
        .collect();
    let leaf_of = needed
        .iter()
        .filter_map(|&c| match d.nodes[chosen[c]? as usize].head {
            Head::Leaf(k) => Some((c, leaves.values[k as usize])),
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
    Class(usize),
}

/// The rewritten body, in order.
struct Plan {
    steps: Vec<Step>,
    /// The operands of each opaque op (by body index) and of the terminator.
    opaque_operands: FxHashMap<usize, Vec<Operand>>,
    term_operands: Vec<Operand>,
    /// Classes whose chosen node is a leaf, and the leaf's value.
    leaf_of: FxHashMap<usize, Value>,
}

/// Writes the ordered graph into the body: kept and new ops and moved
/// opaque ops before the terminator, in order; then the pure ops no longer
/// used go.
fn apply(ctx: &mut Context, body_ops: &[BodyOp], term_op: Op, plan: Plan) {
    let mut rw = Rewriter::new(ctx);
    rw.set_insertion_point(InsertPoint::Before(term_op));
    let mut value: FxHashMap<usize, Value> = plan.leaf_of;
    let mut tuple: FxHashMap<usize, Op> = FxHashMap::default();
    let read = |value: &FxHashMap<usize, Value>, o: &Operand| match *o {
        Operand::Value(v) => v,
        Operand::Class(c) => value[&c],
    };
    let define = |rw: &Rewriter<'_>,
                  value: &mut FxHashMap<usize, Value>,
                  tuple: &mut FxHashMap<usize, Op>,
                  class: usize,
                  op: Op| {
        if rw.num_results(op) == 1 {
            value.insert(class, rw.result(op, 0));
        } else {
            tuple.insert(class, op);
        }
    };
    for step in plan.steps {
        match step {
            Step::Emit { class, name, attrs, types, loc, children } => {
                let mut st = OperationState::new(name, loc);
                st.operands = children.iter().map(|c| value[c]).collect();
                st.result_types = types.iter().copied().collect();
                st.attrs = attrs;
                let op = rw.create(st);
                define(&rw, &mut value, &mut tuple, class, op);
            }
            Step::Keep { class, k, children } => {
                let op = body_ops[k].op;
                let operands: SmallVec<[Value; 4]> = children.iter().map(|c| value[c]).collect();
                if rw.operand_vec(op) != operands {
                    rw.set_operands(op, &operands);
                }
                rw.move_before(op, term_op);
                define(&rw, &mut value, &mut tuple, class, op);
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
    // The pure ops the plan did not keep are unused now (a kept op has a
    // user: every class the plan orders is read by a later step or a root);
    // users come after their operands, so reverse order erases whole chains.
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
