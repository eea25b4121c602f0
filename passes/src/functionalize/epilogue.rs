//! The epilogue, once the walk has reached the return: `finish` classifies
//! each argument's mutation (`#aot.input`), builds the new function's
//! results (user outputs, then inputs mutated outside the graph, then
//! candidate intermediate bases, then the final value of each storage passed
//! whole and written), emits the trailing in-graph mutations into the
//! arguments, replaces the old body, and records on the function what later
//! passes need: each output's alias facts, the declared storages' facts for
//! `synthetic-base`, and the error a backward would raise.
//!
//! Invariants: the user outputs come first (`num_user_outputs` counts
//! them, and `collect-metadata` reads their facts by position), the results
//! after them are told apart by their attributes, and an output's
//! `base_result` indexes them. The trailing mutations grow storages first,
//! then run the `set_`s (an argument whose storage another takes moves
//! after that one), then the rest, so a `set_` reads its source before that
//! source's own epilogue moves it; a result that is (a view of) an argument its own
//! epilogue moves is a copy taken before.

use super::backward_check::Edge;
use super::chain::{Chain, Step};
use super::model::{indices, is_large, may_self_overlap, numel, overlaps, strided};
use super::state::Functionalizer;
use super::{
    backward_error_attr, OutputFacts, BACKWARD_ERROR, FUNCTIONALIZED, INPUT_INFO, INTERMEDIATE_BASE, MUTATED_INPUT,
    OUTPUT_FACTS, STORAGE_FINAL, STORAGE_WRITES, WHOLE_STORAGES,
};
use crate::meta::{InputAliasInfo, MutationType, SetSource, Strided, ViewStep};
use aot_dialects::func::{FuncView, ReturnOp};
use aot_dialects::r#mut::{AsStridedOp as AsStridedInPlaceOp, CopyOp, ResizeOp, SetOp};
use aot_dialects::tensor::CloneOp;
use aot_dialects::view::{contiguous_strides, AsStridedOp, AsStridedScatterOp, Layout};
use aot_ir::*;
use aot_runtime::interp::NO_GRAD;
use aot_runtime::interp::VALUE_SEMANTICS;
use rustc_hash::FxHashMap;

