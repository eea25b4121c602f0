//! Dense `u32` identifiers for every IR entity.
//!
//! All IR objects live in arenas owned by [`crate::Context`]; the rest of the
//! compiler refers to them by these copyable ids, in the style of Cranelift's
//! `cranelift-entity`. An id is only meaningful together with the context that
//! created it. Erased operations keep their id (arenas never shrink), so an id
//! is never reused for a different object within one context.

use cranelift_entity::entity_impl;

/// An operation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Op(u32);
entity_impl!(Op, "op");

/// An SSA value: an operation result or a block argument.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// A basic block: arguments and an ordered list of operations.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "bb");

/// A region: an ordered list of blocks owned by an operation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(u32);
entity_impl!(Region, "region");

/// An interned type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type(u32);
entity_impl!(Type, "type");

/// An interned attribute.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Attribute(u32);
entity_impl!(Attribute, "attr");

/// An interned string (attribute names, symbol names, file names).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(u32);
entity_impl!(Symbol, "sym");

/// An interned source location.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location(u32);
entity_impl!(Location, "loc");

/// An interned operation name, resolved once to its registered definition.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpName(u32);
entity_impl!(OpName, "opname");
