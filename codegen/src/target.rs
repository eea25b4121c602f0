//! The code generators behind one interface ([`Target`]), and the one list
//! of them ([`TARGETS`]) that the facade's backends, `aot-run --backend` and
//! `aot-opt --emit` all read.
//!
//! A target compiles a function to something the runtime calls, or to text
//! only (PTX for a named GPU), and answers what passes ask of it: fusion
//! asks whether an innermost loop runs in vector lanes, so that a merge
//! never costs a loop its vector form where the target plans lanes itself.
//!
//! Adding a backend: implement [`Target`] in its own module and add its
//! [`Registration`] line to [`TARGETS`] (gated on its cargo feature with
//! [`built!`](crate::built)). A build without the feature keeps the line, so
//! that asking for the backend says which feature it needs. An application
//! embedding `aot` adds its own code generator with [`register`] instead.
//!
//! Invariants: names in [`TARGETS`] are unique; an entry's `target` is
//! `None` exactly when this build lacks its feature; every kind in an
//! entry's `emits` is one its target writes for [`Target::emit`].

use aot_ir::pass::PassManager;
use aot_ir::{Context, Diagnostic, Op};
use aot_runtime::compiled::Executable;

/// What a target is, for drivers that choose one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// It compiles functions lowered to the loop dialect (after
    /// [`crate::PIPELINE`]); otherwise it takes value-semantics functions
    /// over tensors and lowers them itself (the MLIR export).
    pub lowered_input: bool,
    /// Its code runs in this process; otherwise it writes text only.
    pub runs: bool,
    /// Its code runs on a device with memory of its own: a call copies what
    /// it reads there and what it wrote back.
    pub device: bool,
    /// It compiles for a named GPU architecture (`aot-opt --gpu-arch`).
    pub gpu_arch: bool,
}

/// How to compile: what to write as text, and the target's own knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The text to write while compiling: one of the target's
    /// [`Registration::emits`]; `None` writes nothing.
    pub emit: Option<&'static str>,
    /// Run inner loops in vector lanes where the target plans them itself
    /// (Cranelift); off gives scalar loops, for comparisons.
    pub vectorize: bool,
    /// The GPU architecture (`sm_80`, `sm_90`) for targets with
    /// [`Capabilities::gpu_arch`]; `None` is the target's default.
    pub gpu_arch: Option<String>,
    /// Compile a function with symbolic sizes once, into code that reads
    /// its sizes at run time, where the pipeline and target take it
    /// (`crate::by_size`); otherwise native code is generated per set of
    /// symbol values. On by default; `AOT_RUNTIME_SIZES=0` in the
    /// environment turns it off (code per size for every function).
    pub runtime_sizes: bool,
}

impl Options {
    /// The target's own form of `emit`: the entry of `kinds` named so, or
    /// `none` when nothing is to be written.
    pub fn emit_as<E: Copy>(&self, kinds: &[(&str, E)], none: E) -> Result<E, String> {
        match self.emit {
            None => Ok(none),
            Some(kind) => kinds
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|&(_, e)| e)
                .ok_or_else(|| format!("this code generator does not write '{kind}'")),
        }
    }
}

/// Unless `AOT_RUNTIME_SIZES` is `0`.
fn runtime_sizes_from_env() -> bool {
    std::env::var("AOT_RUNTIME_SIZES").map_or(true, |v| v != "0")
}

impl Default for Options {
    fn default() -> Self {
        Options { emit: None, vectorize: true, gpu_arch: None, runtime_sizes: runtime_sizes_from_env() }
    }
}

/// A code generator.
pub trait Target: Send + Sync {
    /// The name users select it by (`aot-run --backend`, `Backend::parse`).
    fn name(&self) -> &'static str;

    fn capabilities(&self) -> Capabilities;

    /// The device memory calls of this target's code run resident in
    /// (arguments placed there beforehand are used in place, results are
    /// allocated there), for a caller that places arguments (`aot-run`,
    /// the test suites). `None`: the target runs on host tensors.
    fn device_memory(&self) -> Option<std::rc::Rc<dyn aot_runtime::device::DeviceMemory>> {
        None
    }

