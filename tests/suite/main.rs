//! The integration tests of the `aot` crate, as one test binary: each
//! module below was a binary of its own, and every one of them linked the
//! whole compiler (with `--features mlir`, MLIR and LLVM statically: about
//! 260 MB and several seconds of linking each). One binary also lets the
//! harness run the long suites (the corpus against every backend) side by
//! side on all cores.
//!
//! Run one module with a filter: `cargo test --test suite differential::`.
//! Tests that need a process of their own (they size the thread pool,
//! install the host thread team, or measure the process's tensor memory)
//! are in `own_process`: each runs the binary again with only itself
//! selected.

#[path = "../common/mod.rs"]
mod common;

mod conventions;
mod cuda;
mod derivatives;
mod device_hook;
mod differential;
mod dist;
mod docs;
mod embed_example;
mod embedding;
mod golden;
mod gradients;
mod guards;
mod half_precision;
mod mlir;
mod native;
mod own_process;
mod ptx;
mod robustness;
mod simplify;
mod subclass;
mod symbolic;
mod targets;
mod tensor_api;
mod text_laws;
