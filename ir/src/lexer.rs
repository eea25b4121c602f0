//! The lexer for MLIR's textual syntax.
//!
//! A hand-written scanner over bytes that produces one token at a time; each
//! token records its byte span and 1-based line/column so that every parsed op
//! gets a precise location without a second pass over the text. Token text is
//! borrowed from the source, never copied. Dimension lists (`2x3xf32`) are not
//! tokens: the type parser scans them with [`Lexer::lex_dims`], because `x`
//! is both a separator and an identifier character.

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TokenKind {
    Eof,
    /// A character that cannot start a token.
    Error,
    BareIdent,
    /// `%name`
    PercentIdent,
    /// `@name` or `@"name"`
    AtIdent,
    /// `^name`
    CaretIdent,
    /// `#name`
    HashIdent,
    /// `!name`
    BangIdent,
    Integer,
    Float,
    String,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LSquare,
    RSquare,
    Less,
    Greater,
    Comma,
    Colon,
    Equal,
    Arrow,
    Question,
    Star,
    Plus,
    Minus,
    Ellipsis,
    /// An unterminated string literal.
    BadString,
}

#[derive(Copy, Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

pub struct Lexer<'src> {
    src: &'src str,
    bytes: &'src [u8],
    pos: usize,
    line: u32,
    line_start: usize,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

