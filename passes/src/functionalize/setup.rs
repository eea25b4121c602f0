//! Argument set-up: the objects and storages of the function's arguments,
//! read from their attributes (`aot.layout`, `aot.storages`, `aot.same_as`,
//! `aot.requires_grad`, `aot.non_leaf`), and the autograd history each
//! argument that requires grad starts with.
//!
//! Invariants: the per-argument vectors (`arg_objs`, `arg_initial`,
//! `arg_leaf`, `arg_chain0`, `canonical`, `muts`) get exactly one entry per
//! argument, in order; a merged duplicate shares its original's object and
//! entries, and names the original through `canonical`; an argument without
//! `aot.layout` owns a storage whose base is the argument itself (empty
//! chain), while one with it is a member of its declared storage, whose flat
//! base is built lazily, and starts with one `as_strided` step.

use super::backward_check::Edge;
use super::chain::Chain;
use super::model::{may_self_overlap, Creation, MutCount, Obj, Sto};
use super::state::Functionalizer;
use aot_dialects::func::{FuncView, LAYOUT, NON_LEAF, REQUIRES_GRAD, SAME_AS, STORAGES};
use aot_dialects::view::{contiguous_strides, Layout};
use aot_ir::*;
use rustc_hash::FxHashMap;

impl<'c> Functionalizer<'c> {
    /// Creates the objects and storages of the arguments. `merge[i]` says
    /// whether duplicate `i` (`aot.same_as`) is its original's object;
    /// `None` merges every duplicate.
    pub(super) fn setup_args(&mut self, func: Op, merge: Option<&[bool]>) -> Result<(), Diagnostic> {
        let f = FuncView { op: func };
        let args: Vec<Value> = f.args(&self.rw).to_vec();
        let loc = self.rw.op_loc(func);
        let arg_err = |i: usize, m: String| Diagnostic::error(loc, format!("argument {i}: {m}"));
        // Shared storages declared by `aot.storages`.
        let mut storage_decl: FxHashMap<i64, (Option<i64>, bool)> = FxHashMap::default();
        if let Some(a) = self.rw.get_attr(func, STORAGES) {
            if let AttrData::Array(items) = self.rw.attr_data(a).clone() {
                for it in items {
                    let id = self.rw.attr_field(it, "id").and_then(|x| self.rw.attr_as_i64(x));
                    let n = self.rw.attr_field(it, "numel").and_then(|x| self.rw.attr_as_i64(x));
                    let rg =
                        self.rw.attr_field(it, "requires_grad").and_then(|x| self.rw.attr_as_flag(x)).unwrap_or(false);
                    let Some(id) = id else {
                        return Err(Diagnostic::error(loc, "'aot.storages' entries need an 'id'"));
                    };
                    storage_decl.insert(id, (n, rg));
                }
            }
        }
        let mut group_sto: FxHashMap<i64, usize> = FxHashMap::default();
        let mut group_root: FxHashMap<i64, usize> = FxHashMap::default();
        // The argument whose attributes declare each argument (merged duplicates have none).
        let mut decls: Vec<usize> = Vec::new();
        for (i, &v) in args.iter().enumerate() {
            let t = self
                .rw
                .value_tensor(v)
                .cloned()
                .ok_or_else(|| arg_err(i, "functionalize only handles tensor arguments".into()))?;
            // A duplicate is the same object as its original when the probe
            // found the object mutated; otherwise it is traced as an
            // independent input declared like its original.
            let mut decl = i;
            if let Some(k) = f.arg_attr(&self.rw, i, SAME_AS).and_then(|a| self.rw.attr_as_i64(a)) {
                if k < 0 || k as usize >= i {
                    return Err(arg_err(i, format!("'aot.same_as = {k}' must name an earlier argument")));
                }
                let k = k as usize;
                if self.rw.value_type(args[k]) != self.rw.value_type(v) {
                    return Err(arg_err(i, format!("'aot.same_as = {k}' but the two arguments have different types")));
                }
                if merge.is_none_or(|m| m[i]) {
                    let k = self.canonical[k];
                    self.arg_objs.push(self.arg_objs[k]);
                    self.arg_initial.push(self.arg_initial[k].clone());
                    self.arg_leaf.push(self.arg_leaf[k]);
                    self.arg_chain0.push(self.arg_chain0[k]);
                    self.canonical.push(k);
                    self.muts.push(MutCount::default());
                    decls.push(decls[k]);
                    continue;
                }
                decl = decls[k];
            }
            decls.push(decl);
            let rg = f.arg_has(&self.rw, decl, REQUIRES_GRAD);
            let non_leaf = f.arg_has(&self.rw, decl, NON_LEAF);
            let layout_attr = f.arg_attr(&self.rw, decl, LAYOUT);
            let (sto, layout, root) = match layout_attr {
                None => {
                    let o = self.fresh(v).map_err(|m| arg_err(i, m))?;
                    let sto = self.objs[o].sto;
                    self.stos[sto].base_obj = None;
                    self.stos[sto].members.push((i, Layout::contiguous(&t.shape), v));
                    self.arg_objs.push(o);
                    self.arg_initial.push((sto, self.objs[o].layout.clone()));
                    self.objs[o].rg = rg;
                    self.objs[o].leaf = !non_leaf;
                    if rg {
                        self.arg_history(o, non_leaf);
                    }
                    self.arg_leaf.push(!non_leaf || !rg);
                    self.arg_chain0.push(0);
                    self.canonical.push(i);
                    self.muts.push(MutCount::default());
                    continue;
                }
                Some(a) => {
                    let sid = self.rw.attr_field(a, "storage").and_then(|x| self.rw.attr_as_i64(x));
                    let offset = self.rw.attr_field(a, "offset").and_then(|x| self.rw.attr_as_i64(x)).unwrap_or(0);
                    let strides = match self.rw.attr_field(a, "strides") {
                        Some(s) => self.rw.attr_as_i64_list(s),
                        None => Some(contiguous_strides(&t.shape).to_vec()),
                    };
                    let (Some(sid), Some(strides)) = (sid, strides) else {
                        return Err(arg_err(
                            i,
                            "'aot.layout' needs 'storage', and 'strides' as a list of integers".into(),
                        ));
                    };
                    if strides.len() != t.rank()
                        || strides.iter().any(|&s| s < 0 && !aot_ir::sym::is_symbolic(s))
                        || offset < 0
                    {
                        return Err(arg_err(
                            i,
                            format!("'aot.layout' strides {strides:?} / offset {offset} do not fit {t}"),
                        ));
                    }
                    let layout = Layout { sizes: t.shape.clone(), strides: strides.into_iter().collect(), offset };
                    let sto = match group_sto.get(&sid) {
                        Some(&s) => s,
                        None => {
                            let s = self.new_storage(Sto {
                                base: None,
                                flat: true,
                                len: 0,
                                dtype: t.elem,
                                version: 0,
                                members: Vec::new(),
                                base_obj: None,
                                covered: None,
                                len0: 0,
                                writes: Vec::new(),
                                visible_writes: false,
                                decl: Some(sid),
                                reads_whole: false,
                            });
                            group_sto.insert(sid, s);
                            s
                        }
                    };
                    if self.stos[sto].dtype != t.elem {
                        return Err(arg_err(i, "arguments sharing a storage must have one element type".into()));
                    }
                    // (With symbolic sizes the verifier took a dense layout
                    // of a storage of the argument's own only: it spans the
                    // storage, which has as many elements as the argument.)
                    let symbolic = t.is_symbolic() || layout.strides.iter().any(|&s| aot_ir::sym::is_symbolic(s));
                    let extent = if symbolic {
                        aot_ir::sym::numel(&t.shape).map_err(|e| arg_err(i, e.to_string()))?
                    } else if t.numel() == 0 {
                        0
                    } else {
                        layout.offset
                            + layout.sizes.iter().zip(&layout.strides).map(|(&n, &s)| (n - 1) * s).sum::<i64>()
                            + 1
                    };
                    let declared = storage_decl.get(&sid).and_then(|d| d.0);
                    // Its base value is a tensor of that many elements: one
                    // whose bytes a 64-bit count cannot hold is no storage.
                    if let Some(n) = declared
                        .filter(|&n| !aot_ir::sym::is_symbolic(n))
                        .filter(|&n| aot_ir::size::checked_byte_size(&[n], t.elem).is_none())
                    {
                        return Err(arg_err(
                            i,
                            format!(
                                "storage {sid} of {n} {} elements has more bytes than a 64-bit count holds",
                                t.elem
                            ),
                        ));
                    }
                    let len = match symbolic {
                        true => extent,
                        false => declared.unwrap_or(0).max(extent).max(self.stos[sto].len),
                    };
                    if let Some(n) = declared.filter(|_| !symbolic) {
                        if extent > n {
                            return Err(arg_err(
                                i,
                                format!(
                                    "its layout reaches element {}, outside storage {sid} of {n} elements",
                                    extent - 1
                                ),
                            ));
                        }
                    }
                    self.stos[sto].len = len;
                    self.stos[sto].len0 = len;
                    self.stos[sto].members.push((i, layout.clone(), v));
                    // The storage's autograd root (a differentiable base, or a plain root).
                    let diff_base = storage_decl.get(&sid).is_some_and(|d| d.1);
                    let root = *group_root.entry(sid).or_insert_with(|| {
                        self.objs.push(Obj {
                            sto,
                            layout: Layout::contiguous(&[len]),
                            dtype: t.elem,
                            chain: Chain::default(),
                            src: None,
                            cached: None,
                            detached: false,
                            stop: None,
                            readonly: false,
                            multi_output: false,
                            rg: diff_base,
                            leaf: !diff_base,
                            root: None,
                            creation: Creation::Default,
                            anchor: None,
                            born: 0,
                        });
                        self.objs.len() - 1
                    });
                    (sto, layout, Some(root))
                }
            };
            let step = self.as_strided_step(&layout);
            let root_rg = root.is_some_and(|r| self.objs[r].rg);
            if let Some(r) = root.filter(|_| root_rg) {
                if !self.grad_fn.contains_key(&r) {
                    self.arg_history(r, false);
                }
            }
            let (own_rg, leaf, view_root) = if root_rg {
                (false, false, root)
            } else if rg {
                // Its own history: a leaf (`view.detach().requires_grad_()`),
                // or a non-leaf view of a base the call does not see.
                (true, !non_leaf, None)
            } else {
                (false, false, root)
            };
            let o = self.new_obj(Obj {
                sto,
                layout: layout.clone(),
                dtype: t.elem,
                chain: Chain::single(step),
                src: None,
                cached: Some((v, 0)),
                detached: false,
                stop: None,
                readonly: may_self_overlap(&layout),
                multi_output: false,
                rg: own_rg,
                leaf,
                root: view_root,
                creation: Creation::Default,
                anchor: None,
                born: 0,
            });
            if own_rg {
                self.arg_history(o, non_leaf);
            } else if !root_rg && t.elem.is_float() {
                // A view of a storage that does not require grad: no grad_fn
                // until autograd takes one (as `aot-run` makes them).
                self.stale_views.insert(o);
            }
            self.arg_objs.push(o);
            self.arg_initial.push((sto, layout));
            self.arg_leaf.push(self.is_leaf(o) || !self.requires_grad(o));
            self.arg_chain0.push(1);
            self.canonical.push(i);
            self.muts.push(MutCount::default());
        }
        // A duplicate traced as an independent input is still the same
        // tensor: one version counter for both storages.
        for i in 0..args.len() {
            let Some(k) = f.arg_attr(&self.rw, i, SAME_AS).and_then(|a| self.rw.attr_as_i64(a)) else {
                continue;
            };
            let (a, b) = (self.arg_initial[i].0, self.arg_initial[self.canonical[k as usize]].0);
            if a != b {
                self.linked_counters.entry(a).or_default().push(b);
                self.linked_counters.entry(b).or_default().push(a);
            }
        }
        Ok(())
    }

    /// The history of an argument (or differentiable base) `o` that
    /// requires grad: a leaf, or a leaf's clone (`non_leaf`).
    fn arg_history(&mut self, o: usize, non_leaf: bool) {
        let loc = self.rw.current_loc();
        let shape = self.objs[o].layout.sizes.to_vec();
        let mut n = self.graph.leaf(loc);
        let mut recorded = None;
        if non_leaf {
            let e = Edge { node: n, got: shape.clone(), expected: Some(shape.clone()) };
            n = self.graph.node("Clone", None, &[Some(e)], Vec::new(), None, loc);
            recorded = Some(shape);
        }
        self.grad_fn.insert(o, (n, recorded));
    }
}
