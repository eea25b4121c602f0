//! The rules of `simplify`, as data: each [`Rule`] names the ops it matches
//! and states the identity it applies; its function looks at one matched
//! e-node (and the e-classes below it) and returns an equal term, which the
//! driver adds and unions with the node's class.
//!
//! The law every rule obeys (Cranelift's mid-end law, stricter): the
//! identity is **exact in IEEE arithmetic** for every input, NaNs, infinities
//! and signed zeros included, in the reference semantics of the ops (the
//! interpreter's kernels). So `x * 1 == x` is a rule and `x + 0.0 == x` is
//! not (it fails for `x = -0.0`; `x + -0.0 == x` holds and is one); a sum
//! over dimensions of size 1 is not the operand either, since a sum starts
//! from `+0.0` (PyTorch's additive identity, as ATen's reductions) and so
//! turns `-0.0` into `+0.0`; expanding a value then summing the copies back
//! is `n·x` only up to rounding, so only the exactly representable case
//! (`sum-of-splat`) exists. Rules are directional, never commute or
//! reassociate (no blow-up of the e-graph), and never look through a node
//! whose attributes carry a dialect-prefixed mark (`aot.no_grad`, a hidden
//! write, ...): such a node means more than its value.
//!
//! Every new term is type-checked by the driver: a term whose inferred type
//! differs from the matched class's type is dropped, so a rule that would
//! change a dtype (through type promotion, say) cannot apply.

use super::lang::{AttrSet, ClassData, Graph, Head, TNode};
use aot_dialects::tensor as t;
use aot_dialects::view::{self as v, Layout, ScatterInterface};
use aot_ir::size::checked_numel;
use aot_ir::*;
use egg::Id;

/// An attribute of a new op.
#[derive(Clone, Debug)]
pub enum AttrVal {
    I64(i64),
    F64(f64),
    List(Vec<i64>),
}

/// What a rule returns: a term over existing e-classes.
#[derive(Clone, Debug)]
pub enum Term {
    /// An existing e-class.
    Class(Id),
    /// A new op with the given attributes (and result type, for an op
    /// without type inference).
    Op { name: &'static str, attrs: Vec<(&'static str, AttrVal)>, ty: Option<Type>, children: Vec<Term> },
    /// An op with the head and attributes of an existing node (one with
    /// type inference), on new operands.
    Like { head: Head, attrs: AttrSet, children: Vec<Term> },
}

/// Which ops a rule matches.
pub enum Roots {
    Ops(&'static [&'static str]),
    /// Every registered op the predicate accepts.
    Where(fn(&OpDef) -> bool),
}

/// One rule.
pub struct Rule {
    /// The rule's name (statistics, `--debug` output, the docs).
    pub name: &'static str,
    /// The identity it applies, in one line.
    pub identity: &'static str,
    pub roots: Roots,
    /// The equal term for a matched node of class `id`, if the rule applies.
    pub rewrite: fn(&Cx<'_, '_>, &TNode, Id) -> Option<Term>,
}

/// Read access to the e-graph for rules.
pub struct Cx<'a, 'c> {
    pub g: &'a Graph<'c>,
}

impl<'a, 'c> Cx<'a, 'c> {
    fn data(&self, id: Id) -> &ClassData {
        &self.g[id].data
    }

    /// The tensor type of a value class.
    pub fn tensor(&self, id: Id) -> Option<&TensorType> {
        self.g.analysis.tensor(self.data(id).ty()?)
    }

    fn shape(&self, id: Id) -> Option<&[i64]> {
        self.tensor(id).map(|t| &t.shape[..])
    }

