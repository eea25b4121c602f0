//! Attribute data.
//!
//! Attributes are immutable, interned compile-time constants attached to
//! operations (and to function arguments/results through dictionaries).
//! Floats are stored as their `f64` bit pattern so that attributes hash and
//! compare exactly; a float attribute typed `f32` always holds an
//! `f32`-representable value (it is rounded when created), which is what makes
//! printing the shortest `f32` spelling round-trip exactly.
//!
//! Project attributes (`#aot.layout<storage = 0, offset = 2, strides = [1]>`)
//! are represented generically as a dialect name plus an ordered list of named
//! parameters; typed views over them live with whoever owns the attribute.

use crate::entity::{Attribute, Symbol, Type};

/// A named attribute, as found in attribute dictionaries.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct NamedAttr {
    pub name: Symbol,
    pub value: Attribute,
}

/// The payload of a `dense<...>` elements attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum DenseData {
    /// Every element has this value (`dense<1.0>`); floats as `f64` bits.
    SplatFloat(u64),
    SplatInt(i64),
    /// Row-major float values as `f64` bits.
    Floats(Vec<u64>),
    /// Row-major integer (and boolean) values.
    Ints(Vec<i64>),
}

impl DenseData {
    /// Element `i` as an `f64` (integers are converted).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            DenseData::SplatFloat(b) => f64::from_bits(*b),
            DenseData::SplatInt(v) => *v as f64,
            DenseData::Floats(v) => f64::from_bits(v[i]),
            DenseData::Ints(v) => v[i] as f64,
        }
    }

    pub fn get_i64(&self, i: usize) -> i64 {
        match self {
            DenseData::SplatFloat(b) => f64::from_bits(*b) as i64,
            DenseData::SplatInt(v) => *v,
            DenseData::Floats(v) => f64::from_bits(v[i]) as i64,
            DenseData::Ints(v) => v[i],
        }
    }

    pub fn is_splat(&self) -> bool {
        matches!(self, DenseData::SplatFloat(_) | DenseData::SplatInt(_))
    }

    /// Number of stored values (1 for a splat).
    pub fn stored_len(&self) -> usize {
        match self {
            DenseData::SplatFloat(_) | DenseData::SplatInt(_) => 1,
            DenseData::Floats(v) => v.len(),
            DenseData::Ints(v) => v.len(),
        }
    }
}

/// The data of an interned attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrData {
    /// A unit attribute: present means true (`{keepdim}`).
    Unit,
    Bool(bool),
    /// An integer with its type (`3`, `3 : i32`; untyped integers are `i64`).
    Int {
        value: i64,
        ty: Type,
    },
    /// A float with its type, stored as `f64` bits (`0.5`, `0.5 : f32`).
    Float {
        bits: u64,
        ty: Type,
    },
    Str(Box<str>),
    Type(Type),
    Array(Vec<Attribute>),
    /// `array<i64: 1, 0>`.
    I64Array(Vec<i64>),
    /// `array<f64: 0.5, 1.0>` (as bits).
    F64Array(Vec<u64>),
    /// `dense<...> : tensor<...>`.
    Dense {
        ty: Type,
        data: DenseData,
    },
    /// `{a = 1, b}`; sorted by name, names unique.
    Dict(Vec<NamedAttr>),
    /// `@name`.
    SymbolRef(Symbol),
    /// `#dialect.name<key = value, ...>`: parameters in written order.
    Dialect {
        name: Symbol,
        params: Vec<NamedAttr>,
    },
}
