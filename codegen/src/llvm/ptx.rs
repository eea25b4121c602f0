//! PTX for NVIDIA GPUs (cargo feature `cuda`): the kernels of a lowered
//! function compiled by LLVM's NVPTX target, with the same kernel emitter as
//! the host backend in its GPU flavor (`kernel::Flavor::Ptx`: each kernel is
//! a PTX entry `(buffers, lo, hi, status)` whose parallel outer loop is a
//! grid-stride loop over the launch's threads; math rows without a lane
//! polynomial call libdevice's function of the same `libm` name).
//!
//! What this module produces is text: `aot-opt --emit=ptx` prints it, and
//! the test script checks every corpus kernel with `ptxas`. Calls into
//! libdevice stay external (`.extern .func`), so a module assembles as
//! relocatable code (`ptxas -c`); linking libdevice and launching belong to
//! the CUDA runtime.

use super::kernel::{self, Flavor};
use crate::program::{self, Step};
use aot_ir::{Context, Diagnostic, Op};
use inkwell::context::Context as LlContext;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

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

/// Appends the PTX module of the lowered function `func`'s kernels, for
/// `sm`, to `text`.
pub fn emit(ctx: &Context, func: Op, sm: Sm, text: &mut String) -> Result<(), Diagnostic> {
    let fail = |m: String| Diagnostic::op_error(ctx, func, m);
    let program = program::build(ctx, func)?;
    let machine = machine(sm).map_err(fail)?;
    let ll = LlContext::create();
    let module = ll.create_module("aot");
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let target = kernel::Target { cpu: sm.name(), features: PTX_ISA, flavor: Flavor::Ptx };
    let mut messages = Vec::new();
    let mut count = 0;
    for step in &program.steps {
        let Step::Kernel { op, name, .. } = step else { continue };
        kernel::emit(ctx, *op, &ll, &module, &format!("{name}_{count}"), &target, &mut messages)?;
        count += 1;
    }
    module.verify().map_err(|e| fail(format!("LLVM rejected the generated GPU kernels: {e}")))?;
    module
        .run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| fail(format!("LLVM's optimizer failed: {e}")))?;
    let ptx = machine
        .write_to_memory_buffer(&module, FileType::Assembly)
        .map_err(|e| fail(format!("LLVM could not generate PTX: {e}")))?;
    text.push_str(&String::from_utf8_lossy(ptx.as_slice()));
    Ok(())
}
