//! The pass manager: op-anchored nesting, named pipelines, verification
//! after each pass, and instrumentation.
//!
//! A pipeline is a tree of op pass managers, each anchored on an op name
//! (or `any`). Running a manager on an op runs its passes on that op in
//! order; a nested manager runs on every op directly inside the op's regions
//! whose name matches its anchor. A pass anchored on `func.func` placed in a
//! module-level pipeline is nested implicitly (consecutive ones share one
//! nested manager), as MLIR's implicit nesting mode does. Named pipelines are
//! expanded where they appear. All of this is resolved when the pipeline is
//! built, so malformed pipelines fail before any IR is touched.

use super::instrument::{fingerprint, statistics_header, IrPrintConfig, TimingNode};
use super::pipeline::{parse_pipeline, PipelineAst, PipelineElement, PipelineError};
use super::{lookup_pass, lookup_pipeline, Pass, PassInfo, PassOptions, PassState};
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::entity::Op;
use crate::parser::MODULE_OP;
use crate::printer::{print_op, PrintOptions};
use std::fmt::Write as _;
use std::io::Write;
use std::time::{Duration, Instant};

/// How a pipeline runs.
#[derive(Clone, Debug)]
pub struct PassManagerOptions {
    /// Verify the anchor op after every pass (default on).
    pub verify_each: bool,
    pub print: IrPrintConfig,
    /// Write a line to stderr as each pass starts on each anchor
    /// (`aot:     pass NAME on @f`): the live summary of a long compile
    /// (`aot_torch`'s compile report turns it on).
    pub progress: bool,
}

impl Default for PassManagerOptions {
    fn default() -> Self {
        PassManagerOptions { verify_each: true, print: IrPrintConfig::default(), progress: false }
    }
}

/// A pipeline run that failed: the diagnostics to report.
#[derive(Debug)]
pub struct PipelineFailure {
    pub diagnostics: Vec<Diagnostic>,
}

struct PassEntry {
    info: &'static PassInfo,
    pass: Box<dyn Pass>,
    stats: Vec<u64>,
    time: Duration,
    /// `arg{options}` as written, for reports.
    display: String,
}

enum Entry {
    Pass(PassEntry),
    Nested(OpPassManager),
}

struct OpPassManager {
    /// `None` runs on any op.
    anchor: Option<String>,
    entries: Vec<Entry>,
    time: Duration,
}

impl OpPassManager {
    fn new(anchor: Option<String>) -> Self {
        OpPassManager { anchor, entries: Vec::new(), time: Duration::ZERO }
    }

    fn anchor_name(&self) -> &str {
        self.anchor.as_deref().unwrap_or("any")
    }
}

/// A built pipeline, ready to run.
pub struct PassManager {
    root: OpPassManager,
    ast: PipelineAst,
    pub options: PassManagerOptions,
}

struct Builder<'a> {
    text: &'a str,
    /// Named pipelines being expanded (to reject recursion).
    expanding: Vec<String>,
}

