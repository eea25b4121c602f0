//! The autograd state PyTorch would build while running the body: history
//! nodes (`graph`, `grad_fn`), the edges operands pass with the shapes their
//! nodes expect, the versions saved values are checked against, and
//! PyTorch's checks on in-place ops and views. It only decides errors: the
//! forward errors PyTorch raises are returned at once, while a backward that
//! would fail, or give a gradient `aot` cannot report, is recorded and
//! raised only if a backward is ever built.
//!
//! Invariants: a view's history is its root's (`grad_fn` is keyed by
//! roots); a gradient stop cuts the history unless an in-place op gave the
//! detached family one of its own; only the first reason to refuse a
//! backward is kept.

use super::backward_check::{Edge, SavedRef};
use super::model::{first_outside, Creation};
use super::state::Functionalizer;
use aot_dialects::view::Layout;
use aot_ir::*;
use aot_runtime::interp::{
    multi_output_view_error, no_grad_view_error, LEAF_INPLACE_ERROR, VIEW_OF_LEAF_INPLACE_ERROR,
};

impl<'c> Functionalizer<'c> {
    /// PyTorch's checks before an in-place op on `o` with grad mode on.
    pub(super) fn check_inplace(&self, op: Op, o: usize, any_rg: bool) -> Result<(), Diagnostic> {
        if any_rg && self.stale_views.contains(&o) && self.requires_grad(o) {
            return Err(self.err(op, LEAF_INPLACE_ERROR));
        }
        // PyTorch's `check_inplace` order: the view's creation first.
        if any_rg {
            match self.objs[o].creation {
                Creation::Default => {}
                Creation::MultiOutput(name, k, _) => return Err(self.err(op, multi_output_view_error(name, k, false))),
                Creation::NoGrad(view_of_view, _) => return Err(self.err(op, no_grad_view_error(view_of_view, false))),
            }
        }
        match self.objs[o].root {
            Some(r) if self.is_leaf(r) && self.requires_grad(r) => return Err(self.err(op, VIEW_OF_LEAF_INPLACE_ERROR)),
            None if self.is_leaf(o) && self.requires_grad(o) => return Err(self.err(op, LEAF_INPLACE_ERROR)),
            _ => {}
        }
        Ok(())
    }

