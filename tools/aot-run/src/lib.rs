//! The library behind `aot-run`, and the harness the test suites, fuzz
//! targets and benchmarks share: build tensors from an input file, execute
//! a function eagerly on the reference interpreter or compiled through the
//! `aot` facade, report what happened in the output format of
//! `docs/reference/json.md`, compute gradients by finite differences, and
//! compare results (the golden and differential tests). The facade knows
//! nothing of this file format: an input file becomes a typed
//! `aot::passes::convention::Convention` here
//! (`json::InputSpec::convention`). Input is validated here, at the JSON
//! boundary: sizes are checked with `aot_ir::size` and against the
//! allocation limit before any tensor is allocated, so bad input is an
//! error naming the argument, never a panic or an out-of-memory abort in
//! the runtime.

pub mod compare;
pub mod fd;
pub mod json;
pub mod subclass;

use aot_dialects::func::{NON_LEAF, REQUIRES_GRAD, SAME_AS};
use aot_ir::{Context, Diagnostic, ElemType, Op, SourceMgr, TensorType};
use aot_runtime::compiled::CallError;
use aot_runtime::{ExecOptions, Generator, Interpreter, Tensor};
use json::{ArgSpec, InputSpec, TangentTarget, Values};
use serde_json::{json, Value as Json};

/// Why a run failed. Every variant carries a message ready to print.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The input (file, JSON, arguments) is wrong; the message names the argument.
    #[error("{0}")]
    Input(String),
    /// The program failed (parse, verify, pipeline or execution); rendered diagnostics.
    #[error("{0}")]
    Program(String),
}

impl RunError {
    pub fn input(m: impl Into<String>) -> RunError {
        RunError::Input(m.into())
    }

    /// Renders program diagnostics.
    pub fn program(ctx: &Context, sources: &SourceMgr, diags: &[Diagnostic]) -> RunError {
        RunError::Program(diags.iter().map(|d| d.render(ctx, sources)).collect::<String>())
    }
}

/// The entry function's parameter types (tensors only).
pub fn signature(ctx: &Context, func: Op) -> Result<Vec<TensorType>, RunError> {
    aot::function::signature(ctx, func).map_err(RunError::Input)
}

/// The tensors of an input file.
pub struct Materialized {
    pub args: Vec<Tensor>,
    /// The 1-D root tensor of each listed storage.
    pub roots: Vec<Tensor>,
}

fn physical(e: ElemType, promote: bool) -> ElemType {
    if promote && e.is_float() {
        ElemType::F64
    } else {
        e
    }
}

/// Builds a contiguous tensor from `data`, refusing what the allocation
/// limit forbids and values that do not fit an integer dtype (specs built
/// in code may hold floats for integer dtypes).
fn build(dtype: ElemType, shape: &[i64], data: &Values, physical: ElemType, what: &str) -> Result<Tensor, RunError> {
    if shape.iter().any(|&d| d < 0) {
        return Err(RunError::input(format!("{what}: negative size in shape {shape:?}")));
    }
    let n = aot_ir::size::checked_numel(shape)
        .ok_or_else(|| RunError::input(format!("{what}: the element count of shape {shape:?} overflows")))?;
    if n as u64 != data.len() as u64 {
        return Err(RunError::input(format!("{what}: 'data' has {} values but shape {shape:?} needs {n}", data.len())));
    }
    json::check_tensor_alloc(shape, physical, what)?;
    if dtype.is_float() {
        let v: Vec<f64> = match data {
            Values::Float(v) => v.clone(),
            Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
        };
        return Ok(Tensor::from_f64(dtype, shape, &v, physical));
    }
    let (lo, hi) = json::int_range(dtype);
    let ints: Vec<i64> = match data {
        Values::Int(v) => v.clone(),
        Values::Float(v) => v
            .iter()
            .map(|&x| {
                if x.is_finite() && x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64 {
                    Ok(x as i64)
                } else {
                    Err(RunError::input(format!("{what}: value {x} is not a valid {dtype}")))
                }
            })
            .collect::<Result<_, _>>()?,
    };
    if let Some(x) = ints.iter().find(|&&x| x < lo || x > hi) {
        return Err(RunError::input(format!("{what}: value {x} is not a valid {dtype}")));
    }
    Ok(Tensor::from_i64(dtype, shape, &ints, physical))
}

