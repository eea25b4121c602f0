//! The mutation engine: byte-level mutations and token-aware ones for MLIR
//! text and JSON.
//!
//! Everything is driven by one [`Rng`] (SplitMix64), so a campaign is
//! reproducible from its seed: the same seed, corpus and outcomes give the
//! same inputs in the same order. Mutants are capped at [`MAX_LEN`] bytes so
//! that nesting and duplication cannot grow inputs without bound; the huge
//! values the engine writes (dims of 2^40, nesting 10^5 deep) are what
//! resource limits and checked arithmetic must refuse.

use crate::targets::{join_run_input, split_run_input, Target};
use serde_json::Value as Json;

/// The largest input the engine produces.
pub const MAX_LEN: usize = 1 << 20;

/// SplitMix64: tiny, fast, and good enough to pick mutations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Integers at the edges of every width and sign the IR and JSON carry.
pub const BOUNDARY_INTS: [&str; 20] = [
    "0",
    "-1",
    "1",
    "2",
    "3",
    "127",
    "255",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "1099511627776",
    "4611686018427387904",
    "9223372036854775807",
    "-9223372036854775808",
    "-2147483648",
    "18446744073709551615",
    "99999999999999999999999",
    "100000",
];

/// Float spellings, including ones the readers must refuse.
const FLOATS: [&str; 10] = ["0.0", "-0.0", "1.5e308", "1e-320", "nan", "inf", "-inf", "0x7FC00000", "3.4e39", "1e999"];

const DTYPES: [&str; 9] = ["f32", "f64", "f16", "bf16", "i64", "i32", "i8", "i1", "index"];

const BRACKETS: [(u8, u8); 4] = [(b'(', b')'), (b'[', b']'), (b'{', b'}'), (b'<', b'>')];

/// Keys the JSON readers know, and one they do not.
const JSON_KEYS: [&str; 13] = [
    "dtype",
    "shape",
    "data",
    "stride",
    "offset",
    "size",
    "storage",
    "same_as",
    "requires_grad",
    "non_leaf",
    "base",
    "outputs",
    "bogus",
];

