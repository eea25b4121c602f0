//! PTX for NVIDIA GPUs (cargo feature `cuda`): the kernels of a lowered
//! function compiled by LLVM's NVPTX target, with the same kernel emitter as
//! the host backend in its GPU flavor (`kernel::Flavor::Ptx`: each kernel is
//! a PTX entry `(buffers, lo, hi, status)` whose parallel outer loop is a
//! grid-stride loop over the launch's threads; math rows without a lane
//! polynomial call libdevice's function of the same `libm` name).
//!
//! What this module produces is text: `aot-opt --emit=ptx` prints it, and
//! the test script checks every corpus kernel with `ptxas`. With
//! `AOT_LIBDEVICE` naming CUDA's `libdevice.10.bc`, libdevice is linked in
//! before optimization (the functions the kernels call are inlined, the
//! rest dropped, its `__nvvm_reflect` queries answered with IEEE semantics:
//! no flush to zero), so the module is complete and a driver can load it.
//! Without it, calls into libdevice stay external (`.extern .func`) and the
//! module assembles only as relocatable code (`ptxas -c`). Launching
//! belongs to the CUDA runtime. A kernel whose split loop reduces rows
//! runs one warp per row, or one block per long row (`kernel::row_plan`):
//! lanes read a row side by side and combine with a butterfly of warp
//! shuffles, a block's warps then through shared memory; a kernel without
//! a split loop that reduces (a sum to one value) runs on one block.
//! `PtxModule::threads` tells the launcher.

use super::kernel::{self, Flavor};
use crate::jit_cache::JitCache;
use crate::program::{self, Step};
use aot_ir::{Context, Diagnostic, Op};
use inkwell::context::Context as LlContext;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::sync::Arc;

/// The GPU architecture PTX is generated for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Sm {
    /// Ampere (A100): the default.
    #[default]
    Sm80,
    /// Hopper (H100, H200).
    Sm90,
}

impl Sm {
    pub const ALL: [Sm; 2] = [Sm::Sm80, Sm::Sm90];

    pub fn name(self) -> &'static str {
        match self {
            Sm::Sm80 => "sm_80",
            Sm::Sm90 => "sm_90",
        }
    }

    pub fn parse(s: &str) -> Result<Sm, String> {
        Sm::ALL.into_iter().find(|a| a.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Sm::ALL.iter().map(|a| a.name()).collect();
            format!("unknown GPU architecture '{s}' (available: {})", names.join(", "))
        })
    }
}

/// PTX ISA 7.8: the first with `sm_90`, and read by every CUDA 12 `ptxas`.
const PTX_ISA: &str = "+ptx78";

fn machine(sm: Sm) -> Result<TargetMachine, String> {
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create("nvptx64-nvidia-cuda");
    let target = Target::from_triple(&triple).map_err(|e| format!("LLVM: {e}"))?;
    target
        .create_target_machine(
            &triple,
            sm.name(),
            PTX_ISA,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| format!("LLVM cannot target {}", sm.name()))
}

/// Links CUDA's libdevice bitcode at `path` into `module` and makes every
/// function but the kernels internal, so the optimizer inlines what the
/// kernels call and drops the rest. A module that calls no libdevice
/// function is complete already and is left as it is: reading and linking
/// the library's thousand functions was most of the time `--emit=ptx` took
/// for such a module.
fn link_libdevice<'ll>(
    ll: &'ll LlContext,
    module: &Module<'ll>,
    path: &std::path::Path,
    machine: &TargetMachine,
) -> Result<(), String> {
    let mut called: Vec<String> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("__nv_"))
        .collect();
    if called.is_empty() {
        return Ok(());
    }
    called.sort();
    let kernels: Vec<String> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    let bitcode = trimmed_libdevice(path, called, machine)?;
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bitcode, "libdevice");
    let lib = Module::parse_bitcode_from_buffer(&buffer, ll)
        .map_err(|e| format!("cannot read libdevice at {} (AOT_LIBDEVICE): {e}", path.display()))?;
    // libdevice carries its own triple and layout; ours (the same target)
    // keep the linker from warning.
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    module.link_in_module(lib).map_err(|e| format!("cannot link libdevice from {}: {e}", path.display()))?;
    internalize_all_but(module, &kernels);
    Ok(())
}

