//! The abstract interpreter behind `functionalize` (see the module above):
//! its state, and `run`, which drives it over one function. The work is
//! split by phase and by concern: `setup` makes the arguments' objects and
//! storages, `walk` and `mutation` interpret the body in program order,
//! `epilogue` builds the new function's results and annotations; `model`
//! holds the objects and storages they all share, `values` reads and writes
//! the objects' values, and `autograd` mirrors PyTorch's autograd state.
//!
//! Invariants: every object's `chain` replays its current layout from its
//! storage's base value; a cached value is valid only at the storage version
//! it was computed at (or later, while every write since misses it); the
//! base of a storage holding several arguments (or one argument with an
//! explicit layout) is flat (1-D over the storage) and built lazily from the
//! arguments' values, the first time it is needed.

use super::backward_check::AutogradGraph;
use super::model::{MutCount, Obj, Sto};
use aot_dialects::func::{FuncView, SAME_AS};
use aot_dialects::view::Layout;
use aot_ir::*;
use rustc_hash::FxHashMap;

/// What the pass reports as statistics for one function.
pub struct Stats {
    /// In-place ops (data or metadata) rewritten away.
    pub mutations_removed: u64,
    /// Scatters built to put written values back into their bases.
    pub scatters: u64,
    /// Arguments whose `#aot.input` says they are mutated.
    pub mutated_inputs: u64,
}

pub struct Functionalizer<'c> {
    /// Builds the new body in front of the old one, which `finish` erases.
    pub(super) rw: Rewriter<'c>,
    /// The autograd graph the program builds, for the errors `backward`
    /// would raise.
    pub(super) graph: AutogradGraph,
    /// The history node of each object that holds one (a root: views use
    /// their root's) and the shape autograd recorded for it.
    pub(super) grad_fn: FxHashMap<usize, (usize, Option<Vec<i64>>)>,
    /// A program autograd would give a gradient we cannot report (a leaf
    /// whose shape a no_grad metadata mutation changed).
    pub(super) unsupported_backward: Option<(String, Location)>,
    /// A no_grad `set_` that gave a tensor requiring grad other data of
    /// another shape: refused (as `unsupported_backward`) at the next use of
    /// the tensor, unless a `set_` first puts back the storage and layout it
    /// had (`(object, storage, layout, message, location)`): PyTorch's
    /// `a.set_(b); a.set_(a_old)` under no_grad is a no-op.
    pub(super) pending_set: Option<(usize, usize, Layout, String, Location)>,
    /// Holders whose history an in-place op autograd recorded replaced:
    /// every argument sharing one is in the gradient's objective.
    pub(super) touched: rustc_hash::FxHashSet<usize>,
    /// Storages of one tensor (an independent duplicate and its original).
    pub(super) linked_counters: FxHashMap<usize, Vec<usize>>,
    /// Views made in grad mode of a tensor that did not require grad, whose
    /// grad_fn autograd has not taken since (see `TensorImpl::stale_grad_fn`).
    pub(super) stale_views: rustc_hash::FxHashSet<usize>,
    /// Objects set_ moved into another storage (detached from its tensors).
    pub(super) set_moved: rustc_hash::FxHashSet<usize>,
    /// Views set_ moved under no_grad into another storage: autograd still
    /// takes them for views of their old base.
    pub(super) moved_views: rustc_hash::FxHashSet<usize>,
    /// The version counter of objects whose counter is not their storage's
    /// (see [`Self::counter`]).
    pub(super) moved_counter: FxHashMap<usize, usize>,
    /// See [`Self::family`].
    pub(super) moved_root: FxHashMap<usize, usize>,
    /// Roots a metadata op autograd recorded moved (their views' histories
    /// are regenerated from the new layout).
    pub(super) relaid_roots: rustc_hash::FxHashSet<usize>,
    /// Detached families an in-place op autograd recorded gave a history of
    /// their own (it outlives a later set_ under no_grad).
    pub(super) own_history: rustc_hash::FxHashSet<usize>,
    /// Views whose creation passed a gradient its source's history cannot
    /// take (its shape changed under no_grad): the node that raises.
    pub(super) view_error: FxHashMap<usize, usize>,
    /// Every object made so far (see `model`: indices stay valid).
    pub(super) objs: Vec<Obj>,
    /// Every storage made so far.
    pub(super) stos: Vec<Sto>,
    /// PyTorch's version counter of each storage: the in-place ops (data or
    /// metadata, in any mode) on its tensors so far.
    pub(super) inplace_ops: Vec<u64>,
    /// Each argument's object (a merged duplicate's is its original's).
    pub(super) arg_objs: Vec<usize>,
    /// Each argument's storage and layout at entry.
    pub(super) arg_initial: Vec<(usize, Layout)>,
    /// Each argument's leafness at entry, for its `#aot.input`: a leaf, or
    /// an argument that does not require grad.
    pub(super) arg_leaf: Vec<bool>,
    /// Length of each argument's chain at entry.
    pub(super) arg_chain0: Vec<usize>,
    /// Each argument's canonical index: its original's for a merged
    /// duplicate (`aot.same_as`), else its own.
    pub(super) canonical: Vec<usize>,
    /// The mutations counted against each argument, by canonical index.
    pub(super) muts: Vec<MutCount>,
    /// How deep the calls being inlined nest (refused past 64).
    pub(super) depth: usize,
    /// The function being functionalized: its ranges and guards are what
    /// size decisions may assume (the ops of inlined callees included), and
    /// where a new guard goes.
    pub(super) func: Op,
    pub(super) stats: Stats,
}

