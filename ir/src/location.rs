//! Source locations.
//!
//! Every operation carries a [`crate::Location`]. Parsed operations get the
//! file, line and column of their first token unless the text gives an
//! explicit `loc(...)`; operations created by passes inherit the location of
//! the operation they replace, so diagnostics from late passes still point at
//! user source.

use crate::entity::{Location, Symbol};

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum LocData {
    Unknown,
    /// `loc("file.mlir":3:7)`; line and column are 1-based.
    FileLineCol {
        file: Symbol,
        line: u32,
        col: u32,
    },
    /// `loc("name")` or `loc("name"(child))`.
    Name {
        name: Symbol,
        child: Option<Location>,
    },
    /// `loc(fused[l1, l2])`.
    Fused(Vec<Location>),
}
