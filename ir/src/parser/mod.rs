//! The parser for MLIR's textual syntax.
//!
//! A recursive-descent parser with one token of lookahead that builds IR
//! directly into a [`Context`]. It accepts the generic op form for every op
//! and dispatches to an op's custom parser (from its [`OpDef`]) when the op
//! name is written bare. Value names are resolved through a stack of scopes,
//! one per region; a region of an `IsolatedFromAbove` op cannot see outer
//! names. A use before its definition creates a placeholder that the
//! definition later replaces (dominance is the verifier's business); a name
//! never defined is an error at its first use.
//!
//! The parser stops at the first error and returns it as a located
//! [`Diagnostic`]; it never panics on malformed input.
//!
//! This file holds the [`Parser`] itself, the entry points, the token
//! plumbing every sub-module shares (lookahead, `expect`, error placement),
//! the list helpers and the scalar literals (keywords, strings, integers,
//! symbol names). The grammar is split by construct, each sub-module adding
//! an `impl Parser` block: `ops` (top level and operations), `values` (SSA
//! names and their scopes), `regions` (regions, blocks, arguments), `types`,
//! `attributes` (including dense literals) and `locations`.
//!
//! Invariants every sub-module relies on: `tok` is the one token of
//! lookahead and `prev` the last token consumed (error placement depends on
//! it), so tokens are consumed through `advance`; the two places that rewind
//! the lexer (the tensor-type cache and the `(T) -> U` backtrack of
//! `parse_function_result_types`) restore `tok` with it. Every recursive
//! construct goes through `nested`, so `depth` bounds the recursion. Every
//! comma-separated list goes through [`Parser::parse_comma_separated`]
//! (directly or via [`Parser::parse_list_until`]); what an element may be,
//! and the error when it is missing, belong to the element callback.

mod attributes;
mod locations;
mod ops;
mod regions;
mod types;
mod values;

pub use attributes::round_to;

use crate::attributes::NamedAttr;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::lexer::{unescape, Lexer, Token, TokenKind};
use crate::location::LocData;
use crate::registry::OpDef;
use crate::size::{Limit, Limits};
use rustc_hash::FxHashMap;
use values::Scope;

pub type ParseResult<T> = Result<T, Diagnostic>;

/// The name of the top-level container op.
pub const MODULE_OP: &str = "builtin.module";

/// An operand reference that has been read but not yet given a type.
#[derive(Copy, Clone, Debug)]
pub struct UnresolvedOperand<'src> {
    pub name: &'src str,
    pub number: u32,
    pub loc: Location,
}

/// A function-style argument `%x: type {attrs}`.
#[derive(Clone, Debug)]
pub struct Argument<'src> {
    pub name: &'src str,
    pub ty: Type,
    pub attrs: Vec<NamedAttr>,
    pub loc: Location,
}

/// Options for one parse.
#[derive(Clone, Debug)]
pub struct ParseOptions {
    /// The file name used in locations.
    pub file: String,
    /// Line number of the first line of the text (for split files).
    pub first_line: u32,
}

/// The parser. Custom op parsers receive it and use its public methods.
pub struct Parser<'a, 'src> {
    ctx: &'a mut Context,
    lex: Lexer<'src>,
    tok: Token,
    /// The token consumed last (where "expected ..." errors go when the
    /// current token is already on a later line).
    prev: Option<Token>,
    file: Symbol,
    scopes: Vec<Scope<'src>>,
    type_aliases: FxHashMap<&'src str, Type>,
    attr_aliases: FxHashMap<&'src str, Attribute>,
    /// Definitions of the ops whose regions are being parsed (innermost last).
    op_stack: Vec<&'static OpDef>,
    tensor_cache: FxHashMap<&'src str, Type>,
    /// Open regions, bracketed attributes, dense lists, function types and
    /// nested locations around the current token.
    depth: usize,
    /// [`Limits::max_nesting`] when the parse began.
    max_depth: usize,
}

/// Parses a whole buffer into a `builtin.module` (wrapping top-level ops in
/// an implicit module unless the buffer is exactly one module).
pub fn parse_module(ctx: &mut Context, src: &str, opts: &ParseOptions) -> ParseResult<Op> {
    let mut p = Parser::new(ctx, src, opts);
    p.parse_top_level()
}

/// Parses a single type from a string (for tools and tests).
pub fn parse_type_str(ctx: &mut Context, src: &str) -> ParseResult<Type> {
    let opts = ParseOptions { file: "<type>".into(), first_line: 1 };
    let mut p = Parser::new(ctx, src, &opts);
    let t = p.parse_type()?;
    p.expect(TokenKind::Eof, "end of type")?;
    Ok(t)
}