impl<'c> Functionalizer<'c> {
    pub(super) fn finish(
        &mut self,
        func: Op,
        args: &[Value],
        outs: &[usize],
        keep: bool,
        old_ops: &[Op],
    ) -> Result<(), Diagnostic> {
        let ret_loc = old_ops.last().map(|&o| self.rw.op_loc(o)).unwrap_or_else(|| self.rw.op_loc(func));
        self.rw.set_loc(ret_loc);
        // Input infos.
        let mut infos: Vec<InputAliasInfo> = Vec::new();
        let mut written_then_set: Vec<usize> = Vec::new();
        for i in 0..args.len() {
            let c = self.canonical[i];
            let o = self.arg_objs[c];
            let (sto0, layout0) = self.arg_initial[c].clone();
            let m = self.muts[c].clone();
            let storage_changed = self.objs[o].sto != sto0;
            // Writes to its storage before a set_ moved it stay visible
            // through that storage (views of it, other arguments).
            if c == i && storage_changed && self.stos[sto0].writes.iter().any(|w| overlaps(w, &layout0)) {
                written_then_set.push(i);
            }
            let layout_changed = self.objs[o].layout != layout0;
            let resized = !storage_changed && self.stos[sto0].len != self.stos[sto0].len0;
            let mut info = InputAliasInfo::not_mutated(self.requires_grad(o), self.arg_leaf[c], keep);
            if c != i {
                info.dupe_of = Some(c);
            } else {
                info.mutates_storage_metadata = storage_changed;
                info.mutates_metadata = layout_changed || storage_changed || resized;
                info.mutates_data = m.data > 0 && !storage_changed;
                info.mutations_hidden_from_autograd = m.total > 0 && m.hidden == m.total;
                info.mutations_under_no_grad_or_inference_mode = m.total > 0 && m.no_grad == m.total;
                info.autograd_mutation = m.visible > 0 && info.requires_grad;
                if info.mutates_metadata {
                    info.final_layout = Some(strided(&self.objs[o].layout));
                }
                if resized {
                    info.resized_numel = Some(self.stos[sto0].len);
                }
                info.data_in_initial_layout = info.mutates_data
                    && layout_changed
                    && !resized
                    && !storage_changed
                    && self.writes_within(sto0, &layout0, c);
                if storage_changed {
                    let s = self.objs[o].sto;
                    info.set_source = Some(match self.stos[s].members.first() {
                        Some(&(j, _, _)) => SetSource::Input(self.canonical[j]),
                        None => SetSource::Graph,
                    });
                }
                info.mutation_type = info.classify();
            }
            if info.mutation_type != MutationType::NotMutated {
                self.stats.mutated_inputs += 1;
            }
            infos.push(info);
        }
        // Results: user outputs, OUT_GRAPH mutated inputs, intermediate bases.
        let mut results: Vec<Value> = Vec::new();
        let mut res_attrs: Vec<Vec<NamedAttr>> = Vec::new();
        let mut candidates: FxHashMap<usize, usize> = FxHashMap::default();
        let mut pending_facts = Vec::new();
        // Outputs of different storages are different tensors, even when
        // value semantics computed them as one value (`x.copy_(y)` returning
        // both): the runtime hands each its own buffer and flags.
        let mut returned: FxHashMap<Value, usize> = FxHashMap::default();
        for (k, &o) in outs.iter().enumerate() {
            let mut v = self.materialize(o)?;
            match returned.get(&v) {
                Some(&o2) if self.objs[o2].sto != self.objs[o].sto => {
                    let t = self.rw.value_type(v);
                    v = CloneOp::build_typed1(&mut self.rw, &[v], &[], t);
                }
                Some(_) => {}
                None => {
                    returned.insert(v, o);
                }
            }
            results.push(v);
            res_attrs.push(Vec::new());
            pending_facts.push((k, o));
        }
        let mut facts_list = Vec::new();
        for &(_, o) in &pending_facts {
            let facts = self.output_facts(o, outs, args.len())?;
            facts_list.push(facts);
        }
        for (i, info) in infos.iter().enumerate() {
            if info.mutation_type == MutationType::MutatedOutGraph {
                let o = self.arg_objs[i];
                let v = if info.set_source == Some(SetSource::Graph) {
                    let s = self.objs[o].sto;
                    let base = self.base_value(s)?;
                    if self.requires_grad(o) && self.objs[o].dtype.is_float() {
                        // The storage's data, with the argument's own value
                        // (its history, kept by a set_ autograd did not see)
                        // placed over its elements: its tangent reaches that
                        // history and no other tensor of the storage.
                        let own = self.materialize(o)?;
                        let step = self.as_strided_step(&self.objs[o].layout.clone());
                        AsStridedScatterOp::build_named1(&mut self.rw, &[base, own], &step.attrs)?
                    } else {
                        base
                    }
                } else if info.data_in_initial_layout {
                    self.initial_layout_value(i)?
                } else {
                    self.materialize(o)?
                };
                results.push(v);
                let a = self.rw.i64_attr(i as i64);
                res_attrs.push(vec![NamedAttr { name: self.rw.sym(MUTATED_INPUT), value: a }]);
            }
        }
        for facts in facts_list.iter_mut() {
            if facts.kind == "intermediate" {
                let s = facts.storage;
                let idx = match candidates.get(&s) {
                    Some(&r) => r,
                    None => {
                        let v = self.base_value(s)?;
                        results.push(v);
                        let unit = self.rw.unit_attr();
                        res_attrs.push(vec![NamedAttr { name: self.rw.sym(INTERMEDIATE_BASE), value: unit }]);
                        candidates.insert(s, results.len() - 1);
                        results.len() - 1
                    }
                };
                facts.base_result = Some(idx);
            }
        }
        // The final value of each storage passed whole and written: writes
        // may have reached elements no argument covers.
        for s in 0..self.stos.len() {
            let st = &self.stos[s];
            if let (Some(id), true, true) = (st.decl, st.reads_whole, st.version > 0) {
                let v = self.base_value(s)?;
                results.push(v);
                let a = self.rw.i64_attr(id);
                res_attrs.push(vec![NamedAttr { name: self.rw.sym(STORAGE_FINAL), value: a }]);
            }
        }
        for (k, facts) in facts_list.iter().enumerate() {
            let a = facts.to_attr(&mut self.rw);
            res_attrs[k].push(NamedAttr { name: self.rw.sym(OUTPUT_FACTS), value: a });
        }
        // Mutations kept in the graph: trailing side effects into the
        // arguments. An argument written and then set_ elsewhere gets the
        // data of its original storage first, in the graph (its set_ may be
        // applied by the runtime, which has no value for both).
        // A result that is (a view of) an argument which its own epilogue
        // moves or relays out is a copy taken before: the argument's value
        // is dead after that epilogue, and a view of it would follow the
        // argument to its new storage in a backend that addresses its
        // buffer.
        for r in results.iter_mut() {
            let root = self.view_root(*r);
            if let Some(j) = args.iter().position(|&a| a == root) {
                let info = &infos[j];
                if info.mutation_type == MutationType::MutatedInGraph
                    && (info.mutates_metadata || info.mutates_storage_metadata || info.resized_numel.is_some())
                {
                    *r = CloneOp::build_named1(&mut self.rw, &[*r], &[])?;
                }
            }
        }
        // Each argument's current value: a metadata epilogue rebinds it,
        // and later epilogues (a set_ onto its storage) must use the result.
        let mut cur_args = args.to_vec();
        // Whether an argument is on its final storage: all but the set_
        // ones, which are once their epilogue ran.
        let mut on_final: Vec<bool> = infos.iter().map(|info| !info.mutates_storage_metadata).collect();
        // Order: storages grow first (a set_ onto one may reach the new
        // elements), then the set_s (their sources are still where the
        // call found them), then everything else (which may move a source
        // away or change its metadata).
        let infos_ref = &infos;
        let phase = |p: u8| {
            (0..infos_ref.len()).filter(move |&i| {
                let info = &infos_ref[i];
                p == match (info.mutates_storage_metadata, info.resized_numel) {
                    (false, Some(_)) => 0,
                    (true, _) => 1,
                    (false, None) => 2,
                }
            })
        };
        let mut order: Vec<usize> = phase(0).collect();
        // Among the set_s, an argument another one takes its storage from
        // moves after it (the lowest index first where they form a cycle).
        let source_of = |i: usize, j: usize| {
            let s = self.objs[self.arg_objs[j]].sto;
            self.stos[s].members.iter().any(|m| self.canonical[m.0] == i)
        };
        let mut pending: Vec<usize> = phase(1).collect();
        while !pending.is_empty() {
            let k = (0..pending.len())
                .find(|&k| !pending.iter().any(|&j| j != pending[k] && source_of(pending[k], j)))
                .unwrap_or(0);
            order.push(pending.remove(k));
        }
        order.extend(phase(2));
        for i in order {
            let info = &infos[i];
            if written_then_set.contains(&i) {
                self.copy_initial_layout_value(i, cur_args[i])?;
            }
            if info.mutation_type == MutationType::MutatedInGraph {
                cur_args[i] = self.emit_in_graph(i, &cur_args, &on_final, info)?;
            }
            on_final[i] = true;
        }
        ReturnOp::build_typed(&mut self.rw, &results, &[], &[]);
        // Drop the old body.
        for &op in old_ops.iter().rev() {
            for r in self.rw.results(op).to_vec() {
                if self.rw.has_uses(r) {
                    return Err(self.err(op, "internal error: a value of the old body is still used"));
                }
            }
            self.rw.erase_op(op);
        }
        // Signature and annotations.
        let f = FuncView { op: func };
        let mut arg_attrs = f.all_arg_attrs(&self.rw);
        for (i, info) in infos.iter().enumerate() {
            let a = info_attr(&mut self.rw, info);
            arg_attrs[i].retain(|n| self.rw.sym_str(n.name) != INPUT_INFO);
            arg_attrs[i].push(NamedAttr { name: self.rw.sym(INPUT_INFO), value: a });
        }
        f.set_all_arg_attrs(&mut self.rw, arg_attrs);
        f.set_all_res_attrs(&mut self.rw, res_attrs);
        f.sync_function_type(&mut self.rw);
        self.record_storage_facts(func);
        self.record_backward_error(func, outs, &infos);
        let unit = self.rw.unit_attr();
        self.rw.set_attr(func, VALUE_SEMANTICS, unit);
        let fa =
            super::Functionalized { keep_input_mutations: keep, num_user_outputs: outs.len() }.to_attr(&mut self.rw);
        self.rw.set_attr(func, FUNCTIONALIZED, fa);
        crate::canonicalize::simplify_function(&mut self.rw, func);
        Ok(())
    }

