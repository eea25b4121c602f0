//! `joint`: reverse-mode autodiff of a functionalized forward into one joint
//! function, as AOTAutograd's `create_joint`:
//!
//! ```text
//! joint(primals..., [seed, offset], tangents...) -> (forward returns..., [offset], grads...)
//! ```
//!
//! The forward returns are the ones `collect-metadata` laid out (mutated
//! inputs, user outputs, intermediate bases). Tangents are taken for
//! `traced_tangents` — data-mutated inputs that require grad, outputs of kind
//! `non_alias`/`unsafe_view_alias`/`custom_function_view` that require grad,
//! every intermediate base — one argument each (`aot.tangent = k`, the
//! forward return it belongs to), typed as that return; with `no-tangents`
//! (a scalar loss) there must be exactly one, seeded with ones and not an
//! argument. A gradient is returned (`aot.grad = i`) for every primal that
//! requires grad on entry (`aot.requires_grad`, or a view of a
//! differentiable base storage); the others get none, so aliased outputs are
//! never differentiated here (the runtime routes their tangents).
//!
//! Which values carry gradient follows autograd: an op under `aot.no_grad`,
//! `view.detach`, a non-differentiable op or result, or an integer result
//! stops it. Each differentiable op's rule (`aot_dialects::autodiff::Vjp`,
//! next to the op) builds its vector-Jacobian product; cotangents of values
//! used several times are summed. A scatter marked `aot.hidden_write` (a
//! write autograd did not see) passes its base's cotangent through whole.
//! In-graph input mutations (trailing `mut.copy_`...) stay last, after the
//! backward: in value semantics the backward reads pre-mutation values.
//!
//! The signature is recorded as `aot.joint = #aot.joint<num_forward = F,
//! tangents = [..], grads = [..], no_tangents = B>`.
//!
//! A frontend may give the backward instead (`aot.traced_backward`): a
//! private function of the module that PyTorch's autograd traced, for a
//! program whose gradients are not the derivatives of its dense ops (a
//! DTensor program, where a redistribution's gradient follows DTensor's
//! placements, not the derivative of the collective it issued). It takes
//! the primals and one tangent per differentiated user output, and returns
//! the gradients; it recomputes what it needs of the forward, which the
//! common-subexpression pass after the splice merges with the forward's own
//! ops. The pass then checks it against the metadata (the tangents
//! `collect-metadata` expects, a gradient for every primal that requires
//! grad, no writes, no argument merged by `dedupe` or `synthetic-base`),
//! inlines it in place of the reverse sweep, and erases it. A random op
//! of the traced backward recomputes a forward one (a dropout's mask): it
//! must name that op by its `aot.draw` tag, and reads its results instead
//! of drawing again.

use crate::convention::Convention;
use crate::meta::ViewAndMutationMeta;
use aot_dialects::autodiff::{vjp, VjpCtx};
use aot_dialects::func::{FuncOp, FuncView};
use aot_dialects::tensor::{AddOp, FullOp};
use aot_ir::pass::{OptionKind, Pass, PassInfo, PassOptionSpec, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use aot_runtime::interp::VALUE_SEMANTICS;
use aot_runtime::interp::{Detaches, NonDifferentiableResults, NO_GRAD};
use rustc_hash::{FxHashMap, FxHashSet};

pub const JOINT_ATTR: &str = "aot.joint";
/// Argument attribute of a tangent: the forward return it belongs to.
pub const TANGENT: &str = "aot.tangent";
/// Result attribute of a gradient: the primal it is for.
pub const GRAD: &str = "aot.grad";
/// Unit result attribute beside `aot.grad`: no cotangent reached the
/// primal (no differentiable path leads from it to an output), so the
/// gradient is zeros by construction and eager autograd leaves `.grad` None.
pub const NO_COTANGENT: &str = "aot.no_cotangent";
/// String attribute of a random op in a function with a traced backward
/// and in that backward: the op of the backward recomputes the forward's
/// op of the same tag, and reads its results.
pub const DRAW: &str = "aot.draw";

crate::record! {
    /// The joint signature.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct JointInfo = "aot.joint" {
        /// Forward returns (including the RNG offset) before the gradients.
        pub num_forward: usize,
        /// The forward returns that take a tangent, in argument order.
        pub tangents: Vec<usize>,
        /// The primals that get a gradient, in result order.
        pub grads: Vec<usize>,
        pub no_tangents: bool,
    }
}