/// Builds the argument tensors of `spec` for a function with parameters
/// `params`, with PyTorch's autograd state (leaves, non-leaves, views of a
/// differentiable base). Every size is checked before anything is allocated.
pub fn materialize(spec: &InputSpec, params: &[TensorType], promote: bool) -> Result<Materialized, RunError> {
    if spec.args.len() != params.len() {
        return Err(RunError::input(format!(
            "the function takes {} arguments but the input file gives {}",
            params.len(),
            spec.args.len()
        )));
    }
    let mut roots = Vec::new();
    for (i, s) in spec.storages.iter().enumerate() {
        let what = format!("storage {i}");
        let t = build(s.dtype, &[s.data.len() as i64], &s.data, physical(s.dtype, promote), &what)?;
        if s.base {
            if !s.dtype.is_float() {
                return Err(RunError::input(format!("{what}: a differentiable base must have a float dtype")));
            }
            // The base is `leaf.clone()`: requires grad, not a leaf, mutable.
            t.set_requires_grad(true);
            t.set_leaf(false);
        }
        roots.push(t);
    }
    let mut args: Vec<Tensor> = Vec::new();
    for (i, (a, p)) in spec.args.iter().zip(params).enumerate() {
        let what = format!("argument {i}");
        let t = match a {
            ArgSpec::SameAs(k) => args
                .get(*k)
                .cloned()
                .ok_or_else(|| RunError::input(format!("{what}: 'same_as' must name an earlier argument, got {k}")))?,
            ArgSpec::Own { dtype, shape, data, requires_grad, non_leaf } => {
                let t = build(*dtype, shape, data, physical(*dtype, promote), &what)?;
                if *requires_grad {
                    if !dtype.is_float() {
                        return Err(RunError::input(format!("{what}: only float tensors can require grad")));
                    }
                    t.set_requires_grad(true);
                    t.set_leaf(!non_leaf);
                } else if *non_leaf {
                    return Err(RunError::input(format!("{what}: 'non_leaf' needs 'requires_grad'")));
                }
                t
            }
            ArgSpec::View { storage, size, stride, offset, requires_grad, non_leaf } => {
                let (Some(root), Some(st)) = (roots.get(*storage), spec.storages.get(*storage)) else {
                    return Err(RunError::input(format!(
                        "{what}: storage {storage} does not exist ({} listed)",
                        spec.storages.len()
                    )));
                };
                json::check_view(size, stride, *offset, st.data.len(), &what)?;
                let t = root
                    .alias_with(size.iter().copied().collect(), stride.iter().copied().collect(), *offset)
                    .map_err(|m| RunError::input(format!("{what}: {m}")))?;
                if st.base {
                    t.borrow_mut().view_base = Some(root.clone());
                    t.set_leaf(false);
                } else if *requires_grad {
                    let views_of_storage = || {
                        spec.args
                            .iter()
                            .filter(|a| matches!(a, ArgSpec::View { storage: s, .. } if s == storage))
                            .count()
                    };
                    if *non_leaf && views_of_storage() > 1 {
                        return Err(RunError::input(format!(
                            "{what}: a non-leaf view beside other views of its storage needs the storage to be a differentiable base (\"base\": true)"
                        )));
                    }
                    if !root.dtype().is_float() {
                        return Err(RunError::input(format!("{what}: only float tensors can require grad")));
                    }
                    // A leaf that shares the storage (`view.detach().requires_grad_()`),
                    // or a non-leaf view, alone over it, of a base the call
                    // is not given (a view of an activation).
                    t.set_requires_grad(true);
                    t.set_leaf(!non_leaf);
                } else {
                    // A view, made in grad mode, of a storage that does not
                    // require grad: no grad_fn until autograd takes one.
                    let mut m = t.borrow_mut();
                    m.view_base = Some(root.clone());
                    m.stale_grad_fn = root.dtype().is_float();
                    m.is_leaf = false;
                }
                t
            }
        };
        // Symbolic sizes (`s0`) take the input's size; the interpreter binds
        // them and checks the rest when it calls the function.
        if !aot_ir::sym::fits(&p.shape, &t.sizes()) || t.dtype() != p.elem {
            return Err(RunError::input(format!(
                "{what}: the function expects {p}, but the input is a {} tensor of shape {:?}",
                t.dtype(),
                t.sizes().to_vec()
            )));
        }
        args.push(t);
    }
    Ok(Materialized { args, roots })
}