    /// Whether innermost loop `l` of a lowered kernel runs in vector lanes.
    /// Fusion merges two innermost loops only where the target answers
    /// alike for both. The default is for targets whose own compiler widens
    /// loops, or that have no lanes: no loop has a form to lose.
    fn vectorizes(&self, _ctx: &Context, _l: Op) -> bool {
        false
    }

    /// Whether every program runs with this target on this machine (a GPU
    /// target needs a GPU; the MLIR export fails on ops it cannot export).
    fn runs_everything_here(&self) -> bool {
        true
    }

    /// Rejects options this target cannot compile with (an unknown GPU
    /// architecture), before any work.
    fn check(&self, _options: &Options) -> Result<(), String> {
        Ok(())
    }

    /// Compiles `func` into something the runtime calls; `text` receives
    /// what `options.emit` asks for.
    fn compile(
        &self,
        ctx: &mut Context,
        func: Op,
        options: &Options,
        text: &mut String,
    ) -> Result<Box<dyn Executable>, Diagnostic>;

    /// Appends the text `options.emit` names for `func` (lowered when the
    /// target takes lowered input) to `out`, running nothing.
    fn emit(&self, ctx: &mut Context, func: Op, options: &Options, out: &mut String) -> Result<(), Diagnostic> {
        self.compile(ctx, func, options, out).map(drop)
    }

    /// The line comment of the text it writes (before each function's
    /// header line).
    fn line_comment(&self) -> &'static str {
        ";"
    }

    /// The text `options.emit` names for every public function of
    /// `module`, each after a header line naming it; functions still over
    /// tensors go through `pm` (a pass manager for [`crate::PIPELINE`]; IR
    /// dumps to `sink`) first when the target takes lowered input.
    fn emit_module(
        &self,
        ctx: &mut Context,
        module: Op,
        options: &Options,
        pm: &mut PassManager,
        sink: &mut dyn std::io::Write,
    ) -> Result<String, Diagnostic> {
        let mut out = String::new();
        for f in aot_dialects::func::funcs(ctx, module) {
            if !f.is_public_definition(ctx) {
                continue;
            }
            out.push_str(&format!("{} function @{}\n", self.line_comment(), f.name(ctx)));
            if self.capabilities().lowered_input {
                crate::lower_unless_lowered(ctx, f.op, pm, sink)?;
            }
            self.emit(ctx, f.op, options, &mut out)?;
        }
        Ok(out)
    }
}

/// One line of [`TARGETS`].
pub struct Registration {
    pub name: &'static str,
    /// How messages name it ("LLVM backend": "needs the LLVM backend",
    /// "has no LLVM backend").
    pub title: &'static str,
    pub summary: &'static str,
    /// The cargo feature that builds it; `None`: every build has it.
    pub feature: Option<&'static str>,
    /// The kinds of text `aot-opt --emit` takes from it, in the order
    /// `--emit`'s help lists them.
    pub emits: &'static [&'static str],
    /// The target, where this build has it.
    pub target: Option<&'static dyn Target>,
}

impl Registration {
    /// The error for a build that lacks this target, asked for as `what`
    /// ("backend 'llvm'", "--emit=llvm").
    pub fn missing(&self, what: &str, program: &str) -> String {
        format!(
            "{what} needs the {}, which this build of {program} lacks (build it with the cargo feature `{}`)",
            self.title,
            self.feature.unwrap_or("?")
        )
    }
}

/// `Some(&TARGET)` where this build has the cargo feature, else `None`: the
/// path is not even resolved without it.
#[macro_export]
#[doc(hidden)]
macro_rules! built {
    ($feature:literal, $target:expr) => {{
        #[cfg(feature = $feature)]
        let t: Option<&'static dyn $crate::target::Target> = Some(&$target);
        #[cfg(not(feature = $feature))]
        let t: Option<&'static dyn $crate::target::Target> = None;
        t
    }};
}