/// Parses a single attribute from a string (for tools and tests).
pub fn parse_attr_str(ctx: &mut Context, src: &str) -> ParseResult<Attribute> {
    let opts = ParseOptions { file: "<attribute>".into(), first_line: 1 };
    let mut p = Parser::new(ctx, src, &opts);
    let a = p.parse_attribute()?;
    p.expect(TokenKind::Eof, "end of attribute")?;
    Ok(a)
}

impl<'a, 'src> Parser<'a, 'src> {
    fn new(ctx: &'a mut Context, src: &'src str, opts: &ParseOptions) -> Self {
        let mut lex = Lexer::new(src, opts.first_line);
        let tok = lex.next_token();
        let file = ctx.sym(&opts.file);
        Parser {
            ctx,
            lex,
            tok,
            prev: None,
            file,
            scopes: vec![Scope { isolated: true, ..Default::default() }],
            type_aliases: FxHashMap::default(),
            attr_aliases: FxHashMap::default(),
            op_stack: Vec::new(),
            tensor_cache: FxHashMap::default(),
            depth: 0,
            max_depth: Limits::max_nesting(),
        }
    }

    /// Runs `f` one nesting level deeper. Every recursive construct of the
    /// grammar goes through here, so the parser's stack depth (and that of
    /// the verifier, printer and passes on what it builds) is bounded by the
    /// limit instead of by the input.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> ParseResult<T>) -> ParseResult<T> {
        if self.depth >= self.max_depth {
            let loc = self.current_loc();
            return Err(Diagnostic::error(
                loc,
                format!("nesting deeper than {} (raise the limit with {})", self.max_depth, Limit::Nesting.env_var()),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    // ----- token plumbing (public for custom parsers) -----

    pub fn ctx(&mut self) -> &mut Context {
        self.ctx
    }

    pub fn peek(&self) -> TokenKind {
        self.tok.kind
    }

    /// The text of the current token.
    pub fn peek_text(&self) -> &'src str {
        self.lex.text(&self.tok)
    }

    fn advance(&mut self) -> Token {
        let t = self.tok;
        self.prev = Some(t);
        self.tok = self.lex.next_token();
        t
    }

    /// "expected ..." at the current token or, when that token is on a later
    /// line than the previous one, just after the previous token, as MLIR
    /// reports it: what is missing belongs to the end of the earlier line.
    fn error_expected(&mut self, msg: String) -> Diagnostic {
        match self.prev {
            Some(p) if self.tok.line > p.line && !matches!(self.tok.kind, TokenKind::Error | TokenKind::BadString) => {
                let file = self.file;
                let col = p.col + (p.end - p.start);
                let loc = self.ctx.loc(LocData::FileLineCol { file, line: p.line, col });
                Diagnostic::error(loc, msg)
            }
            _ => self.error_here(msg),
        }
    }

    fn tok_loc(&mut self, t: Token) -> Location {
        let file = self.file;
        self.ctx.loc(LocData::FileLineCol { file, line: t.line, col: t.col })
    }

    /// The location of the current token.
    pub fn current_loc(&mut self) -> Location {
        let t = self.tok;
        self.tok_loc(t)
    }

    /// An error at the current token.
    pub fn error_here(&mut self, msg: impl Into<String>) -> Diagnostic {
        let loc = self.current_loc();
        let mut msg = msg.into();
        if self.tok.kind == TokenKind::Error {
            msg = format!("unexpected character '{}'", self.peek_text());
        } else if self.tok.kind == TokenKind::BadString {
            msg = "expected '\"' in string literal".into();
        }
        Diagnostic::error(loc, msg)
    }

    pub fn consume_if(&mut self, kind: TokenKind) -> bool {
        if self.tok.kind == kind {
            self.advance();
            true
        } else {
            false
        }
    }

    /// Consumes a token of `kind` or fails with "expected WHAT".
    pub fn expect(&mut self, kind: TokenKind, what: &str) -> ParseResult<Token> {
        if self.tok.kind == kind {
            Ok(self.advance())
        } else {
            Err(self.error_expected(format!("expected {what}")))
        }
    }

    /// `element (',' element)*`: MLIR's `parseCommaSeparatedList` without
    /// delimiters, so at least one element. Every list of the syntax goes
    /// through here or [`Self::parse_list_until`].
    pub fn parse_comma_separated(&mut self, mut element: impl FnMut(&mut Self) -> ParseResult<()>) -> ParseResult<()> {
        loop {
            element(self)?;
            if !self.consume_if(TokenKind::Comma) {
                return Ok(());
            }
        }
    }

    /// The rest of a delimited list whose opening token was consumed:
    /// `close` at once (an empty list), or `element (',' element)* close`;
    /// `close_what` names `close` in the error when it is missing.
    pub fn parse_list_until(
        &mut self,
        close: TokenKind,
        close_what: &str,
        element: impl FnMut(&mut Self) -> ParseResult<()>,
    ) -> ParseResult<()> {
        if self.consume_if(close) {
            return Ok(());
        }
        self.parse_comma_separated(element)?;
        self.expect(close, close_what)?;
        Ok(())
    }

    pub fn parse_optional_keyword(&mut self, kw: &str) -> bool {
        if self.tok.kind == TokenKind::BareIdent && self.peek_text() == kw {
            self.advance();
            true
        } else {
            false
        }
    }

    pub fn parse_keyword(&mut self, kw: &str) -> ParseResult<()> {
        if self.parse_optional_keyword(kw) {
            Ok(())
        } else {
            Err(self.error_here(format!("expected '{kw}'")))
        }
    }

    /// Parses `@name` and returns the name.
    pub fn parse_symbol_name(&mut self) -> ParseResult<String> {
        let t = self.expect(TokenKind::AtIdent, "symbol name")?;
        self.symbol_text(t)
    }

    fn symbol_text(&mut self, t: Token) -> ParseResult<String> {
        let text = &self.lex.text(&t)[1..];
        if let Some(body) = text.strip_prefix('"') {
            let body = &body[..body.len() - 1];
            unescape(body).map_err(|e| {
                let loc = self.tok_loc(t);
                Diagnostic::error(loc, e)
            })
        } else {
            Ok(text.to_string())
        }
    }

    fn string_value(&mut self, t: Token) -> ParseResult<String> {
        let text = self.lex.text(&t);
        unescape(&text[1..text.len() - 1]).map_err(|e| {
            let loc = self.tok_loc(t);
            Diagnostic::error(loc, e)
        })
    }

    pub fn parse_string(&mut self) -> ParseResult<String> {
        let t = self.expect(TokenKind::String, "string literal")?;
        self.string_value(t)
    }

    /// Parses an integer literal with an optional leading `-`.
    pub fn parse_integer(&mut self) -> ParseResult<i64> {
        let neg = self.consume_if(TokenKind::Minus);
        if self.tok.kind != TokenKind::Integer {
            return Err(self.error_here("expected integer value"));
        }
        let t = self.advance();
        self.size_int_value(t, neg)
    }

    /// A size: an integer, or a symbolic size as a shape writes it (`s0`,
    /// `(s0*4 + 1)`; see [`crate::sym`]), read from the source text because
    /// an expression spans several tokens. It must sit on one line.
    pub fn parse_size(&mut self) -> ParseResult<i64> {
        let t = self.tok;
        let text = self.lex.text(&t);
        let symbol = t.kind == TokenKind::BareIdent
            && text.strip_prefix('s').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        if !symbol && t.kind != TokenKind::LParen {
            return self.parse_integer();
        }
        let start = t.start as usize;
        let parsed = crate::sym::parse_dim(&self.lex.src().as_bytes()[start..]);
        let (v, n) = parsed.map_err(|m| Diagnostic::error(self.tok_loc(t), format!("invalid size: {m}")))?;
        let line_start = start + 1 - t.col as usize;
        self.lex.reset_to(start + n, t.line, line_start);
        self.advance();
        Ok(v)
    }

    pub(crate) fn int_value(&mut self, t: Token, neg: bool) -> ParseResult<i64> {
        let text = self.lex.text(&t);
        let parsed = if let Some(hex) = text.strip_prefix("0x") {
            u64::from_str_radix(hex, 16).ok().map(|v| v as i64)
        } else if neg {
            format!("-{text}").parse::<i64>().ok()
        } else {
            text.parse::<i64>().ok()
        };
        parsed.ok_or_else(|| {
            let loc = self.tok_loc(t);
            Diagnostic::error(loc, "integer value too large")
        })
    }

    /// [`Parser::int_value`] where the integer may be read as a size (an
    /// attribute, not tensor data).
    pub(crate) fn size_int_value(&mut self, t: Token, neg: bool) -> ParseResult<i64> {
        let v = self.int_value(t, neg)?;
        // The values that name symbolic sizes are written as expressions,
        // never as numbers: a number there would alias whatever expression
        // this process interned under it.
        if crate::sym::is_reserved(v) {
            let loc = self.tok_loc(t);
            return Err(Diagnostic::error(
                loc,
                format!(
                    "integer value {v} is reserved (it would name a symbolic size; write sizes as s0, (s0*2), ...)"
                ),
            ));
        }
        Ok(v)
    }
}
