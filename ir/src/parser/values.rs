//! SSA value names: operand references, definitions and their scopes.
//!
//! One [`Scope`] per open region (plus the top level), innermost last. A
//! lookup walks outwards and stops after the first isolated scope, so a
//! region of an `IsolatedFromAbove` op never sees outer names. A use before
//! its definition gets a placeholder op (`PLACEHOLDER_OP`) recorded in the
//! innermost scope's `forward` map; the definition replaces and erases it,
//! and a non-isolated region hands what is still unresolved to its parent
//! when it closes, because the name may be defined later there. Whatever is
//! left when an isolated scope closes is an error at its first use, the
//! earliest-created placeholder first so the report does not depend on hash
//! order.

use super::{ParseResult, Parser, UnresolvedOperand};
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::lexer::{Token, TokenKind};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

const PLACEHOLDER_OP: &str = "builtin.unresolved_forward_reference";

/// What a name is bound to: one value per result of a `%x:N` definition.
pub(super) struct Definition {
    pub(super) values: SmallVec<[Value; 1]>,
}

/// The names of one region (or of the top level).
#[derive(Default)]
pub(super) struct Scope<'src> {
    /// Lookups stop here (the region of an `IsolatedFromAbove` op).
    pub(super) isolated: bool,
    pub(super) defs: FxHashMap<&'src str, Definition>,
    /// Uses seen before their definition: (name, result number) → (placeholder, first use).
    pub(super) forward: FxHashMap<(&'src str, u32), (Value, Location)>,
}

impl<'a, 'src> Parser<'a, 'src> {
    pub(super) fn finish_scope_isolated(&mut self) -> ParseResult<()> {
        let scope = self.scopes.pop().expect("scope stack underflow");
        self.report_unresolved(scope)
    }

    pub(super) fn report_unresolved(&mut self, scope: Scope<'src>) -> ParseResult<()> {
        if let Some(((name, num), (_, loc))) = scope.forward.into_iter().min_by_key(|(_, (v, _))| *v) {
            let shown = if num == 0 { name.to_string() } else { format!("{name}#{num}") };
            return Err(Diagnostic::error(loc, format!("use of undeclared SSA value name '%{shown}'")));
        }
        Ok(())
    }

