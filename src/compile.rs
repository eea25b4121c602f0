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

use crate::run::json::{ArgSpec, InputSpec};
use aot_ir::pass::PassManager;
use aot_ir::*;
use aot_passes::meta::{MutationType, OutputType, SetSource, ViewAndMutationMeta};
use aot_runtime::compiled::{CompiledFunction, Executable, OutputFrom, Plan, StorageFrom, Strided, WriteBack};
use aot_runtime::{Generator, Interpreter, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

/// Which backend executes the compiled graphs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The reference interpreter, in value semantics.
    Interp,
}

impl Backend {
    pub fn parse(s: &str) -> Result<Backend, String> {
        match s {
            "interp" => Ok(Backend::Interp),
            other => Err(format!("backend '{other}' is not available in this build (available: interp)")),
        }
    }
}

/// Writes the calling convention of `spec` onto function `func`.
pub fn annotate_convention(rw: &mut Rewriter<'_>, func: Op, spec: &InputSpec) -> Result<(), String> {
    let f = aot_dialects::func::FuncView::new(rw, func).ok_or("the entry is not a function")?;
    let n = f.num_args(rw);
    if spec.args.len() != n {
        return Err(format!("the function takes {n} arguments but the input file gives {}", spec.args.len()));
    }
    let mut all = f.all_arg_attrs(rw);
    let unit = rw.unit_attr();
    let convention = ["aot.requires_grad", "aot.non_leaf", "aot.same_as", "aot.layout"];
    for (i, a) in spec.args.iter().enumerate() {
        all[i].retain(|x| !convention.contains(&rw.sym_str(x.name)));
        let mut add = |rw: &mut Rewriter<'_>, name: &str, value: Attribute| {
            let s = rw.sym(name);
            all[i].push(NamedAttr { name: s, value });
        };
        match a {
            ArgSpec::SameAs(k) => {
                let v = rw.i64_attr(*k as i64);
                add(rw, "aot.same_as", v);
            }
            ArgSpec::Own { requires_grad, non_leaf, .. } => {
                if *requires_grad {
                    add(rw, "aot.requires_grad", unit);
                }
                if *non_leaf {
                    add(rw, "aot.non_leaf", unit);
                }
            }
            ArgSpec::View { storage, stride, offset, requires_grad, .. } => {
                let mut p = aot_passes::meta::Params::new(rw);
                p.int("storage", *storage as i64);
                p.int("offset", *offset);
                p.i64_list("strides", stride);
                let layout = p.finish("aot.layout");
                add(rw, "aot.layout", layout);
                if *requires_grad {
                    add(rw, "aot.requires_grad", unit);
                }
            }
        }
    }
    f.set_all_arg_attrs(rw, all);
    if spec.storages.is_empty() {
        rw.remove_attr(func, "aot.storages");
    } else {
        let entries: Vec<Attribute> = spec
            .storages
            .iter()
            .enumerate()
            .map(|(s, st)| {
                let mut p = aot_passes::meta::Params::new(rw);
                p.int("id", s as i64);
                p.int("numel", st.data.len() as i64);
                p.bool("requires_grad", st.base);
                p.finish("aot.storage")
            })
            .collect();
        let a = rw.array_attr(entries);
        rw.set_attr(func, "aot.storages", a);
    }
    Ok(())
}

/// The layout of each argument in its storage under the function's convention.
fn convention_layouts(ctx: &Context, func: Op) -> Result<Vec<Strided>, String> {
    let f = aot_dialects::func::FuncView::new(ctx, func).ok_or("not a function")?;
    let (inputs, _) = f.function_type(ctx);
    let mut out = Vec::new();
    for (i, &t) in inputs.iter().enumerate() {
        let tt = ctx.as_tensor(t).ok_or_else(|| format!("argument {i} is not a tensor"))?;
        let size: Shape = tt.shape.clone();
        let l = match f.arg_attr(ctx, i, "aot.layout") {
            Some(a) => {
                let offset = ctx.attr_field(a, "offset").and_then(|x| ctx.attr_as_i64(x)).unwrap_or(0);
                let stride = ctx
                    .attr_field(a, "strides")
                    .and_then(|x| ctx.attr_as_i64_list(x))
                    .map(|v| v.into_iter().collect())
                    .unwrap_or_else(|| aot_runtime::tensor::contiguous_strides(&size));
                Strided { size, stride, offset }
            }
            None => Strided { stride: aot_runtime::tensor::contiguous_strides(&size), size, offset: 0 },
        };
        out.push(l);
    }
    Ok(out)
}

