//! The default backend: each `loop.kernel` of a lowered function becomes a
//! Cranelift function, JIT-compiled for the host CPU (whatever SIMD level
//! `cranelift-native` detects), and the host program runs around them.
//!
//! A kernel compiles to `extern "C" fn(buffers, lo, hi) -> i32`: `buffers`
//! holds the base pointer of each operand's allocation (the memref layouts
//! are constants in the code), `lo..hi` is the slice of the outermost
//! parallel loop this call runs, and the result is 0 or the code of the
//! failed `loop.assert`. Math functions call `libm` (the interpreter's
//! formulas, bit for bit where `exact` asks for it).

mod kernel;
mod vector;

use crate::executor::{Compiled, Executable};
use crate::program::{self, HostProgram, KernelFn, Step};
use crate::target::{self, Capabilities, Target};
use aot_ir::{Context, Diagnostic, Op};
use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

/// Whether this backend runs loop `op` in vector lanes: its plan of 4 (or
/// 2) lanes per loop, what [`Target::vectorizes`] answers for Cranelift.
pub fn vectorizes(ctx: &Context, op: Op) -> bool {
    vector::vectorizes(ctx, op)
}

/// The Cranelift backend as a [`Target`].
pub struct Cranelift;

impl Target for Cranelift {
    fn name(&self) -> &'static str {
        "cranelift"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { lowered_input: true, runs: true, device: false, gpu_arch: false }
    }

    fn vectorizes(&self, ctx: &Context, l: Op) -> bool {
        vectorizes(ctx, l)
    }

    fn compile(
        &self,
        ctx: &mut Context,
        func: Op,
        options: &target::Options,
        text: &mut String,
    ) -> Result<Box<dyn aot_runtime::compiled::Executable>, Diagnostic> {
        let emit = options
            .emit_as(&[("clif", Emit::Clif), ("clif-opt", Emit::OptimizedClif), ("asm", Emit::Asm)], Emit::None)
            .map_err(|m| Diagnostic::op_error(ctx, func, m))?;
        let code = compile(ctx, func, Options { vectorize: options.vectorize, emit, ..Options::default() }, text)?;
        if code.program.symbolic {
            let sized = crate::sized::Sized::new(ctx, func, code).map_err(|m| Diagnostic::op_error(ctx, func, m))?;
            return Ok(Box::new(sized));
        }
        Ok(Box::new(Executable::new(code)))
    }
}

/// Text to produce while compiling (`aot-opt --emit`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Emit {
    None,
    /// The Cranelift IR of each kernel.
    Clif,
    /// The Cranelift IR of each kernel after Cranelift's mid-end (its
    /// e-graph rewrites, and loop-invariant code hoisted out of loops).
    OptimizedClif,
    /// The machine code of each kernel (Cranelift's disassembly).
    Asm,
}

/// Options of the Cranelift backend.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// Vectorize inner loops with 128-bit SIMD where accesses allow.
    pub vectorize: bool,
    /// In vectorized loops, compute the math table's polynomials eight
    /// lanes at a time through [`crate::lanes8`] (strip-mined loops); only
    /// where the helpers run ([`crate::lanes8::available`]), the default.
    pub lanes8: bool,
    pub emit: Emit,
}

impl Default for Options {
    fn default() -> Self {
        Options { vectorize: true, lanes8: crate::lanes8::available(), emit: Emit::None }
    }
}

fn jit_module() -> Result<JITModule, String> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(|e| format!("cranelift flag {k}: {e}"));
    set(&mut flags, "opt_level", "speed")?;
    // Cranelift's IR verifier checks our code generator, not user input:
    // on in debug builds (every test compiles through it), off in release,
    // where it was 7% of compile time.
    set(&mut flags, "enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    let isa = cranelift_native::builder()
        .map_err(|e| format!("cranelift cannot target this CPU: {e}"))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| format!("cranelift: {e}"))?;
    let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
    for (name, ptr, _) in crate::libcalls::all() {
        jb.symbol(name, ptr);
    }
    Ok(JITModule::new(jb))
}

/// Compiles the lowered function `func` (after `lower-to-loops`).
/// `text` receives the emitted IR or assembly when asked for. With
/// symbolic sizes the kernels read them from a size table
/// ([`HostProgram::sizes`]) and the program runs per set of symbol
/// values through [`crate::sized::Sized`].
pub fn compile(ctx: &Context, func: Op, opts: Options, text: &mut String) -> Result<Compiled, Diagnostic> {
    let program = program::build_symbolic(ctx, func)?;
    compile_program(ctx, func, program, opts, text)
}

fn compile_program(
    ctx: &Context,
    func: Op,
    program: HostProgram,
    opts: Options,
    text: &mut String,
) -> Result<Compiled, Diagnostic> {
    let fail = |m: String| Diagnostic::op_error(ctx, func, m);
    let mut module = jit_module().map_err(fail)?;
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(ptr), AbiParam::new(types::I64), AbiParam::new(types::I64)]);
    sig.returns.push(AbiParam::new(types::I32));
    let mut messages = Vec::new();
    let mut ids = Vec::new();
    let mut cctx = module.make_context();
    let mut fbc = cranelift_frontend::FunctionBuilderContext::new();
    let table: rustc_hash::FxHashMap<i64, usize> = program.sizes.iter().enumerate().map(|(k, &d)| (d, k)).collect();
    for step in &program.steps {
        let Step::Kernel { op, name, .. } = step else { continue };
        cctx.func.signature = sig.clone();
        let shared = kernel::Shared { messages: &mut messages, table: &table };
        kernel::emit(ctx, *op, &mut module, &mut cctx.func, &mut fbc, shared, opts)?;
        if opts.emit == Emit::Clif {
            text.push_str(&format!("; kernel {name}\n{}\n", cctx.func.display()));
        }
        if opts.emit == Emit::Asm {
            cctx.set_disasm(true);
        }
        let id = module
            .declare_function(&format!("{name}_{}", ids.len()), Linkage::Local, &sig)
            .map_err(|e| Diagnostic::op_error(ctx, *op, format!("cranelift: {e}")))?;
        module
            .define_function(id, &mut cctx)
            .map_err(|e| Diagnostic::op_error(ctx, *op, format!("cranelift could not compile the kernel: {e:?}")))?;
        if opts.emit == Emit::Asm {
            let vcode = cctx.compiled_code().and_then(|c| c.vcode.clone()).unwrap_or_default();
            text.push_str(&format!("; kernel {name}\n{vcode}\n"));
        }
        if opts.emit == Emit::OptimizedClif {
            // (Compiling left the optimized function in the context.)
            text.push_str(&format!("; kernel {name}\n{}\n", cctx.func.display()));
        }
        module.clear_context(&mut cctx);
        ids.push(id);
    }
    module.finalize_definitions().map_err(|e| fail(format!("cranelift: {e}")))?;
    let kernels: Vec<KernelFn> = ids
        .iter()
        .map(|&id| {
            let p = module.get_finalized_function(id);
            // SAFETY: every kernel was compiled with exactly this signature.
            unsafe { std::mem::transmute::<*const u8, KernelFn>(p) }
        })
        .collect();
    let globals = program::globals(ctx, &program).map_err(fail)?;
    Ok(Compiled { program, kernels, messages, globals, owner: Box::new(module) })
}
