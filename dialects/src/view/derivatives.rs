//! Derivative rules of the `view` dialect (in value semantics, where views
//! and scatters are pure functions of their operands).
//!
//! A view's gradient is its inverse applied to the cotangent over a zero
//! base (`build_inverse`): scatters for slice/select/diagonal/as_strided,
//! reshape for view-like ops, the inverse permutation, the view itself for
//! transposes. `expand` sums back (its elements share memory); `unbind` and
//! `split` scatter each result's cotangent into its place; an `as_strided`
//! whose elements overlap accumulates with `index_put`. A scatter's base gets
//! the cotangent with the region zeroed and its source the region — except
//! a scatter marked `aot.hidden_write`, a write autograd never saw: its base
//! gets the whole cotangent and its source none; one marked `aot.split_grad`
//! divides its source's cotangent among positions holding one element.

use super::{build_inverse, view_interface, view_of_scatter, Inverse, SPLIT_GRAD};
use crate::autodiff::{Grads, VjpCtx};
use aot_ir::*;

type R = Result<Grads, Diagnostic>;

fn core_attrs(c: &VjpCtx<'_, '_>) -> Vec<NamedAttr> {
    super::folds::core_attrs(c.rw, c.op)
}

/// Does an `as_strided` with these attributes reach one element twice?
/// Over symbolic sizes, whether it may for some value of the symbols (the
/// exact answer visits every index, which a symbolic size has none of).
fn as_strided_overlaps(c: &VjpCtx<'_, '_>) -> bool {
    let a = c.attrs();
    let (size, stride) = (a.list("size").unwrap_or_default(), a.list("stride").unwrap_or_default());
    let offset = a.i64("offset").unwrap_or(0);
    if !aot_ir::sym::layout_is_static(&size, &stride, offset) {
        return aot_runtime::overlap::may_reach_an_element_twice(&size, &stride);
    }
    aot_runtime::overlap::reaches_an_element_twice(&size, &stride, offset)
}

pub fn view(c: &mut VjpCtx<'_, '_>) -> R {
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let name = c.rw.op_name(c.op).to_string();
    let vi = view_interface(&name).ok_or_else(|| c.err("not a view op"))?;
    let x = c.x(0);
    let xs = c.shape(x)?;
    let attrs = core_attrs(c);
    // Multi-result views: each result's cotangent into its place.
    if let Some(single) = vi.single_result {
        let mut acc = c.zeros_like(x)?;
        for k in 0..c.results.len() {
            let Some(g) = c.grads[k] else { continue };
            let (step, ints) = single(&c.attrs(), k, &xs).map_err(|m| c.err(m))?;
            let mut a: Vec<NamedAttr> =
                ints.into_iter().map(|(n, v)| NamedAttr { name: c.rw.sym(n), value: c.rw.i64_attr(v) }).collect();
            c.rw.sort_named_attrs(&mut a);
            acc = build_inverse(c.rw, step.name(), &a, acc, g)?;
        }
        return Ok(c.grads([Some(acc)]));
    }
    let g = c.g()?;
    let r = match vi.inverse {
        Inverse::ReadOnly => c.sum_to(g, &xs)?,
        Inverse::Scatter(_) if c.rw.isa::<super::AsStridedOp>(c.op) && as_strided_overlaps(c) => {
            // Elements reached twice accumulate: index_put over the flat value.
            let a = c.attrs();
            let (size, stride) = (a.list("size").unwrap_or_default(), a.list("stride").unwrap_or_default());
            let offset = a.i64("offset").unwrap_or(0);
            if !aot_ir::sym::layout_is_static(&size, &stride, offset) || !aot_ir::sym::is_static(&xs) {
                return Err(c.err(
                    "the gradient of an as_strided with symbolic sizes that may reach an element twice is not \
                     supported yet (its positions are listed per element)",
                ));
            }
            let idx = aot_runtime::tensor::strided_indices(&size, &stride, offset);
            let n = idx.len() as i64;
            let it = c.rw.tensor_type(&[n], ElemType::I64);
            let data = DenseData::Ints(idx.into_iter().map(|i| i as i64).collect());
            let dense = c.rw.dense_attr(it, data);
            let index = c.rw.build_typed1("tensor.constant", &[], &[("value", dense)], it);
            let numel: i64 = xs.iter().product();
            let e = c.elem(x)?;
            let zeros = c.full(&[numel], e, 0.0);
            let flat = c.reshape(g, &[n])?;
            let acc = c.rw.unit_attr();
            let sum = c.op1("tensor.index_put", &[zeros, index, flat], &[("accumulate", acc)])?;
            c.reshape(sum, &xs)?
        }
        Inverse::Scatter(_) => {
            let z = c.zeros_like(x)?;
            build_inverse(c.rw, &name, &attrs, z, g)?
        }
        _ => build_inverse(c.rw, &name, &attrs, x, g)?,
    };
    Ok(c.grads([Some(r)]))
}

