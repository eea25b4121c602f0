//! Reading and writing objects' values. `materialize` regenerates an
//! object's current value by replaying its view chain from its storage's
//! base (or from the nearest object on the way whose cached value is still
//! valid); `write` pushes a new value back into the base through the inverse
//! of each chain step, or through one `as_strided_scatter` where the chain
//! has no inverse.
//!
//! Invariants: a write bumps its storage's version and records the layout
//! it wrote, which is what lets other objects' caches survive writes that
//! provably miss them; a hidden write (under no_grad, through a detached
//! alias) is marked `aot.hidden_write`, so the base keeps its gradient
//! identity; an object with an anchor takes its values from the storage and
//! its gradient from the anchor. Materializing is iterative, never
//! recursive: view chains may be arbitrarily long.

use super::chain::{Chain, Step};
use super::model::{disjoint, has_internal_overlap, may_self_overlap};
use super::state::Functionalizer;
use super::HIDDEN_WRITE;
use super::VIRTUAL_BASE;
use aot_dialects::tensor::{CloneOp, FullOp};
use aot_dialects::view::{
    build_inverse, view_interface, AliasOp, AsStridedOp, AsStridedScatterOp, Inverse, Layout, SPLIT_GRAD,
};
use aot_ir::*;
use aot_runtime::interp::{AllowsInternalOverlap, NO_GRAD};

impl<'c> Functionalizer<'c> {
    pub(super) fn as_strided_step(&mut self, l: &Layout) -> Step {
        let size = self.rw.i64_list_attr(&l.sizes);
        let stride = self.rw.i64_list_attr(&l.strides);
        let offset = self.rw.i64_attr(l.offset);
        let mut attrs = vec![
            NamedAttr { name: self.rw.sym("size"), value: size },
            NamedAttr { name: self.rw.sym("stride"), value: stride },
            NamedAttr { name: self.rw.sym("offset"), value: offset },
        ];
        self.rw.sort_named_attrs(&mut attrs);
        Step { op: OpRef::of::<AsStridedOp>(), attrs }
    }

    /// The chain of a view that `step` computes from the storage base
    /// directly (an `as_strided`), for an object derived from `o`: it keeps
    /// `o`'s gradient stop, which replaying `step` alone would lose.
    pub(super) fn restarted_chain(&self, o: usize, step: Step) -> Chain {
        match &self.objs[o].stop {
            Some(stop) => Chain::single(stop.clone()).pushed(step),
            None => Chain::single(step),
        }
    }

    /// The step appended to the chain of a view made under no_grad of a
    /// tensor that requires grad: an identity `view.alias {aot.no_grad}`,
    /// where `joint` stops. It is not part of the object's layout, so
    /// output facts leave it out (see [`Self::is_no_grad_marker`]).
    pub(super) fn no_grad_marker(&mut self) -> Step {
        let unit = self.rw.unit_attr();
        Step { op: OpRef::of::<AliasOp>(), attrs: vec![NamedAttr { name: self.rw.sym(NO_GRAD), value: unit }] }
    }

    pub(super) fn is_no_grad_marker(&self, s: &Step) -> bool {
        s.op.is::<AliasOp>() && s.attrs.iter().any(|a| self.rw.sym_str(a.name) == NO_GRAD)
    }

    pub(super) fn apply(&mut self, step: &Step, v: Value) -> Result<Value, Diagnostic> {
        step.op.build_named1(&mut self.rw, &[v], &step.attrs)
    }

