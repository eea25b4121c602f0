//! The LLVM backend (cargo feature `llvm`): each `loop.kernel` of a lowered
//! function becomes an LLVM function, optimized with LLVM's O3 pipeline for
//! the host CPU (its name and features detected at run time and set on
//! every kernel, so AVX-512 where the machine has it), emitted as an
//! object and linked by the process's ORC JIT ([`crate::orc`]).
//!
//! Everything above the kernels is shared with the Cranelift backend: the
//! codegen pipeline, the host program (`program::build_symbolic`), the
//! runtime that calls the kernels, the math table and the libcalls, and
//! the run-time sizes of a symbolic program ([`crate::sized`]: kernels
//! load their symbolic sizes from a size table, compiled once for every
//! size). A kernel has the
//! native signature `i32 (ptr buffers, i64 lo, i64 hi)`; the compiled
//! function keeps the objects that hold its kernels linked. Kernels are
//! cached in memory for the process and on disk across processes
//! ([`crate::object_cache`]), both by the kernel's own LLVM text.

mod kernel;
#[cfg(feature = "cuda")]
pub mod ptx;

use crate::executor::{Compiled, Executable};
use crate::jit_cache::JitCache;
use crate::object_cache::{self, ObjectCache};
use crate::orc::{self, Loaded};
use crate::program::{self, HostProgram, KernelFn, Step};
use crate::target::{self, Capabilities, Target};
use aot_ir::{Context, Diagnostic, Op};
use inkwell::context::Context as LlContext;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::FileType;
use inkwell::OptimizationLevel;
use std::sync::Arc;

/// Text to produce while compiling (`aot-opt --emit`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Emit {
    None,
    /// The optimized LLVM IR of the kernels.
    Llvm,
    /// The host machine code of the kernels.
    Asm,
}

/// Kernels already compiled in this process, by the text of the LLVM module
/// that holds each one alone (its name aside), with the object that holds
/// the code: a compile that emits the same module again (the same
/// program called with another convention, recompiled for new shapes, a
/// kernel shared by many programs, compiled on another thread) takes the
/// machine code instead of running O3 and the code generator again. The
/// text is what LLVM would compile, attributes, metadata and target
/// included, so equal text is equal code. Behind it, the object cache on
/// disk does the same across processes.
static KERNELS: JitCache<String, (Arc<Loaded>, usize)> = JitCache::new(1024);

/// The name every kernel has in the module that is its cache key.
const KEYED_NAME: &str = "aot_kernel";

/// The LLVM backend as a [`Target`].
pub struct Llvm;

impl Target for Llvm {
    fn name(&self) -> &'static str {
        "llvm"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { lowered_input: true, runs: true, device: false, gpu_arch: false }
    }

    /// LLVM's loop vectorizer widens loops itself; fusion still asks
    /// Cranelift's plan, because the loops that plan keeps apart (a
    /// unit-stride loop and one that gathers) are the ones LLVM widens
    /// differently too, and every fusion figure of this backend was
    /// measured with it. Answering otherwise is a measured change.
    fn vectorizes(&self, ctx: &Context, l: Op) -> bool {
        crate::cranelift::vectorizes(ctx, l)
    }

    fn compile(
        &self,
        ctx: &mut Context,
        func: Op,
        options: &target::Options,
        text: &mut String,
    ) -> Result<Box<dyn aot_runtime::compiled::Executable>, Diagnostic> {
        let emit = options
            .emit_as(&[("llvm", Emit::Llvm), ("asm", Emit::Asm)], Emit::None)
            .map_err(|m| Diagnostic::op_error(ctx, func, m))?;
        let code = compile(ctx, func, emit, text)?;
        if code.program.symbolic {
            let sized = crate::sized::Sized::new(ctx, func, code).map_err(|m| Diagnostic::op_error(ctx, func, m))?;
            return Ok(Box::new(sized));
        }
        Ok(Box::new(Executable::new(code)))
    }
}

/// Compiles the lowered function `func` (after the codegen pipeline).
/// `text` receives the emitted IR or assembly when asked for. With
/// symbolic sizes the kernels read them from a size table
/// ([`HostProgram::sizes`]) and the program runs per set of symbol
/// values through [`crate::sized::Sized`].
pub fn compile(ctx: &Context, func: Op, emit: Emit, text: &mut String) -> Result<Compiled, Diagnostic> {
    let program = program::build_symbolic(ctx, func)?;
    compile_program(ctx, func, program, emit, text)
}