/// For each parameter of `func`: whether it carries `{aot.requires_grad}`
/// (the default of the input file's `"requires_grad"`).
pub fn requires_grad_attrs(ctx: &Context, func: Op) -> Vec<bool> {
    let Some(f) = aot_dialects::func::FuncView::new(ctx, func) else { return Vec::new() };
    (0..f.num_args(ctx)).map(|i| f.arg_has(ctx, i, REQUIRES_GRAD)).collect()
}

/// Parses an input file for `func`: its `{aot.requires_grad}` attributes
/// are the defaults, and an explicit `false` against one is an error.
pub fn read_inputs(ctx: &Context, func: Op, text: &str) -> Result<InputSpec, RunError> {
    json::parse_inputs_for(text, &requires_grad_attrs(ctx, func))
}

/// One eager execution.
pub struct EagerRun {
    pub args: Vec<Tensor>,
    pub roots: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
    /// Each argument's autograd history version before the call.
    pub versions_before: Vec<u64>,
    pub generator: Generator,
}

/// Runs `func` eagerly on the inputs of `spec`.
pub fn run_eager(
    ctx: &Context,
    sources: &SourceMgr,
    func: Op,
    spec: &InputSpec,
    seed: u64,
    promote: bool,
) -> Result<EagerRun, RunError> {
    run_eager_calls(ctx, sources, func, spec, Calls { seed, count: 1, grad: None }, promote)
}

/// How many times to call a function, and the generator's seed before the
/// first call (later calls continue its stream).
#[derive(Copy, Clone, Debug)]
pub struct Calls<'a> {
    pub seed: u64,
    pub count: usize,
    /// Compiled runs: also run the backward of the last call with these
    /// tangents (none given: all ones).
    pub grad: Option<&'a json::TangentSpec>,
}

/// Calls `func` eagerly `calls` times, each time on fresh inputs from
/// `spec`, with one generator seeded once (later calls continue its
/// stream); returns the last call.
pub fn run_eager_calls(
    ctx: &Context,
    sources: &SourceMgr,
    func: Op,
    spec: &InputSpec,
    calls: Calls<'_>,
    promote: bool,
) -> Result<EagerRun, RunError> {
    let params = signature(ctx, func)?;
    let mut generator = Generator::new(calls.seed);
    let mut last = None;
    for _ in 0..calls.count.max(1) {
        let m = materialize(spec, &params, promote)?;
        let versions_before = m.args.iter().map(|a| a.history_version()).collect();
        let mut interp = Interpreter::new(ctx);
        interp.generator = generator;
        interp.options = ExecOptions { promote_f64: promote };
        let outputs = interp.call(func, &m.args).map_err(|d| RunError::program(ctx, sources, &[d]))?;
        generator = interp.generator;
        last = Some(EagerRun { args: m.args, roots: m.roots, outputs, versions_before, generator });
    }
    Ok(last.expect("at least one call"))
}

/// The output file's `outputs` and `args_after` for a call's outputs and
/// final arguments.
pub fn outputs_json(outputs: &[Tensor], args: &[Tensor]) -> Json {
    let outs: Vec<Json> = outputs
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let mut m = json::tensor_json(o);
            m.insert("requires_grad".into(), json!(o.requires_grad()));
            let alias = args.iter().position(|a| a.shares_storage(o));
            m.insert("alias_of_arg".into(), json!(alias));
            // Outputs in one storage: a write through one shows in the other.
            let twin = outputs[..k].iter().position(|p| p.shares_storage(o));
            m.insert("alias_of_output".into(), json!(twin));
            Json::Object(m)
        })
        .collect();
    let args_after: Vec<Json> = args.iter().map(|a| Json::Object(json::tensor_json(a))).collect();
    json!({ "outputs": outs, "args_after": args_after })
}

