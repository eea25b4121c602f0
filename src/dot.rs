//! Graphviz pictures of IR (`aot-opt --emit=dot`, and the partition picture
//! of `aot_torch`'s compile report).
//!
//! One `digraph` per module. Each function is a cluster; an op is a node,
//! filled with its dialect's colour; an op with regions (a loop) is a
//! cluster of its own holding a header node and its body. Edges run from a
//! value's definition to each use. Views are drawn dashed; an in-place op
//! (the `mut` dialect, or any op that declares a write to an operand) has a
//! thick dark-red border, and the edge of the operand it writes is red and
//! labelled `writes`. After `partition`, the values the forward saves for
//! the backward are outlined in red with their bytes, and a bold red edge
//! (an edge of the cut) runs from each to the backward argument that
//! receives it; backward ops that depend on no tangent (recomputation, and
//! the factors of derivatives the backward takes from saved values alone)
//! are marked `from saved values`.
//!
//! Invariants: the output is valid DOT for any module the parser accepts,
//! whatever its attributes say (a damaged `aot.partition` record draws no
//! partition, never an error); every string is quoted and escaped; node
//! names come from the arenas' dense ids, so they are unique and stable for
//! a given module.

use crate::dialects::func::{funcs, FuncView};
use crate::ir::effects::{memory_effects, Effect, On};
use crate::ir::printer::type_to_string;
use crate::ir::{AttrData, Block, Context, Op, Traits, TypeData, Value, ValueDef};
use crate::passes::joint::TANGENT;
use crate::passes::partition::{PartitionInfo, BACKWARD_ATTR, SAVED};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write;

/// Fill colours of the dialects this project defines; an op of another
/// dialect gets one of `OTHER` by a hash of its dialect's name.
const DIALECT_COLOURS: &[(&str, &str)] = &[
    ("tensor", "#cfe2f3"),
    ("view", "#fff2cc"),
    ("mut", "#f4cccc"),
    ("rng", "#d9d2e9"),
    ("loop", "#d9ead3"),
    ("subclass", "#fce5cd"),
    ("func", "#eeeeee"),
    ("builtin", "#eeeeee"),
];
const OTHER: &[&str] = &["#d0e0e3", "#ead1dc", "#e6e6fa", "#f0fff0", "#fdf5e6"];
const CUT: &str = "#c0392b";
const WRITE: &str = "#8b0000";

fn dialect_colour(dialect: &str) -> &'static str {
    if let Some((_, c)) = DIALECT_COLOURS.iter().find(|(d, _)| *d == dialect) {
        return c;
    }
    let h = dialect.bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
    OTHER[h % OTHER.len()]
}

fn dialect_of(name: &str) -> &str {
    name.split_once('.').map_or(name, |(d, _)| d)
}

/// `s` as the body of a DOT string (`"..."`): quotes and backslashes
/// escaped, line breaks as DOT's centred `\n`.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// Bytes as people read them: `512 B`, `4.0 KiB`, `1.5 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: &[&str] = &["B", "KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// A type as a label line: a tensor without its `tensor<...>` wrapper.
fn short_type(ctx: &Context, t: crate::ir::Type) -> String {
    let s = type_to_string(ctx, t);
    match ctx.type_data(t) {
        TypeData::Tensor(_) => s.strip_prefix("tensor<").and_then(|r| r.strip_suffix('>')).unwrap_or(&s).to_string(),
        _ => s,
    }
}

fn value_bytes(ctx: &Context, v: Value) -> u64 {
    ctx.value_tensor(v).map_or(0, |t| t.byte_size().max(0) as u64)
}

