//! The textual pass pipeline grammar, exactly MLIR's:
//!
//! ```text
//! pipeline         ::= op-anchor `(` pipeline-element (`,` pipeline-element)* `)`
//! pipeline-element ::= pipeline | (pass-name | pass-pipeline-name) options?
//! options          ::= `{` (key (`=` value)?)* `}`      (whitespace-separated)
//! ```
//!
//! A pipeline that is not wrapped in an op anchor (`cse,dce`) is accepted and
//! anchored on `builtin.module`; it prints back unwrapped, so printing a
//! parsed pipeline always reproduces its text (modulo whitespace), a tested
//! law. Errors carry the 1-based column of the offending character.

use std::fmt;

/// A parsed pipeline: an anchor and its elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineAst {
    /// The op the pipeline runs on (`None` for an unanchored top level,
    /// which means `builtin.module`).
    pub anchor: Option<String>,
    pub elements: Vec<PipelineElement>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineElement {
    Nested { pipeline: PipelineAst, col: usize },
    Pass { name: String, options: Vec<(String, Option<String>)>, col: usize },
}

/// A malformed pipeline, with the column of the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct PipelineError {
    pub col: usize,
    pub message: String,
    pub text: String,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "<pass-pipeline>:1:{}: error: {}", self.col, self.message)?;
        writeln!(f, "{}", self.text)?;
        write!(f, "{}^", " ".repeat(self.col.saturating_sub(1)))
    }
}

struct P<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')
}

impl P<'_> {
    fn err(&self, pos: usize, msg: impl Into<String>) -> PipelineError {
        PipelineError { col: pos + 1, message: msg.into(), text: self.text.to_string() }
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn name(&mut self) -> Result<(String, usize), PipelineError> {
        self.ws();
        let start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(match self.peek() {
                None => self.err(start, "expected pass or pipeline name, found end of pipeline"),
                Some(c) => self.err(start, format!("expected pass or pipeline name, found '{}'", c as char)),
            });
        }
        Ok((self.text[start..self.pos].to_string(), start))
    }

    fn element_list(&mut self, close: Option<u8>) -> Result<Vec<PipelineElement>, PipelineError> {
        let mut v = Vec::new();
        self.ws();
        if self.peek() == close {
            return Ok(v);
        }
        loop {
            v.push(self.element()?);
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                c if c == close => return Ok(v),
                None => return Err(self.err(self.pos, format!("expected ',' or '{}'", close.unwrap_or(b')') as char))),
                Some(c) => {
                    let expected = match close {
                        Some(cl) => format!("expected ',' or '{}'", cl as char),
                        None => "expected ',' or end of pipeline".to_string(),
                    };
                    return Err(self.err(self.pos, format!("{expected}, found '{}'", c as char)));
                }
            }
        }
    }

    fn element(&mut self) -> Result<PipelineElement, PipelineError> {
        let (name, col) = self.name()?;
        self.ws();
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let elements = self.element_list(Some(b')'))?;
                self.pos += 1; // ')'
                Ok(PipelineElement::Nested { pipeline: PipelineAst { anchor: Some(name), elements }, col: col + 1 })
            }
            Some(b'{') => {
                let options = self.options()?;
                Ok(PipelineElement::Pass { name, options, col: col + 1 })
            }
            _ => Ok(PipelineElement::Pass { name, options: Vec::new(), col: col + 1 }),
        }
    }

    fn options(&mut self) -> Result<Vec<(String, Option<String>)>, PipelineError> {
        let open = self.pos;
        self.pos += 1; // '{'
        let mut out = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                None => return Err(self.err(open, "unterminated options: expected '}'")),
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => {}
            }
            let start = self.pos;
            while self.peek().is_some_and(|c| c != b'=' && c != b'}' && !c.is_ascii_whitespace()) {
                self.pos += 1;
            }
            let key = self.text[start..self.pos].to_string();
            if key.is_empty() {
                return Err(self.err(start, "expected option name"));
            }
            if self.peek() == Some(b'=') {
                self.pos += 1;
                let value = self.value()?;
                out.push((key, Some(value)));
            } else {
                out.push((key, None));
            }
        }
    }

    /// A value runs to whitespace or `}` at nesting depth 0; quotes and
    /// braces nest (for values that are themselves pipelines).
    fn value(&mut self) -> Result<String, PipelineError> {
        let start = self.pos;
        if let Some(q @ (b'"' | b'\'')) = self.peek() {
            self.pos += 1;
            while self.peek().is_some_and(|c| c != q) {
                self.pos += 1;
            }
            if self.peek().is_none() {
                return Err(self.err(start, "unterminated quoted option value"));
            }
            self.pos += 1;
            return Ok(self.text[start + 1..self.pos - 1].to_string());
        }
        let mut depth = 0i32;
        while let Some(c) = self.peek() {
            match c {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' if depth > 0 => depth -= 1,
                b'}' => break,
                c if c.is_ascii_whitespace() && depth == 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
        if depth != 0 {
            return Err(self.err(start, "unbalanced brackets in option value"));
        }
        Ok(self.text[start..self.pos].to_string())
    }
}

/// Parses a textual pipeline.
pub fn parse_pipeline(text: &str) -> Result<PipelineAst, PipelineError> {
    let mut p = P { s: text.as_bytes(), text, pos: 0 };
    p.ws();
    if p.peek().is_none() {
        return Ok(PipelineAst { anchor: None, elements: Vec::new() });
    }
    let elements = p.element_list(None)?;
    p.ws();
    if let Some(c) = p.peek() {
        return Err(p.err(p.pos, format!("unexpected '{}' after pipeline", c as char)));
    }
    // `op(...)` alone is an anchored pipeline; anything else is implicitly
    // anchored on the module.
    if let [PipelineElement::Nested { pipeline, .. }] = &elements[..] {
        return Ok(pipeline.clone());
    }
    Ok(PipelineAst { anchor: None, elements })
}

impl PipelineAst {
    /// Prints the pipeline in canonical form (no whitespace but between options).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        match &self.anchor {
            Some(a) => {
                s.push_str(a);
                s.push('(');
                write_elements(&self.elements, &mut s);
                s.push(')');
            }
            None => write_elements(&self.elements, &mut s),
        }
        s
    }
}

