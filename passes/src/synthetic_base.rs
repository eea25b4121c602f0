//! `synthetic-base`: distinct arguments that share a storage, one of them
//! mutated, become one base argument (AOTAutograd's `merge_view_inputs`).
//!
//! Arguments are grouped by the storage their `aot.layout` places them in.
//! A storage needs a synthetic base when one of its arguments' data is
//! mutated and may overlap another argument — upstream's overlap test, but
//! grouped by a sweep over addresses instead of testing all pairs
//! (`aot_runtime::overlap`). The arguments of overlap groups that contain a
//! data-mutated argument become *members* of the base; the others stay
//! independent arguments (false sharing, or overlaps no write reached:
//! every argument a write touches counts as data-mutated). Metadata-only
//! mutations never need a base. Upstream merges every argument of the
//! storage once two overlap; this is never needed for correctness.
//!
//! The rewrite, per base (bases first, in order of their first member):
//!
//! - a new argument `B`, 1-D over the whole storage (`tensor<N x T>`,
//!   `aot.layout<storage = S, offset = 0, strides = [1]>`);
//! - each member is regenerated inside the graph as `view.as_strided(B)`
//!   with its layout, and its argument is removed; the flat base that
//!   `functionalize` built from the arguments (`aot.virtual_base = S`) is `B`
//!   itself;
//! - the final storage value is `B` with every data-mutated argument of the
//!   storage scattered back at its final layout (`view.as_strided_scatter`);
//!   mutations of members the graph kept (`mut.copy_`, `mut.as_strided_`)
//!   are replaced by one trailing `mut.copy_` into `B` when `B`'s own
//!   mutation may stay in the graph, else `B`'s new value is a mutated-input
//!   result;
//! - members whose metadata changed are returned as extra `alias_of_input`
//!   outputs of `B` (after the user outputs); the runtime applies their
//!   layout to the user's tensors with `as_strided_`.
//!
//! The metadata is updated as `create_synthetic_base_metadata` does: the
//! base's info merges its members' (`mutates_data`, not `mutates_metadata`,
//! `requires_grad` = any, hidden / no_grad = all, leafness must agree);
//! outputs that referred to a member refer to the base, `is_input` becoming
//! `alias_of_input` with a recipe relative to the base (the member's
//! `as_strided` followed by the output's own views), so a view output with
//! a non-zero offset is regenerated from the right place.
//!
//! Refused with an error, as upstream: with `training` (the graph will be
//! differentiated), members that require grad but are not views of one
//! differentiable base (`#aot.storage<requires_grad = true>`);
//! `set_`/`resize_` of a member; a member whose metadata *and* data change
//! when its final layout no longer covers what was written.
//!
//! The outer→inner mapping is recorded as `aot.synthetic_base`, e.g.
//! `#aot.synthetic_base<args = [1, #aot.member<base = 0, layout = #aot.strided<..>>],
//! bases = [#aot.base<storage = 0, numel = 8, requires_grad = true>], metadata_mutated = [1]>`.

use crate::convention::{ArgLayout, Convention};
use crate::functionalize::{STORAGE_FINAL, STORAGE_WRITES, VIRTUAL_BASE, WHOLE_STORAGES};
use crate::meta::{
    InputAliasInfo, MutationType, OutputAliasInfo, OutputType, Params, Reader, SetSource, Strided, ViewAndMutationMeta,
    ViewStep, META_ATTR,
};
use aot_dialects::func::{FuncOp, FuncView, LAYOUT, REQUIRES_GRAD, SAME_AS};
use aot_dialects::r#mut::CopyOp;
use aot_dialects::view::{AsStridedOp, AsStridedScatterOp, SPLIT_GRAD};
use aot_ir::pass::{OptionKind, Pass, PassInfo, PassOptionSpec, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use aot_runtime::interp::NO_GRAD;
use aot_runtime::overlap::{may_reach_an_element_twice, overlap_groups, View};
use rustc_hash::FxHashMap;

pub const SYNTHETIC_BASE_ATTR: &str = "aot.synthetic_base";

/// Where an outer argument comes from in the inner convention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InnerArg {
    /// Inner argument `i`, unchanged.
    Arg(usize),
    /// A view of synthetic base `base` (which is inner argument `base`);
    /// `requires_grad`: whether the argument requires grad after the call
    /// (a mutation may give it history; the runtime marks the user's tensor).
    Member { base: usize, layout: Strided, requires_grad: bool },
}

