//! `aot-dialects`: the dialects of aot.
//!
//! One folder per dialect; each op's facts (verifier, shape inference,
//! custom syntax, and the interfaces other layers use) live with the op and
//! register themselves with `inventory`. Other layers ask for an op's
//! interfaces and traits, name the ops they build or recognise by typed
//! handles (`tensor::FullOp`, `ctx.isa::<view::AsStridedOp>(op)`), and read
//! loop ops as the `r#loop::LoopOp` enum and math functions from the
//! `r#loop::math` table: they hold no op-name strings. Folds, canonicalization
//! patterns and memory effects are declared on the ops too (`aot_ir::fold`,
//! `aot_ir::effects`), and links between ops are typed (`aot_ir::OpRef`).
//! Call [`link`] from a binary to make sure the registrations are linked in.

pub mod autodiff;
pub mod dist;
pub mod docs;
pub mod export;
pub mod func;
pub mod r#loop;
pub mod lowering;
pub mod r#mut;
pub mod rng;
pub mod shape;
pub mod subclass;
pub mod tensor;
pub mod view;
/// The `tensor` dialect's scalar formulas, shared with in-place variants.
pub use tensor::kernels as tensor_kernels;

/// Forces this crate (and its op registrations) to be linked into a binary.
pub fn link() {}