crate::record! {
    /// The backward a frontend traced (see the module docs): `function`
    /// names a private function of the module taking `(primals...,
    /// tangents...)`; `tangents[j]` is the user output tangent `j` is for,
    /// `grads[j]` the primal result `j` is the gradient of, and `unreached`
    /// the primals no gradient reached (their results are zeros, and eager
    /// leaves their `.grad` None).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct TracedBackward = "aot.traced_backward" {
        pub function: String,
        pub tangents: Vec<usize>,
        pub grads: Vec<usize>,
        pub unreached: Vec<usize>,
    }
}

/// Function attribute: the [`TracedBackward`] of a forward.
pub const TRACED_BACKWARD: &str = "aot.traced_backward";

impl JointInfo {
    pub fn of_func(ctx: &Context, func: Op) -> Result<Option<JointInfo>, String> {
        ctx.get_attr(func, JOINT_ATTR).map(|a| Self::from_attr(ctx, a)).transpose()
    }
}

struct Joint {
    no_tangents: bool,
}

/// Does a value of this type carry gradients?
fn is_float(ctx: &Context, v: Value) -> bool {
    ctx.value_tensor(v).is_some_and(|t| t.elem.is_float())
}

/// Which values depend differentiably on `seeds`.
fn active_values(ctx: &Context, ops: &[Op], seeds: &[Value]) -> FxHashSet<Value> {
    let mut active: FxHashSet<Value> = seeds.iter().copied().collect();
    for &op in ops {
        let Some(def) = ctx.op_def(op) else { continue };
        if ctx.has_attr(op, NO_GRAD)
            || def.interface::<Detaches>().is_some()
            || !def.has(Traits::DIFFERENTIABLE)
            || !ctx.operands(op).any(|v| active.contains(&v))
        {
            continue;
        }
        let nondiff = def.interface::<NonDifferentiableResults>().map_or(&[][..], |n| n.0);
        for (k, &r) in ctx.results(op).iter().enumerate() {
            if !nondiff.contains(&k) && is_float(ctx, r) {
                active.insert(r);
            }
        }
    }
    active
}

/// The first of the trailing in-graph mutations (or the return).
pub fn first_trailing_mutation(ctx: &Context, ret: Op) -> Op {
    let mut first = ret;
    while let Some(op) = ctx.prev_op(first) {
        if !ctx.op_def(op).is_some_and(|d| d.has(Traits::INPLACE) || d.has(Traits::METADATA_MUTATION)) {
            break;
        }
        first = op;
    }
    first
}

