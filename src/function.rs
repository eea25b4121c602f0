//! The embedding API: compile a function of a module for the calling
//! convention of example tensors, then call it with PyTorch's semantics.
//!
//! ```
//! use aot::{Module, Options, Tensor};
//!
//! let module = Module::parse(
//!     "func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
//!        %y = tensor.mul %x, %x : tensor<3xf32>
//!        %s = tensor.sum %y : tensor<3xf32> -> tensor<f32>
//!        return %s : tensor<f32>
//!      }",
//!     "example.mlir",
//! )?;
//! let x = Tensor::from_slice::<f32>(&[1.0, 2.0, 3.0], &[3])?;
//! x.set_requires_grad(true);
//! let mut f = module.compile(None, &[x.clone()], &Options::training())?;
//! let (outs, saved) = f.forward(&[x.clone()])?;
//! assert_eq!(outs[0].item::<f32>()?, 14.0);
//! let grads = f.backward(saved, &[None])?; // no tangent: ones
//! assert_eq!(grads.args[0].as_ref().unwrap().to_vec::<f32>()?, vec![2.0, 4.0, 6.0]);
//! # Ok::<(), aot::Error>(())
//! ```
//!
//! What the function is specialised on comes from the example arguments,
//! exactly as AOTAutograd learns it: which of them require grad, which are
//! the same object, which share a storage (and their strided layouts in it).
//! Every later call is checked against that convention by the compiled
//! function's guards; a call that breaks it is an [`Error::Convention`] and
//! changes nothing. Arguments are bound zero-copy where their layout allows
//! (always for contiguous tensors and for views declared by the convention).

use crate::compile::{compile, ArgEffects, Backend, CompileOptions};
use aot_ir::{Context, ParseOptions, SourceMgr};
use aot_passes::convention::{ArgConvention, ArgLayout, Convention, StorageDecl};
use aot_passes::meta::ViewAndMutationMeta;
use aot_runtime::backward::Gradients;
use aot_runtime::compiled::{CallError, CompiledFunction, ForwardState};
use aot_runtime::{Generator, Tensor};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// What can go wrong, by stage. Every message is complete (IR errors are
/// rendered with their source location and caret).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The module text does not parse or verify: every diagnostic, with its
    /// file, line and column (displayed MLIR-style, source line and caret).
    #[error("{}", render_all(.0))]
    Parse(Vec<aot_ir::ResolvedDiagnostic>),
    /// The example arguments do not fit the function's signature.
    #[error("{0}")]
    Signature(String),
    /// The pipeline or the backend rejected the function.
    #[error("{0}")]
    Compile(String),
    /// A call's arguments break the convention the function was compiled
    /// for (nothing ran, no argument changed), or a backward was asked of a
    /// function compiled without one.
    #[error("{0}")]
    Convention(String),
    /// The compiled code failed while running (e.g. an index out of range).
    #[error("{0}")]
    Execution(String),
    /// A tensor could not be built or read (wrong number of values, a
    /// negative or overflowing shape, a dtype mismatch).
    #[error(transparent)]
    Tensor(#[from] aot_runtime::TensorError),
}

fn render_all(ds: &[aot_ir::ResolvedDiagnostic]) -> String {
    ds.iter().map(|d| d.rendered.as_str()).collect()
}

impl From<CallError> for Error {
    fn from(e: CallError) -> Error {
        match e {
            CallError::Convention(m) => Error::Convention(m),
            CallError::Execution(m) => Error::Execution(m),
        }
    }
}

/// How to compile: the pass pipeline and the backend.
#[derive(Clone, Debug)]
pub struct Options {
    /// A registered pipeline (`aot-inference`, `aot-train`) or any textual
    /// pipeline that ends with `functionalize` and `collect-metadata` run.
    pub pipeline: String,
    pub backend: Backend,
    /// Keep what a compile report shows ([`Function::report`]): the
    /// module after the pipeline, as text and as a Graphviz picture.
    pub report: bool,
    /// A line on stderr as each pass and the code generation start.
    pub progress: bool,
}

