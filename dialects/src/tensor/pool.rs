//! Pooling: `tensor.max_pool` (PyTorch's `max_pool*d_with_indices`: each
//! window's largest element and its flat position in the input's plane),
//! `tensor.avg_pool` (`avg_pool*d`), and the ops their derivatives are made
//! of, `tensor.max_pool_grad` (the output gradient added at the saved
//! positions) and `tensor.avg_pool_grad` (each output's gradient spread
//! over its window). Shape rules, interpreter kernels, derivatives and
//! lowerings share one geometry ([`Pool`]).
//!
//! Invariants: `x [N, C, *S]` with `C ≥ 1` and every `S ≥ 1`; a window of
//! `kernel_size` taps starts at `o·stride − padding` and reads every
//! `dilation`-th element (average pooling has no dilation); `padding ≤
//! kernel_size / 2`, so every window holds at least one input element;
//! `Out = ⌊(S + 2·padding − dilation·(K − 1) − 1 (+ stride − 1 in ceil
//! mode)) / stride⌋ + 1 ≥ 1`, less one in ceil mode when the last window
//! would start past the input and its left padding (PyTorch's rule). All
//! of it is checked, with checked arithmetic, by the shape rules.
//!
//! Semantics are PyTorch's CPU kernels': a max-pool window takes an element
//! when it is larger than the best so far or NaN (the first largest, the
//! last NaN), starting from the window's first in-bounds element, so a
//! window of `-inf` reports that element's index; an average divides by the
//! window's extent clipped to the padded input (`count_include_pad`, the
//! default) or to the input, or by `divisor_override`.
//!
//! Lowering: the forward ops read a padded copy of the input (`-inf` or
//! zero around it, so the loop body needs no bound test) and reduce each
//! window with its taps unrolled in the innermost loop's body, one pass
//! over the output. The gradients run one parallel iteration per image
//! and channel plane, so that no two iterations add into one element:
//! `max_pool_grad` adds each output gradient at its (bounds-checked)
//! index, `avg_pool_grad` adds each output's share into a padded buffer,
//! tap by tap, whose interior is the result.

use super::conv::{fill_zero, interior, padded_shape, padded_with, unit_stride_last, UNROLL};
use super::kernels::unravel;
use super::lowering::checked_index;
use crate::autodiff::{Grads, VjpCtx};
use crate::lowering::*;
use crate::r#loop::{Binary, Predicate};
use crate::shape::*;
use aot_ir::*;
use aot_runtime::{KernelCtx, KernelResult};
use smallvec::smallvec;

aot_ir::op_handle!(pub MaxPoolOp = "tensor.max_pool");
aot_ir::op_handle!(pub MaxPoolGradOp = "tensor.max_pool_grad");
aot_ir::op_handle!(pub AvgPoolOp = "tensor.avg_pool");
aot_ir::op_handle!(pub AvgPoolGradOp = "tensor.avg_pool_grad");

pub const MAX_ATTRS: &[AttrSpec] = &[
    AttrSpec::required("kernel_size", AttrKind::I64List),
    AttrSpec::optional("stride", AttrKind::I64List),
    AttrSpec::optional("padding", AttrKind::I64List),
    AttrSpec::optional("dilation", AttrKind::I64List),
    AttrSpec::optional("ceil_mode", AttrKind::Flag),
];
pub const MAX_GRAD_ATTRS: &[AttrSpec] = &[AttrSpec::required("input_shape", AttrKind::I64List)];

macro_rules! avg_attrs {
    ($($extra:expr),*) => {
        &[
            AttrSpec::required("kernel_size", AttrKind::I64List),
            AttrSpec::optional("stride", AttrKind::I64List),
            AttrSpec::optional("padding", AttrKind::I64List),
            AttrSpec::optional("ceil_mode", AttrKind::Flag),
            AttrSpec::optional("count_include_pad", AttrKind::Flag),
            AttrSpec::optional("divisor_override", AttrKind::I64),
            $($extra),*
        ]
    };
}
pub const AVG_ATTRS: &[AttrSpec] = avg_attrs!();
pub const AVG_GRAD_ATTRS: &[AttrSpec] = avg_attrs!(AttrSpec::required("input_shape", AttrKind::I64List));

/// The attributes an average pool's derivative passes on.
const AVG_NAMES: [&str; 6] = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"];

/// A pooling window's geometry, one entry per spatial dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    pub kernel: Vec<i64>,
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    pub dilation: Vec<i64>,
    pub ceil_mode: bool,
    pub count_include_pad: bool,
    pub divisor_override: Option<i64>,
}