    /// Parses `%name` or `%name#N`.
    pub fn parse_operand(&mut self) -> ParseResult<UnresolvedOperand<'src>> {
        if self.tok.kind != TokenKind::PercentIdent {
            return Err(self.error_here("expected SSA operand"));
        }
        let t = self.advance();
        let loc = self.tok_loc(t);
        let name = &self.lex.text(&t)[1..];
        let mut number = 0;
        // `#N` directly after the name (lexed as a hash identifier).
        if self.tok.kind == TokenKind::HashIdent && self.tok.start == t.end {
            let text = &self.peek_text()[1..];
            number = text.parse::<u32>().map_err(|_| self.error_here("invalid SSA value result number"))?;
            self.advance();
        }
        Ok(UnresolvedOperand { name, number, loc })
    }

    /// Operand lookahead: is the current token an SSA name?
    pub fn at_operand(&self) -> bool {
        self.tok.kind == TokenKind::PercentIdent
    }

    pub(super) fn parse_operand_list_until(&mut self, end: TokenKind) -> ParseResult<Vec<UnresolvedOperand<'src>>> {
        if self.tok.kind == end {
            return Ok(Vec::new());
        }
        self.parse_operands()
    }

    /// Parses a comma-separated operand list (possibly empty).
    pub fn parse_operand_list(&mut self) -> ParseResult<Vec<UnresolvedOperand<'src>>> {
        if !self.at_operand() {
            return Ok(Vec::new());
        }
        self.parse_operands()
    }

    /// One or more comma-separated operands.
    fn parse_operands(&mut self) -> ParseResult<Vec<UnresolvedOperand<'src>>> {
        let mut v = Vec::new();
        self.parse_comma_separated(|p| {
            v.push(p.parse_operand()?);
            Ok(())
        })?;
        Ok(v)
    }

    /// Gives each operand its type and finds (or forward-declares) its value.
    pub fn resolve_operands(
        &mut self,
        ops: &[UnresolvedOperand<'src>],
        types: &[Type],
    ) -> ParseResult<SmallVec<[Value; 4]>> {
        ops.iter().zip(types).map(|(o, &t)| self.resolve_operand(*o, t)).collect()
    }

    pub fn resolve_operand(&mut self, o: UnresolvedOperand<'src>, ty: Type) -> ParseResult<Value> {
        let found = self.lookup_value(o.name, o.number, o.loc)?;
        let v = match found {
            Some(v) => v,
            None => {
                // Forward reference: a placeholder the definition will replace.
                let name = self.ctx.op_name_id(PLACEHOLDER_OP);
                let ph = self.ctx.create_op_raw(name, &[], &[ty], SmallVec::new(), SmallVec::new(), o.loc);
                let v = self.ctx.result(ph, 0);
                self.scopes.last_mut().expect("scope").forward.insert((o.name, o.number), (v, o.loc));
                v
            }
        };
        let vt = self.ctx.value_type(v);
        if vt != ty {
            return Err(Diagnostic::error(
                o.loc,
                format!(
                    "use of value '%{}' expects different type than prior uses: '{}' vs '{}'",
                    o.name,
                    crate::printer::type_to_string(self.ctx, ty),
                    crate::printer::type_to_string(self.ctx, vt)
                ),
            ));
        }
        Ok(v)
    }

    fn lookup_value(&mut self, name: &'src str, number: u32, loc: Location) -> ParseResult<Option<Value>> {
        for scope in self.scopes.iter().rev() {
            if let Some(d) = scope.defs.get(name) {
                return match d.values.get(number as usize) {
                    Some(&v) => Ok(Some(v)),
                    None => Err(Diagnostic::error(
                        loc,
                        format!(
                            "reference to invalid result number #{number} of '%{name}' (it has {} results)",
                            d.values.len()
                        ),
                    )),
                };
            }
            if let Some(&(v, _)) = scope.forward.get(&(name, number)) {
                return Ok(Some(v));
            }
            if scope.isolated {
                break;
            }
        }
        Ok(None)
    }

    pub(super) fn define(&mut self, name: &'src str, values: SmallVec<[Value; 1]>, t: Token) -> ParseResult<()> {
        let loc = self.tok_loc(t);
        for scope in self.scopes.iter().rev() {
            if scope.defs.contains_key(name) {
                return Err(Diagnostic::error(loc, format!("redefinition of SSA value '%{name}'")));
            }
            if scope.isolated {
                break;
            }
        }
        for (i, &v) in values.iter().enumerate() {
            let key = (name, i as u32);
            let fwd = self.scopes.last_mut().expect("scope").forward.remove(&key);
            if let Some((ph, use_loc)) = fwd {
                let (pt, vt) = (self.ctx.value_type(ph), self.ctx.value_type(v));
                if pt != vt {
                    return Err(Diagnostic::error(
                        use_loc,
                        format!(
                            "use of value '%{name}' expects different type than prior uses: '{}' vs '{}'",
                            crate::printer::type_to_string(self.ctx, pt),
                            crate::printer::type_to_string(self.ctx, vt)
                        ),
                    ));
                }
                let ph_op = self.ctx.defining_op(ph).expect("placeholder");
                self.ctx.replace_all_uses_raw(ph, v);
                self.ctx.erase_op_raw(ph_op);
            }
        }
        // A forward reference to a result number this op does not have.
        let bad = self
            .scopes
            .last()
            .expect("scope")
            .forward
            .iter()
            .find(|((n, k), _)| *n == name && *k as usize >= values.len())
            .map(|(k, v)| (*k, *v));
        if let Some(((_, k), (_, use_loc))) = bad {
            return Err(Diagnostic::error(
                use_loc,
                format!("reference to invalid result number #{k} of '%{name}' (it has {} results)", values.len()),
            ));
        }
        self.scopes.last_mut().expect("scope").defs.insert(name, Definition { values });
        Ok(())
    }

    pub(super) fn define_arg(&mut self, name: &'src str, v: Value, loc: Location, _t: Token) -> ParseResult<()> {
        for scope in self.scopes.iter().rev() {
            if scope.defs.contains_key(name) {
                return Err(Diagnostic::error(loc, format!("redefinition of SSA value '%{name}'")));
            }
            if scope.isolated {
                break;
            }
        }
        self.scopes.last_mut().expect("scope").defs.insert(name, Definition { values: smallvec::smallvec![v] });
        Ok(())
    }
}
