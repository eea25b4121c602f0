//! In-place ops. A data mutation (`mut.add_`, `mut.copy_`, ...) computes the
//! destination's new value with its functional twin and writes it back
//! through the destination's chain; a metadata mutation (`as_strided_`,
//! `transpose_`, `resize_`, `set_`) changes the object's layout, chain or
//! storage without writing data. Both run PyTorch's in-place checks first
//! (in grad mode), move the version counter, record the autograd node when
//! autograd would, and count the mutation against every argument it
//! reaches, from which the epilogue classifies each input's mutation.
//!
//! Invariants: a mutation autograd does not see (under no_grad, through a
//! detached alias or a tensor `set_` moved) is hidden: it keeps the
//! gradient identity of what it overwrites; the version counter moves
//! before the write, so saved values taken earlier are seen as stale.

use super::backward_check::{node_name, SavedRef};
use super::chain::Step;
use super::model::{
    copy_slices_error, first_outside, has_internal_overlap, logical_order, may_self_overlap, numel, overlaps,
};
use super::state::Functionalizer;
use aot_dialects::r#mut::{
    resize_layout, AsStridedOp as AsStridedInPlaceOp, InPlaceInterface, MetadataKind, MetadataMutationInterface,
    NewValueFn,
};
use aot_dialects::tensor::{CatOp, FullOp};
use aot_dialects::view::{AsStridedOp, ExpandOp, ReshapeOp, SliceOp};
use aot_ir::*;
use aot_runtime::interp::{
    overlap_forbidden, AllowsInternalOverlap, AssertNoOverlap, RefusesRequiresGrad, ReplacesData, NO_GRAD,
};
use aot_runtime::overlap::INTERNAL_OVERLAP_ERROR;

