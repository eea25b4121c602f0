//! `flatten-subclasses`: tensor subclasses to their dense inner tensors,
//! AOTAutograd's `subclass_utils` as a pass.
//!
//! A function whose arguments, results or values are subclass values
//! (`!aot.subclass<@C, T>`) becomes a function over dense tensors only:
//!
//! - each subclass argument becomes its leaves, the dense tensors reached by
//!   flattening it recursively in declaration order (a nested class is
//!   flattened in place), each of the outer type `T`; results likewise;
//! - an op with subclass operands is applied once per leaf, in leaf order
//!   (TwoTensor's `__torch_dispatch__`: component `a` first, then `b`), dense
//!   operands shared by every copy. Views therefore alias per component,
//!   in-place ops write per component, metadata mutations (`t_`) change each
//!   component, and random ops draw per component in order;
//! - `aot.subclass_wrap` and `aot.subclass_unwrap` disappear: a wrapped
//!   value's leaves are its operands' leaves, an unwrapped component is
//!   the matching range of leaves.
//!
//! How to rebuild the user's arguments and results from the dense ones is
//! recorded as `aot.subclass_plan` (upstream's `SubclassCreationMeta` per
//! input and output: class, first dense position, leaf count, outer type,
//! constant metadata, nested plans). Later passes see only dense tensors,
//! so a mutation of a subclass input is a mutation of its inner tensors,
//! aliasing is tracked per component, and the duplicate, overlap and
//! metadata-mutation conventions that upstream refuses for subclasses
//! (pytorch#114975) are the dense conventions of the inner tensors.
//!
//! A dense argument read by the components of a dispatched op (`x * w`,
//! `x` a TwoTensor, `w` dense) gets from PyTorch a *subclass* gradient, one
//! component per use; the dense graph would sum them. So such an argument
//! is replicated: one more dense argument per leaf (after all the others,
//! `SubclassPlan::replicas`), and each component's use reads its replica
//! through copies of the dense ops between (views, pure ops). The runtime
//! passes the argument's values as each replica and adds the dense uses'
//! gradient to each replica's, which is PyTorch's accumulation of a dense
//! and a subclass gradient. Replication needs the argument not to be
//! written (a replica would miss the write) and the ops between to be
//! plain dense ops without draws; an argument that cannot be replicated is
//! listed in `shared_with_components` and must not require grad (the pass
//! refuses one declared `aot.requires_grad`, the runtime a call that makes
//! it require grad), so the difference is never a wrong answer.

use aot_dialects::func::{FuncOp, FuncView, NON_LEAF, REQUIRES_GRAD};
use aot_dialects::subclass::{enclosing_module, ClassDecl, Classes, UnwrapOp, WrapOp};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::rewriter::InsertPoint;
use aot_ir::*;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

pub const PLAN_ATTR: &str = "aot.subclass_plan";

crate::record! {
    /// How one argument or result of the function before flattening is
    /// built from the dense ones (upstream's `SubclassCreationMeta`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct SubclassCreation = "aot.subclass_meta" {
        /// The class, or `""` for a dense tensor.
        pub class: String,
        /// The first dense position it covers.
        pub start: usize,
        /// How many dense positions (leaves) it covers.
        pub count: usize,
        /// The outer tensor type.
        pub ty: Type => "type",
        /// The class's constant metadata.
        pub meta: Option<Attribute>,
        /// One entry per inner tensor (empty for a dense tensor).
        pub inner: Vec<SubclassCreation> as nested_list,
    }
    check = |v: &SubclassCreation| v.check();
}

impl SubclassCreation {
    pub fn is_dense(&self) -> bool {
        self.class.is_empty()
    }

    fn check(&self) -> Result<(), String> {
        if self.is_dense() {
            if self.count != 1 || !self.inner.is_empty() {
                return Err("a dense entry covers exactly one position and has no inner entries".into());
            }
            return Ok(());
        }
        let mut next = self.start;
        for i in &self.inner {
            if i.start != next {
                return Err(format!("inner entries of @{} must cover consecutive positions", self.class));
            }
            next = next.checked_add(i.count).ok_or("position overflow")?;
        }
        if self.inner.is_empty() || next != self.start + self.count {
            return Err(format!("the inner entries of @{} must cover its {} positions", self.class, self.count));
        }
        Ok(())
    }

    /// The dense positions it covers.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.count
    }
}