impl Pass for Joint {
    fn run(&mut self, ctx: &mut Context, func: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let Some(f) = FuncView::new(ctx, func) else { return Ok(()) };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        let err = |ctx: &Context, m: String| Diagnostic::op_error(ctx, func, m);
        if ctx.has_attr(func, JOINT_ATTR) || ctx.has_attr(func, crate::partition::PARTITION_ATTR) {
            return Err(err(ctx, "is already a joint function".into()));
        }
        if !ctx.has_attr(func, VALUE_SEMANTICS) {
            return Err(err(ctx, "has reference semantics: run 'functionalize' before 'joint'".into()));
        }
        // PyTorch's backward of this program raises (functionalize found why).
        if let Some(d) = crate::functionalize::backward_error(ctx, func) {
            return Err(d);
        }
        let meta = ViewAndMutationMeta::required(ctx, func, "joint", "is differentiated")?;
        let conv = Convention::from_arg_attrs(ctx, func).map_err(|m| err(ctx, m))?;
        let resolved = conv.resolve(ctx).map_err(|m| err(ctx, m))?;
        let entry = f.entry_block(ctx).expect("has a body");
        let ret = f.return_op(ctx).ok_or_else(|| err(ctx, "has no return".into()))?;
        let returns: Vec<Value> = ctx.operands(ret).collect();
        let num_forward = returns.len();
        if num_forward != meta.num_forward() {
            return Err(err(ctx, format!("returns {num_forward} values but aot.meta expects {}", meta.num_forward())));
        }
        let args: Vec<Value> = f.args(ctx).to_vec();
        let grads_for: Vec<usize> =
            (0..args.len()).filter(|&i| resolved[i].requires_grad && is_float(ctx, args[i])).collect();
        let tangents = meta.traced_tangents.clone();
        if self.no_tangents && tangents.len() != 1 {
            return Err(err(
                ctx,
                format!(
                    "no-tangents differentiates one output (a loss), but {} forward returns take a tangent",
                    tangents.len()
                ),
            ));
        }
        let traced = match ctx.get_attr(func, TRACED_BACKWARD) {
            Some(a) => Some(
                TracedBackward::from_attr(ctx, a)
                    .map_err(|m| err(ctx, format!("has malformed {TRACED_BACKWARD}: {m}")))?,
            ),
            None => None,
        };
        if traced.is_some() && self.no_tangents {
            return Err(err(ctx, "has a traced backward, which takes its tangents: no-tangents does not apply".into()));
        }
        let body: Vec<Op> = ctx.block_ops(entry).filter(|&o| o != ret).collect();
        let seeds: Vec<Value> = grads_for.iter().map(|&i| args[i]).collect();
        let active = active_values(ctx, &body, &seeds);

        let mut rw = Rewriter::new(ctx);
        // Tangent arguments.
        let mut tangent_values: Vec<Value> = Vec::new();
        for &t in &tangents {
            let ty = rw.value_type(returns[t]);
            if self.no_tangents {
                continue;
            }
            let n = f.num_args(&rw);
            let a = rw.i64_attr(t as i64);
            let attrs = vec![NamedAttr { name: rw.sym(TANGENT), value: a }];
            let v = f.insert_arg(&mut rw, n, ty, attrs).expect("has a body");
            tangent_values.push(v);
        }
        let first_trailing = first_trailing_mutation(&rw, ret);
        rw.set_insertion_point(InsertPoint::Before(first_trailing));
        rw.set_loc(rw.op_loc(ret));
        let mut cot: FxHashMap<Value, Value> = FxHashMap::default();
        let rules = match &traced {
            Some(tb) => {
                let grads = splice_traced(&mut rw, func, tb, &meta, &args, &tangents, &tangent_values, &grads_for)?;
                cot.extend(grads.into_iter().map(|(i, g)| (args[i], g)));
                rw.remove_attr(func, TRACED_BACKWARD);
                0
            }
            None => {
                let sweep =
                    Sweep { body: &body, returns: &returns, tangents: &tangents, tangent_values: &tangent_values };
                reverse_sweep(&mut rw, &sweep, self.no_tangents, &active, &mut cot)?
            }
        };
        // Gradients of the primals (zeros where none reached).
        rw.set_loc(rw.op_loc(ret));
        let mut results = returns.clone();
        let mut res_attrs = f.all_res_attrs(&rw);
        res_attrs.resize(results.len(), Vec::new());
        for &i in &grads_for {
            let a = rw.i64_attr(i as i64);
            let mut attrs = vec![NamedAttr { name: rw.sym(GRAD), value: a }];
            let g = match cot.get(&args[i]) {
                Some(&g) => g,
                None => {
                    let t = rw.value_tensor(args[i]).cloned().expect("a tensor");
                    let zero = rw.f64_attr(0.0);
                    let tt = rw.tensor_type(&t.shape, t.elem);
                    let unit = rw.unit_attr();
                    attrs.push(NamedAttr { name: rw.sym(NO_COTANGENT), value: unit });
                    FullOp::build_typed1(&mut rw, &[], &[("value", zero)], tt)
                }
            };
            results.push(g);
            res_attrs.push(attrs);
        }
        rw.set_operands(ret, &results);
        f.set_all_res_attrs(&mut rw, res_attrs);
        f.sync_function_type(&mut rw);
        let info = JointInfo { num_forward, tangents, grads: grads_for, no_tangents: self.no_tangents };
        let a = info.to_attr(&mut rw);
        rw.set_attr(func, JOINT_ATTR, a);
        crate::canonicalize::simplify_function(&mut rw, func);
        st.add_stat("num-rules-applied", rules);
        st.add_stat("num-grads", info.grads.len() as u64);
        st.add_stat("num-tangents", info.tangents.len() as u64);
        Ok(())
    }
}