crate::record! {
    /// One synthetic base.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct BaseInfo = "aot.base" {
        /// The declared storage id (`aot.layout`).
        pub storage: i64,
        pub numel: i64,
        /// The storage is a differentiable base whose views the members are.
        pub requires_grad: bool,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntheticBaseInfo {
    /// Per outer argument.
    pub args: Vec<InnerArg>,
    pub bases: Vec<BaseInfo>,
    /// Outer arguments whose metadata the runtime sets from the trailing
    /// extra outputs, in order.
    pub metadata_mutated: Vec<usize>,
}

/// The record kind of a synthetic base member argument.
pub const MEMBER_KIND: &str = "aot.member";

crate::hand_written_record!(SyntheticBaseInfo = SYNTHETIC_BASE_ATTR);

impl SyntheticBaseInfo {
    pub fn to_attr(&self, ctx: &mut Context) -> Attribute {
        let args: Vec<Attribute> = self
            .args
            .iter()
            .map(|a| match a {
                InnerArg::Arg(i) => ctx.i64_attr(*i as i64),
                InnerArg::Member { base, layout, requires_grad } => {
                    let l = layout.to_attr(ctx);
                    let mut p = Params::new(ctx);
                    p.int("base", *base as i64);
                    p.raw("layout", l);
                    if *requires_grad {
                        p.bool("requires_grad", true);
                    }
                    p.finish(MEMBER_KIND)
                }
            })
            .collect();
        let bases: Vec<Attribute> = self.bases.iter().map(|b| b.to_attr(ctx)).collect();
        let args = ctx.array_attr(args);
        let bases = ctx.array_attr(bases);
        let mut p = Params::new(ctx);
        p.raw("args", args);
        p.raw("bases", bases);
        p.list("metadata_mutated", &self.metadata_mutated);
        p.finish(SYNTHETIC_BASE_ATTR)
    }

    pub fn from_attr(ctx: &Context, a: Attribute) -> Result<SyntheticBaseInfo, String> {
        let r = Reader::new(ctx, a, SYNTHETIC_BASE_ATTR)?;
        let bases = r.array("bases")?.iter().map(|&b| BaseInfo::from_attr(ctx, b)).collect::<Result<Vec<_>, _>>()?;
        let args = r
            .array("args")?
            .iter()
            .map(|&x| match ctx.attr_as_i64(x) {
                Some(i) if i >= 0 => Ok(InnerArg::Arg(i as usize)),
                Some(_) => Err("#aot.synthetic_base: argument indices must be non-negative".to_string()),
                None => {
                    let mr = Reader::new(ctx, x, MEMBER_KIND)?;
                    let base = mr.opt_usize("base")?.ok_or("#aot.member is missing 'base'")?;
                    if base >= bases.len() {
                        return Err(format!("#aot.member: no base {base}"));
                    }
                    Ok(InnerArg::Member {
                        base,
                        layout: Strided::from_attr(ctx, mr.get("layout")?)?,
                        requires_grad: mr.opt_bool("requires_grad")?.unwrap_or(false),
                    })
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        let metadata_mutated = r.usize_list("metadata_mutated")?;
        if metadata_mutated.iter().any(|&i| !matches!(args.get(i), Some(InnerArg::Member { .. }))) {
            return Err("#aot.synthetic_base: 'metadata_mutated' must list members".into());
        }
        Ok(SyntheticBaseInfo { args, bases, metadata_mutated })
    }
}

fn layout_of(shape: &[i64], l: &ArgLayout) -> Strided {
    Strided { size: shape.to_vec(), stride: l.strides.clone(), offset: l.offset }
}

fn view(s: &Strided) -> View {
    View::new(&s.size, &s.stride, s.offset)
}

fn extent(s: &Strided) -> i64 {
    if s.size.contains(&0) {
        return 0;
    }
    s.offset + s.size.iter().zip(&s.stride).map(|(&n, &st)| (n - 1) * st).sum::<i64>() + 1
}

fn as_strided_attrs(rw: &mut Rewriter<'_>, s: &Strided) -> Vec<NamedAttr> {
    let size = rw.i64_list_attr(&s.size);
    let stride = rw.i64_list_attr(&s.stride);
    let offset = rw.i64_attr(s.offset);
    let mut attrs = vec![
        NamedAttr { name: rw.sym("size"), value: size },
        NamedAttr { name: rw.sym("stride"), value: stride },
        NamedAttr { name: rw.sym("offset"), value: offset },
    ];
    rw.sort_named_attrs(&mut attrs);
    attrs
}

/// One planned base.
struct Plan {
    storage: i64,
    numel: i64,
    elem: ElemType,
    requires_grad: bool,
    /// Members (argument indices, increasing).
    members: Vec<usize>,
    /// Every argument placed in this storage (members or not).
    all: Vec<usize>,
}

struct SyntheticBase {
    training: bool,
}

fn merged_info(meta: &ViewAndMutationMeta, members: &[usize]) -> Result<InputAliasInfo, String> {
    let infos: Vec<&InputAliasInfo> = members.iter().map(|&m| &meta.input_info[m]).collect();
    let any_leaf = infos.iter().any(|i| i.is_leaf);
    let all_leaf = infos.iter().all(|i| i.is_leaf);
    if any_leaf != all_leaf {
        return Err("the arguments of a synthetic base must all be leaves or all be non-leaves".into());
    }
    let mut info =
        InputAliasInfo::not_mutated(infos.iter().any(|i| i.requires_grad), any_leaf, meta.keep_input_mutations);
    // Bases for overlap always have a data-mutated member; a storage passed
    // whole may have none.
    info.mutates_data = infos.iter().any(|i| i.mutates_data);
    info.mutations_hidden_from_autograd = infos.iter().all(|i| i.mutations_hidden_from_autograd);
    info.mutations_under_no_grad_or_inference_mode = infos.iter().all(|i| i.mutations_under_no_grad_or_inference_mode);
    info.mutation_inductor_storage_resize = infos.iter().all(|i| i.mutation_inductor_storage_resize);
    info.autograd_mutation = infos.iter().any(|i| i.autograd_mutation);
    info.mutation_type = info.classify();
    Ok(info)
}

impl Pass for SyntheticBase {
    fn run(&mut self, ctx: &mut Context, func: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let Some(f) = FuncView::new(ctx, func) else { return Ok(()) };
        if !f.is_public_definition(ctx) || ctx.has_attr(func, SYNTHETIC_BASE_ATTR) {
            return Ok(());
        }
        let n = f.num_args(ctx);
        if !(0..n).any(|i| f.arg_attr(ctx, i, LAYOUT).is_some()) {
            return Ok(());
        }
        let err = |ctx: &Context, m: String| Diagnostic::op_error(ctx, func, m);
        // With symbolic sizes, a layout is a storage of the argument's own
        // (the verifier's rule), which needs no synthetic base; one passed
        // whole or shared is refused.
        let storage_of = |i: usize| {
            f.arg_attr(ctx, i, LAYOUT).and_then(|a| ctx.attr_field(a, "storage")).and_then(|x| ctx.attr_as_i64(x))
        };
        let whole_ids: Vec<i64> =
            ctx.get_attr(func, WHOLE_STORAGES).and_then(|a| ctx.attr_as_i64_list(a)).unwrap_or_default();
        if let Some(i) = (0..n).find(|&i| {
            let Some(sid) = storage_of(i) else { return false };
            ctx.value_tensor(f.args(ctx)[i]).is_some_and(|t| t.is_symbolic())
                && (whole_ids.contains(&sid) || (0..n).any(|j| j != i && storage_of(j) == Some(sid)))
        }) {
            return Err(err(ctx, format!("argument {i}: a shared storage with symbolic sizes is not supported yet")));
        }
        if (0..n).any(|i| f.arg_attr(ctx, i, SAME_AS).is_some()) {
            return Err(err(ctx, "has duplicated arguments: run 'dedupe' before 'synthetic-base'".into()));
        }
        let meta = ViewAndMutationMeta::required(ctx, func, "synthetic-base", "has arguments in shared storages")?;
        let conv = Convention::from_arg_attrs(ctx, func).map_err(|m| err(ctx, m))?;
        let shapes: Vec<(Vec<i64>, ElemType)> = conv
            .args
            .iter()
            .map(|a| ctx.as_tensor(a.ty).map(|t| (t.shape.to_vec(), t.elem)))
            .collect::<Option<_>>()
            .ok_or_else(|| err(ctx, "synthetic-base only handles tensor arguments".into()))?;
        let layouts: Vec<Option<Strided>> =
            conv.args.iter().zip(&shapes).map(|(a, (s, _))| a.layout.as_ref().map(|l| layout_of(s, l))).collect();
        // Group by storage, in order of first appearance.
        let mut order: Vec<i64> = Vec::new();
        let mut by_storage: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
        for (i, a) in conv.args.iter().enumerate() {
            if let Some(l) = &a.layout {
                by_storage
                    .entry(l.storage)
                    .or_insert_with(|| {
                        order.push(l.storage);
                        Vec::new()
                    })
                    .push(i);
            }
        }
        let whole: Vec<i64> =
            ctx.get_attr(func, WHOLE_STORAGES).and_then(|a| ctx.attr_as_i64_list(a)).unwrap_or_default();
        let writes = storage_writes(ctx, func).map_err(|m| err(ctx, m))?;
        // Functionalize's final values of the storages passed whole.
        let ret0 = f.return_op(ctx).ok_or_else(|| err(ctx, "has no return".into()))?;
        let all_results: Vec<Value> = ctx.operands(ret0).collect();
        let mut storage_finals: FxHashMap<i64, Value> = FxHashMap::default();
        for (r, &v) in all_results.iter().enumerate() {
            if let Some(sid) = f.res_attr(ctx, r, STORAGE_FINAL).and_then(|a| ctx.attr_as_i64(a)) {
                storage_finals.insert(sid, v);
            }
        }
        let num_returns = all_results.len() - storage_finals.len();
        let mut plans: Vec<Plan> = Vec::new();
        let mut pairs_tested = 0;
        for sid in order {
            let all = &by_storage[&sid];
            // A storage the graph reads beyond its arguments is passed whole.
            let mut members = if whole.contains(&sid) {
                all.clone()
            } else {
                if all.len() < 2 || !all.iter().any(|&i| meta.input_info[i].mutates_data) {
                    continue;
                }
                let views: Vec<View> =
                    all.iter().map(|&i| view(layouts[i].as_ref().expect("grouped by layout"))).collect();
                let (groups, stats) = overlap_groups(&views);
                pairs_tested += stats.pairs_tested;
                // Overlap groups a write reached (every argument a write
                // touched is data-mutated); the others are unaffected.
                let members: Vec<usize> = groups
                    .iter()
                    .filter(|g| g.len() >= 2 && g.iter().any(|&k| meta.input_info[all[k]].mutates_data))
                    .flatten()
                    .map(|&k| all[k])
                    .collect();
                if members.len() < 2 {
                    continue;
                }
                members
            };
            members.sort_unstable();
            let decl = conv.storages.iter().find(|s| s.id == sid);
            let numel = all
                .iter()
                .map(|&i| extent(layouts[i].as_ref().expect("grouped")))
                .chain(decl.and_then(|d| d.numel))
                .max()
                .unwrap_or(0);
            let requires_grad = decl.is_some_and(|d| d.requires_grad);
            plans.push(Plan {
                storage: sid,
                numel,
                elem: shapes[members[0]].1,
                requires_grad,
                members,
                all: all.clone(),
            });
        }
        st.add_stat("num-overlap-pairs-tested", pairs_tested);
        if plans.is_empty() {
            // Nothing consumes the write log or the storage finals.
            let mut rw = Rewriter::new(ctx);
            if rw.has_attr(func, STORAGE_WRITES) {
                rw.remove_attr(func, STORAGE_WRITES);
            }
            if !storage_finals.is_empty() {
                rw.set_operands(ret0, &all_results[..num_returns]);
                f.set_all_res_attrs(&mut rw, vec![Vec::new(); num_returns]);
                f.sync_function_type(&mut rw);
            }
            return Ok(());
        }
        // Upstream's restrictions.
        for p in &plans {
            for &m in &p.members {
                let info = &meta.input_info[m];
                if info.mutates_storage_metadata || info.resized_numel.is_some() {
                    return Err(err(
                        ctx,
                        format!(
                            "argument {m} aliases another mutated argument and has its storage changed (set_/resize_): synthetic bases do not support that"
                        ),
                    ));
                }
                // Upstream asks the inputs as passed: views of one `._base`.
                if self.training && conv.args[m].requires_grad && !p.requires_grad {
                    let message = match p.members.iter().copied().find(|&o| o != m) {
                        Some(other) => format!(
                            "arguments {m} and {other} overlap in one storage and one of them is mutated, but they are not views of one differentiable base (argument {m} requires grad): gradients cannot flow through a synthetic base (AOTAutograd does not handle non-differentiable view input mutations either)"
                        ),
                        // A group of one: the program reads storage elements
                        // outside the argument (as_strided), so the storage is
                        // passed whole, and that base carries no gradient.
                        None => format!(
                            "argument {m} requires grad and the program reads storage elements outside it: its storage would be passed as a synthetic base, through which gradients cannot flow (pass the storage as a differentiable base instead)"
                        ),
                    };
                    return Err(err(ctx, message));
                }
            }
            if !storage_finals.contains_key(&p.storage) {
                check_coverage(&meta, p, &layouts, writes.get(&p.storage).map(|w| &w[..])).map_err(|m| err(ctx, m))?;
            }
        }
        let members_of: FxHashMap<usize, usize> =
            plans.iter().enumerate().flat_map(|(b, p)| p.members.iter().map(move |&m| (m, b))).collect();
        let nb = plans.len();
        // Outer → inner.
        let mut inner_args: Vec<InnerArg> = Vec::with_capacity(n);
        let mut next = nb;
        for (i, layout) in layouts.iter().enumerate() {
            match members_of.get(&i) {
                Some(&b) => inner_args.push(InnerArg::Member {
                    base: b,
                    layout: layout.clone().expect("members have layouts"),
                    requires_grad: meta.input_info[i].requires_grad,
                }),
                None => {
                    inner_args.push(InnerArg::Arg(next));
                    next += 1;
                }
            }
        }
        let outer_of: Vec<usize> = (0..n).filter(|i| !members_of.contains_key(i)).collect();
        let inner_of = |i: usize| match &inner_args[i] {
            InnerArg::Arg(j) => *j,
            InnerArg::Member { base, .. } => *base,
        };
        let mut base_infos = Vec::new();
        for p in &plans {
            let mut info = merged_info(&meta, &p.members).map_err(|m| err(ctx, m))?;
            // A write may have reached only elements no member covers.
            if storage_finals.contains_key(&p.storage) && !info.mutates_data {
                info.mutates_data = true;
                info.mutation_type = info.classify();
            }
            base_infos.push(info);
        }
        let mut rw = Rewriter::new(ctx);
        Convention::record(&mut rw, func).map_err(|m| err(&rw, m))?;
        let entry = f.entry_block(&rw).expect("has a body");
        let ret = f.return_op(&rw).ok_or_else(|| err(&rw, "has no return".into()))?;
        let old_results: Vec<Value> = all_results[..num_returns].to_vec();
        let old_mutated = meta.mutated_inp_runtime_indices();
        let num_user = meta.output_info.len();
        if old_results.len() != meta.num_forward_returns() {
            return Err(err(
                &rw,
                format!("returns {} values but aot.meta expects {}", old_results.len(), meta.num_forward_returns()),
            ));
        }
        let args: Vec<Value> = f.args(&rw).to_vec();
        // Mutations the graph kept: trailing `mut.*` chains from an
        // argument. Their data values join the base; members' chains go.
        let mut kept_value: FxHashMap<usize, Value> = FxHashMap::default();
        let mut dead_ops: Vec<Op> = Vec::new();
        // The trailing side effects on each argument: a data write (before
        // or after its metadata changes) and metadata changes, each on the
        // argument or on the previous change's result.
        let mut seen: rustc_hash::FxHashSet<Op> = rustc_hash::FxHashSet::default();
        // An in-graph `set_` onto a member would take the storage of the
        // member's value, which is now a view of the base: such arguments
        // get their storage from the base outside the graph instead.
        let set_onto_member: Vec<usize> = (0..n)
            .filter(|i| !members_of.contains_key(i))
            .filter(|&i| {
                let info = &meta.input_info[i];
                info.mutation_type == MutationType::MutatedInGraph
                    && matches!(info.set_source, Some(SetSource::Input(j)) if members_of.contains_key(&j))
            })
            .collect();
        for &i in plans.iter().flat_map(|p| &p.all).chain(&set_onto_member) {
            let mut stack = vec![args[i]];
            while let Some(cur) = stack.pop() {
                for u in rw.users(cur) {
                    let mutation =
                        rw.op_def(u).is_some_and(|d| d.has(Traits::INPLACE) || d.has(Traits::METADATA_MUTATION));
                    if !mutation || rw.operand(u, 0) != cur || !seen.insert(u) {
                        continue;
                    }
                    if members_of.contains_key(&i) || set_onto_member.contains(&i) {
                        dead_ops.push(u);
                    }
                    if rw.op_def(u).is_some_and(|d| d.has(Traits::INPLACE)) {
                        kept_value.insert(i, rw.operand(u, 1));
                    } else {
                        stack.push(rw.result(u, 0));
                    }
                }
            }
        }
        for &op in dead_ops.iter().rev() {
            rw.erase_op(op);
        }
        // New code goes before the trailing mutations the graph keeps.
        let first_trailing = {
            let mut first = ret;
            while let Some(op) = rw.prev_op(first) {
                if !rw.op_def(op).is_some_and(|d| d.has(Traits::INPLACE) || d.has(Traits::METADATA_MUTATION)) {
                    break;
                }
                first = op;
            }
            first
        };
        let mut members: Vec<(usize, usize)> = members_of.iter().map(|(&m, &b)| (m, b)).collect();
        members.sort_unstable();
        // Base arguments, and members regenerated from them.
        let first = rw.block_first_op(entry).expect("a return at least");
        let mut bases: Vec<Value> = Vec::new();
        for (b, p) in plans.iter().enumerate() {
            let ty = rw.tensor_type(&[p.numel], p.elem);
            let mut attrs = Vec::new();
            let layout = crate::convention::ArgLayout { storage: p.storage, offset: 0, strides: vec![1] };
            let la = layout.to_attr(&mut rw);
            attrs.push(NamedAttr { name: rw.sym(LAYOUT), value: la });
            // The base requires grad on entry only as a differentiable base.
            if p.requires_grad {
                let unit = rw.unit_attr();
                attrs.push(NamedAttr { name: rw.sym(REQUIRES_GRAD), value: unit });
            }
            rw.sort_named_attrs(&mut attrs);
            let v = f.insert_arg(&mut rw, b, ty, attrs).expect("has a body");
            bases.push(v);
        }
        let args: Vec<Value> = f.args(&rw).to_vec();
        rw.set_insertion_point(InsertPoint::Before(first));
        rw.set_loc(rw.op_loc(func));
        let mut keep = vec![true; args.len()];
        // Values replaced below, for the ones held in `kept_value`.
        let mut replaced: FxHashMap<Value, Value> = FxHashMap::default();
        for &(m, b) in &members {
            let attrs = as_strided_attrs(&mut rw, layouts[m].as_ref().expect("member"));
            let v = AsStridedOp::build_named1(&mut rw, &[bases[b]], &attrs)?;
            rw.replace_all_uses(args[nb + m], v);
            replaced.insert(args[nb + m], v);
            keep[nb + m] = false;
        }
        // The virtual flat bases functionalize built are the base arguments.
        let body: Vec<Op> = rw.block_ops(entry).collect();
        for op in body {
            let Some(sid) = rw.get_attr(op, VIRTUAL_BASE).and_then(|a| rw.attr_as_i64(a)) else { continue };
            if let Some(b) = plans.iter().position(|p| p.storage == sid) {
                let r = rw.result(op, 0);
                if rw.value_type(r) != rw.value_type(bases[b]) {
                    return Err(err(&rw, format!("the flat base of storage {sid} does not have the base's type")));
                }
                rw.replace_all_uses(r, bases[b]);
                replaced.insert(r, bases[b]);
            }
        }
        let fix = |v: Value| replaced.get(&v).copied().unwrap_or(v);
        let old_results: Vec<Value> = rw.operands(ret).take(num_returns).collect();
        let mutated_value = |i: usize| old_mutated.iter().position(|&m| m == i).map(|k| old_results[k]);
        let kept_value: FxHashMap<usize, Value> = kept_value.into_iter().map(|(i, v)| (i, fix(v))).collect();
        // Final base values.
        rw.set_insertion_point(InsertPoint::Before(first_trailing));
        rw.set_loc(rw.op_loc(ret));
        let mut finals: Vec<Value> = Vec::new();
        for (b, p) in plans.iter().enumerate() {
            let mut written: Vec<(Value, Strided)> = Vec::new();
            for &i in &p.all {
                let info = &meta.input_info[i];
                if !info.mutates_data {
                    continue;
                }
                let v = mutated_value(i).or_else(|| kept_value.get(&i).copied()).ok_or_else(|| {
                    err(&rw, format!("argument {i} is mutated but the graph returns no new value for it"))
                })?;
                written.push((
                    v,
                    info.returned_data_layout().cloned().or_else(|| layouts[i].clone()).expect("has a layout"),
                ));
            }
            let whole_final = storage_finals.get(&p.storage).map(|&v| fix(v));
            let fin = match whole_final.filter(|&v| rw.value_type(v) == rw.value_type(bases[b])) {
                Some(v) => v,
                None if whole_final.is_some() => {
                    return Err(err(&rw, format!("storage {} changes size, and is passed whole", p.storage)))
                }
                None => match final_base_of(&rw, bases[b], &written) {
                    Some(y) => y,
                    None => {
                        let mut acc = bases[b];
                        for (v, at) in &written {
                            let mut attrs = as_strided_attrs(&mut rw, at);
                            // A member that holds an element at several
                            // positions writes each of them back: its
                            // gradient is shared among them, so that the
                            // element's gradient is counted once (as the
                            // functionalized base's own scatters do).
                            if may_reach_an_element_twice(&at.size, &at.stride) {
                                let unit = rw.unit_attr();
                                attrs.push(NamedAttr { name: rw.sym(SPLIT_GRAD), value: unit });
                                rw.sort_named_attrs(&mut attrs);
                            }
                            acc = AsStridedScatterOp::build_named1(&mut rw, &[acc, *v], &attrs)?;
                        }
                        acc
                    }
                },
            };
            finals.push(fin);
        }
        // Metadata of the inner inputs.
        let mut input_info: Vec<InputAliasInfo> = base_infos.clone();
        for i in 0..n {
            if !members_of.contains_key(&i) {
                let mut info = meta.input_info[i].clone();
                if let Some(SetSource::Input(j)) = info.set_source {
                    info.set_source = Some(SetSource::Input(inner_of(j)));
                }
                if set_onto_member.contains(&i) {
                    info.mutation_type = MutationType::MutatedOutGraph;
                }
                input_info.push(info);
            }
        }
        // Outputs: refer to the base, with recipes relative to it.
        let mut output_info: Vec<OutputAliasInfo> = Vec::new();
        for o in &meta.output_info {
            let mut o = o.clone();
            let refers = matches!(o.output_type, OutputType::IsInput | OutputType::AliasOfInput);
            if let Some(m) = o.base_idx.filter(|&m| refers && members_of.contains_key(&m)) {
                let member_layout = layouts[m].clone().expect("member");
                if o.output_type == OutputType::IsInput {
                    o.output_type = OutputType::AliasOfInput;
                    o.views = None;
                    o.layout = Some(meta.input_info[m].final_layout.clone().unwrap_or(member_layout));
                } else if let Some(v) = o.views.as_mut() {
                    let attrs = as_strided_attrs(&mut rw, &member_layout);
                    let attrs = rw.dict_attr(attrs);
                    v.insert(0, ViewStep { op: AsStridedOp::NAME.into(), attrs });
                }
            }
            o.remap_inputs(inner_of);
            output_info.push(o);
        }
        let mut metadata_mutated = Vec::new();
        let mut extra_values = Vec::new();
        for i in 0..n {
            let Some(&b) = members_of.get(&i) else { continue };
            let info = &meta.input_info[i];
            if !info.mutates_metadata {
                continue;
            }
            let layout = info.final_layout.clone().ok_or_else(|| {
                err(&rw, format!("argument {i} changes metadata but aot.meta has no final layout for it"))
            })?;
            let attrs = as_strided_attrs(&mut rw, &layout);
            extra_values.push(AsStridedOp::build_named1(&mut rw, &[finals[b]], &attrs)?);
            output_info.push(OutputAliasInfo {
                output_type: OutputType::AliasOfInput,
                base_idx: Some(b),
                requires_grad: info.requires_grad,
                views: None,
                layout: Some(layout),
                aliases_input: None,
                aliases_final_storage: false,
                storage_group: None,
            });
            metadata_mutated.push(i);
        }
        // Bases whose mutation stays in the graph end with a copy into the base.
        for (b, info) in base_infos.iter().enumerate() {
            if info.mutation_type == MutationType::MutatedInGraph {
                let unit = rw.unit_attr();
                CopyOp::build_typed(&mut rw, &[bases[b], finals[b]], &[(NO_GRAD, unit)], &[]);
            }
        }
        let new_meta = ViewAndMutationMeta {
            input_info,
            output_info,
            num_intermediate_bases: meta.num_intermediate_bases,
            keep_input_mutations: meta.keep_input_mutations,
            traced_tangents: Vec::new(),
            is_rng_op_functionalized: meta.is_rng_op_functionalized,
        };
        // Results: mutated inputs (inner order), user outputs, extras, intermediate bases.
        let mut results: Vec<Value> = Vec::new();
        for i in new_meta.mutated_inp_runtime_indices() {
            if i < nb {
                results.push(finals[i]);
            } else {
                let outer = outer_of[i - nb];
                let v = match (mutated_value(outer), &meta.input_info[outer].set_source) {
                    (Some(v), _) => v,
                    // Its new value: the base seen through its final layout.
                    (None, Some(SetSource::Input(j))) if set_onto_member.contains(&outer) => {
                        let layout = meta.input_info[outer].final_layout.clone().ok_or_else(|| {
                            err(&rw, format!("argument {outer} changes storage but has no final layout"))
                        })?;
                        let attrs = as_strided_attrs(&mut rw, &layout);
                        AsStridedOp::build_named1(&mut rw, &[finals[members_of[j]]], &attrs)?
                    }
                    _ => {
                        return Err(err(
                            &rw,
                            format!("argument {outer} is mutated outside the graph but no result holds it"),
                        ))
                    }
                };
                results.push(v);
            }
        }
        let k = old_mutated.len();
        results.extend_from_slice(&old_results[k..k + num_user]);
        results.extend(extra_values);
        results.extend_from_slice(&old_results[k + num_user..]);
        rw.set_operands(ret, &results);
        f.erase_args(&mut rw, &keep).map_err(|m| err(&rw, format!("internal error: {m}")))?;
        f.set_all_res_attrs(&mut rw, vec![Vec::new(); results.len()]);
        f.sync_function_type(&mut rw);
        let mut new_meta = new_meta;
        new_meta.traced_tangents = new_meta.compute_traced_tangents();
        let a = new_meta.to_attr(&mut rw);
        rw.set_attr(func, META_ATTR, a);
        let info = SyntheticBaseInfo {
            args: inner_args,
            bases: plans
                .iter()
                .map(|p| BaseInfo { storage: p.storage, numel: p.numel, requires_grad: p.requires_grad })
                .collect(),
            metadata_mutated,
        };
        let a = info.to_attr(&mut rw);
        rw.set_attr(func, SYNTHETIC_BASE_ATTR, a);
        rw.remove_attr(func, WHOLE_STORAGES);
        rw.remove_attr(func, STORAGE_WRITES);
        crate::canonicalize::simplify_function(&mut rw, func);
        st.add_stat("num-synthetic-bases", nb as u64);
        st.add_stat("num-merged-args", members_of.len() as u64);
        Ok(())
    }
}

fn strided_of_op(ctx: &Context, op: Op) -> Option<Strided> {
    let a = AttrView::of_op(ctx, op);
    Some(Strided { size: a.list("size")?, stride: a.list("stride")?, offset: a.i64("offset").unwrap_or(0) })
}

/// The graph's own final value of a storage, when it has one: a chain of
/// `as_strided_scatter`s from the base `b` whose every write lies in the
/// regions `written` and whose value in each region is the written value.
/// Then that chain *is* the final storage, and no scatters need adding.
fn final_base_of(ctx: &Context, b: Value, written: &[(Value, Strided)]) -> Option<Value> {
    // Candidates: values the written ones are `as_strided` views of, and
    // written values that cover the whole storage.
    let bt = ctx.value_type(b);
    let whole =
        |l: &Strided| l.offset == 0 && l.stride == [1] && ctx.as_tensor(bt).is_some_and(|t| t.shape[..] == l.size[..]);
    // The newest version of a chain through `y`: follow the next scatter
    // into it while there is exactly one.
    let newest = |mut y: Value| loop {
        let next: Vec<Op> =
            ctx.users(y).into_iter().filter(|&u| ctx.isa::<AsStridedScatterOp>(u) && ctx.operand(u, 0) == y).collect();
        match next[..] {
            [u] => y = ctx.result(u, 0),
            _ => return y,
        }
    };
    let mut candidates: Vec<Value> = Vec::new();
    for (v, l) in written {
        if whole(l) && ctx.value_type(*v) == bt {
            candidates.push(*v);
        }
        if let Some(op) = ctx.defining_op(*v) {
            if ctx.isa::<AsStridedOp>(op) && strided_of_op(ctx, op).as_ref() == Some(l) {
                candidates.push(ctx.operand(op, 0));
            }
        }
        // A write of `v` at its region into some version of the chain.
        for u in ctx.users(*v) {
            if ctx.isa::<AsStridedScatterOp>(u) && ctx.operand(u, 1) == *v && strided_of_op(ctx, u).as_ref() == Some(l)
            {
                candidates.push(newest(ctx.result(u, 0)));
            }
        }
    }
    candidates.dedup();
    'candidate: for y in candidates {
        // The chain's regions, newest first.
        let mut chain: Vec<(Op, Strided)> = Vec::new();
        let mut cur = y;
        while cur != b {
            let op = ctx.defining_op(cur)?;
            if !ctx.isa::<AsStridedScatterOp>(op) {
                continue 'candidate;
            }
            chain.push((op, strided_of_op(ctx, op)?));
            cur = ctx.operand(op, 0);
        }
        let covered = |r: &Strided| {
            // (Symbolic layouts have no elements to list: not shown covered.)
            let fixed = |s: &Strided| aot_ir::sym::layout_is_static(&s.size, &s.stride, s.offset);
            if !fixed(r) || !written.iter().all(|(_, l)| fixed(l)) {
                return false;
            }
            let idx = |s: &Strided| aot_runtime::tensor::strided_indices(&s.size, &s.stride, s.offset);
            let all: rustc_hash::FxHashSet<usize> = written.iter().flat_map(|(_, l)| idx(l)).collect();
            idx(r).iter().all(|e| all.contains(e))
        };
        if !chain.iter().all(|(_, r)| covered(r)) {
            continue;
        }
        // Each written value must be what the chain holds in its region.
        let holds = |v: Value, l: &Strided| -> bool {
            if v == y && whole(l) {
                return true;
            }
            if let Some(op) = ctx.defining_op(v) {
                if ctx.isa::<AsStridedOp>(op) && ctx.operand(op, 0) == y && strided_of_op(ctx, op).as_ref() == Some(l) {
                    return true;
                }
            }
            for (op, r) in &chain {
                if r == l {
                    return ctx.operand(*op, 1) == v;
                }
                if !aot_runtime::overlap::definitely_do_not_overlap(&view(r), &view(l)) {
                    return false;
                }
            }
            false
        };
        if written.iter().all(|(v, l)| holds(*v, l)) {
            return Some(y);
        }
    }
    None
}

/// `aot.storage_writes`: where functionalize saw each storage written.
fn storage_writes(ctx: &Context, func: Op) -> Result<FxHashMap<i64, Vec<Strided>>, String> {
    let mut out = FxHashMap::default();
    let Some(a) = ctx.get_attr(func, STORAGE_WRITES) else { return Ok(out) };
    let AttrData::Array(items) = ctx.attr_data(a) else {
        return Err(format!("'{STORAGE_WRITES}' must be a list of #aot.writes"));
    };
    for &it in items {
        let w = crate::functionalize::StorageWrites::from_attr(ctx, it)?;
        out.insert(w.storage, w.layouts);
    }
    Ok(out)
}

/// Every element written in the storage lies in the final layout of some
/// data-mutated argument, so scattering their final values back rebuilds
/// the storage. Without functionalize's write log, every data-mutated
/// argument's original layout counts as written (conservative); only a
/// metadata change can make the check fail.
fn check_coverage(
    meta: &ViewAndMutationMeta,
    p: &Plan,
    layouts: &[Option<Strided>],
    writes: Option<&[Strided]>,
) -> Result<(), String> {
    let mutated: Vec<usize> = p.all.iter().copied().filter(|&i| meta.input_info[i].mutates_data).collect();
    if !mutated.iter().any(|&i| meta.input_info[i].final_layout.is_some()) {
        return Ok(());
    }
    if layouts
        .iter()
        .flatten()
        .chain(writes.unwrap_or_default())
        .any(|s| !aot_ir::sym::layout_is_static(&s.size, &s.stride, s.offset))
        || mutated.iter().any(|&i| {
            meta.input_info[i]
                .returned_data_layout()
                .is_some_and(|s| !aot_ir::sym::layout_is_static(&s.size, &s.stride, s.offset))
        })
    {
        return Err("the written elements of arguments with symbolic layouts cannot be listed".into());
    }
    let idx = |s: &Strided| aot_runtime::tensor::strided_indices(&s.size, &s.stride, s.offset);
    let mut covered = rustc_hash::FxHashSet::default();
    for &i in &mutated {
        let l = meta.input_info[i].returned_data_layout().or(layouts[i].as_ref()).expect("has a layout");
        covered.extend(idx(l));
    }
    let written: Vec<(Option<usize>, &Strided)> = match writes {
        Some(w) => w.iter().map(|l| (None, l)).collect(),
        None => mutated.iter().map(|&i| (Some(i), layouts[i].as_ref().expect("has a layout"))).collect(),
    };
    for (arg, l) in written {
        if let Some(e) = idx(l).into_iter().find(|e| !covered.contains(e)) {
            let who = arg.map_or("the graph".to_string(), |i| format!("argument {i}"));
            return Err(format!(
                "storage element {e}, which {who} may have written, is not covered by the final layout of any mutated argument (a metadata mutation moved them): synthetic bases cannot write it back"
            ));
        }
    }
    Ok(())
}

inventory::submit! {
    PassInfo {
        argument: "synthetic-base",
        name: "SyntheticBase",
        summary: "Merge overlapping arguments of one storage, one of them mutated, into a synthetic base argument",
        description: "Groups aot.layout arguments by storage; where one is data-mutated and at least two may overlap \
(AOTAutograd's test, grouped by an address sweep rather than all pairs), the overlapping ones become one 1-D base \
argument placed first (bases in order of first appearance, then the other arguments). Members are regenerated \
inside the graph with view.as_strided, functionalize's flat base is the base argument, and the final storage value \
is written back through as_strided_scatter. aot.meta is updated as create_synthetic_base_metadata does (members \
with metadata mutations become extra alias_of_input outputs applied with as_strided_); aot.synthetic_base records \
the outer-to-inner mapping for the runtime.",
        anchor: Some(FuncOp::NAME),
        options: &[PassOptionSpec {
            name: "training",
            kind: OptionKind::Bool,
            default: "false",
            description: "The graph will be differentiated: apply AOTAutograd's training restrictions (overlapping members must be views of one differentiable base)",
        }],
        statistics: &[
            StatisticSpec { name: "num-synthetic-bases", description: "Synthetic base arguments created" },
            StatisticSpec { name: "num-merged-args", description: "Arguments replaced by views of a base" },
            StatisticSpec { name: "num-overlap-pairs-tested", description: "Pairs of aliased arguments given to the overlap test" },
        ],
        create: |o: &PassOptions| Ok(Box::new(SyntheticBase { training: o.get_bool("training") })),
    }
}
