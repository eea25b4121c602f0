//! The top level and operations: generic form, custom forms and the shared
//! functional form `%a, %b {attrs} : T1, T2 -> R`.
//!
//! Invariants: an op is created only once its text is read up to the
//! trailing location (a custom parser fills an [`OperationState`] that is
//! turned into the op afterwards), and its result names are bound after
//! that, against the op's real result count. While an op's regions are
//! parsed its [`OpDef`] is on `op_stack`, which decides isolation and the
//! default dialect of bare op names inside them. Top-level ops other than a
//! single module end up in an implicit `builtin.module`, as in MLIR.

use super::{ParseResult, Parser, UnresolvedOperand, MODULE_OP};
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::lexer::{Token, TokenKind};
use crate::location::LocData;
use crate::registry::{OpDef, Syntax};
use crate::rewriter::OperationState;
use crate::types::TypeData;
use smallvec::SmallVec;

impl<'a, 'src> Parser<'a, 'src> {
    pub(super) fn parse_top_level(&mut self) -> ParseResult<Op> {
        let top_block = self.ctx.create_block_raw(&[]);
        loop {
            match self.tok.kind {
                TokenKind::Eof => break,
                TokenKind::HashIdent if !self.peek_text().contains('.') => {
                    let t = self.advance();
                    let name = &self.lex.text(&t)[1..];
                    self.expect(TokenKind::Equal, "'=' in attribute alias definition")?;
                    let a = self.parse_attribute()?;
                    if self.attr_aliases.insert(name, a).is_some() {
                        let loc = self.tok_loc(t);
                        return Err(Diagnostic::error(loc, format!("redefinition of attribute alias id '{name}'")));
                    }
                }
                TokenKind::BangIdent => {
                    let t = self.advance();
                    let name = &self.lex.text(&t)[1..];
                    self.expect(TokenKind::Equal, "'=' in type alias definition")?;
                    let ty = self.parse_type()?;
                    if self.type_aliases.insert(name, ty).is_some() {
                        let loc = self.tok_loc(t);
                        return Err(Diagnostic::error(loc, format!("redefinition of type alias id '{name}'")));
                    }
                }
                _ => {
                    if self.ctx.block_ops(top_block).next().is_none() {
                        // Top-level ops other than one module are wrapped in
                        // an implicit module, whose region the printed form
                        // shows: count it, so that what prints re-parses.
                        let module = matches!(
                            (self.tok.kind, self.peek_text()),
                            (TokenKind::BareIdent, "module") | (TokenKind::String, "\"builtin.module\"")
                        );
                        self.depth = usize::from(!module);
                    }
                    self.parse_operation(top_block)?;
                }
            }
        }
        self.finish_scope_isolated()?;
        let ops: Vec<Op> = self.ctx.block_ops(top_block).collect();
        if let [single] = ops[..] {
            if self.ctx.op_name(single) == MODULE_OP {
                self.ctx.unlink_op(single);
                return Ok(single);
            }
        }
        // Wrap in an implicit module, as MLIR does.
        let region = self.ctx.create_region_raw();
        let body = self.ctx.create_block_raw(&[]);
        self.ctx.append_block_raw(region, body);
        for op in ops {
            self.ctx.unlink_op(op);
            self.ctx.link_op(op, body, None);
        }
        let name = self.ctx.op_name_id(MODULE_OP);
        let loc = {
            let file = self.file;
            self.ctx.loc(LocData::FileLineCol { file, line: 1, col: 1 })
        };
        Ok(self.ctx.create_op_raw(name, &[], &[], SmallVec::new(), smallvec::smallvec![region], loc))
    }