impl Builder<'_> {
    fn err(&self, col: usize, msg: impl Into<String>) -> PipelineError {
        PipelineError { col, message: msg.into(), text: self.text.to_string() }
    }

    fn build(
        &mut self,
        pm: &mut OpPassManager,
        elements: &[PipelineElement],
        outer_col: Option<usize>,
    ) -> Result<(), PipelineError> {
        for el in elements {
            match el {
                PipelineElement::Nested { pipeline, col } => {
                    let col = outer_col.unwrap_or(*col);
                    let anchor = pipeline.anchor.clone().filter(|a| a != "any");
                    if let (Some(a), Some(m)) = (&anchor, &pm.anchor) {
                        if a == m {
                            return Err(self.err(col, format!("cannot nest a '{a}' pipeline inside a '{m}' pipeline: '{a}' ops do not contain '{a}' ops")));
                        }
                    }
                    let mut sub = OpPassManager::new(anchor);
                    self.build(&mut sub, &pipeline.elements, outer_col)?;
                    pm.entries.push(Entry::Nested(sub));
                }
                PipelineElement::Pass { name, options, col } => {
                    let col = outer_col.unwrap_or(*col);
                    if let Some(info) = lookup_pass(name) {
                        let opts = self.check_options(info, options, col)?;
                        let pass = (info.create)(&opts)
                            .map_err(|m| self.err(col, format!("invalid options for pass '{name}': {m}")))?;
                        let display = PipelineAst {
                            anchor: None,
                            elements: vec![PipelineElement::Pass { name: name.clone(), options: options.clone(), col }],
                        }
                        .to_text();
                        let entry = PassEntry {
                            info,
                            pass,
                            stats: vec![0; info.statistics.len()],
                            time: Duration::ZERO,
                            display,
                        };
                        self.add_pass(pm, entry, col)?;
                    } else if let Some(def) = lookup_pipeline(name) {
                        if !options.is_empty() {
                            return Err(self.err(col, format!("pipeline '{name}' takes no options")));
                        }
                        if self.expanding.iter().any(|n| n == name) {
                            return Err(self.err(col, format!("pipeline '{name}' refers to itself")));
                        }
                        let ast = parse_pipeline(def.pipeline).map_err(|e| {
                            self.err(col, format!("registered pipeline '{name}' is malformed: {}", e.message))
                        })?;
                        self.expanding.push(name.clone());
                        let els = match (&ast.anchor, &pm.anchor) {
                            (Some(a), Some(m)) if a == m => ast.elements.clone(),
                            (None, _) => ast.elements.clone(),
                            _ => vec![PipelineElement::Nested { pipeline: ast.clone(), col }],
                        };
                        self.build(pm, &els, Some(col))?;
                        self.expanding.pop();
                    } else {
                        return Err(
                            self.err(col, format!("'{name}' does not refer to a registered pass or pass pipeline"))
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn check_options(
        &self,
        info: &'static PassInfo,
        options: &[(String, Option<String>)],
        col: usize,
    ) -> Result<PassOptions, PipelineError> {
        let mut values = Vec::new();
        for (k, v) in options {
            let Some(spec) = info.options.iter().find(|s| s.name == k) else {
                let known: Vec<&str> = info.options.iter().map(|s| s.name).collect();
                let hint = if known.is_empty() {
                    "it has no options".to_string()
                } else {
                    format!("its options: {}", known.join(", "))
                };
                return Err(self.err(col, format!("no such option '{k}' for pass '{}' ({hint})", info.argument)));
            };
            let value = match v {
                Some(v) => v.clone(),
                None if spec.kind == super::OptionKind::Bool => "true".to_string(),
                None => return Err(self.err(col, format!("option '{k}' of pass '{}' needs a value", info.argument))),
            };
            spec.kind.check(&value).map_err(|m| {
                self.err(col, format!("invalid value '{value}' for option '{k}' of pass '{}': {m}", info.argument))
            })?;
            values.push((k.clone(), value));
        }
        Ok(PassOptions::new(info.options, values))
    }

    fn add_pass(&mut self, pm: &mut OpPassManager, entry: PassEntry, col: usize) -> Result<(), PipelineError> {
        let arg = entry.info.argument;
        match (entry.info.anchor, pm.anchor.as_deref()) {
            (None, _) => pm.entries.push(Entry::Pass(entry)),
            (Some(a), Some(m)) if a == m => pm.entries.push(Entry::Pass(entry)),
            (Some(a), Some(MODULE_OP)) => {
                // Implicit nesting: reuse a trailing nested manager on `a`.
                if let Some(Entry::Nested(sub)) = pm.entries.last_mut() {
                    if sub.anchor.as_deref() == Some(a) {
                        sub.entries.push(Entry::Pass(entry));
                        return Ok(());
                    }
                }
                let mut sub = OpPassManager::new(Some(a.to_string()));
                sub.entries.push(Entry::Pass(entry));
                pm.entries.push(Entry::Nested(sub));
            }
            (Some(a), m) => {
                return Err(self.err(
                    col,
                    format!(
                        "can't run '{arg}' restricted to '{a}' on a pass manager intended to run on '{}', did you intend to nest?",
                        m.unwrap_or("any")
                    ),
                ))
            }
        }
        Ok(())
    }
}

impl PassManager {
    /// Parses and builds a pipeline.
    pub fn parse(text: &str) -> Result<PassManager, PipelineError> {
        let ast = parse_pipeline(text)?;
        Self::from_ast(ast, text)
    }

    pub fn from_ast(ast: PipelineAst, text: &str) -> Result<PassManager, PipelineError> {
        let anchor = ast.anchor.clone().unwrap_or_else(|| MODULE_OP.to_string());
        let mut root = OpPassManager::new(Some(anchor).filter(|a| a != "any"));
        let mut b = Builder { text, expanding: Vec::new() };
        b.build(&mut root, &ast.elements, None)?;
        Ok(PassManager { root, ast, options: PassManagerOptions::default() })
    }

    /// The pipeline as written (normalized).
    pub fn pipeline_text(&self) -> String {
        self.ast.to_text()
    }

    /// The resolved pipeline: explicit nesting, named pipelines expanded.
    pub fn resolved_text(&self) -> String {
        fn rec(pm: &OpPassManager, s: &mut String) {
            s.push_str(pm.anchor_name());
            s.push('(');
            for (i, e) in pm.entries.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                match e {
                    Entry::Pass(p) => s.push_str(&p.display),
                    Entry::Nested(sub) => rec(sub, s),
                }
            }
            s.push(')');
        }
        let mut s = String::new();
        rec(&self.root, &mut s);
        s
    }

    /// Runs the pipeline on `op` (normally a module). IR dumps go to `sink`.
    pub fn run(&mut self, ctx: &mut Context, op: Op, sink: &mut dyn Write) -> Result<(), PipelineFailure> {
        let root_name = ctx.op_name(op).to_string();
        if let Some(a) = &self.root.anchor {
            if *a != root_name {
                return Err(PipelineFailure {
                    diagnostics: vec![Diagnostic::error(
                        ctx.op_loc(op),
                        format!("can't run a pipeline anchored on '{a}' on '{root_name}'"),
                    )],
                });
            }
        }
        let opts = self.options.clone();
        let t0 = Instant::now();
        let r = run_manager(&mut self.root, ctx, op, &opts, sink);
        self.root.time += t0.elapsed();
        r
    }

    /// The timing tree of everything run so far.
    pub fn timing(&self) -> TimingNode {
        fn rec(pm: &OpPassManager) -> TimingNode {
            TimingNode {
                name: format!("'{}' Pipeline", pm.anchor_name()),
                time: pm.time,
                children: pm
                    .entries
                    .iter()
                    .map(|e| match e {
                        Entry::Pass(p) => {
                            TimingNode { name: p.info.name.to_string(), time: p.time, children: Vec::new() }
                        }
                        Entry::Nested(sub) => rec(sub),
                    })
                    .collect(),
            }
        }
        let mut root = rec(&self.root);
        root.name = "Pipeline".to_string();
        root
    }

    /// MLIR's pass statistics report.
    pub fn statistics_report(&self) -> String {
        fn rec(pm: &OpPassManager, depth: usize, s: &mut String) {
            let ind = "  ".repeat(depth);
            let _ = writeln!(s, "{ind}'{}' Pipeline", pm.anchor_name());
            for e in &pm.entries {
                match e {
                    Entry::Pass(p) => {
                        let _ = writeln!(s, "{ind}  {}", p.info.name);
                        for (spec, v) in p.info.statistics.iter().zip(&p.stats) {
                            let _ = writeln!(s, "{ind}    (S) {v} {} - {}", spec.name, spec.description);
                        }
                    }
                    Entry::Nested(sub) => rec(sub, depth + 1, s),
                }
            }
        }
        let mut s = statistics_header();
        rec(&self.root, 0, &mut s);
        s
    }

    /// Statistic values by (pass argument, statistic name), summed over instances.
    pub fn statistic(&self, pass: &str, stat: &str) -> Option<u64> {
        fn rec(pm: &OpPassManager, pass: &str, stat: &str, acc: &mut Option<u64>) {
            for e in &pm.entries {
                match e {
                    Entry::Pass(p) if p.info.argument == pass => {
                        if let Some(i) = p.info.statistics.iter().position(|s| s.name == stat) {
                            *acc = Some(acc.unwrap_or(0) + p.stats[i]);
                        }
                    }
                    Entry::Pass(_) => {}
                    Entry::Nested(sub) => rec(sub, pass, stat, acc),
                }
            }
        }
        let mut acc = None;
        rec(&self.root, pass, stat, &mut acc);
        acc
    }
}

fn dump(ctx: &Context, op: Op, title: &str, generic: bool, sink: &mut dyn Write) {
    let text = print_op(ctx, op, PrintOptions { generic, debug_info: false });
    let _ = writeln!(sink, "// -----// IR Dump {title} //----- //\n{text}\n");
}

fn run_manager(
    pm: &mut OpPassManager,
    ctx: &mut Context,
    op: Op,
    opts: &PassManagerOptions,
    sink: &mut dyn Write,
) -> Result<(), PipelineFailure> {
    for entry in &mut pm.entries {
        match entry {
            Entry::Pass(p) => run_pass(p, ctx, op, opts, sink)?,
            Entry::Nested(sub) => {
                let mut targets = Vec::new();
                for &r in ctx.regions(op) {
                    for &b in ctx.region_blocks(r) {
                        for child in ctx.block_ops(b) {
                            if sub.anchor.as_deref().is_none_or(|a| ctx.op_name(child) == a) {
                                targets.push(child);
                            }
                        }
                    }
                }
                let t0 = Instant::now();
                let mut result = Ok(());
                for child in targets {
                    if ctx.is_erased(child) {
                        continue;
                    }
                    if let Err(e) = run_manager(sub, ctx, child, opts, sink) {
                        result = Err(e);
                        break;
                    }
                }
                sub.time += t0.elapsed();
                result?;
            }
        }
    }
    Ok(())
}

/// Passes that see subclass values (`!aot.subclass<...>`): the one that
/// removes them and the generic cleanups, which treat ops by their traits.
const SUBCLASS_AWARE_PASSES: &[&str] = &["flatten-subclasses", "cse", "dce"];

/// The passes that handle symbolic sizes ([`crate::sym`]); the others
/// refuse a function that has any, so none computes with one unawares.
const SYMBOLIC_AWARE_PASSES: &[&str] = &[
    "cse",
    "dce",
    "canonicalize",
    "flatten-subclasses",
    "functionalize",
    "simplify",
    "collect-metadata",
    "dedupe",
    "synthetic-base",
    "rng-functionalize",
    "joint",
    "partition",
    "protect-reads",
    "lower-to-loops",
    "fuse",
    "collapse-loops",
    "plan-memory",
];

fn run_pass(
    p: &mut PassEntry,
    ctx: &mut Context,
    op: Op,
    opts: &PassManagerOptions,
    sink: &mut dyn Write,
) -> Result<(), PipelineFailure> {
    let arg = p.info.argument;
    let title = format!("{} ({arg})", p.info.name);
    if opts.print.wants_before(arg) {
        dump(ctx, op, &format!("Before {title}"), opts.print.generic, sink);
    }
    let before = opts.print.after_change.then(|| fingerprint(ctx, op));
    if !SUBCLASS_AWARE_PASSES.contains(&arg) {
        if let Some(v) = crate::registry::first_subclass_value(ctx, op) {
            let loc = match ctx.value_def(v) {
                crate::context::ValueDef::Result { op: o, .. } => ctx.op_loc(o),
                crate::context::ValueDef::BlockArg { .. } => ctx.op_loc(op),
            };
            return Err(PipelineFailure {
                diagnostics: vec![Diagnostic::error(
                    loc,
                    format!(
                        "pass '{arg}' works on dense tensors, but this value has type {}: run flatten-subclasses \
first (aot-train and aot-inference start with it)",
                        crate::printer::type_to_string(ctx, ctx.value_type(v))
                    ),
                )],
            });
        }
    }
    if !SYMBOLIC_AWARE_PASSES.contains(&arg) {
        if let Some((o, what)) = crate::sym::first_symbolic_op(ctx, op) {
            return Err(PipelineFailure {
                diagnostics: vec![Diagnostic::error(
                    ctx.op_loc(o),
                    format!(
                        "pass '{arg}' does not support symbolic sizes yet: {what} (the passes that do: {})",
                        SYMBOLIC_AWARE_PASSES.join(", ")
                    ),
                )],
            });
        }
    }
    if opts.progress {
        match ctx.attr_str(op, "sym_name") {
            Some(f) => eprintln!("aot:     pass {} on @{f}", p.info.name),
            None => eprintln!("aot:     pass {}", p.info.name),
        }
    }
    // The ops beside `op` before the pass: one that adds a sibling (the
    // partitioner's backward function) has that verified too.
    let siblings_before: Option<rustc_hash::FxHashSet<Op>> =
        opts.verify_each.then(|| ctx.op_block(op).map(|b| ctx.block_ops(b).collect())).flatten();
    let mut state = PassState::new(p.info);
    let t0 = Instant::now();
    let result = p.pass.run(ctx, op, &mut state);
    p.time += t0.elapsed();
    for (acc, v) in p.stats.iter_mut().zip(&state.stats) {
        *acc += v;
    }
    if let Err(d) = result {
        if opts.print.after_failure {
            dump(ctx, op, &format!("After {title} Failed"), opts.print.generic, sink);
        }
        return Err(PipelineFailure { diagnostics: vec![d] });
    }
    if opts.verify_each {
        let added: Vec<Op> = match (&siblings_before, ctx.op_block(op)) {
            (Some(before), Some(b)) => ctx.block_ops(b).filter(|o| !before.contains(o)).collect(),
            _ => Vec::new(),
        };
        let verified = std::iter::once(op).chain(added).try_for_each(|o| crate::verifier::verify(ctx, o));
        if let Err(mut diags) = verified {
            if opts.print.after_failure {
                dump(ctx, op, &format!("After {title} Failed"), opts.print.generic, sink);
            }
            let loc = ctx.op_loc(op);
            diags.push(Diagnostic::error(loc, format!("verification failed after pass '{arg}' (a bug in the pass)")));
            return Err(PipelineFailure { diagnostics: diags });
        }
    }
    let print_after = if opts.print.after_change && !opts.print.after_all && !opts.print.after.iter().any(|a| a == arg)
    {
        before != Some(fingerprint(ctx, op))
    } else {
        opts.print.wants_after(arg)
    };
    if print_after {
        dump(ctx, op, &format!("After {title}"), opts.print.generic, sink);
    }
    Ok(())
}