impl Pool {
    /// From an op's attributes, for `k` spatial dimensions (PyTorch's
    /// defaults: stride = kernel size, no padding, dilation 1, floor mode,
    /// padding counted in averages).
    pub fn from_attrs(a: &AttrView<'_>, k: usize) -> Result<Pool, String> {
        let list = |name: &str, default: Option<&[i64]>, min: i64| -> Result<Vec<i64>, String> {
            let v = match (a.list(name), default) {
                (Some(v), Some(d)) if v.is_empty() => d.to_vec(),
                (Some(v), _) => v,
                (None, Some(d)) => d.to_vec(),
                (None, None) => return Err(format!("requires integer list attribute '{name}'")),
            };
            if v.len() != k {
                return Err(format!("'{name}' must have {k} entries (one per spatial dimension), got {}", v.len()));
            }
            if let Some(bad) = v.iter().find(|&&x| x < min) {
                return Err(format!("'{name}' entries must be at least {min}, got {bad}"));
            }
            Ok(v)
        };
        let kernel = list("kernel_size", None, 1)?;
        let stride = list("stride", Some(&kernel), 1)?;
        let padding = list("padding", Some(&vec![0; k]), 0)?;
        let dilation = list("dilation", Some(&vec![1; k]), 1)?;
        for i in 0..k {
            if padding[i] > kernel[i] / 2 {
                return Err(format!(
                    "padding {} must be at most half the kernel size {} (spatial dimension {i})",
                    padding[i], kernel[i]
                ));
            }
        }
        let divisor_override = a.i64("divisor_override");
        if divisor_override == Some(0) {
            return Err("'divisor_override' must not be zero".into());
        }
        let count_include_pad = a.get("count_include_pad").and_then(|v| a.ctx.attr_as_flag(v)).unwrap_or(true);
        Ok(Pool {
            kernel,
            stride,
            padding,
            dilation,
            ceil_mode: a.flag("ceil_mode"),
            count_include_pad,
            divisor_override,
        })
    }

    /// The window's extent in dimension `i` (dilated).
    fn span(&self, i: usize) -> Result<i64, String> {
        (self.kernel[i] - 1)
            .checked_mul(self.dilation[i])
            .and_then(|v| v.checked_add(1))
            .ok_or_else(|| "the dilated window's extent overflows".to_string())
    }

    /// The output's spatial sizes for input spatial sizes `s`.
    pub fn out_sizes(&self, s: &[i64]) -> Result<Vec<i64>, String> {
        self.out_sizes_in(s, aot_ir::sym::Facts::defaults())
    }

    /// [`Pool::out_sizes`] where symbolic sizes may use what the function
    /// declares about its symbols.
    pub fn out_sizes_in(&self, s: &[i64], facts: &aot_ir::sym::Facts) -> Result<Vec<i64>, String> {
        let mut out = Vec::with_capacity(s.len());
        for (i, &n) in s.iter().enumerate() {
            let (st, p) = (self.stride[i], self.padding[i]);
            let extra = if self.ceil_mode { st - 1 } else { 0 };
            let span = self.span(i)?;
            if aot_ir::sym::is_symbolic(n) {
                // `(n + 2p - span + extra) floordiv stride + 1`, when the
                // form shows a window fits. Ceil mode's last-window rule
                // (drop a window that would start in the right padding)
                // never fires when `p + stride <= span`: the last window
                // then starts at most at `n + 2p - span + stride - 1 < n +
                // p`. Otherwise it would need a guard.
                use aot_ir::sym;
                let e = |e: sym::SymError| e.to_string();
                let room =
                    sym::sub(sym::add(n, p.checked_mul(2).ok_or("the pooled size overflows")?).map_err(e)?, span)
                        .map_err(e)?;
                let last_window_drops = self.ceil_mode && p.checked_add(st).is_none_or(|ps| ps > span);
                // A window fits when `room >= 0`; in ceil mode the first
                // may hang past the end (PyTorch pools what it covers:
                // a 3-tap window over 2 elements), as long as the output
                // keeps a window, `room + stride - 1 >= 0`.
                if last_window_drops || !facts.known_le(0, sym::add(room, extra).map_err(e)?) {
                    return Err(format!(
                        "pooling spatial dimension {i} of symbolic size {} {}: that needs a guard",
                        sym::display(n),
                        if last_window_drops {
                            "in ceil mode, where the last window may start in the padding"
                        } else {
                            "with a window that may not fit"
                        }
                    ));
                }
                // (Settled, as the convolution's sizes.)
                out.push(facts.settled(
                    sym::add(sym::floordiv(sym::add(room, extra).map_err(e)?, st).map_err(e)?, 1).map_err(e)?,
                ));
                continue;
            }
            let num = p
                .checked_mul(2)
                .and_then(|v| v.checked_add(n))
                .and_then(|v| v.checked_sub(span))
                .and_then(|v| v.checked_add(extra))
                .ok_or("the pooled size overflows")?;
            let mut o = num.div_euclid(st) + 1;
            if self.ceil_mode && o >= 1 && (o - 1) * st >= n + p {
                o -= 1;
            }
            if o < 1 {
                return Err(format!(
                    "the output would have size {o} in spatial dimension {i}: the input's size {n} is too small for a \
                     window of {} taps (dilation {}, padding {p})",
                    self.kernel[i], self.dilation[i]
                ));
            }
            out.push(o);
        }
        Ok(out)
    }

