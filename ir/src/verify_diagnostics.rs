//! `--verify-diagnostics`: checks emitted diagnostics against expectations
//! written in the source, exactly as MLIR's verifier handler does.
//!
//! ```text
//! // expected-error@+1 {{use of undeclared SSA value name}}
//! // expected-note@-2 {{operand defined here}}
//! // expected-warning {{...}}            (same line)
//! // expected-error@above {{...}}  @below
//! ```
//!
//! The message is a substring match; `{{...}}` inside it is a regular
//! expression. Every emitted diagnostic (notes included) must match an
//! expectation on its line, and every expectation must be matched; either
//! failure is reported as an error located at the offending line.

use crate::context::Context;
use crate::diagnostics::{Diagnostic, Severity};
use regex::Regex;

/// Splits a buffer at `// -----` lines; returns (chunk text, first line number).
pub fn split_input(text: &str) -> Vec<(String, u32)> {
    let mut chunks = Vec::new();
    let mut cur = String::new();
    let mut first = 1u32;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if line.trim_start().starts_with("// -----") {
            chunks.push((std::mem::take(&mut cur), first));
            first = i as u32 + 2;
        } else {
            cur.push_str(line);
        }
    }
    chunks.push((cur, first));
    chunks
}

/// One `expected-*` comment.
#[derive(Debug)]
pub struct Expectation {
    pub severity: Severity,
    /// The line the diagnostic must be on.
    pub line: u32,
    /// Where the comment itself is (for "was not produced").
    pub comment_line: u32,
    pub comment_col: u32,
    pub text: String,
    matcher: Regex,
    pub matched: bool,
}

/// Reads the expectations of one chunk (`first_line` is its first line's number).
pub fn collect_expectations(chunk: &str, first_line: u32) -> Result<Vec<Expectation>, String> {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"expected-(error|warning|note|remark)\s*(?:@([+-][0-9]+|above|below))?\s*\{\{(.*)\}\}")
            .expect("expectation pattern")
    });
    let lines: Vec<&str> = chunk.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(m) = re.captures(line) else { continue };
        let lineno = first_line + i as u32;
        let severity = match &m[1] {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "note" => Severity::Note,
            _ => Severity::Remark,
        };
        let target = match m.get(2).map(|g| g.as_str()) {
            None => lineno,
            Some("above") => {
                // The closest preceding line that is not itself an expectation.
                let mut k = i;
                loop {
                    if k == 0 {
                        return Err(format!("line {lineno}: @above has no line above it"));
                    }
                    k -= 1;
                    if !re.is_match(lines[k]) {
                        break first_line + k as u32;
                    }
                }
            }
            Some("below") => {
                let mut k = i + 1;
                loop {
                    if k >= lines.len() {
                        return Err(format!("line {lineno}: @below has no line below it"));
                    }
                    if !re.is_match(lines[k]) {
                        break first_line + k as u32;
                    }
                    k += 1;
                }
            }
            Some(off) => {
                let off: i64 = off.parse().map_err(|_| format!("line {lineno}: bad offset '{off}'"))?;
                let t = lineno as i64 + off;
                if t < 1 {
                    return Err(format!("line {lineno}: expectation points before the start of the file"));
                }
                t as u32
            }
        };
        let text = m[3].to_string();
        let matcher = Regex::new(&expectation_regex(&text))
            .map_err(|e| format!("line {lineno}: invalid regex in expectation: {e}"))?;
        let col = line.find("expected-").map(|c| c + 1).unwrap_or(1) as u32;
        out.push(Expectation {
            severity,
            line: target,
            comment_line: lineno,
            comment_col: col,
            text,
            matcher,
            matched: false,
        });
    }
    Ok(out)
}

/// Literal text with `{{regex}}` islands, as a regex.
fn expectation_regex(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&regex::escape(&rest[..start]));
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                out.push('(');
                out.push_str(&after[..end]);
                out.push(')');
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&regex::escape(&rest[start..]));
                rest = "";
            }
        }
    }
    out.push_str(&regex::escape(rest));
    out
}

/// Matches `diags` (with notes) against `expected`; returns the failures as
/// diagnostics located in `file` (empty when everything matched).
pub fn check(ctx: &mut Context, file: &str, expected: &mut [Expectation], diags: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut failures = Vec::new();
    for d in diags.iter().flat_map(|d| d.flatten()) {
        let pos = ctx.loc_file_line_col(d.loc).map(|(f, l, c)| (f.to_string(), l, c));
        let hit = pos.as_ref().and_then(|(f, l, _)| {
            if f != file {
                return None;
            }
            expected
                .iter_mut()
                .find(|e| !e.matched && e.line == *l && e.severity == d.severity && e.matcher.is_match(&d.message))
        });
        match hit {
            Some(e) => e.matched = true,
            None => {
                let loc = d.loc;
                failures.push(Diagnostic::error(loc, format!("unexpected {}: {}", d.severity.name(), d.message)));
            }
        }
    }
    for e in expected.iter().filter(|e| !e.matched) {
        let loc = ctx.file_loc(file, e.comment_line, e.comment_col);
        failures
            .push(Diagnostic::error(loc, format!("expected {} \"{}\" was not produced", e.severity.name(), e.text)));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_line_numbers() {
        let chunks = split_input("a\nb\n// -----\nc\n// -----\nd\n");
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[0], ("a\nb\n".to_string(), 1));
        assert_eq!(chunks[1], ("c\n".to_string(), 4));
        assert_eq!(chunks[2], ("d\n".to_string(), 6));
    }

    #[test]
    fn offsets_and_regex() {
        let src = "x\n// expected-error@-1 {{bad {{[0-9]+}} thing}}\n// expected-note@above {{n}}\n// expected-warning@below {{w}}\ny\n";
        let e = collect_expectations(src, 10).unwrap();
        assert_eq!(e[0].line, 10);
        assert!(e[0].matcher.is_match("a bad 42 thing here"));
        assert!(!e[0].matcher.is_match("a bad x thing"));
        assert_eq!(e[1].line, 10);
        assert_eq!(e[2].line, 14);
    }

    #[test]
    fn space_before_the_offset_is_allowed() {
        // MLIR's pattern allows blanks between the severity and `@`.
        let src = "x\n// expected-error @+1 {{a}}\ny\n// expected-note  @above {{b}}\n// expected-remark @-3 {{c}}\n";
        let e = collect_expectations(src, 1).unwrap();
        assert_eq!(e.iter().map(|x| (x.line, x.text.as_str())).collect::<Vec<_>>(), [(3, "a"), (3, "b"), (2, "c")]);
    }
}