/// The operands an op writes: its first for an in-place op (the `mut`
/// dialect's convention), and any its memory effects name.
fn written_operands(ctx: &Context, op: Op) -> FxHashSet<usize> {
    let mut w = FxHashSet::default();
    if ctx.num_operands(op) > 0 && (ctx.has_trait(op, Traits::INPLACE) || ctx.has_trait(op, Traits::METADATA_MUTATION))
    {
        w.insert(0);
    }
    for &(e, on) in memory_effects(ctx, op).unwrap_or(&[]) {
        if let (Effect::Write, On::Operand(i)) = (e, on) {
            if i < ctx.num_operands(op) {
                w.insert(i);
            }
        }
    }
    w
}

/// What the partition decided, as the picture shows it.
#[derive(Default)]
struct Partition {
    /// Forward values saved for a backward: (index among the saved, bytes).
    saved: FxHashMap<Value, Vec<(usize, u64)>>,
    /// Backward ops that depend on no tangent.
    recomputed: FxHashSet<Op>,
    /// Per function, the line its cluster label adds.
    label: FxHashMap<Op, String>,
    /// Per partitioned forward, what was decided.
    pairs: Vec<Pair>,
}

/// A partitioned forward, its backward (when it exists), its record and
/// its saved values in order.
struct Pair {
    forward: FuncView,
    backward: Option<FuncView>,
    info: PartitionInfo,
    saved: Vec<SavedValue>,
}

/// A saved value, the backward argument that receives it (if the backward
/// exists), its index among the saved values and its bytes.
type SavedValue = (Value, Option<Value>, usize, u64);

impl Partition {
    fn of(ctx: &Context, funcs: &[FuncView]) -> Partition {
        let mut p = Partition::default();
        let by_name: FxHashMap<&str, FuncView> = funcs.iter().map(|f| (f.name(ctx), *f)).collect();
        for f in funcs {
            let Ok(Some(info)) = PartitionInfo::of_func(ctx, f.op) else { continue };
            let Some(ret) = f.return_op(ctx) else { continue };
            let n = ctx.num_operands(ret);
            let Some(first) = n.checked_sub(info.num_saved) else { continue };
            let backward = match ctx.get_attr(f.op, BACKWARD_ATTR).map(|a| ctx.attr_data(a)) {
                Some(AttrData::SymbolRef(s)) => by_name.get(ctx.sym_str(*s)),
                _ => None,
            };
            p.label.insert(
                f.op,
                format!(
                    "forward ({} partition): {} saved, {}, modelled peak {}",
                    info.strategy,
                    info.num_saved,
                    human_bytes(info.saved_bytes),
                    human_bytes(info.peak_bytes)
                ),
            );
            let mut receivers: FxHashMap<usize, Value> = FxHashMap::default();
            if let Some(b) = backward {
                for (i, &a) in b.args(ctx).iter().enumerate() {
                    if let Some(j) = b.arg_attr(ctx, i, SAVED).and_then(|a| ctx.attr_as_i64(a)) {
                        receivers.insert(j as usize, a);
                    }
                }
                p.label.insert(b.op, format!("backward of @{}", f.name(ctx)));
                p.mark_recomputed(ctx, *b);
            }
            let mut pair = Vec::new();
            for j in 0..info.num_saved {
                let v = ctx.operand(ret, first + j);
                let bytes = value_bytes(ctx, v);
                p.saved.entry(v).or_default().push((j, bytes));
                pair.push((v, receivers.get(&j).copied(), j, bytes));
            }
            p.pairs.push(Pair { forward: *f, backward: backward.copied(), info, saved: pair });
        }
        p
    }