/// Makes every function `module` defines internal, except those `keep`
/// names: what nothing calls any more is then dropped by `globaldce`, and
/// the optimizer may inline the rest.
fn internalize_all_but(module: &Module<'_>, keep: &[String]) {
    for f in module.get_functions() {
        let name = f.get_name().to_string_lossy();
        if f.count_basic_blocks() > 0 && !keep.iter().any(|k| *k == name) {
            f.set_linkage(Linkage::Internal);
        }
    }
}

/// libdevice as bitcode, cut down to the functions `called` names and what
/// they call, remembered per process by the file and the names. Parsing the
/// whole library (470 KB of bitcode, a thousand functions) for every module
/// was most of the time an emission with libdevice took; the same calls
/// recur (each architecture of a function, every function that calls
/// `expf`), and the cut copy parses in a fraction of the time. Linking it
/// gives the module the same functions as linking the whole library and
/// dropping what nothing calls, which `compile` did after linking.
fn trimmed_libdevice(
    path: &std::path::Path,
    called: Vec<String>,
    machine: &TargetMachine,
) -> Result<Arc<Vec<u8>>, String> {
    /// Cut copies kept: a program's modules call a few sets of functions.
    static TRIMMED: JitCache<(std::path::PathBuf, Vec<String>), Arc<Vec<u8>>> = JitCache::new(64);
    let key = (path.to_path_buf(), called);
    if let Some(b) = TRIMMED.get(&key) {
        return Ok(b);
    }
    let scratch = LlContext::create();
    let lib = Module::parse_bitcode_from_path(path, &scratch)
        .map_err(|e| format!("cannot read libdevice at {} (AOT_LIBDEVICE): {e}", path.display()))?;
    internalize_all_but(&lib, &key.1);
    lib.run_passes("globaldce", machine, PassBuilderOptions::create())
        .map_err(|e| format!("cannot cut libdevice from {} down: {e}", path.display()))?;
    let bitcode = Arc::new(lib.write_bitcode_to_memory().as_slice().to_vec());
    TRIMMED.insert(key, bitcode.clone());
    Ok(bitcode)
}

/// PTX text for a named GPU architecture as a [`crate::target::Target`]:
/// text only (running on the process's GPU is [`crate::cuda::Cuda`]'s).
pub struct Ptx;

impl Ptx {
    fn sm(options: &crate::target::Options) -> Result<Sm, String> {
        options.gpu_arch.as_deref().map_or(Ok(Sm::default()), Sm::parse)
    }
}

impl crate::target::Target for Ptx {
    fn name(&self) -> &'static str {
        "ptx"
    }

    fn capabilities(&self) -> crate::target::Capabilities {
        crate::target::Capabilities { lowered_input: true, runs: false, device: true, gpu_arch: true }
    }

    /// Threads have no lanes; the answer stays Cranelift's plan so that
    /// the PTX of a program is what it was when its figures were measured
    /// on the GPU (fusion across loops of different plans is a measured
    /// change still to make there).
    fn vectorizes(&self, ctx: &Context, l: Op) -> bool {
        crate::cranelift::vectorizes(ctx, l)
    }

    fn check(&self, options: &crate::target::Options) -> Result<(), String> {
        Ptx::sm(options).map(drop)
    }

    fn compile(
        &self,
        ctx: &mut Context,
        func: Op,
        options: &crate::target::Options,
        text: &mut String,
    ) -> Result<Box<dyn aot_runtime::compiled::Executable>, Diagnostic> {
        self.emit(ctx, func, options, text)?;
        Err(Diagnostic::op_error(
            ctx,
            func,
            "PTX for a named architecture is text only (aot-opt --emit=ptx); run on the GPU with the cuda backend",
        ))
    }

    fn emit(
        &self,
        ctx: &mut Context,
        func: Op,
        options: &crate::target::Options,
        out: &mut String,
    ) -> Result<(), Diagnostic> {
        let sm = Ptx::sm(options).map_err(|m| Diagnostic::op_error(ctx, func, m))?;
        emit(ctx, func, sm, out)
    }

    fn line_comment(&self) -> &'static str {
        "//"
    }
}