/// What the reverse sweep runs over: the forward's ops, its returns, the
/// returns that take a tangent and their tangent arguments.
struct Sweep<'a> {
    body: &'a [Op],
    returns: &'a [Value],
    tangents: &'a [usize],
    tangent_values: &'a [Value],
}

/// Seeds the cotangents of the returns that take a tangent (ones with
/// `no_tangents`) and runs the reverse sweep over the body with each op's
/// derivative rule, into `cot`; returns how many rules were applied.
fn reverse_sweep(
    rw: &mut Rewriter<'_>,
    sw: &Sweep<'_>,
    no_tangents: bool,
    active: &FxHashSet<Value>,
    cot: &mut FxHashMap<Value, Value>,
) -> Result<u64, Diagnostic> {
    let Sweep { body, returns, tangents, tangent_values } = *sw;
    let mut rules = 0u64;
    // Seed the cotangents.
    for (k, &t) in tangents.iter().enumerate() {
        let out = returns[t];
        if !active.contains(&out) {
            continue;
        }
        let seed = if no_tangents {
            let ty = rw.value_tensor(out).cloned().expect("a tensor");
            let one = rw.f64_attr(1.0);
            let tt = rw.tensor_type(&ty.shape, ty.elem);
            FullOp::build_typed1(rw, &[], &[("value", one)], tt)
        } else {
            tangent_values[k]
        };
        accumulate(rw, cot, out, seed)?;
    }
    // The reverse sweep.
    for &op in body.iter().rev() {
        let results: Vec<Value> = rw.results(op).to_vec();
        let grads: Vec<Option<Value>> = results.iter().map(|r| cot.get(r).copied()).collect();
        if grads.iter().all(|g| g.is_none()) {
            continue;
        }
        let operands: Vec<Value> = rw.operands(op).collect();
        let needs: Vec<bool> = operands.iter().map(|v| active.contains(v)).collect();
        if !needs.iter().any(|&n| n) {
            continue;
        }
        let rule = vjp(rw, op).ok_or_else(|| {
            Diagnostic::op_error(rw, op, format!("has no derivative rule, but '{}' is differentiated", rw.op_name(op)))
        })?;
        rw.set_loc(rw.op_loc(op));
        let mut vc = VjpCtx::new(rw, op, &grads, &needs);
        let gs = (rule.0)(&mut vc)?;
        rules += 1;
        for (i, g) in gs.into_iter().enumerate() {
            let (Some(g), true) = (g, needs.get(i).copied().unwrap_or(false)) else { continue };
            if rw.value_type(g) != rw.value_type(operands[i]) {
                return Err(Diagnostic::op_error(
                    rw,
                    op,
                    format!(
                        "derivative rule of '{}' gave operand {i} a gradient of type {}, expected {}",
                        rw.op_name(op),
                        aot_ir::printer::type_to_string(rw, rw.value_type(g)),
                        aot_ir::printer::type_to_string(rw, rw.value_type(operands[i]))
                    ),
                ));
            }
            accumulate(rw, cot, operands[i], g)?;
        }
    }
    Ok(rules)
}