    /// The padding past the input's end that the last window reaches
    /// (beyond `padding` in ceil mode, less when the windows stop short),
    /// for input spatial sizes `s` and output spatial sizes `out` (the
    /// op's type's, which the verifier checked). Where `s[i]` is symbolic,
    /// `after` is the most any size needs, `padding + stride − 1` in ceil
    /// mode and `padding` otherwise (the last window starts at `(out − 1)·
    /// stride ≤ S + 2·padding − span + extra`): taps past the last window
    /// are never read, so the larger padding changes no result.
    fn plan(&self, s: &[i64], out: &[i64]) -> Result<Vec<i64>, String> {
        let mut after = Vec::with_capacity(s.len());
        for i in 0..s.len() {
            if aot_ir::sym::is_symbolic(s[i]) || aot_ir::sym::is_symbolic(out[i]) {
                let extra = if self.ceil_mode { self.stride[i] - 1 } else { 0 };
                after.push(self.padding[i] + extra);
                continue;
            }
            // (out − 1)·stride < S + padding, so this cannot overflow once
            // the type's sizes have passed `out_sizes`.
            after.push(((out[i] - 1) * self.stride[i] + self.span(i)? - s[i] - self.padding[i]).max(0));
        }
        Ok(after)
    }

    /// PyTorch's starting index of the max-pool window at output position
    /// `o` (flat in a plane of sizes `s`): its first tap at or past 0 in
    /// each dimension. A dilated window can hold no element at all (every
    /// tap in the padding); PyTorch then reports this index with `-inf`.
    fn first_index(&self, s: &[i64], o: &[i64]) -> i64 {
        let mut flat = 0i64;
        for i in 0..s.len() {
            let start = o[i] * self.stride[i] - self.padding[i];
            let d = self.dilation[i];
            let first = if start < 0 { start + (-start + d - 1) / d * d } else { start };
            flat = flat * s[i] + first;
        }
        flat
    }

    /// The average's divisor for the window at output position `o`.
    fn divisor(&self, s: &[i64], o: &[i64]) -> i64 {
        if let Some(d) = self.divisor_override {
            return d;
        }
        let mut count = 1i64;
        for i in 0..s.len() {
            // (Interpreter-side: every size here is a number.)
            let start = o[i] * self.stride[i] - self.padding[i];
            let end = (start + self.kernel[i]).min(s[i] + self.padding[i]);
            count *= if self.count_include_pad { end - start } else { end.min(s[i]) - start.max(0) };
        }
        count
    }
}

/// `[N, C, *spatial]` with one spatial dimension at least, `C` and the
/// spatial sizes positive; returns the number of spatial dimensions.
fn pooled_shape(shape: &[i64], what: &str) -> Result<usize, String> {
    if shape.len() < 3 {
        return Err(format!(
            "{what} must be [N, C, *spatial] with at least one spatial dimension, got rank {}",
            shape.len()
        ));
    }
    if shape[1..].contains(&0) {
        return Err(format!("{what} must have non-empty channel and spatial dimensions, got {}", fmt_shape(shape)));
    }
    Ok(shape.len() - 2)
}

fn float_operand(ic: &InferCtx<'_>, i: usize) -> Result<TensorType, String> {
    let t = operand_tensor(ic, i)?.clone();
    require_float(t.elem, "pooling")?;
    Ok(t)
}

/// The `input_shape` attribute of a gradient op, checked against the output
/// gradient `g`: same rank, batch and channels.
fn input_shape(ic: &InferCtx<'_>, g: &TensorType) -> Result<Vec<i64>, String> {
    let x = attr_list(ic, "input_shape")?;
    if x.len() != g.rank() || x.iter().any(|&d| d < 0 && !aot_ir::sym::is_symbolic(d)) {
        return Err(format!("'input_shape' must have rank {} and no negative size, got {}", g.rank(), fmt_shape(&x)));
    }
    pooled_shape(&x, "'input_shape'")?;
    if x[..2] != g.shape[..2] {
        return Err(format!("'input_shape' {x:?} must have the output gradient's batch and channels, got {g}"));
    }
    Ok(x)
}

fn out_shape(x: &[i64], out: &[i64]) -> Vec<i64> {
    x[..2].iter().chain(out).copied().collect()
}

pub fn infer_max_pool(ic: &InferCtx<'_>) -> InferResult {
    let x = float_operand(ic, 0)?;
    let k = pooled_shape(&x.shape, "the input")?;
    let pool = Pool::from_attrs(&ic.attr_view(), k)?;
    let y = out_shape(&x.shape, &pool.out_sizes_in(&x.shape[2..], ic.facts())?);
    Ok(smallvec![
        TypeData::Tensor(TensorType::new(&y[..], x.elem)),
        TypeData::Tensor(TensorType::new(&y[..], ElemType::I64))
    ])
}

pub fn infer_max_pool_grad(ic: &InferCtx<'_>) -> InferResult {
    let g = float_operand(ic, 0)?;
    let idx = operand_tensor(ic, 1)?;
    if idx.elem != ElemType::I64 || idx.shape != g.shape {
        return Err(format!("the indices must be i64 of the output gradient's shape {g}, got {idx}"));
    }
    let x = input_shape(ic, &g)?;
    one(x, g.elem)
}

pub fn infer_avg_pool(ic: &InferCtx<'_>) -> InferResult {
    let x = float_operand(ic, 0)?;
    let k = pooled_shape(&x.shape, "the input")?;
    let pool = Pool::from_attrs(&ic.attr_view(), k)?;
    one(out_shape(&x.shape, &pool.out_sizes_in(&x.shape[2..], ic.facts())?), x.elem)
}