    /// Records the error a `backward` of this call would raise, for `joint`
    /// (`aot.backward_error`): inference never runs the backward, so the
    /// forward compiles either way.
    fn record_backward_error(&mut self, func: Op, outs: &[usize], infos: &[InputAliasInfo]) {
        // The objective's terms, in grad mode.
        let mut terms: Vec<usize> = outs.iter().copied().filter(|&o| self.objs[o].dtype.is_float()).collect();
        for (i, info) in infos.iter().enumerate() {
            let a = self.arg_objs[i];
            let touched = self.touched.contains(&self.objs[a].root.unwrap_or(a));
            if self.canonical[i] == i && info.requires_grad && (info.autograd_mutation || touched) {
                terms.push(a);
            }
        }
        // Using a view whose autograd history a later in-place change
        // invalidated raises when the objective is built.
        let ret = (FuncView { op: func }).return_op(&self.rw);
        if let Some(ret) = ret {
            if let Err(d) = self.check_view_use(ret, &terms) {
                let a = backward_error_attr(&mut self.rw, &d.message, d.loc);
                self.rw.set_attr(func, BACKWARD_ERROR, a);
                return;
            }
        }
        let roots: Vec<Edge> = terms.into_iter().filter_map(|o| self.history_edge(o)).collect();
        let versions = self.inplace_ops.clone();
        let writes: Vec<u32> = self.stos.iter().map(|s| s.version).collect();
        let found = self.graph.first_error(&mut self.rw, &roots, |s| versions[s], |s| writes[s]);
        let (message, loc) = match (found, self.unsupported_backward.take()) {
            (Some((m, loc)), _) => (m, loc.unwrap_or_else(|| self.rw.op_loc(ret.unwrap_or(func)))),
            (None, Some((m, loc))) => (m, loc),
            (None, None) => return,
        };
        let a = backward_error_attr(&mut self.rw, &message, loc);
        self.rw.set_attr(func, BACKWARD_ERROR, a);
    }