    /// The current base value of storage `s`, building a virtual flat base
    /// from its member arguments the first time.
    pub(super) fn base_value(&mut self, s: usize) -> Result<Value, Diagnostic> {
        if let Some(b) = self.stos[s].base {
            return Ok(b);
        }
        debug_assert_eq!(self.stos[s].version, 0, "a virtual base is built before any write");
        let (len, dtype) = (self.stos[s].len, self.stos[s].dtype);
        let t = self.rw.tensor_type(&[len], dtype);
        let zero = self.rw.f64_attr(0.0);
        // The placeholder of the storage's elements: `synthetic-base`
        // replaces it by a base argument. It is marked rather than the last
        // scatter, which a later write over the same region folds away.
        let mut b = match self.stos[s].decl {
            Some(id) => {
                let a = self.rw.i64_attr(id);
                FullOp::build_typed1(&mut self.rw, &[], &[("value", zero), (VIRTUAL_BASE, a)], t)
            }
            None => FullOp::build_typed1(&mut self.rw, &[], &[("value", zero)], t),
        };
        for (_, layout, v) in self.stos[s].members.clone() {
            let mut step = self.as_strided_step(&layout);
            // A member holding an element at several positions shares its
            // gradient among them (PyTorch's as_strided backward), so that
            // summing its positions back into the storage counts it once.
            if may_self_overlap(&layout) {
                let unit = self.rw.unit_attr();
                step.attrs.push(NamedAttr { name: self.rw.sym(SPLIT_GRAD), value: unit });
                self.rw.sort_named_attrs(&mut step.attrs);
            }
            b = AsStridedScatterOp::build_named1(&mut self.rw, &[b, v], &step.attrs)?;
        }
        self.stos[s].base = Some(b);
        Ok(b)
    }

    /// The current value of object `o`.
    ///
    /// Walks back through the objects each was viewed from while their
    /// chains still prefix ours, to the nearest one whose cached value is
    /// still valid (or to the storage base), then replays the steps forward,
    /// caching every object on the way. Iterative: a chain of 100,000 views
    /// must not recurse natively.
    pub(super) fn materialize(&mut self, o: usize) -> Result<Value, Diagnostic> {
        let sto = self.objs[o].sto;
        let mut path = vec![o];
        let mut from = None;
        let mut regenerated = false;
        // Some object on the path below the last was made before the
        // storage's last write.
        let mut stale_below = false;
        let version = self.stos[sto].version;
        // `start`: how many steps of the next object's chain `v` has applied.
        let mut start = 0;
        loop {
            let x = *path.last().expect("non-empty");
            // A view of a self-overlapping argument made (or made from a
            // view made) before the last write: see below.
            let stale_view_of_overlapping_arg = stale_below && self.unchanged_overlapping_arg(x).is_some();
            regenerated |= stale_view_of_overlapping_arg;
            if let Some(v) = self.valid_cache(x).filter(|_| !stale_view_of_overlapping_arg) {
                path.pop();
                from = Some(v);
                start = self.objs[x].chain.len();
                break;
            }
            // The shortcut to the object it was viewed from, else (a
            // metadata change dropped it) its detached family's anchored
            // root, whose anchor carries the family's history.
            let anchored_root = self.objs[x].root.filter(|&r| r != x && self.objs[r].anchor.is_some());
            match self.objs[x].src.or(anchored_root) {
                Some(p) if self.objs[p].sto == sto && self.objs[x].chain.starts_with(&self.objs[p].chain) => {
                    stale_below |= self.objs[x].born != version;
                    path.push(p)
                }
                _ => break,
            }
        }
        let mut v = match from {
            Some(v) => v,
            None => self.base_value(sto)?,
        };
        while let Some(x) = path.pop() {
            let chain = self.objs[x].chain.clone();
            for step in chain.steps_from(start) {
                v = self.apply(step, v)?;
            }
            start = chain.len();
            if let Some(a) = self.objs[x].anchor {
                v = self.hidden_overwrite(a, v)?;
            } else if let Some(a) = self.unchanged_overlapping_arg(x) {
                // The argument itself keeps its identity, and so do views
                // of it made since the last write; a view a write made
                // stale is regenerated, as PyTorch regenerates its history:
                // an as_strided of the storage, whose gradient the
                // argument's positions share.
                if regenerated {
                    continue;
                }
                v = self.hidden_overwrite(a, v)?;
            }
            self.objs[x].cached = Some((v, self.stos[sto].version));
        }
        Ok(v)
    }