    /// Marks the ops of backward `b` that no tangent reaches (an op
    /// nested in another takes its parent's part, and only the parent is
    /// marked).
    fn mark_recomputed(&mut self, ctx: &Context, b: FuncView) {
        let mut reached: FxHashSet<Value> = FxHashSet::default();
        for (i, &a) in b.args(ctx).iter().enumerate() {
            if b.arg_has(ctx, i, TANGENT) {
                reached.insert(a);
            }
        }
        let mut reached_ops: FxHashSet<Op> = FxHashSet::default();
        let mut ops = Vec::new();
        ctx.walk_pre(b.op, &mut |o| ops.push(o));
        // Pre-order is program order: a definition comes before its uses,
        // a parent before the ops in its regions.
        for &o in &ops {
            if o == b.op {
                continue;
            }
            let parent = ctx.parent_op(o).filter(|&p| p != b.op);
            if ctx.operands(o).any(|v| reached.contains(&v)) || parent.is_some_and(|p| reached_ops.contains(&p)) {
                reached_ops.insert(o);
                reached.extend(ctx.results(o).iter().copied());
                for &r in ctx.regions(o) {
                    for &blk in ctx.region_blocks(r) {
                        reached.extend(ctx.block_args(blk).iter().copied());
                    }
                }
            } else if parent.is_none() && ctx.num_operands(o) > 0 && !ctx.has_trait(o, Traits::TERMINATOR) {
                self.recomputed.insert(o);
            }
        }
    }
}

struct Writer<'a> {
    ctx: &'a Context,
    part: Partition,
    out: String,
    dialects: Vec<&'a str>,
    has_views: bool,
    has_writes: bool,
}

impl<'a> Writer<'a> {
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn value_node(&self, v: Value) -> String {
        match self.ctx.value_def(v) {
            ValueDef::Result { op, .. } => format!("{op}"),
            ValueDef::BlockArg { .. } => format!("{v}"),
        }
    }

    fn block(&mut self, b: Block, depth: usize, func: Option<FuncView>) {
        let ctx = self.ctx;
        for (i, &a) in ctx.block_args(b).iter().enumerate() {
            let mut label = format!("%arg{i}: {}", short_type(ctx, ctx.value_type(a)));
            if let Some(f) = func {
                for na in f.arg_attrs(ctx, i) {
                    let key = ctx.sym_str(na.name);
                    let val = crate::ir::printer::attr_to_string(ctx, na.value);
                    if val == "unit" {
                        let _ = write!(label, "\n{key}");
                    } else {
                        let _ = write!(label, "\n{key} = {val}");
                    }
                }
            }
            let mut extra = String::new();
            self.saved_marks(&[a], &mut label, &mut extra);
            let line = format!(
                "{a} [shape=ellipse, style=filled, fillcolor=\"#ffffff\", label=\"{}\"{extra}];",
                escape(&label)
            );
            self.line(depth, &line);
        }
        let ops: Vec<Op> = ctx.block_ops(b).collect();
        for op in ops {
            self.op(op, depth);
        }
    }

    fn op(&mut self, op: Op, depth: usize) {
        let ctx = self.ctx;
        let name = ctx.op_name(op);
        let dialect = dialect_of(name);
        if !self.dialects.contains(&dialect) {
            self.dialects.push(dialect);
        }
        let func = FuncView::new(ctx, op);
        let has_regions = ctx.regions(op).iter().any(|&r| !ctx.region_blocks(r).is_empty());
        let header = !has_regions || ctx.num_operands(op) > 0 || ctx.num_results(op) > 0;
        if has_regions {
            let title = match func {
                Some(f) => {
                    let mut t = format!("func @{}", f.name(ctx));
                    if let Some(l) = self.part.label.get(&op) {
                        let _ = write!(t, "\n{l}");
                    }
                    t
                }
                None => name.to_string(),
            };
            self.line(depth, &format!("subgraph \"cluster_{op}\" {{"));
            let fill = if func.is_some() { "#fafafa" } else { "#f3f9f1" };
            self.line(
                depth + 1,
                &format!("label=\"{}\"; style=\"rounded,filled\"; fillcolor=\"{fill}\";", escape(&title)),
            );
        }
        let inner = if has_regions { depth + 1 } else { depth };
        if header {
            self.node(op, inner);
        }
        if has_regions {
            for &r in ctx.regions(op) {
                for &b in ctx.region_blocks(r) {
                    self.block(b, inner, func);
                }
            }
            self.line(depth, "}");
        }
        if header {
            self.edges(op, depth);
        }
    }