/// One compiled execution.
pub struct CompiledRun {
    pub args: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
    pub meta: aot_passes::meta::ViewAndMutationMeta,
    /// The module after the pipeline, when asked for.
    pub ir: Option<String>,
    /// With `Calls::grad`: the output file's `grads` and `storage_grads`.
    pub grads: Option<(Json, Json)>,
    /// On a backend that runs on a device memory (`hostdev`): the bus
    /// crossings of the calls themselves (forward and backward). The
    /// arguments and tangents are placed in the device's memory before
    /// each call, so a resident call should make none.
    pub crossings: Option<aot_runtime::device::Crossings>,
    /// With `Calls::grad`: whether the backward assembled a tangent or
    /// gradient from values on the host (`Gradients::routed_on_host`),
    /// which on a device crosses the bus.
    pub routed_on_host: bool,
}

impl CompiledRun {
    /// The output file's `outputs` and `args_after`, and with gradients
    /// its `grads` and `storage_grads`.
    pub fn to_json(&self) -> Json {
        let mut out = outputs_json(&self.outputs, &self.args);
        if let Some((grads, storage_grads)) = &self.grads {
            out["grads"] = grads.clone();
            out["storage_grads"] = storage_grads.clone();
        }
        out
    }
}

/// The error PyTorch's `backward` of a call with `spec` would raise (a
/// saved value changed in place, a gradient of the wrong shape, `set_`
/// autograd recorded, ...): eager gradients are finite differences, which
/// never run a backward, so the program's own module text is specialised
/// to the call's convention and functionalized, whose autograd graph knows
/// (`aot.backward_error`). A program functionalize refuses raises nothing
/// here: eager already ran it.
pub fn backward_check(
    text: &str,
    file: &str,
    sources: &SourceMgr,
    entry: Option<&str>,
    spec: &InputSpec,
) -> Result<(), RunError> {
    let mut ctx = Context::new();
    let opts = aot_ir::ParseOptions { file: file.to_string(), first_line: 1 };
    let Ok(module) = aot_ir::parse_module(&mut ctx, text, &opts) else { return Ok(()) };
    let Ok(func) = aot_dialects::func::entry_func(&ctx, module, entry).map(|f| f.op) else { return Ok(()) };
    let Ok(convention) = spec.convention(&ctx, func) else { return Ok(()) };
    if convention.apply(&mut aot_ir::Rewriter::new(&mut ctx), func).is_err() {
        return Ok(());
    }
    let mut pm = aot_ir::pass::PassManager::parse("builtin.module(func.func(functionalize))")
        .map_err(|e| RunError::input(e.to_string()))?;
    if pm.run(&mut ctx, module, &mut std::io::sink()).is_err() {
        return Ok(());
    }
    match aot_passes::functionalize::backward_error(&mut ctx, func) {
        Some(d) => Err(RunError::program(&ctx, sources, &[d])),
        None => Ok(()),
    }
}

/// Specialises `func` to the calling convention of `spec`, compiles it
/// with `opts`, and calls it `calls` times on fresh inputs from `spec`, the
/// generator seeded once (later calls continue its stream); returns the
/// last call.
pub fn run_compiled(
    ctx: Context,
    sources: &SourceMgr,
    module: Op,
    func: Op,
    spec: &InputSpec,
    opts: &aot::compile::CompileOptions,
    calls: Calls<'_>,
) -> Result<CompiledRun, RunError> {
    run_compiled_for(ctx, sources, module, func, spec, spec, opts, calls)
}

/// [`run_compiled`] specialised for the convention of `compile_for`
/// rather than of the inputs it is called with (`aot-run --compile-for`):
/// the guards then decide whether the call may proceed.
#[allow(clippy::too_many_arguments)]
pub fn run_compiled_for(
    ctx: Context,
    sources: &SourceMgr,
    module: Op,
    func: Op,
    compile_for: &InputSpec,
    spec: &InputSpec,
    opts: &aot::compile::CompileOptions,
    calls: Calls<'_>,
) -> Result<CompiledRun, RunError> {
    let mut runs = run_compiled_each(ctx, sources, module, func, compile_for, &[spec], opts, calls)?;
    runs.pop().expect("one run per input spec")
}