pub fn infer_avg_pool_grad(ic: &InferCtx<'_>) -> InferResult {
    let g = float_operand(ic, 0)?;
    let x = input_shape(ic, &g)?;
    let pool = Pool::from_attrs(&ic.attr_view(), x.len() - 2)?;
    let expect = out_shape(&x, &pool.out_sizes_in(&x[2..], ic.facts())?);
    if expect[..] != g.shape[..] {
        return Err(format!("the output gradient must have shape {expect:?} for input {x:?}, got {g}"));
    }
    one(x, g.elem)
}

// ----- interpreter -----

/// Calls `f(plane_offset_of_output, output_position, in-bounds input
/// positions in tap order)` for every window of every plane, positions
/// flat within the plane.
/// A window visitor: output position (flat and per dimension), the input
/// positions read.
type WindowFn<'a> = dyn FnMut(usize, &[i64], &[usize]) + 'a;

fn for_each_window(pool: &Pool, s: &[i64], outs: &[i64], f: &mut WindowFn<'_>) {
    let k = s.len();
    let nout = numel(outs) as usize;
    let ntaps = numel(&pool.kernel) as usize;
    let (mut o, mut t) = (vec![0usize; k], vec![0usize; k]);
    let mut reads = Vec::with_capacity(ntaps);
    for p in 0..nout {
        unravel(p, outs, &mut o);
        let oi: Vec<i64> = o.iter().map(|&v| v as i64).collect();
        reads.clear();
        for tap in 0..ntaps {
            unravel(tap, &pool.kernel, &mut t);
            let mut flat = 0i64;
            let mut inside = true;
            for i in 0..k {
                let at = oi[i] * pool.stride[i] - pool.padding[i] + t[i] as i64 * pool.dilation[i];
                inside &= (0..s[i]).contains(&at);
                flat = flat * s[i] + at;
            }
            if inside {
                reads.push(flat as usize);
            }
        }
        f(p, &oi, &reads);
    }
}

fn pool_k(k: &KernelCtx<'_>, rank: usize) -> Result<Pool, String> {
    Pool::from_attrs(&AttrView::of_op(k.ctx, k.op), rank - 2)
}

pub fn kernel_max_pool(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let xs = x.sizes();
    let pool = pool_k(k, xs.len())?;
    let outs = pool.out_sizes(&xs[2..])?;
    let (plane, nout) = (numel(&xs[2..]) as usize, numel(&outs) as usize);
    let planes = (xs[0] * xs[1]) as usize;
    let v = x.read_f64();
    let (mut vals, mut idx) = (vec![0.0; planes * nout], vec![0i64; planes * nout]);
    for pl in 0..planes {
        let src = &v[pl * plane..(pl + 1) * plane];
        for_each_window(&pool, &xs[2..], &outs, &mut |p, o, reads| {
            let (mut best, mut at) = (f64::NEG_INFINITY, pool.first_index(&xs[2..], o));
            for &r in reads {
                if src[r] > best || src[r].is_nan() {
                    (best, at) = (src[r], r as i64);
                }
            }
            vals[pl * nout + p] = best;
            idx[pl * nout + p] = at;
        });
    }
    let shape = out_shape(&xs, &outs);
    let rt = k.result_type(0)?;
    Ok(smallvec![k.new_f64(rt.elem, &shape, &vals), k.new_i64(ElemType::I64, &shape, &idx)])
}

pub fn kernel_max_pool_grad(k: &mut KernelCtx<'_>) -> KernelResult {
    let (g, idx) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let plane = numel(&rt.shape[2..]);
    let nout = numel(&g.sizes()[2..]) as usize;
    let (vg, vi) = (g.read_f64(), idx.read_i64());
    let mut out = vec![0.0f64; numel(&rt.shape) as usize];
    for (j, (&gv, &i)) in vg.iter().zip(&vi).enumerate() {
        if !(0..plane).contains(&i) {
            return Err(format!("max_pool_grad: index {i} out of bounds for a plane of {plane} elements"));
        }
        out[(j / nout) * plane as usize + i as usize] += gv;
    }
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &out)])
}

pub fn kernel_avg_pool(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let xs = x.sizes();
    let pool = pool_k(k, xs.len())?;
    let outs = pool.out_sizes(&xs[2..])?;
    let (plane, nout) = (numel(&xs[2..]) as usize, numel(&outs) as usize);
    let v = x.read_f64();
    let mut out = vec![0.0; (xs[0] * xs[1]) as usize * nout];
    for pl in 0..(xs[0] * xs[1]) as usize {
        let src = &v[pl * plane..(pl + 1) * plane];
        for_each_window(&pool, &xs[2..], &outs, &mut |p, o, reads| {
            let sum: f64 = reads.iter().map(|&r| src[r]).fold(0.0, |a, b| a + b);
            out[pl * nout + p] = sum / pool.divisor(&xs[2..], o) as f64;
        });
    }
    let rt = k.result_type(0)?;
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &out)])
}

