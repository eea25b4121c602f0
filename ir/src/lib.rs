//! `aot-ir`: the IR core of the aot compiler framework.
//!
//! An SSA IR in the style of MLIR, stored the way Cranelift stores its IR:
//! a [`Context`] owns every operation, value, block and region in dense arenas
//! addressed by `u32` ids ([`Op`], [`Value`], [`Block`], [`Region`]), and
//! uniques types, attributes, locations and strings. Dialects register their
//! ops through [`registry::OpDef`] (the core knows none of them except
//! `builtin.module`); the [`parser`] and [`printer`] implement MLIR's textual
//! syntax (generic form for every op, custom forms where an op defines one);
//! the [`verifier`] checks structure, dominance and each op's own rules;
//! [`fold`] holds the folds and patterns ops declare for `canonicalize`,
//! [`effects`] their memory effects, and [`cse`] the CSE transform; the
//! [`pass`] module is the pass manager with MLIR's pipeline grammar and
//! instrumentation. All IR changes go through [`Rewriter`].

pub mod attributes;
pub mod builtin;
pub mod context;
pub mod cse;
pub mod diagnostics;
pub mod effects;
pub mod entity;
pub mod fold;
pub mod intern;
pub mod lexer;
pub mod location;
pub mod op_kind;
pub mod parser;
pub mod pass;
pub mod printer;
pub mod registry;
pub mod rewriter;
pub mod size;
pub mod sym;
pub mod types;
pub mod verifier;
pub mod verify_diagnostics;

pub use attributes::{AttrData, DenseData, NamedAttr};
pub use context::{AttrView, Context, Use, ValueDef};
pub use diagnostics::{Diagnostic, ResolvedDiagnostic, Severity, SourceMgr};
pub use entity::{Attribute, Block, Location, Op, OpName, Region, Symbol, Type, Value};
pub use location::LocData;
pub use op_kind::{OpKind, OpRef};
pub use parser::{parse_module, Argument, ParseOptions, ParseResult, Parser, UnresolvedOperand};
pub use printer::{print_op, OpPrinter, PrintOptions};
pub use registry::{traits, Arity, AttrKind, AttrSpec, InferCtx, OpDef, Syntax, Traits};
pub use rewriter::{InsertPoint, OperationState, Rewriter};
pub use size::{checked_extent, checked_numel, Limit, Limits};
pub use types::{ElemType, MemRefType, Shape, TensorType, TypeData, DYNAMIC};
pub use verifier::verify;

/// Re-exported so dialect crates can register ops without naming the crate.
pub use inventory;