/// LLVM's pipeline for the kernels.
const PIPELINE: &str = "default<O3>";

fn compile_program(
    ctx: &Context,
    func: Op,
    program: HostProgram,
    emit: Emit,
    text: &mut String,
) -> Result<Compiled, Diagnostic> {
    let fail = |m: String| Diagnostic::op_error(ctx, func, m);
    let machine = orc::host_machine(OptimizationLevel::Aggressive).map_err(fail)?;
    let how = orc::machine_description(&machine, PIPELINE);
    // Text output (`--emit`) wants every kernel compiled here, so it skips
    // the caches.
    let disk = if emit == Emit::None { ObjectCache::global() } else { None };
    let ll = LlContext::create();
    let cpu = machine.get_cpu().to_string();
    let features = machine.get_feature_string().to_string_lossy().into_owned();
    let table: rustc_hash::FxHashMap<i64, usize> = program.sizes.iter().enumerate().map(|(k, &d)| (d, k)).collect();
    let target = kernel::Target { cpu: &cpu, features: &features, flavor: kernel::Flavor::Host, table: &table };
    let module_for_target = || {
        let module = ll.create_module("aot");
        module.set_triple(&machine.get_triple());
        module.set_data_layout(&machine.get_target_data().get_data_layout());
        module
    };
    // Each kernel alone in a module first: its text is the cache key. The
    // kernels no cache has are then linked into one module and compiled
    // together, into one object.
    let mut messages = Vec::new();
    let mut found: Vec<Option<(Arc<Loaded>, usize)>> = Vec::new();
    let mut missing: Vec<(usize, String, String)> = Vec::new();
    let mut combined: Option<inkwell::module::Module<'_>> = None;
    for step in &program.steps {
        let Step::Kernel { op, name, .. } = step else { continue };
        let slot = found.len();
        let module = module_for_target();
        kernel::emit(ctx, *op, &ll, &module, KEYED_NAME, &target, &mut messages)?;
        module.verify().map_err(|e| fail(format!("LLVM rejected the generated kernels: {e}")))?;
        let key = module.print_to_string().to_string();
        let mut hit = if emit == Emit::None { KERNELS.get(&key) } else { None };
        if hit.is_none() {
            if let Some(cache) = disk {
                hit = orc::link_from(cache, &object_cache::key(&how, &key));
                if let Some(h) = &hit {
                    KERNELS.insert(key.clone(), h.clone());
                }
            }
        }
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
    let mut objects: Vec<Arc<Loaded>> = Vec::new();
    if let Some(module) = combined {
        // The object's id: what it is compiled from (its kernels' texts
        // under their names, which make the linked module), and how.
        let mut parts: Vec<&[u8]> = vec![how.as_bytes()];
        for (_, fname, key) in &missing {
            parts.extend([fname.as_bytes(), key.as_bytes()]);
        }
        let id = object_cache::hash_hex(&parts);
        module
            .run_passes(PIPELINE, &machine, PassBuilderOptions::create())
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
        // Every global the object defines carries its id: objects loaded
        // side by side never define one name twice.
        let prefix = orc::symbol_prefix(&id);
        orc::seal(&module, &prefix, |_| true);
        let bytes = orc::emit_object(&machine, &module).map_err(fail)?;
        let loaded = orc::load(&id, &bytes).map_err(fail)?;
        let stored = disk.and_then(|c| Some((c, c.store_object(&id, &bytes)?)));
        for (slot, fname, key) in missing {
            let symbol = format!("{prefix}{fname}");
            let addr = loaded.address(&symbol).map_err(fail)?;
            if let Some((cache, sum)) = stored {
                cache.store_entry(&object_cache::key(&how, &key), &id, &symbol, sum);
            }
            KERNELS.insert(key, (loaded.clone(), addr));
            found[slot] = Some((loaded.clone(), addr));
        }
        objects.push(loaded);
    }
    let mut kernels: Vec<KernelFn> = Vec::new();
    for (object, addr) in found.into_iter().flatten() {
        if !objects.iter().any(|o| Arc::ptr_eq(o, &object)) {
            objects.push(object);
        }
        // SAFETY: every kernel was emitted with exactly this signature, and
        // its object stays linked in `owner` while the function lives.
        kernels.push(unsafe { std::mem::transmute::<usize, KernelFn>(addr) });
    }
    let globals = program::globals(ctx, &program).map_err(fail)?;
    Ok(Compiled { program, kernels, messages, globals, owner: Box::new(objects) })
}
