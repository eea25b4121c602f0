//! Interpreter kernels of the `mut` dialect. Right-hand sides are read in
//! full before anything is written, so a source that aliases the destination
//! behaves as PyTorch's (which also materializes overlapping inputs).

use crate::tensor_kernels::{broadcast_f64, broadcast_i64};
use crate::view::kernels::layout_of;
use crate::view::Layout;
use aot_runtime::{KernelCtx, KernelResult, Tensor};
use smallvec::{smallvec, SmallVec};

fn none() -> KernelResult {
    Ok(SmallVec::new())
}

pub fn copy_(k: &mut KernelCtx<'_>) -> KernelResult {
    write_converted(k.input(0), k.input(1));
    none()
}

/// Writes `src` (broadcast to `dst`'s shape) into `dst`, converted as
/// PyTorch's `copy_` converts: floats to integers truncate, to bool test
/// against zero.
fn write_converted(dst: &Tensor, src: &Tensor) {
    let shape = dst.sizes();
    if dst.dtype().is_float() || src.dtype().is_float() {
        let mut v = broadcast_f64(src, &shape);
        if !dst.dtype().is_float() {
            v.iter_mut().for_each(|x| *x = if dst.dtype().is_bool() { (*x != 0.0) as i64 as f64 } else { x.trunc() });
        }
        dst.write_f64(&v);
    } else {
        dst.write_i64(&broadcast_i64(src, &shape));
    }
}

/// The kernel of every data mutation with a functional twin (`add_` is
/// `tensor.add`, ...): the twin's kernel on the same operands and
/// attributes, its result then written into the destination as `copy_`
/// writes (converted to the destination's type). The result is computed in
/// full before the write, so a source aliasing the destination reads the
/// old values, and the arithmetic is the twin's own: PyTorch's in-place ops
/// compute in the promoted type and cast on the way back, as this does.
pub fn via_functional(k: &mut KernelCtx<'_>) -> KernelResult {
    let def = k.ctx.op_def(k.op).ok_or("unregistered op")?;
    let twin = def
        .interface::<super::InPlaceInterface>()
        .and_then(|i| i.functional)
        .ok_or_else(|| format!("'{}' has no functional twin to compute it", def.name))?;
    let kernel = twin
        .def()
        .and_then(|d| d.interface::<aot_runtime::Kernel>())
        .ok_or_else(|| format!("'{twin}' has no interpreter kernel"))?;
    let result = (kernel.0)(k)?.into_iter().next().ok_or_else(|| format!("'{twin}' returned nothing"))?;
    write_converted(k.input(0), &result);
    none()
}

/// Index positions an `index_put_` whose values share elements with its
/// destination may have: each position is its own put (quadratic work).
pub const LIVE_INDEX_PUT_POSITIONS: i64 = 4096;

/// The error for such an `index_put_` at `m` positions, more than
/// [`LIVE_INDEX_PUT_POSITIONS`] (the interpreter's and `functionalize`'s).
pub fn live_index_put_limit(m: i64) -> String {
    format!(
        "unsupported operation: index_put_ whose values share elements with its destination at {m} index positions (at most {LIVE_INDEX_PUT_POSITIONS}: each position reads the values as the earlier ones left them)"
    )
}

/// `mut.index_put_`. Values that share elements with the destination
/// (which PyTorch's overlap check lets through where it cannot decide, for
/// layouts that are not dense) are read as PyTorch's CPU kernel reads them:
/// one index position after another, each position's values as the earlier
/// positions left them. Anything else is the functional twin's result.
pub fn index_put_(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, index, values) = (k.input(0).clone(), k.input(1).clone(), k.input(2).clone());
    let m = index.numel();
    if m <= 1 || x.same(&values) || !values.shares_storage(&x) || !extents_meet(&x, &values) {
        return via_functional(k);
    }
    if m > LIVE_INDEX_PUT_POSITIONS {
        return Err(live_index_put_limit(m));
    }
    // The values broadcast to [m] + x's trailing sizes, as a view.
    let xs = x.sizes();
    let mut target: Vec<i64> = vec![m];
    target.extend(xs.iter().skip(1).copied());
    let (vs, vt) = (values.sizes(), values.strides());
    let lead =
        target.len().checked_sub(vs.len()).ok_or("index_put_: values of a higher rank than the indexed shape")?;
    let strides: Vec<i64> =
        (0..target.len()).map(|d| if d < lead || vs[d - lead] != target[d] { 0 } else { vt[d - lead] }).collect();
    // (The verifier makes the index 1-D.)
    let it = index.strides();
    for p in 0..m {
        let mut rs: aot_ir::Shape = SmallVec::from_slice(&target);
        rs[0] = 1;
        let row = values.alias_with(rs, strides.iter().copied().collect(), values.offset() + p * strides[0])?;
        let one = index.alias_with(smallvec![1], smallvec![it[0]], index.offset() + p * it[0])?;
        let inputs = [x.clone(), one, row];
        let mut put = KernelCtx {
            ctx: k.ctx,
            op: k.op,
            inputs: &inputs,
            gen: &mut *k.gen,
            promote_f64: k.promote_f64,
            syms: k.syms,
        };
        via_functional(&mut put)?;
    }
    none()
}

/// Whether the storage ranges of two tensors of one storage meet.
fn extents_meet(a: &Tensor, b: &Tensor) -> bool {
    let extent = |t: &Tensor| aot_ir::size::checked_extent(&t.sizes(), &t.strides(), t.offset());
    match (extent(a), extent(b)) {
        (Some((alo, ahi)), Some((blo, bhi))) => alo <= bhi && blo <= ahi,
        _ => true,
    }
}

pub fn fill_(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let v = k.attr_f64_or("value", 0.0);
    x.write_f64(&vec![v; x.numel() as usize]);
    none()
}

pub fn zero_(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    x.write_f64(&vec![0.0; x.numel() as usize]);
    none()
}

/// Metadata mutations with a view layout rule (`t_`, `transpose_`, ...).
pub fn relayout_(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let def = k.ctx.op_def(k.op).ok_or("unregistered op")?;
    let rule = match def.interface::<super::MetadataMutationInterface>().map(|m| m.kind) {
        Some(super::MetadataKind::Relayout { layout, .. }) => layout,
        _ => return Err("metadata mutation without a layout rule".into()),
    };
    let l = rule(&k.attrs(), &layout_of(x))?;
    let Layout { sizes, strides, offset } = l.into_iter().next().ok_or("layout rule returned nothing")?;
    x.set_metadata(sizes, strides, offset)?;
    Ok(smallvec![x.clone()])
}

pub fn resize_(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let size = k.attr_list("size")?;
    let old = layout_of(x);
    let new = super::resize_layout(&old, &size);
    if new != old {
        // Contiguous: the storage must reach offset + numel.
        let needed = (new.offset + new.sizes.iter().product::<i64>()) as usize;
        let storage = x.storage();
        if storage.len() < needed {
            storage.resize(needed)?;
        }
        let Layout { sizes, strides, offset } = new;
        x.set_metadata(sizes, strides, offset)?;
    }
    Ok(smallvec![x.clone()])
}

pub fn set_(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, src) = (k.input(0), k.input(1));
    x.set_storage(src.storage(), src.sizes(), src.strides(), src.offset())?;
    Ok(smallvec![x.clone()])
}