impl<'c> Functionalizer<'c> {
    pub(super) fn data_mutation(&mut self, op: Op, def: &'static OpDef, operands: &[usize]) -> Result<(), Diagnostic> {
        let x = operands[0];
        let grad_mode = !self.rw.has_attr(op, NO_GRAD);
        let others_rg = operands[1..].iter().any(|&o| self.requires_grad(o));
        if grad_mode {
            self.check_inplace(op, x, others_rg || self.requires_grad(x))?;
            self.check_view_use(op, &operands[1..])?;
        }
        // The other operands are saved before the write bumps the version;
        // the destination's old value is saved as a copy (PyTorch's
        // `original_self`), so it never goes stale.
        let mut refs: Vec<SavedRef> =
            operands.iter().enumerate().skip(1).map(|(i, &o)| self.saved_ref(false, i, o)).collect();
        let recorded = grad_mode && (others_rg || self.requires_grad(x));
        if recorded && self.moved_views.contains(&self.family(x)) {
            // PyTorch records the write as one into the view's old base,
            // which then has a history for elements it never held.
            self.refuse_backward(
                op,
                format!(
                    "unsupported operation: '{}' in grad mode through a view that set_ moved under no_grad into another storage: PyTorch records it as a write into the view's old base",
                    def.name
                ),
            );
        }
        // The op takes its operands' grad_fn and sets the destination's.
        let edges = if recorded { self.take_histories(operands) } else { Vec::new() };
        if recorded {
            // The recorded op gives its destination a grad_fn.
            self.stale_views.remove(&x);
        }
        self.bump_version(self.counter(x));
        if has_internal_overlap(&self.objs[x].layout) && def.interface::<AllowsInternalOverlap>().is_none() {
            return Err(self.err(op, INTERNAL_OVERLAP_ERROR));
        }
        let strict = def.interface::<AssertNoOverlap>().is_some();
        let mut facts = None;
        for &y in &operands[1..] {
            use aot_runtime::overlap::{mem_overlap_given, MemOverlap, View, PARTIAL_OVERLAP_ERROR};
            let (a, b) = (&self.objs[x].layout, &self.objs[y].layout);
            let status = if y == x {
                MemOverlap::Full
            } else if self.objs[y].sto == self.objs[x].sto {
                let facts = match &mut facts {
                    Some(f) => f,
                    none => {
                        none.insert(aot_ir::sym::Facts::of_func(self.rw.ctx(), self.func).map_err(|m| self.err(op, m))?)
                    }
                };
                let (va, vb) = (View::new(&a.sizes, &a.strides, a.offset), View::new(&b.sizes, &b.strides, b.offset));
                // Where the sizes decide whether eager raises, one compile
                // cannot serve them all.
                mem_overlap_given(&va, &vb, facts).ok_or_else(|| {
                    self.err(
                        op,
                        "an in-place op whose operand overlaps the written-to tensor at some sizes and not \
                         at others is not supported yet with symbolic sizes",
                    )
                })?
            } else {
                continue;
            };
            if overlap_forbidden(status, strict) {
                return Err(self.err(op, PARTIAL_OVERLAP_ERROR));
            }
        }
        let iface = def
            .interface::<InPlaceInterface>()
            .ok_or_else(|| self.err(op, "is an in-place op without an InPlaceInterface"))?;
        // A write in grad mode that autograd records nothing for (neither
        // the destination nor the value requires grad) changes the data of
        // the tensors of other autograd families that share the elements
        // (arguments that only share the storage), not their histories:
        // to a tensor among them that requires grad it is hidden.
        let unrecorded = grad_mode && !(others_rg || self.requires_grad(x));
        let foreign_rg = unrecorded && {
            let (sto, family) = (self.objs[x].sto, self.family(x));
            self.arg_objs.iter().any(|&a| self.objs[a].sto == sto && self.family(a) != family && self.requires_grad(a))
        };
        let hidden = !grad_mode || self.objs[x].detached || foreign_rg;
        let mut vals = Vec::with_capacity(operands.len());
        for &o in operands {
            vals.push(self.materialize(o)?);
        }
        let w = match self.live_index_put(op, x, operands, hidden, iface.new_value)? {
            Some(w) => w,
            None => (iface.new_value)(&mut self.rw, op, &vals)?,
        };
        // A copy_ autograd records over a history that requires grad:
        // eager's CopyBackwards gives that history a zero gradient, which
        // its derivatives multiply (a NaN there propagates), not none.
        let w = if recorded && self.requires_grad(x) && self.rw.isa::<aot_dialects::r#mut::CopyOp>(op) {
            aot_dialects::tensor::OverwriteOp::build1(&mut self.rw, &[vals[0], w], &[])?
        } else {
            w
        };
        // The functional twin as one op on the same operands: its operand
        // and result indices are the in-place op's.
        let twin = self.rw.defining_op(w).filter(|&t| self.rw.operands(t).eq(vals.iter().copied()));
        if recorded {
            // The destination as the op leaves it: after its own write.
            let mut r = self.saved_ref(true, 0, x);
            r.data_version += 1;
            refs.push(r);
            let loc = self.rw.op_loc(op);
            // fill_/zero_ through an expanded view: the backward (CopySlices)
            // writes the gradient through that view, which PyTorch refuses.
            let h = self.objs[x].root.unwrap_or(x);
            let error = if has_internal_overlap(&self.objs[x].layout) {
                Some(INTERNAL_OVERLAP_ERROR.to_string())
            } else if h != x && self.objs[h].sto == self.objs[x].sto {
                copy_slices_error(&self.objs[h].layout, &self.objs[x].layout, self.objs[x].dtype)
            } else {
                None
            };
            let n = self.graph.node(&node_name(def.name), twin, &edges, refs, error, loc);
            self.grad_fn.insert(h, (n, Some(self.objs[h].layout.sizes.to_vec())));
            self.touched.insert(h);
            if self.objs[x].detached {
                self.own_history.insert(h);
            }
        }
        let w_t = self.rw.value_type(w);
        let x_t = self.tensor_type(x);
        if w_t != x_t {
            return Err(self.err(op, "computes a value whose type differs from its destination's"));
        }
        // An in-place op autograd records on a detached family gives its
        // root a history of its own; the storage write stays hidden.
        // (A tensor set_ moved is its own family: its root's storage is no
        // longer its own, or no longer its own in the same way.)
        let family = (grad_mode && self.objs[x].detached && (others_rg || self.requires_grad(x))).then(|| {
            match self.family(x) {
                r if self.objs[r].sto == self.objs[x].sto => r,
                _ => x,
            }
        });
        let family_before = match family {
            Some(r) if r != x => Some(self.materialize(r)?),
            _ => None,
        };
        self.write(op, x, w, hidden)?;
        if let Some(r) = family {
            let before = family_before.unwrap_or(w);
            let a = self.anchored_write(op, r, x, before, w)?;
            self.objs[r].anchor = a;
            self.objs[r].cached = None;
            self.mark_autograd_mutation(x, others_rg);
        }
        self.record_mutation(x, true, true, self.objs[x].detached, !grad_mode, unrecorded);
        if grad_mode && (others_rg || self.requires_grad(x)) && !self.objs[x].detached {
            self.mark_autograd_mutation(x, others_rg);
        }
        self.stats.mutations_removed += 1;
        Ok(())
    }

    pub(super) fn metadata_mutation(
        &mut self,
        op: Op,
        def: &'static OpDef,
        operands: &[usize],
    ) -> Result<usize, Diagnostic> {
        let x = operands[0];
        if let Some(r) = def.interface::<RefusesRequiresGrad>().filter(|_| self.requires_grad(x)) {
            return Err(self.err(op, r.0));
        }
        let grad_mode = !self.rw.has_attr(op, NO_GRAD);
        let others_rg = operands[1..].iter().any(|&o| self.requires_grad(o));
        if grad_mode {
            self.check_inplace(op, x, others_rg || self.requires_grad(x))?;
            self.check_view_use(op, &operands[1..])?;
        }
        self.bump_version(self.counter(x));
        let recorded = grad_mode && (others_rg || self.requires_grad(x));
        let edges = if recorded { self.take_histories(operands) } else { Vec::new() };
        if recorded {
            // The recorded op gives its destination a grad_fn.
            self.stale_views.remove(&x);
        }
        let layout_before = self.objs[x].layout.clone();
        let kind = def
            .interface::<MetadataMutationInterface>()
            .map(|m| m.kind)
            .ok_or_else(|| self.err(op, "has no MetadataMutationInterface"))?;
        let sto = self.objs[x].sto;
        match kind {
            MetadataKind::Relayout { layout, view } => {
                let old = self.objs[x].layout.clone();
                let new = layout(&AttrView::of_op(&self.rw, op), &old)
                    .map_err(|m| self.err(op, m))?
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.err(op, "layout rule returned nothing"))?;
                let attrs: Vec<NamedAttr> =
                    self.rw.attrs(op).iter().copied().filter(|a| !self.rw.sym_str(a.name).contains('.')).collect();
                let step = Step { op: view, attrs };
                let cached = self.objs[x].cached;
                let version = self.stos[sto].version;
                if view.is::<AsStridedOp>() {
                    // The anchor cannot follow x onto other elements: x's
                    // values come from the storage, its gradient is refused.
                    self.refuse_as_strided_of_anchored(op, x);
                    self.objs[x].anchor = None;
                } else if let Some(a) = self.objs[x].anchor {
                    self.objs[x].anchor = Some(self.apply(&step, a)?);
                }
                if view.is::<AsStridedOp>() {
                    // An argument moved onto other elements of a storage of
                    // symbolic size: which elements its writes reach, and
                    // so what goes back to the caller, is not tracked for
                    // such storages yet (a write through it gave wrong
                    // values).
                    let symbolic = aot_ir::sym::is_symbolic(self.stos[sto].len) || new.is_symbolic();
                    if symbolic && self.arg_objs.iter().any(|&a| self.objs[a].sto == sto) {
                        return Err(
                            self.err(op, "an as_strided_ of an argument with symbolic sizes is not supported yet")
                        );
                    }
                    self.check_covered(op, sto, &new)?;
                    self.objs[x].chain = self.restarted_chain(x, step);
                    self.objs[x].cached = None;
                    // A chain restarted from the storage has only this layout.
                    self.objs[x].readonly = false;
                } else {
                    self.objs[x].chain.push(step.clone());
                    self.objs[x].cached = match cached {
                        Some((v, at)) if at == version => Some((self.apply(&step, v)?, version)),
                        _ => None,
                    };
                }
                self.objs[x].readonly |= may_self_overlap(&new);
                self.objs[x].layout = new;
                self.objs[x].src = None;
            }
            MetadataKind::Resize => {
                let size = self.rw.attr_i64_list(op, "size").ok_or_else(|| self.err(op, "requires 'size'"))?;
                let l = resize_layout(&self.objs[x].layout, &size);
                if l != self.objs[x].layout {
                    let len = self.stos[sto].len;
                    if l.is_symbolic() || aot_ir::sym::is_symbolic(len) {
                        // Growing a storage of symbolic size needs the zeros
                        // it gains as a size expression; within it, the new
                        // layout is a view.
                        let need = aot_ir::sym::numel(&l.sizes).and_then(|n| aot_ir::sym::add(l.offset, n));
                        let facts =
                            aot_ir::sym::Facts::of_func(self.rw.ctx(), self.func).map_err(|m| self.err(op, m))?;
                        if !need.is_ok_and(|n| facts.known_le(n, len)) {
                            return Err(
                                self.err(op, "a resize_ that may grow a storage of symbolic size is not supported yet")
                            );
                        }
                    } else {
                        let need = l.offset + numel(&l.sizes);
                        if need > len {
                            self.grow_storage(sto, need)?;
                        }
                    }
                    // The new layout may read storage elements no argument covers.
                    self.check_covered(op, sto, &l)?;
                    let step = self.as_strided_step(&l);
                    self.objs[x].chain = self.restarted_chain(x, step);
                    self.objs[x].layout = l;
                    self.objs[x].cached = None;
                    self.objs[x].src = None;
                    self.objs[x].readonly = false;
                }
            }
            MetadataKind::Set => {
                let s = operands[1];
                let x_rg = self.requires_grad(x);
                // A set_ autograd does not see keeps x's gradient identity
                // (as a hidden write does): x reads src's data through a
                // whole-value scatter marked hidden, whose gradient goes to x.
                let hidden = (!grad_mode || self.objs[x].detached)
                    && self.objs[x].layout.sizes == self.objs[s].layout.sizes
                    && self.objs[x].dtype == self.objs[s].dtype
                    && self.requires_grad(x);
                let (identity, carrier) = if hidden {
                    let old = self.materialize(x)?;
                    let new = self.materialize(s)?;
                    (Some(self.hidden_overwrite(old, new)?), Some(old))
                } else {
                    (None, None)
                };
                let counter = self.counter(x);
                self.moved_counter.insert(x, counter);
                let src = self.objs[s].clone();
                let version = self.stos[src.sto].version;
                let o = &mut self.objs[x];
                o.sto = src.sto;
                o.layout = src.layout;
                o.chain = src.chain;
                o.cached = match identity {
                    Some(v) => Some((v, version)),
                    None => src.cached,
                };
                o.readonly = src.readonly;
                o.src = None;
                // Its old value keeps carrying its history across later
                // writes autograd does not see (as a detached family's
                // anchor does).
                o.anchor = carrier;
                // A set_ autograd records gives x a history (the set_
                // node), even when x was detached.
                if recorded {
                    o.stop = None;
                }
                // A view set_ onto its own base's storage stays a view of
                // that base (PyTorch keeps its view relationship): writes
                // through it reach the base's history, as before.
                let (root, was_detached, new_sto) = (o.root, o.detached, o.sto);
                let view_of_same_storage = root.is_some_and(|r| r != x && !was_detached && self.objs[r].sto == new_sto);
                if !view_of_same_storage {
                    // x shares src's storage but not its version counter or
                    // history: writes through x are x's own, hidden from the
                    // tensors of that storage (as through a detached alias).
                    let o = &mut self.objs[x];
                    o.detached = true;
                    self.set_moved.insert(x);
                    self.moved_root.insert(x, x);
                    if root.is_some_and(|r| r != x) && !was_detached && !recorded {
                        self.moved_views.insert(x);
                    }
                }
                // One it does not see keeps x's identity: a tensor without
                // history reads src's data with none of src's gradient.
                if !view_of_same_storage && !recorded && !x_rg && self.objs[x].dtype.is_float() {
                    let marker = self.no_grad_marker();
                    let o = &mut self.objs[x];
                    o.chain.push(marker.clone());
                    o.stop = Some(marker);
                    o.cached = None;
                }
            }
        }
        let h = self.objs[x].root.unwrap_or(x);
        if recorded && self.requires_grad(x) && def.name == AsStridedInPlaceOp::NAME {
            let to = self.objs[x].layout.clone();
            self.check_as_strided_grad(op, &layout_before, &to);
        }
        if !recorded && h != x && self.objs[h].sto == self.objs[x].sto && self.requires_grad(h) {
            // A view moved under no_grad onto elements its root does not
            // hold: PyTorch regenerates its history as an as_strided of the
            // root, which drops their gradient.
            if let Some(e) = first_outside(&self.objs[h].layout, &self.objs[x].layout) {
                self.refuse_backward(
                    op,
                    format!(
                        "unsupported operation: '{}' under no_grad moves a view onto storage element {e}, outside the tensor whose history it takes, whose gradient autograd drops",
                        def.name
                    ),
                );
            } else if may_self_overlap(&self.objs[h].layout) {
                // The regenerated history is an as_strided of a tensor that
                // holds an element at several positions: PyTorch shares the
                // gradient among them, where the view's steps send it to one.
                self.refuse_backward(
                    op,
                    format!(
                        "unsupported operation: '{}' under no_grad of a view of a tensor that holds an element at several positions (PyTorch regenerates the view's history as an as_strided of it, which shares the gradient among those positions)",
                        def.name
                    ),
                );
            }
        }
        if recorded {
            let error = matches!(kind, MetadataKind::Set).then(|| "derivative for set_ is not implemented".to_string());
            let loc = self.rw.op_loc(op);
            let set = error.is_some();
            let n = self.graph.node(&node_name(def.name), None, &edges, Vec::new(), error, loc);
            self.grad_fn.insert(h, (n, Some(self.objs[h].layout.sizes.to_vec())));
            if h == x && self.objs[x].layout != layout_before {
                self.relaid_roots.insert(h);
            }
            if set {
                self.touched.insert(h);
                // Views of x taken before it, even through a detach, now
                // reach that history (their base's history is regenerated).
                self.own_history.insert(h);
            }
        } else if matches!(kind, MetadataKind::Relayout { .. })
            && h == x
            && self.requires_grad(x)
            && self.grad_fn.get(&x).is_some_and(|&(n, _)| !self.graph.is_leaf(n))
            && logical_order(&layout_before) != logical_order(&self.objs[x].layout)
        {
            // A history recorded for one element order receives a gradient
            // in another (transpose_ under no_grad): PyTorch then sends each
            // element's gradient to another element.
            self.refuse_backward(
                op,
                format!(
                    "unsupported operation: '{}' under no_grad reorders the elements of a tensor with a history, whose gradient PyTorch then misplaces",
                    def.name
                ),
            );
        } else if matches!(kind, MetadataKind::Set) && self.requires_grad(x) && self.objs[x].root.is_some() {
            // A view keeps its identity across a set_ autograd does not see:
            // PyTorch regenerates its history from its base at the new
            // geometry, in a storage that is no longer the base's.
            self.refuse_backward(
                op,
                "unsupported operation: set_ under no_grad of a view of a tensor that requires grad".to_string(),
            );
        } else if matches!(kind, MetadataKind::Set)
            && self
                .pending_set
                .as_ref()
                .is_some_and(|p| p.0 == x && p.1 == self.objs[x].sto && p.2 == self.objs[x].layout)
        {
            // The storage and layout it had before the pending set_ are
            // back: the pair is a no-op.
            self.pending_set = None;
        } else if matches!(kind, MetadataKind::Set)
            && self.objs[x].layout.sizes != layout_before.sizes
            && self.requires_grad(x)
        {
            // A tensor keeps its identity across a set_ autograd does not
            // see, with the new data and shape: PyTorch's gradient is then
            // one of other elements, in another shape, than the argument's.
            // Refused at its next use, unless a set_ puts it back first.
            self.commit_pending_set();
            let loc = self.rw.op_loc(op);
            self.pending_set = Some((
                x,
                sto,
                layout_before.clone(),
                "unsupported operation: set_ under no_grad gives a tensor that requires grad other data of another shape, so its gradient would not be one of its own elements".to_string(),
                loc,
            ));
        }
        if !recorded && matches!(kind, MetadataKind::Set) && self.requires_grad(x) && self.is_leaf(x) {
            // PyTorch gives the leaf a new gradient accumulator: its uses
            // before the set_ send their gradient to the old one, which
            // autograd.grad does not report (and backward() does). A
            // backward that reaches the old one is refused.
            if let Some(&(old, _)) = self.grad_fn.get(&x) {
                let loc = self.rw.op_loc(op);
                self.graph.set_error(
                    old,
                    "unsupported operation: set_ under no_grad of a leaf that requires grad, after an op autograd recorded used it: that use's gradient goes to a gradient accumulator the leaf no longer has",
                    loc,
                );
                let fresh = self.graph.leaf(loc);
                self.grad_fn.insert(x, (fresh, None));
            }
        }
        let objective = def.interface::<ReplacesData>().is_some();
        self.record_mutation(x, false, objective, self.objs[x].detached, !grad_mode, false);
        if grad_mode && (others_rg || self.requires_grad(x)) {
            self.mark_autograd_mutation(x, others_rg);
        }
        self.stats.mutations_removed += 1;
        Ok(x)
    }

    /// Grows storage `s` to `need` elements (zero-filled) for `resize_`.
    fn grow_storage(&mut self, s: usize, need: i64) -> Result<(), Diagnostic> {
        let base = self.base_value(s)?;
        let (len, dtype) = (self.stos[s].len, self.stos[s].dtype);
        let flat = if self.stos[s].flat {
            base
        } else {
            let shape = self.rw.i64_list_attr(&[len]);
            ReshapeOp::build1(&mut self.rw, &[base], &[("shape", shape)])?
        };
        let t = self.rw.tensor_type(&[need - len], dtype);
        let zero = self.rw.f64_attr(0.0);
        let zeros = FullOp::build_typed1(&mut self.rw, &[], &[("value", zero)], t);
        let dim = self.rw.i64_attr(0);
        let grown = CatOp::build1(&mut self.rw, &[flat, zeros], &[("dim", dim)])?;
        // Every object of the storage is now an as_strided view of the flat
        // base (behind its gradient stop, if it has one).
        for o in 0..self.objs.len() {
            if self.objs[o].sto == s {
                let l = self.objs[o].layout.clone();
                let step = self.as_strided_step(&l);
                self.objs[o].chain = self.restarted_chain(o, step);
                self.objs[o].src = None;
            }
        }
        let st = &mut self.stos[s];
        st.base = Some(grown);
        st.flat = true;
        st.len = need;
        st.covered = None;
        Ok(())
    }

    /// `mut.index_put_` whose values share elements with its destination
    /// (PyTorch's overlap check lets them through where it cannot decide,
    /// for layouts that are not dense): PyTorch's CPU kernel puts one index
    /// position after another and reads each position's values from memory
    /// as the earlier ones left it. The same here: every position but the
    /// last is written at once, each reading the values' current value,
    /// and the last position's new value is returned for the caller's
    /// write. None for any other op or operands.
    /// `new_value` is the op's own (its functional twin on given operands).
    fn live_index_put(
        &mut self,
        op: Op,
        x: usize,
        operands: &[usize],
        hidden: bool,
        new_value: NewValueFn,
    ) -> Result<Option<Value>, Diagnostic> {
        use aot_dialects::r#mut::kernels::{live_index_put_limit, LIVE_INDEX_PUT_POSITIONS};
        if self.rw.op_name(op) != "mut.index_put_" || operands.len() != 3 || self.objs[x].detached {
            return Ok(None);
        }
        let (index, y) = (operands[1], operands[2]);
        if y == x || self.objs[y].sto != self.objs[x].sto || !overlaps(&self.objs[x].layout, &self.objs[y].layout) {
            return Ok(None);
        }
        let m = self.objs[index].layout.sizes.first().copied().unwrap_or(0);
        if aot_ir::sym::is_symbolic(m) {
            return Err(self.err(
                op,
                "index_put_ whose values alias its destination, with a symbolic number of indices, is not supported yet",
            ));
        }
        if m <= 1 {
            return Ok(None);
        }
        if m > LIVE_INDEX_PUT_POSITIONS {
            return Err(self.err(op, live_index_put_limit(m)));
        }
        let mut target: Vec<i64> = vec![m];
        target.extend(self.objs[x].layout.sizes.iter().skip(1).copied());
        let index_v = self.materialize(index)?;
        let mut last = None;
        for k in 0..m {
            if let Some(w) = last.take() {
                self.write(op, x, w, hidden)?;
            }
            let values = self.materialize(y)?;
            let shape = self.rw.i64_list_attr(&target);
            let all = ExpandOp::build1(&mut self.rw, &[values], &[("shape", shape)])?;
            let (dim, start, end) = (self.rw.i64_attr(0), self.rw.i64_attr(k), self.rw.i64_attr(k + 1));
            let at = [("dim", dim), ("start", start), ("end", end)];
            let row = SliceOp::build1(&mut self.rw, &[all], &at)?;
            let one = SliceOp::build1(&mut self.rw, &[index_v], &at)?;
            let dest = self.materialize(x)?;
            last = Some(new_value(&mut self.rw, op, &[dest, one, row])?);
        }
        Ok(last)
    }

    /// Records a mutation of object `o` against the arguments it touches.
    /// `objective`: autograd counts it as a change of data (every data
    /// mutation, and `set_`); a metadata-only mutation does not put the
    /// argument's final value in the gradient objective. `unrecorded`: a
    /// data write in grad mode that autograd records nothing for.
    fn record_mutation(
        &mut self,
        o: usize,
        data: bool,
        objective: bool,
        hidden: bool,
        no_grad: bool,
        unrecorded: bool,
    ) {
        let sto = self.objs[o].sto;
        let mut targets: Vec<usize> = Vec::new();
        let mut moved_onto: Vec<usize> = Vec::new();
        if data {
            let members = &self.stos[sto].members;
            if members.len() <= 1 {
                targets.extend(members.iter().map(|m| m.0));
            } else {
                let l = self.objs[o].layout.clone();
                targets.extend(members.iter().filter(|m| overlaps(&m.1, &l)).map(|m| m.0));
            }
            // An argument a metadata change moved onto the written elements
            // (its value now holds them), written through another tensor.
            let l = self.objs[o].layout.clone();
            for (i, &a) in self.arg_objs.iter().enumerate() {
                if a != o && !targets.contains(&i) && self.objs[a].sto == sto && overlaps(&self.objs[a].layout, &l) {
                    targets.push(i);
                    moved_onto.push(i);
                }
            }
        }
        // Metadata mutations belong to the object itself.
        if let Some(i) = self.arg_objs.iter().position(|&a| a == o) {
            if !targets.contains(&i) {
                targets.push(i);
            }
        }
        // An object set_ moved into another storage is detached from that
        // storage's tensors, not from itself.
        let family = self.family(o);
        let moved = self.set_moved.contains(&family);
        for i in targets {
            let own = moved && self.arg_objs[i] == family;
            // An argument set_ moved onto another tensor's storage is not
            // in that tensor's autograd family: autograd never sees writes
            // through it as the argument's.
            let foreign = moved_onto.contains(&i) && {
                let f = self.family(self.arg_objs[i]);
                self.set_moved.contains(&f) && f != family
            };
            // A write autograd records nothing for, through a tensor of
            // another autograd family (an argument that only shares the
            // storage, one a metadata change moved onto this argument's
            // elements): the argument's values change, its history does
            // not, as in eager.
            let outside = data && unrecorded && self.family(self.arg_objs[i]) != family;
            let hidden = (hidden && !own) || foreign || outside;
            let i = self.canonical[i];
            let m = &mut self.muts[i];
            m.total += 1;
            m.data += data as u32;
            m.hidden += hidden as u32;
            m.no_grad += no_grad as u32;
            m.visible += (objective && !hidden && !no_grad) as u32;
        }
    }
}
