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

use crate::attributes::{AttrData, DenseData, NamedAttr};
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::lexer::{unescape, Lexer, Token, TokenKind};
use crate::location::LocData;
use crate::registry::{OpDef, Syntax, Traits};
use crate::rewriter::OperationState;
use crate::size::{Limit, Limits};
use crate::types::{ElemType, MemRefType, Shape, TensorType, TypeData};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

pub type ParseResult<T> = Result<T, Diagnostic>;

/// The name of the top-level container op.
pub const MODULE_OP: &str = "builtin.module";
const PLACEHOLDER_OP: &str = "builtin.unresolved_forward_reference";

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

struct Definition {
    values: SmallVec<[Value; 1]>,
}

#[derive(Default)]
struct Scope<'src> {
    isolated: bool,
    defs: FxHashMap<&'src str, Definition>,
    /// Uses seen before their definition: (name, result number) → (placeholder, first use).
    forward: FxHashMap<(&'src str, u32), (Value, Location)>,
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
        self.int_value(t, neg)
    }

    fn int_value(&mut self, t: Token, neg: bool) -> ParseResult<i64> {
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

    // ----- top level -----

    fn parse_top_level(&mut self) -> ParseResult<Op> {
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

    fn finish_scope_isolated(&mut self) -> ParseResult<()> {
        let scope = self.scopes.pop().expect("scope stack underflow");
        self.report_unresolved(scope)
    }

    fn report_unresolved(&mut self, scope: Scope<'src>) -> ParseResult<()> {
        if let Some(((name, num), (_, loc))) = scope.forward.into_iter().min_by_key(|(_, (v, _))| *v) {
            let shown = if num == 0 { name.to_string() } else { format!("{name}#{num}") };
            return Err(Diagnostic::error(loc, format!("use of undeclared SSA value name '%{shown}'")));
        }
        Ok(())
    }

    // ----- operations -----

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
        // Bind results.
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

    fn parse_trailing_loc(&mut self, op: Op) -> ParseResult<()> {
        if self.tok.kind == TokenKind::BareIdent && self.peek_text() == "loc" {
            let l = self.parse_location()?;
            self.ctx.set_loc_raw(op, l);
        }
        Ok(())
    }

    /// Parses `loc(...)`.
    pub fn parse_location(&mut self) -> ParseResult<Location> {
        self.parse_keyword("loc")?;
        self.expect(TokenKind::LParen, "'(' in location")?;
        let l = self.parse_location_body()?;
        self.expect(TokenKind::RParen, "')' in location")?;
        Ok(l)
    }

    fn parse_location_body(&mut self) -> ParseResult<Location> {
        if self.parse_optional_keyword("unknown") {
            return Ok(self.ctx.unknown_loc());
        }
        if self.parse_optional_keyword("fused") {
            self.expect(TokenKind::LSquare, "'[' in fused location")?;
            let mut locs = Vec::new();
            self.parse_list_until(TokenKind::RSquare, "']' in fused location", |p| {
                locs.push(p.nested(|q| q.parse_location_body())?);
                Ok(())
            })?;
            return Ok(self.ctx.loc(LocData::Fused(locs)));
        }
        let s = self.parse_string()?;
        if self.consume_if(TokenKind::Colon) {
            let line = self.parse_integer()?;
            self.expect(TokenKind::Colon, "':' in file location")?;
            let col = self.parse_integer()?;
            if !(0..=u32::MAX as i64).contains(&line) || !(0..=u32::MAX as i64).contains(&col) {
                return Err(self.error_here("location line or column out of range"));
            }
            return Ok(self.ctx.file_loc(&s, line as u32, col as u32));
        }
        let name = self.ctx.sym(&s);
        let child = if self.consume_if(TokenKind::LParen) {
            let c = self.nested(|p| p.parse_location_body())?;
            self.expect(TokenKind::RParen, "')' after child location")?;
            Some(c)
        } else {
            None
        };
        Ok(self.ctx.loc(LocData::Name { name, child }))
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
        Ok(self.create_state(state))
    }

    fn create_state(&mut self, state: OperationState) -> Op {
        let mut attrs = state.attrs;
        self.ctx.sort_named_attrs(&mut attrs);
        self.ctx.create_op_raw(
            state.name,
            &state.operands,
            &state.result_types,
            attrs.into_iter().collect(),
            state.regions,
            state.loc,
        )
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
        Ok(self.create_state(state))
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

    // ----- operands and values -----

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

    fn parse_operand_list_until(&mut self, end: TokenKind) -> ParseResult<Vec<UnresolvedOperand<'src>>> {
        let mut v = Vec::new();
        if self.tok.kind == end {
            return Ok(v);
        }
        self.parse_comma_separated(|p| {
            v.push(p.parse_operand()?);
            Ok(())
        })?;
        Ok(v)
    }

    /// Parses a comma-separated operand list (possibly empty).
    pub fn parse_operand_list(&mut self) -> ParseResult<Vec<UnresolvedOperand<'src>>> {
        let mut v = Vec::new();
        if !self.at_operand() {
            return Ok(v);
        }
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

    fn define(&mut self, name: &'src str, values: SmallVec<[Value; 1]>, t: Token) -> ParseResult<()> {
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

    // ----- regions -----

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

    fn define_arg(&mut self, name: &'src str, v: Value, loc: Location, _t: Token) -> ParseResult<()> {
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

    // ----- types -----

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
        let Some(dims) = self.lex.lex_dims() else {
            self.advance();
            return Err(self.error_here("invalid dimension"));
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
                                 // Fast path: the text between `<` and `>` identifies the type.
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
                strides.push(p.parse_integer()?);
                Ok(())
            })?;
            let mut offset = 0;
            if self.consume_if(TokenKind::Comma) {
                self.parse_keyword("offset")?;
                self.expect(TokenKind::Colon, "':' after 'offset'")?;
                offset = self.parse_integer()?;
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

    // ----- attributes -----

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

    fn parse_attr_dict_into(&mut self, out: &mut Vec<NamedAttr>) -> ParseResult<()> {
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
                _ => {
                    let t = self.parse_type()?;
                    Ok(self.ctx.type_attr(t))
                }
            },
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
                match e {
                    ElemType::F32 => f32::from_bits(bits as u32) as f64,
                    ElemType::F64 => f64::from_bits(bits),
                    _ => {
                        return Err(Diagnostic::error(
                            loc,
                            "hexadecimal float literals are only supported for f32 and f64",
                        ))
                    }
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
        let value = self.int_value(t, neg)?;
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
        let et = self.tok;
        let kind = self.peek_text();
        let is_f = match (self.tok.kind, kind) {
            (TokenKind::BareIdent, "i64" | "i32" | "i8" | "i1") => false,
            (TokenKind::BareIdent, "f64" | "f32") => true,
            _ => return Err(self.error_here("expected integer or float element type in dense array")),
        };
        self.advance();
        let _ = et;
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
                    ints.push(p.parse_integer()?);
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
            BareIdent if matches!(self.peek_text(), "inf" | "nan" | "NaN") => {
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

use TokenKind::BareIdent;

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
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
