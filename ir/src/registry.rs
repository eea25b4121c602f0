//! Op registration.
//!
//! The IR core knows no dialect. Each dialect describes its operations with
//! one static [`OpDef`] per op and submits it with [`inventory::submit!`];
//! the first [`crate::Context`] collects every submission into a global map.
//! An [`OpDef`] carries everything the core needs to handle an op generically:
//! its traits, operand/result/region arity, declared attributes, verifier,
//! result-type inference and optional custom syntax. Facts that belong to
//! other layers (interpreter kernels, derivative rules, lowerings) hang off
//! [`OpDef::interfaces`] as typed `'static` values looked up by Rust type, the
//! way MLIR attaches interfaces to ops without the core knowing them.

use crate::attributes::NamedAttr;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::entity::{Op, Type};
use crate::parser::{ParseResult, Parser};
use crate::printer::OpPrinter;
use crate::rewriter::OperationState;
use crate::types::TypeData;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::any::Any;
use std::sync::OnceLock;

/// A set of op traits (a small bit set, usable in `const` op definitions).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Traits(pub u32);

impl Traits {
    pub const NONE: Traits = Traits(0);
    /// No side effects, no aliasing: may be CSE'd, hoisted and removed when unused.
    pub const PURE: Traits = Traits(1 << 0);
    /// Results alias the first operand's storage (reference semantics).
    pub const VIEW: Traits = Traits(1 << 1);
    /// Writes into the storage of its first operand.
    pub const INPLACE: Traits = Traits(1 << 2);
    /// Changes the metadata (sizes/strides/offset/storage) of its first operand
    /// and returns the same object.
    pub const METADATA_MUTATION: Traits = Traits(1 << 3);
    /// Draws from (and advances) the global random generator.
    pub const RANDOM: Traits = Traits(1 << 4);
    /// Must be the last operation of its block.
    pub const TERMINATOR: Traits = Traits(1 << 5);
    /// Regions cannot see values defined outside the op.
    pub const ISOLATED_FROM_ABOVE: Traits = Traits(1 << 6);
    /// Defines a symbol (`sym_name`) in the enclosing symbol table.
    pub const SYMBOL: Traits = Traits(1 << 7);
    /// Holds a symbol table (symbols of nested ops are unique).
    pub const SYMBOL_TABLE: Traits = Traits(1 << 8);
    /// Operands may be swapped without changing the result.
    pub const COMMUTATIVE: Traits = Traits(1 << 9);
    /// Elementwise over (broadcast) operands.
    pub const ELEMENTWISE: Traits = Traits(1 << 10);
    /// Its single-block regions have no terminator (like `builtin.module`).
    pub const NO_TERMINATOR: Traits = Traits(1 << 11);
    /// Has a derivative rule (see the dialects' autodiff interface).
    pub const DIFFERENTIABLE: Traits = Traits(1 << 12);
    /// Takes or makes tensor subclass values by its own rules (functions,
    /// calls, returns, the ops that build and open subclass values), not
    /// by per-component dispatch (see [`subclass_dispatch`]).
    pub const SUBCLASS_RULES: Traits = Traits(1 << 13);
    /// Its shape rule, verifier and interpreter kernel handle symbolic
    /// sizes ([`crate::sym`]); the verifier rejects a symbolic size on an
    /// op without it, so no unconverted rule computes with one.
    pub const SYMBOLIC_SHAPES: Traits = Traits(1 << 14);

    pub const fn union(self, other: Traits) -> Traits {
        Traits(self.0 | other.0)
    }

    pub const fn contains(self, other: Traits) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Builds a trait set in a `const` context: `traits(&[Traits::PURE, Traits::ELEMENTWISE])`.
pub const fn traits(list: &[Traits]) -> Traits {
    let mut bits = 0;
    let mut i = 0;
    while i < list.len() {
        bits |= list[i].0;
        i += 1;
    }
    Traits(bits)
}

/// How many operands or results an op takes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arity {
    Exact(u32),
    AtLeast(u32),
    Range(u32, u32),
}

impl Arity {
    pub fn accepts(self, n: usize) -> bool {
        let n = n as u32;
        match self {
            Arity::Exact(k) => n == k,
            Arity::AtLeast(k) => n >= k,
            Arity::Range(a, b) => n >= a && n <= b,
        }
    }

    pub fn describe(self) -> String {
        match self {
            Arity::Exact(k) => format!("{k}"),
            Arity::AtLeast(k) => format!("at least {k}"),
            Arity::Range(a, b) => format!("between {a} and {b}"),
        }
    }
}

/// The kind of value a declared attribute holds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum AttrKind {
    /// An integer (`3`, `3 : i64`).
    I64,
    /// A float; integers are accepted and converted.
    F64,
    Bool,
    Str,
    /// A list of integers: `[1, 0]` or `array<i64: 1, 0>`.
    I64List,
    /// A unit flag; `name = true/false` is accepted too.
    Flag,
    /// A `dense<...>` elements attribute.
    Dense,
    /// A type attribute.
    Type,
    /// A symbol reference `@f`.
    SymbolRef,
    /// Anything (checked by the op verifier).
    Any,
}

