//! The printer for MLIR's textual syntax.
//!
//! Values are named as MLIR names them: results `%0, %1, ...` (a multi-result
//! op defines `%3:2`, used as `%3#1`) and block arguments `%arg0, ...`,
//! numbered afresh inside every `IsolatedFromAbove` op. Names are assigned in
//! a pass over the printed op before any text is written, so uses that
//! precede their definition (graph regions) print correctly. Ops print in
//! their custom form unless [`PrintOptions::generic`] is set or the op has
//! none. Every printed module parses back to the same module (a tested law).

use crate::attributes::{AttrData, DenseData, NamedAttr};
use crate::context::Context;
use crate::entity::*;
use crate::lexer::escape;
use crate::location::LocData;
use crate::registry::{Syntax, Traits};
use crate::types::{ElemType, TypeData};
use cranelift_entity::SecondaryMap;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in the generic form.
    pub generic: bool,
    /// Print `loc(...)` after every op.
    pub debug_info: bool,
}

#[derive(Clone, Copy, Default)]
struct ValueName {
    /// 0: unnamed, 1: op result, 2: block argument.
    kind: u8,
    num: u32,
    /// Index within a multi-result group.
    idx: u32,
    group: u32,
}

#[derive(Clone, Copy, Default)]
struct Counters {
    value: u32,
    arg: u32,
    block: u32,
}

/// Prints ops; custom op printers receive it.
pub struct OpPrinter<'a> {
    ctx: &'a Context,
    out: String,
    opts: PrintOptions,
    names: SecondaryMap<Value, ValueName>,
    block_names: SecondaryMap<Block, u32>,
    indent: usize,
    default_dialects: Vec<&'static str>,
    /// Printed text of each type seen, since the same few types repeat.
    type_cache: SecondaryMap<Type, Option<Box<str>>>,
}

/// Prints `op` (and everything nested in it).
pub fn print_op(ctx: &Context, op: Op, opts: PrintOptions) -> String {
    let mut p = OpPrinter::new(ctx, opts);
    p.assign_names_root(op);
    p.print_operation(op);
    p.out
}

pub fn type_to_string(ctx: &Context, t: Type) -> String {
    let mut s = String::new();
    write_type(ctx, t, &mut s);
    s
}

pub fn attr_to_string(ctx: &Context, a: Attribute) -> String {
    let mut s = String::new();
    write_attr(ctx, a, &mut s);
    s
}

pub fn loc_to_string(ctx: &Context, l: Location) -> String {
    let mut s = String::new();
    write_loc(ctx, l, &mut s);
    s
}

/// A comma-separated list of types, e.g. for error messages.
pub fn types_to_string(ctx: &Context, ts: &[Type]) -> String {
    let mut s = String::new();
    for (i, &t) in ts.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        write_type(ctx, t, &mut s);
    }
    s
}

