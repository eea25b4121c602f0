//! Compiling a function: specialise it to a calling convention, run a pass
//! pipeline, and wrap the result in a runtime [`CompiledFunction`].
//!
//! The calling convention (which arguments require grad, are duplicates, or
//! share a storage, and their layouts) is written onto the function as
//! argument attributes (`aot.requires_grad`, `aot.same_as`, `aot.layout`,
//! function attribute `aot.storages`) before the pipeline runs, exactly as
//! AOTAutograd learns it from example inputs. The runtime [`Plan`] is then
//! derived once from the function's `aot.meta`: every layout is resolved
//! here, by replaying each aliased output's view chain against the
//! convention's layouts.

use aot_ir::pass::{PassManager, TimingNode};
use aot_ir::*;
use aot_passes::convention::Convention;
use aot_passes::dedupe::{DedupeInfo, DEDUPE_ATTR};
use aot_passes::meta::{OutputAliasInfo, OutputType, SetSource, ViewAndMutationMeta};
use aot_passes::synthetic_base::{InnerArg, SyntheticBaseInfo, SYNTHETIC_BASE_ATTR};
use aot_runtime::compiled::{
    ArgGuard, BaseFrom, CompiledFunction, Executable, Guards, OutputFrom, Plan, StorageFrom, Strided, WriteBack,
};
use aot_runtime::{Generator, Interpreter, Tensor};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Which backend executes the compiled graphs: the reference interpreter,
/// or a code generator of this build (`aot_codegen::target::TARGETS`, the
/// one list every entry point reads).
#[derive(Copy, Clone)]
pub enum Backend {
    /// The reference interpreter, in value semantics.
    Interp,
    /// A code generator whose code runs in this process: Cranelift (the
    /// default), LLVM (cargo feature `llvm`), the GPU (`cuda`), MLIR's own
    /// compiler (`mlir`).
    Target(&'static dyn aot_codegen::Target),
}

impl PartialEq for Backend {
    fn eq(&self, other: &Backend) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Backend {}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Backend({})", self.name())
    }
}

impl Backend {
    /// Native code through Cranelift's JIT: the default.
    pub const CRANELIFT: Backend = Backend::Target(&aot_codegen::cranelift::Cranelift);

    /// Every backend this build has, by name: the code generators that run
    /// code, in the list's order, then the interpreter.
    pub fn available() -> Vec<(&'static str, Backend)> {
        let mut all: Vec<(&'static str, Backend)> = aot_codegen::target::built()
            .into_iter()
            .filter(|(_, t)| t.capabilities().runs)
            .map(|(n, t)| (n, Backend::Target(t)))
            .collect();
        all.push(("interp", Backend::Interp));
        all
    }

    /// The backend called `s`. A code generator this build lacks (`llvm`
    /// without the cargo feature `llvm`, `cuda`, `mlir`) says which feature
    /// builds it.
    pub fn parse(s: &str) -> Result<Backend, String> {
        let all = Backend::available();
        if let Some(&(_, b)) = all.iter().find(|(n, _)| *n == s) {
            return Ok(b);
        }
        let available = all.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
        Err(match aot_codegen::target::lookup(s) {
            Some(r) if r.target.is_none() => format!(
                "backend '{s}' is not available: this build of aot has no {} (build with the cargo feature `{}`); available: {available}",
                r.title,
                r.feature.unwrap_or("?")
            ),
            Some(_) => format!("backend '{s}' writes text only (aot-opt --emit); available: {available}"),
            None => format!("unknown backend '{s}' (available: {available})"),
        })
    }

    /// Whether this backend runs every program on this machine: the
    /// interpreter and the CPU backends always, `cuda` where there is a GPU;
    /// `mlir` runs only the programs that export to upstream MLIR. Tests
    /// that loop over [`Backend::available`] take these.
    pub fn runs_everything_here(self) -> bool {
        match self {
            Backend::Interp => true,
            Backend::Target(t) => t.runs_everything_here(),
        }
    }

    /// The backend's name, as [`Backend::parse`] accepts it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::Target(t) => t.name(),
        }
    }
}

fn to_runtime(s: &aot_passes::meta::Strided) -> Strided {
    Strided { size: s.size.iter().copied().collect(), stride: s.stride.iter().copied().collect(), offset: s.offset }
}

/// Replays a view chain on a layout (compile-time view replay); rules over
/// symbolic sizes read the ranges and guards of `func`.
pub(crate) fn replay(
    ctx: &Context,
    func: Op,
    steps: &[aot_passes::meta::ViewStep],
    from: &Strided,
) -> Result<Strided, String> {
    let mut l =
        aot_dialects::view::Layout { sizes: from.size.clone(), strides: from.stride.clone(), offset: from.offset };
    for s in steps {
        let vi = aot_dialects::view::view_interface(&s.op)
            .ok_or_else(|| format!("'{}' in a view recipe is not a view op", s.op))?;
        let AttrData::Dict(attrs) = ctx.attr_data(s.attrs) else {
            return Err("view recipe attributes must be a dictionary".into());
        };
        let next = (vi.layout)(&AttrView { op: Some(func), ..AttrView::of_attrs(ctx, attrs) }, &l)?;
        l = next.into_iter().next().ok_or("a recipe step produced no layout")?;
    }
    Ok(Strided { size: l.sizes, stride: l.strides, offset: l.offset })
}

/// How the graph's inputs relate to the user's arguments, composed from
/// `aot.dedupe` and `aot.synthetic_base`.
pub(crate) struct Slots {
    /// Inner (graph) input `p` → slot.
    pub of_inner: Vec<usize>,
    pub bases: Vec<BaseFrom>,
    /// Per base: its member slots (user arguments).
    pub members: Vec<Vec<usize>>,
    /// Slots of the user arguments whose metadata the runtime sets from the
    /// trailing extra outputs of a synthetic base.
    pub metadata_mutated: Vec<usize>,
    /// `(i, j)`: user argument `i` is a removed duplicate of `j`.
    pub dupes: Vec<(usize, usize)>,
    /// Members of a synthetic base that require grad after the call.
    pub member_requires_grad: Vec<usize>,
}

