//! `aot-codegen`: from pure tensor graphs to native code.
//!
//! The codegen pipeline ([`PIPELINE`], run by a pass manager like any other,
//! so `--print-ir-after-all`, `--timing` and `--pass-statistics` cover it):
//! `protect-reads` (snapshots of arguments the epilogue overwrites),
//! `lower-to-loops` (tensor ops to `loop` kernels over buffers, views as
//! strided layouts), `fuse` (producer/consumer and loop fusion) and
//! `plan-memory` (buffer reuse by liveness). Its output, the `loop`
//! dialect, is the seam every backend starts from; `cranelift` JIT-compiles
//! its kernels and runs the host program around them.

pub mod absent;
pub mod affine;
pub mod attention;
pub mod by_size;
pub mod collapse_loops;
pub mod cranelift;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod executor;
pub mod fuse;
pub mod gemm;
pub mod host_device;
#[cfg(any(feature = "llvm", feature = "mlir"))]
mod jit_cache;
pub mod lanes8;
pub mod libcalls;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod lower_to_loops;
#[cfg(feature = "mlir")]
pub mod mlir;
#[cfg(any(feature = "llvm", feature = "mlir"))]
pub mod object_cache;
#[cfg(any(feature = "llvm", feature = "mlir"))]
pub mod orc;
pub mod plan_memory;
pub mod program;
pub mod sized;
pub mod target;
pub mod threads;
pub mod write_order;

/// Forces this crate (and its pass registrations) to be linked in.
pub fn link() {}

use aot_dialects::r#loop::analysis;
use aot_ir::pass::{PassManager, PassManagerOptions};
use aot_ir::{Context, Diagnostic, Op};
use aot_runtime::compiled::Executable;
use rustc_hash::FxHashMap;
pub use target::Target;

/// The passes from a value-semantics function over tensors to the `loop`
/// dialect, anchored on the function.
pub const PIPELINE: &str = "func.func(protect-reads,lower-to-loops,fuse,collapse-loops,plan-memory)";

/// A pass manager running `target`'s pipeline ([`pipeline_for`]) with
/// `options`.
pub fn pass_manager_for(target: &dyn Target, options: PassManagerOptions) -> Result<PassManager, String> {
    let mut pm =
        PassManager::parse(&pipeline_for(target)).map_err(|e| format!("the codegen pipeline does not parse: {e}"))?;
    pm.options = options;
    Ok(pm)
}

/// A code generator with the options to compile with: what the facade's
/// backends, the lazy backward and `aot-opt --emit` hold.
#[derive(Clone)]
pub struct Native {
    pub target: &'static dyn Target,
    pub options: target::Options,
}

impl Native {
    /// The target called `name`, where this build has it, with `options`.
    pub fn named(name: &str, options: target::Options) -> Result<Native, String> {
        let r = target::lookup(name).ok_or_else(|| format!("unknown code generator '{name}'"))?;
        let target = r.target.ok_or_else(|| r.missing(&format!("code generator '{name}'"), "aot"))?;
        target.check(&options)?;
        Ok(Native { target, options })
    }
}

impl Default for Native {
    fn default() -> Self {
        Native { target: target::default_target(), options: target::Options::default() }
    }
}

impl std::fmt::Debug for Native {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Native").field("target", &self.target.name()).field("options", &self.options).finish()
    }
}

/// The codegen pipeline of `target`: [`PIPELINE`] with `fuse` asking it,
/// and without the host's library kernels for a target with a device of
/// its own (they would run on the host in the middle of its calls).
pub fn pipeline_for(target: &dyn Target) -> String {
    let p = PIPELINE.replace("fuse,", &format!("fuse{{target={}}},", target.name()));
    if target.capabilities().device {
        p.replace("lower-to-loops,", "lower-to-loops{host-kernels=false},")
    } else {
        p
    }
}

/// Compiles `func` (a value-semantics function over tensors) with
/// `native`: through `native`'s codegen pipeline first when the target
/// takes lowered input. `text` receives what the options ask to emit.
pub fn compile_function(
    ctx: &mut Context,
    func: Op,
    native: &Native,
    text: &mut String,
) -> Result<Box<dyn Executable>, Diagnostic> {
    if !native.target.capabilities().lowered_input {
        return native.target.compile(ctx, func, &native.options, text);
    }
    // The whole function is verified once at the end rather than after
    // every pass: this runs on every compile, backward included.
    let options = PassManagerOptions { verify_each: false, ..PassManagerOptions::default() };
    let mut pm = pass_manager_for(native.target, options).map_err(|m| Diagnostic::op_error(ctx, func, m))?;
    compile_function_with(ctx, func, native, text, &mut pm, &mut std::io::sink())
}

/// [`compile_function`] with a caller's pass manager for the target's
/// pipeline ([`pipeline_for`]; instrumentation, timing, statistics); IR
/// dumps go to `sink`.
pub fn compile_function_with(
    ctx: &mut Context,
    func: Op,
    native: &Native,
    text: &mut String,
    pm: &mut PassManager,
    sink: &mut dyn std::io::Write,
) -> Result<Box<dyn Executable>, Diagnostic> {
    lower(ctx, func, pm, sink)?;
    native.target.compile(ctx, func, &native.options, text)
}