    fn node(&mut self, op: Op, depth: usize) {
        let ctx = self.ctx;
        let name = ctx.op_name(op);
        let mut label = name.to_string();
        let types: Vec<String> = ctx.results(op).iter().map(|&r| short_type(ctx, ctx.value_type(r))).collect();
        if !types.is_empty() {
            let _ = write!(label, "\n{}", types.join(", "));
        }
        let view = ctx.has_trait(op, Traits::VIEW);
        let writes = !written_operands(ctx, op).is_empty();
        let mut style = vec!["rounded", "filled"];
        let mut extra = String::new();
        if view {
            style.push("dashed");
            label.push_str("\n(view)");
            self.has_views = true;
        }
        if writes {
            label.push_str("\n(in place)");
            let _ = write!(extra, ", color=\"{WRITE}\", penwidth=2.5");
            self.has_writes = true;
        }
        self.saved_marks(ctx.results(op), &mut label, &mut extra);
        if self.part.recomputed.contains(&op) {
            label.push_str("\nfrom saved values");
            style.push("diagonals");
        }
        let fill = dialect_colour(dialect_of(name));
        let line =
            format!("{op} [label=\"{}\", style=\"{}\", fillcolor=\"{fill}\"{extra}];", escape(&label), style.join(","));
        self.line(depth, &line);
    }

    /// The label lines and outline of a node whose values are saved for
    /// a backward.
    fn saved_marks(&self, values: &[Value], label: &mut String, extra: &mut String) {
        let saved: Vec<(usize, u64)> =
            values.iter().filter_map(|r| self.part.saved.get(r)).flatten().copied().collect();
        for (j, bytes) in &saved {
            let _ = write!(label, "\nsaved #{j}, {}", human_bytes(*bytes));
        }
        if !saved.is_empty() {
            let _ = write!(extra, ", color=\"{CUT}\", penwidth=3");
        }
    }

    fn edges(&mut self, op: Op, depth: usize) {
        let ctx = self.ctx;
        let written = written_operands(ctx, op);
        for (i, v) in ctx.operands(op).enumerate() {
            let from = self.value_node(v);
            let mut attrs = Vec::new();
            if let ValueDef::Result { op: def, index } = ctx.value_def(v) {
                if ctx.num_results(def) > 1 {
                    attrs.push(format!("taillabel=\"#{index}\""));
                }
            }
            if written.contains(&i) {
                attrs.push(format!("color=\"{WRITE}\", fontcolor=\"{WRITE}\", penwidth=2, label=\"writes\""));
            }
            let a = if attrs.is_empty() { String::new() } else { format!(" [{}]", attrs.join(", ")) };
            self.line(depth, &format!("{from} -> {op}{a};"));
        }
    }

    fn legend(&mut self) {
        self.line(1, "subgraph \"cluster_legend\" {");
        self.line(2, "label=\"legend\"; style=\"rounded\"; fontsize=10;");
        let dialects = std::mem::take(&mut self.dialects);
        for d in &dialects {
            let line = format!(
                "\"legend dialect {}\" [label=\"{}\", style=\"rounded,filled\", fillcolor=\"{}\"];",
                escape(d),
                escape(d),
                dialect_colour(d)
            );
            self.line(2, &line);
        }
        if self.has_views {
            self.line(
                2,
                "\"legend mark view\" [label=\"a view\", style=\"rounded,filled,dashed\", fillcolor=\"#ffffff\"];",
            );
        }
        if self.has_writes {
            let line = format!(
                "\"legend mark write\" [label=\"in place: writes the red operand\", style=\"rounded\", color=\"{WRITE}\", penwidth=2.5];"
            );
            self.line(2, &line);
        }
        if !self.part.saved.is_empty() {
            let line = format!(
                "\"legend mark saved\" [label=\"saved for backward (bold red edges: the cut)\", style=\"rounded\", color=\"{CUT}\", penwidth=3];"
            );
            self.line(2, &line);
        }
        if !self.part.recomputed.is_empty() {
            self.line(2, "\"legend mark from saved\" [label=\"backward work from saved values only (no tangent)\", style=\"rounded,diagonals\"];");
        }
        self.line(1, "}");
    }
}

