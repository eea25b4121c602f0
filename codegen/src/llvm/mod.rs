//! The LLVM backend (cargo feature `llvm`): each `loop.kernel` of a lowered
//! function becomes an LLVM function, optimized with LLVM's O3 pipeline for
//! the host CPU (its name and features detected at run time and set on
//! every kernel, so AVX-512 where the machine has it), and JIT-compiled.
//!
//! Everything above the kernels is shared with the Cranelift backend: the
//! codegen pipeline, the host program (`program::build`), the runtime that
//! calls the kernels, the math table and the libcalls. A kernel has the
//! native signature `i32 (ptr buffers, i64 lo, i64 hi)`; the JIT owns the
//! code, and the compiled function keeps the JIT (and the LLVM context it
//! borrows) alive.

mod kernel;
#[cfg(feature = "cuda")]
pub mod ptx;

use crate::jit_cache::JitCache;
use crate::program::{self, Compiled, HostProgram, KernelFn, Step};
use aot_ir::{Context, Diagnostic, Op};
use inkwell::context::Context as LlContext;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use std::sync::{Arc, OnceLock};

/// Text to produce while compiling (`aot-opt --emit`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Emit {
    None,
    /// The optimized LLVM IR of the kernels.
    Llvm,
    /// The host machine code of the kernels.
    Asm,
}

/// The JIT and the context its code was built in. Field order matters: the
/// engine (which borrows the context) drops first.
struct Jit {
    _engine: ExecutionEngine<'static>,
    _context: Box<LlContext>,
}

// SAFETY: once `compile_program` has taken the kernels' addresses, nothing
// calls into the engine or its context again: they only keep the machine
// code mapped, and are dropped by the last owner of the `Arc`, on whichever
// thread that is. LLVM allows a context to be destroyed on any thread as
// long as no other thread uses it at the same time, which the `Arc`
// guarantees; the code itself is immutable and callable from every thread.
unsafe impl Send for Jit {}
unsafe impl Sync for Jit {}

/// Kernels already compiled in this process, by the text of the LLVM module
/// that holds each one alone (its name aside), with the JIT that holds the
/// code: a compile that emits the same module again (the same program
/// called with another convention, recompiled for new shapes, a kernel
/// shared by many programs, compiled on another thread) takes the machine
/// code instead of running O3 and the JIT again. The text is what LLVM
/// would compile, attributes, metadata and target included, so equal text
/// is equal code.
static KERNELS: JitCache<String, (Arc<Jit>, usize)> = JitCache::new(1024);

/// The name every kernel has in the module that is its cache key.
const KEYED_NAME: &str = "aot_kernel";

/// Compiles the lowered function `func` (after the codegen pipeline).
/// `text` receives the emitted IR or assembly when asked for.
pub fn compile(ctx: &Context, func: Op, emit: Emit, text: &mut String) -> Result<Compiled, Diagnostic> {
    let program = program::build(ctx, func)?;
    compile_program(ctx, func, program, emit, text)
}

/// The host's target machine. LLVM's target registration runs once per
/// process: it fills global tables, and two threads compiling at once must
/// not race on them.
fn host_machine() -> Result<TargetMachine, String> {
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| Target::initialize_native(&InitializationConfig::default()).map_err(|e| format!("LLVM: {e}")))
        .clone()?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| format!("LLVM: {e}"))?;
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or_else(|| format!("LLVM cannot target this CPU ({cpu})"))
}