crate::record! {
    /// A dense argument replicated per component: the replicas' dense
    /// positions, laid out as a value of the dispatch class.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct SubclassReplica = "aot.subclass_replica" {
        /// The argument (index before flattening).
        pub arg: usize,
        pub creation: SubclassCreation as nested,
    }
}

crate::record! {
    /// The wrapping plan of a flattened function.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct SubclassPlan = "aot.subclass_plan" {
        pub inputs: Vec<SubclassCreation> as nested_list,
        pub outputs: Vec<SubclassCreation> as nested_list,
        /// Dense arguments read by the components of dispatched ops through
        /// replicas (after the other dense arguments, in this order).
        pub replicas: Vec<SubclassReplica> as nested_list,
        /// Dense arguments (indices before flattening) whose values are
        /// shared by the components of a dispatched op and could not be
        /// replicated: they must not require grad (see the module
        /// documentation).
        pub shared_with_components: Vec<usize>,
    }
    check = |v: &SubclassPlan| {
        for list in [&v.inputs, &v.outputs] {
            let mut next = 0;
            for e in list.iter() {
                if e.start != next {
                    return Err("entries must cover consecutive dense positions".to_string());
                }
                next += e.count;
            }
        }
        let mut next = v.inputs.last().map_or(0, |e| e.start + e.count);
        for r in &v.replicas {
            if r.creation.start != next || r.arg >= v.inputs.len() || !v.inputs[r.arg].is_dense() {
                return Err("replicas must follow the inputs and replicate dense arguments".to_string());
            }
            next += r.creation.count;
        }
        if v.shared_with_components.iter().any(|&i| i >= v.inputs.len() || !v.inputs[i].is_dense()) {
            return Err("'shared_with_components' must name dense arguments".to_string());
        }
        Ok(())
    };
}

impl SubclassPlan {
    /// The plan recorded on `func`, if it was flattened.
    pub fn of(ctx: &Context, func: Op) -> Result<Option<SubclassPlan>, String> {
        ctx.get_attr(func, PLAN_ATTR).map(|a| SubclassPlan::from_attr(ctx, a)).transpose()
    }

    /// Refuses a dense call (`convention`, the convention of the dense
    /// arguments) in which a dense argument read by the components of a
    /// dispatched op requires grad but has no gradient of its own per
    /// component: it could not be replicated, or its replicas are
    /// duplicates of it (`same_as`).
    pub fn check_shared(&self, convention: &crate::convention::Convention) -> Result<(), String> {
        let requires_grad = convention.requires_grad();
        let duplicated =
            |r: &SubclassCreation| r.range().any(|d| convention.args.get(d).is_some_and(|a| a.same_as.is_some()));
        let replicas = self.replicas.iter().filter(|r| duplicated(&r.creation)).map(|r| r.arg);
        for i in self.shared_with_components.iter().copied().chain(replicas) {
            if requires_grad.get(self.inputs[i].start).copied().unwrap_or(false) {
                return Err(shared_arg_message(i));
            }
        }
        Ok(())
    }

    /// Number of dense arguments, replicas included.
    pub fn num_dense_inputs(&self) -> usize {
        let regular = self.inputs.last().map_or(0, |e| e.start + e.count);
        regular + self.replicas.iter().map(|r| r.creation.count).sum::<usize>()
    }

    /// For each dense argument, the user argument it belongs to.
    pub fn input_owner(&self) -> Vec<usize> {
        let mut owner = Vec::with_capacity(self.num_dense_inputs());
        for (i, e) in self.inputs.iter().enumerate() {
            owner.extend(std::iter::repeat_n(i, e.count));
        }
        for r in &self.replicas {
            owner.extend(std::iter::repeat_n(r.arg, r.creation.count));
        }
        owner
    }

    /// The replicas of user argument `i`, if it has them.
    pub fn replica_of(&self, i: usize) -> Option<&SubclassCreation> {
        self.replicas.iter().find(|r| r.arg == i).map(|r| &r.creation)
    }
}

/// Whether `func`'s signature or body has a subclass value (a declaration
/// has only its signature).
pub fn has_subclass_values(ctx: &Context, func: Op) -> bool {
    let Some(f) = FuncView::new(ctx, func) else { return false };
    let (ins, outs) = f.function_type(ctx);
    ins.iter().chain(&outs).any(|&t| ctx.type_data(t).as_subclass().is_some())
        || registry::first_subclass_value(ctx, func).is_some()
}