    /// The op name of a node, if it is an unmarked op node.
    pub fn clean_op(&self, n: &TNode) -> Option<&'static str> {
        let def = self.g.analysis.def(n)?;
        (!self.g.analysis.is_marked(n.attrs)).then_some(def.name)
    }

    fn def(&self, n: &TNode) -> Option<&'static OpDef> {
        self.clean_op(n)?;
        self.g.analysis.def(n)
    }

    /// The unmarked nodes of class `id` that are op `name`.
    fn nodes(&self, id: Id, name: &'static str) -> impl Iterator<Item = &TNode> + use<'_, 'a, 'c> {
        self.g[id].nodes.iter().filter(move |n| self.clean_op(n) == Some(name))
    }

    /// The value every element of class `id` has, if known.
    fn splat(&self, id: Id) -> Option<f64> {
        self.data(id).splat.map(f64::from_bits)
    }

    fn same(&self, a: Id, b: Id) -> bool {
        self.g.find(a) == self.g.find(b)
    }

    /// The layout of a single-result view node over `input`.
    fn layout(&self, n: &TNode, input: &Layout) -> Option<Layout> {
        let def = self.def(n)?;
        let vi = v::view_interface(def.name)?;
        let mut out = (vi.layout)(&self.g.analysis.view(n.attrs), input).ok()?;
        (out.len() == 1).then(|| out.remove(0))
    }

    /// `x` (class `x`, of the given shape) viewed to `shape` by expanding,
    /// or `x` itself when the shapes agree; `None` when the element types
    /// differ or `x` does not broadcast to `shape`.
    fn broadcast_to(&self, x: Id, result: Id) -> Option<Term> {
        let (tx, tr) = (self.tensor(x)?, self.tensor(result)?);
        if tx.elem != tr.elem {
            return None;
        }
        if tx.shape == tr.shape {
            return Some(Term::Class(x));
        }
        aot_dialects::shape::broadcasts_to(&tx.shape, &tr.shape).then(|| expand(Term::Class(x), &tr.shape))
    }
}

fn expand(x: Term, shape: &[i64]) -> Term {
    Term::Op {
        name: v::ExpandOp::NAME,
        attrs: vec![("shape", AttrVal::List(shape.to_vec()))],
        ty: None,
        children: vec![x],
    }
}

fn reshape(x: Term, shape: &[i64]) -> Term {
    Term::Op {
        name: v::ReshapeOp::NAME,
        attrs: vec![("shape", AttrVal::List(shape.to_vec()))],
        ty: None,
        children: vec![x],
    }
}

// ----- layouts -----

/// Whether two layouts read the same positions in the same order (strides
/// of size-1 dims do not matter, nor anything of an empty layout).
fn same_positions(a: &Layout, b: &Layout) -> bool {
    if a.sizes != b.sizes {
        return false;
    }
    if a.sizes.contains(&0) {
        return true;
    }
    a.offset == b.offset && a.sizes.iter().zip(a.strides.iter().zip(&b.strides)).all(|(&n, (s, t))| n == 1 || s == t)
}

/// Whether two shapes have as many elements (symbolic counts by their
/// forms); `None` when a count overflows.
fn same_count(a: &[i64], b: &[i64]) -> Option<bool> {
    if aot_ir::sym::is_static(a) && aot_ir::sym::is_static(b) {
        return Some(checked_numel(a)? == checked_numel(b)?);
    }
    Some(aot_ir::sym::numel(a).ok()? == aot_ir::sym::numel(b).ok()?)
}

/// The single view of a value of shape `shape` (class `x`) with layout `l`
/// over its contiguous layout, in the simplest form that exists: `x`
/// itself, a reshape, a transpose or permute, one slice, or an expand.
fn single_view(x: Id, shape: &[i64], l: &Layout) -> Option<Term> {
    let base = Layout::contiguous(shape);
    if same_positions(l, &base) {
        return Some(Term::Class(x));
    }
    if same_count(&l.sizes, shape)? && same_positions(l, &Layout::contiguous(&l.sizes)) {
        return Some(reshape(Term::Class(x), &l.sizes));
    }
    if l.sizes.contains(&0) {
        return None;
    }
    permutation(shape, &base, l)
        .map(|p| {
            let moved: Vec<usize> = (0..p.len()).filter(|&i| p[i] != i).collect();
            match moved[..] {
                [a, b] => Term::Op {
                    name: v::TransposeOp::NAME,
                    attrs: vec![("dim0", AttrVal::I64(a as i64)), ("dim1", AttrVal::I64(b as i64))],
                    ty: None,
                    children: vec![Term::Class(x)],
                },
                _ => Term::Op {
                    name: v::PermuteOp::NAME,
                    attrs: vec![("dims", AttrVal::List(p.iter().map(|&d| d as i64).collect()))],
                    ty: None,
                    children: vec![Term::Class(x)],
                },
            }
        })
        .or_else(|| one_slice(x, shape, &base, l))
        .or_else(|| expansion(shape, &base, l).then(|| expand(Term::Class(x), &l.sizes)))
}