    /// For argument object `x` with a self-overlapping layout that only
    /// writes autograd never saw changed (under no_grad, through detached
    /// aliases): the argument's value at the call, which carries its
    /// autograd identity position by position. Read back through the
    /// storage instead, the positions sharing an element would share one
    /// gradient, where PyTorch gives each position its own.
    fn unchanged_overlapping_arg(&self, x: usize) -> Option<Value> {
        let o = &self.objs[x];
        if o.stop.is_some() || self.stos[o.sto].visible_writes || !self.requires_grad(x) {
            return None;
        }
        let i = self.arg_objs.iter().position(|&a| a == x)?;
        let (sto0, layout0) = &self.arg_initial[self.canonical[i]];
        if o.sto != *sto0 || o.layout != *layout0 || !may_self_overlap(layout0) {
            return None;
        }
        let members = &self.stos[o.sto].members;
        members.iter().find(|m| self.canonical[m.0] == self.canonical[i]).map(|m| m.2)
    }

    /// `src`'s value with its gradient routed entirely to `carrier` (same
    /// type): a whole-value scatter marked hidden.
    pub(super) fn hidden_overwrite(&mut self, carrier: Value, src: Value) -> Result<Value, Diagnostic> {
        let shape = self.rw.value_tensor(src).map(|t| t.shape.to_vec()).unwrap_or_default();
        let step = self.as_strided_step(&Layout::contiguous(&shape));
        let unit = self.rw.unit_attr();
        let mut attrs = step.attrs;
        attrs.push(NamedAttr { name: self.rw.sym(HIDDEN_WRITE), value: unit });
        AsStridedScatterOp::build_named1(&mut self.rw, &[carrier, src], &attrs)
    }

    /// The autograd value of detached family root `r` after object `o` of
    /// its family was overwritten with `w` (PyTorch's `CopySlices` on `r`):
    /// `w` scattered into `r`'s value before the write through the view
    /// steps from `r` to `o`.
    /// `None` (and the backward refused) where `o` is not a view of `r`
    /// by chain (an `as_strided` view of it).
    pub(super) fn anchored_write(
        &mut self,
        op: Op,
        r: usize,
        o: usize,
        r_before: Value,
        w: Value,
    ) -> Result<Option<Value>, Diagnostic> {
        if r == o {
            return Ok(Some(w));
        }
        let (rc, oc) = (self.objs[r].chain.clone(), self.objs[o].chain.clone());
        let through_readonly = oc
            .steps_from(rc.len())
            .iter()
            .any(|s| matches!(view_interface(s.op.name()).map(|v| v.inverse), Some(Inverse::ReadOnly)));
        if !oc.starts_with(&rc) || through_readonly {
            self.refuse_backward(
                op,
                "unsupported operation: an in-place op that makes a detached tensor require grad, through an as_strided or expanded view of it".to_string(),
            );
            return Ok(None);
        }
        self.scatter_through(r_before, &oc.steps_from(rc.len()), w).map(Some)
    }

    /// The new value of `start` after `w` is written into the object that
    /// `steps` view from it: `w` put back through the inverse of each step.
    fn scatter_through(&mut self, start: Value, steps: &[&Step], w: Value) -> Result<Value, Diagnostic> {
        let mut vals = vec![start];
        for step in steps.iter().take(steps.len().saturating_sub(1)) {
            let last = *vals.last().expect("non-empty");
            vals.push(self.apply(step, last)?);
        }
        let mut n = w;
        for (i, step) in steps.iter().enumerate().rev() {
            if matches!(view_interface(step.op.name()).map(|v| v.inverse), Some(Inverse::Scatter(_))) {
                self.stats.scatters += 1;
            }
            n = build_inverse(&mut self.rw, step.op.name(), &step.attrs, vals[i], n)?;
        }
        Ok(n)
    }