/// The Graphviz `digraph` of `module` (any op: its regions are drawn).
pub fn render(ctx: &Context, module: Op) -> String {
    let part = Partition::of(ctx, &funcs(ctx, module));
    let mut w = Writer { ctx, part, out: String::new(), dialects: Vec::new(), has_views: false, has_writes: false };
    w.line(0, "digraph \"aot\" {");
    w.line(1, "graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, newrank=true];");
    w.line(1, "node [shape=box, fontname=\"Courier\", fontsize=9];");
    w.line(1, "edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];");
    // The module itself is the picture, not a cluster.
    let mut top = Vec::new();
    for &r in ctx.regions(module) {
        for &b in ctx.region_blocks(r) {
            top.extend(ctx.block_ops(b));
        }
    }
    if ctx.regions(module).is_empty() {
        top.push(module);
    }
    for op in top {
        w.op(op, 1);
    }
    let mut cut = Vec::new();
    for pair in &w.part.pairs {
        for &(v, a, j, bytes) in &pair.saved {
            if let Some(a) = a {
                cut.push(cut_edge(&w.value_node(v), &a.to_string(), j, bytes));
            }
        }
    }
    for line in &cut {
        w.line(1, line);
    }
    w.legend();
    w.line(0, "}");
    w.out
}

/// The bold red edge of the cut from a saved value's node to the node of
/// the backward argument that receives it.
fn cut_edge(from: &str, to: &str, j: usize, bytes: u64) -> String {
    format!(
        "{from} -> {to} [color=\"{CUT}\", fontcolor=\"{CUT}\", penwidth=2.5, style=bold, label=\"saved #{j}\\n{}\"];",
        escape(&human_bytes(bytes))
    )
}