fn slots(ctx: &Context, func: Op, meta: &ViewAndMutationMeta, num_user: usize) -> Result<Slots, String> {
    let dedupe = ctx.get_attr(func, DEDUPE_ATTR).map(|a| DedupeInfo::from_attr(ctx, a)).transpose()?;
    let (kept, mut dupes): (Vec<usize>, Vec<(usize, usize)>) = match &dedupe {
        Some(d) => {
            if d.keep_arg_mask.len() != num_user {
                return Err(format!(
                    "aot.dedupe covers {} arguments, the convention {num_user}",
                    d.keep_arg_mask.len()
                ));
            }
            let kept = d.kept();
            let dupes = (0..num_user).filter(|&i| !d.keep_arg_mask[i]).map(|i| (i, kept[d.add_dupe_map[i]])).collect();
            (kept, dupes)
        }
        None => ((0..num_user).collect(), Vec::new()),
    };
    let sb = ctx.get_attr(func, SYNTHETIC_BASE_ATTR).map(|a| SyntheticBaseInfo::from_attr(ctx, a)).transpose()?;
    let mut out = Slots {
        of_inner: Vec::new(),
        bases: Vec::new(),
        members: Vec::new(),
        metadata_mutated: Vec::new(),
        dupes: Vec::new(),
        member_requires_grad: Vec::new(),
    };
    match sb {
        None => out.of_inner = kept.clone(),
        Some(sb) => {
            if sb.args.len() != kept.len() {
                return Err(format!("aot.synthetic_base covers {} arguments, expected {}", sb.args.len(), kept.len()));
            }
            let nb = sb.bases.len();
            out.members = vec![Vec::new(); nb];
            let mut of_inner = vec![
                usize::MAX;
                nb + kept.len()
                    - sb.args.iter().filter(|a| matches!(a, InnerArg::Member { .. })).count()
            ];
            for (d, a) in sb.args.iter().enumerate() {
                match a {
                    InnerArg::Arg(p) => {
                        *of_inner.get_mut(*p).ok_or("aot.synthetic_base: argument index out of range")? = kept[d]
                    }
                    InnerArg::Member { base, requires_grad, .. } => {
                        out.members[*base].push(kept[d]);
                        if *requires_grad {
                            out.member_requires_grad.push(kept[d]);
                        }
                    }
                }
            }
            for (b, info) in sb.bases.iter().enumerate() {
                let member = *out.members[b].first().ok_or("aot.synthetic_base: a base without members")?;
                out.bases.push(BaseFrom { member, numel: info.numel, differentiable: info.requires_grad });
                of_inner[b] = num_user + b;
            }
            if of_inner.contains(&usize::MAX) {
                return Err("aot.synthetic_base leaves a graph argument unmapped".into());
            }
            out.of_inner = of_inner;
            out.metadata_mutated = sb.metadata_mutated.iter().map(|&d| kept[d]).collect();
        }
    }
    // Duplicates the graph ignores without a dedupe step.
    for (p, info) in meta.input_info.iter().enumerate() {
        if let Some(k) = info.dupe_of {
            dupes.push((out.of_inner[p], out.of_inner[k]));
        }
    }
    out.dupes = dupes;
    if out.of_inner.len() != meta.input_info.len() {
        return Err(format!(
            "the graph takes {} inputs but aot.meta describes {}",
            out.of_inner.len(),
            meta.input_info.len()
        ));
    }
    Ok(out)
}