fn write_elements(els: &[PipelineElement], s: &mut String) {
    for (i, e) in els.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        match e {
            PipelineElement::Nested { pipeline, .. } => s.push_str(&pipeline.to_text()),
            PipelineElement::Pass { name, options, .. } => {
                s.push_str(name);
                if !options.is_empty() {
                    s.push('{');
                    for (j, (k, v)) in options.iter().enumerate() {
                        if j > 0 {
                            s.push(' ');
                        }
                        s.push_str(k);
                        if let Some(v) = v {
                            s.push('=');
                            if v.is_empty() || v.contains(char::is_whitespace) {
                                s.push('"');
                                s.push_str(v);
                                s.push('"');
                            } else {
                                s.push_str(v);
                            }
                        }
                    }
                    s.push('}');
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_print_identity() {
        for text in [
            "builtin.module(cse)",
            "builtin.module(func.func(cse,dce),cse)",
            "builtin.module(func.func(functionalize,collect-metadata),joint,partition{strategy=min-cut})",
            "builtin.module(partition{strategy=min-cut memory-budget=0.5})",
            "cse,dce",
            "any(cse)",
            "builtin.module()",
            "builtin.module(func.func(any(cse)),x{flag})",
            "builtin.module(inline{default-pipeline=func.func(cse,dce)})",
            "",
        ] {
            let ast = parse_pipeline(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(ast.to_text(), text);
        }
    }

    #[test]
    fn whitespace_is_normalized() {
        let ast = parse_pipeline(" builtin.module( cse , func.func( dce ) ) ").unwrap();
        assert_eq!(ast.to_text(), "builtin.module(cse,func.func(dce))");
    }

    #[test]
    fn errors_have_columns() {
        let e = parse_pipeline("builtin.module(cse").unwrap_err();
        assert_eq!(e.col, 19);
        assert!(e.message.contains("expected ',' or ')'"), "{}", e.message);
        let e = parse_pipeline("builtin.module(cse,)").unwrap_err();
        assert_eq!(e.col, 20);
        let e = parse_pipeline("cse{a=1").unwrap_err();
        assert!(e.message.contains("unterminated"), "{}", e.message);
        let e = parse_pipeline("builtin.module(cse))").unwrap_err();
        assert_eq!(e.col, 20);
    }
}