impl AttrKind {
    pub fn describe(self) -> &'static str {
        match self {
            AttrKind::I64 => "an integer",
            AttrKind::F64 => "a float",
            AttrKind::Bool => "a boolean",
            AttrKind::Str => "a string",
            AttrKind::I64List => "a list of integers",
            AttrKind::Flag => "a unit attribute or a boolean",
            AttrKind::Dense => "a dense elements attribute",
            AttrKind::Type => "a type",
            AttrKind::SymbolRef => "a symbol reference",
            AttrKind::Any => "an attribute",
        }
    }
}

/// A declared (inherent) attribute of an op.
#[derive(Copy, Clone, Debug)]
pub struct AttrSpec {
    pub name: &'static str,
    pub kind: AttrKind,
    pub required: bool,
}

impl AttrSpec {
    pub const fn required(name: &'static str, kind: AttrKind) -> AttrSpec {
        AttrSpec { name, kind, required: true }
    }
    pub const fn optional(name: &'static str, kind: AttrKind) -> AttrSpec {
        AttrSpec { name, kind, required: false }
    }
}

/// What a type-inference function sees.
pub struct InferCtx<'a> {
    pub ctx: &'a Context,
    pub operand_types: &'a [Type],
    pub attrs: &'a [NamedAttr],
    /// What the enclosing function declares about its symbols (ranges,
    /// guards), for rules over symbolic sizes; `None`: the defaults.
    pub facts: Option<&'a crate::sym::Facts>,
}

impl<'a> InferCtx<'a> {
    pub fn new(ctx: &'a Context, operand_types: &'a [Type], attrs: &'a [NamedAttr]) -> Self {
        InferCtx { ctx, operand_types, attrs, facts: None }
    }

    /// Typed access to the attributes (the facts come along for view rules).
    pub fn attr_view(&self) -> crate::context::AttrView<'a> {
        crate::context::AttrView { facts: self.facts, ..crate::context::AttrView::of_attrs(self.ctx, self.attrs) }
    }

    /// What rules may assume about the symbols.
    pub fn facts(&self) -> &'a crate::sym::Facts {
        match self.facts {
            Some(f) => f,
            None => crate::sym::Facts::defaults(),
        }
    }
}

pub type InferFn = fn(&InferCtx<'_>) -> Result<SmallVec<[TypeData; 1]>, String>;
pub type VerifyFn = fn(&Context, Op) -> Result<(), Diagnostic>;
pub type ParseFn = fn(&mut Parser<'_, '_>, &mut OperationState) -> ParseResult<()>;
pub type PrintFn = fn(&mut OpPrinter<'_>, Op);

/// How an op is written in the custom (pretty) form.
#[derive(Copy, Clone)]
pub enum Syntax {
    /// Only the generic form.
    Generic,
    /// `name %a, %b {attrs} : T1, T2 -> R` (see the printer for the elision rules).
    Functional,
    /// Hand-written parser and printer.
    Custom { parse: ParseFn, print: PrintFn },
}

/// The static description of one operation kind.
pub struct OpDef {
    /// Full name, `dialect.op`.
    pub name: &'static str,
    pub summary: &'static str,
    pub traits: Traits,
    pub operands: Arity,
    pub results: Arity,
    /// Exact number of regions.
    pub regions: u32,
    /// Inherent attributes. Other attributes must be dialect-prefixed
    /// (`aot.no_grad`), as MLIR's discardable attributes.
    pub attrs: &'static [AttrSpec],
    /// Extra op-specific checks, run after the generic ones.
    pub verify: Option<VerifyFn>,
    /// Result types from operand types and attributes; the verifier checks
    /// that the actual result types equal them.
    pub infer: Option<InferFn>,
    pub syntax: Syntax,
    /// Dialect whose ops may be written without prefix inside this op's regions.
    pub default_dialect: Option<&'static str>,
    /// Typed interface implementations, found with [`OpDef::interface`].
    pub interfaces: &'static [&'static (dyn Any + Sync)],
}

impl OpDef {
    /// A definition with everything optional left empty; use with struct
    /// update syntax: `OpDef { name: "x.y", ..OpDef::DEFAULT }`.
    pub const DEFAULT: OpDef = OpDef {
        name: "",
        summary: "",
        traits: Traits::NONE,
        operands: Arity::Exact(0),
        results: Arity::Exact(0),
        regions: 0,
        attrs: &[],
        verify: None,
        infer: None,
        syntax: Syntax::Generic,
        default_dialect: None,
        interfaces: &[],
    };

    pub fn has(&self, t: Traits) -> bool {
        self.traits.contains(t)
    }

    /// The implementation of interface `T` this op declares, if any.
    pub fn interface<T: Any>(&self) -> Option<&'static T> {
        self.interfaces.iter().find_map(|i| {
            let any: &'static dyn Any = *i;
            any.downcast_ref::<T>()
        })
    }

    pub fn attr_spec(&self, name: &str) -> Option<&'static AttrSpec> {
        self.attrs.iter().find(|s| s.name == name)
    }

    /// The dialect part of the name.
    pub fn dialect(&self) -> &'static str {
        self.name.split_once('.').map(|(d, _)| d).unwrap_or("")
    }
}

