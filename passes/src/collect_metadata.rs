//! `collect-metadata`: computes AOTAutograd's `ViewAndMutationMeta` for a
//! functionalized function and stores it as `aot.meta`.
//!
//! `functionalize` leaves raw facts: each argument's `#aot.input` info, each
//! user output's alias facts (`#aot.facts`: its storage, whether it is an
//! argument, a view of one, a view of an intermediate, ...), the mutated
//! inputs it returns and candidate intermediate bases. This pass classifies
//! every output with AOTAutograd's rules, in their order of precedence:
//!
//! 1. shares an input's storage, requires grad, and every output aliasing
//!    that storage is a multi-output view, or its history is its own (a
//!    detached alias an in-place op made require grad) → `non_alias`
//!    (aliasing hidden from autograd, recreated by the runtime);
//! 2. is the input object itself → `is_input`;
//! 3. otherwise shares an input's storage → `alias_of_input`;
//! 4. a view of an intermediate where both require grad: the only output
//!    aliasing it (or several multi-output views) → `unsafe_view_alias`;
//!    its base is a user output → `alias_of_intermediate_base_is_user_output`;
//!    its base was already appended → `alias_of_intermediate`; else
//!    `alias_of_intermediate_save_as_output` and the base is appended;
//! 5. the `(out, out.detach())` pattern → `alias_of_intermediate_base_is_user_output`;
//! 6. anything else → `non_alias`.
//!
//! Then it reorders the function's results into AOTAutograd's forward
//! returns — mutated inputs (outside the graph), user outputs, intermediate
//! bases — drops unused candidates, and derives `traced_tangents` and the
//! index lists. Storage finals (`aot.storage_final`) stay after the forward
//! returns, still marked: `synthetic-base` consumes them.

use crate::functionalize::{
    OutputFacts, FUNCTIONALIZED, INPUT_INFO, INTERMEDIATE_BASE, MUTATED_INPUT, OUTPUT_FACTS, STORAGE_FINAL,
};
use crate::meta::{InputAliasInfo, OutputAliasInfo, OutputType, ViewAndMutationMeta, META_ATTR};
use aot_dialects::func::{FuncOp, FuncView};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use rustc_hash::FxHashMap;

struct CollectMetadata;

fn facts_err(ctx: &Context, func: Op, m: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::op_error(ctx, func, format!("malformed functionalize facts: {m}"))
}

/// Contiguous at offset 0: what a fresh tensor has anyway.
fn is_trivial(l: &crate::meta::Strided) -> bool {
    l.offset == 0 && aot_runtime::tensor::contiguous_strides(&l.size)[..] == l.stride[..]
}

