//! Regions, blocks and block or function arguments.
//!
//! Each region opens a scope (isolated when the op being parsed is
//! `IsolatedFromAbove`) and goes through `nested`, so region depth is
//! bounded. Entry arguments handed in by a custom parser become the entry
//! block's arguments, which is why a region with them cannot also name its
//! entry block.

use super::values::Scope;
use super::{Argument, ParseResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::lexer::{Token, TokenKind};
use crate::registry::Traits;
use smallvec::SmallVec;

impl<'a, 'src> Parser<'a, 'src> {
    /// A new region with no blocks (for ops whose region is absent in the custom form).
    pub fn parse_empty_region(&mut self) -> Region {
        self.ctx.create_region_raw()
    }

    /// Gives an empty region one empty block (for single-block ops written `{}`).
    pub fn ensure_block(&mut self, region: Region) {
        if self.ctx.region_blocks(region).is_empty() {
            let b = self.ctx.create_block_raw(&[]);
            self.ctx.append_block_raw(region, b);
        }
    }

    /// [`Parser::parse_region`] for a single-block region whose terminator
    /// may be left out: when the block does not end with a terminator, an
    /// operand-less `terminator` op is appended.
    pub fn parse_region_implicit_terminator(
        &mut self,
        entry_args: &[Argument<'src>],
        terminator: &str,
    ) -> ParseResult<Region> {
        let loc = self.current_loc();
        let region = self.parse_region(entry_args)?;
        self.ensure_block(region);
        let blocks = self.ctx.region_blocks(region).to_vec();
        if blocks.len() != 1 {
            return Err(Diagnostic::error(loc, "expected a region with a single block"));
        }
        let b = blocks[0];
        let ends = self.ctx.block_ops(b).last().is_some_and(|o| self.ctx.has_trait(o, Traits::TERMINATOR));
        if !ends {
            let name = self.ctx.op_name_id(terminator);
            let op = self.ctx.create_op_raw(name, &[], &[], SmallVec::new(), SmallVec::new(), loc);
            self.ctx.link_op(op, b, None);
        }
        Ok(region)
    }

    /// Parses `{ ... }` into a new region. `entry_args` (from a custom
    /// parser, e.g. a function signature) become the entry block's arguments.
    pub fn parse_region(&mut self, entry_args: &[Argument<'src>]) -> ParseResult<Region> {
        self.nested(|p| p.parse_region_nested(entry_args))
    }

    fn parse_region_nested(&mut self, entry_args: &[Argument<'src>]) -> ParseResult<Region> {
        self.expect(TokenKind::LBrace, "'{' to begin a region")?;
        let isolated = self.op_stack.last().is_some_and(|d| d.has(Traits::ISOLATED_FROM_ABOVE));
        self.scopes.push(Scope { isolated, ..Default::default() });
        let region = self.ctx.create_region_raw();
        let r = self.parse_region_body(region, entry_args);
        let scope = self.scopes.pop().expect("scope");
        r?;
        if isolated {
            self.report_unresolved(scope)?;
        } else {
            // Unresolved names may be defined later in the enclosing region.
            let parent = self.scopes.last_mut().expect("scope");
            for (k, v) in scope.forward {
                parent.forward.entry(k).or_insert(v);
            }
        }
        Ok(region)
    }

    fn parse_region_body(&mut self, region: Region, entry_args: &[Argument<'src>]) -> ParseResult<()> {
        if self.consume_if(TokenKind::RBrace) {
            if !entry_args.is_empty() {
                // A function declaration never has a body; an explicit empty
                // region with arguments gets its entry block.
                let b = self.new_block_with_args(entry_args)?;
                self.ctx.append_block_raw(region, b);
            }
            return Ok(());
        }
        let mut block = if self.tok.kind == TokenKind::CaretIdent {
            if !entry_args.is_empty() {
                return Err(self.error_here("invalid block name in region with named arguments"));
            }
            self.parse_block_header()?
        } else {
            self.new_block_with_args(entry_args)?
        };
        self.ctx.append_block_raw(region, block);
        loop {
            match self.tok.kind {
                TokenKind::RBrace => {
                    self.advance();
                    return Ok(());
                }
                TokenKind::CaretIdent => {
                    block = self.parse_block_header()?;
                    self.ctx.append_block_raw(region, block);
                }
                TokenKind::Eof => return Err(self.error_here("expected '}' to end region")),
                _ => {
                    self.parse_operation(block)?;
                }
            }
        }
    }

    fn new_block_with_args(&mut self, args: &[Argument<'src>]) -> ParseResult<Block> {
        let types: SmallVec<[Type; 4]> = args.iter().map(|a| a.ty).collect();
        let b = self.ctx.create_block_raw(&types);
        for (i, a) in args.iter().enumerate() {
            let v = self.ctx.block_args(b)[i];
            let t = Token { kind: TokenKind::PercentIdent, start: 0, end: 0, line: 0, col: 0 };
            self.define_arg(a.name, v, a.loc, t)?;
        }
        Ok(b)
    }

    fn parse_block_header(&mut self) -> ParseResult<Block> {
        self.expect(TokenKind::CaretIdent, "block name")?;
        let mut args = Vec::new();
        if self.consume_if(TokenKind::LParen) {
            self.parse_list_until(TokenKind::RParen, "')' to end block argument list", |p| {
                let t = p.expect(TokenKind::PercentIdent, "block argument name")?;
                let name = &p.lex.text(&t)[1..];
                let loc = p.tok_loc(t);
                p.expect(TokenKind::Colon, "':' and type for block argument")?;
                let ty = p.parse_type()?;
                if p.tok.kind == TokenKind::BareIdent && p.peek_text() == "loc" {
                    p.parse_location()?;
                }
                args.push(Argument { name, ty, attrs: Vec::new(), loc });
                Ok(())
            })?;
        }
        self.expect(TokenKind::Colon, "':' after block name")?;
        self.new_block_with_args(&args)
    }

    /// Parses `%name: type {attrs}?`.
    pub fn parse_argument(&mut self) -> ParseResult<Argument<'src>> {
        let t = self.expect(TokenKind::PercentIdent, "SSA identifier")?;
        let name = &self.lex.text(&t)[1..];
        let loc = self.tok_loc(t);
        self.expect(TokenKind::Colon, "':'")?;
        let ty = self.parse_type()?;
        let mut attrs = Vec::new();
        self.parse_optional_attr_dict(&mut attrs)?;
        if self.tok.kind == TokenKind::BareIdent && self.peek_text() == "loc" {
            self.parse_location()?;
        }
        Ok(Argument { name, ty, attrs, loc })
    }
}
