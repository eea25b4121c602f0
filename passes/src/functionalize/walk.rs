//! The walk over a function body in program order: each op is dispatched
//! by kind (in-place, metadata mutation, view, anything else) and its
//! results are bound to objects; a `func.call` is inlined by walking the
//! callee's body with its arguments bound to the call's operands. Pure ops
//! and views are interpreted here, mutations in `mutation`.
//!
//! Invariants: every operand is bound in `env` to an object before its op
//! is reached (straight-line code, no regions); a pure op gives each result
//! a fresh storage; a view op emits no code (unless a reshape has to copy)
//! and only extends its operand's chain; every result's object has the
//! shape its declared type says, which is checked because the aliasing of
//! another calling convention can break it.

use super::backward_check::{node_name, SavedRef};
use super::chain::Step;
use super::model::{may_self_overlap, Creation, Obj};
use super::state::Functionalizer;
use aot_dialects::view::{view_interface, AsStridedOp, Inverse, RESHAPE_NEEDS_COPY};
use aot_ir::*;
use aot_runtime::interp::{Detaches, NonDifferentiableResults, NO_GRAD};
use rustc_hash::FxHashMap;

impl<'c> Functionalizer<'c> {
    fn obj_of(&self, env: &FxHashMap<Value, usize>, op: Op, v: Value) -> Result<usize, Diagnostic> {
        env.get(&v).copied().ok_or_else(|| self.err(op, "operand is not a tensor known to functionalize"))
    }