/// Derives the runtime plan of `func` from its metadata.
pub fn build_plan(ctx: &Context, func: Op, meta: &ViewAndMutationMeta) -> Result<Plans, String> {
    if ctx.has_attr(func, aot_passes::functionalize::WHOLE_STORAGES) {
        return Err("the graph reads storage elements outside its arguments (aot.whole_storages): add 'synthetic-base' to the pipeline so the storage is passed whole".into());
    }
    let conv = Convention::of_func(ctx, func)?;
    let user = conv.resolve(ctx)?;
    let n = user.len();
    let sl = slots(ctx, func, meta, n)?;
    let slot = |p: usize| sl.of_inner[p];
    // Layouts of the slots: user arguments as declared, bases 1-D.
    let mut layouts: Vec<Strided> = user
        .iter()
        .map(|a| Strided {
            size: a.layout.size.iter().copied().collect(),
            stride: a.layout.stride.iter().copied().collect(),
            offset: a.layout.offset,
        })
        .collect();
    for b in &sl.bases {
        layouts.push(Strided { size: Shape::from_slice(&[b.numel]), stride: Shape::from_slice(&[1]), offset: 0 });
    }
    let mutated = meta.mutated_inp_runtime_indices();
    let num_extra = sl.metadata_mutated.len();
    if num_extra > meta.output_info.len() {
        return Err("aot.synthetic_base lists more metadata outputs than there are outputs".into());
    }
    let num_out = meta.output_info.len();
    let num_user_out = num_out - num_extra;
    let mut plan = Plan {
        num_args: n,
        graph_args: sl.of_inner.clone(),
        bases: sl.bases.clone(),
        num_returns: meta.num_forward_returns(),
        rng: meta.is_rng_op_functionalized,
        rng_advance: if meta.is_rng_op_functionalized {
            aot_passes::rng_functionalize::advance(ctx, func)
        } else {
            None
        },
        ..Plan::default()
    };
    for (k, &i) in mutated.iter().enumerate() {
        let info = &meta.input_info[i];
        let arg = slot(i);
        let layout = info.final_layout.as_ref().map(to_runtime);
        if info.mutates_storage_metadata {
            let from = match info.set_source {
                Some(SetSource::Input(j)) => StorageFrom::Arg(slot(j)),
                _ => StorageFrom::Result(k),
            };
            let layout = layout.ok_or_else(|| format!("input {i} changes storage but has no final layout"))?;
            plan.write_back.push(WriteBack::SetStorage { arg, from, layout });
        } else {
            if info.data_in_initial_layout {
                plan.write_back.push(WriteBack::CopyData { arg, result: k });
            }
            if let Some(n) = info.resized_numel {
                plan.write_back.push(WriteBack::Resize { arg, numel: n });
            }
            if info.mutates_metadata {
                let layout = layout.ok_or_else(|| format!("input {i} changes metadata but has no final layout"))?;
                plan.write_back.push(WriteBack::AsStrided { arg, layout });
            }
            if info.mutates_data && !info.data_in_initial_layout {
                plan.write_back.push(WriteBack::CopyData { arg, result: k });
            }
        }
    }
    // Members of a synthetic base whose metadata changed.
    for (e, &arg) in sl.metadata_mutated.iter().enumerate() {
        let o = &meta.output_info[num_user_out + e];
        let layout = o.layout.as_ref().map(to_runtime).ok_or_else(|| format!("metadata output {e} has no layout"))?;
        plan.write_back.push(WriteBack::AsStrided { arg, layout });
    }
    // Inputs a mutation gave autograd history (also through a view of
    // them that set_ moved away: the input itself is then not mutated).
    for (p, info) in meta.input_info.iter().enumerate() {
        let s = slot(p);
        if s < n && info.requires_grad && !user[s].requires_grad {
            plan.write_back.push(WriteBack::RequiresGrad { arg: s });
        }
    }
    for &m in &sl.member_requires_grad {
        if !user[m].requires_grad {
            plan.write_back.push(WriteBack::RequiresGrad { arg: m });
        }
    }
    // An alias of input `p` (output `j`) whose storage a resize_ grew: the
    // added elements are written by no write-back (in or out of the graph),
    // so the view takes the graph's values.
    let grown_values = |p: Option<usize>, j: usize| {
        p.filter(|&p| meta.input_info.get(p).is_some_and(|i| i.resized_numel.is_some())).map(|_| mutated.len() + j)
    };
    let returned = returned_view_roots(ctx, func);
    // An output's layout in the storage eager holds it in: a view of an
    // intermediate has one; without one, it is contiguous from the start.
    let own_layout = |k: usize| -> Option<Strided> {
        match &meta.output_info.get(k)?.layout {
            Some(l) => Some(to_runtime(l)),
            None => contiguous_of_result(ctx, func, mutated.len() + k).ok(),
        }
    };
    let ends = Ends { layout_of: &own_layout, facts: aot_ir::sym::Facts::of_func(ctx, func).unwrap_or_default() };
    let mut placed = placements(meta, &returned, mutated.len(), num_user_out, &ends);
    for (j, o) in meta.output_info[..num_user_out].iter().enumerate() {
        let layout_of = |base: &Strided| -> Result<Strided, String> {
            match (&o.views, &o.layout) {
                (Some(v), _) if !v.is_empty() => replay(ctx, func, v, base),
                (_, Some(l)) => Ok(to_runtime(l)),
                _ => Err(format!("output {j} aliases a base but has no recipe")),
            }
        };
        let from = match o.output_type {
            OutputType::NonAlias if o.aliases_input.is_some() => {
                let arg = slot(o.aliases_input.expect("checked"));
                let layout = o
                    .layout
                    .as_ref()
                    .map(to_runtime)
                    .ok_or_else(|| format!("output {j} aliases input {arg} without a layout"))?;
                OutputFrom::ViewOfArg {
                    arg,
                    layout,
                    after_call: o.aliases_final_storage,
                    values_from: grown_values(o.aliases_input, j),
                }
            }
            OutputType::NonAlias | OutputType::UnsafeViewAlias | OutputType::CustomFunctionView => {
                let r = mutated.len() + j;
                let Placement { viewed, sibling } = placed.get_mut(j).map(std::mem::take).unwrap_or_default();
                match (viewed, sibling, &o.layout) {
                    // Two views of one intermediate that is not returned
                    // (`y = x.flip(0); return y[2], y[2].expand(2)`): eager
                    // holds them in one storage, so the first is rebuilt in
                    // a storage that holds every such view, and the others
                    // view it.
                    (_, Some(s), _) => {
                        let layout = own_layout(j).ok_or_else(|| format!("output {j} has no layout"))?;
                        match s {
                            Sibling::Of(k) => OutputFrom::ViewOfOutput { output: k, layout, values_from: Some(r) },
                            Sibling::First { numel } => OutputFrom::Restrided { result: r, layout, numel },
                        }
                    }
                    (Some(k), None, Some(l)) => {
                        OutputFrom::ViewOfOutput { output: k, layout: to_runtime(l), values_from: None }
                    }
                    // No layout: contiguous from the start of its storage.
                    (Some(k), None, None) => OutputFrom::ViewOfOutput {
                        output: k,
                        layout: contiguous_of_result(ctx, func, r)?,
                        values_from: None,
                    },
                    (None, None, Some(l)) => OutputFrom::Restrided { result: r, layout: to_runtime(l), numel: 0 },
                    (None, None, None) => OutputFrom::Result(r),
                }
            }
            OutputType::IsInput => OutputFrom::Arg(slot(o.base_idx.ok_or("is_input output without base_idx")?)),
            OutputType::AliasOfInput => {
                let arg = slot(o.base_idx.ok_or("alias_of_input output without base_idx")?);
                OutputFrom::ViewOfArg {
                    arg,
                    layout: layout_of(&layouts[arg])?,
                    after_call: false,
                    values_from: grown_values(o.base_idx, j),
                }
            }
            OutputType::AliasOfIntermediate | OutputType::AliasOfIntermediateSaveAsOutput => {
                let b = o.base_idx.ok_or("intermediate alias without base_idx")?;
                let r = mutated.len() + num_out + b;
                let base = match o.layout.as_ref() {
                    Some(_) => layout_of(&contiguous_of_result(ctx, func, r)?)?,
                    None => return Err(format!("output {j} has no layout")),
                };
                OutputFrom::ViewOfResult { result: r, layout: base }
            }
            OutputType::AliasOfIntermediateBaseIsUserOutput => {
                let b = o.base_idx.ok_or("intermediate alias without base_idx")?;
                let twin = meta.output_info.get(b).ok_or("intermediate alias of a missing output")?;
                let restrided = matches!(
                    twin.output_type,
                    OutputType::NonAlias | OutputType::UnsafeViewAlias | OutputType::CustomFunctionView
                ) && twin.aliases_input.is_none();
                // Its buffer holds the intermediate's storage in order when it
                // is restrided into it, or when its layout there is trivial
                // (contiguous from the start): then this view's layout in
                // that storage applies as is, whatever metadata mutations
                // changed the twin since the view was taken.
                let in_storage_order = restrided && (twin.layout.is_some() || o.layout.is_some());
                let layout = match (&o.views, twin.layout.as_ref().filter(|_| restrided)) {
                    // The detach pattern: the same layout as its twin.
                    (Some(v), Some(l)) if v.is_empty() => to_runtime(l),
                    // A twin regenerated from an intermediate base lies in
                    // that base's storage at the layout both share.
                    (Some(v), None)
                        if v.is_empty()
                            && o.layout.is_some()
                            && matches!(
                                twin.output_type,
                                OutputType::AliasOfIntermediate | OutputType::AliasOfIntermediateSaveAsOutput
                            ) =>
                    {
                        o.layout.as_ref().map(to_runtime).ok_or_else(|| format!("output {j} has no layout"))?
                    }
                    (Some(v), None) if v.is_empty() => {
                        let size = o.layout.as_ref().map(|l| l.size.clone()).unwrap_or_default();
                        let size: Shape = size.into_iter().collect();
                        Strided { stride: aot_runtime::tensor::contiguous_strides(&size), size, offset: 0 }
                    }
                    _ if in_storage_order => {
                        o.layout.as_ref().map(to_runtime).ok_or_else(|| format!("output {j} has no layout"))?
                    }
                    _ => {
                        let r = mutated.len() + b;
                        layout_of(&contiguous_of_result(ctx, func, r)?)?
                    }
                };
                // A restrided twin's fresh storage holds its own elements
                // only; this view may reach others of the intermediate, so
                // it takes the graph's values for them.
                let values_from = (restrided && twin.layout.is_some()).then_some(mutated.len() + j);
                OutputFrom::ViewOfOutput { output: b, layout, values_from }
            }
        };
        plan.outputs.push((from, o.requires_grad));
    }
    plan.guards = guards(&user, meta, &sl, n);
    if user.iter().any(|a| !aot_ir::sym::is_static(&a.shape)) {
        plan.guards.symbols = Some(aot_ir::sym::Facts::of_func(ctx, func)?);
    }
    let backward = match ctx.get_attr(func, aot_passes::partition::BACKWARD_ATTR) {
        None => None,
        Some(a) => {
            let name = match ctx.attr_data(a) {
                AttrData::SymbolRef(s) => ctx.sym_str(*s).to_string(),
                _ => return Err("'aot.backward' must name a function".into()),
            };
            let module = ctx.parent_op(func).ok_or("a function outside a module")?;
            let bwd = aot_dialects::func::lookup_func(ctx, module, &name)
                .ok_or_else(|| format!("the backward function @{name} does not exist"))?
                .op;
            let view = TrainView { user: &user, sl: &sl, layouts: &layouts, num_user_out, conv: &conv };
            Some((bwd, crate::train_plan::build(ctx, func, bwd, meta, &plan, &view)?))
        }
    };
    let mut effects = arg_effects(meta, &sl, &user);
    if let Some((_, tp)) = &backward {
        for (e, &r) in effects.iter_mut().zip(&tp.grad_reaches) {
            e.grad_reaches = r;
        }
        for &i in &tp.mutated_args {
            if let Some(e) = effects.get_mut(i) {
                e.mutation_takes_tangent = true;
            }
        }
    }
    Ok(Plans { forward: plan, backward, effects })
}