pub fn scatter(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    let src = c.x(1);
    if c.rw.has_attr(c.op, super::HIDDEN_WRITE) {
        return Ok(c.grads([c.need(0).then_some(g), None]));
    }
    let name = c.rw.op_name(c.op).to_string();
    let attrs = core_attrs(c);
    let gb = if c.need(0) {
        let z = c.zeros_like(src)?;
        Some(c.rw.build_named1(&name, &[g, z], &attrs)?)
    } else {
        None
    };
    let gs = if c.need(1) {
        let view = view_of_scatter(&name).ok_or_else(|| c.err("a scatter without its view"))?;
        let gs = view.build_named1(c.rw, &[g], &attrs)?;
        if c.rw.has_attr(c.op, SPLIT_GRAD) {
            let count = position_counts(c, src)?;
            Some(c.op1("tensor.div", &[gs, count], &[])?)
        } else {
            Some(gs)
        }
    } else {
        None
    };
    Ok(c.grads([gb, gs]))
}

/// For each position of an `as_strided_scatter`'s source, how many
/// positions hold the same storage element: a constant of the source's
/// shape and type.
fn position_counts(c: &mut VjpCtx<'_, '_>, src: Value) -> Result<Value, Diagnostic> {
    const MAX_COUNTED: usize = 1 << 24;
    let a = c.attrs();
    let (size, stride) = (a.list("size").unwrap_or_default(), a.list("stride").unwrap_or_default());
    let offset = a.i64("offset").unwrap_or(0);
    if !aot_ir::sym::layout_is_static(&size, &stride, offset) {
        return Err(c.err(
            "the gradient of an argument with symbolic sizes that overlaps itself is not supported yet \
             (its positions are counted per element)",
        ));
    }
    let idx = aot_runtime::tensor::strided_indices(&size, &stride, offset);
    if idx.len() > MAX_COUNTED {
        return Err(c.err(format!(
            "unsupported operation: the gradient of an argument of {} elements that overlaps itself",
            idx.len()
        )));
    }
    let mut hist: rustc_hash::FxHashMap<usize, u32> = rustc_hash::FxHashMap::default();
    for &i in &idx {
        *hist.entry(i).or_default() += 1;
    }
    let counts: Vec<u64> = idx.iter().map(|i| f64::from(hist[i]).to_bits()).collect();
    let (shape, elem) = (c.shape(src)?, c.elem(src)?);
    let ty = c.rw.tensor_type(&shape, elem);
    let dense = c.rw.dense_attr(ty, DenseData::Floats(counts));
    Ok(c.rw.build_typed1("tensor.constant", &[], &[("value", dense)], ty))
}

/// Adds cotangent `g` to the cotangent accumulated so far, `prev`, without
/// materializing a zero tensor per contribution when one of them is a
/// scatter into zeros (what a view's derivative gives): `prev +
/// scatter(0, s, A)` is `scatter(prev, view(prev, A) + s, A)`, the same
/// sums (up to the sign of a zero outside the region, where `prev + 0`
/// would turn `-0.0` into `0.0`) at the cost of the region alone, and the
/// scatter can write into `prev`'s buffer when nothing reads it later.
/// Overlapping windows (the slices of a convolution's input, unfold)
/// accumulate this way. `None` when neither operand has that form; the
/// caller adds.
pub fn accumulate(rw: &mut Rewriter<'_>, prev: Value, g: Value) -> Result<Option<Value>, Diagnostic> {
    if rw.value_type(prev) != rw.value_type(g) {
        return Ok(None);
    }
    for (acc, contribution) in [(prev, g), (g, prev)] {
        let Some(op) = rw.defining_op(contribution) else { continue };
        let Some(view) = super::folds::visible_scatter(rw, op) else { continue };
        if super::folds::region_may_self_overlap(rw, op) {
            continue;
        }
        let zero_base = rw
            .defining_op(rw.operand(op, 0))
            .is_some_and(|b| rw.isa::<crate::tensor::FullOp>(b) && AttrView::of_op(rw, b).f64("value") == Some(0.0));
        if !zero_base {
            continue;
        }
        let attrs = super::folds::core_attrs(rw, op);
        let name = rw.op_name(op).to_string();
        let src = rw.operand(op, 1);
        if let Some(mut chain) = zero_chain(rw, acc, op) {
            // Nothing reached this region yet: the contribution is its
            // value, as eager's `stack`/`cat` backward of an unbind or a
            // split gives it (`0 + s` would turn a `-0.0` into `0.0`),
            // with no read of the zeros and no add. When the pieces now
            // cover the dimension, they are its concatenation: no zeros
            // at all.
            if let Some(cat) = concatenation(rw, &mut chain)? {
                return Ok(Some(cat));
            }
            return rw.build_named1(&name, &[acc, src], &attrs).map(Some);
        }
        let region = view.build_named1(rw, &[acc], &attrs)?;
        let sum = crate::tensor::AddOp::build1(rw, &[region, src], &[])?;
        return rw.build_named1(&name, &[acc, sum], &attrs).map(Some);
    }
    Ok(None)
}