    pub(super) fn walk(&mut self, block: Block, env: &mut FxHashMap<Value, usize>) -> Result<Vec<usize>, Diagnostic> {
        let ops: Vec<Op> = self.rw.block_ops(block).collect();
        for op in ops {
            let loc = self.rw.op_loc(op);
            self.rw.set_loc(loc);
            if !self.rw.regions(op).is_empty() {
                return Err(self.err(op, "has regions; functionalize handles straight-line functions only"));
            }
            let operands: Vec<usize> = self
                .rw
                .operands(op)
                .collect::<Vec<_>>()
                .into_iter()
                .map(|v| self.obj_of(env, op, v))
                .collect::<Result<_, _>>()?;
            if self.rw.isa::<aot_dialects::func::ReturnOp>(op) {
                self.commit_pending_set();
                return Ok(operands);
            }
            // A use of a tensor a no_grad set_ left pending, other than a
            // set_ that may put it back.
            if let Some(&(x, ..)) = self.pending_set.as_ref() {
                let is_set = self
                    .rw
                    .op_def(op)
                    .and_then(|d| d.interface::<aot_dialects::r#mut::MetadataMutationInterface>())
                    .is_some_and(|m| matches!(m.kind, aot_dialects::r#mut::MetadataKind::Set));
                if operands.contains(&x) && !(is_set && operands.first() == Some(&x)) {
                    self.commit_pending_set();
                }
            }
            if self.rw.isa::<aot_dialects::func::CallOp>(op) {
                let results = self.call(op, &operands)?;
                for (&r, o) in self.rw.results(op).to_vec().iter().zip(results) {
                    env.insert(r, o);
                }
                continue;
            }
            let def = self.rw.op_def(op).ok_or_else(|| self.err(op, "is not registered"))?;
            let results: Vec<usize> = if def.has(Traits::INPLACE) {
                self.data_mutation(op, def, &operands)?;
                Vec::new()
            } else if def.has(Traits::METADATA_MUTATION) {
                vec![self.metadata_mutation(op, def, &operands)?]
            } else if def.has(Traits::VIEW) {
                self.view_op(op, def, &operands)?
            } else {
                self.pure_op(op, def, &operands)?
            };
            for (&r, o) in self.rw.results(op).to_vec().iter().zip(results) {
                // The declared type holds for the convention the function
                // was written for; aliasing of another convention (a
                // duplicate that set_ already moved) may break it, which
                // eager execution reports too.
                let declared = self.rw.value_tensor(r).map(|t| t.shape.to_vec());
                if declared.as_deref().is_some_and(|d| d != &self.objs[o].layout.sizes[..]) {
                    let ty = self.rw.value_type(r);
                    return Err(self.err(
                        op,
                        format!(
                            "produces a tensor of shape {:?} for a result of type {}",
                            self.objs[o].layout.sizes.as_slice(),
                            aot_ir::printer::type_to_string(&self.rw, ty)
                        ),
                    ));
                }
                env.insert(r, o);
            }
        }
        Err(Diagnostic::error(self.rw.current_loc(), "function body without a terminator"))
    }

    fn call(&mut self, op: Op, operands: &[usize]) -> Result<Vec<usize>, Diagnostic> {
        let callee = aot_dialects::func::callee(&self.rw, op).ok_or_else(|| self.err(op, "callee not found"))?;
        let Some(entry) = callee.entry_block(&self.rw) else {
            return Err(self.err(op, "calls a function declaration, which has no body to inline"));
        };
        if self.depth >= 64 {
            return Err(self.err(op, "calls nest more than 64 deep (recursion?); functionalize inlines every call"));
        }
        let mut env: FxHashMap<Value, usize> = FxHashMap::default();
        for (&a, &o) in self.rw.block_args(entry).to_vec().iter().zip(operands) {
            env.insert(a, o);
        }
        self.depth += 1;
        let r = self.walk(entry, &mut env);
        self.depth -= 1;
        r
    }

    fn pure_op(&mut self, op: Op, def: &'static OpDef, operands: &[usize]) -> Result<Vec<usize>, Diagnostic> {
        if !self.rw.has_attr(op, NO_GRAD) && def.has(Traits::DIFFERENTIABLE) {
            self.check_view_use(op, operands)?;
        }
        let mut vals = Vec::with_capacity(operands.len());
        for &o in operands {
            vals.push(self.materialize(o)?);
        }
        let new = self.rw.clone_op(op, &vals);
        let grad_mode = !self.rw.has_attr(op, NO_GRAD);
        let any_rg = operands.iter().any(|&o| self.requires_grad(o));
        let records = grad_mode && any_rg && def.has(Traits::DIFFERENTIABLE);
        let (mut refs, edges) = if records {
            let refs: Vec<SavedRef> = operands.iter().enumerate().map(|(i, &o)| self.saved_ref(false, i, o)).collect();
            (refs, self.take_histories(operands))
        } else {
            (Vec::new(), Vec::new())
        };
        let mut rg_results: Vec<usize> = Vec::new();
        let nondiff = def.interface::<NonDifferentiableResults>().map_or(&[][..], |n| n.0);
        let mut out = Vec::new();
        for (k, r) in self.rw.results(new).to_vec().into_iter().enumerate() {
            let o = self.fresh(r).map_err(|m| self.err(op, m))?;
            let rg = grad_mode
                && def.has(Traits::DIFFERENTIABLE)
                && any_rg
                && self.objs[o].dtype.is_float()
                && !nondiff.contains(&k);
            self.objs[o].rg = rg;
            self.objs[o].leaf = !rg;
            if records {
                refs.push(self.saved_ref(true, k, o));
            }
            if rg {
                rg_results.push(o);
            }
            out.push(o);
        }
        if records {
            let loc = self.rw.op_loc(op);
            let n = self.graph.node(&node_name(def.name), Some(new), &edges, refs, None, loc);
            for o in rg_results {
                self.grad_fn.insert(o, (n, Some(self.objs[o].layout.sizes.to_vec())));
            }
        }
        Ok(out)
    }

    fn view_op(&mut self, op: Op, def: &'static OpDef, operands: &[usize]) -> Result<Vec<usize>, Diagnostic> {
        let p = operands[0];
        let vi = def
            .interface::<aot_dialects::view::ViewInterface>()
            .ok_or_else(|| self.err(op, "is a view op without a view interface"))?;
        let grad_mode = !self.rw.has_attr(op, NO_GRAD);
        let detaches = def.interface::<Detaches>().is_some();
        if grad_mode && !detaches {
            self.check_view_use(op, &operands[..1])?;
        }
        let version = self.inplace_ops[self.counter(p)];
        let in_layout = self.objs[p].layout.clone();
        let layouts = match (vi.layout)(&AttrView::of_op(&self.rw, op), &in_layout) {
            Ok(l) => l,
            Err(m) if m == RESHAPE_NEEDS_COPY => {
                // A reshape that has to copy: a fresh tensor.
                let v = self.materialize(p)?;
                let new = self.rw.clone_op(op, &[v]);
                let r = self.rw.result(new, 0);
                let o = self.fresh(r).map_err(|m| self.err(op, m))?;
                let rg = grad_mode && self.requires_grad(p) && self.objs[o].dtype.is_float();
                self.objs[o].rg = rg;
                self.objs[o].leaf = !rg;
                if rg {
                    // PyTorch's clone-and-view, recorded on p's history.
                    let edges = self.take_histories(&[p]);
                    let loc = self.rw.op_loc(op);
                    let n = self.graph.node("UnsafeView", None, &edges, Vec::new(), None, loc);
                    self.grad_fn.insert(o, (n, Some(self.objs[o].layout.sizes.to_vec())));
                }
                return Ok(vec![o]);
            }
            Err(m) => return Err(self.err(op, m)),
        };
        let multi = def.results != Arity::Exact(1);
        let attrs = self.rw.attrs(op).to_vec();
        let sto = self.objs[p].sto;
        let mut out = Vec::new();
        for (k, l) in layouts.into_iter().enumerate() {
            let step = match vi.single_result {
                Some(single) => {
                    let (name, ints) =
                        single(&AttrView::of_op(&self.rw, op), k, &in_layout.sizes).map_err(|m| self.err(op, m))?;
                    let mut a: Vec<NamedAttr> = ints
                        .into_iter()
                        .map(|(n, v)| NamedAttr { name: self.rw.sym(n), value: self.rw.i64_attr(v) })
                        .collect();
                    self.rw.sort_named_attrs(&mut a);
                    Step { op: name, attrs: a }
                }
                None => Step {
                    op: OpRef::of_def(def),
                    attrs: attrs.iter().copied().filter(|a| !self.rw.sym_str(a.name).contains('.')).collect(),
                },
            };
            // A view made under no_grad of a tensor that requires grad
            // reports requires_grad, but gradient never flows through it.
            let no_grad_view = !detaches && !grad_mode && self.requires_grad(p);
            // Of one that does not (yet): it follows its base's
            // requires_grad, as PyTorch's views do, and still never carries
            // gradient.
            let later_no_grad_view = !detaches && !grad_mode && !no_grad_view && self.objs[p].dtype.is_float();
            let mut chain = if step.op.is::<AsStridedOp>() {
                self.check_covered(op, sto, &l)?;
                self.restarted_chain(p, step.clone())
            } else {
                self.objs[p].chain.pushed(step.clone())
            };
            let stop = if detaches {
                Some(step.clone())
            } else if no_grad_view || later_no_grad_view {
                let marker = self.no_grad_marker();
                chain.push(marker.clone());
                Some(self.objs[p].stop.clone().unwrap_or(marker))
            } else {
                self.objs[p].stop.clone()
            };
            let readonly = self.objs[p].readonly
                || matches!(view_interface(step.op.name()).map(|v| v.inverse), Some(Inverse::ReadOnly))
                || may_self_overlap(&l);
            let (rg, leaf, root, creation) = if detaches {
                (false, true, None, Creation::Default)
            } else if !grad_mode {
                // Reports requires_grad, as a leaf (no grad_fn); the marker
                // in its chain keeps gradient from flowing through it.
                let creation = if no_grad_view || later_no_grad_view {
                    Creation::NoGrad(None, version)
                } else {
                    Creation::Default
                };
                let root = later_no_grad_view.then(|| self.objs[p].root.unwrap_or(p));
                (no_grad_view, true, root, creation)
            } else {
                let root = self.objs[p].root.unwrap_or(p);
                let creation = match self.objs[p].creation {
                    Creation::Default if multi => Creation::MultiOutput(def.name, k, version),
                    Creation::NoGrad(..) if self.requires_grad(p) => Creation::NoGrad(Some((def.name, k)), version),
                    c => c,
                };
                (false, false, Some(root), creation)
            };
            let o = self.new_obj(Obj {
                sto,
                layout: l,
                dtype: self.objs[p].dtype,
                chain,
                src: Some(p),
                cached: None,
                detached: self.objs[p].detached || detaches,
                stop,
                readonly,
                multi_output: self.objs[p].multi_output || multi,
                rg,
                leaf,
                root,
                creation,
                anchor: None,
                born: 0,
            });
            if let Some(&c) = self.moved_counter.get(&p) {
                self.moved_counter.insert(o, c);
            }
            if let Some(&r) = self.moved_root.get(&p).filter(|_| !detaches) {
                self.moved_root.insert(o, r);
            }
            self.view_history(op, def, p, o, grad_mode && !detaches);
            if grad_mode && !detaches {
                // Viewing a tensor takes its grad_fn; a view of one that does
                // not require grad has none yet.
                if self.requires_grad(p) {
                    self.stale_views.remove(&p);
                } else {
                    self.stale_views.insert(o);
                }
            }
            out.push(o);
        }
        Ok(out)
    }

    /// Autograd facts of view `o` of `p` made by `op`: a view of an object
    /// whose shape changed under no_grad passes a gradient its history
    /// cannot take (the view node raises); `as_strided` reaching storage
    /// elements outside its input gets none for them from PyTorch, which
    /// we do not model.
    fn view_history(&mut self, op: Op, def: &'static OpDef, p: usize, o: usize, grad_mode: bool) {
        if !grad_mode || !self.requires_grad(p) {
            return;
        }
        if let Some(&n) = self.view_error.get(&p) {
            self.view_error.insert(o, n);
        } else if let Some(e) = self.history_edge(p) {
            if e.expected.as_ref().is_some_and(|x| *x != e.got) {
                let loc = self.rw.op_loc(op);
                let n = self.graph.node(&node_name(def.name), None, &[Some(e)], Vec::new(), None, loc);
                if self.graph.has_error(n) {
                    self.view_error.insert(o, n);
                }
            }
        }
        if def.name == AsStridedOp::NAME {
            let (from, to) = (self.objs[p].layout.clone(), self.objs[o].layout.clone());
            self.check_as_strided_grad(op, &from, &to);
            self.refuse_as_strided_of_anchored(op, p);
        }
    }
}