impl<'a> OpPrinter<'a> {
    fn new(ctx: &'a Context, opts: PrintOptions) -> Self {
        OpPrinter {
            ctx,
            out: String::new(),
            opts,
            names: SecondaryMap::new(),
            block_names: SecondaryMap::new(),
            indent: 0,
            default_dialects: vec!["builtin"],
            type_cache: SecondaryMap::new(),
        }
    }

    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }

    // ----- naming -----

    fn assign_names_root(&mut self, op: Op) {
        let mut c = Counters::default();
        self.name_results(op, &mut c);
        self.name_regions(op, &mut c);
    }

    fn name_results(&mut self, op: Op, c: &mut Counters) {
        let results = self.ctx.results(op);
        if results.is_empty() {
            return;
        }
        let num = c.value;
        c.value += 1;
        let group = results.len() as u32;
        for (i, &r) in results.iter().enumerate() {
            self.names[r] = ValueName { kind: 1, num, idx: i as u32, group };
        }
    }

    fn name_regions(&mut self, op: Op, outer: &mut Counters) {
        let isolated = self.ctx.has_trait(op, Traits::ISOLATED_FROM_ABOVE);
        let mut fresh = Counters::default();
        let c = if isolated { &mut fresh } else { outer };
        for &r in self.ctx.regions(op) {
            for &b in self.ctx.region_blocks(r) {
                self.block_names[b] = c.block;
                c.block += 1;
                for &a in self.ctx.block_args(b) {
                    self.names[a] = ValueName { kind: 2, num: c.arg, idx: 0, group: 1 };
                    c.arg += 1;
                }
                for o in self.ctx.block_ops(b) {
                    self.name_results(o, c);
                    self.name_regions(o, c);
                }
            }
        }
    }

    // ----- raw output -----

    /// Appends raw text.
    pub fn w(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }

    // ----- pieces for custom printers -----

    /// Writes the name of `v` as used (`%3`, `%3#1`, `%arg0`).
    pub fn print_operand(&mut self, v: Value) {
        let n = self.names[v];
        match n.kind {
            1 if n.group > 1 => {
                let _ = write!(self.out, "%{}#{}", n.num, n.idx);
            }
            1 => {
                let _ = write!(self.out, "%{}", n.num);
            }
            2 => {
                let _ = write!(self.out, "%arg{}", n.num);
            }
            _ => {
                // A value defined outside the printed op (e.g. printing a nested op alone).
                let _ = write!(self.out, "%<<UNKNOWN SSA VALUE {}>>", v.as_u32());
            }
        }
    }

    pub fn print_operands(&mut self, vs: impl IntoIterator<Item = Value>) {
        for (i, v) in vs.into_iter().enumerate() {
            if i > 0 {
                self.w(", ");
            }
            self.print_operand(v);
        }
    }

    pub fn print_type(&mut self, t: Type) {
        if self.type_cache[t].is_none() {
            let mut s = String::new();
            write_type(self.ctx, t, &mut s);
            self.type_cache[t] = Some(s.into());
        }
        if let Some(s) = &self.type_cache[t] {
            self.out.push_str(s);
        }
    }

    pub fn print_types(&mut self, ts: impl IntoIterator<Item = Type>) {
        for (i, t) in ts.into_iter().enumerate() {
            if i > 0 {
                self.w(", ");
            }
            self.print_type(t);
        }
    }

    pub fn print_attr(&mut self, a: Attribute) {
        write_attr(self.ctx, a, &mut self.out);
    }

    pub fn print_symbol_name(&mut self, name: &str) {
        write_symbol(name, &mut self.out);
    }

    /// ` {a = 1, b}` (nothing when every entry is elided).
    pub fn print_attr_dict(&mut self, attrs: &[NamedAttr], elide: &[&str]) {
        let ctx = self.ctx;
        let kept: Vec<NamedAttr> = attrs.iter().copied().filter(|a| !elide.contains(&ctx.sym_str(a.name))).collect();
        if kept.is_empty() {
            return;
        }
        self.w(" ");
        write_dict(ctx, &kept, &mut self.out);
    }

    /// ` attributes {a = 1}` (nothing when every entry is elided).
    pub fn print_attr_dict_with_keyword(&mut self, attrs: &[NamedAttr], elide: &[&str]) {
        let ctx = self.ctx;
        if attrs.iter().any(|a| !elide.contains(&ctx.sym_str(a.name))) {
            self.w(" attributes");
            self.print_attr_dict(attrs, elide);
        }
    }

    /// Prints `{ ... }`. The entry block's header is printed only when
    /// `print_entry_args` is set (custom forms print arguments themselves).
    pub fn print_region(&mut self, r: Region, print_entry_args: bool) {
        self.print_region_impl(r, print_entry_args, false)
    }

    /// [`OpPrinter::print_region`] for single-block regions with an implicit
    /// terminator: a final terminator without operands or attributes is not
    /// printed (the parser's [`crate::Parser::parse_region_implicit_terminator`]
    /// puts it back).
    pub fn print_region_elide_terminator(&mut self, r: Region, print_entry_args: bool) {
        self.print_region_impl(r, print_entry_args, true)
    }

    fn print_region_impl(&mut self, r: Region, print_entry_args: bool, elide_terminator: bool) {
        self.w("{");
        let blocks = self.ctx.region_blocks(r).to_vec();
        for (i, &b) in blocks.iter().enumerate() {
            let args = self.ctx.block_args(b).to_vec();
            let header = i > 0 || (print_entry_args && !args.is_empty());
            if header {
                self.out.push('\n');
                for _ in 0..self.indent {
                    self.out.push(' ');
                }
                let _ = write!(self.out, "^bb{}", self.block_names[b]);
                if !args.is_empty() {
                    self.w("(");
                    for (j, &a) in args.iter().enumerate() {
                        if j > 0 {
                            self.w(", ");
                        }
                        self.print_operand(a);
                        self.w(": ");
                        self.print_type(self.ctx.value_type(a));
                    }
                    self.w(")");
                }
                self.w(":");
            }
            self.indent += 2;
            let mut ops: Vec<Op> = self.ctx.block_ops(b).collect();
            if elide_terminator && blocks.len() == 1 {
                if let Some(&last) = ops.last() {
                    let plain = self.ctx.has_trait(last, Traits::TERMINATOR)
                        && self.ctx.num_operands(last) == 0
                        && self.ctx.attrs(last).is_empty();
                    if plain {
                        ops.pop();
                    }
                }
            }
            for op in ops {
                self.newline();
                self.print_operation(op);
            }
            self.indent -= 2;
        }
        self.newline();
        self.w("}");
    }

    // ----- operations -----

    fn print_operation(&mut self, op: Op) {
        let ctx = self.ctx;
        let results = ctx.results(op);
        if let Some(&r0) = results.first() {
            self.print_operand_def(r0, results.len());
            self.w(" = ");
        }
        let def = ctx.op_def(op);
        let custom = match def.map(|d| d.syntax) {
            Some(Syntax::Generic) | None => None,
            Some(s) if !self.opts.generic => Some(s),
            Some(_) => None,
        };
        match custom {
            None => self.print_generic(op),
            Some(syntax) => {
                let name = ctx.op_name(op);
                let strip = |d: &str| name.strip_prefix(d).and_then(|n| n.strip_prefix('.'));
                let shown =
                    self.default_dialects.last().and_then(|d| strip(d)).or_else(|| strip("builtin")).unwrap_or(name);
                self.w(shown);
                let dd = def.and_then(|d| d.default_dialect);
                if let Some(d) = dd {
                    self.default_dialects.push(d);
                }
                match syntax {
                    Syntax::Functional => self.print_functional(op),
                    Syntax::Custom { print, .. } => print(self, op),
                    Syntax::Generic => unreachable!("generic ops take the generic path"),
                }
                if dd.is_some() {
                    self.default_dialects.pop();
                }
            }
        }
        if self.opts.debug_info {
            self.w(" ");
            write_loc(ctx, ctx.op_loc(op), &mut self.out);
        }
    }

    fn print_operand_def(&mut self, r0: Value, count: usize) {
        let n = self.names[r0];
        let _ = write!(self.out, "%{}", n.num);
        if count > 1 {
            let _ = write!(self.out, ":{count}");
        }
    }

    fn print_generic(&mut self, op: Op) {
        let ctx = self.ctx;
        self.out.push('"');
        escape(ctx.op_name(op), &mut self.out);
        self.w("\"(");
        self.print_operands(ctx.operands(op));
        self.w(")");
        let regions = ctx.regions(op).to_vec();
        if !regions.is_empty() {
            // The generic form never elides dialect prefixes inside.
            self.default_dialects.push("");
            self.w(" (");
            for (i, r) in regions.iter().enumerate() {
                if i > 0 {
                    self.w(", ");
                }
                self.print_region(*r, true);
            }
            self.w(")");
            self.default_dialects.pop();
        }
        self.print_attr_dict(ctx.attrs(op), &[]);
        self.w(" : (");
        let ots: Vec<Type> = ctx.operands(op).map(|v| ctx.value_type(v)).collect();
        self.print_types(ots);
        self.w(") -> ");
        let rts: Vec<Type> = ctx.results(op).iter().map(|&v| ctx.value_type(v)).collect();
        self.print_result_types(&rts);
    }

    /// A single non-function type bare, anything else parenthesized.
    fn print_result_types(&mut self, rts: &[Type]) {
        let single_plain = rts.len() == 1 && !matches!(self.ctx.type_data(rts[0]), TypeData::Function { .. });
        if single_plain {
            self.print_type(rts[0]);
        } else {
            self.w("(");
            self.print_types(rts.iter().copied());
            self.w(")");
        }
    }

    /// The shared custom form: ` %a, %b {attrs} : T1, T2 -> R`.
    fn print_functional(&mut self, op: Op) {
        let ctx = self.ctx;
        let operands: Vec<Value> = ctx.operands(op).collect();
        if !operands.is_empty() {
            self.w(" ");
            self.print_operands(operands.iter().copied());
        }
        self.print_attr_dict(ctx.attrs(op), &[]);
        let ots: Vec<Type> = operands.iter().map(|&v| ctx.value_type(v)).collect();
        let rts: Vec<Type> = ctx.results(op).iter().map(|&v| ctx.value_type(v)).collect();
        if ots.is_empty() {
            if !rts.is_empty() {
                self.w(" : ");
                if rts.len() == 1 {
                    self.print_type(rts[0]);
                } else {
                    self.print_types(rts.iter().copied());
                }
            }
            return;
        }
        self.w(" : ");
        let shared = ots.iter().all(|&t| t == ots[0]);
        if shared {
            self.print_type(ots[0]);
        } else {
            self.print_types(ots.iter().copied());
        }
        let elide = rts.is_empty() || (shared && rts.len() == 1 && rts[0] == ots[0]);
        if !elide {
            self.w(" -> ");
            self.print_result_types(&rts);
        }
    }
}