inventory::collect!(OpDef);

/// A value of subclass type in `op` (its own block arguments and results
/// included), if there is one.
pub fn first_subclass_value(ctx: &Context, op: Op) -> Option<crate::entity::Value> {
    let is_sub = |v: &crate::entity::Value| ctx.type_data(ctx.value_type(*v)).as_subclass().is_some();
    let mut found = None;
    ctx.walk_pre(op, &mut |o| {
        if found.is_some() {
            return;
        }
        found = ctx.results(o).iter().find(|v| is_sub(v)).copied().or_else(|| {
            ctx.regions(o)
                .iter()
                .flat_map(|&r| ctx.region_blocks(r).iter())
                .find_map(|&b| ctx.block_args(b).iter().find(|v| is_sub(v)).copied())
        });
    });
    found
}

/// The subclass an op is dispatched to: `None` for an op on dense values;
/// for an op with subclass operands, their class (every subclass operand
/// must have the same one, and an op that mutates its first operand must be
/// dispatched on it, because a dense tensor mutated once per component has
/// no PyTorch meaning). Every tensor result of a dispatched op is a subclass
/// value of that class whose outer type is what the dense op infers.
pub fn subclass_dispatch(ctx: &Context, def: &OpDef, operand_types: &[Type]) -> Result<Option<String>, String> {
    let mut class: Option<&str> = None;
    for &t in operand_types {
        if let Some(sc) = ctx.type_data(t).as_subclass() {
            match class {
                Some(c) if c != sc.class => {
                    return Err(format!(
                        "takes values of two subclasses, @{c} and @{}: per-component dispatch needs one",
                        sc.class
                    ))
                }
                _ => class = Some(&sc.class),
            }
        }
    }
    let Some(class) = class else { return Ok(None) };
    let mutates_first = def.has(Traits::INPLACE) || def.has(Traits::METADATA_MUTATION);
    if mutates_first && operand_types.first().is_some_and(|&t| ctx.type_data(t).as_subclass().is_none()) {
        return Err(format!(
            "mutates a dense tensor with a @{class} operand: each component would mutate it once; \
mutate a subclass value instead"
        ));
    }
    Ok(Some(class.to_string()))
}

/// The op's inferred result types, lifted to subclass types when the op is
/// dispatched to a subclass ([`subclass_dispatch`]).
pub fn infer_result_types(def: &OpDef, infer: InferFn, ictx: &InferCtx<'_>) -> Result<SmallVec<[TypeData; 1]>, String> {
    let class = subclass_dispatch(ictx.ctx, def, ictx.operand_types)?;
    let mut inferred = infer(ictx)?;
    // Sizes the ranges or a guard pin to a constant are that constant
    // (`Facts::settled`).
    if let Some(facts) = ictx.facts {
        for t in inferred.iter_mut() {
            if let TypeData::Tensor(tensor) = t {
                if tensor.shape.iter().any(|&d| crate::sym::is_symbolic(d)) {
                    let shape: Vec<i64> = tensor.shape.iter().map(|&d| facts.settled(d)).collect();
                    tensor.shape = shape.into();
                }
            }
        }
    }
    let Some(class) = class else { return Ok(inferred) };
    Ok(inferred
        .into_iter()
        .map(|t| match t {
            TypeData::Tensor(tensor) => TypeData::Subclass(crate::types::SubclassType { class: class.clone(), tensor }),
            other => other,
        })
        .collect())
}

/// Every registered op definition by name.
pub fn registered_ops() -> &'static FxHashMap<&'static str, &'static OpDef> {
    static REGISTRY: OnceLock<FxHashMap<&'static str, &'static OpDef>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut map = FxHashMap::default();
        for def in inventory::iter::<OpDef> {
            let prev = map.insert(def.name, def);
            assert!(prev.is_none(), "op '{}' is registered twice", def.name);
        }
        map
    })
}

/// Looks up a registered op by its full name.
pub fn lookup_op(name: &str) -> Option<&'static OpDef> {
    registered_ops().get(name).copied()
}

/// All registered ops sorted by name (for documentation and tests).
pub fn all_ops() -> Vec<&'static OpDef> {
    let mut v: Vec<_> = registered_ops().values().copied().collect();
    v.sort_by_key(|d| d.name);
    v
}
