//! The op reference (`docs/reference/ops.md`), generated from the op
//! registry so that it cannot drift from the code: every registered op with
//! its arity, declared attributes, traits, and which layers implement it
//! (interpreter kernel, derivative rule, native lowering), found through the
//! same interfaces the interpreter, `joint` and `lower-to-loops` look up.
//! The output depends only on the registry (ops sorted by name), so a test
//! can compare it byte for byte with the file on disk.

use crate::autodiff::Vjp;
use crate::lowering::{Lower, Pointwise};
use crate::r#mut::MetadataMutationInterface;
use aot_ir::registry::{all_ops, Arity, OpDef, Syntax, Traits};
use aot_runtime::Kernel;
use std::fmt::Write as _;

/// Trait bits and the words the reference uses for them.
const TRAIT_NAMES: &[(Traits, &str)] = &[
    (Traits::PURE, "pure"),
    (Traits::VIEW, "view"),
    (Traits::INPLACE, "in-place"),
    (Traits::METADATA_MUTATION, "metadata mutation"),
    (Traits::RANDOM, "random"),
    (Traits::TERMINATOR, "terminator"),
    (Traits::ISOLATED_FROM_ABOVE, "isolated from above"),
    (Traits::SYMBOL, "symbol"),
    (Traits::SYMBOL_TABLE, "symbol table"),
    (Traits::COMMUTATIVE, "commutative"),
    (Traits::ELEMENTWISE, "elementwise"),
    (Traits::NO_TERMINATOR, "no terminator"),
    (Traits::DIFFERENTIABLE, "differentiable"),
    (Traits::SUBCLASS_RULES, "own subclass rules"),
    (Traits::SYMBOLIC_SHAPES, "symbolic sizes"),
];

/// What each dialect is for, shown above its ops.
const DIALECTS: &[(&str, &str)] = &[
    ("aot", "Tensor subclasses: class declarations and the two ops that build and open subclass values; `flatten-subclasses` removes them."),
    ("func", "Functions, calls and returns."),
    ("loop", "The native level: buffers (memrefs), loops and scalar arithmetic that `lower-to-loops` produces and the Cranelift backend compiles. Not written by users."),
    ("mut", "In-place ops with PyTorch eager semantics: data mutations write through the first operand's strides and have no results; metadata mutations return the same tensor object with new metadata."),
    ("rng", "Randomness: stateful ops draw from the global Philox generator; the `philox_*` forms are pure functions of an explicit `(seed, offset)`."),
    ("tensor", "Pure ops: every result is a fresh contiguous tensor."),
    ("view", "Ops whose results share the operand's storage, and the scatter ops that invert them."),
];

fn arity(a: Arity) -> String {
    match a {
        Arity::Exact(k) => k.to_string(),
        Arity::AtLeast(k) => format!("{k} or more"),
        Arity::Range(a, b) => format!("{a} to {b}"),
    }
}

fn syntax(s: Syntax) -> &'static str {
    match s {
        Syntax::Generic => "generic only",
        Syntax::Functional => "generic, or functional (`name %a, %b {attrs} : types`)",
        Syntax::Custom { .. } => "generic, or its own custom form",
    }
}

/// Which native lowering an op has, if any.
/// Whether the MLIR export (`--emit=mlir`, the `mlir` backend) takes the op,
/// from its interfaces.
fn mlir_export(def: &OpDef) -> &'static str {
    if def.interface::<Pointwise>().is_some() {
        "yes (scalar formula)"
    } else if def.interface::<crate::rng::lowering::PhiloxDraws>().is_some() {
        "yes (Philox in `arith`)"
    } else if def.interface::<crate::export::TensorExport>().is_some() {
        "yes"
    } else {
        "no"
    }
}

fn lowering(def: &OpDef) -> &'static str {
    if def.dialect() == "loop" {
        "is the native level"
    } else if def.interface::<Pointwise>().is_some() {
        "yes (scalar formula, fused)"
    } else if def.interface::<Lower>().is_some() {
        "yes"
    } else if def.interface::<crate::lowering::LowerSymbolic>().is_some() {
        "yes (symbolic sizes too)"
    } else if def.interface::<MetadataMutationInterface>().is_some() {
        "yes (of a function argument)"
    } else {
        "no"
    }
}

/// One-line escaping for a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The op reference, generated from the registry.
pub fn render_op_docs() -> String {
    let ops = all_ops();
    let mut s = String::new();
    s.push_str("# Op reference\n\n");
    s.push_str("<!-- Generated from the op registry by `aot-opt --generate-op-docs`; do not edit. -->\n\n");
    s.push_str(
        "Every registered op. *Operands* and *results* are counts; attributes marked *required* must be present, \
         the others may be left out. Any op also accepts \
         dialect-prefixed attributes such as `aot.no_grad`. *Interpreter* says whether the reference \
         interpreter (`aot-run --mode eager`, `--backend interp`) runs the op, *derivative* whether it has a \
         reverse-mode rule (`joint`), *native* whether `lower-to-loops` lowers it for the Cranelift backend. \
         The text format is described in [text-format.md](text-format.md) and the meaning of views and \
         mutations in [semantics.md](semantics.md).\n\n",
    );
    s.push_str("| op | summary |\n|---|---|\n");
    for d in &ops {
        let _ = writeln!(s, "| [`{}`](#{}) | {} |", d.name, d.name.replace('.', ""), cell(d.summary));
    }
    let mut dialect = "";
    for d in &ops {
        if d.dialect() != dialect {
            dialect = d.dialect();
            let _ = writeln!(s, "\n## `{dialect}`\n");
            if let Some((_, about)) = DIALECTS.iter().find(|(n, _)| *n == dialect) {
                let _ = writeln!(s, "{about}");
            }
        }
        let _ = writeln!(s, "\n### {}\n", d.name);
        if !d.summary.is_empty() {
            let _ = writeln!(s, "{}\n", d.summary.trim());
        }
        let _ = writeln!(s, "- Operands: {}. Results: {}.", arity(d.operands), arity(d.results));
        if d.regions > 0 {
            let _ = writeln!(s, "- Regions: {}.", d.regions);
        }
        let traits: Vec<&str> = TRAIT_NAMES.iter().filter(|(t, _)| d.has(*t)).map(|(_, n)| *n).collect();
        if !traits.is_empty() {
            let _ = writeln!(s, "- Traits: {}.", traits.join(", "));
        }
        let _ = writeln!(s, "- Syntax: {}.", syntax(d.syntax));
        let _ = writeln!(
            s,
            "- Interpreter: {}. Derivative: {}. Native: {}. MLIR export: {}.",
            if d.interface::<Kernel>().is_some() { "yes" } else { "no" },
            if d.interface::<Vjp>().is_some() { "yes" } else { "no" },
            lowering(d),
            mlir_export(d)
        );
        if !d.attrs.is_empty() {
            s.push_str("\n| attribute | kind | |\n|---|---|---|\n");
            for a in d.attrs {
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} |",
                    a.name,
                    a.kind.describe(),
                    if a.required { "required" } else { "optional" }
                );
            }
        }
    }
    s
}