/// What a call does to each user argument, read through the slots (a
/// removed duplicate has its original's effects; a member of a synthetic
/// base has its base's data mutation).
fn arg_effects(
    meta: &ViewAndMutationMeta,
    sl: &Slots,
    user: &[aot_passes::convention::ResolvedArg],
) -> Vec<ArgEffects> {
    let n = user.len();
    let mut out: Vec<ArgEffects> = user
        .iter()
        .map(|a| ArgEffects {
            mutates_data: false,
            mutates_metadata: false,
            requires_grad: a.requires_grad,
            data_mutations_hidden_from_autograd: true,
            grad_reaches: true,
            mutation_takes_tangent: false,
        })
        .collect();
    let add = |e: &mut ArgEffects, info: &aot_passes::meta::InputAliasInfo| {
        e.mutates_data |= info.mutates_data;
        e.mutates_metadata |= info.mutates_metadata || info.mutates_storage_metadata;
        if info.mutates_data {
            e.data_mutations_hidden_from_autograd &=
                info.mutations_hidden_from_autograd || info.mutations_under_no_grad_or_inference_mode;
        }
    };
    for (p, info) in meta.input_info.iter().enumerate() {
        let s = sl.of_inner[p];
        if s < n {
            add(&mut out[s], info);
        } else if let Some(members) = sl.members.get(s - n) {
            for &m in members {
                add(&mut out[m], info);
            }
        }
    }
    for &m in &sl.metadata_mutated {
        out[m].mutates_metadata = true;
    }
    for &(i, j) in &sl.dupes {
        let o = out[j];
        out[i].mutates_data |= o.mutates_data;
        out[i].mutates_metadata |= o.mutates_metadata;
        out[i].data_mutations_hidden_from_autograd &= o.data_mutations_hidden_from_autograd;
    }
    for e in &mut out {
        e.data_mutations_hidden_from_autograd &= e.mutates_data;
    }
    out
}

/// What a call of a compiled function does to one of its user arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgEffects {
    /// The call writes the argument's elements (in place, as eager would).
    pub mutates_data: bool,
    /// The call changes its sizes, strides, offset or storage.
    pub mutates_metadata: bool,
    /// It was compiled as requiring grad.
    pub requires_grad: bool,
    /// The call writes its data, and only where autograd does not see it
    /// (under `no_grad` or inference mode): a leaf that requires grad may
    /// be written so, as in eager.
    pub data_mutations_hidden_from_autograd: bool,
    /// A gradient can reach it (compiled for training): false only where
    /// none provably does, no differentiable path leading from it to an
    /// output, where eager autograd leaves `.grad` None. True otherwise,
    /// and for a function compiled without a backward.
    pub grad_reaches: bool,
    /// Compiled for training, the call writes it where autograd sees it
    /// (its new value takes a tangent, `backward_with_mutations`): an
    /// embedder records the write on the argument's history, as eager's
    /// in-place op does, also for one that did not require grad before.
    pub mutation_takes_tangent: bool,
}

/// The plans of a compiled function.
pub struct Plans {
    pub forward: Plan,
    /// The backward function and its plan, when compiled for training.
    pub backward: Option<(Op, aot_runtime::backward::TrainPlan)>,
    /// Per user argument, what a call does to it.
    pub effects: Vec<ArgEffects>,
}

/// What the training plan needs of the forward plan's derivation.
pub(crate) struct TrainView<'a> {
    pub user: &'a [aot_passes::convention::ResolvedArg],
    pub sl: &'a Slots,
    pub layouts: &'a [Strided],
    pub num_user_out: usize,
    pub conv: &'a Convention,
}