    /// PyTorch's check when autograd takes the `grad_fn` of an operand of
    /// `op` (run in grad mode): a view that may not be rebased (made under
    /// no_grad, or an output of a multi-output view op) fails once its
    /// storage was modified in place after it was made.
    pub(super) fn check_view_use(&self, op: Op, operands: &[usize]) -> Result<(), Diagnostic> {
        for &o in operands {
            if !self.requires_grad(o) {
                continue;
            }
            let now = self.inplace_ops[self.counter(o)];
            match self.objs[o].creation {
                Creation::MultiOutput(name, k, v) if v != now => {
                    return Err(self.err(op, multi_output_view_error(name, k, true)))
                }
                Creation::NoGrad(view_of_view, v) if v != now => {
                    return Err(self.err(op, no_grad_view_error(view_of_view, true)))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Autograd bookkeeping after an in-place change of `o`.
    pub(super) fn mark_autograd_mutation(&mut self, o: usize, makes_rg: bool) {
        let root = self.objs[o].root;
        for x in std::iter::once(o).chain(root) {
            if makes_rg {
                self.objs[x].rg = true;
            }
            if self.objs[x].rg {
                self.objs[x].leaf = false;
            }
        }
    }

    /// An op autograd records takes the histories of its `operands`: their
    /// edges (None where there is none); views among them get their grad_fn.
    pub(super) fn take_histories(&mut self, operands: &[usize]) -> Vec<Option<Edge>> {
        // (A view whose base does not require grad yet has no grad_fn to
        // take: it stays stale.)
        for &o in operands {
            if self.requires_grad(o) {
                self.stale_views.remove(&o);
            }
        }
        operands.iter().map(|&o| self.history_edge(o)).collect()
    }

    /// Operand or result `index` of an op autograd records, object `o`, as
    /// its backward may save it: at its storage's current version.
    pub(super) fn saved_ref(&self, result: bool, index: usize, o: usize) -> SavedRef {
        let sto = self.counter(o);
        let data_sto = self.objs[o].sto;
        SavedRef {
            result,
            index,
            sto,
            version: self.inplace_ops[sto],
            data_sto,
            data_version: self.stos[data_sto].version,
        }
    }

    /// The history edge of object `o`, if it requires grad and has one.
    /// A leaf's shape is recorded when an op first takes its history
    /// (PyTorch creates its gradient accumulator then).
    pub(super) fn history_edge(&mut self, o: usize) -> Option<Edge> {
        let h = self.objs[o].root.unwrap_or(o);
        // A gradient stop (detach, a no_grad view) cuts the history, unless
        // an in-place op gave the detached family one of its own.
        if !self.requires_grad(o) || (self.objs[o].stop.is_some() && !self.own_history.contains(&h)) {
            return None;
        }
        if let Some(&node) = self.view_error.get(&o) {
            return Some(Edge { node, got: self.objs[o].layout.sizes.to_vec(), expected: None });
        }
        // PyTorch regenerates a view's history from its base's as the base
        // is now: a base a metadata op autograd recorded moved (as_strided_
        // in grad mode) holds only its new elements, and the gradient of
        // the view's others is dropped; a base set_ moved is in another
        // storage. Refused.
        if h != o && self.unsupported_backward.is_none() {
            let loc = self.rw.current_loc();
            if self.objs[h].anchor.is_some()
                && !self.set_moved.contains(&h)
                && !self.objs[o].chain.starts_with(&self.objs[h].chain)
            {
                // The family's history is carried by its anchor along its
                // chain, which the view no longer continues (a metadata op
                // changed the tensor after the view was taken).
                self.refuse_backward_at(
                    loc,
                    "unsupported operation: a view of a detached tensor that an in-place op made require grad, used after a metadata op changed that tensor (its history is regenerated from the tensor's)".to_string(),
                );
            }
            if self.relaid_roots.contains(&h) && self.objs[h].sto == self.objs[o].sto {
                if let Some(e) = first_outside(&self.objs[h].layout, &self.objs[o].layout) {
                    self.refuse_backward_at(loc, format!(
                        "unsupported operation: a view used after its base moved (a metadata op in grad mode) holds storage element {e}, outside the base's new layout, whose gradient autograd drops"
                    ));
                }
            }
            if self.set_moved.contains(&h) && self.objs[h].sto != self.objs[o].sto {
                self.refuse_backward_at(
                    loc,
                    "unsupported operation: a view used after set_ moved its base to another storage (its history is regenerated there)".to_string(),
                );
            } else if self.set_moved.contains(&h) && !self.objs[o].chain.starts_with(&self.objs[h].chain) {
                // Moved within its storage (onto an alias of it): the view's
                // value is read from the storage, but PyTorch regenerates
                // its history from the base's, which the graph's value for
                // the view does not carry.
                self.refuse_backward_at(
                    loc,
                    "unsupported operation: a view used after set_ moved its base onto another tensor of its storage (its history is regenerated from the base's)".to_string(),
                );
            }
        }
        let now = self.objs[h].layout.sizes.to_vec();
        let (node, shape) = self.grad_fn.get_mut(&h)?;
        let recorded = shape.get_or_insert(now.clone()).clone();
        if h == o {
            return Some(Edge { node: *node, got: now, expected: Some(recorded) });
        }
        // A view whose root's shape changed since its history was recorded
        // (a metadata mutation under no_grad) is regenerated from the root
        // as it is now: the root's history gets a gradient of that shape.
        let changed = now != recorded;
        Some(Edge {
            node: *node,
            got: if changed { now } else { self.objs[o].layout.sizes.to_vec() },
            expected: changed.then_some(recorded),
        })
    }

    /// An `as_strided` view of a view of a detached tensor that an in-place
    /// op made require grad: the view is read from the storage, not from
    /// the family's anchored value, so its gradient would not reach that
    /// history; refused for training.
    pub(super) fn refuse_as_strided_of_anchored(&mut self, op: Op, p: usize) {
        let family = self.objs[p].root.unwrap_or(p);
        if self.objs[family].anchor.is_some() && self.requires_grad(p) {
            self.refuse_backward(
                op,
                "unsupported operation: as_strided of a detached tensor that an in-place op made require grad, whose gradient is not modelled".to_string(),
            );
        }
    }

    /// `as_strided` (or `as_strided_`) in grad mode whose result reaches
    /// storage elements its input does not hold: PyTorch's gradient drops
    /// them; refused for training.
    pub(super) fn check_as_strided_grad(&mut self, op: Op, from: &Layout, to: &Layout) {
        if from == to || self.unsupported_backward.is_some() {
            return;
        }
        if let Some(e) = first_outside(from, to) {
            self.refuse_backward(
                op,
                format!(
                    "unsupported operation: as_strided in grad mode reaches storage element {e}, outside its input, whose gradient autograd drops"
                ),
            );
        }
    }

    /// A backward of this call would give a gradient `aot` cannot report:
    /// calls with gradients are refused (the first reason is kept).
    pub(super) fn refuse_backward(&mut self, op: Op, message: String) {
        let loc = self.rw.op_loc(op);
        self.refuse_backward_at(loc, message);
    }

    /// Refuses the backward for a pending no_grad `set_` (see
    /// `pending_set`): its tensor is used, or the function ends.
    pub(super) fn commit_pending_set(&mut self) {
        if let Some((_, _, _, message, loc)) = self.pending_set.take() {
            self.refuse_backward_at(loc, message);
        }
    }

    fn refuse_backward_at(&mut self, loc: Location, message: String) {
        if self.unsupported_backward.is_none() {
            self.unsupported_backward = Some((message, loc));
        }
    }
}
