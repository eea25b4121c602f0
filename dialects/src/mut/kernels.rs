//! Interpreter kernels of the `mut` dialect. Right-hand sides are read in
//! full before anything is written, so a source that aliases the destination
//! behaves as PyTorch's (which also materializes overlapping inputs).

use crate::view::kernels::layout_of;
use crate::view::Layout;
use aot_ir::AttrView;
use aot_runtime::kernel_util::broadcast_map;
use aot_runtime::{KernelCtx, KernelResult, Tensor};
use smallvec::{smallvec, SmallVec};

fn none() -> KernelResult {
    Ok(SmallVec::new())
}

/// Values of `src` broadcast to `shape` (row-major).
fn broadcast_f64(src: &Tensor, shape: &[i64]) -> Vec<f64> {
    let v = src.read_f64();
    broadcast_map(&src.sizes(), shape).into_iter().map(|i| v[i]).collect()
}

fn broadcast_i64(src: &Tensor, shape: &[i64]) -> Vec<i64> {
    let v = src.read_i64();
    broadcast_map(&src.sizes(), shape).into_iter().map(|i| v[i]).collect()
}

pub fn copy_(k: &mut KernelCtx<'_>) -> KernelResult {
    let (dst, src) = (k.input(0), k.input(1));
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
    none()
}

fn binary_(k: &mut KernelCtx<'_>, ff: fn(f64, f64) -> f64, fi: fn(i64, i64) -> i64) -> KernelResult {
    let (x, y) = (k.input(0), k.input(1));
    let shape = x.sizes();
    if x.dtype().is_float() {
        let ys = broadcast_f64(y, &shape);
        let out: Vec<f64> = x.read_f64().into_iter().zip(ys).map(|(a, b)| ff(a, b)).collect();
        x.write_f64(&out);
    } else {
        let ys = broadcast_i64(y, &shape);
        let out: Vec<i64> = x.read_i64().into_iter().zip(ys).map(|(a, b)| fi(a, b)).collect();
        x.write_i64(&out);
    }
    none()
}

pub fn add_(k: &mut KernelCtx<'_>) -> KernelResult {
    binary_(k, |a, b| a + b, i64::wrapping_add)
}
pub fn sub_(k: &mut KernelCtx<'_>) -> KernelResult {
    binary_(k, |a, b| a - b, i64::wrapping_sub)
}
pub fn mul_(k: &mut KernelCtx<'_>) -> KernelResult {
    binary_(k, |a, b| a * b, i64::wrapping_mul)
}
pub fn div_(k: &mut KernelCtx<'_>) -> KernelResult {
    binary_(k, |a, b| a / b, |a, _| a)
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

fn unary_(k: &mut KernelCtx<'_>, ff: impl Fn(f64) -> f64, fi: impl Fn(i64) -> i64) -> KernelResult {
    let x = k.input(0);
    if x.dtype().is_float() {
        let out: Vec<f64> = x.read_f64().into_iter().map(ff).collect();
        x.write_f64(&out);
    } else {
        let out: Vec<i64> = x.read_i64().into_iter().map(fi).collect();
        x.write_i64(&out);
    }
    none()
}

pub fn relu_(k: &mut KernelCtx<'_>) -> KernelResult {
    unary_(k, |x| if x.is_nan() { x } else { x.max(0.0) }, |x| x.max(0))
}
pub fn neg_(k: &mut KernelCtx<'_>) -> KernelResult {
    unary_(k, |x| -x, i64::wrapping_neg)
}
pub fn exp_(k: &mut KernelCtx<'_>) -> KernelResult {
    unary_(k, f64::exp, |x| x)
}
pub fn sigmoid_(k: &mut KernelCtx<'_>) -> KernelResult {
    unary_(k, |x| 1.0 / (1.0 + (-x).exp()), |x| x)
}
pub fn tanh_(k: &mut KernelCtx<'_>) -> KernelResult {
    unary_(k, f64::tanh, |x| x)
}
pub fn clamp_(k: &mut KernelCtx<'_>) -> KernelResult {
    let (lo, hi) = (k.attr_f64_opt("min"), k.attr_f64_opt("max"));
    unary_(k, |x| crate::tensor_kernels::clamp_f64(x, lo, hi), |x| crate::tensor_kernels::clamp_i64(x, lo, hi))
}

pub fn index_put_(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, idx, vals) = (k.input(0), k.input(1), k.input(2));
    let data = index_put_values(x, idx, vals, k.attr_flag("accumulate"))?;
    x.write_f64(&data);
    none()
}

/// The values of `x` after `x[index] = values` (or `+=`), row-major.
pub fn index_put_values(x: &Tensor, idx: &Tensor, vals: &Tensor, accumulate: bool) -> Result<Vec<f64>, String> {
    let xs = x.sizes();
    let rows = xs[0];
    let row_len: usize = xs[1..].iter().product::<i64>() as usize;
    let index = idx.read_i64();
    let mut target: Vec<i64> = vec![index.len() as i64];
    target.extend_from_slice(&xs[1..]);
    let v = broadcast_f64(vals, &target);
    let mut data = x.read_f64();
    for (r, &i) in index.iter().enumerate() {
        let j = if i < 0 { i + rows } else { i };
        if j < 0 || j >= rows {
            return Err(format!("index {i} is out of bounds for dimension 0 with size {rows}"));
        }
        let j = j as usize;
        for c in 0..row_len {
            let dst = &mut data[j * row_len + c];
            *dst = if accumulate { *dst + v[r * row_len + c] } else { v[r * row_len + c] };
        }
    }
    Ok(data)
}

/// Metadata mutations with a view layout rule (`t_`, `transpose_`, ...).
pub fn relayout_(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let def = k.ctx.op_def(k.op).ok_or("unregistered op")?;
    let rule = match def.interface::<super::MetadataMutationInterface>().map(|m| m.kind) {
        Some(super::MetadataKind::Relayout { layout, .. }) => layout,
        _ => return Err("metadata mutation without a layout rule".into()),
    };
    let l = rule(&AttrView::of_op(k.ctx, k.op), &layout_of(x))?;
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
            storage.resize(needed);
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