/// The mutation engine for one target.
pub struct Mutator {
    pub rng: Rng,
    ops: Vec<&'static str>,
}

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        let ops = aot::ir::registry::all_ops().iter().map(|d| d.name).collect();
        Mutator { rng: Rng::new(seed), ops }
    }

    /// A mutant of `input` (with `other`, a second corpus input, for
    /// splicing): one to four stacked mutations suited to the target.
    pub fn mutate(&mut self, target: Target, input: &[u8], other: &[u8]) -> Vec<u8> {
        let mut out = input.to_vec();
        let rounds = 1 + self.rng.below(4);
        for _ in 0..rounds {
            out = match target {
                Target::Run => self.mutate_run(&out, other),
                _ => self.mutate_text(&out, other),
            };
            // Capped after every round, so stacked mutations cannot grow an
            // input geometrically in the driver's memory.
            out.truncate(MAX_LEN);
        }
        out
    }

    fn mutate_run(&mut self, input: &[u8], other: &[u8]) -> Vec<u8> {
        let Ok(text) = std::str::from_utf8(input) else {
            return self.mutate_bytes(input, other);
        };
        let (program, inputs, tangents) = split_run_input(text);
        let (program, tangents) = (program.to_string(), tangents.map(str::to_string));
        let other_text = String::from_utf8_lossy(other);
        let (other_program, other_inputs, _) = split_run_input(&other_text);
        let Some(inputs) = inputs.map(str::to_string) else {
            // Random inputs from the signature: mutate the program, or
            // give it inputs again.
            if self.rng.chance(10) {
                return join_run_input(&program, other_inputs, None).into_bytes();
            }
            return self.mutate_text(program.as_bytes(), other_program.as_bytes());
        };
        match self.rng.below(20) {
            0..=10 => {
                let m = self.mutate_json_text(&inputs, other_inputs.unwrap_or("{}"));
                join_run_input(&program, Some(&m), tangents.as_deref()).into_bytes()
            }
            11..=13 => {
                let t = tangents.unwrap_or_else(|| "{\"outputs\": [null]}".into());
                let m = self.mutate_json_text(&t, "{\"mutated_args\": []}");
                join_run_input(&program, Some(&inputs), Some(&m)).into_bytes()
            }
            14 => {
                // Another program with these inputs: mismatched signatures.
                join_run_input(other_program, Some(&inputs), tangents.as_deref()).into_bytes()
            }
            15 => {
                // No inputs: the target generates them (`--random-inputs`).
                self.mutate_text(program.as_bytes(), other_program.as_bytes())
            }
            _ => {
                let p = self.mutate_text(program.as_bytes(), other_program.as_bytes());
                join_run_input(&String::from_utf8_lossy(&p), Some(&inputs), tangents.as_deref()).into_bytes()
            }
        }
    }

    fn mutate_json_text(&mut self, text: &str, other: &str) -> String {
        if self.rng.chance(75) {
            if let Ok(mut v) = serde_json::from_str::<Json>(text) {
                self.mutate_json(&mut v);
                return if self.rng.chance(50) {
                    serde_json::to_string_pretty(&v).unwrap_or_default()
                } else {
                    v.to_string()
                };
            }
        }
        let m = if self.rng.chance(60) {
            self.mutate_tokens(text.as_bytes(), other.as_bytes())
        } else {
            self.mutate_bytes(text.as_bytes(), other.as_bytes())
        };
        String::from_utf8_lossy(&m).into_owned()
    }

    /// MLIR text (or any text): token-aware mutations most of the time,
    /// byte-level ones otherwise.
    pub fn mutate_text(&mut self, input: &[u8], other: &[u8]) -> Vec<u8> {
        if self.rng.chance(70) {
            self.mutate_tokens(input, other)
        } else {
            self.mutate_bytes(input, other)
        }
    }

    /// Byte-level mutations.
    pub fn mutate_bytes(&mut self, input: &[u8], other: &[u8]) -> Vec<u8> {
        let mut v = input.to_vec();
        let len = v.len();
        match self.rng.below(7) {
            0 if len > 0 => {
                let i = self.rng.below(len);
                v[i] ^= 1 << self.rng.below(8);
            }
            1 => {
                let i = self.rng.below(len + 1);
                let n = 1 + self.rng.below(8);
                let bytes: Vec<u8> = (0..n).map(|_| self.interesting_byte()).collect();
                v.splice(i..i, bytes);
            }
            2 if len > 0 => {
                let (a, b) = self.range(len);
                v.drain(a..b);
            }
            3 if len > 0 => {
                let (a, b) = self.range(len);
                let copy = v[a..b].to_vec();
                let at = self.rng.below(len + 1);
                let times = if self.rng.chance(10) { 1 + self.rng.below(64) } else { 1 };
                for _ in 0..times {
                    v.splice(at..at, copy.iter().copied());
                }
            }
            4 => {
                // Splice: a prefix of this input, a suffix of the other.
                let a = self.rng.below(len + 1);
                let b = self.rng.below(other.len() + 1);
                v.truncate(a);
                v.extend_from_slice(&other[b..]);
            }
            5 if len > 0 => {
                let i = self.rng.below(len);
                v[i] = self.interesting_byte();
            }
            _ if len > 1 => {
                let (a, b) = (self.rng.below(len), self.rng.below(len));
                v.swap(a, b);
            }
            _ => v.push(self.interesting_byte()),
        }
        v
    }

    fn interesting_byte(&mut self) -> u8 {
        *self.rng.pick(b"0123456789-x%@^#!{}[]()<>:,=\"\\\n \x00\xff.")
    }

    /// A random non-empty range of `0..len`, biased to short ones.
    fn range(&mut self, len: usize) -> (usize, usize) {
        let a = self.rng.below(len);
        let max = (len - a).min(if self.rng.chance(80) { 16 } else { len });
        (a, a + 1 + self.rng.below(max))
    }

    /// Token-aware mutations of MLIR (and JSON) text.
    pub fn mutate_tokens(&mut self, input: &[u8], other: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(input).into_owned();
        let out = match self.rng.below(12) {
            0..=2 => self.replace_integer(&text),
            3 => self.nest_brackets(&text),
            4 => self.duplicate_bracketed(&text),
            5 => self.swap_op_name(&text),
            6 => self.edit_lines(&text, &String::from_utf8_lossy(other)),
            7 => self.change_dtype(&text),
            8 => self.change_layout(&text),
            9 => self.huge_dim(&text),
            10 => self.replace_float(&text),
            _ => self.open_brackets(&text),
        };
        match out {
            Some(s) if s.as_bytes() != input => s.into_bytes(),
            _ => self.mutate_bytes(input, other),
        }
    }

    fn boundary_int(&mut self) -> String {
        (*self.rng.pick(&BOUNDARY_INTS)).to_string()
    }

    /// Byte spans of the (possibly signed) decimal integers in `text`.
    fn integer_spans(text: &str) -> Vec<(usize, usize)> {
        let b = text.as_bytes();
        let mut spans = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
                let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                spans.push((start, j));
                i = j;
            } else {
                i += 1;
            }
        }
        spans
    }

    fn replace_span(text: &str, (a, b): (usize, usize), with: &str) -> String {
        format!("{}{}{}", &text[..a], with, &text[b..])
    }

    fn replace_integer(&mut self, text: &str) -> Option<String> {
        let spans = Self::integer_spans(text);
        if spans.is_empty() {
            return None;
        }
        let span = *self.rng.pick(&spans);
        let with = self.boundary_int();
        Some(Self::replace_span(text, span, &with))
    }

    fn replace_float(&mut self, text: &str) -> Option<String> {
        let spans = Self::integer_spans(text);
        if spans.is_empty() {
            return None;
        }
        let span = *self.rng.pick(&spans);
        let with = (*self.rng.pick(&FLOATS)).to_string();
        Some(Self::replace_span(text, span, &with))
    }

    /// A dim of a `tensor<...>` / `memref<...>` type replaced by a huge one,
    /// or by a symbolic size (well formed or not).
    fn huge_dim(&mut self, text: &str) -> Option<String> {
        let mut starts: Vec<usize> = text.match_indices("tensor<").map(|(i, _)| i + 7).collect();
        starts.extend(text.match_indices("memref<").map(|(i, _)| i + 7));
        if starts.is_empty() {
            return None;
        }
        let at = *self.rng.pick(&starts);
        let dims = [
            "1099511627776",
            "4294967296",
            "2147483648",
            "9223372036854775807",
            "0",
            "100000",
            "s0",
            "s1",
            "(s0*4)",
            "(s0 - 3)",
            "((s0 + 1) floordiv 2)",
            "(s0 mod 0)",
            "(s0*9223372036854775807*2)",
            "s65536",
            "(s0",
            "(s0*s0*s0*s0*s0*s0*s0*s0*s0*s0*s0*s0*s0*s0*s0*s0*s0)",
        ];
        let dim = *self.rng.pick(&dims);
        let rest = &text[at..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && self.rng.chance(70) {
            Some(format!("{}{}{}", &text[..at], dim, &rest[digits..]))
        } else {
            // A new leading dim; occasionally very many of them (rank).
            let n = if self.rng.chance(10) { 1000 + self.rng.below(100_000) } else { 1 + self.rng.below(4) };
            Some(format!("{}{}{}", &text[..at], format!("{dim}x").repeat(n), rest))
        }
    }

    /// The matching close of the bracket at `open`, if balanced.
    fn matching(text: &[u8], open: usize) -> Option<usize> {
        let (o, c) = BRACKETS.iter().copied().find(|&(o, _)| o == text[open])?;
        let mut depth = 0usize;
        for (i, &ch) in text.iter().enumerate().skip(open) {
            if ch == o {
                depth += 1;
            } else if ch == c {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
        None
    }

    fn bracket_positions(text: &str) -> Vec<usize> {
        text.bytes().enumerate().filter(|(_, b)| BRACKETS.iter().any(|&(o, _)| o == *b)).map(|(i, _)| i).collect()
    }

    fn nesting_depth(&mut self) -> usize {
        match self.rng.below(10) {
            0..=5 => 1 + self.rng.below(8),
            6..=8 => 100 + self.rng.below(2000),
            _ => 10_000 + self.rng.below(100_000),
        }
    }

    /// Wraps a bracketed span in more of the same brackets (`[[[x]]]`,
    /// `{ { ... } }`, nested modules when the span is a region).
    fn nest_brackets(&mut self, text: &str) -> Option<String> {
        let opens = Self::bracket_positions(text);
        if opens.is_empty() {
            return None;
        }
        let open = *self.rng.pick(&opens);
        let close = Self::matching(text.as_bytes(), open)?;
        let (o, c) = (text[open..open + 1].to_string(), text[close..close + 1].to_string());
        let depth = self.nesting_depth();
        let (pre, post) = if o == "{" && self.rng.chance(50) {
            ("module {\n".repeat(depth), "}\n".repeat(depth))
        } else {
            (o.repeat(depth), c.repeat(depth))
        };
        Some(format!("{}{}{}{}{}", &text[..open], pre, &text[open..=close], post, &text[close + 1..]))
    }

    /// Unbalanced: many opening brackets at one place.
    fn open_brackets(&mut self, text: &str) -> Option<String> {
        let at = self.rng.below(text.len() + 1);
        if !text.is_char_boundary(at) {
            return None;
        }
        let (o, _) = *self.rng.pick(&BRACKETS);
        let depth = self.nesting_depth();
        Some(format!("{}{}{}", &text[..at], (o as char).to_string().repeat(depth), &text[at..]))
    }

    /// Duplicates a bracketed span (an attribute list, a region) in place.
    fn duplicate_bracketed(&mut self, text: &str) -> Option<String> {
        let opens = Self::bracket_positions(text);
        if opens.is_empty() {
            return None;
        }
        let open = *self.rng.pick(&opens);
        let close = Self::matching(text.as_bytes(), open)?;
        let span = &text[open..=close];
        let sep = if self.rng.chance(50) { ", " } else { " " };
        Some(format!("{}{}{}{}", &text[..=close], sep, span, &text[close + 1..]))
    }

    fn swap_op_name(&mut self, text: &str) -> Option<String> {
        let present: Vec<(usize, &str)> = self
            .ops
            .iter()
            .flat_map(|name| text.match_indices(name).take(4))
            .filter(|&(i, n)| {
                let end = i + n.len();
                end >= text.len() || !text.as_bytes()[end].is_ascii_alphanumeric() && text.as_bytes()[end] != b'_'
            })
            .collect();
        if present.is_empty() || self.ops.is_empty() {
            return None;
        }
        let (at, name) = *self.rng.pick(&present);
        let with = *self.rng.pick(&self.ops);
        Some(Self::replace_span(text, (at, at + name.len()), with))
    }

    /// Drops, duplicates or swaps lines, or inserts a line of `other`.
    fn edit_lines(&mut self, text: &str, other: &str) -> Option<String> {
        let mut lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            return None;
        }
        let i = self.rng.below(lines.len());
        match self.rng.below(4) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let times = if self.rng.chance(10) { 2 + self.rng.below(5000) } else { 1 };
                // Duplicating a long line thousands of times would build
                // gigabytes before the final cap: stop at MAX_LEN.
                let times = times.min(MAX_LEN / (lines[i].len() + 1)).max(1);
                for _ in 0..times {
                    lines.insert(i, lines[i]);
                }
            }
            2 => {
                let j = self.rng.below(lines.len());
                lines.swap(i, j);
            }
            _ => {
                let theirs: Vec<&str> = other.lines().collect();
                if theirs.is_empty() {
                    return None;
                }
                lines.insert(i, *self.rng.pick(&theirs));
            }
        }
        let mut s = lines.join("\n");
        s.push('\n');
        Some(s)
    }

    fn change_dtype(&mut self, text: &str) -> Option<String> {
        let mut spans = Vec::new();
        for d in DTYPES {
            for (i, _) in text.match_indices(d) {
                let end = i + d.len();
                let b = text.as_bytes();
                let before_ok = i == 0 || !b[i - 1].is_ascii_alphabetic();
                let after_ok = end >= b.len() || !b[end].is_ascii_alphanumeric();
                if before_ok && after_ok {
                    spans.push((i, end));
                }
            }
        }
        if spans.is_empty() {
            return None;
        }
        let span = *self.rng.pick(&spans);
        let with = *self.rng.pick(&DTYPES);
        Some(Self::replace_span(text, span, with))
    }

    /// Edits `aot.layout` attributes: strides, offsets, storages.
    fn change_layout(&mut self, text: &str) -> Option<String> {
        let keys = ["strides = [", "offset = ", "storage = ", "stride\": [", "offset\": "];
        let mut at = Vec::new();
        for k in keys {
            at.extend(text.match_indices(k).map(|(i, _)| i + k.len()));
        }
        if at.is_empty() {
            return None;
        }
        let start = *self.rng.pick(&at);
        let rest = &text[start..];
        match self.rng.below(3) {
            0 => {
                // Replace the first integer after the key.
                let spans = Self::integer_spans(rest);
                let &(a, b) = spans.first()?;
                let with = self.boundary_int();
                Some(format!("{}{}", &text[..start], Self::replace_span(rest, (a, b), &with)))
            }
            1 if text[..start].ends_with('[') => {
                // Drop the stride list's contents (fewer strides than dims).
                let end = rest.find(']')?;
                Some(format!("{}{}", &text[..start], &rest[end..]))
            }
            _ if text[..start].ends_with('[') => {
                let with = self.boundary_int();
                Some(format!("{}{}, {}", &text[..start], with, rest))
            }
            _ => None,
        }
    }

    /// Structural JSON mutations on a random node.
    pub fn mutate_json(&mut self, root: &mut Json) {
        let mut paths = Vec::new();
        collect_paths(root, &mut Vec::new(), &mut paths);
        let path = self.rng.pick(&paths).clone();
        let Some(node) = node_at(root, &path) else { return };
        match self.rng.below(10) {
            0 => *node = self.json_scalar(),
            1 => {
                if let Json::Object(o) = node {
                    let k = *self.rng.pick(&JSON_KEYS);
                    let v = self.json_scalar();
                    o.insert(k.to_string(), v);
                } else {
                    *node = self.json_scalar();
                }
            }
            2 => match node {
                // Ragged: one nested list loses or gains an element.
                Json::Array(a) if !a.is_empty() => {
                    let i = self.rng.below(a.len());
                    if self.rng.chance(50) {
                        a.remove(i);
                    } else {
                        let dup = a[i].clone();
                        a.insert(i, dup);
                    }
                }
                Json::Array(a) => a.push(self.json_scalar()),
                _ => *node = Json::Array(vec![node.clone(), self.json_scalar()]),
            },
            3 => {
                if let Json::Object(o) = node {
                    if !o.is_empty() {
                        let k = o.keys().nth(self.rng.below(o.len())).cloned().unwrap_or_default();
                        o.remove(&k);
                    }
                }
            }
            4 => *node = Json::Array(vec![node.clone()]),
            5 => {
                let n: i64 = self.boundary_int().parse().unwrap_or(i64::MAX);
                *node = Json::from(n);
            }
            6 => {
                *node = Json::String((*self.rng.pick(&["nan", "inf", "-inf", "f32", "x", ""])).to_string());
            }
            7 => *node = Json::Null,
            8 => {
                if let Json::Array(a) = node {
                    let most = if self.rng.chance(10) { 5000 } else { 4 };
                    let copies = 1 + self.rng.below(most);
                    if let Some(first) = a.first().cloned() {
                        // Bounded by MAX_LEN, as line duplication is.
                        let size = first.to_string().len() + 1;
                        a.extend(std::iter::repeat_n(first, copies.min(MAX_LEN / size).max(1)));
                    }
                } else {
                    *node = Json::String((*self.rng.pick(&DTYPES)).to_string());
                }
            }
            _ => {
                let f: f64 = self.rng.pick(&[0.5, -0.0, 1e308, -1e308, 5e-324, 0.1]).to_owned();
                *node = Json::from(f);
            }
        }
    }

    fn json_scalar(&mut self) -> Json {
        match self.rng.below(7) {
            0 => Json::Null,
            1 => Json::Bool(self.rng.chance(50)),
            2 => Json::String((*self.rng.pick(&DTYPES)).to_string()),
            3 => Json::Array(vec![]),
            4 => Json::from(self.rng.below(4) as i64),
            5 => Json::Object(Default::default()),
            _ => Json::from(self.boundary_int().parse::<i64>().unwrap_or(-1)),
        }
    }
}