    /// Facts about declared storages that `synthetic-base` needs: which are
    /// read beyond their arguments, and where each was written.
    fn record_storage_facts(&mut self, func: Op) {
        let mut whole: Vec<i64> = Vec::new();
        let mut writes: Vec<(i64, Vec<Strided>)> = Vec::new();
        for st in &self.stos {
            let Some(id) = st.decl else { continue };
            if st.reads_whole {
                whole.push(id);
            }
            if st.writes.is_empty() {
                continue;
            }
            let mut distinct: Vec<&Layout> = Vec::new();
            for w in &st.writes {
                if !distinct.contains(&w) {
                    distinct.push(w);
                }
            }
            let layouts: Vec<Strided> = distinct.into_iter().map(strided).collect();
            writes.push((id, layouts));
        }
        if !whole.is_empty() {
            let a = self.rw.i64_list_attr(&whole);
            self.rw.set_attr(func, WHOLE_STORAGES, a);
        }
        if !writes.is_empty() {
            let items: Vec<Attribute> = writes
                .into_iter()
                .map(|(storage, layouts)| super::StorageWrites { storage, layouts }.to_attr(&mut self.rw))
                .collect();
            let a = self.rw.array_attr(items);
            self.rw.set_attr(func, STORAGE_WRITES, a);
        }
    }