// ----- free functions for types, attributes and locations -----

pub(crate) fn write_type(ctx: &Context, t: Type, out: &mut String) {
    match ctx.type_data(t) {
        TypeData::Elem(e) => out.push_str(e.name()),
        TypeData::Index => out.push_str("index"),
        TypeData::None => out.push_str("none"),
        TypeData::Tensor(tt) => {
            let _ = write!(out, "{tt}");
        }
        TypeData::MemRef(m) => {
            let _ = write!(out, "{m}");
        }
        TypeData::Subclass(sc) => {
            let _ = write!(out, "{sc}");
        }
        TypeData::Function { inputs, results } => {
            out.push('(');
            for (i, &t) in inputs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(ctx, t, out);
            }
            out.push_str(") -> ");
            let single_plain = results.len() == 1 && !matches!(ctx.type_data(results[0]), TypeData::Function { .. });
            if single_plain {
                write_type(ctx, results[0], out);
            } else {
                out.push('(');
                for (i, &t) in results.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_type(ctx, t, out);
                }
                out.push(')');
            }
        }
    }
}

fn is_bare_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// `@name` (quoted when it is not a bare identifier), to any writer.
pub(crate) fn write_symbol_to(name: &str, f: &mut impl std::fmt::Write) -> std::fmt::Result {
    let mut s = String::new();
    write_symbol(name, &mut s);
    f.write_str(&s)
}