/// The guards of the convention `user`.
fn guards(user: &[aot_passes::convention::ResolvedArg], meta: &ViewAndMutationMeta, sl: &Slots, n: usize) -> Guards {
    let mut mutated = vec![false; n];
    let mut resized = vec![false; n];
    for (p, info) in meta.input_info.iter().enumerate() {
        let touched = info.mutates_data || info.mutates_metadata || info.mutates_storage_metadata;
        let s = sl.of_inner[p];
        let targets: Vec<usize> = if s >= n { sl.members[s - n].clone() } else { vec![s] };
        for t in targets {
            mutated[t] |= touched;
            resized[t] |= info.resized_numel.is_some();
        }
    }
    // Removed duplicates share their original's fate.
    for &(i, j) in &sl.dupes {
        mutated[i] |= mutated[j];
    }
    for &m in &sl.metadata_mutated {
        mutated[m] = true;
    }
    let args = user
        .iter()
        .enumerate()
        .map(|(i, a)| ArgGuard {
            dtype: a.elem,
            size: a.layout.size.iter().copied().collect(),
            stride: a.layout.stride.iter().copied().collect(),
            offset: a.layout.offset,
            requires_grad: a.requires_grad,
            is_leaf: a.is_leaf,
            storage_len: if resized[i] { a.storage_numel.map(|x| x as usize) } else { None },
        })
        .collect();
    // Arguments declared in one storage that the function touches must
    // really share it.
    let mut shared: Vec<(Vec<usize>, usize)> = Vec::new();
    let mut by_class: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
    for (i, a) in user.iter().enumerate() {
        by_class.entry(a.storage_class).or_default().push(i);
    }
    let mut classes: Vec<Vec<usize>> = by_class.into_values().collect();
    classes.sort();
    for members in classes {
        // Duplicates are checked as the same object instead.
        let distinct: Vec<usize> =
            members.iter().copied().filter(|&i| !sl.dupes.iter().any(|&(d, _)| d == i)).collect();
        if distinct.len() >= 2 && distinct.iter().any(|&i| mutated[i]) {
            let len = distinct
                .iter()
                .map(|&i| {
                    let l = &user[i].layout;
                    if !aot_ir::sym::layout_is_static(&l.size, &l.stride, l.offset) {
                        // Not a declared shared storage (refused with
                        // symbolic sizes): sharing is all there is to check.
                        0
                    } else if l.size.contains(&0) {
                        0
                    } else {
                        (l.offset + l.size.iter().zip(&l.stride).map(|(&s, &st)| (s - 1) * st).sum::<i64>() + 1)
                            as usize
                    }
                })
                .chain(user[distinct[0]].storage_numel.map(|x| x as usize))
                .max()
                .unwrap_or(0);
            shared.push((distinct, len));
        }
    }
    Guards {
        args,
        symbols: None,
        same_object: sl.dupes.clone(),
        shared_storage: shared,
        storage_class: user.iter().map(|a| a.storage_class).collect(),
        mutated,
    }
}

/// The user output whose value user output `j` views, when `j` is a chain
/// of view ops over a value the graph also returns as output `k` in its own
/// fresh, contiguous buffer (a non-aliased output without a layout): then
/// `j`'s layout in its base's storage is its layout in `k`'s buffer. Also
/// when `j` is that value itself, returned again after `k` in the storage
/// eager holds both in (a view of all of it that functionalization folded
/// away).
/// `returned` holds the graph's results (`first` mutated inputs, then the
/// user outputs) with the view chains that define them.
fn viewed_output(meta: &ViewAndMutationMeta, returned: &[(Value, Value)], first: usize, j: usize) -> Option<usize> {
    let &(v, root) = returned.get(first + j)?;
    // Only outputs eager holds in one storage (distinct tensors may be one
    // value here: `x * 3` computed twice and merged).
    let group = meta.output_info.get(j)?.storage_group?;
    meta.output_info.iter().enumerate().position(|(k, o)| {
        // One value returned twice in one storage (`return y[:], y`, the
        // whole-tensor view folded away): the later one views the earlier.
        (if root == v { k < j } else { k != j })
            && returned.get(first + k).map(|r| r.0) == Some(root)
            && o.output_type == OutputType::NonAlias
            && o.layout.is_none()
            && o.aliases_input.is_none()
            && o.storage_group == Some(group)
    })
}

/// Where user output `j`, a non-aliased view of an intermediate the graph
/// does not return (its layout is in that intermediate's storage), lies
/// beside the other outputs eager holds in that storage (its storage
/// group) that view the same value.
#[derive(Clone, Copy)]
enum Sibling {
    /// The first of them: a fresh storage of `numel` elements holds them all.
    First { numel: i64 },
    /// A later one: a view of output `k`'s storage (the first's).
    Of(usize),
}

/// [`Sibling`] for user output `j`, when it has siblings; `ends` says where
/// each output's layout ends in that storage. Only for outputs that do not
/// require grad (a gradient of one does not reach the others: their graph
/// values are distinct results), and for outputs of an op returning several
/// views (`unsafe_view_alias`), which PyTorch forbids writing in place, so
/// that no write through one can concern the others' gradients (`a, b =
/// y.unbind(0); return a, b`: eager's share `y`'s storage).
fn sibling_view(
    meta: &ViewAndMutationMeta,
    returned: &[(Value, Value)],
    first: usize,
    j: usize,
    ends: &Ends<'_>,
) -> Option<Sibling> {
    let &(v, root) = returned.get(first + j)?;
    let o = meta.output_info.get(j)?;
    let group = o.storage_group?;
    let shares = |m: &OutputAliasInfo| match m.output_type {
        OutputType::NonAlias => !m.requires_grad,
        OutputType::UnsafeViewAlias => true,
        _ => false,
    };
    if root == v || !shares(o) {
        return None;
    }
    let members: Vec<usize> = meta
        .output_info
        .iter()
        .enumerate()
        .filter(|&(k, m)| {
            returned.get(first + k).is_some_and(|r| r.1 == root && r.0 != root)
                && shares(m)
                && m.aliases_input.is_none()
                && m.storage_group == Some(group)
        })
        .map(|(k, _)| k)
        .collect();
    if members.len() < 2 {
        return None;
    }
    // Every member's elements lie in the first's storage (where no end is
    // known to be the last, none of them is placed: each gets its own).
    let mut numel = 0;
    for &k in &members {
        numel = ends.max(numel, ends.end(k)?)?;
    }
    Some(if members[0] != j { Sibling::Of(members[0]) } else { Sibling::First { numel } })
}