/// `p` with `l` = the dims of `base` in the order `p`, if there is one.
fn permutation(shape: &[i64], base: &Layout, l: &Layout) -> Option<Vec<usize>> {
    if l.sizes.len() != shape.len() || l.offset != 0 {
        return None;
    }
    let mut used = vec![false; shape.len()];
    let mut p = Vec::with_capacity(shape.len());
    for (i, &n) in l.sizes.iter().enumerate() {
        let j = (0..shape.len()).find(|&j| !used[j] && shape[j] == n && (n == 1 || base.strides[j] == l.strides[i]))?;
        used[j] = true;
        p.push(j);
    }
    Some(p)
}

/// `slice(x, d, s, e, k)` when `l` is one.
fn one_slice(x: Id, shape: &[i64], base: &Layout, l: &Layout) -> Option<Term> {
    if l.sizes.len() != shape.len() {
        return None;
    }
    let differs: Vec<usize> = (0..shape.len())
        .filter(|&i| l.sizes[i] != shape[i] || (shape[i] != 1 && l.strides[i] != base.strides[i]))
        .collect();
    let [d] = differs[..] else { return None };
    let (cs, n) = (base.strides[d], l.sizes[d]);
    if cs <= 0 || l.offset % cs != 0 {
        return None;
    }
    let start = l.offset / cs;
    let step = if n == 1 { 1 } else { l.strides[d].checked_div(cs).filter(|k| k * cs == l.strides[d])? };
    let last = start.checked_add((n - 1).checked_mul(step)?)?;
    if step < 1 || start < 0 || last >= shape[d] {
        return None;
    }
    Some(Term::Op {
        name: v::SliceOp::NAME,
        attrs: vec![
            ("dim", AttrVal::I64(d as i64)),
            ("start", AttrVal::I64(start)),
            ("end", AttrVal::I64(last + 1)),
            ("step", AttrVal::I64(step)),
        ],
        ty: None,
        children: vec![Term::Class(x)],
    })
}

/// Whether `l` is `base` broadcast to `l.sizes` (PyTorch's expand).
fn expansion(shape: &[i64], base: &Layout, l: &Layout) -> bool {
    let (r, n) = (shape.len(), l.sizes.len());
    if n < r || l.offset != 0 {
        return false;
    }
    (0..n).all(|i| {
        let size = l.sizes[i];
        match i.checked_sub(n - r) {
            None => size == 1 || l.strides[i] == 0,
            Some(j) if shape[j] == size => size == 1 || l.strides[i] == base.strides[j],
            Some(j) => shape[j] == 1 && l.strides[i] == 0,
        }
    })
}

// ----- the rules -----

/// Single-result views whose layout rule reads the operand's layout.
/// `as_strided` is left out (its layout is absolute, not relative to the
/// operand's), and so are `detach` (it stops gradients) and multi-result
/// views.
const COMPOSABLE: &[&str] = &[
    v::ViewOp::NAME,
    v::ReshapeOp::NAME,
    v::PermuteOp::NAME,
    v::TransposeOp::NAME,
    v::TOp::NAME,
    v::ExpandOp::NAME,
    v::SliceOp::NAME,
    v::SelectOp::NAME,
    v::SqueezeOp::NAME,
    v::UnsqueezeOp::NAME,
    v::DiagonalOp::NAME,
    v::AliasOp::NAME,
];

const SCATTERS: &[&str] =
    &[v::SliceScatterOp::NAME, v::SelectScatterOp::NAME, v::DiagonalScatterOp::NAME, v::AsStridedScatterOp::NAME];

const SCATTER_VIEWS: &[&str] = &[v::SliceOp::NAME, v::SelectOp::NAME, v::DiagonalOp::NAME, v::AsStridedOp::NAME];

fn is_composable(name: &str) -> bool {
    COMPOSABLE.contains(&name)
}