    /// Object `o`'s cached value, if it is still valid (refreshing its
    /// version): writes since it was cached that provably miss the object
    /// leave it valid (views of one storage that do not overlap).
    fn valid_cache(&mut self, o: usize) -> Option<Value> {
        let sto = self.objs[o].sto;
        let version = self.stos[sto].version;
        let (v, at) = self.objs[o].cached?;
        let l = &self.objs[o].layout;
        if self.stos[sto].writes[at as usize..].iter().all(|w| disjoint(w, l)) {
            self.objs[o].cached = Some((v, version));
            return Some(v);
        }
        None
    }

    /// Writes `w` (the object's full new value) into object `o`, propagating
    /// it to the storage base through the inverse of each chain step.
    ///
    /// A chain through an `expand` has no inverse; when the object's own
    /// elements are distinct (PyTorch's internal-overlap check: no stride-0
    /// dimension of size > 1), the write goes to the base through one
    /// `as_strided_scatter` of the object's layout instead.
    pub(super) fn write(&mut self, op: Op, o: usize, w: Value, hidden: bool) -> Result<(), Diagnostic> {
        let readonly_path = if self.objs[o].readonly {
            let layout = self.objs[o].layout.clone();
            let one_value = self.rw.op_def(op).is_some_and(|d| d.interface::<AllowsInternalOverlap>().is_some());
            if has_internal_overlap(&layout) && !one_value {
                return Err(self.err(
                    op,
                    "cannot write through an expanded view: several of its elements share one memory location",
                ));
            }
            let sto = self.objs[o].sto;
            self.check_covered(op, sto, &layout)?;
            Some(Chain::single(self.as_strided_step(&layout)))
        } else {
            None
        };
        let sto = self.objs[o].sto;
        let chain = readonly_path.unwrap_or_else(|| self.objs[o].chain.clone());
        let chain = chain.steps();
        let base = self.base_value(sto)?;
        let mut w = w;
        if chain.is_empty() && !self.owns_storage(w) {
            // A storage's base addresses its own contiguous elements (an
            // `as_strided` step reads it by storage position): a view of
            // another tensor, or an argument, written whole is copied.
            w = CloneOp::build_named1(&mut self.rw, &[w], &[])?;
        }
        let mut n = self.scatter_through(base, &chain, w)?;
        if hidden {
            let outer_is_scatter = chain
                .first()
                .is_some_and(|s| matches!(view_interface(s.op.name()).map(|v| v.inverse), Some(Inverse::Scatter(_))));
            if outer_is_scatter {
                let def = self.rw.defining_op(n).expect("a scatter result");
                let unit = self.rw.unit_attr();
                self.rw.set_attr(def, HIDDEN_WRITE, unit);
            } else {
                // Overwrite the whole base, invisibly to autograd.
                n = self.hidden_overwrite(base, n)?;
                self.stats.scatters += 1;
            }
        }
        self.stos[sto].base = Some(n);
        self.stos[sto].version += 1;
        let written = self.objs[o].layout.clone();
        self.stos[sto].writes.push(written);
        self.stos[sto].visible_writes |= !hidden;
        let version = self.stos[sto].version;
        // After a hidden write the object is read back through the hidden
        // scatter, whose gradient passes to the old base; `w` would not.
        self.objs[o].cached = if hidden { None } else { Some((w, version)) };
        Ok(())
    }

    /// The value `v` views, through any chain of view ops: a block argument
    /// or the result of an op that is not a view.
    pub(super) fn view_root(&self, mut v: Value) -> Value {
        while let ValueDef::Result { op, .. } = self.rw.value_def(v) {
            match self.rw.op_def(op) {
                Some(d) if d.has(Traits::VIEW) => v = self.rw.operand(op, 0),
                _ => break,
            }
        }
        v
    }

    /// Is `v` a tensor with a contiguous storage of its own (the result of
    /// an op that is not a view)?
    fn owns_storage(&self, v: Value) -> bool {
        self.view_root(v) == v && matches!(self.rw.value_def(v), ValueDef::Result { .. })
    }
}