impl Options {
    /// Forward only (`aot-inference`), native code.
    pub fn inference() -> Options {
        Options { pipeline: "aot-inference".into(), backend: Backend::CRANELIFT, report: false, progress: false }
    }

    /// Forward and backward (`aot-train`), native code; the backward is
    /// compiled on its first use.
    pub fn training() -> Options {
        Options { pipeline: "aot-train".into(), backend: Backend::CRANELIFT, report: false, progress: false }
    }

    pub fn with_backend(mut self, backend: Backend) -> Options {
        self.backend = backend;
        self
    }

    /// Keeps what [`Function::report`] gives.
    pub fn with_report(mut self) -> Options {
        self.report = true;
        self
    }
}

impl Default for Options {
    fn default() -> Options {
        Options::inference()
    }
}

/// A parsed and verified module. Compiling does not consume it: each
/// compilation works on its own copy of the IR.
pub struct Module {
    text: Arc<str>,
    file: String,
}

fn parse(text: &str, file: &str) -> Result<(Context, aot_ir::Op, SourceMgr), Error> {
    crate::init();
    let mut sources = SourceMgr::new();
    sources.add(file, Arc::from(text));
    let mut ctx = Context::new();
    let resolve = |ctx: &Context, d: &[aot_ir::Diagnostic]| d.iter().map(|d| d.resolve(ctx, &sources)).collect();
    let opts = ParseOptions { file: file.into(), first_line: 1 };
    let m = match aot_ir::parse_module(&mut ctx, text, &opts) {
        Ok(m) => m,
        Err(d) => return Err(Error::Parse(resolve(&ctx, &[d]))),
    };
    if let Err(ds) = aot_ir::verify(&ctx, m) {
        return Err(Error::Parse(resolve(&ctx, &ds)));
    }
    Ok((ctx, m, sources))
}

impl Module {
    /// Parses and verifies `text`; `file` names it in diagnostics.
    pub fn parse(text: impl Into<String>, file: &str) -> Result<Module, Error> {
        let text: Arc<str> = Arc::from(text.into());
        parse(&text, file)?;
        Ok(Module { text, file: file.into() })
    }

    /// The names of the functions the module defines.
    pub fn functions(&self) -> Vec<String> {
        let Ok((ctx, m, _)) = parse(&self.text, &self.file) else { return Vec::new() };
        aot_dialects::func::funcs(&ctx, m).iter().map(|f| f.name(&ctx).to_string()).collect()
    }

    /// Runs a pass pipeline (`aot-opt --pass-pipeline` syntax, e.g.
    /// `builtin.module(functionalize,collect-metadata)` or a registered
    /// pipeline name) on the module and prints the result, as `aot-opt`
    /// does. A pass that fails gives `Error::Compile` with its diagnostics.
    pub fn run_pipeline(&self, pipeline: &str) -> Result<String, Error> {
        let (mut ctx, m, sources) = parse(&self.text, &self.file)?;
        let mut pm = aot_ir::pass::PassManager::parse(pipeline).map_err(|e| Error::Compile(e.to_string()))?;
        if let Err(f) = pm.run(&mut ctx, m, &mut std::io::sink()) {
            return Err(Error::Compile(f.diagnostics.iter().map(|d| d.render(&ctx, &sources)).collect()));
        }
        Ok(aot_ir::print_op(&ctx, m, Default::default()))
    }

    /// Compiles function `name` (`"f"` or `"@f"`; none: the module's entry,
    /// its only public function, else `@main`) for the convention of
    /// `example_args`.
    pub fn compile(&self, name: Option<&str>, example_args: &[Tensor], opts: &Options) -> Result<Function, Error> {
        let (ctx, m, sources) = parse(&self.text, &self.file)?;
        let name = name.map(|n| n.strip_prefix('@').unwrap_or(n));
        let func = aot_dialects::func::entry_func(&ctx, m, name).map_err(Error::Signature)?.op;
        if aot_passes::flatten_subclasses::has_subclass_values(&ctx, func) {
            return Err(Error::Signature(
                "the function takes or makes tensor subclass values: compile it with aot::subclass::compile".into(),
            ));
        }
        compile_entry(ctx, m, func, &sources, example_args, opts)
    }

