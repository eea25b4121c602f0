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

use crate::program::{self, Compiled, HostProgram, KernelFn, Step};
use aot_ir::{Context, Diagnostic, Op};
use inkwell::context::Context as LlContext;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

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

/// Compiles the lowered function `func` (after the codegen pipeline).
/// `text` receives the emitted IR or assembly when asked for.
pub fn compile(ctx: &Context, func: Op, emit: Emit, text: &mut String) -> Result<Compiled, Diagnostic> {
    let program = program::build(ctx, func)?;
    compile_program(ctx, func, program, emit, text)
}

fn host_machine() -> Result<TargetMachine, String> {
    Target::initialize_native(&InitializationConfig::default()).map_err(|e| format!("LLVM: {e}"))?;
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
    // SAFETY: the context lives in its box until `Jit` drops it, after the
    // engine and everything built from it (the module is the engine's, and
    // the values and builders below do not outlive this function).
    let ll: &'static LlContext = unsafe { &*(context.as_ref() as *const LlContext) };
    let module = ll.create_module("aot");
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let cpu = machine.get_cpu().to_string();
    let features = machine.get_feature_string().to_string_lossy().into_owned();
    let target = kernel::Target { cpu: &cpu, features: &features, flavor: kernel::Flavor::Host };
    let mut messages = Vec::new();
    let mut names = Vec::new();
    for step in &program.steps {
        let Step::Kernel { op, name, .. } = step else { continue };
        let fname = format!("{name}_{}", names.len());
        kernel::emit(ctx, *op, ll, &module, &fname, &target, &mut messages)?;
        names.push(fname);
    }
    module.verify().map_err(|e| fail(format!("LLVM rejected the generated kernels: {e}")))?;
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
    let mut kernels: Vec<KernelFn> = Vec::new();
    for n in &names {
        let addr = engine.get_function_address(n).map_err(|e| fail(format!("LLVM's JIT lost kernel {n}: {e}")))?;
        // SAFETY: every kernel was emitted with exactly this signature.
        kernels.push(unsafe { std::mem::transmute::<usize, KernelFn>(addr) });
    }
    let globals = program::globals(ctx, &program).map_err(fail)?;
    Ok(Compiled { program, kernels, messages, globals, owner: Box::new(Jit { _engine: engine, _context: context }) })
}
