//! Typed op identities: a zero-cost handle type per op kind, as MLIR's
//! generated op classes (`AddOp`, `op.dyn_cast<ViewOp>()`), so that passes,
//! codegen and the runtime name an op by a Rust type checked at compile
//! time instead of by a string.
//!
//! A dialect declares a handle next to the op's definition with
//! [`op_handle!`](crate::op_handle) and uses its `NAME` as the definition's
//! name, so the op's spelling is written once. A handle wraps the [`Op`]
//! it was cast from or built as; `K::isa(ctx, op)` and `ctx.dyn_cast::<K>(op)`
//! test identity, `K::build*` create the op with a [`Rewriter`] (result
//! types inferred by the op's registered inference, or given).
//!
//! Static links between op kinds (a view's scatter inverse, an in-place op's
//! functional twin) are [`OpRef`]s: made only from a handle type, so a link
//! to an op that does not exist does not compile.

use crate::{Attribute, Context, Diagnostic, NamedAttr, Op, Rewriter, Type, Value};

/// An op kind known at compile time.
pub trait OpKind: Copy {
    /// The op's full name, `dialect.op`.
    const NAME: &'static str;

    /// The handle of `op`; callers check identity first ([`OpKind::isa`]).
    fn wrap(op: Op) -> Self;

    /// The op this handle stands for.
    fn op(self) -> Op;

    /// Whether `op` is of this kind.
    fn isa(ctx: &Context, op: Op) -> bool {
        ctx.op_name(op) == Self::NAME
    }

    /// `op` as this kind, if it is one.
    fn dyn_cast(ctx: &Context, op: Op) -> Option<Self> {
        Self::isa(ctx, op).then(|| Self::wrap(op))
    }

    /// Builds the op with inferred result types (see [`Rewriter::build`]).
    fn build(rw: &mut Rewriter<'_>, operands: &[Value], attrs: &[(&str, Attribute)]) -> Result<Self, Diagnostic> {
        rw.build(Self::NAME, operands, attrs).map(Self::wrap)
    }

    /// Builds the op with inferred result types; returns its only result.
    fn build1(rw: &mut Rewriter<'_>, operands: &[Value], attrs: &[(&str, Attribute)]) -> Result<Value, Diagnostic> {
        rw.build1(Self::NAME, operands, attrs)
    }

    /// [`OpKind::build1`] with attributes given as interned pairs.
    fn build_named1(rw: &mut Rewriter<'_>, operands: &[Value], attrs: &[NamedAttr]) -> Result<Value, Diagnostic> {
        rw.build_named1(Self::NAME, operands, attrs)
    }

    /// Builds the op with the given result types.
    fn build_typed(
        rw: &mut Rewriter<'_>,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
        result_types: &[Type],
    ) -> Self {
        Self::wrap(rw.build_typed(Self::NAME, operands, attrs, result_types))
    }

    /// Builds the op with one given result type; returns that result.
    fn build_typed1(rw: &mut Rewriter<'_>, operands: &[Value], attrs: &[(&str, Attribute)], ty: Type) -> Value {
        rw.build_typed1(Self::NAME, operands, attrs, ty)
    }
}

/// A typed reference to an op kind, stored in static op facts. Its only
/// constructor takes a handle type, so the name it holds is always an op's
/// declared spelling.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct OpRef(&'static str);

impl OpRef {
    /// The kind `K`.
    pub const fn of<K: OpKind>() -> Self {
        OpRef(K::NAME)
    }

    /// The op a registered definition describes (a definition is an op's
    /// declared spelling as much as a handle is).
    pub fn of_def(def: &'static crate::OpDef) -> Self {
        OpRef(def.name)
    }

    /// The referenced op's full name.
    pub const fn name(self) -> &'static str {
        self.0
    }

    /// Whether this is kind `K`.
    pub fn is<K: OpKind>(self) -> bool {
        self.0 == K::NAME
    }

    /// Whether `op` is of the referenced kind.
    pub fn matches(self, ctx: &Context, op: Op) -> bool {
        ctx.op_name(op) == self.0
    }

    /// The referenced op's registered definition.
    pub fn def(self) -> Option<&'static crate::OpDef> {
        crate::registry::lookup_op(self.0)
    }

    /// Builds the referenced op with inferred result types; returns its only
    /// result.
    pub fn build1(
        self,
        rw: &mut Rewriter<'_>,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
    ) -> Result<Value, Diagnostic> {
        rw.build1(self.0, operands, attrs)
    }

    /// [`OpRef::build1`] with attributes given as interned pairs.
    pub fn build_named1(
        self,
        rw: &mut Rewriter<'_>,
        operands: &[Value],
        attrs: &[NamedAttr],
    ) -> Result<Value, Diagnostic> {
        rw.build_named1(self.0, operands, attrs)
    }
}

impl std::fmt::Debug for OpRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Display for OpRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Context {
    /// Whether `op` is of kind `K`.
    pub fn isa<K: OpKind>(&self, op: Op) -> bool {
        K::isa(self, op)
    }

    /// `op` as kind `K`, if it is one.
    pub fn dyn_cast<K: OpKind>(&self, op: Op) -> Option<K> {
        K::dyn_cast(self, op)
    }
}

/// Declares a typed handle for an op: `op_handle!(pub AddOp = "tensor.add");`
/// gives `AddOp(Op)` implementing [`OpKind`].
#[macro_export]
macro_rules! op_handle {
    ($(#[$m:meta])* $vis:vis $ty:ident = $name:literal) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        $vis struct $ty(pub $crate::Op);

        impl $crate::OpKind for $ty {
            const NAME: &'static str = $name;
            fn wrap(op: $crate::Op) -> Self {
                $ty(op)
            }
            fn op(self) -> $crate::Op {
                self.0
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_module, ParseOptions};

    op_handle!(Module = "builtin.module");

    #[test]
    fn handles_test_identity() {
        let mut ctx = Context::new();
        let m = parse_module(&mut ctx, "", &ParseOptions { file: "t".into(), first_line: 1 })
            .expect("an empty module parses");
        assert!(ctx.isa::<Module>(m));
        assert_eq!(ctx.dyn_cast::<Module>(m).map(OpKind::op), Some(m));
        op_handle!(Other = "builtin.other");
        assert!(ctx.dyn_cast::<Other>(m).is_none());
        const LINK: OpRef = OpRef::of::<Module>();
        assert!(LINK.matches(&ctx, m) && LINK.is::<Module>() && !LINK.is::<Other>());
        assert_eq!(LINK.name(), "builtin.module");
        assert!(LINK.def().is_some_and(|d| d.name == "builtin.module"));
    }
}