/// [`run_compiled_for`] with one compile for every spec of `specs`: each
/// is run as `calls` says (the generator seeded again for each), on the
/// one compiled function, as a function compiled with symbolic sizes
/// serves the sizes of each. Errors of the compile are the outer error,
/// those of a run its own.
#[allow(clippy::too_many_arguments)]
pub fn run_compiled_each(
    mut ctx: Context,
    sources: &SourceMgr,
    module: Op,
    func: Op,
    compile_for: &InputSpec,
    specs: &[&InputSpec],
    opts: &aot::compile::CompileOptions,
    calls: Calls<'_>,
) -> Result<Vec<Result<CompiledRun, RunError>>, RunError> {
    let params = signature(&ctx, func)?;
    let convention = compile_for.convention(&ctx, func).map_err(RunError::input)?;
    convention.apply(&mut aot_ir::Rewriter::new(&mut ctx), func).map_err(RunError::input)?;
    let device = match opts.backend {
        aot::compile::Backend::Target(t) => t.device_memory(),
        aot::compile::Backend::Interp => None,
    };
    // Crossings are counted from here, loading the code included (its
    // constants), less what placing arguments and tangents copied.
    let mut start = device.as_ref().map(|d| d.crossings()).unwrap_or_default();
    let compiled = aot::compile::compile(ctx, sources, module, func, opts).map_err(RunError::Program)?;
    let mut function = compiled.function;
    let mut runs = Vec::with_capacity(specs.len());
    for spec in specs {
        *compiled.generator.borrow_mut() = Generator::new(calls.seed);
        let run = run_calls(&mut function, &params, spec, device.as_ref(), start, calls);
        runs.push(run.map(|(args, outputs, grads, crossings, routed_on_host)| CompiledRun {
            args,
            outputs,
            meta: compiled.meta.clone(),
            ir: compiled.ir.clone(),
            grads,
            crossings,
            routed_on_host,
        }));
        start = device.as_ref().map(|d| d.crossings()).unwrap_or_default();
    }
    Ok(runs)
}

/// What one spec's calls of [`run_compiled_each`] give: the last call's
/// arguments, outputs and gradients, the crossings and host routing.
type CallsRun = (Vec<Tensor>, Vec<Tensor>, Option<(Json, Json)>, Option<aot_runtime::device::Crossings>, bool);

fn run_calls(
    function: &mut aot_runtime::compiled::CompiledFunction,
    params: &[TensorType],
    spec: &InputSpec,
    device: Option<&std::rc::Rc<dyn aot_runtime::device::DeviceMemory>>,
    start: aot_runtime::device::Crossings,
    calls: Calls<'_>,
) -> Result<CallsRun, RunError> {
    let mut placed = aot_runtime::device::Crossings::default();
    let call_err = |e: CallError| match e {
        CallError::Convention(m) => RunError::Input(m),
        CallError::Execution(m) => RunError::Program(m),
    };
    let mut last = None;
    for _ in 0..calls.count.max(1) {
        let m = materialize(spec, params, false)?;
        if let Some(mem) = device {
            let before = mem.crossings();
            Tensor::make_resident(&m.args, mem).map_err(RunError::input)?;
            function.place_generator_state(mem).map_err(RunError::input)?;
            placed = placed.plus(&mem.crossings().since(&before));
        }
        let (outputs, state) = function.forward(&m.args).map_err(call_err)?;
        last = Some((m, outputs, state));
    }
    let (m, outputs, state) = last.expect("at least one call");
    // The counters when the calls were done (before anything reads results).
    let mut ended = device.map(|d| d.crossings());
    let grads = match calls.grad {
        None => None,
        Some(tangents) => {
            let g = compiled_grads(function, &m, &outputs, state, tangents, device, &mut placed, &mut ended);
            Some(g.map_err(|e| match e {
                GradError::Run(r) => r,
                GradError::Call(c) => call_err(c),
            })?)
        }
    };
    let crossings = ended.map(|end| end.since(&start.plus(&placed)));
    let (grads, routed_on_host) = match grads {
        Some((g, s, routed)) => (Some((g, s)), routed),
        None => (None, false),
    };
    Ok((m.args, outputs, grads, crossings, routed_on_host))
}

enum GradError {
    Run(RunError),
    Call(CallError),
}