/// Classifies user outputs; returns their infos and, for every intermediate
/// base to append, the function result that holds it.
pub fn classify(facts: &[OutputFacts]) -> (Vec<OutputAliasInfo>, Vec<usize>) {
    let mut per_storage: FxHashMap<usize, usize> = FxHashMap::default();
    let mut multi_per_storage: FxHashMap<usize, usize> = FxHashMap::default();
    // The first output of each storage (its storage group).
    let mut first_of_storage: FxHashMap<usize, usize> = FxHashMap::default();
    for (k, f) in facts.iter().enumerate() {
        *per_storage.entry(f.storage).or_default() += 1;
        first_of_storage.entry(f.storage).or_insert(k);
        if f.multi_output_view {
            *multi_per_storage.entry(f.storage).or_default() += 1;
        }
    }
    let mut infos = Vec::new();
    let mut bases: Vec<usize> = Vec::new();
    let mut saved: FxHashMap<usize, usize> = FxHashMap::default();
    for f in facts {
        let count = per_storage[&f.storage];
        let multi = multi_per_storage.get(&f.storage).copied().unwrap_or(0);
        let mut info = OutputAliasInfo {
            output_type: OutputType::NonAlias,
            base_idx: None,
            requires_grad: f.requires_grad,
            views: None,
            layout: None,
            aliases_input: None,
            aliases_final_storage: false,
            storage_group: (count > 1 && f.kind != "input").then(|| first_of_storage[&f.storage]),
        };
        if f.kind == "input" {
            // Aliasing autograd does not see: the output takes a tangent of
            // its own and the runtime recreates the alias of the input.
            let hidden_alias = count == multi || f.own_history;
            if f.after_set {
                // The graph computes its value; the runtime recreates the
                // alias once the input has its new storage.
                info.output_type = OutputType::NonAlias;
                info.aliases_input = f.input;
                info.aliases_final_storage = true;
                info.layout = Some(f.layout.clone());
            } else if f.requires_grad && hidden_alias && f.is_input.is_none() {
                info.output_type = OutputType::NonAlias;
                info.aliases_input = f.input;
                info.layout = Some(f.layout.clone());
            } else if let Some(i) = f.is_input {
                info.output_type = OutputType::IsInput;
                info.base_idx = Some(i);
            } else {
                info.output_type = OutputType::AliasOfInput;
                info.base_idx = f.input;
                info.views = f.views.clone();
                info.layout = Some(f.layout.clone());
            }
        } else if f.kind == "intermediate" && f.requires_grad && f.base_requires_grad && !f.own_history {
            // (A view made under no_grad has no history of its base's: it
            // takes a tangent of its own, which stops at its marker.)
            if count == 1 || multi > 1 {
                info.output_type = OutputType::UnsafeViewAlias;
            } else if let Some(j) = f.base_is_output {
                info.output_type = OutputType::AliasOfIntermediateBaseIsUserOutput;
                info.base_idx = Some(j);
                info.views = f.views.clone();
                info.layout = Some(f.layout.clone());
            } else if let Some(&b) = saved.get(&f.storage) {
                info.output_type = OutputType::AliasOfIntermediate;
                info.base_idx = Some(b);
                info.views = f.views.clone();
                info.layout = Some(f.layout.clone());
            } else {
                let b = bases.len();
                bases.push(f.base_result.unwrap_or(usize::MAX));
                saved.insert(f.storage, b);
                info.output_type = OutputType::AliasOfIntermediateSaveAsOutput;
                info.base_idx = Some(b);
                info.views = f.views.clone();
                info.layout = Some(f.layout.clone());
            }
        } else if count > 1 && !f.requires_grad && f.kind != "input" {
            // `(out, out.detach())`: an output with identical metadata that
            // requires grad stands in as the base.
            let twin = facts.iter().position(|g| g.storage == f.storage && g.layout == f.layout && g.requires_grad);
            if let Some(j) = twin {
                info.output_type = OutputType::AliasOfIntermediateBaseIsUserOutput;
                info.base_idx = Some(j);
                info.views = Some(Vec::new());
                info.layout = Some(f.layout.clone());
            }
        }
        // A non-aliased output keeps eager's layout (a view of an intermediate
        // is strided in that intermediate's storage): the runtime restrides it.
        if !info.output_type.is_alias() && info.layout.is_none() && !is_trivial(&f.layout) {
            info.layout = Some(f.layout.clone());
        }
        infos.push(info);
    }
    (infos, bases)
}