/// `v(x) == x` when `v` reads every element of `x` in order.
fn identity_view(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let x = n.children[0];
    // Cheap first: only a view to the operand's own type can be the operand.
    if cx.data(x).ty() != cx.data(id).ty() {
        return None;
    }
    let shape = cx.shape(x)?;
    let l = cx.layout(n, &Layout::contiguous(shape))?;
    (l.sizes[..] == *shape && same_positions(&l, &Layout::contiguous(shape))).then_some(Term::Class(x))
}

/// `v1(v2(x)) == v(x)`, `v` the single view with the composed layout.
fn compose_views(cx: &Cx<'_, '_>, n: &TNode, _: Id) -> Option<Term> {
    cx.g[n.children[0]].nodes.iter().filter(|m| cx.clean_op(m).is_some_and(is_composable)).find_map(|inner| {
        let x = inner.children[0];
        let shape = cx.shape(x)?;
        let l = cx.layout(n, &cx.layout(inner, &Layout::contiguous(shape))?)?;
        single_view(x, shape, &l)
    })
}

/// The scatter interface of a node, if it is an unmarked scatter.
fn scatter_of(cx: &Cx<'_, '_>, n: &TNode) -> Option<&'static ScatterInterface> {
    cx.def(n)?.interface::<ScatterInterface>()
}

/// `scatter(b, view(b, A), A) == b`: writing back an unchanged region.
fn scatter_of_own_view(cx: &Cx<'_, '_>, n: &TNode, _: Id) -> Option<Term> {
    let si = scatter_of(cx, n)?;
    let (b, src) = (n.children[0], n.children[1]);
    cx.nodes(src, si.view.name()).any(|m| m.attrs == n.attrs && cx.same(m.children[0], b)).then_some(Term::Class(b))
}

/// `view(scatter(b, s, A), A) == s`: reading back what was just written,
/// unless the region reaches an element twice (then each element holds
/// its last write, not `s`).
fn view_of_scatter(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let name = cx.clean_op(n)?;
    cx.g[n.children[0]].nodes.iter().find_map(|m| {
        let si = scatter_of(cx, m)?;
        if si.view.name() != name || m.attrs != n.attrs {
            return None;
        }
        if name == v::AsStridedOp::NAME {
            let a = cx.g.analysis.view(n.attrs);
            if aot_runtime::overlap::may_reach_an_element_twice(&a.list("size")?, &a.list("stride")?) {
                return None;
            }
        }
        let s = m.children[1];
        (cx.data(s).ty() == cx.data(id).ty()).then_some(Term::Class(s))
    })
}

/// `scatter(scatter(b, s1, A), s2, A) == scatter(b, s2, A)`: the second
/// write covers the first.
fn scatter_over_scatter(cx: &Cx<'_, '_>, n: &TNode, _: Id) -> Option<Term> {
    let name = cx.clean_op(n)?;
    scatter_of(cx, n)?;
    let inner = cx.nodes(n.children[0], name).find(|m| m.attrs == n.attrs)?;
    Some(Term::Like {
        head: n.head,
        attrs: n.attrs,
        children: vec![Term::Class(inner.children[0]), Term::Class(n.children[1])],
    })
}

/// `scatter(b, s, A) == s` when `A` is all of `b`, in order.
fn whole_scatter(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let si = scatter_of(cx, n)?;
    let (b, s) = (n.children[0], n.children[1]);
    let shape = cx.shape(b)?;
    let base = Layout::contiguous(shape);
    let l = (si.layout)(&cx.g.analysis.view(n.attrs), &base).ok()?.into_iter().next()?;
    (same_positions(&l, &base) && cx.data(s).ty() == cx.data(id).ty()).then_some(Term::Class(s))
}

/// `x * 1 == x` and `1 * x == x` (broadcast to the product's shape).
fn mul_by_one(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    [(0, 1), (1, 0)]
        .into_iter()
        .find_map(|(i, j)| (cx.splat(n.children[j]) == Some(1.0)).then(|| cx.broadcast_to(n.children[i], id)).flatten())
}

/// `x / 1 == x`.
fn div_by_one(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    (cx.splat(n.children[1]) == Some(1.0)).then(|| cx.broadcast_to(n.children[0], id)).flatten()
}