/// Inlines the traced backward `tb` at the insertion point: its primals
/// are `args`, its tangents the joint's tangent arguments (`tangent_values`,
/// one per entry of `tangents`, the forward returns that take one). Returns
/// the gradient of each primal a gradient reached; erases the function.
#[allow(clippy::too_many_arguments)]
fn splice_traced(
    rw: &mut Rewriter<'_>,
    func: Op,
    tb: &TracedBackward,
    meta: &ViewAndMutationMeta,
    args: &[Value],
    tangents: &[usize],
    tangent_values: &[Value],
    grads_for: &[usize],
) -> Result<Vec<(usize, Value)>, Diagnostic> {
    let err = |rw: &Rewriter<'_>, m: String| Diagnostic::op_error(rw, func, m);
    let module = rw.parent_op(func).ok_or_else(|| err(rw, "is not inside a module".into()))?;
    let callee = aot_dialects::func::lookup_func(rw, module, &tb.function).ok_or_else(|| {
        err(rw, format!("names the traced backward '@{}', which the module does not define", tb.function))
    })?;
    let name = &tb.function;
    if callee.is_public_definition(rw) || callee.entry_block(rw).is_none() {
        return Err(err(rw, format!("traced backward '@{name}' must be a private function with a body")));
    }
    if meta.input_info.iter().any(|i| i.dupe_of.is_some())
        || rw.has_attr(func, crate::synthetic_base::SYNTHETIC_BASE_ATTR)
    {
        return Err(err(
            rw,
            "has arguments merged by dedupe or synthetic-base: its traced backward takes them apart".into(),
        ));
    }
    // The traced backward takes the user's arguments, which the metadata
    // describes: not the generator state `rng-functionalize` appended.
    let f = FuncView { op: func };
    let args = args.get(..meta.input_info.len()).ok_or_else(|| err(rw, "has fewer arguments than aot.meta".into()))?;
    let cargs: Vec<Value> = callee.args(rw).to_vec();
    if cargs.len() != args.len() + tb.tangents.len() {
        return Err(err(
            rw,
            format!(
                "traced backward '@{name}' takes {} arguments, expected {} primals and {} tangents",
                cargs.len(),
                args.len(),
                tb.tangents.len()
            ),
        ));
    }
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    for (i, (&c, &a)) in cargs.iter().zip(args).enumerate() {
        if rw.value_type(c) != rw.value_type(a) {
            return Err(err(rw, format!("traced backward '@{name}': argument {i} is not of the primal's type")));
        }
        map.insert(c, a);
    }
    // Tangent j is for user output tb.tangents[j]: forward return
    // (mutated inputs first) `mutated + k`.
    let mutated = meta.mutated_inp_runtime_indices().len();
    let mut given: Vec<usize> = Vec::with_capacity(tb.tangents.len());
    for (j, &k) in tb.tangents.iter().enumerate() {
        let r = mutated + k;
        let Some(pos) = tangents.iter().position(|&t| t == r) else {
            return Err(err(rw, format!("traced backward '@{name}' takes a tangent for output {k}, which takes none")));
        };
        let c = cargs[args.len() + j];
        if rw.value_type(c) != rw.value_type(tangent_values[pos]) {
            return Err(err(rw, format!("traced backward '@{name}': the tangent of output {k} is not of its type")));
        }
        map.insert(c, tangent_values[pos]);
        given.push(r);
    }
    if let Some(&r) = tangents.iter().find(|r| !given.contains(r)) {
        return Err(err(
            rw,
            format!("traced backward '@{name}' takes no tangent for forward return {r}, which takes one"),
        ));
    }
    let cbody = callee.entry_block(rw).expect("checked above");
    let cret = callee.return_op(rw).ok_or_else(|| err(rw, format!("traced backward '@{name}' has no return")))?;
    let ops: Vec<Op> = rw.block_ops(cbody).filter(|&o| o != cret).collect();
    // The forward's random ops by their draw tag: a traced backward's
    // random op recomputes one of them (a dropout's mask) and reads its
    // results, drawn once.
    let fbody = f.entry_block(rw).ok_or_else(|| err(rw, "has no body".into()))?;
    let draws: FxHashMap<String, Op> = rw
        .block_ops(fbody)
        .filter(|&o| rw.op_name(o).starts_with("rng."))
        .filter_map(|o| rw.attr_str(o, DRAW).map(|t| (t.to_string(), o)))
        .collect();
    let mut drawn: FxHashSet<Op> = FxHashSet::default();
    for &op in &ops {
        let n = rw.op_name(op);
        if n.starts_with("rng.") {
            let forward = rw.attr_str(op, DRAW).and_then(|t| draws.get(t)).copied().ok_or_else(|| {
                Diagnostic::op_error(
                    rw,
                    op,
                    format!("'{n}' in a traced backward draws again: it must name a draw of the forward ({DRAW})"),
                )
            })?;
            let (mine, theirs) = (rw.results(op).to_vec(), rw.results(forward).to_vec());
            if mine.len() != theirs.len()
                || mine.iter().zip(&theirs).any(|(&a, &b)| rw.value_type(a) != rw.value_type(b))
            {
                return Err(Diagnostic::op_error(
                    rw,
                    op,
                    format!("'{n}' in a traced backward does not match the forward's draw it names"),
                ));
            }
            map.extend(mine.into_iter().zip(theirs));
            drawn.insert(op);
            continue;
        }
        if n.starts_with("mut.") || !rw.regions(op).is_empty() {
            return Err(Diagnostic::op_error(rw, op, format!("'{n}' in a traced backward: it must be pure")));
        }
    }
    let results: Vec<Value> = rw.operands(cret).collect();
    if results.len() != tb.grads.len() {
        return Err(err(
            rw,
            format!("traced backward '@{name}' returns {} values for {} gradients", results.len(), tb.grads.len()),
        ));
    }
    if let Some(&i) = grads_for.iter().find(|i| !tb.grads.contains(i)) {
        return Err(err(
            rw,
            format!("traced backward '@{name}' gives no gradient for argument {i}, which requires grad"),
        ));
    }
    for &op in &ops {
        if !drawn.contains(&op) {
            rw.clone_deep(op, &mut map);
        }
    }
    let mut out = Vec::new();
    for (&i, &r) in tb.grads.iter().zip(&results) {
        if !grads_for.contains(&i) {
            return Err(err(
                rw,
                format!("traced backward '@{name}' gives a gradient for argument {i}, which takes none"),
            ));
        }
        if rw.value_type(r) != rw.value_type(args[i]) {
            return Err(err(rw, format!("traced backward '@{name}': the gradient of argument {i} is not of its type")));
        }
        if !tb.unreached.contains(&i) {
            out.push((i, map.get(&r).copied().unwrap_or(r)));
        }
    }
    rw.erase_op(callee.op);
    Ok(out)
}