/// Runs the compiled backward with the contract's tangents and writes the
/// gradients as the output file's `grads` and `storage_grads`.
#[allow(clippy::too_many_arguments)]
fn compiled_grads(
    function: &mut aot_runtime::compiled::CompiledFunction,
    m: &Materialized,
    outputs: &[Tensor],
    state: aot_runtime::compiled::ForwardState,
    tangents: &json::TangentSpec,
    device: Option<&std::rc::Rc<dyn aot_runtime::device::DeviceMemory>>,
    placed: &mut aot_runtime::device::Crossings,
    ended: &mut Option<aot_runtime::device::Crossings>,
) -> Result<(Json, Json, bool), GradError> {
    let mutated = function.backward.as_ref().map(|b| b.plan.mutated_args.clone()).unwrap_or_default();
    tangents.check_counts(outputs.len(), mutated.len()).map_err(GradError::Run)?;
    let tensor = |like: &Tensor, data: Option<Vec<f64>>| {
        data.map(|d| Tensor::from_f64(like.dtype(), &like.sizes(), &d, like.dtype()))
    };
    let mut out_t: Vec<Option<Tensor>> = Vec::new();
    for (k, o) in outputs.iter().enumerate() {
        let shape = o.sizes();
        let target = TangentTarget {
            dtype: o.dtype(),
            shape: &shape,
            differentiable: o.requires_grad() && o.dtype().is_float(),
        };
        out_t.push(tensor(o, tangents.output(k, target).map_err(GradError::Run)?));
    }
    let mut mut_t: Vec<Option<Tensor>> = vec![None; m.args.len()];
    for (j, &i) in mutated.iter().enumerate() {
        let a = &m.args[i];
        let shape = a.sizes();
        let target = TangentTarget { dtype: a.dtype(), shape: &shape, differentiable: true };
        mut_t[i] = tensor(a, tangents.mutated(j, target).map_err(GradError::Run)?);
    }
    // On a device, the tangents are placed there first, as the arguments.
    if let Some(mem) = device {
        let before = mem.crossings();
        let tangents: Vec<Tensor> = out_t.iter().chain(&mut_t).flatten().cloned().collect();
        Tensor::make_resident(&tangents, mem).map_err(|e| GradError::Run(RunError::input(e)))?;
        *placed = placed.plus(&mem.crossings().since(&before));
    }
    let g = function.backward(state, &out_t, &mut_t, false).map_err(GradError::Call)?;
    // (Reading the gradients below copies them to the host: not the call's.)
    *ended = device.map(|mem| mem.crossings());
    let grads: Vec<Json> = g
        .args
        .iter()
        .map(|t| match t {
            Some(t) => json::grad_json(t.dtype(), &t.sizes(), &t.read_f64()),
            None => Json::Null,
        })
        .collect();
    let mut storage_grads = vec![Json::Null; m.roots.len()];
    for (root, grad) in &g.bases {
        if let Some(s) = m.roots.iter().position(|r| r.same(root)) {
            storage_grads[s] = json::grad_json(grad.dtype(), &grad.sizes(), &grad.read_f64());
        }
    }
    Ok((Json::Array(grads), Json::Array(storage_grads), g.routed_on_host))
}

impl EagerRun {
    /// Indices of the arguments whose data mutation autograd sees: they
    /// require grad after the call and their history changed (first
    /// occurrence of each object only).
    pub fn autograd_mutated_args(&self) -> Vec<usize> {
        (0..self.args.len())
            .filter(|&i| !self.args[..i].iter().any(|a| a.same(&self.args[i])))
            .filter(|&i| self.args[i].requires_grad() && self.args[i].history_version() != self.versions_before[i])
            .collect()
    }

    /// Outputs that take part in the gradient objective.
    pub fn differentiable_outputs(&self) -> Vec<usize> {
        (0..self.outputs.len())
            .filter(|&k| self.outputs[k].requires_grad() && self.outputs[k].dtype().is_float())
            .collect()
    }

    /// The output file's `outputs` and `args_after`.
    pub fn to_json(&self) -> Json {
        outputs_json(&self.outputs, &self.args)
    }
}

/// Random inputs for a function: each argument gets its own contiguous
/// storage; floats uniform in [-1, 1), integers in [0, 3), booleans fair.
/// Argument attributes `aot.requires_grad` and `aot.same_as` are honoured.
pub fn random_inputs(ctx: &Context, func: Op, seed: u64) -> Result<InputSpec, RunError> {
    random_inputs_sized(ctx, func, seed, &aot_ir::sym::Bindings::none())
}

