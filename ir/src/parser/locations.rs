//! Locations: `loc(unknown)`, `loc("file":line:col)`, `loc("name")`,
//! `loc("name"(child))` and `loc(fused[...])`.
//!
//! Child and fused locations go through `nested`, so location depth is
//! bounded like every other recursive construct. Line and column must fit
//! in `u32`.

use super::{ParseResult, Parser};
use crate::entity::*;
use crate::lexer::TokenKind;
use crate::location::LocData;

impl<'a, 'src> Parser<'a, 'src> {
    pub(super) fn parse_trailing_loc(&mut self, op: Op) -> ParseResult<()> {
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
}