fn write_symbol(name: &str, out: &mut String) {
    out.push('@');
    if is_bare_ident(name) {
        out.push_str(name);
    } else {
        out.push('"');
        escape(name, out);
        out.push('"');
    }
}

fn write_dict(ctx: &Context, entries: &[NamedAttr], out: &mut String) {
    out.push('{');
    for (i, a) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let name = ctx.sym_str(a.name);
        if is_bare_ident(name) {
            out.push_str(name);
        } else {
            out.push('"');
            escape(name, out);
            out.push('"');
        }
        if !matches!(ctx.attr_data(a.value), AttrData::Unit) {
            out.push_str(" = ");
            write_attr(ctx, a.value, out);
        }
    }
    out.push('}');
}

/// Writes a float so that it reads back to the same value of type `e`.
pub fn write_float(v: f64, e: ElemType, out: &mut String) {
    // Non-finite values are spelled `inf`, `-inf` and `nan`, which dense
    // literals and float arrays parse back.
    if v.is_nan() {
        out.push_str("nan");
        return;
    }
    let s = if e == ElemType::F32 { format!("{:?}", v as f32) } else { format!("{v:?}") };
    if s.contains('.') || s.contains("inf") {
        out.push_str(&s);
    } else if let Some(i) = s.find('e') {
        out.push_str(&s[..i]);
        out.push_str(".0");
        out.push_str(&s[i..]);
    } else {
        out.push_str(&s);
        out.push_str(".0");
    }
}

fn write_scalar_float_attr(v: f64, ty: Type, ctx: &Context, out: &mut String) {
    let e = match ctx.type_data(ty) {
        TypeData::Elem(e) => *e,
        _ => ElemType::F64,
    };
    // Non-finite values print as their bit pattern in the attribute's own
    // type (printing f16/bf16 ones as f64 bits changed the type).
    if !v.is_finite() {
        let _ = match e {
            ElemType::F16 => write!(out, "0x{:04X} : f16", crate::types::f16_of(v).to_bits()),
            ElemType::BF16 => write!(out, "0x{:04X} : bf16", crate::types::bf16_of(v).to_bits()),
            ElemType::F32 => write!(out, "0x{:08X} : f32", (v as f32).to_bits()),
            _ => write!(out, "0x{:016X} : f64", v.to_bits()),
        };
        return;
    }
    write_float(v, e, out);
    if e != ElemType::F64 {
        out.push_str(" : ");
        out.push_str(e.name());
    }
}

