//! The `builtin` dialect: `builtin.module`, the top-level container.
//!
//! As in MLIR, the module is part of the IR core (the parser wraps top-level
//! ops in one). Its single region holds one block without terminator; it is a
//! symbol table (symbol names of nested ops are unique) and isolated from above.

use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::entity::Op;
use crate::lexer::TokenKind;
use crate::parser::{ParseResult, Parser};
use crate::printer::OpPrinter;
use crate::registry::{traits, Arity, AttrKind, AttrSpec, OpDef, Syntax, Traits};
use crate::rewriter::OperationState;

fn parse_module(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    if p.peek() == TokenKind::AtIdent {
        let name = p.parse_symbol_name()?;
        let key = p.ctx().sym("sym_name");
        let value = p.ctx().str_attr(&name);
        st.add_attr(key, value);
    }
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let r = p.parse_region(&[])?;
    p.ensure_block(r);
    st.regions.push(r);
    Ok(())
}

fn print_module(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    if let Some(name) = ctx.attr_str(op, "sym_name") {
        p.w(" ");
        p.print_symbol_name(name);
    }
    p.print_attr_dict_with_keyword(ctx.attrs(op), &["sym_name"]);
    p.w(" ");
    p.print_region(ctx.regions(op)[0], false);
}

fn verify_module(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let r = ctx.regions(op)[0];
    if ctx.region_blocks(r).len() != 1 {
        return Err(Diagnostic::op_error(ctx, op, "expects a region with exactly one block"));
    }
    if ctx.parent_op(op).is_some_and(|p| ctx.op_name(p) != crate::parser::MODULE_OP) {
        return Err(Diagnostic::op_error(ctx, op, "expects parent op 'builtin.module' or none"));
    }
    Ok(())
}

inventory::submit! {
    OpDef {
        name: "builtin.module",
        summary: "A top-level container of functions",
        traits: traits(&[Traits::ISOLATED_FROM_ABOVE, Traits::SYMBOL_TABLE, Traits::NO_TERMINATOR]),
        operands: Arity::Exact(0),
        results: Arity::Exact(0),
        regions: 1,
        attrs: &[AttrSpec::optional("sym_name", AttrKind::Str)],
        verify: Some(verify_module),
        syntax: Syntax::Custom { parse: parse_module, print: print_module },
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "builtin.unresolved_forward_reference",
        summary: "Parser-internal placeholder for a value used before its definition (never in valid IR)",
        results: Arity::Exact(1),
        verify: Some(|ctx, op| Err(Diagnostic::op_error(ctx, op, "is a parser placeholder and must not appear in IR"))),
        ..OpDef::DEFAULT
    }
}
