//! The `tensor` dialect: pure tensor ops with value semantics.
//!
//! Every op here creates a new tensor object with fresh contiguous storage;
//! none aliases its operands. Each op's definition (verifier, shape rule,
//! custom syntax, and the facts other layers attach through interfaces) lives
//! in this folder.

use crate::shape::*;
use aot_ir::*;

fn infer_broadcast(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    let a = operand_tensor(ic, 0)?;
    let b = operand_tensor(ic, 1)?;
    one(broadcast(&a.shape, &b.shape)?, e)
}

fn infer_constant(ic: &InferCtx<'_>) -> InferResult {
    let a = find_attr(ic, "value").ok_or("requires attribute 'value'")?;
    match ic.ctx.attr_data(a) {
        AttrData::Dense { ty, .. } => Ok(smallvec::smallvec![ic.ctx.type_data(*ty).clone()]),
        _ => Err("attribute 'value' must be a dense elements attribute".into()),
    }
}

fn parse_constant(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let loc = p.current_loc();
    let a = p.parse_attribute()?;
    let AttrData::Dense { ty, .. } = p.ctx().attr_data(a).clone() else {
        return Err(Diagnostic::error(loc, "expected a dense elements attribute"));
    };
    let k = p.ctx().sym("value");
    st.add_attr(k, a);
    st.result_types.push(ty);
    Ok(())
}

fn print_constant(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.print_attr_dict(ctx.attrs(op), &["value"]);
    if let Some(a) = ctx.get_attr(op, "value") {
        p.w(" ");
        p.print_attr(a);
    }
}

const BINARY: Traits = traits(&[Traits::PURE, Traits::ELEMENTWISE]);

inventory::submit! {
    OpDef {
        name: "tensor.add",
        summary: "Elementwise sum with broadcasting",
        traits: BINARY.union(Traits::COMMUTATIVE),
        operands: Arity::Exact(2),
        results: Arity::Exact(1),
        infer: Some(infer_broadcast),
        syntax: Syntax::Functional,
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "tensor.mul",
        summary: "Elementwise product with broadcasting",
        traits: BINARY.union(Traits::COMMUTATIVE),
        operands: Arity::Exact(2),
        results: Arity::Exact(1),
        infer: Some(infer_broadcast),
        syntax: Syntax::Functional,
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "tensor.constant",
        summary: "A tensor with the given dense contents",
        traits: Traits::PURE,
        results: Arity::Exact(1),
        attrs: &[AttrSpec::required("value", AttrKind::Dense)],
        infer: Some(infer_constant),
        syntax: Syntax::Custom { parse: parse_constant, print: print_constant },
        ..OpDef::DEFAULT
    }
}