/// The plan entry of a value of type `t` whose leaves start at `start`.
fn creation(ctx: &mut Context, classes: &Classes, t: Type, start: usize) -> SubclassCreation {
    let class = ctx.type_data(t).as_subclass().and_then(|s| classes.get(&s.class));
    let Some(d) = class else {
        return SubclassCreation { class: String::new(), start, count: 1, ty: t, meta: None, inner: Vec::new() };
    };
    let tensor = ctx.type_data(t).as_tensor().cloned().expect("a subclass type has an outer tensor");
    let dense_ty = ctx.intern_type(TypeData::Tensor(tensor));
    class_creation(classes, d, dense_ty, start)
}

/// The plan entry of a value of class `d` (outer type `dense_ty`).
fn class_creation(classes: &Classes, d: &ClassDecl, dense_ty: Type, start: usize) -> SubclassCreation {
    let mut inner = Vec::new();
    let mut at = start;
    for c in &d.inner_classes {
        let e = match c.as_deref().and_then(|c| classes.get(c)) {
            Some(nested) => class_creation(classes, nested, dense_ty, at),
            None => SubclassCreation {
                class: String::new(),
                start: at,
                count: 1,
                ty: dense_ty,
                meta: None,
                inner: Vec::new(),
            },
        };
        at += e.count;
        inner.push(e);
    }
    SubclassCreation { class: d.name.clone(), start, count: at - start, ty: dense_ty, meta: d.meta, inner }
}

/// A set of argument indices as a bit set.
#[derive(Clone, Default, PartialEq, Eq)]
struct ArgSet(SmallVec<[u64; 2]>);

impl ArgSet {
    fn single(i: usize) -> ArgSet {
        let mut s = ArgSet(SmallVec::from_elem(0, i / 64 + 1));
        s.0[i / 64] |= 1 << (i % 64);
        s
    }
    /// Adds `o`; true if this set grew.
    fn union(&mut self, o: &ArgSet) -> bool {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | b;
            grew |= n != *a;
            *a = n;
        }
        grew
    }
    fn intersects(&self, o: &ArgSet) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    fn members(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(w, &bits)| (0..64).filter(move |b| bits >> b & 1 == 1).map(move |b| w * 64 + b))
    }
}

/// How dense arguments meet the components of dispatched ops.
struct Sharing {
    /// The arguments each value depends on (see `sharing`).
    dep: FxHashMap<Value, ArgSet>,
    /// Arguments whose value reaches a dense operand of a dispatched op and
    /// that are replicated per component (with the dispatch class).
    replicated: Vec<(usize, String)>,
    /// The other such arguments: they must not require grad.
    shared: Vec<usize>,
}

fn is_dispatched(ctx: &Context, op: Op) -> bool {
    !ctx.has_trait(op, Traits::SUBCLASS_RULES)
        && ctx.operands(op).any(|v| ctx.type_data(ctx.value_type(v)).as_subclass().is_some())
}

