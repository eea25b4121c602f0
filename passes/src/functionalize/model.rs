//! The interpreter's model of memory: storages (`Sto`), the tensor objects
//! that view them (`Obj`) with the autograd flags PyTorch keeps on each
//! tensor, the per-argument mutation counts (`MutCount`), and the layout
//! arithmetic the other phases ask about (overlap, coverage, and the errors
//! PyTorch raises on bad geometry).
//!
//! Invariants: objects and storages are never removed, so an index into
//! `objs` or `stos` names one for the whole run; every layout counts
//! storage elements, in the row-major order of the storage's base value,
//! and stays inside the storage's `len` elements; nothing here emits code
//! (building values is `values`' job), so these helpers may be called at
//! any point of the walk or the epilogue.

use super::chain::{Chain, Step};
use super::state::Functionalizer;
use crate::meta::Strided;
use aot_dialects::view::Layout;
use aot_ir::*;

/// How a view was made, as far as PyTorch's view checks care
/// (`check_inplace`, `check_view_use`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Creation {
    /// A tensor of its own, or a view PyTorch lets be modified in place and
    /// rebased.
    Default,
    /// Output `k` of multi-output view op `name`, made when its storage had
    /// seen `version` in-place ops.
    MultiOutput(&'static str, usize, u64),
    /// Made under no_grad from a tensor that requires grad; for a view of
    /// such a view made in grad mode, its op and output index; the storage's
    /// in-place count when it was made.
    NoGrad(Option<(&'static str, usize)>, u64),
}

/// A tensor object: a view of one storage, with the autograd flags PyTorch
/// keeps on the tensor. Every SSA tensor value of the body is bound to one
/// (several values may share one: a metadata mutation's result is its
/// destination).
#[derive(Clone, Debug)]
pub(super) struct Obj {
    /// The storage it views (an index into `stos`). Only `set_` changes it.
    pub(super) sto: usize,
    /// Its shape (`sizes`) and where its elements are, counted in elements
    /// of its storage (positions in the base value, row-major). A view op
    /// derives it from its source's; a metadata mutation changes it in
    /// place. Invariant: inside the storage's `len` elements (`check_covered`
    /// refuses an `as_strided` reaching past them; `resize_` grows the
    /// storage first).
    pub(super) layout: Layout,
    /// Its element type: its storage's (`set_` requires equal types), fixed
    /// for its life.
    pub(super) dtype: ElemType,
    /// The steps computing its value from its storage's current base value,
    /// base first (empty: it is the base). Besides the steps of its layout
    /// it may hold gradient stops (`stop`; no_grad markers are identity
    /// steps that are not part of the layout, and output facts leave them
    /// out). Invariant: replayed from the base, it gives this object's
    /// layout; a metadata mutation extends it or restarts it from the base
    /// (`restarted_chain`, as a storage growth does for every object of the
    /// storage), and `set_` takes its source's.
    pub(super) chain: Chain,
    /// The object this one was viewed from (a shortcut for regeneration,
    /// valid while that object's chain is still a prefix of ours).
    pub(super) src: Option<usize>,
    /// The last value computed for it, and the storage version
    /// (`Sto::version`) that value reflects: still its value while every
    /// write since (`Sto::writes[at..]`) provably misses its layout
    /// (`valid_cache` then moves the stamp forward). `None` where it must be
    /// regenerated from its chain: a view not read yet, an object
    /// `as_strided_` or `resize_` just moved, or one just written hidden (it
    /// is read back through the hidden scatter, whose gradient reaches the
    /// old base).
    pub(super) cached: Option<(Value, u32)>,
    /// Autograd does not see writes through it as writes of its storage's
    /// other tensors: it was made by a detaching view (`view.detach`), is a
    /// view of such an object, or `set_` moved it into another tensor's
    /// storage. Its writes are hidden (`aot.hidden_write`) and counted as
    /// hidden against the arguments they reach. Views inherit it.
    pub(super) detached: bool,
    /// The step that stops gradient on the way from the storage base to this
    /// object, if any (a `view.detach`, or the marker after a view made
    /// under no_grad of a tensor that requires grad): a chain restarted from
    /// the base (`as_strided`, `as_strided_`, `resize_`) starts with it, so
    /// the regenerated value stays cut off from autograd.
    pub(super) stop: Option<Step>,
    /// Its chain cannot be inverted step by step: it passes through a step
    /// without an inverse (`Inverse::ReadOnly`: `expand`), or its layout may
    /// reach a storage element twice (`may_self_overlap`). A write through
    /// it goes to the storage through one `as_strided_scatter` of its layout
    /// instead (see `write`), refused where its elements overlap unless the
    /// op writes one value everywhere (`AllowsInternalOverlap`). Views
    /// inherit it; `as_strided_` and `resize_` clear it (their restarted
    /// chain has only the new layout, which may set it again), `set_` takes
    /// its source's.
    pub(super) readonly: bool,
    /// It, or an object it was viewed from, is a result of a multi-output
    /// view op (`split`, `unbind`, ...): its output facts say so. Unlike
    /// `Creation::MultiOutput`, views made in any mode inherit it.
    pub(super) multi_output: bool,
    /// Its own requires_grad flag; autograd reports this or its root's
    /// (`requires_grad`). A view made in grad mode leaves it false and
    /// follows its root; one made under no_grad of a tensor that requires
    /// grad sets it (requires_grad without history: its chain's marker keeps
    /// gradient out). An in-place op in grad mode with an operand that
    /// requires grad sets it on the object and on its root
    /// (`mark_autograd_mutation`).
    pub(super) rg: bool,
    /// It has no grad_fn of its own: PyTorch's is_leaf, for an object
    /// without a root (`is_leaf` says false for every object with one).
    /// Cleared when an in-place op autograd records leaves it requiring grad
    /// (`mark_autograd_mutation`).
    pub(super) leaf: bool,
    /// The base of its autograd view family (PyTorch's `._base`): the
    /// object that holds the family's history (`grad_fn` and `touched` are
    /// keyed by it). `None` for a tensor of its own, which is its own root,
    /// and for a detach. A view takes its source's root, so a root never has
    /// a root itself. A view made under no_grad has one only when its
    /// (floating-point) source does not require grad: it then follows that
    /// root's requires_grad, as PyTorch's views do. An argument with an
    /// `aot.layout` is a view of its declared storage's root object, unless
    /// it requires grad on its own (its storage does not).
    /// [`Functionalizer::family`] overrides it for a tensor `set_` moved.
    pub(super) root: Option<usize>,
    /// How it was made, for PyTorch's checks on views (see [`Creation`]).
    pub(super) creation: Creation,
    /// For the root of a detached autograd family that an in-place op in
    /// grad mode made require grad (`d = x.detach(); d.mul_(y)`): the value
    /// that carries its autograd history. The storage write stays hidden
    /// from `x`'s history; reads of the family take their values from the
    /// storage and their gradient through this value. A `set_` autograd
    /// does not see, of a tensor that requires grad, makes the tensor's old
    /// value its anchor (so its history outlives the move); any other `set_`
    /// clears it. Relayouts apply their view step to it (`as_strided_`
    /// drops it); `resize_` leaves it alone, as it refuses tensors that
    /// require grad, which anchored ones do. Invariant: it has the object's
    /// shape.
    pub(super) anchor: Option<Value>,
    /// Its storage's version (`Sto::version`, stamped by `new_obj`) when it
    /// was made: a later write makes PyTorch regenerate a view's history
    /// from its base.
    pub(super) born: u32,
}

/// A storage: the memory that objects view, as one SSA value (its base)
/// that every write replaces.
#[derive(Clone, Debug)]
pub(super) struct Sto {
    /// Current base value; `None` while a virtual flat base is not built.
    /// Only a storage declared by `aot.layout` starts without one:
    /// `base_value` builds it from its members the first time it is needed,
    /// which is before any write. Each write replaces it.
    pub(super) base: Option<Value>,
    /// The base is 1-D over the storage's `len` elements: a storage declared
    /// by `aot.layout`, or one `resize_` grew. Otherwise the base is the
    /// value that made the storage (an op's result, or the argument itself),
    /// in that value's shape; layouts address its elements in row-major
    /// order either way.
    pub(super) flat: bool,
    /// Its number of elements (the base's). A declared storage's is the
    /// larger of its declared `numel` and its members' extents. `resize_`
    /// may grow it (`grow_storage`), never shrink it.
    pub(super) len: i64,
    /// The element type of its base and of every object in it.
    pub(super) dtype: ElemType,
    /// The writes into it so far (each `write` adds one): the stamp of
    /// cached values and of `Obj::born`. Unlike PyTorch's version counter
    /// (`inplace_ops`), metadata mutations leave it alone. Invariant:
    /// `writes.len() == version`.
    pub(super) version: u32,
    /// Arguments whose original storage this is, with their layouts and values.
    /// The index is the argument's (a merged duplicate adds none, so it is
    /// canonical), the layout its layout at entry, the value its block
    /// argument. Fixed after set-up; empty for a storage the graph made.
    pub(super) members: Vec<(usize, Layout, Value)>,
    /// For an intermediate storage: the object it was created for.
    /// That object was made contiguous over the whole storage; output facts
    /// tell it ("fresh") from views of it ("intermediate"). `None` for the
    /// arguments' storages.
    pub(super) base_obj: Option<usize>,
    /// Which elements the arguments cover, once asked; empty when all are.
    /// Indexed by storage element and computed by `check_covered`, for
    /// storages with members only; the elements a `resize_` added (from
    /// `len0` on) count as covered, being zeros the graph made. A growth
    /// resets it.
    pub(super) covered: Option<Vec<bool>>,
    /// The length at entry (a `resize_` may grow it): an argument whose
    /// storage ends longer was resized.
    pub(super) len0: i64,
    /// The layout written by each write so far (write `k` made version `k + 1`).
    /// It is the written object's layout, whatever path the write took.
    pub(super) writes: Vec<Layout>,
    /// A write autograd recorded (not hidden, not under no_grad) happened.
    /// Until then a self-overlapping argument keeps its own value, which
    /// carries its gradient position by position (`unchanged_overlapping_arg`).
    pub(super) visible_writes: bool,
    /// The storage id an `aot.layout` declared, for a storage shared by arguments.
    /// Its virtual base carries it (`aot.virtual_base`) for `synthetic-base`.
    pub(super) decl: Option<i64>,
    /// The graph reads or writes elements of this (declared) storage that no
    /// argument covers: the storage must be passed whole (`synthetic-base`),
    /// and its final value is a result of its own (`aot.storage_final`).
    pub(super) reads_whole: bool,
}

/// The mutations counted against one argument (by canonical index), from
/// which the epilogue classifies its mutation (`#aot.input`).
#[derive(Default, Clone, Debug)]
pub(super) struct MutCount {
    /// Every mutation reaching it, of data or metadata.
    pub(super) total: u32,
    /// Mutations of its data (writes into its elements).
    pub(super) data: u32,
    /// Those autograd does not see as the argument's: through a detached
    /// alias (not the argument itself after its own `set_`), or through
    /// another tensor onto elements the argument was `set_` onto (it is not
    /// in that tensor's autograd family).
    pub(super) hidden: u32,
    /// Those under no_grad.
    pub(super) no_grad: u32,
    /// Data mutations (and `set_`) neither hidden nor under no_grad:
    /// autograd records these, and they put the argument in the objective.
    pub(super) visible: u32,
}

/// Elements of `shape`: an expression when a size is symbolic (compare it
/// only with `==`; [`is_large`] asks whether to visit it).
pub(super) fn numel(shape: &[i64]) -> i64 {
    aot_ir::sym::numel(shape).unwrap_or(i64::MAX)
}

/// Whether `n` elements are more than `limit` (a symbolic count is).
pub(super) fn is_large(n: i64, limit: i64) -> bool {
    aot_ir::sym::is_symbolic(n) || n > limit
}

pub(super) fn strided(l: &Layout) -> Strided {
    Strided { size: l.sizes.to_vec(), stride: l.strides.to_vec(), offset: l.offset }
}

pub(super) fn has_internal_overlap(l: &Layout) -> bool {
    aot_runtime::overlap::has_internal_overlap(&l.sizes, &l.strides)
}

/// A layout's elements in order: its offset and the (size, stride) of its
/// dimensions of size > 1 (size-1 dimensions do not reorder anything).
pub(super) fn logical_order(l: &Layout) -> (i64, Vec<(i64, i64)>) {
    (l.offset, l.sizes.iter().zip(&l.strides).filter(|(&n, _)| n != 1).map(|(&n, &s)| (n, s)).collect())
}

/// A layout that may reach a storage element twice (an expand, or
/// `as_strided` with overlapping strides) has no inverse as a view: scattering
/// a value at it back would write each element once per position, stale
/// positions last. Writes through such an object, or through any view of
/// it, go to the storage through the written object's own layout.
pub(super) fn may_self_overlap(l: &Layout) -> bool {
    aot_runtime::overlap::may_reach_an_element_twice(&l.sizes, &l.strides)
}

/// The error PyTorch's `CopySlices` backward raises for a write through a
/// view whose base's layout (changed since the view was taken) no longer
/// holds it: the view's offset is taken relative to the base's, inside a
/// buffer of the base's extent.
pub(super) fn copy_slices_error(base: &Layout, view: &Layout, dtype: ElemType) -> Option<String> {
    if base.is_symbolic() || view.is_symbolic() {
        // Layouts with symbolic sizes come from view rules inside one
        // argument's own storage (`aot.layout` is refused for them).
        return None;
    }
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
    // A storage whose bytes overflow i64 holds any size that fits one.
    let have_bytes = have.checked_mul(item)?;
    (required > have_bytes).then(|| {
        format!(
            "setStorage: sizes {:?}, strides {:?}, storage offset {offset}, and itemsize {item} requiring a storage size of {required} are out of bounds for storage of size {}",
            view.sizes.as_slice(),
            view.strides.as_slice(),
            have_bytes
        )
    })
}

/// The first storage element `to` reaches that `from` does not hold
/// (layouts too large to visit are not checked: none).
pub(super) fn first_outside(from: &Layout, to: &Layout) -> Option<usize> {
    const MAX_VISITED: i64 = 1 << 20;
    if is_large(numel(&to.sizes), MAX_VISITED) || is_large(numel(&from.sizes), MAX_VISITED) {
        return None;
    }
    let held: rustc_hash::FxHashSet<usize> = indices(from).collect();
    indices(to).find(|e| !held.contains(e))
}

/// Storage indices of a layout's elements, walked without a list.
pub(super) fn indices(l: &Layout) -> aot_runtime::tensor::StridedIter<'_> {
    // A symbolic size is an expression's id, not a count: callers visit
    // static layouts only.
    debug_assert!(!l.is_symbolic(), "the elements of a symbolic layout visited");
    aot_runtime::tensor::strided_iter(&l.sizes, &l.strides, l.offset)
}

/// Do two layouts of one storage certainly share no element (AOTAutograd's test)?
pub(super) fn disjoint(a: &Layout, b: &Layout) -> bool {
    use aot_runtime::overlap::{definitely_do_not_overlap, View};
    definitely_do_not_overlap(&View::new(&a.sizes, &a.strides, a.offset), &View::new(&b.sizes, &b.strides, b.offset))
}

/// Do two layouts of one storage share an element? A bitmap over `a`'s
/// address range (one bit per storage element, bounded by the storage's
/// size, which the allocation limit bounds) instead of a set of indices.
pub(super) fn overlaps(a: &Layout, b: &Layout) -> bool {
    if a.is_symbolic() || b.is_symbolic() {
        // Only identical symbolic layouts are known to overlap (sizes are
        // never 0); others may.
        return true;
    }
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
    pub(super) fn requires_grad(&self, o: usize) -> bool {
        let x = &self.objs[o];
        x.rg || x.root.is_some_and(|r| self.objs[r].rg)
    }

    pub(super) fn is_leaf(&self, o: usize) -> bool {
        self.objs[o].leaf && self.objs[o].root.is_none()
    }

    pub(super) fn tensor_type(&mut self, o: usize) -> Type {
        let (shape, e) = (self.objs[o].layout.sizes.clone(), self.objs[o].dtype);
        self.rw.tensor_type(&shape, e)
    }

    pub(super) fn new_storage(&mut self, s: Sto) -> usize {
        self.inplace_ops.push(0);
        self.stos.push(s);
        self.stos.len() - 1
    }

    pub(super) fn new_obj(&mut self, mut o: Obj) -> usize {
        o.born = self.stos[o.sto].version;
        self.objs.push(o);
        self.objs.len() - 1
    }

    /// A fresh contiguous object owning a new storage whose base is `v`.
    pub(super) fn fresh(&mut self, v: Value) -> Result<usize, String> {
        let t = self.rw.value_tensor(v).cloned().ok_or("functionalize only handles tensors")?;
        let sto = self.new_storage(Sto {
            base: Some(v),
            flat: false,
            len: numel(&t.shape),
            dtype: t.elem,
            version: 0,
            members: Vec::new(),
            base_obj: None,
            covered: None,
            len0: numel(&t.shape),
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

    /// That layout `l` stays inside a storage of `len` elements, where
    /// either has a symbolic size: proven from the function's ranges and
    /// guards; refused where they prove it reaches past the end (as the
    /// static check); else assumed as a new guard of the function (the
    /// compiled function then refuses the sizes that break it, as eager
    /// refuses the view). An `as_strided` view of an argument is such a
    /// case: its layout is the caller's, the argument's size symbolic.
    fn check_symbolic_extent(&mut self, op: Op, l: &Layout, len: i64) -> Result<(), Diagnostic> {
        use aot_ir::sym::{self, Facts, Guard, Rel};
        let func = self.func;
        let facts = Facts::of_func(self.rw.ctx(), func).map_err(|m| self.err(op, m))?;
        // One past the last element: offset + Σ (size - 1)·stride + 1, for
        // a non-empty view (a size of 0 stays specialized, so an empty
        // view is static).
        if l.sizes.contains(&0) {
            return Ok(());
        }
        let overflow = |_| self.err(op, "a view's extent overflows 64 bits");
        let end = sym::layout_end(&l.sizes, &l.strides, l.offset).map_err(overflow)?;
        if facts.known_le(end, len) && facts.known_le(0, l.offset) {
            return Ok(());
        }
        let past = sym::add(len, 1).map_err(overflow)?;
        if facts.known_le(past, end) {
            return Err(self.err(
                op,
                format!(
                    "reaches storage element {}, outside its storage of {} elements",
                    sym::display(sym::sub(end, 1).map_err(overflow)?),
                    sym::display(len)
                ),
            ));
        }
        let guard = Guard::new(end, Rel::Le, len);
        let mut facts = facts;
        if !facts.guards.contains(&guard) {
            facts.guards.push(guard);
            facts.set_on(&mut self.rw, func);
        }
        Ok(())
    }

    /// Which storage elements the member arguments of a flat storage cover.
    pub(super) fn check_covered(&mut self, op: Op, s: usize, l: &Layout) -> Result<(), Diagnostic> {
        let len = self.stos[s].len;
        if l.is_symbolic() || aot_ir::sym::is_symbolic(len) {
            self.check_symbolic_extent(op, l, len)?;
            // A symbolic storage is an argument's or a fresh value's own
            // (`aot.layout` with symbolic sizes is taken only for a dense
            // layout, in some order of the dimensions, of a storage of the
            // argument's own), and a view rule keeps its layouts inside it;
            // an argument covers all of its storage.
            let whole = |m: &Layout| {
                m.offset == 0
                    && numel(&m.sizes) == len
                    && aot_ir::sym::dense_permutation(&m.sizes, &m.strides).is_some()
            };
            if self.stos[s].members.is_empty() || self.stos[s].members.iter().any(|(_, m, _)| whole(m)) {
                return Ok(());
            }
            return Err(self.err(op, "a shared storage with symbolic sizes is not supported yet"));
        }
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

    /// The root of `o`'s autograd family: a tensor `set_` moved is its own
    /// family, with the views taken of it since.
    pub(super) fn family(&self, o: usize) -> usize {
        self.moved_root.get(&o).copied().unwrap_or_else(|| self.objs[o].root.unwrap_or(o))
    }

    /// The version counter object `o` shares (an index into
    /// `inplace_ops`): its storage's, except for a tensor `set_` moved and
    /// its later views, which keep the counter they had (PyTorch's counter
    /// belongs to the tensor, not to its storage).
    pub(super) fn counter(&self, o: usize) -> usize {
        self.moved_counter.get(&o).copied().unwrap_or(self.objs[o].sto)
    }

    /// An in-place op on counter `s`: PyTorch's version counter moves (and
    /// that of an independent duplicate's storage, the same tensor).
    pub(super) fn bump_version(&mut self, s: usize) {
        self.inplace_ops[s] += 1;
        for t in self.linked_counters.get(&s).cloned().unwrap_or_default() {
            self.inplace_ops[t] += 1;
        }
    }
}
