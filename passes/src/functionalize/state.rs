//! The abstract interpreter behind `functionalize` (see the module above).
//!
//! Invariants: every object's `chain` replays its current layout from its
//! storage's base value; a cached value is valid only at the storage version
//! it was computed at; the base of a storage holding several arguments (or
//! one argument with an explicit layout) is flat (1-D over the storage) and
//! built lazily from the arguments' values, the first time it is needed.

use super::backward_check::{node_name, AutogradGraph, Edge, SavedRef};
use super::backward_error_attr;
use super::chain::{Chain, Step};
use super::{
    OutputFacts, BACKWARD_ERROR, FUNCTIONALIZED, HIDDEN_WRITE, INPUT_INFO, INTERMEDIATE_BASE, MUTATED_INPUT,
    OUTPUT_FACTS, STORAGE_FINAL, STORAGE_WRITES, VIRTUAL_BASE, WHOLE_STORAGES,
};
use crate::meta::{InputAliasInfo, MutationType, SetSource, Strided, ViewStep};
use crate::purity::VALUE_SEMANTICS;
use aot_dialects::func::{FuncView, ReturnOp, LAYOUT, NON_LEAF, REQUIRES_GRAD, SAME_AS, STORAGES};
use aot_dialects::r#mut::{
    resize_layout, AsStridedOp as AsStridedInPlaceOp, CopyOp, InPlaceInterface, MetadataKind,
    MetadataMutationInterface, ResizeOp, SetOp,
};
use aot_dialects::tensor::{CatOp, CloneOp, FullOp};
use aot_dialects::view::{
    build_inverse, contiguous_strides, view_interface, AliasOp, AsStridedOp, AsStridedScatterOp, Inverse, Layout,
    ReshapeOp, RESHAPE_NEEDS_COPY, SPLIT_GRAD,
};
use aot_ir::*;
use aot_runtime::interp::{
    multi_output_view_error, no_grad_view_error, overlap_forbidden, AllowsInternalOverlap, AssertNoOverlap, Detaches,
    NonDifferentiableResults, RefusesRequiresGrad, ReplacesData, LEAF_INPLACE_ERROR, NO_GRAD,
    VIEW_OF_LEAF_INPLACE_ERROR,
};
use aot_runtime::overlap::INTERNAL_OVERLAP_ERROR;
use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Creation {
    Default,
    /// Output `k` of multi-output view op `name`, made when its storage had
    /// seen `version` in-place ops.
    MultiOutput(&'static str, usize, u64),
    /// Made under no_grad from a tensor that requires grad; for a view of
    /// such a view made in grad mode, its op and output index; the storage's
    /// in-place count when it was made.
    NoGrad(Option<(&'static str, usize)>, u64),
}

#[derive(Clone, Debug)]
struct Obj {
    sto: usize,
    layout: Layout,
    dtype: ElemType,
    chain: Chain,
    /// The object this one was viewed from (a shortcut for regeneration,
    /// valid while that object's chain is still a prefix of ours).
    src: Option<usize>,
    cached: Option<(Value, u32)>,
    detached: bool,
    /// The step that stops gradient on the way from the storage base to this
    /// object, if any (a `view.detach`, or the marker after a view made
    /// under no_grad of a tensor that requires grad): a chain restarted from
    /// the base (`as_strided`, `as_strided_`, `resize_`) starts with it, so
    /// the regenerated value stays cut off from autograd.
    stop: Option<Step>,
    readonly: bool,
    multi_output: bool,
    rg: bool,
    leaf: bool,
    root: Option<usize>,
    creation: Creation,
    /// For the root of a detached autograd family that an in-place op in
    /// grad mode made require grad (`d = x.detach(); d.mul_(y)`): the value
    /// that carries its autograd history. The storage write stays hidden
    /// from `x`'s history; reads of the family take their values from the
    /// storage and their gradient through this value.
    anchor: Option<Value>,
    /// Its storage's version when it was made: a later write makes
    /// PyTorch regenerate a view's history from its base.
    born: u32,
}

#[derive(Clone, Debug)]
struct Sto {
    /// Current base value; `None` while a virtual flat base is not built.
    base: Option<Value>,
    flat: bool,
    len: i64,
    dtype: ElemType,
    version: u32,
    /// Arguments whose original storage this is, with their layouts and values.
    members: Vec<(usize, Layout, Value)>,
    /// For an intermediate storage: the object it was created for.
    base_obj: Option<usize>,
    /// Which elements the arguments cover, once asked; empty when all are.
    covered: Option<Vec<bool>>,
    /// The length at entry (a `resize_` may grow it).
    len0: i64,
    /// The layout written by each write so far (write `k` made version `k + 1`).
    writes: Vec<Layout>,
    /// A write autograd recorded (not hidden, not under no_grad) happened.
    visible_writes: bool,
    /// The storage id an `aot.layout` declared, for a storage shared by arguments.
    decl: Option<i64>,
    /// The graph reads or writes elements of this (declared) storage that no
    /// argument covers: the storage must be passed whole (`synthetic-base`),
    /// and its final value is a result of its own (`aot.storage_final`).
    reads_whole: bool,
}

#[derive(Default, Clone, Debug)]
struct MutCount {
    total: u32,
    data: u32,
    hidden: u32,
    no_grad: u32,
    /// Data mutations (and `set_`) neither hidden nor under no_grad:
    /// autograd records these, and they put the argument in the objective.
    visible: u32,
}

pub struct Stats {
    pub mutations_removed: u64,
    pub scatters: u64,
    pub mutated_inputs: u64,
}

pub struct Functionalizer<'c> {
    rw: Rewriter<'c>,
    /// The autograd graph the program builds, for the errors `backward`
    /// would raise.
    graph: AutogradGraph,
    /// The history node of each object that holds one (a root: views use
    /// their root's) and the shape autograd recorded for it.
    grad_fn: FxHashMap<usize, (usize, Option<Vec<i64>>)>,
    /// A program autograd would give a gradient we cannot report (a leaf
    /// whose shape a no_grad metadata mutation changed).
    unsupported_backward: Option<(String, Location)>,
    /// Holders whose history an in-place op autograd recorded replaced:
    /// every argument sharing one is in the gradient's objective.
    touched: rustc_hash::FxHashSet<usize>,
    /// Storages of one tensor (an independent duplicate and its original).
    linked_counters: FxHashMap<usize, Vec<usize>>,
    /// Views made in grad mode of a tensor that did not require grad, whose
    /// grad_fn autograd has not taken since (see `TensorImpl::stale_grad_fn`).
    stale_views: rustc_hash::FxHashSet<usize>,
    /// Objects set_ moved into another storage (detached from its tensors).
    set_moved: rustc_hash::FxHashSet<usize>,
    /// Views set_ moved under no_grad into another storage: autograd still
    /// takes them for views of their old base.
    moved_views: rustc_hash::FxHashSet<usize>,
    /// The version counter of objects whose counter is not their storage's
    /// (see [`Self::counter`]).
    moved_counter: FxHashMap<usize, usize>,
    /// See [`Self::family`].
    moved_root: FxHashMap<usize, usize>,
    /// Roots a metadata op autograd recorded moved (their views' histories
    /// are regenerated from the new layout).
    relaid_roots: rustc_hash::FxHashSet<usize>,
    /// Detached families an in-place op autograd recorded gave a history of
    /// their own (it outlives a later set_ under no_grad).
    own_history: rustc_hash::FxHashSet<usize>,
    /// Views whose creation passed a gradient its source's history cannot
    /// take (its shape changed under no_grad): the node that raises.
    view_error: FxHashMap<usize, usize>,
    objs: Vec<Obj>,
    stos: Vec<Sto>,
    /// PyTorch's version counter of each storage: the in-place ops (data or
    /// metadata, in any mode) on its tensors so far.
    inplace_ops: Vec<u64>,
    arg_objs: Vec<usize>,
    /// Each argument's storage and layout at entry.
    arg_initial: Vec<(usize, Layout)>,
    arg_leaf: Vec<bool>,
    /// Length of each argument's chain at entry.
    arg_chain0: Vec<usize>,
    canonical: Vec<usize>,
    muts: Vec<MutCount>,
    depth: usize,
    stats: Stats,
}

fn numel(shape: &[i64]) -> i64 {
    shape.iter().product()
}

fn strided(l: &Layout) -> Strided {
    Strided { size: l.sizes.to_vec(), stride: l.strides.to_vec(), offset: l.offset }
}

fn has_internal_overlap(l: &Layout) -> bool {
    aot_runtime::overlap::has_internal_overlap(&l.sizes, &l.strides)
}

/// A layout's elements in order: its offset and the (size, stride) of its
/// dimensions of size > 1 (size-1 dimensions do not reorder anything).
fn logical_order(l: &Layout) -> (i64, Vec<(i64, i64)>) {
    (l.offset, l.sizes.iter().zip(&l.strides).filter(|(&n, _)| n != 1).map(|(&n, &s)| (n, s)).collect())
}

/// A layout that may reach a storage element twice (an expand, or
/// `as_strided` with overlapping strides) has no inverse as a view: scattering
/// a value at it back would write each element once per position, stale
/// positions last. Writes through such an object, or through any view of
/// it, go to the storage through the written object's own layout.
fn may_self_overlap(l: &Layout) -> bool {
    aot_runtime::overlap::may_reach_an_element_twice(&l.sizes, &l.strides)
}

/// The error PyTorch's `CopySlices` backward raises for a write through a
/// view whose base's layout (changed since the view was taken) no longer
/// holds it: the view's offset is taken relative to the base's, inside a
/// buffer of the base's extent.
fn copy_slices_error(base: &Layout, view: &Layout, dtype: ElemType) -> Option<String> {
    let extent = |l: &Layout| -> Option<i64> {
        if l.sizes.contains(&0) {
            return Some(0);
        }
        l.sizes.iter().zip(&l.strides).try_fold(1i64, |acc, (&n, &st)| acc.checked_add((n - 1).checked_mul(st)?))
    };
    let offset = view.offset - base.offset;
    if offset < 0 {
        return Some(format!("Tensor: invalid storage offset {offset}"));
    }
    let (have, need) = (extent(base)?, extent(view)?);
    if need == 0 {
        return None;
    }
    let item = dtype.byte_size() as i64;
    let required = offset.checked_add(need)?.checked_mul(item)?;
    (required > have * item).then(|| {
        format!(
            "setStorage: sizes {:?}, strides {:?}, storage offset {offset}, and itemsize {item} requiring a storage size of {required} are out of bounds for storage of size {}",
            view.sizes.as_slice(),
            view.strides.as_slice(),
            have * item
        )
    })
}

/// The first storage element `to` reaches that `from` does not hold
/// (layouts too large to visit are not checked: none).
fn first_outside(from: &Layout, to: &Layout) -> Option<usize> {
    const MAX_VISITED: i64 = 1 << 20;
    if numel(&to.sizes) > MAX_VISITED || numel(&from.sizes) > MAX_VISITED {
        return None;
    }
    let held: rustc_hash::FxHashSet<usize> = indices(from).collect();
    indices(to).find(|e| !held.contains(e))
}

/// Storage indices of a layout's elements, walked without a list.
fn indices(l: &Layout) -> aot_runtime::tensor::StridedIter<'_> {
    aot_runtime::tensor::strided_iter(&l.sizes, &l.strides, l.offset)
}

/// Do two layouts of one storage certainly share no element (AOTAutograd's test)?
fn disjoint(a: &Layout, b: &Layout) -> bool {
    use aot_runtime::overlap::{definitely_do_not_overlap, View};
    definitely_do_not_overlap(&View::new(&a.sizes, &a.strides, a.offset), &View::new(&b.sizes, &b.strides, b.offset))
}

/// Do two layouts of one storage share an element? A bitmap over `a`'s
/// address range (one bit per storage element, bounded by the storage's
/// size, which the allocation limit bounds) instead of a set of indices.
fn overlaps(a: &Layout, b: &Layout) -> bool {
    let (Some((lo, hi)), Some((blo, bhi))) = (
        aot_ir::size::checked_extent(&a.sizes, &a.strides, a.offset),
        aot_ir::size::checked_extent(&b.sizes, &b.strides, b.offset),
    ) else {
        return true;
    };
    if hi <= lo || bhi <= blo || bhi <= lo || hi <= blo {
        return false;
    }
    let span = (hi - lo) as usize;
    // The bitmap costs a bit per element of a's span; a sorted list of the
    // smaller layout's indices costs 8 bytes per element. Take the cheaper
    // (a sparse, huge-strided layout has a huge span and few elements).
    let (na, nb) = (numel(&a.sizes) as u64, numel(&b.sizes) as u64);
    if (span as u64) / 64 > na.min(nb) {
        let (small, large) = if na <= nb { (a, b) } else { (b, a) };
        let mut seen: Vec<usize> = indices(small).collect();
        seen.sort_unstable();
        return indices(large).any(|i| seen.binary_search(&i).is_ok());
    }
    let mut bits = vec![0u64; span.div_ceil(64)];
    for i in indices(a) {
        let k = i - lo as usize;
        bits[k / 64] |= 1 << (k % 64);
    }
    indices(b).any(|i| {
        let Some(k) = i.checked_sub(lo as usize).filter(|&k| k < span) else { return false };
        bits[k / 64] & (1 << (k % 64)) != 0
    })
}

impl<'c> Functionalizer<'c> {
    fn err(&self, op: Op, msg: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::op_error(self.rw.ctx(), op, msg)
    }

    fn requires_grad(&self, o: usize) -> bool {
        let x = &self.objs[o];
        x.rg || x.root.is_some_and(|r| self.objs[r].rg)
    }

    fn is_leaf(&self, o: usize) -> bool {
        self.objs[o].leaf && self.objs[o].root.is_none()
    }

    fn tensor_type(&mut self, o: usize) -> Type {
        let (shape, e) = (self.objs[o].layout.sizes.clone(), self.objs[o].dtype);
        self.rw.tensor_type(&shape, e)
    }

    fn new_storage(&mut self, s: Sto) -> usize {
        self.inplace_ops.push(0);
        self.stos.push(s);
        self.stos.len() - 1
    }

    fn new_obj(&mut self, mut o: Obj) -> usize {
        o.born = self.stos[o.sto].version;
        self.objs.push(o);
        self.objs.len() - 1
    }

    /// A fresh contiguous object owning a new storage whose base is `v`.
    fn fresh(&mut self, v: Value) -> Result<usize, String> {
        let t = self.rw.value_tensor(v).cloned().ok_or("functionalize only handles tensors")?;
        let sto = self.new_storage(Sto {
            base: Some(v),
            flat: false,
            len: t.numel(),
            dtype: t.elem,
            version: 0,
            members: Vec::new(),
            base_obj: None,
            covered: None,
            len0: t.numel(),
            writes: Vec::new(),
            visible_writes: false,
            decl: None,
            reads_whole: false,
        });
        let o = self.new_obj(Obj {
            sto,
            layout: Layout::contiguous(&t.shape),
            dtype: t.elem,
            chain: Chain::default(),
            src: None,
            cached: Some((v, 0)),
            detached: false,
            stop: None,
            readonly: false,
            multi_output: false,
            rg: false,
            leaf: true,
            root: None,
            creation: Creation::Default,
            anchor: None,
            born: 0,
        });
        self.stos[sto].base_obj = Some(o);
        Ok(o)
    }

    fn as_strided_step(&mut self, l: &Layout) -> Step {
        let size = self.rw.i64_list_attr(&l.sizes);
        let stride = self.rw.i64_list_attr(&l.strides);
        let offset = self.rw.i64_attr(l.offset);
        let mut attrs = vec![
            NamedAttr { name: self.rw.sym("size"), value: size },
            NamedAttr { name: self.rw.sym("stride"), value: stride },
            NamedAttr { name: self.rw.sym("offset"), value: offset },
        ];
        self.rw.sort_named_attrs(&mut attrs);
        Step { op: AsStridedOp::NAME, attrs }
    }

    /// The chain of a view that `step` computes from the storage base
    /// directly (an `as_strided`), for an object derived from `o`: it keeps
    /// `o`'s gradient stop, which replaying `step` alone would lose.
    fn restarted_chain(&self, o: usize, step: Step) -> Chain {
        match &self.objs[o].stop {
            Some(stop) => Chain::single(stop.clone()).pushed(step),
            None => Chain::single(step),
        }
    }

    /// The step appended to the chain of a view made under no_grad of a
    /// tensor that requires grad: an identity `view.alias {aot.no_grad}`,
    /// where `joint` stops. It is not part of the object's layout, so
    /// output facts leave it out (see [`Self::is_no_grad_marker`]).
    fn no_grad_marker(&mut self) -> Step {
        let unit = self.rw.unit_attr();
        Step { op: AliasOp::NAME, attrs: vec![NamedAttr { name: self.rw.sym(NO_GRAD), value: unit }] }
    }

    fn is_no_grad_marker(&self, s: &Step) -> bool {
        s.op == AliasOp::NAME && s.attrs.iter().any(|a| self.rw.sym_str(a.name) == NO_GRAD)
    }

    fn apply(&mut self, step: &Step, v: Value) -> Result<Value, Diagnostic> {
        self.rw.build_named1(step.op, &[v], &step.attrs)
    }

    /// The current base value of storage `s`, building a virtual flat base
    /// from its member arguments the first time.
    fn base_value(&mut self, s: usize) -> Result<Value, Diagnostic> {
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
    fn materialize(&mut self, o: usize) -> Result<Value, Diagnostic> {
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
    fn hidden_overwrite(&mut self, carrier: Value, src: Value) -> Result<Value, Diagnostic> {
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
    fn anchored_write(
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
            .any(|s| matches!(view_interface(s.op).map(|v| v.inverse), Some(Inverse::ReadOnly)));
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
            if matches!(view_interface(step.op).map(|v| v.inverse), Some(Inverse::Scatter(_))) {
                self.stats.scatters += 1;
            }
            n = build_inverse(&mut self.rw, step.op, &step.attrs, vals[i], n)?;
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

    /// Which storage elements the member arguments of a flat storage cover.
    fn check_covered(&mut self, op: Op, s: usize, l: &Layout) -> Result<(), Diagnostic> {
        let len = self.stos[s].len;
        if numel(&l.sizes) > 0 {
            let last = aot_ir::size::checked_extent(&l.sizes, &l.strides, l.offset).map_or(i64::MAX, |e| e.1 - 1);
            if l.offset < 0 || last >= len {
                return Err(
                    self.err(op, format!("reaches storage element {last}, outside its storage of {len} elements"))
                );
            }
        }
        if self.stos[s].members.is_empty() {
            return Ok(());
        }
        if self.stos[s].covered.is_none() {
            // A declared storage may be far larger than its arguments: its
            // coverage map is an allocation like any other.
            aot_ir::size::check_alloc(len.max(0) as u64, 1, "the coverage map of a shared storage")
                .map_err(|e| self.err(op, e))?;
            // The arguments' elements, and what a resize_ added (zeros).
            let mut c = vec![false; len as usize];
            for (_, ml, _) in &self.stos[s].members {
                for i in indices(ml) {
                    c[i] = true;
                }
            }
            for x in c.iter_mut().skip(self.stos[s].len0 as usize) {
                *x = true;
            }
            if c.iter().all(|&x| x) {
                c = Vec::new();
            }
            self.stos[s].covered = Some(c);
        }
        let covered = self.stos[s].covered.as_ref().expect("computed");
        if covered.is_empty() {
            return Ok(());
        }
        if let Some(i) = indices(l).find(|&i| !covered[i]) {
            // A declared storage can be passed whole (synthetic-base does).
            if self.stos[s].decl.is_some() {
                self.stos[s].reads_whole = true;
                return Ok(());
            }
            return Err(self.err(
                op,
                format!(
                    "reads storage element {i}, which no argument covers: compile with the storage itself as an argument"
                ),
            ));
        }
        Ok(())
    }

    /// Writes `w` (the object's full new value) into object `o`, propagating
    /// it to the storage base through the inverse of each chain step.
    ///
    /// A chain through an `expand` has no inverse; when the object's own
    /// elements are distinct (PyTorch's internal-overlap check: no stride-0
    /// dimension of size > 1), the write goes to the base through one
    /// `as_strided_scatter` of the object's layout instead.
    fn write(&mut self, op: Op, o: usize, w: Value, hidden: bool) -> Result<(), Diagnostic> {
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
                .is_some_and(|s| matches!(view_interface(s.op).map(|v| v.inverse), Some(Inverse::Scatter(_))));
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
    fn view_root(&self, mut v: Value) -> Value {
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

    /// Records a mutation of object `o` against the arguments it touches.
    /// `objective`: autograd counts it as a change of data (every data
    /// mutation, and `set_`); a metadata-only mutation does not put the
    /// argument's final value in the gradient objective.
    fn record_mutation(&mut self, o: usize, data: bool, objective: bool, hidden: bool, no_grad: bool) {
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
            let hidden = (hidden && !own) || foreign;
            let i = self.canonical[i];
            let m = &mut self.muts[i];
            m.total += 1;
            m.data += data as u32;
            m.hidden += hidden as u32;
            m.no_grad += no_grad as u32;
            m.visible += (objective && !hidden && !no_grad) as u32;
        }
    }

    /// PyTorch's checks before an in-place op on `o` with grad mode on.
    fn check_inplace(&self, op: Op, o: usize, any_rg: bool) -> Result<(), Diagnostic> {
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
    fn check_view_use(&self, op: Op, operands: &[usize]) -> Result<(), Diagnostic> {
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
    fn mark_autograd_mutation(&mut self, o: usize, makes_rg: bool) {
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

    // ----- setup -----

    fn new(rw: Rewriter<'c>) -> Self {
        Functionalizer {
            rw,
            graph: AutogradGraph::default(),
            grad_fn: FxHashMap::default(),
            unsupported_backward: None,
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

    /// Creates the objects and storages of the arguments. `merge[i]` says
    /// whether duplicate `i` (`aot.same_as`) is its original's object;
    /// `None` merges every duplicate.
    fn setup_args(&mut self, func: Op, merge: Option<&[bool]>) -> Result<(), Diagnostic> {
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
                    if strides.len() != t.rank() || strides.iter().any(|&s| s < 0) || offset < 0 {
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
                    let extent = if t.numel() == 0 {
                        0
                    } else {
                        layout.offset
                            + layout.sizes.iter().zip(&layout.strides).map(|(&n, &s)| (n - 1) * s).sum::<i64>()
                            + 1
                    };
                    let declared = storage_decl.get(&sid).and_then(|d| d.0);
                    let len = declared.unwrap_or(0).max(extent).max(self.stos[sto].len);
                    if let Some(n) = declared {
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
                (true, true, None)
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

    /// The root of `o`'s autograd family: a tensor `set_` moved is its own
    /// family, with the views taken of it since.
    fn family(&self, o: usize) -> usize {
        self.moved_root.get(&o).copied().unwrap_or_else(|| self.objs[o].root.unwrap_or(o))
    }

    /// The version counter object `o` shares (an index into
    /// `inplace_ops`): its storage's, except for a tensor `set_` moved and
    /// its later views, which keep the counter they had (PyTorch's counter
    /// belongs to the tensor, not to its storage).
    fn counter(&self, o: usize) -> usize {
        self.moved_counter.get(&o).copied().unwrap_or(self.objs[o].sto)
    }

    /// An in-place op on counter `s`: PyTorch's version counter moves (and
    /// that of an independent duplicate's storage, the same tensor).
    fn bump_version(&mut self, s: usize) {
        self.inplace_ops[s] += 1;
        for t in self.linked_counters.get(&s).cloned().unwrap_or_default() {
            self.inplace_ops[t] += 1;
        }
    }

    // ----- the walk -----

    fn obj_of(&self, env: &FxHashMap<Value, usize>, op: Op, v: Value) -> Result<usize, Diagnostic> {
        env.get(&v).copied().ok_or_else(|| self.err(op, "operand is not a tensor known to functionalize"))
    }

    fn walk(&mut self, block: Block, env: &mut FxHashMap<Value, usize>) -> Result<Vec<usize>, Diagnostic> {
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
                return Ok(operands);
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
                    op: def.name,
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
            let mut chain = if step.op == AsStridedOp::NAME {
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
                || matches!(view_interface(step.op).map(|v| v.inverse), Some(Inverse::ReadOnly))
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

    /// An `as_strided` view of a view of a detached tensor that an in-place
    /// op made require grad: the view is read from the storage, not from
    /// the family's anchored value, so its gradient would not reach that
    /// history; refused for training.
    fn refuse_as_strided_of_anchored(&mut self, op: Op, p: usize) {
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
    fn check_as_strided_grad(&mut self, op: Op, from: &Layout, to: &Layout) {
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
    fn refuse_backward(&mut self, op: Op, message: String) {
        let loc = self.rw.op_loc(op);
        self.refuse_backward_at(loc, message);
    }

    fn refuse_backward_at(&mut self, loc: Location, message: String) {
        if self.unsupported_backward.is_none() {
            self.unsupported_backward = Some((message, loc));
        }
    }

    fn data_mutation(&mut self, op: Op, def: &'static OpDef, operands: &[usize]) -> Result<(), Diagnostic> {
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
        for &y in &operands[1..] {
            use aot_runtime::overlap::{mem_overlap, MemOverlap, View, PARTIAL_OVERLAP_ERROR};
            let (a, b) = (&self.objs[x].layout, &self.objs[y].layout);
            let status = if y == x {
                MemOverlap::Full
            } else if self.objs[y].sto == self.objs[x].sto {
                mem_overlap(&View::new(&a.sizes, &a.strides, a.offset), &View::new(&b.sizes, &b.strides, b.offset))
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
        let mut vals = Vec::with_capacity(operands.len());
        for &o in operands {
            vals.push(self.materialize(o)?);
        }
        let w = (iface.new_value)(&mut self.rw, op, &vals)?;
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
        let hidden = !grad_mode || self.objs[x].detached;
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
        self.record_mutation(x, true, true, self.objs[x].detached, !grad_mode);
        if grad_mode && (others_rg || self.requires_grad(x)) && !self.objs[x].detached {
            self.mark_autograd_mutation(x, others_rg);
        }
        self.stats.mutations_removed += 1;
        Ok(())
    }

    fn metadata_mutation(&mut self, op: Op, def: &'static OpDef, operands: &[usize]) -> Result<usize, Diagnostic> {
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
                if view == AsStridedOp::NAME {
                    // The anchor cannot follow x onto other elements: x's
                    // values come from the storage, its gradient is refused.
                    self.refuse_as_strided_of_anchored(op, x);
                    self.objs[x].anchor = None;
                } else if let Some(a) = self.objs[x].anchor {
                    self.objs[x].anchor = Some(self.apply(&step, a)?);
                }
                if view == AsStridedOp::NAME {
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
                    let need = l.offset + numel(&l.sizes);
                    if need > self.stos[sto].len {
                        self.grow_storage(sto, need)?;
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
            && self.objs[x].layout.sizes != layout_before.sizes
            && self.requires_grad(x)
        {
            // A tensor keeps its identity across a set_ autograd does not
            // see, with the new data and shape: PyTorch's gradient is then
            // one of other elements, in another shape, than the argument's.
            self.refuse_backward(
                op,
                "unsupported operation: set_ under no_grad gives a tensor that requires grad other data of another shape, so its gradient would not be one of its own elements".to_string(),
            );
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
        self.record_mutation(x, false, objective, self.objs[x].detached, !grad_mode);
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

    // ----- the result -----

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
            let mut probe = Functionalizer::new(rw);
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
        let mut this = Functionalizer::new(rw);
        this.setup_args(func, merge.as_deref())?;
        let mut env: FxHashMap<Value, usize> = args.iter().copied().zip(this.arg_objs.clone()).collect();
        let outs = this.walk(entry, &mut env)?;
        debug_assert_eq!(outs.len(), num_results);
        this.finish(func, &args, &outs, keep, &old_ops)?;
        Ok(this.stats)
    }

    fn finish(
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
        let mut p = crate::meta::Params::new(&mut self.rw);
        p.bool("keep_input_mutations", keep);
        p.int("num_user_outputs", outs.len() as i64);
        let fa = p.finish(super::FUNCTIONALIZED);
        self.rw.set_attr(func, FUNCTIONALIZED, fa);
        crate::canonicalize::simplify_function(&mut self.rw, func);
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

    /// An op autograd records takes the histories of its `operands`: their
    /// edges (None where there is none); views among them get their grad_fn.
    fn take_histories(&mut self, operands: &[usize]) -> Vec<Option<Edge>> {
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
    fn saved_ref(&self, result: bool, index: usize, o: usize) -> SavedRef {
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
    fn history_edge(&mut self, o: usize) -> Option<Edge> {
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
                .map(|(id, layouts)| {
                    let ls: Vec<Attribute> = layouts.iter().map(|l| l.to_attr(&mut self.rw)).collect();
                    let ls = self.rw.array_attr(ls);
                    let mut p = crate::meta::Params::new(&mut self.rw);
                    p.int("storage", id);
                    p.raw("layouts", ls);
                    p.finish(super::WRITES_KIND)
                })
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
        if st.len > MAX_CHECKED {
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
        if self.initial_chain_len(c) == 0 {
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
            && self.objs[o].chain.steps().iter().any(|s| s.op == AsStridedOp::NAME)
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
                (None, None) if numel(&self.objs[o].layout.sizes) > 1 << 16 => {
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
        ViewStep { op: s.op.to_string(), attrs }
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

fn info_attr(ctx: &mut Context, info: &InputAliasInfo) -> Attribute {
    crate::meta::input_to_attr(ctx, info)
}