    /// The parsed module (for the other compile entry points).
    pub(crate) fn parsed(&self) -> Result<(Context, aot_ir::Op, SourceMgr), Error> {
        parse(&self.text, &self.file)
    }
}

/// The parameter types of `func`, which must all be tensors: a compiled
/// function is called with tensors only.
pub fn signature(ctx: &Context, func: aot_ir::Op) -> Result<Vec<aot_ir::TensorType>, String> {
    let f = aot_dialects::func::FuncView::new(ctx, func).ok_or_else(|| "the entry is not a function".to_string())?;
    let (inputs, _) = f.function_type(ctx);
    inputs
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            ctx.as_tensor(t).cloned().ok_or_else(|| {
                format!(
                    "argument {i}: only tensors can be passed, but the function takes {}",
                    aot_ir::printer::type_to_string(ctx, t)
                )
            })
        })
        .collect()
}

/// Compiles `func` of `m` (dense tensors only) for the convention of
/// `example_args`.
pub(crate) fn compile_entry(
    mut ctx: Context,
    m: aot_ir::Op,
    func: aot_ir::Op,
    sources: &SourceMgr,
    example_args: &[Tensor],
    opts: &Options,
) -> Result<Function, Error> {
    let params = signature(&ctx, func).map_err(Error::Signature)?;
    if params.len() != example_args.len() {
        return Err(Error::Signature(format!(
            "the function takes {} arguments, got {} example arguments",
            params.len(),
            example_args.len()
        )));
    }
    for (i, (p, a)) in params.iter().zip(example_args).enumerate() {
        // A symbolic size (`s0`) takes the example's; calls bind their own.
        if a.dtype() != p.elem || !aot_ir::sym::fits(&p.shape, &a.sizes()) {
            return Err(Error::Signature(format!(
                "argument {i}: the function expects {p}, got a {} tensor of shape {:?}",
                a.dtype(),
                a.sizes().to_vec()
            )));
        }
    }
    let f = aot_dialects::func::FuncView::new(&ctx, func).ok_or_else(|| Error::Signature("not a function".into()))?;
    let outputs =
        f.function_type(&ctx).1.iter().map(|&t| ctx.as_tensor(t).map(|t| (t.elem, t.shape.to_vec()))).collect();
    let mut convention = convention_of(&mut ctx, example_args)?;
    // The examples give the convention; the function's own types (their
    // symbolic sizes included, which the examples fit) are what it takes.
    let inputs: Vec<aot_ir::Type> = f.function_type(&ctx).0.to_vec();
    for (a, t) in convention.args.iter_mut().zip(inputs) {
        a.ty = t;
    }
    let example_sizes: Vec<Vec<i64>> = example_args.iter().map(|a| a.sizes().to_vec()).collect();
    convention.generalize_layouts(&ctx, &example_sizes);
    convention.apply(&mut aot_ir::Rewriter::new(&mut ctx), func).map_err(Error::Signature)?;
    let copts = CompileOptions {
        pipeline: opts.pipeline.clone(),
        backend: opts.backend,
        keep_ir: opts.report,
        progress: opts.progress,
    };
    let c = compile(ctx, sources, m, func, &copts).map_err(Error::Compile)?;
    let report = CompileReport {
        ir: c.ir,
        dot: c.dot,
        dot_partition: c.dot_partition,
        partition: c.partition,
        pass_times: c.pass_times.into_iter().map(|(n, t)| (n, t.as_secs_f64())).collect(),
        codegen_seconds: c.codegen_time.as_secs_f64(),
    };
    Ok(Function {
        inner: c.function,
        meta: c.meta,
        generator: c.generator,
        shared: None,
        outputs,
        effects: c.effects,
        output_args: c.output_args,
        report,
    })
}