/// [`random_inputs`] for a function with symbolic sizes: `sizes` gives
/// each symbol's value (`--sizes s0=8`).
pub fn random_inputs_sized(
    ctx: &Context,
    func: Op,
    seed: u64,
    sizes: &aot_ir::sym::Bindings,
) -> Result<InputSpec, RunError> {
    let mut params = signature(ctx, func)?;
    for (i, p) in params.iter_mut().enumerate() {
        if p.is_symbolic() {
            let shape = sizes.eval_shape(&p.shape).map_err(|e| {
                RunError::input(match e {
                    aot_ir::sym::SymError::Unbound(k) => {
                        format!("argument {i} has the symbolic size s{k} ({p}): give its value with --sizes s{k}=N")
                    }
                    e => format!("argument {i} ({p}): {e}"),
                })
            })?;
            p.shape = shape;
        }
    }
    let f = aot_dialects::func::FuncView { op: func };
    let mut spec = InputSpec::default();
    let mut counter = 0u64;
    let mut next = || {
        let w = aot_runtime::philox::word(seed, 0, counter);
        counter += 1;
        w
    };
    for (i, p) in params.iter().enumerate() {
        if let Some(k) = f.arg_attr(ctx, i, SAME_AS).and_then(|a| ctx.attr_as_i64(a)) {
            if k < 0 || k as usize >= i {
                return Err(RunError::input(format!("argument {i}: 'aot.same_as' must name an earlier argument")));
            }
            spec.args.push(ArgSpec::SameAs(k as usize));
            continue;
        }
        let what = format!("argument {i}");
        if p.shape.iter().any(|&d| d < 0) {
            return Err(RunError::input(format!("{what}: negative size in {p}")));
        }
        // Refused before anything is drawn: the type alone may ask for more
        // memory than the machine has.
        json::check_tensor_alloc(&p.shape, p.elem, &what)?;
        // The values are drawn into 8-byte elements before the tensor is built.
        json::check_tensor_alloc(
            &p.shape,
            ElemType::F64,
            &format!("{what} (its random values, drawn as 8-byte numbers)"),
        )?;
        let n = p.numel() as usize;
        let data: Values = if p.elem.is_float() {
            Values::Float(
                (0..n)
                    .map(|_| {
                        aot_runtime::buffer::round_to(p.elem, aot_runtime::philox::uniform_f64(next()) * 2.0 - 1.0)
                    })
                    .collect(),
            )
        } else if p.elem == ElemType::I1 {
            Values::Int((0..n).map(|_| (next() & 1) as i64).collect())
        } else {
            Values::Int((0..n).map(|_| (next() % 3) as i64).collect())
        };
        let requires_grad = f.arg_has(ctx, i, REQUIRES_GRAD) && p.elem.is_float();
        let non_leaf = f.arg_has(ctx, i, NON_LEAF);
        spec.args.push(ArgSpec::Own {
            dtype: p.elem,
            shape: p.shape.to_vec(),
            data,
            requires_grad,
            non_leaf: non_leaf && requires_grad,
        });
    }
    Ok(spec)
}

/// Serializes an input spec (for `--random-inputs` reproducibility).
pub fn inputs_to_json(spec: &InputSpec) -> Json {
    let storages: Vec<Json> = spec
        .storages
        .iter()
        .map(|s| json!({"dtype": s.dtype.name(), "data": s.data.to_json(), "base": s.base}))
        .collect();
    let args: Vec<Json> = spec
        .args
        .iter()
        .map(|a| match a {
            ArgSpec::SameAs(k) => json!({"same_as": k}),
            ArgSpec::Own { dtype, shape, data, requires_grad, non_leaf } => {
                json!({"dtype": dtype.name(), "shape": shape, "data": data.to_json(), "requires_grad": requires_grad, "non_leaf": non_leaf})
            }
            ArgSpec::View { storage, size, stride, offset, requires_grad, non_leaf } => json!({
                "storage": storage, "size": size, "stride": stride, "offset": offset,
                "requires_grad": requires_grad, "non_leaf": non_leaf
            }),
        })
        .collect();
    json!({"storages": storages, "args": args})
}