/// Whether class `c` is the identity of addition in `elem`: `-0.0` for
/// floats (`+0.0 + -0.0` is `+0.0`, `-0.0 + -0.0` is `-0.0`), `0` for
/// integers.
fn additive_identity(cx: &Cx<'_, '_>, c: Id, elem: ElemType, negated: bool) -> bool {
    let Some(z) = cx.splat(c) else { return false };
    if !elem.is_float() {
        return z == 0.0;
    }
    // x - (+0.0) == x + (-0.0).
    let z = if negated { -z } else { z };
    z == 0.0 && z.is_sign_negative()
}

/// `x + -0.0 == x`, `-0.0 + x == x`, `x - +0.0 == x` (for integers, any zero).
fn add_zero(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let elem = cx.tensor(id)?.elem;
    let sub = cx.clean_op(n)? == t::SubOp::NAME;
    let pairs: &[(usize, usize)] = if sub { &[(0, 1)] } else { &[(0, 1), (1, 0)] };
    pairs.iter().find_map(|&(i, j)| {
        additive_identity(cx, n.children[j], elem, sub).then(|| cx.broadcast_to(n.children[i], id)).flatten()
    })
}

/// `where(c, x, x) == x`.
fn where_same(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    cx.same(n.children[1], n.children[2]).then(|| cx.broadcast_to(n.children[1], id)).flatten()
}

/// `where(true, a, b) == a`, `where(false, a, b) == b`.
fn where_known_condition(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let c = cx.splat(n.children[0])?;
    if c.is_nan() {
        return None;
    }
    cx.broadcast_to(n.children[if c != 0.0 { 1 } else { 2 }], id)
}

/// `-(-x) == x`.
fn neg_neg(cx: &Cx<'_, '_>, n: &TNode, _: Id) -> Option<Term> {
    cx.nodes(n.children[0], t::NegOp::NAME).next().map(|m| Term::Class(m.children[0]))
}

/// `cast(x) == x` when `x` already has the result type.
fn cast_same(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    (cx.data(n.children[0]).ty() == cx.data(id).ty()).then_some(Term::Class(n.children[0]))
}

/// `f(expand(x), y) == expand(f(x, y))` for elementwise `f` when `y`
/// broadcasts to `x`'s shape: each element is computed from the same
/// operand elements, once instead of once per copy.
fn hoist_broadcast(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    if n.ty.is_some() {
        return None;
    }
    // Cheap first: most elementwise ops read no broadcast.
    if !n.children.iter().any(|&c| cx.nodes(c, v::ExpandOp::NAME).next().is_some()) {
        return None;
    }
    let result = cx.shape(id)?;
    let mut expanded = false;
    let mut shape: Vec<i64> = Vec::new();
    let mut children = Vec::with_capacity(n.children.len());
    for &c in &n.children {
        let operand = match cx.nodes(c, v::ExpandOp::NAME).next() {
            Some(e) => {
                expanded = true;
                e.children[0]
            }
            None => c,
        };
        shape = aot_dialects::shape::broadcast(&shape, cx.shape(operand)?).ok()?.to_vec();
        children.push(Term::Class(operand));
    }
    if !expanded {
        return None;
    }
    if aot_ir::sym::is_static(&shape) && aot_ir::sym::is_static(result) {
        if checked_numel(&shape)? >= checked_numel(result)? {
            return None;
        }
    } else if same_count(&shape, result)? {
        // A broadcast only grows sizes of 1, so a symbolic count that
        // differs is larger.
        return None;
    }
    Some(expand(Term::Like { head: n.head, attrs: n.attrs, children }, result))
}

fn elementwise(def: &OpDef) -> bool {
    def.has(Traits::PURE) && def.has(Traits::ELEMENTWISE) && !def.has(Traits::RANDOM)
}

/// `amax(x)`/`amin(x)` over dims of size 1 is `x` reshaped: the extremum
/// of one element is that element (NaN and signed zeros included).
fn extremum_of_one(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let (tx, tr) = (cx.tensor(n.children[0])?, cx.tensor(id)?);
    let count = aot_ir::sym::numel(&tx.shape).ok()?;
    if !same_count(&tx.shape, &tr.shape)? || count == 0 || tx.elem != tr.elem {
        return None;
    }
    Some(if tx.shape == tr.shape { Term::Class(n.children[0]) } else { reshape(Term::Class(n.children[0]), &tr.shape) })
}