/// Which dense arguments reach a dense operand of a dispatched op, and
/// which of those can be replicated per component. Dependencies flow
/// through every op (subclass values, wraps and unwraps included), and an
/// op that aliases or mutates its first operand joins its first operand
/// and results (a write through a view changes the base), iterated to a
/// fixed point. An argument is replicated when every such use is by ops of
/// one class, nothing that depends on it is mutated or drawn from (a
/// replica would miss the write, or draw again), and every op between it
/// and those uses is a plain dense op (no subclass value, wrap or unwrap
/// on the way): then each component's use can read a copy of the argument
/// through copies of those ops, and the copy's gradient is that
/// component's, as PyTorch's subclass gradient of the argument has it.
fn sharing(ctx: &Context, body: &[Op], args: &[Value]) -> Sharing {
    let mut dep: FxHashMap<Value, ArgSet> = FxHashMap::default();
    for (i, &a) in args.iter().enumerate() {
        if ctx.type_data(ctx.value_type(a)).as_subclass().is_none() {
            dep.insert(a, ArgSet::single(i));
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &op in body {
            let mut s = ArgSet::default();
            for v in ctx.operands(op) {
                if let Some(d) = dep.get(&v) {
                    s.union(d);
                }
            }
            let joins = ctx.has_trait(op, Traits::VIEW)
                || ctx.has_trait(op, Traits::INPLACE)
                || ctx.has_trait(op, Traits::METADATA_MUTATION);
            if joins {
                for &r in ctx.results(op) {
                    if let Some(d) = dep.get(&r) {
                        s.union(d);
                    }
                }
                if ctx.num_operands(op) > 0 {
                    changed |= dep.entry(ctx.operand(op, 0)).or_default().union(&s);
                }
            }
            for &r in ctx.results(op) {
                changed |= dep.entry(r).or_default().union(&s);
            }
        }
    }
    let is_sub = |v: Value| ctx.type_data(ctx.value_type(v)).as_subclass().is_some();
    // Per argument: the classes of the dispatched ops its value reaches.
    let mut classes: FxHashMap<usize, Vec<String>> = FxHashMap::default();
    for &op in body.iter().filter(|&&o| is_dispatched(ctx, o)) {
        let class =
            ctx.operands(op).find_map(|v| ctx.type_data(ctx.value_type(v)).as_subclass().map(|s| s.class.clone()));
        for v in ctx.operands(op).filter(|&v| !is_sub(v)) {
            for i in dep.get(&v).map(|d| d.members().collect::<Vec<_>>()).unwrap_or_default() {
                let cs = classes.entry(i).or_default();
                if let Some(c) = &class {
                    if !cs.contains(c) {
                        cs.push(c.clone());
                    }
                }
            }
        }
    }
    // Arguments that cannot be replicated: a dense value depending on them
    // is mutated, or the ops between them and a dispatched op's dense
    // operand are not all plain dense ops free of effects.
    let mut touched_badly = ArgSet::default();
    for &op in body {
        let mutates = ctx.has_trait(op, Traits::INPLACE) || ctx.has_trait(op, Traits::METADATA_MUTATION);
        if mutates && ctx.num_operands(op) > 0 && !is_sub(ctx.operand(op, 0)) {
            if let Some(d) = dep.get(&ctx.operand(op, 0)) {
                touched_badly.union(d);
            }
        }
    }
    let plain_op = |o: Op| {
        !is_dispatched(ctx, o)
            && !ctx.has_trait(o, Traits::SUBCLASS_RULES)
            && ctx.regions(o).is_empty()
            && !ctx.has_trait(o, Traits::RANDOM)
            && !ctx.has_trait(o, Traits::INPLACE)
            && !ctx.has_trait(o, Traits::METADATA_MUTATION)
    };
    let mut seen: FxHashSet<Value> = FxHashSet::default();
    let mut stack: Vec<Value> = Vec::new();
    for &op in body.iter().filter(|&&o| is_dispatched(ctx, o)) {
        stack.extend(ctx.operands(op).filter(|&v| !is_sub(v)));
    }
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        let Some(d) = dep.get(&x) else { continue };
        match ctx.defining_op(x) {
            // An argument: itself (fine), or aliased with others by a write.
            None => {
                if d.members().count() > 1 {
                    touched_badly.union(d);
                }
            }
            Some(o) if plain_op(o) => stack.extend(ctx.operands(o)),
            Some(_) => {
                touched_badly.union(d);
            }
        }
    }
    let bad: Vec<usize> = touched_badly.members().collect();
    let (mut replicated, mut shared) = (Vec::new(), Vec::new());
    let mut reaching: Vec<usize> = classes.keys().copied().collect();
    reaching.sort_unstable();
    for i in reaching {
        let cs = &classes[&i];
        let float = ctx.value_tensor(args[i]).is_some_and(|t| t.elem.is_float());
        if cs.len() == 1 && float && !bad.contains(&i) {
            replicated.push((i, cs[0].clone()));
        } else {
            shared.push(i);
        }
    }
    Sharing { dep, replicated, shared }
}

/// What replicating a dense value for one component needs.
struct Replicas<'a> {
    args: &'a FxHashMap<Value, SmallVec<[Value; 4]>>,
    dep: &'a FxHashMap<Value, ArgSet>,
    set: &'a ArgSet,
    pos: &'a FxHashMap<Op, usize>,
}