    /// The trailing mutations of argument `i`; returns its value after them.
    /// `args` holds each argument's current value, `on_final[j]` whether
    /// argument `j` is on its final storage (no set_ of its own left).
    fn emit_in_graph(
        &mut self,
        i: usize,
        args: &[Value],
        on_final: &[bool],
        info: &InputAliasInfo,
    ) -> Result<Value, Diagnostic> {
        let o = self.arg_objs[i];
        let unit = self.rw.unit_attr();
        let no_grad = [(NO_GRAD, unit)];
        let mut cur = args[i];
        let final_layout = self.objs[o].layout.clone();
        if info.data_in_initial_layout {
            self.copy_initial_layout_value(i, cur)?;
        }
        if info.mutates_storage_metadata {
            let s = self.objs[o].sto;
            // The source: an argument already on the final storage (its
            // current value), else the first that started there.
            let placed = |j: usize| {
                let c = self.canonical[j];
                c != i && self.objs[self.arg_objs[c]].sto == s && on_final[c]
            };
            let members = &self.stos[s].members;
            let src = match members.iter().find(|m| placed(m.0)).or(members.first()) {
                Some(&(j, _, _)) => args[self.canonical[j]],
                None => self.base_value(s)?,
            };
            let src_t = self.rw.value_type(src);
            let set = SetOp::build_typed(&mut self.rw, &[cur, src], &no_grad, &[src_t]);
            cur = self.rw.result(set.0, 0);
            cur = self.as_strided_in_place(cur, &final_layout)?;
        } else if let Some(numel) = info.resized_numel {
            // Grow the storage to what the call needed (resize_ keeps the
            // argument's offset), then place the argument.
            let offset0 = self.arg_initial[self.canonical[i]].1.offset;
            let contiguous = final_layout.strides[..] == contiguous_strides(&final_layout.sizes)[..];
            let exact = contiguous
                && final_layout.offset == offset0
                && numel == offset0 + final_layout.sizes.iter().product::<i64>();
            let sizes = if exact { final_layout.sizes.to_vec() } else { vec![numel - offset0] };
            let size = self.rw.i64_list_attr(&sizes);
            let e = self.objs[o].dtype;
            let t = self.rw.tensor_type(&sizes, e);
            let r = ResizeOp::build_typed(&mut self.rw, &[cur], &[("size", size), (NO_GRAD, unit)], &[t]);
            cur = self.rw.result(r.0, 0);
            if !exact {
                // The grown storage's elements past the argument's final
                // layout may be written too, and seen through other
                // tensors set_ onto this storage: write them all.
                let s = self.objs[o].sto;
                let base = self.base_value(s)?;
                let region = Layout { sizes: sizes.as_slice().into(), strides: [1].as_slice().into(), offset: offset0 };
                let step = self.as_strided_step(&region);
                let v = self.apply(&step, base)?;
                CopyOp::build_typed(&mut self.rw, &[cur, v], &no_grad, &[]);
                cur = self.as_strided_in_place(cur, &final_layout)?;
            }
        } else if info.mutates_metadata {
            cur = self.as_strided_in_place(cur, &final_layout)?;
        }
        if info.mutates_data && !info.data_in_initial_layout {
            let v = self.materialize(o)?;
            CopyOp::build_typed(&mut self.rw, &[cur, v], &no_grad, &[]);
        }
        Ok(cur)
    }

    /// Did every write into storage `s` stay inside layout `l` of argument
    /// `arg`, or inside arguments that write their own elements back?
    /// (Large storages are not checked element by element: no.)
    fn writes_within(&self, s: usize, l: &Layout, arg: usize) -> bool {
        const MAX_CHECKED: i64 = 1 << 24;
        let st = &self.stos[s];
        if st.writes.iter().all(|w| w == l) {
            return true;
        }
        if is_large(st.len, MAX_CHECKED) || l.is_symbolic() || st.writes.iter().any(Layout::is_symbolic) {
            return false;
        }
        let mut inside = vec![false; st.len as usize];
        for i in indices(l) {
            inside[i] = true;
        }
        // Elements of another argument that keeps its layout and storage
        // go back through that argument (a write reaching it makes it
        // data-mutated), so they need not be in this one's layout.
        for (j, lj, _) in &st.members {
            let o = self.arg_objs[*j];
            if self.canonical[*j] != arg && self.objs[o].sto == s && self.objs[o].layout == *lj {
                for i in indices(lj) {
                    if let Some(e) = inside.get_mut(i) {
                        *e = true;
                    }
                }
            }
        }
        st.writes.iter().all(|w| indices(w).all(|i| inside.get(i).copied().unwrap_or(false)))
    }