/// Significand bits (implicit bit included) of a float type.
fn precision(e: ElemType) -> Option<u32> {
    match e {
        ElemType::F64 => Some(53),
        ElemType::F32 => Some(24),
        ElemType::F16 => Some(11),
        ElemType::BF16 => Some(8),
        _ => None,
    }
}

/// The exact sum of `n` copies of `v` in `elem`, when every partial sum
/// `k·v` (k ≤ n) is representable, so that any order of summation gives
/// it; sums start from `+0.0`, so a zero sums to `+0.0`.
fn exact_multiple(v: f64, n: i64, elem: ElemType) -> Option<f64> {
    if n == 0 || v == 0.0 {
        return Some(0.0);
    }
    if !v.is_finite() {
        return Some(v);
    }
    let Some(p) = precision(elem) else {
        // Integers (and bools, summed as integers): exact while the total
        // fits the attribute's f64 exactly.
        let total = (v as i64).checked_mul(n)?;
        return (total.unsigned_abs() <= 1 << 53).then_some(total as f64);
    };
    // v = m·2^e with m odd: k·v is exact in p bits while k·|m| < 2^p.
    let bits = v.abs().to_bits();
    let mantissa = (bits & ((1 << 52) - 1)) | if bits >> 52 == 0 { 0 } else { 1 << 52 };
    let odd = mantissa >> mantissa.trailing_zeros();
    let span = u128::from(odd).checked_mul(u128::try_from(n).ok()?)?;
    (span < 1u128 << p).then(|| aot_runtime::buffer::round_to(elem, v * n as f64))
}

/// `sum(x) == n·v` and `mean(x) == v` when every element of `x` is `v`
/// and the sum is exact (see [`exact_multiple`]): the broadcast of a
/// constant tangent, reduced back.
fn reduce_splat(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let v = cx.splat(n.children[0])?;
    let (tx, tr) = (cx.tensor(n.children[0])?, cx.tensor(id)?);
    if !tr.elem.is_float() && tx.elem != tr.elem {
        return None;
    }
    // The count must be a constant: `sum` of a `s0x4` splat to `s0` is 4
    // times the value; to `4` it is `s0` times, not a constant (and
    // `numel()` would read the symbolic size as 0).
    let (nx, nr) = (aot_ir::sym::numel(&tx.shape).ok()?, aot_ir::sym::numel(&tr.shape).ok()?);
    if nr == 0 {
        return None;
    }
    let count = aot_ir::sym::exact_div(nx, nr).filter(|c| !aot_ir::sym::is_symbolic(*c))?;
    let sum = exact_multiple(v, count, tr.elem)?;
    let value = if cx.clean_op(n)? == t::MeanOp::NAME {
        if count == 0 {
            return None;
        }
        sum / count as f64
    } else {
        sum
    };
    if !value.is_finite() && v.is_finite() {
        return None;
    }
    Some(Term::Op {
        name: t::FullOp::NAME,
        attrs: vec![("value", AttrVal::F64(value))],
        ty: cx.data(id).ty(),
        children: vec![],
    })
}

/// `f(a, b) == f(b, a)` for a commutative `f`, where `f(b, a)` is in the
/// e-graph: common subexpressions written in either operand order merge.
/// Only an existing node is looked up (no swapped copy of every product is
/// added: no growth at all).
fn commute(cx: &Cx<'_, '_>, n: &TNode, id: Id) -> Option<Term> {
    let [a, b] = n.children[..] else { return None };
    let swapped = TNode { head: n.head, attrs: n.attrs, ty: n.ty, children: [b, a].into_iter().collect() };
    let other = cx.g.lookup(swapped)?;
    (other != cx.g.find(id)).then_some(Term::Class(other))
}

fn commutative(def: &OpDef) -> bool {
    def.has(Traits::COMMUTATIVE) && def.has(Traits::PURE)
}