/// What a compile did, for a compile report: the times always, the
/// module after the pipeline with [`Options::report`].
#[derive(Clone, Debug, Default)]
pub struct CompileReport {
    /// The module after the pipeline, printed.
    pub ir: Option<String>,
    /// Its Graphviz picture (forward and backward, the partition marked).
    pub dot: Option<String>,
    /// The picture of the partition alone (saved values and the cut), for
    /// a module too large to draw whole; None without a partition.
    pub dot_partition: Option<String>,
    /// What the partition decided: the record and the saved values.
    pub partition: Option<crate::dot::PartitionSummary>,
    /// Seconds per pass, in pipeline order, each pass once.
    pub pass_times: Vec<(String, f64)>,
    /// Seconds of the forward's code generation.
    pub codegen_seconds: f64,
}

/// A Philox generator several functions draw from in turn, as PyTorch's
/// default generator serves every op (see [`Function::share_generator`]).
pub type SharedGenerator = Rc<RefCell<Generator>>;

/// A compiled function with its runtime calling convention.
pub struct Function {
    inner: CompiledFunction,
    meta: ViewAndMutationMeta,
    generator: Rc<RefCell<Generator>>,
    /// The generator the function draws from instead of its own, if any:
    /// its state is moved into the function's before a call and back after.
    shared: Option<SharedGenerator>,
    effects: Vec<ArgEffects>,
    /// Per user output, the user argument it is or views.
    output_args: Vec<Option<(usize, bool)>>,
    /// The user outputs' dtypes and shapes (none: not a tensor).
    outputs: Vec<Option<(aot_ir::ElemType, Vec<i64>)>>,
    report: CompileReport,
}

impl Function {
    /// Calls the function: mutated arguments are updated in place, outputs
    /// that alias arguments are views of them, as in eager PyTorch.
    pub fn call(&mut self, args: &[Tensor]) -> Result<Vec<Tensor>, Error> {
        Ok(self.drawing(|f| f.call(args))?)
    }

    /// Runs `run` with the shared generator's state in the function's own
    /// generator, and moves the state back after (also after an error:
    /// draws made before it happened stay drawn, as in eager code).
    fn drawing<R>(&mut self, run: impl FnOnce(&mut CompiledFunction) -> R) -> R {
        if let Some(g) = &self.shared {
            *self.generator.borrow_mut() = *g.borrow();
        }
        let r = run(&mut self.inner);
        if let Some(g) = &self.shared {
            *g.borrow_mut() = *self.generator.borrow();
        }
        r
    }

    /// Draws from `generator` (shared with other functions and with eager
    /// code) instead of the function's own generator from now on; a
    /// [`Function::manual_seed`] then reseeds the shared one.
    pub fn share_generator(&mut self, generator: SharedGenerator) {
        self.shared = Some(generator);
    }

    /// Calls the function and keeps what its backward needs.
    pub fn forward(&mut self, args: &[Tensor]) -> Result<(Vec<Tensor>, ForwardState), Error> {
        Ok(self.drawing(|f| f.forward(args))?)
    }

    /// The backward of one forward call: `output_tangents[k]` is the
    /// gradient flowing into user output k (none: ones for a scalar loss,
    /// zeros otherwise, as `loss.backward()` treats it). Consumes the
    /// forward's saved values.
    pub fn backward(&mut self, state: ForwardState, output_tangents: &[Option<Tensor>]) -> Result<Gradients, Error> {
        self.backward_with_mutations(state, output_tangents, &[])
    }

    /// [`Function::backward`] with tangents for the new values of mutated
    /// arguments too (`mutated_tangents[i]` for user argument i).
    pub fn backward_with_mutations(
        &mut self,
        state: ForwardState,
        output_tangents: &[Option<Tensor>],
        mutated_tangents: &[Option<Tensor>],
    ) -> Result<Gradients, Error> {
        let tangents: Vec<Option<Tensor>> = output_tangents
            .iter()
            .enumerate()
            .map(|(k, t)| match t {
                Some(t) => Some(t.clone()),
                None => self.default_tangent(k),
            })
            .collect();
        Ok(self.drawing(|f| f.backward(state, &tangents, mutated_tangents, false))?)
    }