/// Every node of `v` as a path of object keys and array indices.
fn collect_paths(v: &Json, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(prefix.clone());
    match v {
        Json::Array(a) => {
            for (i, x) in a.iter().enumerate().take(64) {
                prefix.push(Step::Index(i));
                collect_paths(x, prefix, out);
                prefix.pop();
            }
        }
        Json::Object(o) => {
            for (k, x) in o {
                prefix.push(Step::Key(k.clone()));
                collect_paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn node_at<'a>(v: &'a mut Json, path: &[Step]) -> Option<&'a mut Json> {
    let mut cur = v;
    for s in path {
        cur = match s {
            Step::Key(k) => cur.get_mut(k.as_str())?,
            Step::Index(i) => cur.get_mut(*i)?,
        };
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "func.func @main(%a: tensor<2x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, \
                           strides = [3, 1]>}) -> tensor<2x3xf32> {\n  %0 = tensor.add %a, %a : tensor<2x3xf32>\n  \
                           return %0 : tensor<2x3xf32>\n}\n";

    #[test]
    fn same_seed_same_mutants() {
        aot::init();
        let run = |seed| {
            let mut m = Mutator::new(seed);
            (0..200).map(|_| m.mutate(Target::Roundtrip, PROGRAM.as_bytes(), b"module {}")).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn mutants_differ_and_stay_bounded() {
        aot::init();
        let mut m = Mutator::new(1);
        let mut changed = 0;
        for _ in 0..500 {
            let out = m.mutate(Target::Pipeline, PROGRAM.as_bytes(), PROGRAM.as_bytes());
            assert!(out.len() <= MAX_LEN);
            changed += usize::from(out != PROGRAM.as_bytes());
        }
        assert!(changed > 450, "only {changed} of 500 mutants changed the input");
    }

    #[test]
    fn integer_replacement_uses_boundary_values() {
        let mut m = Mutator { rng: Rng::new(3), ops: vec![] };
        for _ in 0..50 {
            let out = m.replace_integer("x = 5 : i64").unwrap();
            let v = out.strip_prefix("x = ").and_then(|s| s.strip_suffix(" : i64")).unwrap();
            assert!(BOUNDARY_INTS.contains(&v), "{out}");
        }
        assert_eq!(Mutator::integer_spans("a1 = -12, [3]"), vec![(5, 8), (11, 12)]);
    }

    #[test]
    fn op_names_come_from_the_registry() {
        aot::init();
        let mut m = Mutator::new(5);
        let out = m.swap_op_name("%0 = tensor.add %a, %a : tensor<2xf32>").unwrap();
        let name = out.split_whitespace().nth(2).unwrap();
        assert!(aot::ir::registry::lookup_op(name).is_some(), "{out}");
    }

    #[test]
    fn nesting_keeps_brackets_balanced() {
        let mut m = Mutator { rng: Rng::new(9), ops: vec![] };
        for _ in 0..20 {
            let out = m.nest_brackets("a = [1, [2]]").unwrap();
            assert_eq!(out.matches('[').count(), out.matches(']').count(), "{out}");
            assert!(out.matches('[').count() > 2);
        }
    }

    #[test]
    fn run_mutants_keep_the_sections() {
        aot::init();
        let input = join_run_input(PROGRAM, Some(r#"{"args": [{"shape": [2, 3], "data": [1, 2, 3, 4, 5, 6]}]}"#), None);
        let mut m = Mutator::new(11);
        let mut json_changed = 0;
        for _ in 0..200 {
            let out = m.mutate(Target::Run, input.as_bytes(), input.as_bytes());
            let out = String::from_utf8_lossy(&out).into_owned();
            let (_, inputs, _) = split_run_input(&out);
            json_changed += usize::from(inputs != split_run_input(&input).1);
        }
        assert!(json_changed > 100, "{json_changed}");
    }

    #[test]
    fn json_mutations_change_structure() {
        let mut m = Mutator { rng: Rng::new(2), ops: vec![] };
        let orig: Json = serde_json::from_str(r#"{"args": [{"shape": [2], "data": [[1], [2]]}]}"#).unwrap();
        let mut changed = 0;
        for _ in 0..100 {
            let mut v = orig.clone();
            m.mutate_json(&mut v);
            changed += usize::from(v != orig);
        }
        assert!(changed > 80, "{changed}");
    }
}