/// Where outputs' layouts end in the storage eager holds them in, as size
/// expressions: a symbolic function's layouts end at an expression of its
/// symbols, and the storage that holds several of them must reach the
/// largest end at every size the function accepts. Where no end is known
/// to be the largest (the function's ranges and guards decide), the
/// outputs are not placed together.
struct Ends<'a> {
    layout_of: &'a dyn Fn(usize) -> Option<Strided>,
    facts: aot_ir::sym::Facts,
}

impl Ends<'_> {
    /// One past the last storage element output `k`'s layout reaches
    /// (non-negative strides; a symbolic size of 0 reaches nothing, and the
    /// expression then ends at or before the offset, which no other
    /// member's storage needs).
    fn end(&self, k: usize) -> Option<i64> {
        let l = (self.layout_of)(k)?;
        if aot_ir::sym::layout_is_static(&l.size, &l.stride, l.offset) {
            return aot_ir::size::checked_extent(&l.size, &l.stride, l.offset).map(|e| e.1);
        }
        if !l.stride.iter().all(|&s| self.facts.known_le(0, s)) {
            return None;
        }
        aot_ir::sym::layout_end(&l.size, &l.stride, l.offset).ok()
    }

    /// Whether `a <= b` at every size the function accepts.
    fn le(&self, a: i64, b: i64) -> bool {
        self.facts.known_le(a, b)
    }

    /// The larger of two ends, when one is known to be.
    fn max(&self, a: i64, b: i64) -> Option<i64> {
        if self.le(a, b) {
            Some(b)
        } else if self.le(b, a) {
            Some(a)
        } else {
            None
        }
    }
}

/// Where a user output the graph computes lies beside the other outputs
/// eager holds in its storage (none for an output that aliases an input).
#[derive(Default)]
struct Placement {
    /// A view of a value the graph also returns as output `k` ([`viewed_output`]):
    /// eager returns both in one storage (a write through one is seen
    /// through the other), so this output is a view of it.
    viewed: Option<usize>,
    /// Otherwise, one of several outputs written into one storage.
    sibling: Option<Sibling>,
}

/// [`Placement`] of every user output. Outputs of one storage group go
/// together through view chains ([`viewed_output`], [`sibling_view`]); the
/// ones no chain connects, because their values are no longer views of one
/// value, are joined here: the value-level rewrites may fold a view of an
/// updated intermediate into the update itself (`y = x.index_select(..); z
/// = y.as_strided(..); z.index_put_(..); return z, z.squeeze(1)`: the first
/// output becomes `index_put`'s result, the second stays a view of the
/// scatter into `y`). Their values agree wherever their eager layouts
/// overlap (they are that storage's final contents), so each is written at
/// its layout into one storage: into the buffer of an output the others
/// already view (its layout is the storage's own, contiguous from the
/// start), when it holds this output's layout; else the first of them gets
/// a storage that holds them all and the others view it. Only outputs that
/// do not require grad, as for [`sibling_view`].
fn placements(
    meta: &ViewAndMutationMeta,
    returned: &[(Value, Value)],
    first: usize,
    num_user_out: usize,
    ends: &Ends<'_>,
) -> Vec<Placement> {
    let outputs = &meta.output_info[..num_user_out.min(meta.output_info.len())];
    let computed = |o: &OutputAliasInfo| match o.output_type {
        OutputType::NonAlias => o.aliases_input.is_none(),
        OutputType::UnsafeViewAlias | OutputType::CustomFunctionView => true,
        _ => false,
    };
    let mut placed: Vec<Placement> = outputs
        .iter()
        .enumerate()
        .map(|(j, o)| {
            let viewed = (computed(o) && o.output_type == OutputType::NonAlias)
                .then(|| viewed_output(meta, returned, first, j))
                .flatten();
            let sibling =
                (computed(o) && viewed.is_none()).then(|| sibling_view(meta, returned, first, j, ends)).flatten();
            Placement { viewed, sibling }
        })
        .collect();
    let extent = |k: usize| ends.end(k);
    // Outputs whose buffers others view, with the elements each holds.
    let mut anchors: Vec<(usize, i64)> = Vec::new();
    for (j, p) in placed.iter().enumerate() {
        if let Some(Sibling::First { numel }) = p.sibling {
            anchors.push((j, numel));
        }
    }
    for k in placed.iter().filter_map(|p| p.viewed) {
        if let Some(end) = extent(k) {
            anchors.push((k, end));
        }
    }
    let joins =
        |m: &OutputAliasInfo| m.output_type == OutputType::NonAlias && !m.requires_grad && m.aliases_input.is_none();
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
    for (j, o) in outputs.iter().enumerate() {
        let p = &placed[j];
        let connected = p.viewed.is_some() || p.sibling.is_some() || anchors.iter().any(|&(k, _)| k == j);
        if let (Some(g), false, true) = (o.storage_group, connected, joins(o)) {
            groups.entry(g).or_default().push(j);
        }
    }
    for (g, loose) in groups {
        let mut rest = Vec::new();
        for j in loose {
            let Some(e) = extent(j) else { continue };
            let holder = anchors
                .iter()
                .find(|&&(k, numel)| outputs[k].storage_group == Some(g) && joins(&outputs[k]) && ends.le(e, numel));
            match holder {
                Some(&(k, _)) => placed[j].sibling = Some(Sibling::Of(k)),
                None => rest.push((j, e)),
            }
        }
        if let [(head, _), tail @ ..] = &rest[..] {
            if !tail.is_empty() {
                let Some(numel) = rest.iter().try_fold(0, |m, &(_, e)| ends.max(m, e)) else { continue };
                placed[*head].sibling = Some(Sibling::First { numel });
                for &(j, _) in tail {
                    placed[j].sibling = Some(Sibling::Of(*head));
                }
            }
        }
    }
    placed
}