/// The partition alone, for a module too large to draw whole (Graphviz
/// takes minutes to lay out a model's thousand ops, and the result cannot
/// be read): per partitioned forward, a node per saved value (what computes
/// it, its type, its index and bytes), the backward's arguments that
/// receive them, and the edges of the cut between; each function's title
/// counts the ops left out. None when nothing in `module` is partitioned.
pub fn render_partition(ctx: &Context, module: Op) -> Option<String> {
    let part = Partition::of(ctx, &funcs(ctx, module));
    if part.pairs.is_empty() {
        return None;
    }
    let mut w = Writer { ctx, part, out: String::new(), dialects: Vec::new(), has_views: false, has_writes: false };
    w.line(0, "digraph \"aot\" {");
    w.line(1, "graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11];");
    w.line(1, "node [shape=box, fontname=\"Courier\", fontsize=9, style=\"rounded,filled\"];");
    w.line(1, "edge [fontname=\"Helvetica\", fontsize=8];");
    let pairs = std::mem::take(&mut w.part.pairs);
    for (k, Pair { forward: f, backward: b, saved, .. }) in pairs.iter().enumerate() {
        let title = |g: &FuncView, w: &Writer<'_>| {
            let mut t = format!("func @{}", g.name(ctx));
            if let Some(l) = w.part.label.get(&g.op) {
                let _ = write!(t, "\n{l}");
            }
            let _ = write!(t, "\n({} ops, not drawn)", ctx.nested_ops(g.op).len());
            t
        };
        let t = title(f, &w);
        w.line(1, &format!("subgraph \"cluster_fw{k}\" {{"));
        w.line(2, &format!("label=\"{}\"; style=\"rounded,filled\"; fillcolor=\"#fafafa\";", escape(&t)));
        let mut drawn: FxHashSet<Value> = FxHashSet::default();
        for (v, _, _, _) in saved {
            if !drawn.insert(*v) {
                continue;
            }
            let (what, fill) = match ctx.value_def(*v) {
                ValueDef::Result { op, index } => {
                    let name = ctx.op_name(op);
                    let what = if ctx.num_results(op) > 1 { format!("{name} #{index}") } else { name.to_string() };
                    (what, dialect_colour(dialect_of(name)))
                }
                ValueDef::BlockArg { index, .. } => (format!("%arg{index}"), "#ffffff"),
            };
            let mut label = format!("{what}\n{}", short_type(ctx, ctx.value_type(*v)));
            let mut extra = String::new();
            w.saved_marks(&[*v], &mut label, &mut extra);
            w.line(2, &format!("\"s{v}\" [label=\"{}\", fillcolor=\"{fill}\"{extra}];", escape(&label)));
        }
        w.line(1, "}");
        if let Some(b) = b {
            let t = title(b, &w);
            w.line(1, &format!("subgraph \"cluster_bw{k}\" {{"));
            w.line(2, &format!("label=\"{}\"; style=\"rounded,filled\"; fillcolor=\"#fafafa\";", escape(&t)));
            for (i, &a) in b.args(ctx).iter().enumerate() {
                if let Some(j) = b.arg_attr(ctx, i, SAVED).and_then(|x| ctx.attr_as_i64(x)) {
                    let label = format!("%arg{i}: {}\naot.saved = {j}", short_type(ctx, ctx.value_type(a)));
                    w.line(
                        2,
                        &format!("\"r{a}\" [label=\"{}\", shape=ellipse, fillcolor=\"#ffffff\"];", escape(&label)),
                    );
                }
            }
            w.line(1, "}");
        }
        for (v, a, j, bytes) in saved {
            if let Some(a) = a {
                w.line(1, &cut_edge(&format!("\"s{v}\""), &format!("\"r{a}\""), *j, *bytes));
            }
        }
    }
    w.line(0, "}");
    Some(w.out)
}

/// What a partition decided, as data (what the pictures show; `aot_torch`'s
/// compile report lists it): the record, and each saved value's index,
/// type and bytes, in order.
#[derive(Clone, Debug)]
pub struct PartitionSummary {
    pub strategy: String,
    pub num_saved: usize,
    /// Storage the saved values keep alive (the record's `saved_bytes`).
    pub saved_bytes: u64,
    /// The modelled peak of forward then backward.
    pub peak_bytes: u64,
    /// (index among the saved values, printed type, bytes of the value).
    pub saved: Vec<(usize, String, u64)>,
}

/// The partition of the first partitioned function of `module` (the
/// functions directly inside it, as partition makes them), if any.
pub fn partition_summary(ctx: &Context, module: Op) -> Option<PartitionSummary> {
    let pair = Partition::of(ctx, &funcs(ctx, module)).pairs.into_iter().next()?;
    Some(PartitionSummary {
        strategy: pair.info.strategy,
        num_saved: pair.info.num_saved,
        saved_bytes: pair.info.saved_bytes,
        peak_bytes: pair.info.peak_bytes,
        saved: pair.saved.iter().map(|&(v, _, j, bytes)| (j, type_to_string(ctx, ctx.value_type(v)), bytes)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_for_dot() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn bytes_read_as_people_read_them() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(4096), "4.0 KiB");
        assert_eq!(human_bytes(3 << 20), "3.0 MiB");
        assert!(human_bytes(u64::MAX).ends_with(" TiB"));
    }

    #[test]
    fn unknown_dialects_get_a_colour_of_the_palette() {
        assert_eq!(dialect_colour("tensor"), "#cfe2f3");
        assert!(OTHER.contains(&dialect_colour("mydialect")));
    }
}