impl<'c> Functionalizer<'c> {
    pub(super) fn err(&self, op: Op, msg: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::op_error(self.rw.ctx(), op, msg)
    }

    fn new(rw: Rewriter<'c>, func: Op) -> Self {
        Functionalizer {
            rw,
            func,
            graph: AutogradGraph::default(),
            grad_fn: FxHashMap::default(),
            unsupported_backward: None,
            pending_set: None,
            touched: Default::default(),
            own_history: Default::default(),
            set_moved: Default::default(),
            moved_views: Default::default(),
            stale_views: Default::default(),
            linked_counters: FxHashMap::default(),
            moved_counter: FxHashMap::default(),
            moved_root: FxHashMap::default(),
            relaid_roots: Default::default(),
            view_error: FxHashMap::default(),
            objs: Vec::new(),
            stos: Vec::new(),
            inplace_ops: Vec::new(),
            arg_objs: Vec::new(),
            arg_initial: Vec::new(),
            arg_leaf: Vec::new(),
            arg_chain0: Vec::new(),
            canonical: Vec::new(),
            muts: Vec::new(),
            depth: 0,
            stats: Stats { mutations_removed: 0, scatters: 0, mutated_inputs: 0 },
        }
    }

    /// Runs the pass on `func`.
    pub fn run(ctx: &'c mut Context, func: Op, keep: bool) -> Result<Stats, Diagnostic> {
        let f = FuncView { op: func };
        let entry = f.entry_block(ctx).expect("checked: has a body");
        let old_ops: Vec<Op> = ctx.block_ops(entry).collect();
        let Some(&first) = old_ops.first() else {
            return Ok(Stats { mutations_removed: 0, scatters: 0, mutated_inputs: 0 });
        };
        check_inline_size(ctx, func)?;
        let num_results = f.num_results(ctx);
        let args: Vec<Value> = f.args(ctx).to_vec();
        let has_dupes = (0..args.len()).any(|i| f.arg_has(ctx, i, SAME_AS));
        let mut rw = Rewriter::new(ctx);
        rw.set_insertion_point(InsertPoint::Before(first));
        // Duplicates: a probe with every duplicate merged finds which
        // duplicated objects the function touches; only those stay merged.
        let merge = if has_dupes {
            let mut probe = Functionalizer::new(rw, func);
            probe.setup_args(func, None)?;
            let mut env: FxHashMap<Value, usize> = args.iter().copied().zip(probe.arg_objs.clone()).collect();
            probe.walk(entry, &mut env)?;
            let merge: Vec<bool> = (0..args.len()).map(|i| probe.muts[probe.canonical[i]].total > 0).collect();
            rw = probe.rw;
            // Roll the probe's code back.
            while let Some(op) = rw.prev_op(first) {
                rw.erase_op(op);
            }
            Some(merge)
        } else {
            None
        };
        let mut this = Functionalizer::new(rw, func);
        this.setup_args(func, merge.as_deref())?;
        let mut env: FxHashMap<Value, usize> = args.iter().copied().zip(this.arg_objs.clone()).collect();
        let outs = this.walk(entry, &mut env)?;
        debug_assert_eq!(outs.len(), num_results);
        this.finish(func, &args, &outs, keep, &old_ops)?;
        Ok(this.stats)
    }
}

/// Refuses, before inlining anything, a function that inlining would grow
/// past [`size::Limits::max_inline_ops`] ops (a chain of functions that each
/// call the next twice doubles per link), or whose calls recurse.
fn check_inline_size(ctx: &Context, func: Op) -> Result<(), Diagnostic> {
    use aot_runtime::interp::{show_count, CallCosts, ExpansionError};
    let limit = size::Limits::max_inline_ops();
    match CallCosts::new().check(ctx, func, limit) {
        Ok(_) => Ok(()),
        Err(ExpansionError::Recursive { call, callee }) => Err(Diagnostic::op_error(
            ctx,
            call,
            format!("calls @{callee} recursively: functionalize inlines every call, and this one never ends"),
        )),
        Err(ExpansionError::TooLarge { at, callee, own, total, limit }) => {
            let fname = ctx.attr_str(func, "sym_name").unwrap_or("?");
            let part = callee.map(|c| format!(" ({} from this call to @{c})", show_count(own))).unwrap_or_default();
            Err(Diagnostic::op_error(
                ctx,
                at,
                format!(
                    "inlining every call into @{fname} would produce {} ops{part}, more than the limit of {limit} \
                     (raise it with {})",
                    show_count(total),
                    size::Limit::InlineOps.env_var()
                ),
            ))
        }
    }
}