pub fn kernel_avg_pool_grad(k: &mut KernelCtx<'_>) -> KernelResult {
    let g = k.input(0);
    let rt = k.result_type(0)?;
    let xs = rt.shape.to_vec();
    let pool = pool_k(k, xs.len())?;
    let outs = pool.out_sizes(&xs[2..])?;
    let (plane, nout) = (numel(&xs[2..]) as usize, numel(&outs) as usize);
    let vg = g.read_f64();
    let mut out = vec![0.0; numel(&xs) as usize];
    for pl in 0..(xs[0] * xs[1]) as usize {
        let dst = &mut out[pl * plane..(pl + 1) * plane];
        for_each_window(&pool, &xs[2..], &outs, &mut |p, o, reads| {
            let share = vg[pl * nout + p] / pool.divisor(&xs[2..], o) as f64;
            for &r in reads {
                dst[r] += share;
            }
        });
    }
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &out)])
}

// ----- derivatives -----

/// `(values, indices) = max_pool(x)`: `gx = max_pool_grad(g, indices)` (the
/// indices carry no gradient).
pub fn vjp_max_pool(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let (g, x, idx) = (c.g()?, c.x(0), c.y(1));
    let shape = c.shape(x)?;
    let a = c.rw.i64_list_attr(&shape);
    let gx = c.op1(MaxPoolGradOp::NAME, &[g, idx], &[("input_shape", a)])?;
    Ok(c.grads([Some(gx)]))
}

/// `y = max_pool_grad(g, idx)` is linear in `g`: `dg[p] = G[idx[p]]` within
/// each plane, a gather.
pub fn vjp_max_pool_grad(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let (gy, g, idx) = (c.g()?, c.x(0), c.x(1));
    let (gs, xs) = (c.shape(g)?, c.shape(gy)?);
    let planes = [xs[0], xs[1], numel(&xs[2..])];
    let flat = c.reshape(gy, &planes)?;
    let rows = c.reshape(idx, &[gs[0], gs[1], numel(&gs[2..])])?;
    let dim = c.rw.i64_attr(2);
    let picked = c.op1("tensor.gather", &[flat, rows], &[("dim", dim)])?;
    let dg = c.reshape(picked, &gs)?;
    Ok(c.grads([Some(dg), None]))
}

fn avg_attrs(c: &mut VjpCtx<'_, '_>, input_shape: Option<Vec<i64>>) -> Vec<(&'static str, Attribute)> {
    let mut out: Vec<(&'static str, Attribute)> =
        AVG_NAMES.iter().filter_map(|&n| c.attrs().get(n).map(|a| (n, a))).collect();
    if let Some(s) = input_shape {
        let a = c.rw.i64_list_attr(&s);
        out.push(("input_shape", a));
    }
    out
}

/// `y = avg_pool(x)` is linear: `gx = avg_pool_grad(g)`.
pub fn vjp_avg_pool(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let (g, x) = (c.g()?, c.x(0));
    let shape = c.shape(x)?;
    let attrs = avg_attrs(c, Some(shape));
    let gx = c.op1(AvgPoolGradOp::NAME, &[g], &attrs)?;
    Ok(c.grads([Some(gx)]))
}

/// `y = avg_pool_grad(g)` is `avg_pool`'s adjoint: `dg = avg_pool(G)`.
pub fn vjp_avg_pool_grad(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let gy = c.g()?;
    let attrs = avg_attrs(c, None);
    let dg = c.op1(AvgPoolOp::NAME, &[gy], &attrs)?;
    Ok(c.grads([Some(dg)]))
}

// ----- lowering -----

/// One tap's step of a fold: the tap's indices and the accumulators in,
/// the next accumulators out.
type TapFold<'a, 'c> = dyn FnMut(&mut Scalars<'_, 'c>, &[Value], Vec<Value>) -> Result<Vec<Value>, String> + 'a;

/// Folds `f` over a window's taps in row-major order: the trailing kernel
/// dimensions unrolled (up to [`UNROLL`] taps), the leading ones loops that
/// carry the accumulators `acc`. `f` gets the tap's indices.
fn fold_taps<'c>(
    s: &mut Scalars<'_, 'c>,
    kernel: &[i64],
    acc: Vec<Value>,
    f: &mut TapFold<'_, 'c>,
) -> Result<Vec<Value>, String> {
    let k = kernel.len();
    let mut split = k;
    let mut unrolled = 1i64;
    while split > 0 && unrolled * kernel[split - 1] <= UNROLL {
        split -= 1;
        unrolled *= kernel[split];
    }
    fold_from(s, kernel, split, unrolled, &mut Vec::with_capacity(k), acc, f)
}

fn fold_from<'c>(
    s: &mut Scalars<'_, 'c>,
    kernel: &[i64],
    split: usize,
    unrolled: i64,
    lead: &mut Vec<Value>,
    acc: Vec<Value>,
    f: &mut TapFold<'_, 'c>,
) -> Result<Vec<Value>, String> {
    if lead.len() == split {
        let mut acc = acc;
        let mut tail = vec![0i64; kernel.len() - split];
        for u in 0..unrolled {
            let mut rest = u;
            for d in (split..kernel.len()).rev() {
                tail[d - split] = rest % kernel[d];
                rest /= kernel[d];
            }
            let mut tap = lead.clone();
            for &t in &tail {
                tap.push(s.index(t));
            }
            acc = f(s, &tap, acc)?;
        }
        return Ok(acc);
    }
    let d = lead.len();
    s.for_loop(0, kernel[d], 1, false, &acc.clone(), &mut |s, t, c| {
        lead.push(t);
        let r = fold_from(s, kernel, split, unrolled, lead, c.to_vec(), f);
        lead.pop();
        r
    })
}