fn to_runtime(s: &aot_passes::meta::Strided) -> Strided {
    Strided { size: s.size.iter().copied().collect(), stride: s.stride.iter().copied().collect(), offset: s.offset }
}

/// Replays a view chain on a layout (compile-time view replay).
fn replay(ctx: &Context, steps: &[aot_passes::meta::ViewStep], from: &Strided) -> Result<Strided, String> {
    let mut l =
        aot_dialects::view::Layout { sizes: from.size.clone(), strides: from.stride.clone(), offset: from.offset };
    for s in steps {
        let vi = aot_dialects::view::view_interface(&s.op)
            .ok_or_else(|| format!("'{}' in a view recipe is not a view op", s.op))?;
        let AttrData::Dict(attrs) = ctx.attr_data(s.attrs) else {
            return Err("view recipe attributes must be a dictionary".into());
        };
        let next = (vi.layout)(&AttrView { ctx, attrs }, &l)?;
        l = next.into_iter().next().ok_or("a recipe step produced no layout")?;
    }
    Ok(Strided { size: l.sizes, stride: l.strides, offset: l.offset })
}

/// Derives the runtime plan of `func` from its metadata.
pub fn build_plan(ctx: &Context, func: Op, meta: &ViewAndMutationMeta) -> Result<Plan, String> {
    let layouts = convention_layouts(ctx, func)?;
    let mutated = meta.mutated_inp_runtime_indices();
    let num_out = meta.output_info.len();
    let mut plan = Plan { num_args: meta.input_info.len(), write_back: Vec::new(), outputs: Vec::new() };
    for (k, &i) in mutated.iter().enumerate() {
        let info = &meta.input_info[i];
        let layout = info.final_layout.as_ref().map(to_runtime);
        if info.mutates_storage_metadata {
            let from = match info.set_source {
                Some(SetSource::Input(j)) => StorageFrom::Arg(j),
                _ => StorageFrom::Result(k),
            };
            let layout = layout.ok_or_else(|| format!("input {i} changes storage but has no final layout"))?;
            plan.write_back.push(WriteBack::SetStorage { arg: i, from, layout });
        } else {
            if let Some(n) = info.resized_numel {
                plan.write_back.push(WriteBack::Resize { arg: i, numel: n });
            }
            if info.mutates_metadata {
                let layout = layout.ok_or_else(|| format!("input {i} changes metadata but has no final layout"))?;
                plan.write_back.push(WriteBack::AsStrided { arg: i, layout });
            }
            if info.mutates_data {
                plan.write_back.push(WriteBack::CopyData { arg: i, result: k });
            }
        }
    }
    for (i, info) in meta.input_info.iter().enumerate() {
        if info.mutation_type != MutationType::NotMutated
            && info.requires_grad
            && !initially_requires_grad(ctx, func, i)
        {
            plan.write_back.push(WriteBack::RequiresGrad { arg: i });
        }
    }
    for (j, o) in meta.output_info.iter().enumerate() {
        let layout_of = |base: &Strided| -> Result<Strided, String> {
            match (&o.views, &o.layout) {
                (Some(v), _) if !v.is_empty() => replay(ctx, v, base),
                (_, Some(l)) => Ok(to_runtime(l)),
                _ => Err(format!("output {j} aliases a base but has no recipe")),
            }
        };
        let from = match o.output_type {
            OutputType::NonAlias if o.aliases_input.is_some() => {
                let arg = o.aliases_input.expect("checked");
                let layout = o
                    .layout
                    .as_ref()
                    .map(to_runtime)
                    .ok_or_else(|| format!("output {j} aliases input {arg} without a layout"))?;
                OutputFrom::ViewOfArg { arg, layout }
            }
            OutputType::NonAlias | OutputType::UnsafeViewAlias | OutputType::CustomFunctionView => match &o.layout {
                Some(l) => OutputFrom::Restrided { result: mutated.len() + j, layout: to_runtime(l) },
                None => OutputFrom::Result(mutated.len() + j),
            },
            OutputType::IsInput => OutputFrom::Arg(o.base_idx.ok_or("is_input output without base_idx")?),
            OutputType::AliasOfInput => {
                let arg = o.base_idx.ok_or("alias_of_input output without base_idx")?;
                OutputFrom::ViewOfArg { arg, layout: layout_of(&layouts[arg])? }
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
                let layout = match &o.views {
                    // The detach pattern: the same layout as its twin.
                    Some(v) if v.is_empty() => {
                        let size = o.layout.as_ref().map(|l| l.size.clone()).unwrap_or_default();
                        let size: Shape = size.into_iter().collect();
                        Strided { stride: aot_runtime::tensor::contiguous_strides(&size), size, offset: 0 }
                    }
                    _ => {
                        let r = mutated.len() + b;
                        layout_of(&contiguous_of_result(ctx, func, r)?)?
                    }
                };
                OutputFrom::ViewOfOutput { output: b, layout }
            }
        };
        plan.outputs.push((from, o.requires_grad));
    }
    Ok(plan)
}

