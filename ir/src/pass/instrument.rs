//! Pass instrumentation: IR printing around passes, change detection,
//! timing and statistics reports (formatted as MLIR formats them).
//!
//! Change detection uses a structural fingerprint of the anchor op (op and
//! value ids, names, operands, result types, attributes and nesting), so
//! `--print-ir-after-change` does not depend on passes reporting changes
//! honestly.

use crate::context::Context;
use crate::entity::Op;
use std::hash::{Hash, Hasher};
use std::time::Duration;

/// Which IR dumps to print around passes.
#[derive(Clone, Debug, Default)]
pub struct IrPrintConfig {
    /// Pass arguments to print the IR before.
    pub before: Vec<String>,
    /// Pass arguments to print the IR after.
    pub after: Vec<String>,
    pub before_all: bool,
    pub after_all: bool,
    /// Print after a pass only if it changed the IR.
    pub after_change: bool,
    pub after_failure: bool,
    pub generic: bool,
}

impl IrPrintConfig {
    pub fn wants_before(&self, arg: &str) -> bool {
        self.before_all || self.before.iter().any(|a| a == arg)
    }

    pub fn wants_after(&self, arg: &str) -> bool {
        self.after_all || self.after_change || self.after.iter().any(|a| a == arg)
    }

    /// Checks that every pass named for printing before or after is
    /// registered: a misspelt name would otherwise print nothing, silently.
    pub fn check_pass_names(&self) -> Result<(), String> {
        for (flag, names) in [("--print-ir-before", &self.before), ("--print-ir-after", &self.after)] {
            for name in names {
                if super::lookup_pass(name).is_some() {
                    continue;
                }
                let hint = if super::lookup_pipeline(name).is_some() {
                    "it is a pass pipeline; name one of its passes"
                } else {
                    "see --list-passes"
                };
                return Err(format!("{flag}: '{name}' does not refer to a registered pass ({hint})"));
            }
        }
        Ok(())
    }

    pub fn any(&self) -> bool {
        self.before_all
            || self.after_all
            || self.after_change
            || self.after_failure
            || !self.before.is_empty()
            || !self.after.is_empty()
    }
}

/// A structural hash of `op` and everything nested in it.
pub fn fingerprint(ctx: &Context, op: Op) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    ctx.walk_pre(op, &mut |o| {
        o.hash(&mut h);
        ctx.op_name_of(o).hash(&mut h);
        for v in ctx.operands(o) {
            v.hash(&mut h);
        }
        for &r in ctx.results(o) {
            r.hash(&mut h);
            ctx.value_type(r).hash(&mut h);
        }
        ctx.attrs(o).hash(&mut h);
        for &r in ctx.regions(o) {
            for &b in ctx.region_blocks(r) {
                b.hash(&mut h);
                for &a in ctx.block_args(b) {
                    a.hash(&mut h);
                    ctx.value_type(a).hash(&mut h);
                }
            }
        }
    });
    h.finish()
}

/// A node of the timing tree.
#[derive(Clone, Debug, Default)]
pub struct TimingNode {
    pub name: String,
    pub time: Duration,
    pub children: Vec<TimingNode>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum TimingDisplay {
    #[default]
    List,
    Tree,
}

const RULE: &str = "===-------------------------------------------------------------------------===";

fn header(title: &str) -> String {
    let pad = (RULE.len().saturating_sub(title.len())) / 2;
    format!("{RULE}\n{}{title}\n{RULE}\n", " ".repeat(pad))
}

fn pct(t: Duration, total: Duration) -> f64 {
    if total.is_zero() {
        0.0
    } else {
        100.0 * t.as_secs_f64() / total.as_secs_f64()
    }
}

/// MLIR's execution time report for top-level timers `roots`.
pub fn render_timing(roots: &[TimingNode], display: TimingDisplay) -> String {
    let total: Duration = roots.iter().map(|r| r.time).sum();
    let mut s = header("... Execution time report ...");
    s.push_str(&format!("  Total Execution Time: {:.4} seconds\n\n", total.as_secs_f64()));
    s.push_str("  ----Wall Time----  ----Name----\n");
    match display {
        TimingDisplay::Tree => {
            fn rec(n: &TimingNode, depth: usize, total: Duration, s: &mut String) {
                s.push_str(&format!(
                    "  {:>8.4} ({:>5.1}%)  {}{}\n",
                    n.time.as_secs_f64(),
                    pct(n.time, total),
                    "  ".repeat(depth),
                    n.name
                ));
                for c in &n.children {
                    rec(c, depth + 1, total, s);
                }
            }
            for r in roots {
                rec(r, 0, total, &mut s);
            }
        }
        TimingDisplay::List => {
            // Leaves aggregated by name, slowest first (pipelines are containers).
            let mut agg: Vec<(String, Duration)> = Vec::new();
            fn rec(n: &TimingNode, agg: &mut Vec<(String, Duration)>) {
                if n.children.is_empty() {
                    match agg.iter_mut().find(|(k, _)| *k == n.name) {
                        Some((_, t)) => *t += n.time,
                        None => agg.push((n.name.clone(), n.time)),
                    }
                } else {
                    for c in &n.children {
                        rec(c, agg);
                    }
                }
            }
            for r in roots {
                rec(r, &mut agg);
            }
            agg.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (name, t) in agg {
                s.push_str(&format!("  {:>8.4} ({:>5.1}%)  {}\n", t.as_secs_f64(), pct(t, total), name));
            }
        }
    }
    s.push_str(&format!("  {:>8.4} (100.0%)  Total\n", total.as_secs_f64()));
    s
}

pub(crate) fn statistics_header() -> String {
    header("... Pass statistics report ...")
}