impl Replicas<'_> {
    /// `v` for leaf `j`: the replica argument, or a copy of the ops between
    /// the replicated arguments and `v` reading the replicas (inserted at
    /// the rewriter's insertion point, in program order; memoized). The
    /// ops are found with an explicit stack, so a long chain cannot
    /// overflow the call stack.
    fn replicate(
        &self,
        rw: &mut Rewriter<'_>,
        v: Value,
        j: usize,
        memo: &mut FxHashMap<(Value, usize), Value>,
    ) -> Value {
        let lookup = |memo: &FxHashMap<(Value, usize), Value>, x: Value| {
            self.args.get(&x).map(|r| r[j]).or_else(|| memo.get(&(x, j)).copied())
        };
        if let Some(r) = lookup(memo, v) {
            return r;
        }
        let mut cone: Vec<Op> = Vec::new();
        let mut seen: FxHashSet<Op> = FxHashSet::default();
        let mut stack = vec![v];
        while let Some(x) = stack.pop() {
            if lookup(memo, x).is_some() || !self.dep.get(&x).is_some_and(|d| d.intersects(self.set)) {
                continue;
            }
            let Some(o) = rw.defining_op(x) else { continue };
            if seen.insert(o) {
                cone.push(o);
                stack.extend(rw.operands(o));
            }
        }
        cone.sort_by_key(|o| self.pos.get(o).copied().unwrap_or(usize::MAX));
        for o in cone {
            let operands: SmallVec<[Value; 4]> = rw.operands(o).map(|x| lookup(memo, x).unwrap_or(x)).collect();
            let clone = rw.clone_op(o, &operands);
            for (k, &r) in rw.results(o).to_vec().iter().enumerate() {
                let c = rw.result(clone, k);
                memo.insert((r, j), c);
            }
        }
        lookup(memo, v).unwrap_or(v)
    }
}

/// What flattening one function did.
struct Flattened {
    plan: SubclassPlan,
    dispatched: u64,
    made: u64,
}

