//! `functionalize`: from reference semantics (views alias, `mut.*` writes in
//! place) to value semantics (SSA values are immutable tensors).
//!
//! The pass is an abstract interpreter of the function body, in program
//! order, over *objects* and *storages*, with every layout known statically
//! (arguments are contiguous in their own storage unless `aot.layout` says
//! otherwise; every op's result layout follows from its rule):
//!
//! - a storage has a current *base value* (an SSA value of the new function)
//!   and a version; a tensor object is a view of its storage: a layout, and
//!   a *view chain* replaying it from the base value (a persistent list: a
//!   view shares its source's chain and adds one link, so memory stays
//!   linear in the number of views);
//! - a pure op reads its operands' current values and creates a fresh
//!   storage; a view op adds one step to its operand's chain (no code);
//! - a data mutation computes the object's new value with the op's
//!   functional twin (the `mut` dialect's `InPlaceInterface`), then pushes
//!   it back to the base through the inverse of each chain step (scatters, or
//!   reshapes/transposes for views that cover every element) and bumps the
//!   storage version: every other object of the storage is regenerated from
//!   the new base when next read;
//! - a metadata mutation changes the object's layout and chain; `set_`
//!   moves the object to another storage; `resize_` may grow the storage;
//! - arguments that share a storage (`aot.layout`) get a virtual flat base
//!   built from their values, so a write through one is seen through the
//!   others; `aot.same_as` arguments are the same object;
//! - `func.call` is inlined by interpreting the callee's body; the call
//!   graph is sized first (`aot_runtime::interp::CallCosts`, linear in its
//!   size), so a function that would inline to more than
//!   `Limits::max_inline_ops()` ops, or a recursive one, is refused before
//!   anything is expanded.
//!
//! Writes under `aot.no_grad` or through a detached alias are marked
//! `aot.hidden_write` on their outermost scatter: autograd does not see them,
//! so the base keeps its gradient identity. A view made under no_grad of a
//! tensor that requires grad gets an identity `view.alias {aot.no_grad}`
//! step after it in its chain, and a chain restarted from the base
//! (`as_strided`) of a detached or no_grad object begins with that object's
//! stop step: the regenerated values stay cut off from autograd, as their
//! objects are. The autograd flags of every
//! object (requires_grad, leafness, view base, creation) are tracked as the
//! interpreter tracks them, so the pass reports PyTorch's errors (in-place on
//! a leaf that requires grad, ...) at compile time with a location.
//!
//! The result: the user outputs, then each input mutated outside the graph
//! (result attribute `aot.mutated_input`), then candidate intermediate
//! bases, then the final value of each storage passed whole that the graph
//! writes (`aot.storage_final`); inputs mutated in the graph end with `mut.copy_`/`set_`/`resize_`
//! into the argument. Arguments carry their `#aot.input` info and user
//! outputs their alias facts (`aot.output_facts`), which `collect-metadata`
//! turns into `ViewAndMutationMeta`.

mod autograd;
mod backward_check;
mod chain;
mod epilogue;
mod model;
mod mutation;
mod setup;
mod state;
mod values;
mod walk;

use crate::meta::{Strided, ViewStep};
use aot_dialects::func::{FuncOp, FuncView};
use aot_ir::pass::{OptionKind, Pass, PassInfo, PassOptionSpec, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use aot_runtime::interp::VALUE_SEMANTICS;
pub use state::Functionalizer;

/// Function attribute recording that (and how) a function was functionalized.
pub const FUNCTIONALIZED: &str = "aot.functionalized";

crate::record! {
    /// How a function was functionalized (`aot.functionalized`), for
    /// `collect-metadata`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Functionalized = "aot.functionalized" {
        pub keep_input_mutations: bool,
        pub num_user_outputs: usize,
    }
}
/// Argument attribute: the input's `#aot.input` info.
pub const INPUT_INFO: &str = "aot.input";
/// Result attribute: the alias facts of a user output.
pub const OUTPUT_FACTS: &str = "aot.output_facts";
/// Result attribute: this result is the new value of input `i`.
pub const MUTATED_INPUT: &str = "aot.mutated_input";
/// Result attribute: a candidate intermediate base.
pub const INTERMEDIATE_BASE: &str = "aot.intermediate_base";
/// Op attribute on a scatter: the write is invisible to autograd (the view
/// dialect's folds read it, so it is declared there).
pub use aot_dialects::view::HIDDEN_WRITE;
/// Result attribute: the final value of declared storage `S` (the
/// storages in `aot.whole_storages` that the graph writes), after the
/// forward returns; `synthetic-base` takes it as the base's final value
/// and removes the result. Writes may reach elements no argument covers,
/// so the arguments' final values cannot rebuild it.
pub const STORAGE_FINAL: &str = "aot.storage_final";
/// Function attribute: the error PyTorch's `backward` of this call would
/// raise (`backward_check`), as
/// `#aot.backward_error<message = "...", file = "f.mlir", line = 4, col = 3>`;
/// `joint` raises it. The forward alone is fine, so inference compiles.
pub const BACKWARD_ERROR: &str = "aot.backward_error";