    /// Parses one operation and appends it to `block`.
    pub(crate) fn parse_operation(&mut self, block: Block) -> ParseResult<Op> {
        let start = self.tok;
        let loc = self.tok_loc(start);
        // Result list: %a, %b:2 =
        let mut results: SmallVec<[(&'src str, u32, Token); 2]> = SmallVec::new();
        if self.tok.kind == TokenKind::PercentIdent {
            self.parse_comma_separated(|p| {
                let t = p.expect(TokenKind::PercentIdent, "SSA value name")?;
                let name = &p.lex.text(&t)[1..];
                let mut count = 1;
                if p.consume_if(TokenKind::Colon) {
                    let n = p.parse_integer()?;
                    if n < 1 {
                        return Err(p.error_here("expected a positive number of results"));
                    }
                    count = n as u32;
                }
                results.push((name, count, t));
                Ok(())
            })?;
            self.expect(TokenKind::Equal, "'=' after SSA result list")?;
        }
        let op = match self.tok.kind {
            TokenKind::String => self.parse_generic_op(loc)?,
            TokenKind::BareIdent => self.parse_custom_op(loc)?,
            _ => return Err(self.error_here("expected operation name in quotes")),
        };
        self.parse_trailing_loc(op)?;
        self.ctx.link_op(op, block, None);
        // Only the op knows its result count (a custom form may infer it).
        let nres = self.ctx.num_results(op) as u32;
        let declared: u32 = results.iter().map(|r| r.1).sum();
        if !results.is_empty() && declared != nres {
            return Err(Diagnostic::error(
                loc,
                format!("operation defines {nres} results but was provided {declared} to bind"),
            ));
        }
        let mut next = 0usize;
        for (name, count, t) in results {
            let vals: SmallVec<[Value; 1]> =
                self.ctx.results(op)[next..next + count as usize].iter().copied().collect();
            next += count as usize;
            self.define(name, vals, t)?;
        }
        Ok(op)
    }

    fn parse_generic_op(&mut self, loc: Location) -> ParseResult<Op> {
        let name_tok = self.advance();
        let name = self.string_value(name_tok)?;
        let name_id = self.ctx.op_name_id(&name);
        let Some(def) = self.ctx.op_name_def(name_id) else {
            let dialect = name.split_once('.').map(|d| d.0).unwrap_or("");
            let l = self.tok_loc(name_tok);
            return Err(Diagnostic::error(
                l,
                format!("unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"),
            ));
        };
        self.expect(TokenKind::LParen, "'(' to start operand list")?;
        let operands = self.parse_operand_list_until(TokenKind::RParen)?;
        self.expect(TokenKind::RParen, "')' to end operand list")?;
        if self.tok.kind == TokenKind::LSquare {
            return Err(self.error_here("successor lists are not supported (no op of aot has successors)"));
        }
        let mut state = OperationState::new(name_id, loc);
        // Properties `<{...}>` are accepted and merged into the attributes.
        if self.tok.kind == TokenKind::Less {
            self.advance();
            self.parse_attr_dict_into(&mut state.attrs)?;
            self.expect(TokenKind::Greater, "'>' to end properties")?;
        }
        if self.tok.kind == TokenKind::LParen {
            self.advance();
            self.op_stack.push(def);
            self.parse_comma_separated(|p| {
                let r = p.parse_region(&[])?;
                state.regions.push(r);
                Ok(())
            })?;
            self.op_stack.pop();
            self.expect(TokenKind::RParen, "')' to end region list")?;
            // A module's body is one block even when empty, and the generic
            // form of an empty module writes it `({\n})`, as MLIR does.
            if def.name == MODULE_OP {
                if let [r] = state.regions[..] {
                    self.ensure_block(r);
                }
            }
        }
        if self.tok.kind == TokenKind::LBrace {
            self.parse_attr_dict_into(&mut state.attrs)?;
        }
        self.expect(TokenKind::Colon, "':' followed by operation type")?;
        let fty_tok = self.tok;
        let fty = self.parse_type()?;
        let TypeData::Function { inputs, results } = self.ctx.type_data(fty).clone() else {
            let l = self.tok_loc(fty_tok);
            return Err(Diagnostic::error(l, "expected function type"));
        };
        if inputs.len() != operands.len() {
            let l = self.tok_loc(fty_tok);
            return Err(Diagnostic::error(
                l,
                format!("expected {} operand type{} but had {}", operands.len(), plural(operands.len()), inputs.len()),
            ));
        }
        state.operands = self.resolve_operands(&operands, &inputs)?;
        state.result_types = results.into_iter().collect();
        Ok(state.create_in(self.ctx))
    }

    fn resolve_op_name(&mut self, text: &str) -> Option<&'static OpDef> {
        if text.contains('.') {
            return crate::registry::lookup_op(text);
        }
        for def in self.op_stack.iter().rev() {
            if let Some(d) = def.default_dialect {
                if let Some(found) = crate::registry::lookup_op(&format!("{d}.{text}")) {
                    return Some(found);
                }
            }
        }
        // The builtin dialect is the default everywhere (`module`).
        crate::registry::lookup_op(&format!("builtin.{text}"))
    }

    fn parse_custom_op(&mut self, loc: Location) -> ParseResult<Op> {
        let name_tok = self.advance();
        let text = self.lex.text(&name_tok);
        let Some(def) = self.resolve_op_name(text) else {
            let l = self.tok_loc(name_tok);
            return Err(Diagnostic::error(l, format!("custom op '{text}' is unknown")));
        };
        let name_id = self.ctx.op_name_id(def.name);
        let mut state = OperationState::new(name_id, loc);
        self.op_stack.push(def);
        let r = match def.syntax {
            Syntax::Generic => {
                let l = self.tok_loc(name_tok);
                Err(Diagnostic::error(
                    l,
                    format!("custom op '{text}' has no custom assembly form; write it in the generic form"),
                ))
            }
            Syntax::Functional => self.parse_functional(def, &mut state),
            Syntax::Custom { parse, .. } => parse(self, &mut state),
        };
        self.op_stack.pop();
        r?;
        Ok(state.create_in(self.ctx))
    }

    /// The shared custom form: `%a, %b {attrs} : T1, T2 -> R`.
    fn parse_functional(&mut self, def: &'static OpDef, state: &mut OperationState) -> ParseResult<()> {
        let mut operands = SmallVec::<[UnresolvedOperand; 4]>::new();
        if self.tok.kind == TokenKind::PercentIdent {
            self.parse_comma_separated(|p| {
                operands.push(p.parse_operand()?);
                Ok(())
            })?;
        }
        self.parse_optional_attr_dict(&mut state.attrs)?;
        let mut types: SmallVec<[Type; 4]> = SmallVec::new();
        let types_tok = self.tok;
        if self.consume_if(TokenKind::Colon) {
            if self.tok.kind != TokenKind::Arrow {
                self.parse_comma_separated(|p| {
                    types.push(p.parse_type()?);
                    Ok(())
                })?;
            }
        } else if !operands.is_empty() {
            return Err(self.error_here("expected ':' followed by operand types"));
        }
        let explicit_results =
            if self.consume_if(TokenKind::Arrow) { Some(self.parse_function_result_types()?) } else { None };
        if operands.is_empty() {
            state.result_types = match explicit_results {
                Some(r) => r,
                None => types.into_iter().collect(),
            };
            return Ok(());
        }
        let operand_types: SmallVec<[Type; 4]> = if types.len() == 1 {
            std::iter::repeat_n(types[0], operands.len()).collect()
        } else if types.len() == operands.len() {
            types.clone()
        } else {
            let l = self.tok_loc(types_tok);
            return Err(Diagnostic::error(
                l,
                format!("expected 1 or {} operand types but had {}", operands.len(), types.len()),
            ));
        };
        state.operands = self.resolve_operands(&operands, &operand_types)?;
        state.result_types = match explicit_results {
            Some(r) => r,
            None if def.results == crate::registry::Arity::Exact(0) => SmallVec::new(),
            None if types.len() == 1 => smallvec::smallvec![types[0]],
            None => {
                return Err(self.error_here(
                    "expected '->' and result types (they can only be elided when all operands share one type)",
                ))
            }
        };
        Ok(())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