    /// The current contents of argument `i`'s storage read through the
    /// layout the argument had at the call.
    fn initial_layout_value(&mut self, i: usize) -> Result<Value, Diagnostic> {
        let c = self.canonical[i];
        let (sto0, layout0) = self.arg_initial[c].clone();
        let base = self.base_value(sto0)?;
        // The argument is its storage's base value, unless a resize_ grew
        // the storage (the base then holds the added elements too).
        if self.initial_chain_len(c) == 0 && self.stos[sto0].len == self.stos[sto0].len0 {
            return Ok(base);
        }
        let step = self.as_strided_step(&layout0);
        self.apply(&step, base)
    }

    /// A trailing `mut.copy_` of [`Self::initial_layout_value`] into `dest`
    /// (argument `i` itself, in the graph).
    fn copy_initial_layout_value(&mut self, i: usize, dest: Value) -> Result<(), Diagnostic> {
        let v = self.initial_layout_value(i)?;
        let unit = self.rw.unit_attr();
        CopyOp::build_typed(&mut self.rw, &[dest, v], &[(NO_GRAD, unit)], &[]);
        Ok(())
    }

    fn as_strided_in_place(&mut self, v: Value, l: &Layout) -> Result<Value, Diagnostic> {
        let step = self.as_strided_step(l);
        let unit = self.rw.unit_attr();
        let mut attrs = step.attrs;
        attrs.push(NamedAttr { name: self.rw.sym(NO_GRAD), value: unit });
        let e = self.rw.value_tensor(v).map(|t| t.elem).unwrap_or(ElemType::F32);
        let t = self.rw.tensor_type(&l.sizes, e);
        let name = self.rw.op_name_id(AsStridedInPlaceOp::NAME);
        let mut st = OperationState::new(name, self.rw.current_loc());
        st.operands.push(v);
        st.result_types.push(t);
        st.attrs = attrs;
        let op = self.rw.create(st);
        Ok(self.rw.result(op, 0))
    }

    /// Is `o` an `as_strided` view of a storage one of whose arguments
    /// holds an element at several positions? Its gradient is shared among
    /// those positions (PyTorch's as_strided backward), which only the
    /// graph's backward does: it takes a tangent of its own rather than
    /// being routed to the argument by the runtime.
    fn as_strided_of_overlapping_member(&self, o: usize) -> bool {
        let sto = self.objs[o].sto;
        self.requires_grad(o)
            && self.objs[o].chain.steps().iter().any(|s| s.op.is::<AsStridedOp>())
            && self.stos[sto].members.iter().any(|m| may_self_overlap(&m.1))
    }