    /// [`Function::backward_with_mutations`] where a missing tangent is
    /// one that no gradient reached (an autograd engine's None), never the
    /// ones of a scalar loss. When no tangent at all is given, no argument
    /// gets a gradient (None), as an autograd node that receives only
    /// undefined gradients passes undefined ones on and eager's `.grad`
    /// stays None.
    pub fn backward_given(
        &mut self,
        state: ForwardState,
        output_tangents: &[Option<Tensor>],
        mutated_tangents: &[Option<Tensor>],
    ) -> Result<Gradients, Error> {
        Ok(self.drawing(|f| f.backward(state, output_tangents, mutated_tangents, true))?)
    }

    /// Ones for a scalar float output (the seed `loss.backward()` uses).
    fn default_tangent(&self, k: usize) -> Option<Tensor> {
        let (dtype, shape) = self.outputs.get(k)?.as_ref()?;
        (shape.is_empty() && dtype.is_float()).then(|| Tensor::from_f64(*dtype, &[], &[1.0], *dtype))
    }

    /// Whether the function was compiled with a backward (`aot-train`).
    /// What the compile did: pass and codegen times, and with
    /// [`Options::report`] the module after the pipeline and its picture.
    pub fn report(&self) -> &CompileReport {
        &self.report
    }

    pub fn has_backward(&self) -> bool {
        self.inner.backward.is_some()
    }

    /// The steps of the forward and backward programs (`"forward"`,
    /// `"backward"`) with their times while profiling was on
    /// (`aot_codegen::executor::set_profiling`, or `AOT_PROFILE`) and
    /// their flops and bytes. Empty for a backend that does not profile
    /// (the interpreter).
    pub fn profile(&self) -> Vec<(&'static str, aot_runtime::compiled::StepProfile)> {
        let mut rows: Vec<_> = self.inner.forward.profile().into_iter().map(|r| ("forward", r)).collect();
        if let Some(b) = &self.inner.backward {
            rows.extend(b.exe.profile().into_iter().map(|r| ("backward", r)));
        }
        rows
    }

    /// Which arguments' memory a forward call's saved values may not keep:
    /// `copy[i]` true copies a saved value that lives in argument `i`'s
    /// memory (a weight the backward reads). By default none is copied, and
    /// the caller must not write such an argument between a forward and its
    /// backward (as autograd forbids writing a saved tensor). The PyTorch
    /// backend copies those eager's autograd would not save, so that
    /// writing them stays allowed, as in eager.
    pub fn copy_saved_arguments(&mut self, copy: Vec<bool>) {
        self.inner.copy_saved = copy;
    }

    /// Which user outputs' memory a forward call's saved values may not
    /// keep: `copy[k]` true copies a saved value that lives in the memory
    /// output `k` takes from the graph (an intermediate the output is, or
    /// views). By default none is copied, and the caller must not write
    /// such an output between a forward and its backward. The PyTorch
    /// backend copies for the outputs eager's autograd would not save.
    pub fn copy_saved_outputs(&mut self, copy: Vec<bool>) {
        self.inner.copy_saved_outputs = copy;
    }

    /// Per value a forward call saves (`ForwardState::saved`, in order): the
    /// user outputs and arguments (new values) whose tangent makes the
    /// backward read it, None where any backward reads it. Empty without a
    /// backward, or where not known (every saved value is read). A caller
    /// that lets arguments be written between a forward and its backward
    /// (as eager allows a tensor no reached derivative saved) tells from it
    /// whether a given backward reads what was written.
    pub fn saved_needs(&self) -> &[Option<(Vec<usize>, Vec<usize>)>] {
        self.inner.backward.as_ref().map(|b| &b.plan.saved_needs[..]).unwrap_or(&[])
    }

    /// Starts the profile's counts again from zero.
    pub fn reset_profile(&mut self) {
        self.inner.forward.reset_profile();
        if let Some(b) = &mut self.inner.backward {
            b.exe.reset_profile();
        }
    }