crate::record! {
    /// The error a `backward` of the call would raise, where PyTorch raises
    /// it (`aot.backward_error`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct BackwardError = "aot.backward_error" {
        pub message: String,
        pub file: Option<String>,
        pub line: Option<u64>,
        pub col: Option<u64>,
    }
}

/// The `aot.backward_error` attribute for `message` at `loc`.
pub fn backward_error_attr(ctx: &mut Context, message: &str, loc: Location) -> Attribute {
    let at = ctx.loc_file_line_col(loc).map(|(f, l, c)| (f.to_string(), l, c));
    let e = BackwardError {
        message: message.to_string(),
        file: at.as_ref().map(|(f, _, _)| f.clone()),
        line: at.as_ref().map(|&(_, l, _)| u64::from(l)),
        col: at.as_ref().map(|&(_, _, c)| u64::from(c)),
    };
    e.to_attr(ctx)
}

/// The diagnostic a function's `aot.backward_error` describes, if it has one.
pub fn backward_error(ctx: &mut Context, func: Op) -> Option<Diagnostic> {
    let a = ctx.get_attr(func, BACKWARD_ERROR)?;
    let e = match BackwardError::from_attr(ctx, a) {
        Ok(e) => e,
        Err(m) => return Some(Diagnostic::op_error(ctx, func, m)),
    };
    let loc = match (&e.file, e.line, e.col) {
        (Some(f), Some(l), Some(c)) => {
            ctx.file_loc(f, u32::try_from(l).unwrap_or(u32::MAX), u32::try_from(c).unwrap_or(u32::MAX))
        }
        _ => ctx.op_loc(func),
    };
    Some(Diagnostic::error(loc, e.message))
}
/// Op attribute on the value functionalize builds as the flat base of a
/// storage shared by arguments (`aot.layout`), naming the storage id:
/// `synthetic-base` replaces it with a base argument.
pub const VIRTUAL_BASE: &str = "aot.virtual_base";
/// Function attribute: the declared storages (`aot.layout` ids) whose
/// elements outside every argument the graph reads (e.g. through
/// `as_strided`); `synthetic-base` passes each of them whole.
pub const WHOLE_STORAGES: &str = "aot.whole_storages";
/// Function attribute: where each declared storage was written,
/// `[#aot.writes<storage = S, layouts = [#aot.strided<...>, ...]>]`, so that
/// `synthetic-base` can prove its write-back covers every write.
pub const STORAGE_WRITES: &str = "aot.storage_writes";
crate::record! {
    /// One entry of `aot.storage_writes`: the layouts through which the
    /// graph writes declared storage `storage`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct StorageWrites = "aot.writes" {
        pub storage: i64,
        pub layouts: Vec<crate::meta::Strided>,
    }
}
/// The record kind of an output's facts.
pub const FACTS_KIND: &str = "aot.facts";

/// Alias facts of one user output, as functionalize found them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFacts {
    pub requires_grad: bool,
    /// Abstract storage id (outputs with equal ids share a storage).
    pub storage: usize,
    /// "input" (an argument's storage), "intermediate" (a view of an
    /// intermediate), or "fresh" (an intermediate's own base object).
    pub kind: &'static str,
    /// The argument this output is (object identity).
    pub is_input: Option<usize>,
    /// For kind "input": the argument to regenerate it from.
    pub input: Option<usize>,
    pub multi_output_view: bool,
    /// Its autograd history is its own, not its storage's: a detached alias
    /// (or a view of one) that an in-place op autograd recorded made require
    /// grad, or a view made under no_grad (requires grad, no history). Its
    /// gradient flows through the graph (or nowhere), not to the argument.
    pub own_history: bool,
    /// For kind "input": the output shares the storage argument `input` was
    /// `set_` onto (an intermediate's), not the one it had on entry.
    pub after_set: bool,
    /// For kind "intermediate": does the base require grad; is the base
    /// itself user output j; which result holds the base.
    pub base_requires_grad: bool,
    pub base_is_output: Option<usize>,
    pub base_result: Option<usize>,
    /// View chain from the base (argument or intermediate), when replayable.
    pub views: Option<Vec<ViewStep>>,
    pub layout: Strided,
}

crate::hand_written_record!(OutputFacts = FACTS_KIND);