/// `func`'s returned values, each with the value at the root of the chain
/// of view ops that defines it (the value itself when no view does). The
/// chain is replayed from the root's contiguous layout: a `reshape` (or a
/// `view`, in value semantics) that its operand's layout cannot express
/// copies, as in PyTorch, and the value is then a root of its own
/// (`reshape(permute(y))` returned beside `y` is not a view of `y`).
fn returned_view_roots(ctx: &Context, func: Op) -> Vec<(Value, Value)> {
    let Some(ret) = aot_dialects::func::FuncView::new(ctx, func).and_then(|f| f.return_op(ctx)) else {
        return Vec::new();
    };
    let root = |v: Value| {
        let mut chain = Vec::new();
        let mut cur = v;
        while let Some(op) =
            ctx.defining_op(cur).filter(|&op| ctx.op_def(op).is_some_and(aot_passes::simplify::lang::is_view))
        {
            chain.push((op, cur));
            cur = ctx.operand(op, 0);
        }
        let Some(t) = ctx.as_tensor(ctx.value_type(cur)) else { return v };
        let mut layout = aot_dialects::view::Layout {
            strides: aot_runtime::tensor::contiguous_strides(&t.shape),
            sizes: t.shape.clone(),
            offset: 0,
        };
        for &(op, result) in chain.iter().rev() {
            let index = ctx.results(op).iter().position(|&r| r == result);
            match (aot_dialects::view::view_layouts(ctx, op, &layout), index) {
                (Ok(mut ls), Some(k)) if k < ls.len() => layout = ls.swap_remove(k),
                _ => return v,
            }
        }
        cur
    };
    ctx.operands(ret).map(|v| (v, root(v))).collect()
}

/// The contiguous layout of result `r` of `func`.
fn contiguous_of_result(ctx: &Context, func: Op, r: usize) -> Result<Strided, String> {
    let f = aot_dialects::func::FuncView::new(ctx, func).ok_or("not a function")?;
    let (_, results) = f.function_type(ctx);
    let t =
        results.get(r).and_then(|&t| ctx.as_tensor(t)).ok_or_else(|| format!("the graph has no tensor result {r}"))?;
    Ok(Strided { size: t.shape.clone(), stride: aot_runtime::tensor::contiguous_strides(&t.shape), offset: 0 })
}

/// Runs a value-semantics function on the reference interpreter.
pub struct InterpExecutable {
    ctx: Rc<Context>,
    func: Op,
    generator: Rc<RefCell<Generator>>,
    /// Per set of absent tangents (a backward's), the function specialised
    /// for them (`aot_codegen::absent`), in a context of its own: the
    /// shared one is the forward's too, and stays as it is.
    specialised: aot_runtime::compiled::Specialisations<(Context, Op)>,
}

fn interpret(
    ctx: &Context,
    func: Op,
    generator: &RefCell<Generator>,
    args: Vec<Tensor>,
) -> Result<Vec<Tensor>, String> {
    let mut it = Interpreter::new(ctx);
    it.generator = *generator.borrow();
    // Located as eager mode reports it (the source text is not kept).
    let r = it.call_owned(func, args).map_err(|d| d.render(ctx, &aot_ir::SourceMgr::new()).trim_end().to_string());
    *generator.borrow_mut() = it.generator;
    r
}

/// `func` printed and parsed into a context of its own, then specialised
/// for the tangents `absent`.
fn specialise(ctx: &Context, func: Op, first_tangent: usize, absent: &[usize]) -> Result<(Context, Op), String> {
    let (mut own, f) = aot_dialects::func::own_copy(ctx, func, "<backward>")?;
    aot_codegen::absent::drop_absent_tangents(&mut own, f, first_tangent, absent).map_err(|d| d.message)?;
    Ok((own, f))
}

impl Executable for InterpExecutable {
    fn run(&mut self, args: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        interpret(&self.ctx, self.func, &self.generator, args)
    }

    fn run_absent(&mut self, args: Vec<Tensor>, first_tangent: usize, absent: &[usize]) -> Result<Vec<Tensor>, String> {
        let (ctx, func) = (&self.ctx, self.func);
        match self.specialised.get_or_build(absent, || specialise(ctx, func, first_tangent, absent)) {
            Some(Ok((ctx, f))) => interpret(ctx, *f, &self.generator, args),
            Some(Err(m)) => Err(format!("specialising the backward: {m}")),
            None => self.run(args),
        }
    }
}

/// A compiled module function, with the context that owns its IR.
pub struct Compiled {
    pub function: CompiledFunction,
    pub meta: ViewAndMutationMeta,
    pub generator: Rc<RefCell<Generator>>,
    /// The module after the pipeline (with `CompileOptions::keep_ir`).
    pub ir: Option<String>,
    /// Its Graphviz picture ([`crate::dot`]; with `CompileOptions::keep_ir`).
    pub dot: Option<String>,
    /// The picture of its partition alone ([`crate::dot::render_partition`];
    /// with `CompileOptions::keep_ir`, when the pipeline partitioned).
    pub dot_partition: Option<String>,
    /// What the partition decided (with `CompileOptions::keep_ir`).
    pub partition: Option<crate::dot::PartitionSummary>,
    /// Wall time of each pass of the pipeline (summed over the functions
    /// it ran on), in pipeline order.
    pub pass_times: Vec<(String, Duration)>,
    /// Wall time of the forward's code generation (the backward's, for
    /// native code, is on its first call).
    pub codegen_time: Duration,
    /// Per user argument, what a call does to it.
    pub effects: Vec<ArgEffects>,
    /// Per user output, the user argument it is, or views (`(argument, is
    /// the argument object itself)`); a view of a synthetic base names one
    /// of its members (all share the storage).
    pub output_args: Vec<Option<(usize, bool)>>,
}

/// Per user output of `plan`, the user argument it is or views (see
/// `Compiled::output_args`).
fn output_args(plan: &Plan) -> Vec<Option<(usize, bool)>> {
    let user = |s: usize| if s < plan.num_args { Some(s) } else { plan.bases.get(s - plan.num_args).map(|b| b.member) };
    plan.outputs
        .iter()
        .map(|(from, _)| match from {
            OutputFrom::Arg(s) => user(*s).map(|a| (a, true)),
            OutputFrom::ViewOfArg { arg, .. } => user(*arg).map(|a| (a, false)),
            _ => None,
        })
        .collect()
}