impl Pass for CollectMetadata {
    fn run(&mut self, ctx: &mut Context, func: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let Some(f) = FuncView::new(ctx, func) else { return Ok(()) };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        if ctx.has_attr(func, META_ATTR) {
            return Ok(());
        }
        let Some(fa) = ctx.get_attr(func, FUNCTIONALIZED) else {
            return Err(Diagnostic::op_error(
                ctx,
                func,
                "has not been functionalized: run 'functionalize' before 'collect-metadata'",
            ));
        };
        let fa =
            crate::functionalize::Functionalized::from_attr(ctx, fa).map_err(|m| Diagnostic::op_error(ctx, func, m))?;
        let (keep, num_user) = (fa.keep_input_mutations, fa.num_user_outputs);
        // Inputs.
        let mut input_info = Vec::new();
        for i in 0..f.num_args(ctx) {
            let a = f
                .arg_attr(ctx, i, INPUT_INFO)
                .ok_or_else(|| facts_err(ctx, func, format!("argument {i} has no '{INPUT_INFO}'")))?;
            input_info.push(InputAliasInfo::from_attr(ctx, a).map_err(|m| facts_err(ctx, func, m))?);
        }
        // Results: user outputs, mutated inputs, candidates.
        let ret = f.return_op(ctx).ok_or_else(|| facts_err(ctx, func, "no return"))?;
        let values: Vec<Value> = ctx.operands(ret).collect();
        let mut facts = Vec::new();
        for k in 0..num_user {
            let a = f
                .res_attr(ctx, k, OUTPUT_FACTS)
                .ok_or_else(|| facts_err(ctx, func, format!("result {k} has no facts")))?;
            facts.push(OutputFacts::from_attr(ctx, a).map_err(|m| facts_err(ctx, func, m))?);
        }
        let mut mutated_values: FxHashMap<usize, Value> = FxHashMap::default();
        let mut storage_finals: Vec<(Value, Attribute)> = Vec::new();
        for (r, &v) in values.iter().enumerate().skip(num_user) {
            if let Some(i) = f.res_attr(ctx, r, MUTATED_INPUT).and_then(|a| ctx.attr_as_i64(a)) {
                mutated_values.insert(i as usize, v);
            } else if let Some(a) = f.res_attr(ctx, r, STORAGE_FINAL) {
                storage_finals.push((v, a));
            } else if f.res_attr(ctx, r, INTERMEDIATE_BASE).is_none() {
                return Err(facts_err(
                    ctx,
                    func,
                    format!("result {r} is neither a user output, a mutated input nor a candidate base"),
                ));
            }
        }
        let (output_info, bases) = classify(&facts);
        let mut meta = ViewAndMutationMeta {
            input_info,
            output_info,
            num_intermediate_bases: bases.len(),
            keep_input_mutations: keep,
            traced_tangents: Vec::new(),
            is_rng_op_functionalized: false,
        };
        meta.traced_tangents = meta.compute_traced_tangents();
        // New results: mutated inputs (outside the graph), user outputs, bases.
        let mut new_results: Vec<Value> = Vec::new();
        for i in meta.mutated_inp_runtime_indices() {
            let v = mutated_values.get(&i).copied().ok_or_else(|| {
                facts_err(ctx, func, format!("input {i} is mutated outside the graph but no result holds it"))
            })?;
            new_results.push(v);
        }
        new_results.extend_from_slice(&values[..num_user]);
        for &b in &bases {
            let v = *values.get(b).ok_or_else(|| facts_err(ctx, func, format!("no candidate base at result {b}")))?;
            new_results.push(v);
        }
        // Storage finals stay last, marked, for `synthetic-base`.
        let mut res_attrs = vec![Vec::new(); new_results.len()];
        for &(v, a) in &storage_finals {
            new_results.push(v);
            res_attrs.push(vec![NamedAttr { name: ctx.sym(STORAGE_FINAL), value: a }]);
        }
        let mut rw = Rewriter::new(ctx);
        rw.set_operands(ret, &new_results);
        f.set_all_res_attrs(&mut rw, res_attrs);
        let mut arg_attrs = f.all_arg_attrs(&rw);
        for a in arg_attrs.iter_mut() {
            a.retain(|x| rw.sym_str(x.name) != INPUT_INFO);
        }
        f.set_all_arg_attrs(&mut rw, arg_attrs);
        f.sync_function_type(&mut rw);
        rw.remove_attr(func, FUNCTIONALIZED);
        let attr = meta.to_attr(&mut rw);
        rw.set_attr(func, META_ATTR, attr);
        crate::canonicalize::simplify_function(&mut rw, func);
        st.add_stat("num-aliased-outputs", meta.aliased_out_indices().len() as u64);
        st.add_stat("num-intermediate-bases", bases.len() as u64);
        st.add_stat(
            "num-mutated-inputs",
            (meta.mutated_inp_runtime_indices().len() + meta.mutated_graph_handled_indices().len()) as u64,
        );
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "collect-metadata",
        name: "CollectMetadata",
        summary: "Compute AOTAutograd's ViewAndMutationMeta (aot.meta) for a functionalized function",
        description: "Classifies every output (non_alias, is_input, alias_of_input, unsafe_view_alias, the three \
alias_of_intermediate kinds) in AOTAutograd's order of precedence, appends the intermediate bases aliased outputs \
are regenerated from, reorders the results into the forward returns (mutated inputs, user outputs, intermediate bases) \
and derives traced_tangents, mutated_inp_runtime_indices, aliased_out_indices and num_forward_returns. Requires \
functionalize to have run.",
        anchor: Some(FuncOp::NAME),
        options: &[],
        statistics: &[
            StatisticSpec { name: "num-aliased-outputs", description: "Outputs regenerated from a base by the runtime" },
            StatisticSpec { name: "num-intermediate-bases", description: "Intermediate bases appended as outputs" },
            StatisticSpec { name: "num-mutated-inputs", description: "Inputs mutated in or outside the graph" },
        ],
        create: |_: &PassOptions| Ok(Box::new(CollectMetadata)),
    }
}