impl OutputFacts {
    pub fn to_attr(&self, ctx: &mut Context) -> Attribute {
        use crate::meta::Params;
        let views = self.views.as_ref().map(|v| crate::meta::steps_to_attr(ctx, v));
        let layout = self.layout.to_attr(ctx);
        let mut p = Params::new(ctx);
        p.bool("requires_grad", self.requires_grad);
        p.int("storage", self.storage as i64);
        let k = p.ctx.str_attr(self.kind);
        p.raw("kind", k);
        if let Some(i) = self.is_input {
            p.int("is_input", i as i64);
        }
        if let Some(i) = self.input {
            p.int("input", i as i64);
        }
        if self.multi_output_view {
            p.bool("multi_output_view", true);
        }
        if self.own_history {
            p.bool("own_history", true);
        }
        if self.after_set {
            p.bool("after_set", true);
        }
        if self.kind == "intermediate" {
            p.bool("base_requires_grad", self.base_requires_grad);
        }
        if let Some(j) = self.base_is_output {
            p.int("base_is_output", j as i64);
        }
        if let Some(r) = self.base_result {
            p.int("base_result", r as i64);
        }
        if let Some(v) = views {
            p.raw("views", v);
        }
        p.raw("layout", layout);
        p.finish(FACTS_KIND)
    }

    pub fn from_attr(ctx: &Context, a: Attribute) -> Result<Self, String> {
        let r = crate::meta::Reader::new(ctx, a, FACTS_KIND)?;
        let kind = match r.str("kind")? {
            "input" => "input",
            "intermediate" => "intermediate",
            "fresh" => "fresh",
            other => return Err(format!("unknown output kind \"{other}\"")),
        };
        let idx = |k: &str| -> Result<Option<usize>, String> { Ok(r.opt_int(k)?.map(|v| v as usize)) };
        Ok(OutputFacts {
            requires_grad: r.bool("requires_grad")?,
            storage: r.int("storage")? as usize,
            kind,
            is_input: idx("is_input")?,
            input: idx("input")?,
            multi_output_view: r.opt_bool("multi_output_view")?.unwrap_or(false),
            own_history: r.opt_bool("own_history")?.unwrap_or(false),
            after_set: r.opt_bool("after_set")?.unwrap_or(false),
            base_requires_grad: r.opt_bool("base_requires_grad")?.unwrap_or(false),
            base_is_output: idx("base_is_output")?,
            base_result: idx("base_result")?,
            views: r.opt("views").map(|v| crate::meta::steps_from_attr(ctx, v)).transpose()?,
            layout: crate::meta::Strided::from_attr(ctx, r.get("layout")?)?,
        })
    }
}

struct FunctionalizePass {
    keep_input_mutations: bool,
}

impl Pass for FunctionalizePass {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let Some(f) = FuncView::new(ctx, op) else { return Ok(()) };
        // Private functions are implementation details: calls to them are
        // inlined into the public functions that use them.
        if !f.is_public_definition(ctx) || ctx.has_attr(op, VALUE_SEMANTICS) {
            return Ok(());
        }
        // The storage model tracks storages element by element (coverage,
        // overlap): bounding every value first bounds that work too.
        aot_ir::size::check_value_sizes(ctx, op)?;
        let stats = Functionalizer::run(ctx, op, self.keep_input_mutations)?;
        st.add_stat("num-mutations-removed", stats.mutations_removed);
        st.add_stat("num-scatters", stats.scatters);
        st.add_stat("num-mutated-inputs", stats.mutated_inputs);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "functionalize",
        name: "Functionalize",
        summary: "Rewrite views and in-place mutations into a pure graph (value semantics)",
        description: "Interprets the function abstractly over tensor objects and storages with static layouts: \
views become replayable chains, writes become functional ops plus scatters back into their base, \
metadata mutations change object layouts, and aliasing declared by aot.same_as and aot.layout is \
honoured. Inputs mutated in a way the graph may keep end with a trailing mut.copy_/set_/resize_ \
(keep-input-mutations); other mutated inputs become extra results marked aot.mutated_input. \
Autograd rules are checked at compile time (in-place on a leaf that requires grad is an error); the \
autograd graph the program builds is mirrored, and the error its backward would raise (a saved value \
changed in place, a gradient of the wrong shape, set_) is recorded as aot.backward_error. Storages passed \
whole that the graph writes return their final value (aot.storage_final). Private functions are skipped: \
calls to them are inlined.",
        anchor: Some(FuncOp::NAME),
        options: &[PassOptionSpec {
            name: "keep-input-mutations",
            kind: OptionKind::Bool,
            default: "true",
            description: "Keep safe input mutations in the graph as trailing copies (MUTATED_IN_GRAPH)",
        }],
        statistics: &[
            StatisticSpec { name: "num-mutations-removed", description: "In-place ops rewritten to value semantics" },
            StatisticSpec { name: "num-scatters", description: "Scatter ops created to write views back" },
            StatisticSpec { name: "num-mutated-inputs", description: "Inputs whose data or metadata the function changes" },
        ],
        create: |o: &PassOptions| Ok(Box::new(FunctionalizePass { keep_input_mutations: o.get_bool("keep-input-mutations") })),
    }
}