    /// Per user argument (in call order, duplicates included), what a call
    /// does to it: writes its data, changes its metadata; and whether it was
    /// compiled as requiring grad. ([`Function::meta`] describes the
    /// graph's inputs, which deduplication and synthetic bases renumber.)
    /// Per user output, the user argument (in call order) it is, or views:
    /// `(argument, whether it is that object itself)`. Unlike
    /// [`Function::meta`]'s indices, these are the caller's positions.
    pub fn output_args(&self) -> &[Option<(usize, bool)>] {
        &self.output_args
    }

    pub fn arg_effects(&self) -> &[ArgEffects] {
        &self.effects
    }

    /// AOTAutograd's view and mutation metadata of the function.
    pub fn meta(&self) -> &ViewAndMutationMeta {
        &self.meta
    }

    /// Reseeds the generator the function's random ops draw from.
    pub fn manual_seed(&mut self, seed: u64) {
        *self.generator.borrow_mut() = Generator::new(seed);
        if let Some(g) = &self.shared {
            *g.borrow_mut() = Generator::new(seed);
        }
    }
}

/// The calling convention of `args`: which are the same object, which share
/// a storage (as views with their layouts), which require grad, which are
/// non-leaves. The argument types are interned in `ctx`.
pub fn convention_of(ctx: &mut Context, args: &[Tensor]) -> Result<Convention, Error> {
    let mut c = Convention { args: Vec::with_capacity(args.len()), storages: Vec::new() };
    // Storages seen so far: (storage id, index in c.storages).
    let mut storages: Vec<(u64, usize)> = Vec::new();
    for (i, t) in args.iter().enumerate() {
        let ty = ctx.tensor_type(&t.sizes(), t.dtype());
        let arg =
            |requires_grad, non_leaf, same_as, layout| ArgConvention { ty, requires_grad, non_leaf, same_as, layout };
        if let Some(j) = args[..i].iter().position(|a| a.same(t)) {
            c.args.push(arg(false, false, Some(j), None));
            continue;
        }
        let sid = t.storage().id();
        let shared = args.iter().enumerate().any(|(j, a)| j != i && !a.same(t) && a.storage().id() == sid);
        let base = t.view_base().filter(|b| b.requires_grad() && !b.is_leaf() && b.shares_storage(t));
        let (requires_grad, non_leaf) = (t.requires_grad(), t.requires_grad() && !t.is_leaf());
        // An argument alone over its storage is its own: a leaf, or a
        // non-leaf root (a leaf's clone, an activation) whose in-place writes
        // autograd records on its own history.
        if !shared && base.is_none() && t.is_dense_root() {
            c.args.push(arg(requires_grad, non_leaf, None, None));
            continue;
        }
        // A non-leaf view that requires grad, of a base this call is not
        // given (a view of an activation: torch's `_base`), alone over its
        // storage, is an argument with a history of its own, as a non-leaf
        // root is: the compiled code returns the gradient of its value on
        // entry, and the caller's autograd routes it into that base (for a
        // written one, through the node that marks it dirty). Beside other
        // arguments of its storage, their gradients would have to meet in
        // the base: that needs the base as a differentiable one.
        if non_leaf && base.is_none() && shared {
            return Err(Error::Signature(format!(
                "argument {i}: a non-leaf view that requires grad and shares its storage with another argument must be a view of a differentiable base (a non-leaf 1-D root covering its storage)"
            )));
        }
        let storage = match storages.iter().find(|(id, _)| *id == sid) {
            Some(&(_, s)) => s,
            None => {
                let s = c.storages.len();
                let numel = i64::try_from(t.storage().len())
                    .map_err(|_| Error::Signature(format!("argument {i}: its storage is too large")))?;
                c.storages.push(StorageDecl { id: s as i64, numel: Some(numel), requires_grad: base.is_some() });
                storages.push((sid, s));
                s
            }
        };
        c.storages[storage].requires_grad |= base.is_some();
        // The views of a differentiable base take its gradient and history.
        let own = requires_grad && base.is_none();
        let layout = ArgLayout { storage: storage as i64, offset: t.offset(), strides: t.strides().to_vec() };
        c.args.push(arg(own, own && non_leaf, None, Some(layout)));
    }
    Ok(c)
}