/// Lowers `func` with `pm` unless its arguments are buffers already (then
/// only checks its sizes).
pub fn lower_unless_lowered(
    ctx: &mut Context,
    func: Op,
    pm: &mut PassManager,
    sink: &mut dyn std::io::Write,
) -> Result<(), Diagnostic> {
    let f = aot_dialects::func::FuncView { op: func };
    if f.args(ctx).iter().all(|&a| analysis::memref(ctx, a).is_some()) {
        aot_ir::size::check_value_sizes(ctx, func)
    } else {
        lower(ctx, func, pm, sink)
    }
}

/// Runs the codegen pipeline `pm` on `func` and checks the result.
fn lower(ctx: &mut Context, func: Op, pm: &mut PassManager, sink: &mut dyn std::io::Write) -> Result<(), Diagnostic> {
    // `lower-to-loops` bounds every size before it emits a constant or a
    // loop bound; they are checked again after planning (the arena is a
    // buffer of its own).
    pm.run(ctx, func, sink).map_err(|mut f| {
        if f.diagnostics.is_empty() {
            Diagnostic::op_error(ctx, func, "the codegen pipeline failed")
        } else {
            f.diagnostics.remove(0)
        }
    })?;
    aot_ir::verify(ctx, func).map_err(|mut d| d.remove(0))?;
    aot_ir::size::check_value_sizes(ctx, func)
}

/// A function compiled on its first call (the backward of a training
/// function: many forward calls never need it), and again per set of
/// tangents no gradient reached ([`absent::drop_absent_tangents`]).
pub struct Lazy {
    ctx: Box<Context>,
    native: Native,
    /// The function as the pipeline left it; each compile lowers a copy.
    source: Op,
    main: Option<Result<Box<dyn Executable>, String>>,
    specialised: aot_runtime::compiled::Specialisations<Box<dyn Executable>>,
}

impl Lazy {
    pub fn new(ctx: Context, func: Op, native: Native) -> Lazy {
        Lazy { ctx: Box::new(ctx), native, source: func, main: None, specialised: Default::default() }
    }

    /// Whether the function has been compiled yet.
    pub fn is_compiled(&self) -> bool {
        matches!(self.main, Some(Ok(_)))
    }
}

/// A copy of `source`, specialised for `absent` tangents when given,
/// compiled.
fn compile_copy(
    ctx: &mut Context,
    source: Op,
    native: &Native,
    absent: Option<(usize, &[usize])>,
) -> Result<Box<dyn Executable>, String> {
    let mut rw = aot_ir::rewriter::Rewriter::new(ctx);
    rw.set_insertion_point(aot_ir::rewriter::InsertPoint::After(source));
    let func = rw.clone_deep(source, &mut FxHashMap::default());
    if let Some((first, absent)) = absent {
        absent::drop_absent_tangents(ctx, func, first, absent)
            .map_err(|d| format!("specialising the backward: {}", d.message))?;
    }
    let name = aot_dialects::func::FuncView { op: source }.name(ctx).to_string();
    compile_function(ctx, func, native, &mut String::new()).map_err(|d| format!("compiling @{name}: {}", d.message))
}

impl Executable for Lazy {
    fn run(&mut self, args: Vec<aot_runtime::Tensor>) -> Result<Vec<aot_runtime::Tensor>, String> {
        let (ctx, source, native) = (&mut self.ctx, self.source, &self.native);
        match self.main.get_or_insert_with(|| compile_copy(ctx, source, native, None)) {
            Ok(e) => e.run(args),
            Err(m) => Err(m.clone()),
        }
    }

    fn run_absent(
        &mut self,
        args: Vec<aot_runtime::Tensor>,
        first_tangent: usize,
        absent: &[usize],
    ) -> Result<Vec<aot_runtime::Tensor>, String> {
        let (ctx, source, native) = (&mut self.ctx, self.source, &self.native);
        match self.specialised.get_or_build(absent, || compile_copy(ctx, source, native, Some((first_tangent, absent))))
        {
            Some(Ok(e)) => e.run(args),
            Some(Err(m)) => Err(m.clone()),
            None => self.run(args),
        }
    }

    fn profile(&self) -> Vec<aot_runtime::compiled::StepProfile> {
        let main = self.main.iter().filter_map(|m| m.as_ref().ok());
        let mut rows: Vec<_> = main.flat_map(|e| e.profile()).collect();
        for e in self.specialised.built() {
            rows.extend(e.profile().into_iter().map(|mut r| {
                r.what = format!("{} [for absent tangents]", r.what);
                r
            }));
        }
        rows
    }

    fn reset_profile(&mut self) {
        if let Some(Ok(e)) = &mut self.main {
            e.reset_profile();
        }
        self.specialised.built_mut().for_each(|e| e.reset_profile());
    }
}

/// What `native` writes (`native.options.emit`) for every public function
/// of `module`, lowering the ones still over tensors with `pm` (a pass
/// manager for the target's pipeline; IR dumps go to `sink`).
pub fn emit_text(
    ctx: &mut Context,
    module: Op,
    native: &Native,
    pm: &mut PassManager,
    sink: &mut dyn std::io::Write,
) -> Result<String, Diagnostic> {
    native.target.emit_module(ctx, module, &native.options, pm, sink)
}