/// Flattens `func` and returns its plan.
fn flatten(ctx: &mut Context, func: Op) -> Result<Flattened, Diagnostic> {
    let f = FuncView { op: func };
    let err = |ctx: &Context, op: Op, m: String| Diagnostic::op_error(ctx, op, m);
    if f.is_declaration(ctx) {
        return Err(err(ctx, func, "a declaration with subclass types cannot be flattened: define it".into()));
    }
    let module = enclosing_module(ctx, func)
        .ok_or_else(|| err(ctx, func, "must be inside a module that declares its subclasses".into()))?;
    let classes = Classes::of_module(ctx, module)?;
    let block = f.entry_block(ctx).ok_or_else(|| err(ctx, func, "has no body".into()))?;
    let body: Vec<Op> = ctx.block_ops(block).collect();
    let old_args = f.args(ctx).to_vec();
    let class_of = |ctx: &Context, v: Value| ctx.type_data(ctx.value_type(v)).as_subclass().map(|s| s.class.clone());
    let dense_of = |ctx: &mut Context, t: Type| {
        let tt = ctx.type_data(t).as_tensor().cloned().expect("subclass types have an outer tensor");
        ctx.intern_type(TypeData::Tensor(tt))
    };
    // Every subclass type in the function names a declared class.
    for &op in &body {
        for v in ctx.operands(op).chain(ctx.results(op).iter().copied()) {
            if let Some(c) = class_of(ctx, v) {
                if classes.get(&c).is_none() {
                    return Err(err(ctx, op, format!("uses subclass @{c}, which this module does not declare")));
                }
            }
        }
        if !ctx.regions(op).is_empty() && ctx.operands(op).any(|v| class_of(ctx, v).is_some()) {
            return Err(err(ctx, op, "an op with regions cannot take subclass values".into()));
        }
        if ctx.op_name(op) == aot_dialects::func::CallOp::NAME
            && (ctx.operands(op).chain(ctx.results(op).iter().copied())).any(|v| class_of(ctx, v).is_some())
        {
            return Err(err(
                ctx,
                op,
                "calls with subclass operands or results are not flattened: inline the callee first".into(),
            ));
        }
    }
    for (i, &a) in old_args.iter().enumerate() {
        if let Some(c) = class_of(ctx, a) {
            if classes.get(&c).is_none() {
                return Err(err(
                    ctx,
                    func,
                    format!("argument {i} is a @{c} value, which this module does not declare"),
                ));
            }
        }
    }
    let old_results = f.function_type(ctx).1;
    // Dispatch multiplies ops by leaves: bound what flattening creates.
    let max_ops = aot_ir::size::Limits::get(aot_ir::size::Limit::InlineOps);
    let mut created: u64 = 0;
    for &op in &body {
        if let Some(c) = ctx.operands(op).find_map(|v| class_of(ctx, v)) {
            created = created.saturating_add(classes.leaf_count(&c) as u64);
        }
    }
    for &a in &old_args {
        created = created.saturating_add(class_of(ctx, a).map_or(1, |c| classes.leaf_count(&c)) as u64);
    }
    if created > max_ops {
        return Err(err(
            ctx,
            func,
            format!("flattening would create more than {max_ops} ops and arguments (AOT_MAX_INLINE_OPS)"),
        ));
    }
    let sharing = sharing(ctx, &body, &old_args);
    if let Some(&i) = sharing.shared.iter().find(|&&i| f.arg_has(ctx, i, REQUIRES_GRAD)) {
        return Err(err(ctx, func, shared_arg_message(i)));
    }

    let mut rw = Rewriter::new(ctx);
    let mut leaves: FxHashMap<Value, SmallVec<[Value; 4]>> = FxHashMap::default();
    // Arguments, right to left so that positions stay valid.
    let mut attrs_all = f.all_arg_attrs(&rw);
    for (i, &a) in old_args.iter().enumerate().rev() {
        let Some(c) = class_of(&rw, a) else { continue };
        let extra: Vec<&str> = attrs_all[i]
            .iter()
            .map(|na| rw.sym_str(na.name))
            .filter(|n| *n != REQUIRES_GRAD && *n != NON_LEAF)
            .collect();
        if let Some(n) = extra.first() {
            return Err(err(
                &rw,
                func,
                format!("argument {i} (a @{c} value) has '{n}': give calling-convention attributes to the inner tensors after flattening"),
            ));
        }
        let k = classes.leaf_count(&c);
        let t = rw.value_type(a);
        let t = dense_of(&mut rw, t);
        let mut vs = SmallVec::new();
        for j in 0..k {
            let v = f
                .insert_arg(&mut rw, i + 1 + j, t, attrs_all[i].clone())
                .ok_or_else(|| err(&rw, func, "has no body".into()))?;
            vs.push(v);
        }
        leaves.insert(a, vs);
    }
    attrs_all.clear();
    // Replicas of the dense arguments shared by components: one argument
    // per leaf of the dispatch class, after every other argument.
    let mut replica_args: FxHashMap<Value, SmallVec<[Value; 4]>> = FxHashMap::default();
    let mut replicated_set = ArgSet::default();
    for (i, class) in &sharing.replicated {
        replicated_set.union(&ArgSet::single(*i));
        let y = old_args[*i];
        let at = f.args(&rw).iter().position(|&a| a == y).expect("dense arguments stay");
        let attrs = f.arg_attrs(&rw, at);
        let ty = rw.value_type(y);
        let mut vs = SmallVec::new();
        for _ in 0..classes.leaf_count(class) {
            let end = f.args(&rw).len();
            vs.push(f.insert_arg(&mut rw, end, ty, attrs.clone()).ok_or_else(|| err(&rw, func, "has no body".into()))?);
        }
        replica_args.insert(y, vs);
    }
    let body_pos: FxHashMap<Op, usize> = body.iter().enumerate().map(|(k, &o)| (o, k)).collect();
    let mut replica_memo: FxHashMap<(Value, usize), Value> = FxHashMap::default();

    let leaves_of =
        |leaves: &FxHashMap<Value, SmallVec<[Value; 4]>>, ctx: &Context, v: Value| -> SmallVec<[Value; 4]> {
            if class_of(ctx, v).is_some() {
                leaves[&v].clone()
            } else {
                smallvec::smallvec![v]
            }
        };
    let (mut dispatched, mut made) = (0u64, 0u64);
    let mut erase = Vec::new();
    for &op in &body {
        let name = rw.op_name(op).to_string();
        if name == UnwrapOp::NAME {
            let x = rw.operand(op, 0);
            let all = leaves[&x].clone();
            let d = classes.get(&class_of(&rw, x).expect("verified: unwrap takes a subclass value")).expect("declared");
            let mut at = 0;
            for (i, &r) in rw.results(op).to_vec().iter().enumerate() {
                let n = d.inner_classes[i].as_deref().map_or(1, |c| classes.leaf_count(c));
                let chunk: SmallVec<[Value; 4]> = all[at..at + n].iter().copied().collect();
                at += n;
                if class_of(&rw, r).is_some() {
                    leaves.insert(r, chunk);
                } else {
                    rw.replace_all_uses(r, chunk[0]);
                }
            }
            erase.push(op);
        } else if name == WrapOp::NAME {
            let r = rw.result(op, 0);
            let mut all = SmallVec::new();
            for v in rw.operand_vec(op) {
                all.extend(leaves_of(&leaves, &rw, v));
            }
            leaves.insert(r, all);
            erase.push(op);
        } else if name == aot_dialects::func::ReturnOp::NAME {
            let vals = rw.operand_vec(op);
            if vals.iter().any(|&v| class_of(&rw, v).is_some()) {
                let mut flat: Vec<Value> = Vec::new();
                for v in vals {
                    flat.extend(leaves_of(&leaves, &rw, v));
                }
                rw.set_operands(op, &flat);
            }
        } else if let Some(c) = rw.operand_vec(op).into_iter().find_map(|v| class_of(&rw, v)) {
            let k = classes.leaf_count(&c);
            let operands = rw.operand_vec(op);
            let results = rw.results(op).to_vec();
            let result_types: SmallVec<[Type; 2]> = results
                .iter()
                .map(|&r| {
                    let t = rw.value_type(r);
                    dense_of(&mut rw, t)
                })
                .collect();
            let mut per_result: Vec<SmallVec<[Value; 4]>> = vec![SmallVec::new(); results.len()];
            rw.set_insertion_point(InsertPoint::Before(op));
            // Leaf j's operands: the subclass operands' j-th leaves, the
            // dense operands shared, except that a dense operand depending on
            // a replicated argument reads that leaf's replica (through
            // copies of the ops between).
            let mut per_leaf: Vec<SmallVec<[Value; 4]>> = vec![SmallVec::new(); k];
            for (j, ops_j) in per_leaf.iter_mut().enumerate() {
                for &v in &operands {
                    let x = if class_of(&rw, v).is_some() {
                        leaves[&v][j]
                    } else if sharing.dep.get(&v).is_some_and(|d| d.intersects(&replicated_set)) {
                        let cx =
                            Replicas { args: &replica_args, dep: &sharing.dep, set: &replicated_set, pos: &body_pos };
                        cx.replicate(&mut rw, v, j, &mut replica_memo)
                    } else {
                        v
                    };
                    ops_j.push(x);
                }
            }
            for ops_j in per_leaf {
                let clone = rw.clone_op(op, &ops_j);
                for (ri, &t) in result_types.iter().enumerate() {
                    let nr = rw.result(clone, ri);
                    rw.set_value_type(nr, t);
                    per_result[ri].push(nr);
                }
                made += 1;
            }
            for (r, vs) in results.iter().zip(per_result) {
                leaves.insert(*r, vs);
            }
            dispatched += 1;
            erase.push(op);
        }
    }
    for &op in erase.iter().rev() {
        rw.erase_op(op);
    }
    let keep: Vec<bool> = f.args(&rw).iter().map(|&a| class_of(&rw, a).is_none()).collect();
    f.erase_args(&mut rw, &keep).map_err(|m| err(&rw, func, format!("flattening left an argument in use: {m}")))?;

    // The plan, from the types before flattening.
    let entries = |ctx: &mut Context, types: &[Type]| {
        let mut out = Vec::new();
        let mut at = 0;
        for &t in types {
            let e = creation(ctx, &classes, t, at);
            at += e.count;
            out.push(e);
        }
        out
    };
    let old_arg_types: Vec<Type> = old_args.iter().map(|&a| rw.value_type(a)).collect();
    let inputs = entries(&mut rw, &old_arg_types);
    let mut replicas = Vec::new();
    for (i, class) in &sharing.replicated {
        let first = replica_args[&old_args[*i]][0];
        let start = f.args(&rw).iter().position(|&a| a == first).expect("replicas are arguments");
        let d = classes.get(class).expect("dispatch classes are declared");
        let ty = rw.value_type(old_args[*i]);
        replicas.push(SubclassReplica { arg: *i, creation: class_creation(&classes, d, ty, start) });
    }
    let plan = SubclassPlan {
        inputs,
        outputs: entries(&mut rw, &old_results),
        replicas,
        shared_with_components: sharing.shared.clone(),
    };
    Ok(Flattened { plan, dispatched, made })
}