/// The value at tap `tap` of output position `pos` of image `ni`, channel
/// `ci`, read from the padded `src` in the compute type, and the tap's
/// padded position.
fn tap_value(
    s: &mut Scalars<'_, '_>,
    pool: &Pool,
    src: Value,
    (ni, ci): (Value, Value),
    pos: &[Value],
    tap: &[Value],
) -> Result<(Value, Vec<Value>), String> {
    let q = tap_at(s, pool, pos, tap)?;
    let mut xi = vec![ni, ci];
    xi.extend_from_slice(&q);
    let v = s.load(src, &xi)?;
    Ok((s.widen(v)?, q))
}

/// Whether max pooling takes `v` over the window's best so far: larger,
/// or NaN (which then stays: PyTorch's NaN wins its window).
fn takes(s: &mut Scalars<'_, '_>, v: Value, best: Value) -> Result<Value, String> {
    let gt = s.cmp(Predicate::Gt, v, best)?;
    let nan = s.cmp(Predicate::Ne, v, v)?;
    s.bin(Binary::Or, gt, nan)
}

/// `pos·stride + tap·dilation` per spatial dimension: a tap's position in
/// the padded input.
fn tap_at(s: &mut Scalars<'_, '_>, pool: &Pool, pos: &[Value], tap: &[Value]) -> Result<Vec<Value>, String> {
    let mut at = Vec::with_capacity(pos.len());
    for d in 0..pos.len() {
        let st = s.index(pool.stride[d]);
        let a = s.mul(pos[d], st)?;
        let dl = s.index(pool.dilation[d]);
        let o = s.mul(tap[d], dl)?;
        at.push(s.add(a, o)?);
    }
    Ok(at)
}

fn select_lt(s: &mut Scalars<'_, '_>, a: Value, b: Value, min: bool) -> Result<Value, String> {
    let lt = s.cmp(Predicate::Lt, a, b)?;
    if min {
        s.select(lt, a, b)
    } else {
        s.select(lt, b, a)
    }
}

/// The average's divisor at output position `pos` (see [`Pool::divisor`]),
/// as a float of type `e`.
fn divisor_at(
    s: &mut Scalars<'_, '_>,
    pool: &Pool,
    sizes: &[i64],
    pos: &[Value],
    e: ElemType,
) -> Result<Value, String> {
    if let Some(d) = pool.divisor_override {
        return Ok(s.const_f(d as f64, e));
    }
    let mut count = s.index(1);
    for d in 0..pos.len() {
        let st = s.index(pool.stride[d]);
        let at = s.mul(pos[d], st)?;
        let p = s.index(pool.padding[d]);
        let start = s.sub(at, p)?;
        let k = s.index(pool.kernel[d]);
        let reach = s.add(start, k)?;
        let limit = super::conv::add(sizes[d], pool.padding[d])?;
        let limit = s.size_index(limit);
        let end = select_lt(s, reach, limit, true)?;
        let extent = if pool.count_include_pad {
            s.sub(end, start)?
        } else {
            let zero = s.index(0);
            let lo = select_lt(s, start, zero, false)?;
            let n = s.size_index(sizes[d]);
            let hi = select_lt(s, end, n, true)?;
            s.sub(hi, lo)?
        };
        count = s.mul(count, extent)?;
    }
    let count = s.cast_e(count, ElemType::I64);
    Ok(s.cast_e(count, e))
}

/// The nest every forward pooling kernel runs: one parallel iteration per
/// image and channel plane (merged, so that one image still splits) and
/// leading output row, and a loop along the last output dimension; `body`
/// gets `[n, c, *pos]`.
fn over_outputs<'c>(s: &mut Scalars<'_, 'c>, y: &[i64], body: &mut NestBody<'_, 'c>) -> Result<(), String> {
    let (n, c) = (y[0], y[1]);
    let last = y[y.len() - 1];
    let mut outer = vec![super::conv::mul(n, c)?];
    outer.extend_from_slice(&y[2..y.len() - 1]);
    s.nest(&outer, true, &mut |s, ivs| {
        let mut lead = s.delinearize(ivs[0], &[n, c])?;
        lead.extend_from_slice(&ivs[1..]);
        s.for_loop(0, last, 1, false, &[], &mut |s, j, _| {
            let mut at = lead.clone();
            at.push(j);
            body(s, &at)?;
            Ok(Vec::new())
        })?;
        Ok(())
    })
}

fn lower_pool(lc: &LowerCtx<'_, '_>, rank: usize) -> Result<Pool, String> {
    Pool::from_attrs(&lc.attrs(), rank - 2)
}