/// Does argument `i` require grad at entry under the convention?
fn initially_requires_grad(ctx: &Context, func: Op, i: usize) -> bool {
    let f = aot_dialects::func::FuncView { op: func };
    if f.arg_has(ctx, i, "aot.requires_grad") {
        return true;
    }
    // A view of a differentiable base storage.
    let Some(sid) =
        f.arg_attr(ctx, i, "aot.layout").and_then(|l| ctx.attr_field(l, "storage")).and_then(|s| ctx.attr_as_i64(s))
    else {
        return false;
    };
    let Some(AttrData::Array(items)) = ctx.get_attr(func, "aot.storages").map(|a| ctx.attr_data(a)) else {
        return false;
    };
    items.iter().any(|&it| {
        ctx.attr_field(it, "id").and_then(|x| ctx.attr_as_i64(x)) == Some(sid)
            && ctx.attr_field(it, "requires_grad").and_then(|x| ctx.attr_as_flag(x)).unwrap_or(false)
    })
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
}

impl Executable for InterpExecutable {
    fn run(&mut self, args: &[Tensor]) -> Result<Vec<Tensor>, String> {
        let mut it = Interpreter::new(&self.ctx);
        it.generator = *self.generator.borrow();
        let r = it.call(self.func, args).map_err(|d| d.message.clone());
        *self.generator.borrow_mut() = it.generator;
        r
    }
}

/// A compiled module function, with the context that owns its IR.
pub struct Compiled {
    pub function: CompiledFunction,
    pub meta: ViewAndMutationMeta,
    pub generator: Rc<RefCell<Generator>>,
}

/// What to compile with.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub pipeline: String,
    pub backend: Backend,
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
    let plan = build_plan(&ctx, func, &meta).map_err(|m| {
        render(&ctx, &[Diagnostic::op_error(&ctx, func, format!("cannot derive its calling convention: {m}"))])
    })?;
    let generator = Rc::new(RefCell::new(Generator::default()));
    let forward: Box<dyn Executable> = match opts.backend {
        Backend::Interp => Box::new(InterpExecutable { ctx: Rc::new(ctx), func, generator: generator.clone() }),
    };
    Ok(Compiled { function: CompiledFunction::new(plan, forward), meta, generator })
}