/// Characters allowed in suffix identifiers (`%foo-bar`, `%0`, `^bb1`).
fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'src> Lexer<'src> {
    /// `first_line` is the line number of the first line of `src` in its file
    /// (chunks of a split file keep their original line numbers).
    pub fn new(src: &'src str, first_line: u32) -> Self {
        Lexer { src, bytes: src.as_bytes(), pos: 0, line: first_line, line_start: 0 }
    }

    pub fn src(&self) -> &'src str {
        self.src
    }

    pub fn text(&self, t: &Token) -> &'src str {
        &self.src[t.start as usize..t.end as usize]
    }

    fn peek_byte(&self, off: usize) -> u8 {
        *self.bytes.get(self.pos + off).unwrap_or(&0)
    }

    fn skip_trivia(&mut self) {
        loop {
            let c = self.peek_byte(0);
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'/' if self.peek_byte(1) == b'/' => {
                    while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Columns count bytes, as MLIR's do.
    fn col(&self, pos: usize) -> u32 {
        (pos - self.line_start + 1) as u32
    }

    /// Position (line, column) of the next token, after skipping trivia.
    pub fn peek_position(&mut self) -> (u32, u32, usize) {
        self.skip_trivia();
        (self.line, self.col(self.pos), self.pos)
    }

    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let line = self.line;
        let col = self.col(start);
        let kind = self.scan();
        Token { kind, start: start as u32, end: self.pos as u32, line, col }
    }

    fn scan(&mut self) -> TokenKind {
        use TokenKind::*;
        let Some(&c) = self.bytes.get(self.pos) else { return Eof };
        self.pos += 1;
        match c {
            b'(' => LParen,
            b')' => RParen,
            b'{' => LBrace,
            b'}' => RBrace,
            b'[' => LSquare,
            b']' => RSquare,
            b'<' => Less,
            b'>' => Greater,
            b',' => Comma,
            b':' => Colon,
            b'=' => Equal,
            b'?' => Question,
            b'*' => Star,
            b'+' => Plus,
            b'-' => {
                if self.peek_byte(0) == b'>' {
                    self.pos += 1;
                    Arrow
                } else {
                    Minus
                }
            }
            b'.' if self.peek_byte(0) == b'.' && self.peek_byte(1) == b'.' => {
                self.pos += 2;
                Ellipsis
            }
            b'"' => self.scan_string(),
            b'%' => self.scan_prefixed(PercentIdent),
            b'^' => self.scan_prefixed(CaretIdent),
            b'#' => self.scan_prefixed(HashIdent),
            b'!' => self.scan_prefixed(BangIdent),
            b'@' => {
                if self.peek_byte(0) == b'"' {
                    self.pos += 1;
                    match self.scan_string() {
                        String => AtIdent,
                        k => k,
                    }
                } else {
                    self.scan_prefixed(AtIdent)
                }
            }
            c if c.is_ascii_digit() => self.scan_number(c),
            c if is_ident_start(c) => {
                while is_ident_char(self.peek_byte(0)) {
                    self.pos += 1;
                }
                BareIdent
            }
            _ => {
                // Consume a whole UTF-8 character so spans stay on char boundaries.
                while self.pos < self.bytes.len() && !self.src.is_char_boundary(self.pos) {
                    self.pos += 1;
                }
                Error
            }
        }
    }

    fn scan_prefixed(&mut self, kind: TokenKind) -> TokenKind {
        let begin = self.pos;
        while is_suffix_char(self.peek_byte(0)) {
            self.pos += 1;
        }
        if self.pos == begin {
            TokenKind::Error
        } else {
            kind
        }
    }

    fn scan_string(&mut self) -> TokenKind {
        loop {
            match self.bytes.get(self.pos) {
                None | Some(b'\n') => return TokenKind::BadString,
                Some(b'"') => {
                    self.pos += 1;
                    return TokenKind::String;
                }
                Some(b'\\') => self.pos += 2,
                Some(_) => self.pos += 1,
            }
        }
    }

    fn scan_number(&mut self, first: u8) -> TokenKind {
        if first == b'0' && self.peek_byte(0) == b'x' && self.peek_byte(1).is_ascii_hexdigit() {
            self.pos += 1;
            while self.peek_byte(0).is_ascii_hexdigit() {
                self.pos += 1;
            }
            return TokenKind::Integer;
        }
        while self.peek_byte(0).is_ascii_digit() {
            self.pos += 1;
        }
        let mut float = false;
        if self.peek_byte(0) == b'.' && self.peek_byte(1) != b'.' {
            float = true;
            self.pos += 1;
            while self.peek_byte(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        if matches!(self.peek_byte(0), b'e' | b'E') {
            let sign = matches!(self.peek_byte(1), b'+' | b'-') as usize;
            if self.peek_byte(1 + sign).is_ascii_digit() {
                float = true;
                self.pos += 1 + sign;
                while self.peek_byte(0).is_ascii_digit() {
                    self.pos += 1;
                }
            }
        }
        if float {
            TokenKind::Float
        } else {
            TokenKind::Integer
        }
    }

    /// Scans a dimension list `2x3x` / `?x4x` that starts at the current
    /// position (after skipping trivia). Returns the dims; stops before the
    /// first component that is not followed by `x`. An error says why a
    /// component is malformed. Position is left at the element type.
    pub fn lex_dims(&mut self) -> Result<smallvec::SmallVec<[i64; 4]>, String> {
        self.skip_trivia();
        let mut dims = smallvec::SmallVec::new();
        loop {
            let save = self.pos;
            let c = self.peek_byte(0);
            let dim = if c == b'?' {
                self.pos += 1;
                crate::types::DYNAMIC
            } else if c.is_ascii_digit() || c == b'(' || (c == b's' && self.peek_byte(1).is_ascii_digit()) {
                // An integer, a symbol `s<N>` or a parenthesized size
                // expression (`crate::sym`).
                let (d, n) = crate::sym::parse_dim(&self.src.as_bytes()[self.pos..])?;
                self.pos += n;
                d
            } else {
                return Ok(dims);
            };
            if self.peek_byte(0) == b'x' {
                self.pos += 1;
                dims.push(dim);
            } else {
                self.pos = save;
                return Ok(dims);
            }
        }
    }

    /// Rewinds to byte offset `pos` (which must be a token start on `line`).
    pub fn reset_to(&mut self, pos: usize, line: u32, line_start: usize) {
        self.pos = pos;
        self.line = line;
        self.line_start = line_start;
    }

    pub fn state(&self) -> (usize, u32, usize) {
        (self.pos, self.line, self.line_start)
    }
}

/// Decodes the escapes of a string literal's body (without quotes).
pub fn unescape(body: &str) -> Result<String, String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some(h1) if h1.is_ascii_hexdigit() => {
                let h2 = chars.next().filter(|c| c.is_ascii_hexdigit());
                let Some(h2) = h2 else { return Err("invalid escape sequence".into()) };
                let byte = u8::from_str_radix(&format!("{h1}{h2}"), 16).map_err(|e| e.to_string())?;
                out.push(byte as char);
            }
            _ => return Err("invalid escape sequence".into()),
        }
    }
    Ok(out)
}

/// Escapes a string for printing inside double quotes.
pub fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\{:02X}", c as u32)),
            c => out.push(c),
        }
    }
}
