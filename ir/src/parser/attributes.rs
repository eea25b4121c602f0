//! Attributes: dictionaries, scalars, arrays, `#alias` and `#dialect.name<...>`
//! attributes, `array<...>` and `dense<...>` literals.
//!
//! Invariants: keys are unique within one dictionary (checked only against
//! the entries this dictionary appended, since callers such as the generic
//! form merge properties and attributes into one list). Number attributes
//! and dense literals round floats to their element type's precision and
//! reject integers out of its range, so such an attribute never holds a
//! value its type cannot represent; `array<...>` keeps every value as an
//! i64 or f64. A dense literal is read as a nested list first and checked
//! against its tensor type afterwards, because the type comes after it;
//! sibling lists must agree in shape.

use super::{ParseResult, Parser};
use crate::attributes::{AttrData, DenseData, NamedAttr};
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::lexer::{Token, TokenKind};
use crate::types::{ElemType, TypeData};

impl<'a, 'src> Parser<'a, 'src> {
    /// Parses `{...}` if present, appending entries to `out`.
    pub fn parse_optional_attr_dict(&mut self, out: &mut Vec<NamedAttr>) -> ParseResult<()> {
        if self.tok.kind == TokenKind::LBrace {
            self.parse_attr_dict_into(out)?;
        }
        Ok(())
    }

    /// Parses `attributes {...}` if the keyword is present.
    pub fn parse_optional_attr_dict_with_keyword(&mut self, out: &mut Vec<NamedAttr>) -> ParseResult<()> {
        if self.parse_optional_keyword("attributes") {
            self.parse_attr_dict_into(out)?;
        }
        Ok(())
    }

    pub(super) fn parse_attr_dict_into(&mut self, out: &mut Vec<NamedAttr>) -> ParseResult<()> {
        self.expect(TokenKind::LBrace, "'{' in attribute dictionary")?;
        if self.consume_if(TokenKind::RBrace) {
            return Ok(());
        }
        let start = out.len();
        self.parse_comma_separated(|p| {
            let key_tok = p.tok;
            let key = match p.tok.kind {
                TokenKind::BareIdent => {
                    p.advance();
                    p.lex.text(&key_tok).to_string()
                }
                TokenKind::String => {
                    p.advance();
                    p.string_value(key_tok)?
                }
                _ => return Err(p.error_here("expected attribute name")),
            };
            let name = p.ctx.sym(&key);
            if out[start..].iter().any(|a| a.name == name) {
                let loc = p.tok_loc(key_tok);
                return Err(Diagnostic::error(loc, format!("duplicate key '{key}' in dictionary attribute")));
            }
            let value = if p.consume_if(TokenKind::Equal) { p.parse_attribute()? } else { p.ctx.unit_attr() };
            out.push(NamedAttr { name, value });
            Ok(())
        })?;
        self.expect(TokenKind::RBrace, "'}' in attribute dictionary")?;
        Ok(())
    }