fn write_dense_elem(data: &DenseData, i: usize, e: ElemType, out: &mut String) {
    if e.is_float() {
        let v = data.get_f64(i);
        if v.is_nan() {
            out.push_str("nan");
        } else if v.is_infinite() {
            out.push_str(if v > 0.0 { "inf" } else { "-inf" });
        } else {
            write_float(v, e, out);
        }
    } else if e.is_bool() {
        out.push_str(if data.get_i64(i) != 0 { "true" } else { "false" });
    } else {
        let _ = write!(out, "{}", data.get_i64(i));
    }
}

fn write_dense_nested(data: &DenseData, shape: &[i64], e: ElemType, next: &mut usize, out: &mut String) {
    match shape.split_first() {
        None => {
            write_dense_elem(data, *next, e, out);
            *next += 1;
        }
        Some((&n, rest)) => {
            out.push('[');
            for i in 0..n {
                if i > 0 {
                    out.push_str(", ");
                }
                write_dense_nested(data, rest, e, next, out);
            }
            out.push(']');
        }
    }
}

pub(crate) fn write_attr(ctx: &Context, a: Attribute, out: &mut String) {
    match ctx.attr_data(a) {
        AttrData::Unit => out.push_str("unit"),
        AttrData::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        AttrData::Int { value, ty } => {
            // A symbolic size (`s0`, `(s0*4)`) where a record keeps one.
            crate::sym::write_dim(*value, out);
            if *ty != ctx.elem_type(ElemType::I64) {
                out.push_str(" : ");
                write_type(ctx, *ty, out);
            }
        }
        AttrData::Float { bits, ty } => write_scalar_float_attr(f64::from_bits(*bits), *ty, ctx, out),
        AttrData::Str(s) => {
            out.push('"');
            escape(s, out);
            out.push('"');
        }
        AttrData::Type(t) => write_type(ctx, *t, out),
        AttrData::Array(v) => {
            out.push('[');
            for (i, &x) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_attr(ctx, x, out);
            }
            out.push(']');
        }
        AttrData::I64Array(v) => {
            out.push_str("array<i64");
            for (i, x) in v.iter().enumerate() {
                out.push_str(if i == 0 { ": " } else { ", " });
                crate::sym::write_dim(*x, out);
            }
            out.push('>');
        }
        AttrData::F64Array(v) => {
            out.push_str("array<f64");
            for (i, x) in v.iter().enumerate() {
                out.push_str(if i == 0 { ": " } else { ", " });
                write_float(f64::from_bits(*x), ElemType::F64, out);
            }
            out.push('>');
        }
        AttrData::Dense { ty, data } => {
            out.push_str("dense<");
            let tt = ctx.as_tensor(*ty).expect("dense attribute with a non-tensor type");
            if data.is_splat() {
                write_dense_elem(data, 0, tt.elem, out);
            } else {
                let mut next = 0;
                write_dense_nested(data, &tt.shape, tt.elem, &mut next, out);
            }
            out.push_str("> : ");
            write_type(ctx, *ty, out);
        }
        AttrData::Dict(entries) => write_dict(ctx, entries, out),
        AttrData::SymbolRef(s) => write_symbol(ctx.sym_str(*s), out),
        AttrData::Dialect { name, params } => {
            out.push('#');
            out.push_str(ctx.sym_str(*name));
            if !params.is_empty() {
                out.push('<');
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(ctx.sym_str(p.name));
                    out.push_str(" = ");
                    write_attr(ctx, p.value, out);
                }
                out.push('>');
            }
        }
    }
}

fn write_loc_body(ctx: &Context, l: Location, out: &mut String) {
    match ctx.loc_data(l) {
        LocData::Unknown => out.push_str("unknown"),
        LocData::FileLineCol { file, line, col } => {
            out.push('"');
            escape(ctx.sym_str(*file), out);
            let _ = write!(out, "\":{line}:{col}");
        }
        LocData::Name { name, child } => {
            out.push('"');
            escape(ctx.sym_str(*name), out);
            out.push('"');
            if let Some(c) = child {
                out.push('(');
                write_loc_body(ctx, *c, out);
                out.push(')');
            }
        }
        LocData::Fused(v) => {
            out.push_str("fused[");
            for (i, &c) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_loc_body(ctx, c, out);
            }
            out.push(']');
        }
    }
}

pub(crate) fn write_loc(ctx: &Context, l: Location, out: &mut String) {
    out.push_str("loc(");
    write_loc_body(ctx, l, out);
    out.push(')');
}