/// What to compile with.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub pipeline: String,
    pub backend: Backend,
    /// Keep the printed module after the pipeline in `Compiled::ir`.
    pub keep_ir: bool,
    /// A line on stderr as each pass and the code generation start (see
    /// `PassManagerOptions::progress`).
    pub progress: bool,
}

/// Runs the pipeline on the module and compiles `func`; errors come back as
/// rendered diagnostics.
pub fn compile(
    mut ctx: Context,
    sources: &SourceMgr,
    module: Op,
    func: Op,
    opts: &CompileOptions,
) -> Result<Compiled, String> {
    let render = |ctx: &Context, diags: &[Diagnostic]| diags.iter().map(|d| d.render(ctx, sources)).collect::<String>();
    let mut pm = PassManager::parse(&opts.pipeline).map_err(|e| e.to_string())?;
    pm.options.progress = opts.progress;
    if let Err(f) = pm.run(&mut ctx, module, &mut std::io::sink()) {
        return Err(render(&ctx, &f.diagnostics));
    }
    let meta = match ViewAndMutationMeta::of_func(&ctx, func) {
        Ok(Some(m)) => m,
        Ok(None) => {
            let d = Diagnostic::op_error(
                &ctx,
                func,
                format!(
                    "the pipeline '{}' did not produce aot.meta (it needs functionalize and collect-metadata)",
                    opts.pipeline
                ),
            );
            return Err(render(&ctx, &[d]));
        }
        Err(m) => {
            return Err(render(&ctx, &[Diagnostic::op_error(&ctx, func, format!("has malformed aot.meta: {m}"))]))
        }
    };
    let plans = build_plan(&ctx, func, &meta).map_err(|m| {
        render(&ctx, &[Diagnostic::op_error(&ctx, func, format!("cannot derive its calling convention: {m}"))])
    })?;
    let ir = opts.keep_ir.then(|| aot_ir::printer::print_op(&ctx, module, Default::default()));
    let dot = opts.keep_ir.then(|| crate::dot::render(&ctx, module));
    let dot_partition = if opts.keep_ir { crate::dot::render_partition(&ctx, module) } else { None };
    let partition = if opts.keep_ir { crate::dot::partition_summary(&ctx, module) } else { None };
    let pass_times = pass_times(&pm.timing());
    let t_codegen = Instant::now();
    if opts.progress {
        eprintln!("aot:     code generation ({})", opts.backend.name());
    }
    let effects = plans.effects.clone();
    let output_args = output_args(&plans.forward);
    let generator = Rc::new(RefCell::new(Generator::default()));
    let function = match opts.backend {
        Backend::Interp => {
            // The interpreter's arguments are the caller's tensors, which the
            // epilogue writes in place: reads of them after a write must see
            // the values from before it.
            aot_codegen::write_order::protect_reads(&mut ctx, func).map_err(|d| render(&ctx, &[d]))?;
            let ctx = Rc::new(ctx);
            let exe = |f: Op| -> Box<dyn Executable> {
                Box::new(InterpExecutable {
                    ctx: ctx.clone(),
                    func: f,
                    generator: generator.clone(),
                    specialised: Default::default(),
                })
            };
            let mut function = CompiledFunction::new(plans.forward, exe(func), generator.clone());
            if let Some((bwd, plan)) = plans.backward {
                function.backward = Some(aot_runtime::backward::Backward::new(exe(bwd), plan));
            }
            function
        }
        Backend::Target(target) => {
            let native = aot_codegen::Native { target, options: Default::default() };
            // A function with symbolic sizes keeps one pipeline run and gets
            // native code per set of symbol values (`aot_codegen::by_size`).
            let symbolic = aot_dialects::func::FuncView { op: func }
                .function_type(&ctx)
                .0
                .iter()
                .any(|&t| aot_ir::sym::type_is_symbolic(&ctx, t));
            if symbolic {
                let by_size = |ctx: &Context, f: Op| -> Result<Box<dyn Executable>, String> {
                    let e = aot_codegen::by_size::BySize::new(ctx, f, native.clone())
                        .map_err(|m| render(ctx, &[Diagnostic::op_error(ctx, f, m)]))?;
                    Ok(Box::new(e))
                };
                let mut function = CompiledFunction::new(plans.forward, by_size(&ctx, func)?, generator.clone());
                if let Some((bwd, plan)) = plans.backward {
                    function.backward = Some(aot_runtime::backward::Backward::new(by_size(&ctx, bwd)?, plan));
                }
                function
            } else {
                let fw = aot_codegen::compile_function(&mut ctx, func, &native, &mut String::new())
                    .map_err(|d| render(&ctx, &[d]))?;
                let mut function = CompiledFunction::new(plans.forward, fw, generator.clone());
                if let Some((bwd, plan)) = plans.backward {
                    // A target that lowers tensor-level functions itself (MLIR)
                    // may not take every op: its backward compiles now, so such
                    // a program fails to compile rather than in its first
                    // training step. Native code compiles the backward on its
                    // first call (many forward calls never need it).
                    let exe: Box<dyn Executable> = if target.capabilities().lowered_input {
                        Box::new(aot_codegen::Lazy::new(ctx, bwd, native))
                    } else {
                        aot_codegen::compile_function(&mut ctx, bwd, &native, &mut String::new())
                            .map_err(|d| render(&ctx, &[d]))?
                    };
                    function.backward = Some(aot_runtime::backward::Backward::new(exe, plan));
                }
                function
            }
        }
    };
    let codegen_time = t_codegen.elapsed();
    Ok(Compiled {
        function,
        meta,
        generator,
        ir,
        dot,
        dot_partition,
        partition,
        pass_times,
        codegen_time,
        effects,
        output_args,
    })
}

/// The passes of a timing tree with their times, each pass once (summed
/// where it ran several times or on several anchors), in first-run order.
pub fn pass_times(root: &TimingNode) -> Vec<(String, Duration)> {
    fn rec(n: &TimingNode, out: &mut Vec<(String, Duration)>) {
        // (A nested pipeline with no pass in it is no pass.)
        if n.children.is_empty() && !n.name.ends_with("' Pipeline") {
            match out.iter_mut().find(|(name, _)| *name == n.name) {
                Some((_, t)) => *t += n.time,
                None => out.push((n.name.clone(), n.time)),
            }
        }
        for c in &n.children {
            rec(c, out);
        }
    }
    let mut out = Vec::new();
    for c in &root.children {
        rec(c, &mut out);
    }
    out
}