/// Appends the PTX module of the lowered function `func`'s kernels, for
/// `sm`, to `text`, with libdevice linked in from `AOT_LIBDEVICE` when set.
pub fn emit(ctx: &Context, func: Op, sm: Sm, text: &mut String) -> Result<(), Diagnostic> {
    let libdevice = std::env::var_os("AOT_LIBDEVICE").filter(|p| !p.is_empty()).map(std::path::PathBuf::from);
    emit_with(ctx, func, sm, libdevice.as_deref(), text)
}

/// [`emit`] with libdevice from `libdevice` (or left external).
pub fn emit_with(
    ctx: &Context,
    func: Op,
    sm: Sm,
    libdevice: Option<&std::path::Path>,
    text: &mut String,
) -> Result<(), Diagnostic> {
    let program = program::build_symbolic(ctx, func)?;
    let module = compile(ctx, func, &program, sm, libdevice)?;
    text.push_str(&module.ptx);
    Ok(())
}

/// Threads per block of every launch; a block that shares one row is
/// exactly one block.
pub const BLOCK_THREADS: u32 = kernel::BLOCK_THREADS as u32;

/// A lowered function's kernels as one PTX module.
pub struct PtxModule {
    pub ptx: String,
    /// The entry of each `Step::Kernel` of the host program, in order.
    pub entries: Vec<String>,
    /// Per entry: how many threads share one iteration of its split loop
    /// (`kernel::row_plan`: 1, a warp of 32, or a block of
    /// [`BLOCK_THREADS`]), or, for an entry without one, the size of its
    /// only block (1, or a block sharing a full reduction).
    pub threads: Vec<u32>,
    /// Messages of the failed-check codes (code k is `messages[k - 1]`).
    pub messages: Vec<String>,
}

/// The PTX entry name of the `count`th kernel, called `name` in the IR:
/// an identifier whatever the IR's name holds.
fn entry_name(name: &str, count: usize) -> String {
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    format!("{clean}_{count}")
}

/// Compiles the kernels of `program` (the host program of the lowered
/// function `func`) to a PTX module for `sm`, with libdevice from
/// `libdevice` (or left external).
pub fn compile(
    ctx: &Context,
    func: Op,
    program: &program::HostProgram,
    sm: Sm,
    libdevice: Option<&std::path::Path>,
) -> Result<PtxModule, Diagnostic> {
    let fail = |m: String| Diagnostic::op_error(ctx, func, m);
    let machine = machine(sm).map_err(fail)?;
    let ll = LlContext::create();
    let module = ll.create_module("aot");
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let table: rustc_hash::FxHashMap<i64, usize> = program.sizes.iter().enumerate().map(|(k, &d)| (d, k)).collect();
    let target = kernel::Target { cpu: sm.name(), features: PTX_ISA, flavor: Flavor::Ptx, table: &table };
    let mut messages = Vec::new();
    let mut entries = Vec::new();
    let mut threads = Vec::new();
    for step in &program.steps {
        let Step::Kernel { op, name, .. } = step else { continue };
        let entry = entry_name(name, entries.len());
        let per = kernel::emit(ctx, *op, &ll, &module, &entry, &target, &mut messages)?;
        threads.push(u32::try_from(per).map_err(|_| fail(format!("{per} threads per row")))?);
        entries.push(entry);
    }
    module.verify().map_err(|e| fail(format!("LLVM rejected the generated GPU kernels: {e}")))?;
    if let Some(path) = libdevice {
        link_libdevice(&ll, &module, path, &machine).map_err(fail)?;
    }
    // `globaldce` first: the libdevice functions nothing calls are internal
    // now, and dropping them before O3 spares its early function passes a
    // thousand bodies.
    module
        .run_passes("globaldce,default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| fail(format!("LLVM's optimizer failed: {e}")))?;
    let ptx = machine
        .write_to_memory_buffer(&module, FileType::Assembly)
        .map_err(|e| fail(format!("LLVM could not generate PTX: {e}")))?;
    Ok(PtxModule { ptx: String::from_utf8_lossy(ptx.as_slice()).into_owned(), entries, threads, messages })
}