/// Every code generator, built or not, in the order `--backend` and
/// `--emit` list them; the first is the default.
pub const TARGETS: &[Registration] = &[
    Registration {
        name: "cranelift",
        title: "Cranelift backend",
        summary: "native code for the host CPU through Cranelift's JIT (the default)",
        feature: None,
        emits: &["clif", "clif-opt", "asm"],
        target: Some(&crate::cranelift::Cranelift),
    },
    Registration {
        name: "hostdev",
        title: "host-memory device",
        summary: "Cranelift's code on a device whose memory is host allocations behind the device interface (device residency and bus crossings, checked on any machine)",
        feature: None,
        emits: &[],
        target: Some(&crate::host_device::HostDev),
    },
    Registration {
        name: "llvm",
        title: "LLVM backend",
        summary: "native code for the host CPU through LLVM 19's O3 pipeline and ORC JIT",
        feature: Some("llvm"),
        emits: &["llvm", "asm"],
        target: built!("llvm", crate::llvm::Llvm),
    },
    Registration {
        name: "ptx",
        title: "CUDA backend",
        summary: "PTX text for a named NVIDIA GPU architecture (text only)",
        feature: Some("cuda"),
        emits: &["ptx"],
        target: built!("cuda", crate::llvm::ptx::Ptx),
    },
    Registration {
        name: "cuda",
        title: "CUDA backend",
        summary: "the process's NVIDIA GPU: PTX through the CUDA driver, GEMMs through cuBLAS",
        feature: Some("cuda"),
        emits: &[],
        target: built!("cuda", crate::cuda::Cuda),
    },
    Registration {
        name: "mlir",
        title: "MLIR backend",
        summary: "upstream MLIR (func, tensor, linalg, arith, math), compiled by MLIR's own pipeline and JIT",
        feature: Some("mlir"),
        emits: &["mlir"],
        target: built!("mlir", crate::mlir::Mlir),
    },
];

/// Targets registered at run time ([`register`]): an embedding
/// application's own code generators, after the built-in ones.
static REGISTERED: std::sync::RwLock<Vec<&'static Registration>> = std::sync::RwLock::new(Vec::new());

/// Adds a code generator outside [`TARGETS`] (an application's own), so
/// that pipelines (`fuse{target=NAME}`) and the facade's backends can name
/// it. Names are unique across both lists.
pub fn register(r: &'static Registration) -> Result<(), String> {
    let mut extra = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if TARGETS.iter().chain(extra.iter().copied()).any(|o| o.name == r.name) {
        return Err(format!("a target named '{}' is registered already", r.name));
    }
    if r.target.is_some_and(|t| t.name() != r.name) {
        return Err(format!("target '{}' registered as '{}'", r.target.map_or("", |t| t.name()), r.name));
    }
    extra.push(r);
    Ok(())
}

/// Every target, the built-in list first, then those registered at run time.
pub fn all() -> Vec<&'static Registration> {
    let extra = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    TARGETS.iter().chain(extra.iter().copied()).collect()
}

/// The registration called `name`.
pub fn lookup(name: &str) -> Option<&'static Registration> {
    all().into_iter().find(|r| r.name == name)
}

/// The default target (Cranelift).
pub fn default_target() -> &'static dyn Target {
    &crate::cranelift::Cranelift
}

/// The targets this build has (and those registered), by name.
pub fn built() -> Vec<(&'static str, &'static dyn Target)> {
    all().into_iter().filter_map(|r| r.target.map(|t| (r.name, t))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_consistent() {
        for (i, r) in TARGETS.iter().enumerate() {
            assert!(TARGETS[..i].iter().all(|o| o.name != r.name), "{} listed twice", r.name);
            let built = |f: &str| {
                (f == "llvm" && cfg!(feature = "llvm"))
                    || (f == "cuda" && cfg!(feature = "cuda"))
                    || (f == "mlir" && cfg!(feature = "mlir"))
            };
            assert_eq!(r.target.is_some(), r.feature.is_none_or(built), "{}: built as its feature says", r.name);
            if let Some(t) = r.target {
                assert_eq!(t.name(), r.name);
            }
        }
        assert_eq!(TARGETS[0].target.map(|t| t.name()), Some(default_target().name()));
        assert!(lookup("cranelift").is_some() && lookup("nosuch").is_none());
    }
}
