//! Types: element types, `index`, `none`, function types, tensors,
//! memrefs (with an optional strided layout) and `!alias` references.
//!
//! Every tensor or memref type is checked by the verifier's type check
//! before it is returned, so nothing downstream sees a rank, element count
//! or byte size it cannot handle. The tensor cache maps the raw text between
//! `<` and `>` to its type; only single-line, comment-free bodies are cached,
//! because a cache hit skips the lexer and must leave `tok` and `prev` as
//! lexing would have.

use super::{ParseResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::lexer::{Token, TokenKind};
use crate::types::{ElemType, MemRefType, Shape, TensorType, TypeData};
use smallvec::SmallVec;

impl<'a, 'src> Parser<'a, 'src> {
    pub fn parse_type(&mut self) -> ParseResult<Type> {
        match self.tok.kind {
            TokenKind::BareIdent => {
                let t = self.tok;
                let text = self.peek_text();
                if let Some(e) = ElemType::from_name(text) {
                    self.advance();
                    return Ok(self.ctx.elem_type(e));
                }
                match text {
                    "index" => {
                        self.advance();
                        Ok(self.ctx.index_type())
                    }
                    "none" => {
                        self.advance();
                        Ok(self.ctx.none_type())
                    }
                    "tensor" => self.parse_tensor_type(),
                    "memref" => self.parse_memref_type(),
                    _ => {
                        let loc = self.tok_loc(t);
                        if text.starts_with('i') && text[1..].chars().all(|c| c.is_ascii_digit()) && text.len() > 1 {
                            Err(Diagnostic::error(
                                loc,
                                format!("unsupported integer type '{text}' (supported: i1, i8, i32, i64)"),
                            ))
                        } else {
                            Err(Diagnostic::error(loc, format!("unknown type '{text}'")))
                        }
                    }
                }
            }
            TokenKind::LParen => self.nested(|p| p.parse_function_type()),
            TokenKind::BangIdent if self.peek_text() == "!aot.subclass" => self.parse_subclass_type(),
            TokenKind::BangIdent => {
                let t = self.advance();
                let name = &self.lex.text(&t)[1..];
                match self.type_aliases.get(name) {
                    Some(&ty) => Ok(ty),
                    None => {
                        let loc = self.tok_loc(t);
                        Err(Diagnostic::error(loc, format!("undefined symbol alias id '{name}'")))
                    }
                }
            }
            _ => Err(self.error_here("expected non-function type")),
        }
    }

    /// `!aot.subclass<@Class, tensor<...>>`, from its keyword.
    fn parse_subclass_type(&mut self) -> ParseResult<Type> {
        let kw = self.advance();
        self.expect(TokenKind::Less, "'<' in subclass type")?;
        if self.tok.kind != TokenKind::AtIdent {
            return Err(self.error_here("expected the subclass's symbol (@Name) in subclass type"));
        }
        let class = self.parse_symbol_name()?;
        self.expect(TokenKind::Comma, "',' in subclass type")?;
        let inner = self.parse_type()?;
        let Some(tensor) = self.ctx.type_data(inner).as_tensor().cloned() else {
            return Err(self.error_here("expected the outer tensor type in subclass type"));
        };
        if self.ctx.type_data(inner).as_subclass().is_some() {
            return Err(self.error_here("the outer type of a subclass type is a tensor type, not a subclass"));
        }
        self.expect(TokenKind::Greater, "'>' in subclass type")?;
        self.intern_shaped(kw, TypeData::Subclass(crate::types::SubclassType { class, tensor }))
    }

    /// `(inputs) -> results`, from its `(`.
    fn parse_function_type(&mut self) -> ParseResult<Type> {
        self.advance();
        let mut inputs = Vec::new();
        self.parse_list_until(TokenKind::RParen, "')' in function type", |p| {
            inputs.push(p.parse_type()?);
            Ok(())
        })?;
        self.expect(TokenKind::Arrow, "'->' in function type")?;
        let results = self.parse_function_result_types()?.into_vec();
        Ok(self.ctx.intern_type(TypeData::Function { inputs, results }))
    }

    /// Reads `<dims elem` after a shaped-type keyword; leaves the current
    /// token at whatever follows the element type.
    fn parse_shape_and_elem(&mut self) -> ParseResult<(Shape, ElemType)> {
        if self.tok.kind != TokenKind::Less {
            return Err(self.error_here("expected '<' in shaped type"));
        }
        // The lexer is positioned just after '<': scan the dims raw.
        let dims = match self.lex.lex_dims() {
            Ok(dims) => dims,
            Err(m) => {
                self.advance();
                return Err(self.error_here(format!("invalid dimension: {m}")));
            }
        };
        self.advance();
        if self.tok.kind != TokenKind::BareIdent {
            return Err(self.error_here("expected element type in shaped type"));
        }
        let et = self.tok;
        let text = self.peek_text();
        let Some(elem) = ElemType::from_name(text) else {
            let loc = self.tok_loc(et);
            return Err(Diagnostic::error(loc, format!("invalid element type '{text}'")));
        };
        self.advance();
        Ok((dims, elem))
    }

    /// Interns a tensor or memref type after checking its shape, so no
    /// later layer sees a rank, element count or byte size it cannot handle.
    fn intern_shaped(&mut self, kw: Token, data: TypeData) -> ParseResult<Type> {
        let t = self.ctx.intern_type(data);
        crate::verifier::check_type(self.ctx, t).map_err(|m| {
            let loc = self.tok_loc(kw);
            Diagnostic::error(loc, m)
        })?;
        Ok(t)
    }

    fn parse_tensor_type(&mut self) -> ParseResult<Type> {
        let kw = self.advance(); // `tensor`
                                 // The same tensor type is spelled many times in a module, and the
                                 // text between `<` and `>` identifies it: a cache hit skips lexing.
        if self.tok.kind == TokenKind::Less {
            let (pos, line, ls) = self.lex.state();
            let rest = &self.lex.src()[pos..];
            if let Some(end) = rest.find('>') {
                let body = &rest[..end];
                if let Some(&t) = self.tensor_cache.get(body) {
                    self.lex.reset_to(pos + end + 1, line, ls);
                    self.advance();
                    // The consumed `>` (a cached body is on one line).
                    let at = (pos + end) as u32;
                    let col = (pos + end - ls + 1) as u32;
                    self.prev = Some(Token { kind: TokenKind::Greater, start: at, end: at + 1, line, col });
                    return Ok(t);
                }
                let (shape, elem) = self.parse_shape_and_elem()?;
                self.expect(TokenKind::Greater, "'>' in tensor type")?;
                let t = self.intern_shaped(kw, TypeData::Tensor(TensorType { shape, elem }))?;
                if !body.contains('\n') && !body.contains('/') {
                    self.tensor_cache.insert(body, t);
                }
                return Ok(t);
            }
        }
        let (shape, elem) = self.parse_shape_and_elem()?;
        self.expect(TokenKind::Greater, "'>' in tensor type")?;
        self.intern_shaped(kw, TypeData::Tensor(TensorType { shape, elem }))
    }

    fn parse_memref_type(&mut self) -> ParseResult<Type> {
        let kw = self.advance(); // `memref`
        let (shape, elem) = self.parse_shape_and_elem()?;
        let mut layout = None;
        if self.consume_if(TokenKind::Comma) {
            self.parse_keyword("strided")?;
            self.expect(TokenKind::Less, "'<' in strided layout")?;
            self.expect(TokenKind::LSquare, "'[' in strided layout")?;
            let mut strides = Shape::new();
            self.parse_list_until(TokenKind::RSquare, "']' in strided layout", |p| {
                strides.push(p.parse_size()?);
                Ok(())
            })?;
            let mut offset = 0;
            if self.consume_if(TokenKind::Comma) {
                self.parse_keyword("offset")?;
                self.expect(TokenKind::Colon, "':' after 'offset'")?;
                offset = self.parse_size()?;
            }
            self.expect(TokenKind::Greater, "'>' in strided layout")?;
            if strides.len() != shape.len() {
                return Err(self.error_here("expected one stride per dimension in strided layout"));
            }
            layout = Some((strides, offset));
        }
        self.expect(TokenKind::Greater, "'>' in memref type")?;
        self.intern_shaped(kw, TypeData::MemRef(MemRefType { shape, elem, layout }))
    }

    /// After `->`: a single type or a parenthesized list.
    pub fn parse_function_result_types(&mut self) -> ParseResult<SmallVec<[Type; 2]>> {
        if self.tok.kind == TokenKind::LParen {
            // Could be `(T, U)` results or a function type `(T) -> U` as a single result.
            let save = (self.lex.state(), self.tok);
            self.advance();
            let mut out = SmallVec::new();
            self.parse_list_until(TokenKind::RParen, "')' to end result types", |p| {
                out.push(p.parse_type()?);
                Ok(())
            })?;
            if self.tok.kind == TokenKind::Arrow {
                let ((pos, line, ls), tok) = save;
                self.lex.reset_to(pos, line, ls);
                self.tok = tok;
                return Ok(smallvec::smallvec![self.parse_type()?]);
            }
            Ok(out)
        } else {
            Ok(smallvec::smallvec![self.parse_type()?])
        }
    }
}