/// The rule list, in the order the runner tries them.
pub static RULES: &[Rule] = &[
    Rule {
        name: "commute",
        identity: "f(a, b) == f(b, a) for commutative f, when f(b, a) is in the e-graph (common subexpressions merge in either operand order)",
        roots: Roots::Where(commutative),
        rewrite: commute,
    },
    Rule {
        name: "identity-view",
        identity: "v(x) == x when v reads every element of x in order (alias, same-shape reshape/view/expand, identity permute, full slice, transpose(d, d), ...)",
        roots: Roots::Ops(COMPOSABLE),
        rewrite: identity_view,
    },
    Rule {
        name: "compose-views",
        identity: "v1(v2(x)) == v(x), v the one reshape, transpose/permute, slice or expand with the composed layout (transpose∘transpose, permute∘permute, reshape chains, slice of slice, select of unsqueeze, squeeze∘unsqueeze, expand∘expand)",
        roots: Roots::Ops(COMPOSABLE),
        rewrite: compose_views,
    },
    Rule {
        name: "scatter-of-own-view",
        identity: "scatter(b, view(b, A), A) == b",
        roots: Roots::Ops(SCATTERS),
        rewrite: scatter_of_own_view,
    },
    Rule {
        name: "view-of-scatter",
        identity: "view(scatter(b, s, A), A) == s (A reaching no element twice)",
        roots: Roots::Ops(SCATTER_VIEWS),
        rewrite: view_of_scatter,
    },
    Rule {
        name: "scatter-over-scatter",
        identity: "scatter(scatter(b, s1, A), s2, A) == scatter(b, s2, A)",
        roots: Roots::Ops(SCATTERS),
        rewrite: scatter_over_scatter,
    },
    Rule {
        name: "whole-scatter",
        identity: "scatter(b, s, A) == s when A covers b in order",
        roots: Roots::Ops(SCATTERS),
        rewrite: whole_scatter,
    },
    Rule {
        name: "mul-by-one",
        identity: "x * 1 == 1 * x == x (broadcast to the product's shape)",
        roots: Roots::Ops(&[t::MulOp::NAME]),
        rewrite: mul_by_one,
    },
    Rule { name: "div-by-one", identity: "x / 1 == x", roots: Roots::Ops(&[t::DivOp::NAME]), rewrite: div_by_one },
    Rule {
        name: "add-zero",
        identity: "x + -0.0 == -0.0 + x == x - +0.0 == x (any zero for integers; not x + +0.0: -0.0 + +0.0 is +0.0)",
        roots: Roots::Ops(&[t::AddOp::NAME, t::SubOp::NAME]),
        rewrite: add_zero,
    },
    Rule { name: "where-same", identity: "where(c, x, x) == x", roots: Roots::Ops(&[t::WhereOp::NAME]), rewrite: where_same },
    Rule {
        name: "where-known-condition",
        identity: "where(true, a, b) == a, where(false, a, b) == b",
        roots: Roots::Ops(&[t::WhereOp::NAME]),
        rewrite: where_known_condition,
    },
    Rule { name: "neg-neg", identity: "-(-x) == x", roots: Roots::Ops(&[t::NegOp::NAME]), rewrite: neg_neg },
    Rule {
        name: "cast-same",
        identity: "cast(x) == x when x has the result type",
        roots: Roots::Ops(&[t::CastOp::NAME]),
        rewrite: cast_same,
    },
    Rule {
        name: "hoist-broadcast",
        identity: "f(expand(x), y) == expand(f(x, y)) for elementwise f when y broadcasts to x's shape",
        roots: Roots::Where(elementwise),
        rewrite: hoist_broadcast,
    },
    Rule {
        name: "extremum-of-one",
        identity: "amax(x, D) == amin(x, D) == x (reshaped) when every dim in D has size 1",
        roots: Roots::Ops(&[t::AmaxOp::NAME, t::AminOp::NAME]),
        rewrite: extremum_of_one,
    },
    Rule {
        name: "reduce-splat",
        identity: "sum(splat v) == n·v and mean(splat v) == v when every partial sum k·v is exact",
        roots: Roots::Ops(&[t::SumOp::NAME, t::MeanOp::NAME]),
        rewrite: reduce_splat,
    },
];
