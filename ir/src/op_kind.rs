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
    }
}
