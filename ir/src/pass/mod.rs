//! Passes and their registry.
//!
//! A pass is declared once, as a static [`PassInfo`] submitted with
//! `inventory::submit!`: its pipeline argument, display name, summary,
//! description, the op it is anchored on, its options (with kinds and
//! defaults) and its statistics. The pipeline parser, `--list-passes` and the
//! generated `docs/passes.md` all read this one registry. Named pipelines
//! ([`PipelineDef`]) are registered the same way and stand for their passes.
//!
//! A pass instance is created from parsed options by [`PassInfo::create`] and
//! run on one anchor op at a time with a [`PassState`] that collects its
//! statistics.

pub mod instrument;
pub mod manager;
pub mod pipeline;

use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::entity::Op;
use rustc_hash::FxHashMap;
use std::fmt::Write;
use std::sync::OnceLock;

pub use instrument::{IrPrintConfig, TimingDisplay, TimingNode};
pub use manager::{PassManager, PassManagerOptions, PipelineFailure};
pub use pipeline::{parse_pipeline, PipelineAst, PipelineElement, PipelineError};

/// A transformation or analysis run on an anchor op.
pub trait Pass {
    fn run(&mut self, ctx: &mut Context, op: Op, state: &mut PassState) -> Result<(), Diagnostic>;
}

/// The kind of value a pass option takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Bool,
    Int,
    Float,
    Str,
    /// One of the listed words.
    Enum(&'static [&'static str]),
}

impl OptionKind {
    fn describe(self) -> String {
        match self {
            OptionKind::Bool => "a boolean (true/false)".into(),
            OptionKind::Int => "an integer".into(),
            OptionKind::Float => "a number".into(),
            OptionKind::Str => "a string".into(),
            OptionKind::Enum(v) => format!("one of {}", v.join(", ")),
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            OptionKind::Bool => "bool",
            OptionKind::Int => "int",
            OptionKind::Float => "float",
            OptionKind::Str => "string",
            OptionKind::Enum(_) => "enum",
        }
    }

    /// Checks a textual value against this kind.
    pub fn check(self, value: &str) -> Result<(), String> {
        let ok = match self {
            OptionKind::Bool => matches!(value, "true" | "false" | "1" | "0"),
            OptionKind::Int => value.parse::<i64>().is_ok(),
            OptionKind::Float => value.parse::<f64>().is_ok_and(|v| v.is_finite()),
            OptionKind::Str => true,
            OptionKind::Enum(v) => v.contains(&value),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("expected {}", self.describe()))
        }
    }
}

/// A declared pass option.
#[derive(Debug)]
pub struct PassOptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    pub default: &'static str,
    pub description: &'static str,
}

/// A declared statistic.
#[derive(Debug)]
pub struct StatisticSpec {
    pub name: &'static str,
    pub description: &'static str,
}

/// The static declaration of a pass.
pub struct PassInfo {
    /// The pipeline argument (`cse`).
    pub argument: &'static str,
    /// The display name used in reports (`CSE`).
    pub name: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    /// The op the pass runs on; `None` means any op.
    pub anchor: Option<&'static str>,
    pub options: &'static [PassOptionSpec],
    pub statistics: &'static [StatisticSpec],
    pub create: fn(&PassOptions) -> Result<Box<dyn Pass>, String>,
}

inventory::collect!(PassInfo);

/// A named pipeline: a name that stands for a textual pipeline.
pub struct PipelineDef {
    pub name: &'static str,
    pub summary: &'static str,
    /// Pipeline elements, e.g. `functionalize,collect-metadata`.
    pub pipeline: &'static str,
}

inventory::collect!(PipelineDef);

fn pass_registry() -> &'static FxHashMap<&'static str, &'static PassInfo> {
    static R: OnceLock<FxHashMap<&'static str, &'static PassInfo>> = OnceLock::new();
    R.get_or_init(|| {
        let mut m = FxHashMap::default();
        for p in inventory::iter::<PassInfo> {
            assert!(m.insert(p.argument, p).is_none(), "pass '{}' registered twice", p.argument);
        }
        m
    })
}

fn pipeline_registry() -> &'static FxHashMap<&'static str, &'static PipelineDef> {
    static R: OnceLock<FxHashMap<&'static str, &'static PipelineDef>> = OnceLock::new();
    R.get_or_init(|| {
        let mut m = FxHashMap::default();
        for p in inventory::iter::<PipelineDef> {
            assert!(m.insert(p.name, p).is_none(), "pipeline '{}' registered twice", p.name);
        }
        m
    })
}

pub fn lookup_pass(argument: &str) -> Option<&'static PassInfo> {
    pass_registry().get(argument).copied()
}

pub fn lookup_pipeline(name: &str) -> Option<&'static PipelineDef> {
    pipeline_registry().get(name).copied()
}

/// Every registered pass, sorted by argument.
pub fn all_passes() -> Vec<&'static PassInfo> {
    let mut v: Vec<_> = pass_registry().values().copied().collect();
    v.sort_by_key(|p| p.argument);
    v
}