fn compile_program(
    ctx: &Context,
    func: Op,
    program: HostProgram,
    emit: Emit,
    text: &mut String,
) -> Result<Compiled, Diagnostic> {
    let fail = |m: String| Diagnostic::op_error(ctx, func, m);
    let machine = host_machine().map_err(fail)?;
    let context = Box::new(LlContext::create());
    // SAFETY: the context lives in its box until `Jit` drops it (or until
    // this function returns, when every kernel came from the cache), after
    // the engine and everything built from it (the modules are the
    // engine's, and the values and builders below do not outlive this
    // function).
    let ll: &'static LlContext = unsafe { &*(context.as_ref() as *const LlContext) };
    let cpu = machine.get_cpu().to_string();
    let features = machine.get_feature_string().to_string_lossy().into_owned();
    let target = kernel::Target { cpu: &cpu, features: &features, flavor: kernel::Flavor::Host };
    let module_for_target = || {
        let module = ll.create_module("aot");
        module.set_triple(&machine.get_triple());
        module.set_data_layout(&machine.get_target_data().get_data_layout());
        module
    };
    // Each kernel alone in a module first: its text is the cache key. The
    // kernels the cache lacks are then linked into one module and compiled
    // together. Text output (`--emit`) wants every kernel, so it skips the
    // lookup.
    let mut messages = Vec::new();
    let mut found: Vec<Option<(Arc<Jit>, usize)>> = Vec::new();
    let mut missing: Vec<(usize, String, String)> = Vec::new();
    let mut combined: Option<inkwell::module::Module<'static>> = None;
    for step in &program.steps {
        let Step::Kernel { op, name, .. } = step else { continue };
        let slot = found.len();
        let module = module_for_target();
        kernel::emit(ctx, *op, ll, &module, KEYED_NAME, &target, &mut messages)?;
        module.verify().map_err(|e| fail(format!("LLVM rejected the generated kernels: {e}")))?;
        let key = module.print_to_string().to_string();
        let hit = if emit == Emit::None { KERNELS.get(&key) } else { None };
        found.push(hit.clone());
        if hit.is_some() {
            continue;
        }
        let fname = format!("{name}_{slot}");
        let f = module.get_function(KEYED_NAME).ok_or_else(|| fail(format!("LLVM lost kernel {fname}")))?;
        f.as_global_value().set_name(&fname);
        match &combined {
            None => combined = Some(module),
            Some(all) => {
                all.link_in_module(module).map_err(|e| fail(format!("LLVM could not link kernel {fname}: {e}")))?
            }
        }
        missing.push((slot, fname, key));
    }
    let mut jits: Vec<Arc<Jit>> = Vec::new();
    if let Some(module) = combined {
        module
            .run_passes("default<O3>", &machine, PassBuilderOptions::create())
            .map_err(|e| fail(format!("LLVM's optimizer failed: {e}")))?;
        match emit {
            Emit::None => {}
            Emit::Llvm => text.push_str(&module.print_to_string().to_string()),
            Emit::Asm => {
                let asm = machine
                    .write_to_memory_buffer(&module, FileType::Assembly)
                    .map_err(|e| fail(format!("LLVM could not print the kernels: {e}")))?;
                text.push_str(&String::from_utf8_lossy(asm.as_slice()));
            }
        }
        let engine = module
            .create_jit_execution_engine(OptimizationLevel::Aggressive)
            .map_err(|e| fail(format!("LLVM's JIT: {e}")))?;
        for (name, ptr, _) in crate::libcalls::all() {
            if let Some(f) = module.get_function(name) {
                engine.add_global_mapping(&f, ptr as usize);
            }
        }
        let mut addrs = Vec::new();
        for (_, fname, _) in &missing {
            addrs.push(
                engine.get_function_address(fname).map_err(|e| fail(format!("LLVM's JIT lost kernel {fname}: {e}")))?,
            );
        }
        let jit = Arc::new(Jit { _engine: engine, _context: context });
        for ((slot, _, key), addr) in missing.into_iter().zip(addrs) {
            KERNELS.insert(key, (jit.clone(), addr));
            found[slot] = Some((jit.clone(), addr));
        }
        jits.push(jit);
    }
    let mut kernels: Vec<KernelFn> = Vec::new();
    for (jit, addr) in found.into_iter().flatten() {
        if !jits.iter().any(|j| Arc::ptr_eq(j, &jit)) {
            jits.push(jit);
        }
        // SAFETY: every kernel was emitted with exactly this signature, and
        // its JIT stays alive in `owner` while the function lives.
        kernels.push(unsafe { std::mem::transmute::<usize, KernelFn>(addr) });
    }
    let globals = program::globals(ctx, &program).map_err(fail)?;
    Ok(Compiled { program, kernels, messages, globals, owner: Box::new(jits) })
}
