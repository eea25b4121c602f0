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
                let _ = writeln!(out, "{text}");
                let caret: String = text
                    .chars()
                    .take(col.saturating_sub(1) as usize)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = writeln!(out, "{caret}^");
            }
        }
        None => {
            let _ = writeln!(out, "<unknown>: {}: {}", d.severity.name(), d.message);
        }
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