pub fn lower_max_pool(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    super::conv::symbolic_images(lc, &[], true, false)?;
    let x = lc.operand(0)?;
    let xt = lc.operand_type(0)?;
    let pool = lower_pool(lc, xt.shape.len())?;
    let sizes = xt.shape[2..].to_vec();
    let outs = lc.result_type(0)?.shape[2..].to_vec();
    let after = pool.plan(&sizes, &outs)?;
    let xp = padded_with(lc, x, &pool.padding, &after, f64::NEG_INFINITY)?;
    let xp = unit_stride_last(lc, xp)?;
    let y = out_shape(&xt.shape, &outs);
    let vals = lc.alloc(&y, xt.elem);
    let compute = compute_elem(xt.elem);
    if !lc.result_used(1) {
        // Without the indices (inference) the window's maximum alone: f32
        // lanes, where the i64 index kept every window scalar.
        lc.kernel("max_pool", &[xp, vals], &mut |s, a| {
            over_outputs(s, &y, &mut |s, at| {
                let (ni, ci, pos) = (at[0], at[1], &at[2..]);
                let ninf = s.const_f(f64::NEG_INFINITY, compute);
                let res = fold_taps(s, &pool.kernel, vec![ninf], &mut |s, tap, acc| {
                    let (v, _) = tap_value(s, &pool, a[0], (ni, ci), pos, tap)?;
                    let take = takes(s, v, acc[0])?;
                    Ok(vec![s.select(take, v, acc[0])?])
                })?;
                s.store_as(res[0], a[1], at)
            })
        })?;
        lc.set_result(0, vals);
        return Ok(());
    }
    let idx = lc.alloc(&y, ElemType::I64);
    let place = row_major(&sizes);
    let k = sizes.len();
    lc.kernel("max_pool", &[xp, vals, idx], &mut |s, a| {
        over_outputs(s, &y, &mut |s, at| {
            let (ni, ci, pos) = (at[0], at[1], &at[2..]);
            // The window's first in-bounds element: PyTorch's index for a
            // window that holds nothing larger than -inf.
            let mut first = s.index(0);
            for d in 0..k {
                let st = s.index(pool.stride[d]);
                let o = s.mul(pos[d], st)?;
                let p = s.index(pool.padding[d]);
                let start = s.sub(o, p)?;
                let inside = if pool.padding[d] == 0 {
                    start
                } else {
                    let zero = s.index(0);
                    let neg = s.cmp(Predicate::Lt, start, zero)?;
                    // The first tap at or past 0: start + ⌈−start / dilation⌉·dilation.
                    let up = if pool.dilation[d] == 1 {
                        zero
                    } else {
                        let dl = s.index(pool.dilation[d]);
                        let m = s.sub(zero, start)?;
                        let dm1 = s.index(pool.dilation[d] - 1);
                        let m = s.add(m, dm1)?;
                        let q = s.bin(Binary::Div, m, dl)?;
                        let q = s.mul(q, dl)?;
                        s.add(start, q)?
                    };
                    s.select(neg, up, start)?
                };
                let pl = s.size_index(place[d]);
                let term = s.mul(inside, pl)?;
                first = s.add(first, term)?;
            }
            let first = s.cast_e(first, ElemType::I64);
            let ninf = s.const_f(f64::NEG_INFINITY, compute);
            let res = fold_taps(s, &pool.kernel, vec![ninf, first], &mut |s, tap, acc| {
                let (v, q) = tap_value(s, &pool, a[0], (ni, ci), pos, tap)?;
                let mut flat = s.index(0);
                for d in 0..k {
                    let p = s.index(pool.padding[d]);
                    let r = s.sub(q[d], p)?;
                    let pl = s.size_index(place[d]);
                    let term = s.mul(r, pl)?;
                    flat = s.add(flat, term)?;
                }
                let flat = s.cast_e(flat, ElemType::I64);
                let take = takes(s, v, acc[0])?;
                Ok(vec![s.select(take, v, acc[0])?, s.select(take, flat, acc[1])?])
            })?;
            s.store_as(res[0], a[1], at)?;
            s.store(res[1], a[2], at);
            Ok(())
        })
    })?;
    lc.set_result(0, vals);
    lc.set_result(1, idx);
    Ok(())
}