    /// The alias facts of returned object `o`.
    fn output_facts(&mut self, o: usize, outs: &[usize], num_args: usize) -> Result<OutputFacts, Diagnostic> {
        let sto = self.objs[o].sto;
        let family = self.family(o);
        let is_input = (0..num_args).find(|&i| self.arg_objs[i] == o).map(|i| self.canonical[i]);
        let layout = strided(&self.objs[o].layout);
        let members: Vec<(usize, Layout, Value)> = self.stos[sto].members.clone();
        let mut facts = OutputFacts {
            requires_grad: self.requires_grad(o),
            storage: sto,
            kind: "fresh",
            is_input,
            input: None,
            multi_output_view: self.objs[o].multi_output,
            // A detached family with an anchor, a view made under no_grad
            // (its chain has a gradient stop), or a tensor set_ moved into
            // an argument's storage: not the storage's history.
            own_history: self.objs[family].anchor.is_some()
                || self.objs[o].stop.is_some()
                || self.set_moved.contains(&family)
                || self.as_strided_of_overlapping_member(o),
            after_set: false,
            base_requires_grad: false,
            base_is_output: None,
            base_result: None,
            views: None,
            layout,
        };
        if !members.is_empty() || is_input.is_some() {
            facts.kind = "input";
            // Regenerate from an argument whose chain prefixes ours and whose
            // metadata the call leaves unchanged; else as_strided from any.
            let chain = self.objs[o].chain.clone();
            let mut chosen = None;
            for &(j, _, _) in &members {
                let c = self.canonical[j];
                let a = self.arg_objs[c];
                let (s0, l0) = &self.arg_initial[c];
                let unchanged = self.objs[a].sto == *s0 && self.objs[a].layout == *l0;
                let prefix = self.initial_chain_len(c);
                let a_chain = &self.objs[a].chain;
                if unchanged && a_chain.len() == prefix && chain.starts_with(a_chain) {
                    chosen = Some((c, prefix));
                    break;
                }
            }
            let root = self.objs[o].root.unwrap_or(o);
            let root_arg = members.iter().map(|m| self.canonical[m.0]).find(|&c| self.arg_objs[c] == root);
            match (chosen, is_input) {
                (_, Some(i)) => facts.input = Some(i),
                (Some((c, prefix)), None) => {
                    facts.input = Some(c);
                    facts.views = Some(self.view_steps(&chain, prefix));
                }
                // Regenerated with as_strided: from the argument holding
                // the most of its elements (its gradient goes there);
                // counted only for outputs small enough to visit.
                // (A symbolic member layout has no elements to visit.)
                (None, None)
                    if is_large(numel(&self.objs[o].layout.sizes), 1 << 16)
                        || self.objs[o].layout.is_symbolic()
                        || members.iter().any(|(_, l, _)| l.is_symbolic()) =>
                {
                    facts.input = members.first().map(|m| self.canonical[m.0])
                }
                // A view of an argument regenerated with as_strided (the
                // argument's metadata changed): from that argument, whose
                // history it has (other arguments of its storage may be
                // other leaves).
                (None, None) if root_arg.is_some() => facts.input = root_arg,
                (None, None) => {
                    let mine: rustc_hash::FxHashSet<usize> = indices(&self.objs[o].layout).collect();
                    let best = members.iter().max_by_key(|(j, l, _)| {
                        let held = indices(l).filter(|e| mine.contains(e)).count();
                        (held, std::cmp::Reverse(*j))
                    });
                    facts.input = best.map(|m| self.canonical[m.0]);
                }
            }
        } else if let Some(c) =
            (0..num_args).map(|i| self.canonical[i]).find(|&c| self.objs[self.arg_objs[c]].sto == sto)
        {
            // An argument was `set_` onto this storage: after the call the
            // output shares the argument's new storage, and the runtime
            // regenerates it there from its layout.
            facts.kind = "input";
            facts.input = Some(c);
            facts.after_set = true;
        } else if self.stos[sto].base_obj == Some(o) {
            facts.kind = "fresh";
        } else {
            facts.kind = "intermediate";
            let base_obj = self.stos[sto].base_obj;
            facts.base_requires_grad = base_obj.is_some_and(|b| self.requires_grad(b));
            facts.base_is_output = base_obj.and_then(|b| outs.iter().position(|&x| x == b));
            let chain = self.objs[o].chain.clone();
            facts.views = Some(self.view_steps(&chain, 0));
        }
        Ok(facts)
    }

    /// Own-storage arguments are their storage's base (empty chain); those
    /// with a layout start with their as_strided step.
    fn initial_chain_len(&self, c: usize) -> usize {
        self.arg_chain0[c]
    }

    /// The view steps of `chain` after its first `start`, for output facts:
    /// no_grad markers are not views the runtime replays.
    fn view_steps(&mut self, chain: &Chain, start: usize) -> Vec<ViewStep> {
        let steps: Vec<Step> =
            chain.steps_from(start).into_iter().filter(|s| !self.is_no_grad_marker(s)).cloned().collect();
        steps.iter().map(|s| self.view_step(s)).collect()
    }

    fn view_step(&mut self, s: &Step) -> ViewStep {
        let attrs = self.rw.dict_attr(s.attrs.clone());
        ViewStep { op: s.op.name().to_string(), attrs }
    }
}

fn info_attr(ctx: &mut Context, info: &InputAliasInfo) -> Attribute {
    info.to_attr(ctx)
}