fn accumulate(rw: &mut Rewriter<'_>, cot: &mut FxHashMap<Value, Value>, v: Value, g: Value) -> Result<(), Diagnostic> {
    let sum = match cot.get(&v) {
        // A scatter into zeros (a view's derivative) adds into its region
        // only, instead of a whole zero tensor per contribution.
        Some(&prev) => match aot_dialects::view::derivatives::accumulate(rw, prev, g)? {
            Some(sum) => sum,
            None => AddOp::build1(rw, &[prev, g], &[])?,
        },
        None => g,
    };
    cot.insert(v, sum);
    Ok(())
}

inventory::submit! {
    PassInfo {
        argument: "joint",
        name: "Joint",
        summary: "Differentiate a functionalized forward into AOTAutograd's joint function (forward returns + gradients)",
        description: "Appends one tangent argument per traced tangent (aot.tangent) and one gradient result per primal \
that requires grad on entry (aot.grad; with aot.no_cotangent where none reached it, a zero gradient \
eager autograd reports as None), built by reverse-mode autodiff from each op's derivative rule (the Vjp \
interface next to the op). Autograd's rules decide what carries gradient: aot.no_grad ops, view.detach, \
non-differentiable ops and results, integer values stop it; aot.hidden_write scatters pass their base's gradient \
through. In-graph input mutations stay last. Raises the error PyTorch's backward would raise, which functionalize \
recorded as aot.backward_error. A function with aot.traced_backward (a private \
function of the module, taking the primals and the tangents and returning the gradients, \
that a frontend traced with PyTorch's autograd) gets that backward inlined instead of the \
reverse sweep, after checks against aot.meta; the function is erased. Records aot.joint; \
requires collect-metadata.",
        anchor: Some(FuncOp::NAME),
        options: &[PassOptionSpec {
            name: "no-tangents",
            kind: OptionKind::Bool,
            default: "false",
            description: "Differentiate the single traced output (a loss) with a tangent of ones instead of a tangent argument",
        }],
        statistics: &[
            StatisticSpec { name: "num-rules-applied", description: "Derivative rules applied" },
            StatisticSpec { name: "num-grads", description: "Primals that get a gradient" },
            StatisticSpec { name: "num-tangents", description: "Tangent arguments" },
        ],
        create: |o: &PassOptions| Ok(Box::new(Joint { no_tangents: o.get_bool("no-tangents") })),
    }
}