/// Every registered named pipeline, sorted by name.
pub fn all_pipelines() -> Vec<&'static PipelineDef> {
    let mut v: Vec<_> = pipeline_registry().values().copied().collect();
    v.sort_by_key(|p| p.name);
    v
}

/// Parsed option values of one pass instance (validated against its specs).
#[derive(Clone, Debug, Default)]
pub struct PassOptions {
    values: Vec<(String, String)>,
    specs: &'static [PassOptionSpec],
}

impl PassOptions {
    pub fn new(specs: &'static [PassOptionSpec], values: Vec<(String, String)>) -> Self {
        PassOptions { values, specs }
    }

    /// The raw text of option `name` (explicit value, else its default).
    pub fn raw(&self, name: &str) -> &str {
        if let Some((_, v)) = self.values.iter().rev().find(|(k, _)| k == name) {
            return v;
        }
        self.specs.iter().find(|s| s.name == name).map(|s| s.default).unwrap_or("")
    }

    pub fn get_bool(&self, name: &str) -> bool {
        matches!(self.raw(name), "true" | "1")
    }

    pub fn get_int(&self, name: &str) -> i64 {
        self.raw(name).parse().unwrap_or(0)
    }

    pub fn get_float(&self, name: &str) -> f64 {
        self.raw(name).parse().unwrap_or(0.0)
    }

    pub fn get_str(&self, name: &str) -> String {
        self.raw(name).to_string()
    }
}

/// Per-run state handed to a pass: statistics.
pub struct PassState {
    info: &'static PassInfo,
    pub(crate) stats: Vec<u64>,
}

impl PassState {
    pub(crate) fn new(info: &'static PassInfo) -> Self {
        PassState { info, stats: vec![0; info.statistics.len()] }
    }

    /// Adds `n` to statistic `name` (which the pass must declare).
    pub fn add_stat(&mut self, name: &str, n: u64) {
        match self.info.statistics.iter().position(|s| s.name == name) {
            Some(i) => self.stats[i] += n,
            None => debug_assert!(false, "pass '{}' has no statistic '{name}'", self.info.argument),
        }
    }

    /// Sets statistic `name` to `max(current, n)` (for gauges such as peak bytes).
    pub fn max_stat(&mut self, name: &str, n: u64) {
        if let Some(i) = self.info.statistics.iter().position(|s| s.name == name) {
            self.stats[i] = self.stats[i].max(n);
        }
    }

    pub fn info(&self) -> &'static PassInfo {
        self.info
    }
}

/// `aot-opt --list-passes`: every pass with its summary and options, then
/// the named pipelines.
pub fn render_pass_list() -> String {
    let mut s = String::from("Available passes:\n");
    for p in all_passes() {
        let _ = writeln!(s, "  --{}  -  {}", p.argument, p.summary);
        if let Some(a) = p.anchor {
            let _ = writeln!(s, "      anchored on: {a}");
        }
        for o in p.options {
            let _ = writeln!(
                s,
                "      {}=<{}>  -  {} (default: {})",
                o.name,
                o.kind.type_name(),
                o.description,
                if o.default.is_empty() { "\"\"" } else { o.default }
            );
        }
    }
    s.push_str("Available pipelines:\n");
    for p in all_pipelines() {
        let _ = writeln!(s, "  --{}  -  {}", p.name, p.summary);
        let _ = writeln!(s, "      = {}", p.pipeline);
    }
    s
}

/// The pass reference (`docs/passes.md`), generated from the registry.
pub fn render_pass_docs() -> String {
    let mut s = String::new();
    s.push_str("# Pass reference\n\n");
    s.push_str("<!-- Generated from the pass registry by `aot-opt --generate-pass-docs`; do not edit. -->\n\n");
    s.push_str("## Named pipelines\n\n| name | passes | summary |\n|---|---|---|\n");
    for p in all_pipelines() {
        let _ = writeln!(s, "| `{}` | `{}` | {} |", p.name, p.pipeline, p.summary);
    }
    s.push_str("\n## Passes\n");
    for p in all_passes() {
        let _ = writeln!(s, "\n### `{}` ({})\n\n{}\n", p.argument, p.name, p.summary);
        if !p.description.is_empty() {
            let _ = writeln!(s, "{}\n", p.description.trim());
        }
        let _ = writeln!(s, "Anchored on: `{}`.\n", p.anchor.unwrap_or("any"));
        if !p.options.is_empty() {
            s.push_str("| option | type | default | description |\n|---|---|---|---|\n");
            for o in p.options {
                let _ = writeln!(s, "| `{}` | {} | `{}` | {} |", o.name, o.kind.type_name(), o.default, o.description);
            }
            s.push('\n');
        }
        if !p.statistics.is_empty() {
            s.push_str("| statistic | description |\n|---|---|\n");
            for st in p.statistics {
                let _ = writeln!(s, "| `{}` | {} |", st.name, st.description);
            }
            s.push('\n');
        }
    }
    s
}