pub fn lower_avg_pool(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    super::conv::symbolic_images(lc, &[], true, false)?;
    let x = lc.operand(0)?;
    let xt = lc.operand_type(0)?;
    let pool = lower_pool(lc, xt.shape.len())?;
    let sizes = xt.shape[2..].to_vec();
    let outs = lc.result_type(0)?.shape[2..].to_vec();
    let after = pool.plan(&sizes, &outs)?;
    let xp = padded_with(lc, x, &pool.padding, &after, 0.0)?;
    let xp = unit_stride_last(lc, xp)?;
    let y = out_shape(&xt.shape, &outs);
    let out = lc.alloc(&y, xt.elem);
    let compute = compute_elem(xt.elem);
    lc.kernel("avg_pool", &[xp, out], &mut |s, a| {
        over_outputs(s, &y, &mut |s, at| {
            let (ni, ci, pos) = (at[0], at[1], &at[2..]);
            let zero = s.const_f(0.0, compute);
            let sum = fold_taps(s, &pool.kernel, vec![zero], &mut |s, tap, acc| {
                let (v, _) = tap_value(s, &pool, a[0], (ni, ci), pos, tap)?;
                Ok(vec![s.add(acc[0], v)?])
            })?;
            let div = divisor_at(s, &pool, &sizes, pos, compute)?;
            let r = s.div(sum[0], div)?;
            s.store_as(r, a[1], at)
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

pub fn lower_max_pool_grad(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    super::conv::symbolic_images(lc, &[], true, false)?;
    let rt = lc.result_type(0)?;
    let (g, idx) = (lc.operand(0)?, lc.operand(1)?);
    let gt = lc.operand_type(0)?;
    let (n, c) = (rt.shape[0], rt.shape[1]);
    let plane = aot_ir::sym::numel(&rt.shape[2..]).map_err(|e| e.to_string())?;
    // Gradients accumulate in place, in the compute type.
    let acc = fill_zero(lc, &rt.shape, compute_elem(rt.elem))?;
    let flat = lc.view(acc, &[n, c, plane], &[super::conv::mul(c, plane)?, plane, 1], 0)?;
    let outs = gt.shape[2..].to_vec();
    let msg = format!("max_pool_grad: index out of bounds for a plane of {} elements", aot_ir::sym::display(plane));
    // One plane per parallel iteration: a plane's indices land in it alone.
    lc.kernel("max_pool_grad", &[g, idx, flat], &mut |s, a| {
        s.nest_flat(&[n, c], &mut |s, nc| {
            s.nest(&outs, false, &mut |s, pos| {
                let mut gi = nc.to_vec();
                gi.extend_from_slice(pos);
                let i = s.load(a[1], &gi)?;
                let i = s.cast_e(i, ElemType::I64);
                let j = checked_index(s, i, plane, false, &msg)?;
                let at = [nc[0], nc[1], j];
                let old = s.load(a[2], &at)?;
                let v = s.load(a[0], &gi)?;
                let v = s.widen(v)?;
                let sum = s.add(old, v)?;
                s.store(sum, a[2], &at);
                Ok(())
            })
        })
    })?;
    let out = lc.as_elem(acc, rt.elem)?;
    lc.set_result(0, out);
    Ok(())
}

pub fn lower_avg_pool_grad(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    super::conv::symbolic_images(lc, &[], true, false)?;
    let rt = lc.result_type(0)?;
    let g = lc.operand(0)?;
    let pool = lower_pool(lc, rt.shape.len())?;
    let sizes = rt.shape[2..].to_vec();
    let outs = lc.operand_type(0)?.shape[2..].to_vec();
    let after = pool.plan(&sizes, &outs)?;
    let compute = compute_elem(rt.elem);
    // The gradient of the padded input; its interior is the result.
    let acc = fill_zero(lc, &padded_shape(&rt.shape, &pool.padding, &after)?, compute)?;
    let (n, c) = (rt.shape[0], rt.shape[1]);
    let kernel = pool.kernel.clone();
    // Per plane, tap by tap: for one tap, distinct outputs add into
    // distinct elements, so the loop over the outputs carries nothing.
    lc.kernel("avg_pool_grad", &[g, acc], &mut |s, a| {
        s.nest_flat(&[n, c], &mut |s, nc| {
            s.nest(&kernel, false, &mut |s, tap| {
                let tap = tap.to_vec();
                s.nest(&outs, false, &mut |s, pos| {
                    let mut gi = nc.to_vec();
                    gi.extend_from_slice(pos);
                    let v = s.load(a[0], &gi)?;
                    let v = s.widen(v)?;
                    let div = divisor_at(s, &pool, &sizes, pos, compute)?;
                    let share = s.div(v, div)?;
                    let mut xi = nc.to_vec();
                    xi.extend(tap_at(s, &pool, pos, &tap)?);
                    let old = s.load(a[1], &xi)?;
                    let sum = s.add(old, share)?;
                    s.store(sum, a[1], &xi);
                    Ok(())
                })
            })
        })
    })?;
    let inside = interior(lc, acc, &rt.shape, &pool.padding)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    lc.copy_into(inside, out)?;
    lc.set_result(0, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(kernel: i64, stride: i64, padding: i64, ceil_mode: bool) -> Pool {
        Pool {
            kernel: vec![kernel],
            stride: vec![stride],
            padding: vec![padding],
            dilation: vec![1],
            ceil_mode,
            count_include_pad: true,
            divisor_override: None,
        }
    }

    #[test]
    fn output_sizes_follow_pytorch() {
        // torch.nn.MaxPool1d(3, 2, 1)(torch.zeros(1, 1, 8)).shape[-1] == 4.
        assert_eq!(pool(3, 2, 1, false).out_sizes(&[8]).unwrap(), vec![4]);
        // ceil mode adds a window that starts inside the input ...
        assert_eq!(pool(2, 2, 0, true).out_sizes(&[5]).unwrap(), vec![3]);
        // ... but not one that would start in the right padding.
        assert_eq!(pool(2, 2, 1, true).out_sizes(&[5]).unwrap(), vec![3]);
        assert!(pool(3, 1, 0, false).out_sizes(&[2]).is_err());
    }

    #[test]
    fn divisors_clip_to_the_padded_input_or_the_input() {
        let mut p = pool(3, 2, 1, true);
        // Windows [-1, 2), [1, 4), [3, 6) over 5 elements and padding 1.
        assert_eq!((0..3).map(|o| p.divisor(&[5], &[o])).collect::<Vec<_>>(), vec![3, 3, 3]);
        p.count_include_pad = false;
        assert_eq!((0..3).map(|o| p.divisor(&[5], &[o])).collect::<Vec<_>>(), vec![2, 3, 2]);
    }
}
