//! `aot-passes`: the pass library.
//!
//! One file (or folder) per pass, named after its pipeline argument; each
//! declares itself once with `inventory::submit!(PassInfo { .. })`, from
//! which the pipeline parser, `--list-passes` and `docs/passes.md` are made.

pub mod canonicalize;
pub mod collect_metadata;
pub mod convention;
pub mod cse;
pub mod dce;
pub mod dedupe;
pub mod flatten_subclasses;
pub mod functionalize;
pub mod joint;
pub mod meta;
pub mod partition;
pub mod pipelines;
pub mod record;
pub mod rng_functionalize;
pub mod simplify;
pub mod synthetic_base;

/// Forces this crate (and its pass registrations) to be linked into a binary.
pub fn link() {
    aot_dialects::link();
}