/// The message for a dense argument that requires grad and is shared by
/// the components of a dispatched op.
pub fn shared_arg_message(i: usize) -> String {
    format!(
        "argument {i} is a dense tensor that requires grad and is shared by the components of a subclass op: PyTorch \
gives it a subclass gradient (one component per use), which the dense graph cannot represent; detach it, or make it \
a subclass value"
    )
}

struct FlattenSubclasses;

impl Pass for FlattenSubclasses {
    fn run(&mut self, ctx: &mut Context, func: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        if FuncView::new(ctx, func).is_none() || !has_subclass_values(ctx, func) {
            return Ok(());
        }
        let done = flatten(ctx, func)?;
        let a = done.plan.to_attr(ctx);
        Rewriter::new(ctx).set_attr(func, PLAN_ATTR, a);
        st.add_stat("num-dispatched-ops", done.dispatched);
        st.add_stat("num-component-ops", done.made);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "flatten-subclasses",
        name: "FlattenSubclasses",
        summary: "Flatten tensor subclass values to their dense inner tensors (AOTAutograd's subclass_utils)",
        description: "Rewrites a function with !aot.subclass values into a function over dense tensors: subclass \
arguments and results become their leaves (inner tensors, nested classes flattened recursively), ops with subclass \
operands are applied once per component in order (dense operands shared), aot.subclass_wrap/unwrap disappear. The \
wrapping plan (class, dense positions, outer type, constant metadata, nested plans per input and output) is recorded \
as aot.subclass_plan for the runtime. A dense argument read by the components of a subclass op is replicated per \
component (after the other arguments, read through copies of the dense ops between) so that its gradient is the \
subclass value PyTorch gives it; one that cannot be (it is written, or reached through effects) must not require \
grad.",
        anchor: Some(FuncOp::NAME),
        options: &[],
        statistics: &[
            StatisticSpec { name: "num-dispatched-ops", description: "Ops applied per component" },
            StatisticSpec { name: "num-component-ops", description: "Dense ops made by per-component dispatch" },
        ],
        create: |_: &PassOptions| Ok(Box::new(FlattenSubclasses)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints the record, parses the text back in the same context (so
    /// its types have their ids) and reads it: the same record.
    fn round_trip(ctx: &mut Context, v: SubclassPlan) {
        let a = v.to_attr(ctx);
        let text = aot_ir::printer::attr_to_string(ctx, a);
        assert!(text.starts_with("#aot.subclass_plan<"), "{text}");
        let b = aot_ir::parser::parse_attr_str(ctx, &text).expect("the printed plan parses");
        assert_eq!(SubclassPlan::from_attr(ctx, b).expect("the parsed plan reads"), v, "{text}");
    }

    fn dense(start: usize, ty: Type) -> SubclassCreation {
        SubclassCreation { class: String::new(), start, count: 1, ty, meta: None, inner: Vec::new() }
    }

    #[test]
    fn the_plan_round_trips_and_checks_its_positions() {
        let mut ctx = Context::new();
        let t = ctx.tensor_type(&[2, 3], ElemType::F32);
        let two = |start| SubclassCreation {
            class: "TwoTensor".into(),
            start,
            count: 2,
            ty: t,
            meta: None,
            inner: vec![dense(start, t), dense(start + 1, t)],
        };
        let (k, two_) = (ctx.sym("scale"), ctx.i64_attr(2));
        let meta = ctx.dict_attr(vec![NamedAttr { name: k, value: two_ }]);
        let nested = SubclassCreation {
            class: "Nested".into(),
            start: 0,
            count: 3,
            ty: t,
            meta: Some(meta),
            inner: vec![two(0), dense(2, t)],
        };
        round_trip(
            &mut ctx,
            SubclassPlan {
                inputs: vec![nested.clone(), dense(3, t)],
                outputs: vec![two(0)],
                replicas: vec![SubclassReplica { arg: 1, creation: two(4) }],
                shared_with_components: vec![],
            },
        );
        // Positions that do not follow each other are refused on reading.
        let bad = SubclassPlan {
            inputs: vec![nested, dense(5, t)],
            outputs: vec![],
            replicas: vec![],
            shared_with_components: vec![],
        };
        let a = bad.to_attr(&mut ctx);
        assert!(SubclassPlan::from_attr(&ctx, a).is_err());
    }
}