/// The elements `[lo, hi)` of dimension `dim` that the select or unit-step
/// slice scatter `op` writes, of a base whose shape is `shape`; `None` for
/// other scatters or where an index is symbolic.
fn scattered_range(rw: &Rewriter<'_>, op: Op, shape: &[i64]) -> Option<(usize, i64, i64)> {
    let av = AttrView::of_op(rw, op);
    let dim = av.i64("dim")?;
    let d = usize::try_from(if dim < 0 { dim + shape.len() as i64 } else { dim }).ok()?;
    let n = *shape.get(d)?;
    if aot_ir::sym::is_symbolic(n) {
        return None;
    }
    let norm = |i: i64| if i < 0 { i + n } else { i };
    if rw.isa::<super::SelectScatterOp>(op) {
        let i = norm(av.i64("index")?);
        return (0..n).contains(&i).then_some((d, i, i + 1));
    }
    if rw.isa::<super::SliceScatterOp>(op) && av.i64("step").unwrap_or(1) == 1 {
        let lo = norm(av.i64("start").unwrap_or(0)).clamp(0, n);
        let hi = norm(av.i64("end").unwrap_or(n)).clamp(0, n);
        return Some((d, lo, hi));
    }
    None
}

/// Scatters over zeros along one dimension of `extent` elements: each
/// piece the range `[lo, hi)` its scatter `op` writes.
struct Chain {
    dim: usize,
    extent: i64,
    pieces: Vec<(i64, i64, Op)>,
}

/// The chain of `acc`'s scatters and `op`'s when the region scatter `op`
/// writes is still zeros in `acc`: `acc` is a chain of select or slice
/// scatters over a `full 0`, each writing a range of the same dimension
/// disjoint from `op`'s (the gradients of an unbind's or a split's
/// pieces, gathered back one by one). `None` otherwise.
fn zero_chain(rw: &Rewriter<'_>, acc: Value, op: Op) -> Option<Chain> {
    let shape = rw.value_tensor(acc).map(|t| t.shape.to_vec())?;
    let (dim, lo, hi) = scattered_range(rw, op, &shape)?;
    let mut chain = Chain { dim, extent: shape[dim], pieces: vec![(lo, hi, op)] };
    let mut cur = acc;
    // (Bounded: a chain is as long as the pieces gathered so far.)
    loop {
        let d = rw.defining_op(cur)?;
        if rw.isa::<crate::tensor::FullOp>(d) {
            return (AttrView::of_op(rw, d).f64("value") == Some(0.0)).then_some(chain);
        }
        super::folds::visible_scatter(rw, d)?;
        match scattered_range(rw, d, &shape) {
            Some((d2, lo2, hi2)) if d2 == dim && (hi2 <= lo || hi <= lo2) => {
                chain.pieces.push((lo2, hi2, d));
                cur = rw.operand(d, 0);
            }
            _ => return None,
        }
    }
}

/// The concatenation of `chain`'s pieces along its dimension, each
/// piece's scattered value (a selected one unsqueezed back), when they
/// cover the dimension; `None` when they do not, or when one piece is the
/// whole (a scatter of the whole is its value already).
fn concatenation(rw: &mut Rewriter<'_>, chain: &mut Chain) -> Result<Option<Value>, Diagnostic> {
    chain.pieces.sort_by_key(|p| p.0);
    let mut at = 0;
    for &(lo, hi, _) in &chain.pieces {
        if lo != at {
            return Ok(None);
        }
        at = hi;
    }
    if at != chain.extent || chain.pieces.len() < 2 {
        return Ok(None);
    }
    let d = rw.i64_attr(chain.dim as i64);
    let mut parts = Vec::with_capacity(chain.pieces.len());
    for &(_, _, op) in &chain.pieces {
        let src = rw.operand(op, 1);
        let part = if rw.isa::<super::SelectScatterOp>(op) {
            super::UnsqueezeOp::build1(rw, &[src], &[("dim", d)])?
        } else {
            src
        };
        parts.push(part);
    }
    crate::tensor::CatOp::build1(rw, &parts, &[("dim", d)]).map(Some)
}
