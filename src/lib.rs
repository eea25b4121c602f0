//! `aot`: the facade crate an embedder depends on.
//!
//! Re-exports the IR core ([`ir`]), the dialects ([`dialects`]) and the pass
//! library ([`passes`]), and the embedding API ([`function`]): parse a
//! [`Module`], compile one of its functions for the calling convention of
//! example tensors into a [`Function`], call its forward and backward.
//! Tensors are built from and read as typed Rust data with
//! [`Tensor::from_slice`] and [`Tensor::to_vec`] (element types
//! [`Element`]: `f32`, `f64`, [`f16`](struct@f16), [`bf16`], `i64`, `i32`, `i8`, `bool`).

pub use aot_codegen as codegen;
pub use aot_dialects as dialects;
pub use aot_ir as ir;
pub use aot_passes as passes;
/// The runtime (`aot-runtime`), with the CUDA device (`aot-runtime-cuda`)
/// as `runtime::cuda` under the cargo feature `cuda`.
pub mod runtime {
    pub use aot_runtime::*;
    #[cfg(feature = "cuda")]
    pub use aot_runtime_cuda as cuda;
}

pub mod compile;
pub mod dot;
pub mod function;
pub mod models;
pub mod subclass;
mod train_plan;

pub use compile::{ArgEffects, Backend};
pub use function::{convention_of, CompileReport, Error, Function, Module, Options, SharedGenerator};
pub use runtime::backward::Gradients;
pub use runtime::compiled::ForwardState;
pub use runtime::Generator;
pub use runtime::{bf16, f16, Dims, Element, Tensor, TensorError};

use aot_ir::{Context, Diagnostic, Op, ParseOptions};

/// The version, as `aot-opt --version` and `aot-run --version` print it: the
/// package version, then `+llvm`, `+cuda` and `+mlir` for the optional
/// features this build has (the lit suite reads them to set its features).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), llvm_tag!(), cuda_tag!(), mlir_tag!());

#[cfg(feature = "llvm")]
macro_rules! llvm_tag {
    () => {
        "+llvm"
    };
}
#[cfg(not(feature = "llvm"))]
macro_rules! llvm_tag {
    () => {
        ""
    };
}
#[cfg(feature = "cuda")]
macro_rules! cuda_tag {
    () => {
        "+cuda"
    };
}
#[cfg(not(feature = "cuda"))]
macro_rules! cuda_tag {
    () => {
        ""
    };
}
#[cfg(feature = "mlir")]
macro_rules! mlir_tag {
    () => {
        "+mlir"
    };
}
#[cfg(not(feature = "mlir"))]
macro_rules! mlir_tag {
    () => {
        ""
    };
}
use {cuda_tag, llvm_tag, mlir_tag};

/// Makes sure every dialect and pass registration is linked in. Binaries
/// that only use the registries (never a symbol of those crates) call this.
pub fn init() {
    aot_passes::link();
    aot_codegen::link();
}

/// Parses and verifies a module from text.
pub fn parse_and_verify(ctx: &mut Context, text: &str, file: &str) -> Result<Op, Vec<Diagnostic>> {
    init();
    let opts = ParseOptions { file: file.to_string(), first_line: 1 };
    let module = aot_ir::parse_module(ctx, text, &opts).map_err(|d| vec![d])?;
    aot_ir::verify(ctx, module)?;
    Ok(module)
}
