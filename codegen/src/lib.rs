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
pub mod cranelift;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod executor;
pub mod fuse;
pub mod gemm;
#[cfg(any(feature = "llvm", feature = "mlir"))]
mod jit_cache;
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
pub mod threads;
pub mod write_order;

/// Forces this crate (and its pass registrations) to be linked in.
pub fn link() {}

use aot_dialects::r#loop::analysis;
use aot_ir::pass::{PassManager, PassManagerOptions};
use aot_ir::{Context, Diagnostic, Op};
use rustc_hash::FxHashMap;

/// The passes from a value-semantics function over tensors to the `loop`
/// dialect, anchored on the function.
pub const PIPELINE: &str = "func.func(protect-reads,lower-to-loops,fuse,plan-memory)";

/// A pass manager running [`PIPELINE`] with `options`.
pub fn pass_manager(options: PassManagerOptions) -> Result<PassManager, String> {
    let mut pm = PassManager::parse(PIPELINE).map_err(|e| format!("the codegen pipeline does not parse: {e}"))?;
    pm.options = options;
    Ok(pm)
}

/// The native code generator that compiles the kernels, with its options
/// (what to emit as text among them).
#[derive(Copy, Clone, Debug)]
pub enum Native {
    Cranelift(cranelift::Options),
    #[cfg(feature = "llvm")]
    Llvm(llvm::Emit),
    /// PTX text for a GPU architecture (emitted only, not run).
    #[cfg(feature = "cuda")]
    Ptx(llvm::ptx::Sm),
    /// The process's GPU: PTX for its architecture, run through the CUDA
    /// driver (`cuda`), matmuls through cuBLAS.
    #[cfg(feature = "cuda")]
    Cuda,
}

impl Default for Native {
    fn default() -> Self {
        Native::Cranelift(cranelift::Options::default())
    }
}

impl From<cranelift::Options> for Native {
    fn from(o: cranelift::Options) -> Self {
        Native::Cranelift(o)
    }
}

/// Compiles the lowered function `func` (after [`PIPELINE`]) with `native`.
fn compile_lowered(
    ctx: &Context,
    func: Op,
    native: Native,
    text: &mut String,
) -> Result<executor::Compiled, Diagnostic> {
    match native {
        Native::Cranelift(o) => cranelift::compile(ctx, func, o, text),
        #[cfg(feature = "llvm")]
        Native::Llvm(e) => llvm::compile(ctx, func, e, text),
        #[cfg(feature = "cuda")]
        Native::Ptx(sm) => {
            llvm::ptx::emit(ctx, func, sm, text)?;
            Err(Diagnostic::op_error(
                ctx,
                func,
                "PTX for a named architecture is text only (aot-opt --emit=ptx); run on the GPU with the cuda backend",
            ))
        }
        #[cfg(feature = "cuda")]
        Native::Cuda => {
            let (code, _device) = cuda::compile(ctx, func, text)?;
            Ok(code)
        }
    }
}

/// Lowers `func` (a value-semantics function over tensors) through the
/// codegen pipeline and compiles it with `native` (Cranelift by default).
/// `text` receives what the options ask to emit.
pub fn compile_function(
    ctx: &mut Context,
    func: Op,
    native: impl Into<Native>,
    text: &mut String,
) -> Result<executor::Executable, Diagnostic> {
    // The whole function is verified once at the end rather than after
    // every pass: this runs on every compile, backward included.
    let options = PassManagerOptions { verify_each: false, ..PassManagerOptions::default() };
    let mut pm = pass_manager(options).map_err(|m| Diagnostic::op_error(ctx, func, m))?;
    compile_function_with(ctx, func, native.into(), text, &mut pm, &mut std::io::sink())
}

/// [`compile_function`] with a caller's pass manager for [`PIPELINE`]
/// (instrumentation, timing, statistics); IR dumps go to `sink`.
pub fn compile_function_with(
    ctx: &mut Context,
    func: Op,
    native: Native,
    text: &mut String,
    pm: &mut PassManager,
    sink: &mut dyn std::io::Write,
) -> Result<executor::Executable, Diagnostic> {
    lower(ctx, func, pm, sink)?;
    #[cfg(feature = "cuda")]
    if let Native::Cuda = native {
        let (code, device) = cuda::compile(ctx, func, text)?;
        return Ok(executor::Executable::on_device(code, device));
    }
    let code = compile_lowered(ctx, func, native, text)?;
    Ok(executor::Executable::new(code))
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
    main: Option<Result<executor::Executable, String>>,
    specialised: aot_runtime::compiled::Specialisations<executor::Executable>,
}

impl Lazy {
    pub fn new(ctx: Context, func: Op, native: impl Into<Native>) -> Lazy {
        Lazy { ctx: Box::new(ctx), native: native.into(), source: func, main: None, specialised: Default::default() }
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
    native: Native,
    absent: Option<(usize, &[usize])>,
) -> Result<executor::Executable, String> {
    let mut rw = aot_ir::rewriter::Rewriter::new(ctx);
    rw.set_insertion_point(aot_ir::rewriter::InsertPoint::After(source));
    let func = rw.clone_deep(source, &mut FxHashMap::default());
    if let Some((first, absent)) = absent {
        absent::drop_absent_tangents(ctx, func, first, absent)
            .map_err(|d| format!("specialising the backward: {}", d.message))?;
    }
    compile_function(ctx, func, native, &mut String::new())
        .map_err(|d| format!("compiling the backward: {}", d.message))
}

impl aot_runtime::compiled::Executable for Lazy {
    fn run(&mut self, args: Vec<aot_runtime::Tensor>) -> Result<Vec<aot_runtime::Tensor>, String> {
        let (ctx, source, native) = (&mut self.ctx, self.source, self.native);
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
        let (ctx, source, native) = (&mut self.ctx, self.source, self.native);
        match self.specialised.get_or_build(absent, || compile_copy(ctx, source, native, Some((first_tangent, absent))))
        {
            Some(Ok(e)) => e.run(args),
            Some(Err(m)) => Err(m.clone()),
            None => self.run(args),
        }
    }
}

/// What `native` emits (Cranelift IR or machine code, LLVM IR or machine
/// code) for every public function of `module`, lowering the ones still
/// over tensors with `pm` (a pass manager for [`PIPELINE`]; IR dumps go to
/// `sink`).
pub fn emit_text(
    ctx: &mut Context,
    module: Op,
    native: Native,
    pm: &mut PassManager,
    sink: &mut dyn std::io::Write,
) -> Result<String, Diagnostic> {
    let mut out = String::new();
    for f in aot_dialects::func::funcs(ctx, module) {
        if !f.is_public_definition(ctx) {
            continue;
        }
        let name = f.name(ctx).to_string();
        // A comment in the emitted language: `;` for LLVM IR and assembly,
        // `//` for PTX (one module per function).
        let comment = match native {
            #[cfg(feature = "cuda")]
            Native::Ptx(_) | Native::Cuda => "//",
            _ => ";",
        };
        out.push_str(&format!("{comment} function @{name}\n"));
        let lowered = f.args(ctx).iter().all(|&a| analysis::memref(ctx, a).is_some());
        if lowered {
            aot_ir::size::check_value_sizes(ctx, f.op)?;
        } else {
            lower(ctx, f.op, pm, sink)?;
        }
        match native {
            // Text only: there is nothing to run it on here.
            #[cfg(feature = "cuda")]
            Native::Ptx(sm) => llvm::ptx::emit(ctx, f.op, sm, &mut out)?,
            _ => {
                compile_lowered(ctx, f.op, native, &mut out)?;
            }
        }
    }
    Ok(out)
}