    pub fn parse_attribute(&mut self) -> ParseResult<Attribute> {
        match self.tok.kind {
            TokenKind::BareIdent => match self.peek_text() {
                "true" => {
                    self.advance();
                    Ok(self.ctx.bool_attr(true))
                }
                "false" => {
                    self.advance();
                    Ok(self.ctx.bool_attr(false))
                }
                "unit" => {
                    self.advance();
                    Ok(self.ctx.unit_attr())
                }
                "array" => self.parse_dense_array(),
                "dense" => self.parse_dense(),
                text if text
                    .strip_prefix('s')
                    .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit())) =>
                {
                    let v = self.parse_size()?;
                    Ok(self.ctx.i64_attr(v))
                }
                _ => {
                    let t = self.parse_type()?;
                    Ok(self.ctx.type_attr(t))
                }
            },
            // A parenthesized symbolic size, else a function type.
            TokenKind::LParen
                if crate::sym::parse_dim(&self.lex.src().as_bytes()[self.tok.start as usize..]).is_ok() =>
            {
                let v = self.parse_size()?;
                Ok(self.ctx.i64_attr(v))
            }
            TokenKind::Integer | TokenKind::Float | TokenKind::Minus => self.parse_number_attr(),
            TokenKind::String => {
                let s = self.parse_string()?;
                Ok(self.ctx.str_attr(&s))
            }
            TokenKind::LSquare => self.nested(|p| {
                p.advance();
                let mut v = Vec::new();
                p.parse_list_until(TokenKind::RSquare, "']' in array attribute", |q| {
                    v.push(q.parse_attribute()?);
                    Ok(())
                })?;
                Ok(p.ctx.array_attr(v))
            }),
            TokenKind::LBrace => self.nested(|p| {
                let mut v = Vec::new();
                p.parse_attr_dict_into(&mut v)?;
                Ok(p.ctx.dict_attr(v))
            }),
            TokenKind::AtIdent => {
                let t = self.advance();
                let s = self.symbol_text(t)?;
                Ok(self.ctx.symbol_ref_attr(&s))
            }
            TokenKind::HashIdent => self.parse_hash_attr(),
            _ => {
                let t = self.parse_type().map_err(|_| self.error_here("expected attribute value"))?;
                Ok(self.ctx.type_attr(t))
            }
        }
    }

    fn parse_hash_attr(&mut self) -> ParseResult<Attribute> {
        let t = self.advance();
        let text = &self.lex.text(&t)[1..];
        if !text.contains('.') {
            return match self.attr_aliases.get(text) {
                Some(&a) => Ok(a),
                None => {
                    let loc = self.tok_loc(t);
                    Err(Diagnostic::error(loc, format!("undefined symbol alias id '{text}'")))
                }
            };
        }
        let name = self.ctx.sym(text);
        let mut params: Vec<NamedAttr> = Vec::new();
        if self.consume_if(TokenKind::Less) {
            self.parse_list_until(TokenKind::Greater, &format!("'>' to end '#{text}'"), |p| {
                let kt = p.tok;
                if kt.kind != TokenKind::BareIdent {
                    return Err(p.error_here(format!("expected parameter name in '#{text}'")));
                }
                p.advance();
                let key = p.lex.text(&kt);
                let key = p.ctx.sym(key);
                if params.iter().any(|a| a.name == key) {
                    let loc = p.tok_loc(kt);
                    return Err(Diagnostic::error(
                        loc,
                        format!("duplicate parameter '{}' in '#{text}'", p.lex.text(&kt)),
                    ));
                }
                p.expect(TokenKind::Equal, "'=' after parameter name")?;
                let value = p.nested(|q| q.parse_attribute())?;
                params.push(NamedAttr { name: key, value });
                Ok(())
            })?;
        }
        Ok(self.ctx.attr(AttrData::Dialect { name, params }))
    }

    fn parse_number_attr(&mut self) -> ParseResult<Attribute> {
        let neg = self.consume_if(TokenKind::Minus);
        let t = self.tok;
        let loc = self.tok_loc(t);
        let is_float = match t.kind {
            TokenKind::Integer => false,
            TokenKind::Float => true,
            _ => return Err(self.error_here("expected integer or float literal")),
        };
        self.advance();
        let text = self.lex.text(&t);
        let ty = if self.consume_if(TokenKind::Colon) { Some(self.parse_type()?) } else { None };
        let elem = match ty.map(|t| self.ctx.type_data(t).clone()) {
            None => None,
            Some(TypeData::Elem(e)) => Some(e),
            Some(TypeData::Index) => None,
            Some(_) => return Err(Diagnostic::error(loc, "expected integer or float type for a number")),
        };
        let float_ty = match elem {
            Some(e) => e.is_float(),
            None => is_float && ty.is_none(),
        };
        if ty.is_some_and(|t| t == self.ctx.index_type()) && is_float {
            return Err(Diagnostic::error(loc, "floating point value not valid for 'index' type"));
        }
        if float_ty {
            let e = elem.unwrap_or(ElemType::F64);
            let mut v = if !is_float && text.starts_with("0x") {
                let bits = u64::from_str_radix(&text[2..], 16)
                    .map_err(|_| Diagnostic::error(loc, "hexadecimal float literal too large"))?;
                let width = match e {
                    ElemType::F16 | ElemType::BF16 => 16,
                    ElemType::F32 => 32,
                    _ => 64,
                };
                if width < 64 && bits >> width != 0 {
                    return Err(Diagnostic::error(
                        loc,
                        format!("hexadecimal float literal has more than the {width} bits of {}", e.name()),
                    ));
                }
                match e {
                    ElemType::F16 => half::f16::from_bits(bits as u16).to_f64(),
                    ElemType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
                    ElemType::F32 => f32::from_bits(bits as u32) as f64,
                    _ => f64::from_bits(bits),
                }
            } else {
                text.parse::<f64>().map_err(|_| Diagnostic::error(loc, "invalid float literal"))?
            };
            if neg {
                v = -v;
            }
            let v = round_to(e, v);
            let ty = self.ctx.elem_type(e);
            return Ok(self.ctx.attr(AttrData::Float { bits: v.to_bits(), ty }));
        }
        if is_float {
            return Err(Diagnostic::error(loc, "floating point value not valid for specified integer type"));
        }
        let value = self.size_int_value(t, neg)?;
        let ty = ty.unwrap_or_else(|| self.ctx.elem_type(ElemType::I64));
        // `1 : i1` stays an integer attribute (the printed form of one);
        // `true`/`false` are the boolean attributes.
        if let Some(e) = elem {
            if !int_fits(e, value) {
                return Err(Diagnostic::error(loc, format!("integer constant out of range for {e}")));
            }
        }
        Ok(self.ctx.attr(AttrData::Int { value, ty }))
    }

    fn parse_dense_array(&mut self) -> ParseResult<Attribute> {
        self.advance(); // array
        self.expect(TokenKind::Less, "'<' after 'array'")?;
        let kind = self.peek_text();
        let is_f = match (self.tok.kind, kind) {
            (TokenKind::BareIdent, "i64" | "i32" | "i8" | "i1") => false,
            (TokenKind::BareIdent, "f64" | "f32") => true,
            _ => return Err(self.error_here("expected integer or float element type in dense array")),
        };
        self.advance();
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        if self.consume_if(TokenKind::Colon) {
            self.parse_comma_separated(|p| {
                if is_f {
                    let neg = p.consume_if(TokenKind::Minus);
                    let t = p.tok;
                    let v: f64 = if t.kind == TokenKind::BareIdent && matches!(p.peek_text(), "inf" | "nan" | "NaN") {
                        if p.peek_text() == "inf" {
                            f64::INFINITY
                        } else {
                            f64::NAN
                        }
                    } else if matches!(t.kind, TokenKind::Integer | TokenKind::Float) {
                        p.lex.text(&t).parse().map_err(|_| p.error_here("invalid float literal"))?
                    } else {
                        return Err(p.error_here("expected float value"));
                    };
                    p.advance();
                    floats.push(if neg { -v } else { v }.to_bits());
                } else {
                    ints.push(p.parse_size()?);
                }
                Ok(())
            })?;
        }
        self.expect(TokenKind::Greater, "'>' to end dense array")?;
        Ok(if is_f { self.ctx.attr(AttrData::F64Array(floats)) } else { self.ctx.i64_list_attr(&ints) })
    }

    fn parse_dense(&mut self) -> ParseResult<Attribute> {
        self.advance(); // dense
        let lt = self.tok;
        self.expect(TokenKind::Less, "'<' after 'dense'")?;
        // Read the literal as a nested list first; its shape is checked against the type.
        let mut elems: Vec<(bool, bool, f64, i64, Token)> = Vec::new(); // (is_float, is_bool, f, i, tok)
        let mut shape: Vec<i64> = Vec::new();
        let is_splat = self.tok.kind != TokenKind::LSquare;
        if is_splat {
            elems.push(self.parse_dense_elem()?);
        } else {
            shape = self.parse_dense_list(&mut elems)?;
        }
        self.expect(TokenKind::Greater, "'>' to end dense literal")?;
        self.expect(TokenKind::Colon, "':' and tensor type after dense literal")?;
        let tt = self.tok;
        let ty = self.parse_type()?;
        let Some(tensor) = self.ctx.as_tensor(ty).cloned() else {
            let loc = self.tok_loc(tt);
            return Err(Diagnostic::error(loc, "dense elements literal requires a tensor type"));
        };
        if !is_splat && shape[..] != tensor.shape[..] {
            let loc = self.tok_loc(lt);
            return Err(Diagnostic::error(
                loc,
                format!(
                    "inferred shape of elements literal ({shape:?}) does not match type ({:?})",
                    tensor.shape.to_vec()
                ),
            ));
        }
        let e = tensor.elem;
        for &(is_f, is_b, _, _, t) in &elems {
            if e.is_int() && is_f {
                let loc = self.tok_loc(t);
                return Err(Diagnostic::error(loc, format!("expected integer elements for {e}, got a float")));
            }
            if is_b && !e.is_bool() {
                let loc = self.tok_loc(t);
                return Err(Diagnostic::error(loc, format!("boolean value in a dense literal of {e}")));
            }
        }
        let data = if e.is_float() {
            let vals: Vec<u64> = elems
                .iter()
                .map(|&(is_f, _, f, i, _)| round_to(e, if is_f { f } else { i as f64 }).to_bits())
                .collect();
            if is_splat {
                DenseData::SplatFloat(vals[0])
            } else {
                DenseData::Floats(vals)
            }
        } else {
            let vals: Vec<i64> = elems.iter().map(|x| x.3).collect();
            for (&(.., t), &v) in elems.iter().zip(&vals) {
                if !int_fits(e, v) {
                    let loc = self.tok_loc(t);
                    return Err(Diagnostic::error(loc, format!("integer constant out of range for {e}")));
                }
            }
            if is_splat {
                DenseData::SplatInt(vals[0])
            } else {
                DenseData::Ints(vals)
            }
        };
        Ok(self.ctx.dense_attr(ty, data))
    }

    fn parse_dense_elem(&mut self) -> ParseResult<(bool, bool, f64, i64, Token)> {
        let t = self.tok;
        if t.kind == TokenKind::BareIdent && matches!(self.peek_text(), "true" | "false") {
            let b = self.peek_text() == "true";
            self.advance();
            return Ok((false, true, b as i64 as f64, b as i64, t));
        }
        let neg = self.consume_if(TokenKind::Minus);
        let t = self.tok;
        match t.kind {
            TokenKind::Integer => {
                self.advance();
                let v = self.int_value(t, neg)?;
                Ok((false, false, v as f64, v, t))
            }
            TokenKind::Float => {
                self.advance();
                let v: f64 = self.lex.text(&t).parse().map_err(|_| self.error_here("invalid float literal"))?;
                let v = if neg { -v } else { v };
                Ok((true, false, v, v as i64, t))
            }
            TokenKind::BareIdent if matches!(self.peek_text(), "inf" | "nan" | "NaN") => {
                let v = if self.peek_text() == "inf" { f64::INFINITY } else { f64::NAN };
                self.advance();
                let v = if neg { -v } else { v };
                Ok((true, false, v, 0, t))
            }
            _ => Err(self.error_here("expected element literal of primitive type")),
        }
    }

    /// Parses a nested list literal, returning its shape; sibling lists must agree.
    fn parse_dense_list(&mut self, out: &mut Vec<(bool, bool, f64, i64, Token)>) -> ParseResult<Vec<i64>> {
        self.expect(TokenKind::LSquare, "'['")?;
        let mut child: Option<Vec<i64>> = None;
        let mut count = 0i64;
        self.parse_list_until(TokenKind::RSquare, "']'", |p| {
            let here = p.tok;
            let s = if p.tok.kind == TokenKind::LSquare {
                p.nested(|q| q.parse_dense_list(out))?
            } else {
                out.push(p.parse_dense_elem()?);
                Vec::new()
            };
            match &child {
                None => child = Some(s),
                Some(c) if *c != s => {
                    let loc = p.tok_loc(here);
                    return Err(Diagnostic::error(
                        loc,
                        "tensor literal is invalid; ranks are not consistent between elements",
                    ));
                }
                Some(_) => {}
            }
            count += 1;
            Ok(())
        })?;
        let mut shape = vec![count];
        shape.extend(child.unwrap_or_default());
        Ok(shape)
    }
}

/// Rounds `v` to the precision of float type `e` (f32 only; other widths keep f64).
pub fn round_to(e: ElemType, v: f64) -> f64 {
    match e {
        ElemType::F32 => v as f32 as f64,
        _ => v,
    }
}

fn int_fits(e: ElemType, v: i64) -> bool {
    match e {
        ElemType::I32 => i32::try_from(v).is_ok(),
        ElemType::I8 => i8::try_from(v).is_ok(),
        ElemType::I1 => v == 0 || v == 1,
        _ => true,
    }
}
