//! Diagnostics and their rendering.
//!
//! A [`Diagnostic`] is a severity, a location, a message and attached notes.
//! Every error the compiler reports about user input is one of these, so it
//! always has a location. [`SourceMgr`] keeps the text of every parsed buffer
//! so that a diagnostic renders MLIR-style:
//!
//! ```text
//! input.mlir:3:8: error: 'tensor.add' op operand #1 does not dominate this use
//!   %0 = tensor.add %a, %b : tensor<4xf32>
//!        ^
//! ```

use crate::context::Context;
use crate::entity::{Location, Op};
use std::fmt::Write;
use std::sync::Arc;

#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

/// A located message, with notes.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: Location,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    pub fn new(severity: Severity, loc: Location, message: impl Into<String>) -> Self {
        Diagnostic { severity, loc, message: message.into(), notes: Vec::new() }
    }

    pub fn error(loc: Location, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, loc, message)
    }

    pub fn warning(loc: Location, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, loc, message)
    }

    /// An error about `op`, prefixed as MLIR does: `'tensor.add' op ...`.
    pub fn op_error(ctx: &Context, op: Op, message: impl std::fmt::Display) -> Self {
        Self::error(ctx.op_loc(op), format!("'{}' op {}", ctx.op_name(op), message))
    }

    /// Attaches a note.
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Self {
        self.notes.push(Diagnostic::new(Severity::Note, loc, message));
        self
    }

    /// Renders this diagnostic and its notes.
    pub fn render(&self, ctx: &Context, sources: &SourceMgr) -> String {
        let mut out = String::new();
        render_one(self, ctx, sources, &mut out);
        for n in &self.notes {
            render_one(n, ctx, sources, &mut out);
        }
        out
    }

    /// The diagnostic with its locations resolved, and rendered: a value that
    /// outlives the [`Context`] (a library's error).
    pub fn resolve(&self, ctx: &Context, sources: &SourceMgr) -> ResolvedDiagnostic {
        let at = ctx.loc_file_line_col(self.loc);
        ResolvedDiagnostic {
            severity: self.severity,
            file: at.map(|(f, _, _)| f.to_string()),
            line: at.map_or(0, |(_, l, _)| l),
            col: at.map_or(0, |(_, _, c)| c),
            message: self.message.clone(),
            notes: self.notes.iter().map(|n| n.resolve(ctx, sources)).collect(),
            rendered: self.render(ctx, sources),
        }
    }

    /// This diagnostic followed by its notes, each as a flat diagnostic.
    pub fn flatten(&self) -> Vec<Diagnostic> {
        let mut v = vec![Diagnostic { notes: Vec::new(), ..self.clone() }];
        for n in &self.notes {
            v.extend(n.flatten());
        }
        v
    }
}

fn render_one(d: &Diagnostic, ctx: &Context, sources: &SourceMgr, out: &mut String) {
    match ctx.loc_file_line_col(d.loc) {
        Some((file, line, col)) => {
            let _ = writeln!(out, "{file}:{line}:{col}: {}: {}", d.severity.name(), d.message);
            if let Some(text) = sources.line(file, line) {
                echo_line(text, col, out);
            }
        }
        None => {
            let _ = writeln!(out, "<unknown>: {}: {}", d.severity.name(), d.message);
        }
    }
}

/// Longest source line echoed whole under a diagnostic; a longer one
/// (generated or hostile input can put megabytes on a line) shows a window
/// of this many bytes around the column.
const MAX_ECHO: usize = 160;

/// Writes the source line and a caret under byte column `col`.
fn echo_line(text: &str, col: u32, out: &mut String) {
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let at = floor((col.saturating_sub(1) as usize).min(text.len()));
    let (mut lo, mut hi) = (0, text.len());
    if text.len() > MAX_ECHO {
        lo = floor(at.saturating_sub(MAX_ECHO / 2));
        hi = floor((lo + MAX_ECHO).min(text.len()));
    }
    let hi = hi.max(at);
    let (prefix, suffix) = (if lo > 0 { "..." } else { "" }, if hi < text.len() { "..." } else { "" });
    let _ = writeln!(out, "{prefix}{}{suffix}", &text[lo..hi]);
    let caret: String =
        prefix.chars().chain(text[lo..at].chars()).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let _ = writeln!(out, "{caret}^");
}

/// A [`Diagnostic`] whose location is resolved to a file, line and column
/// (`file` is `None`, line and column 0, for an unknown location).
/// Displays as the MLIR-style rendering, notes and source lines included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedDiagnostic {
    pub severity: Severity,
    pub file: Option<String>,
    pub line: u32,
    pub col: u32,
    pub message: String,
    pub notes: Vec<ResolvedDiagnostic>,
    /// [`Diagnostic::render`]'s text.
    pub rendered: String,
}

impl std::fmt::Display for ResolvedDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.rendered)
    }
}

/// The text of every buffer read so far, for rendering source lines.
#[derive(Default, Clone)]
pub struct SourceMgr {
    files: Vec<(String, Arc<str>)>,
}

impl SourceMgr {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a buffer under `name` (replacing an earlier one of that name).
    pub fn add(&mut self, name: &str, text: Arc<str>) {
        self.files.retain(|(n, _)| n != name);
        self.files.push((name.to_string(), text));
    }

    pub fn text(&self, name: &str) -> Option<&Arc<str>> {
        self.files.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// Line `line` (1-based) of buffer `name`, without its newline.
    pub fn line(&self, name: &str, line: u32) -> Option<&str> {
        let text = self.text(name)?;
        text.lines().nth(line.checked_sub(1)? as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::echo_line;

    fn echo(text: &str, col: u32) -> String {
        let mut out = String::new();
        echo_line(text, col, &mut out);
        out
    }

    #[test]
    fn short_lines_are_echoed_whole() {
        assert_eq!(echo("%0 = foo", 6), "%0 = foo\n     ^\n");
        assert_eq!(echo("\tx", 2), "\tx\n\t^\n");
        // Columns count bytes: the caret sits under the byte's character.
        assert_eq!(echo("\"é\" x", 6), "\"é\" x\n    ^\n");
        assert_eq!(echo("ab", 3), "ab\n  ^\n");
    }

    #[test]
    fn long_lines_show_a_window_around_the_column() {
        let line = format!("{}X{}", "[".repeat(100_000), "]".repeat(100_000));
        let out = echo(&line, 100_001);
        let (text, caret) = out.trim_end().split_once('\n').unwrap();
        assert!(text.starts_with("...[") && text.ends_with("]..."), "{text}");
        assert!(text.len() <= super::MAX_ECHO + 6);
        assert_eq!(caret.len() - 1, text.find('X').unwrap());
        // At the start and at the end of the line.
        let out = echo(&line, 1);
        assert!(out.starts_with("[[") && out.lines().next().unwrap().ends_with("..."));
        assert!(out.ends_with("\n^\n"));
        let out = echo(&line, line.len() as u32 + 1);
        assert!(out.starts_with("...]") && out.lines().next().unwrap().ends_with(']'));
    }
}
