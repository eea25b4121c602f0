//! `aot-codegen`: from pure tensor graphs to native code.
//!
//! The passes `lower-to-loops` (tensor ops to `loop` kernels over buffers,
//! views as strided layouts), `fuse` (producer/consumer and loop fusion)
//! and `plan-memory` (buffer reuse by liveness) work on the `loop` dialect,
//! in that order ([`compile_function`] runs them);
//! the seam every backend starts from; `cranelift` JIT-compiles its
//! kernels and runs the host program around them.

pub mod affine;
pub mod cranelift;
pub mod fuse;
pub mod gemm;
pub mod lower_to_loops;
pub mod plan_memory;
pub mod program;
pub mod write_order;

/// Forces this crate (and its pass registrations) to be linked in.
pub fn link() {}

use aot_ir::{Context, Diagnostic, Op};

/// Lowers `func` (a value-semantics function over tensors) through the
/// codegen passes and compiles it with Cranelift. `text` receives what
/// `opts.emit` asks for.
pub fn compile_function(
    ctx: &mut Context,
    func: Op,
    opts: cranelift::Options,
    text: &mut String,
) -> Result<cranelift::Executable, Diagnostic> {
    // Every tensor and buffer size is bounded before any constant is
    // materialized or any loop bound emitted (and again after planning: the
    // arena is a buffer of its own).
    aot_ir::size::check_value_sizes(ctx, func)?;
    write_order::protect_reads(ctx, func)?;
    lower_to_loops::lower_function(ctx, func)?;
    fuse::fuse_function(ctx, func)?;
    plan_memory::plan_function(ctx, func)?;
    aot_ir::verify(ctx, func).map_err(|mut d| d.remove(0))?;
    aot_ir::size::check_value_sizes(ctx, func)?;
    let code = cranelift::compile(ctx, func, opts, text)?;
    Ok(cranelift::Executable::new(code))
}

/// A function compiled on its first call (the backward of a training
/// function: many forward calls never need it).
pub struct Lazy {
    state: LazyState,
}

enum LazyState {
    Pending { ctx: Box<Context>, func: Op, opts: cranelift::Options },
    Ready(cranelift::Executable),
    Failed(String),
    Compiling,
}

impl Lazy {
    pub fn new(ctx: Context, func: Op, opts: cranelift::Options) -> Lazy {
        Lazy { state: LazyState::Pending { ctx: Box::new(ctx), func, opts } }
    }

    /// Whether the function has been compiled yet.
    pub fn is_compiled(&self) -> bool {
        matches!(self.state, LazyState::Ready(_))
    }
}

impl aot_runtime::compiled::Executable for Lazy {
    fn run(&mut self, args: Vec<aot_runtime::Tensor>) -> Result<Vec<aot_runtime::Tensor>, String> {
        if let LazyState::Pending { .. } = self.state {
            let LazyState::Pending { mut ctx, func, opts } = std::mem::replace(&mut self.state, LazyState::Compiling)
            else {
                unreachable!("matched above")
            };
            self.state = match compile_function(&mut ctx, func, opts, &mut String::new()) {
                Ok(e) => LazyState::Ready(e),
                Err(d) => LazyState::Failed(format!("compiling the backward: {}", d.message)),
            };
        }
        match &mut self.state {
            LazyState::Ready(e) => e.run(args),
            LazyState::Failed(m) => Err(m.clone()),
            _ => Err("the backward is still being compiled".into()),
        }
    }
}

/// The Cranelift IR (`Emit::Clif`) or machine code (`Emit::Asm`) of every
/// public function of `module`, lowering the ones still over tensors.
pub fn emit_text(ctx: &mut Context, module: Op, emit: cranelift::Emit) -> Result<String, Diagnostic> {
    let mut out = String::new();
    for f in aot_dialects::func::funcs(ctx, module) {
        if f.is_declaration(ctx) || ctx.attr_str(f.op, "sym_visibility") == Some("private") {
            continue;
        }
        let name = f.name(ctx).to_string();
        out.push_str(&format!("; function @{name}\n"));
        let opts = cranelift::Options { emit, ..cranelift::Options::default() };
        let lowered = f.args(ctx).iter().all(|&a| program::memref(ctx, a).is_some());
        if lowered {
            aot_ir::size::check_value_sizes(ctx, f.op)?;
            cranelift::compile(ctx, f.op, opts, &mut out)?;
        } else {
            compile_function(ctx, f.op, opts, &mut out)?;
        }
    }
    Ok(out)
}
