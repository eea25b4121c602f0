//! Convolutions: `tensor.conv` (PyTorch's non-transposed `aten.convolution`,
//! with groups, for any number of spatial dimensions) and the two ops its
//! derivative is made of, `tensor.conv_input_grad` (the gradient with
//! respect to the input: a transposed convolution) and
//! `tensor.conv_weight_grad` (with respect to the weight). Each op's shape
//! rule, interpreter kernel, derivative and lowering live here, so that the
//! three agree on one geometry ([`Geometry`]).
//!
//! Invariants: `x [N, C, *S]`, `w [O, C/groups, *K]` and `g [N, O, *Out]`
//! with `Out = (S + 2·padding − dilation·(K − 1) − 1) / stride + 1 ≥ 1`,
//! computed with checked arithmetic; `C` and `O` divide by `groups`. The
//! derivative ops carry what their operands cannot tell (the input's shape,
//! the kernel's size), so every result type is inferred. The three ops are
//! bilinear, and their derivatives are each other: the family is closed
//! under differentiation, so double backward works.
//!
//! Lowering, depthwise (one input channel per group, where a matrix
//! product would have rows of one element): one kernel per op that reads
//! the operands where they lie. Each output element sums its kernel window
//! with the taps unrolled in the innermost loop's body (up to [`UNROLL`] of
//! them), which the vectorizer turns into lane loads and products along the
//! last spatial dimension; zero padding is a padded copy of the operand
//! made first, so that the loop body needs no bound test. The input
//! gradient is the same correlation over the output gradient spread out by
//! the stride and padded, with the kernel flipped; the weight gradient is
//! one reduction per weight element over the batch and the output
//! positions.
//!
//! Lowering, pointwise convolutions (1×1, unit stride, no padding; the
//! convolution and both gradients): matrix products of the operands where
//! they lie ([`Matrix`]): the batch's positions as the rows of one GEMM
//! when the channels are the fastest dimension (the result is then
//! channels-last), else one GEMM per image. A depthwise convolution of a
//! channels-last input is channels-last too, so that the layer norm over
//! channels after it (ConvNeXt's) reads them contiguously.
//!
//! Lowering, other convolutions: the padded input's windows copied once
//! into columns `[G, cg·T, N, P]` (im2col), then one GEMM per group and
//! image written straight into the result's layout (the bias preloaded and
//! accumulated onto). The weight gradient is a GEMM of the output gradient
//! (rows per output channel) with the columns; the input gradient a GEMM of
//! the transposed weight with the output gradient into columns, whose
//! entries are then added back where their windows read (col2im, one
//! parallel iteration per image and channel, so no two write one element).

use super::kernels::unravel;
use crate::autodiff::{Grads, VjpCtx};
use crate::lowering::*;
use crate::r#loop::{self as lp, Binary};
use crate::shape::*;
use aot_ir::*;
use aot_runtime::{KernelCtx, KernelResult};
use smallvec::smallvec;

/// Unrolled kernel taps per loop body at most: ConvNeXt's 7×7 and every
/// smaller 2-d window unroll fully; larger windows loop over their leading
/// dimensions.
pub const UNROLL: i64 = 64;

/// The attributes of the family: `tensor.conv`'s four, then what a
/// derivative op adds.
macro_rules! conv_attrs {
    ($($extra:expr),*) => {
        &[
            AttrSpec::optional("stride", AttrKind::I64List),
            AttrSpec::optional("padding", AttrKind::I64List),
            AttrSpec::optional("dilation", AttrKind::I64List),
            AttrSpec::optional("groups", AttrKind::I64),
            $($extra),*
        ]
    };
}
pub const ATTRS: &[AttrSpec] = conv_attrs!();
pub const INPUT_GRAD_ATTRS: &[AttrSpec] = conv_attrs!(AttrSpec::required("input_shape", AttrKind::I64List));
pub const WEIGHT_GRAD_ATTRS: &[AttrSpec] = conv_attrs!(AttrSpec::required("kernel_size", AttrKind::I64List));

/// Stride, padding, dilation (one per spatial dimension) and groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    pub dilation: Vec<i64>,
    pub groups: i64,
}

impl Geometry {
    /// From an op's attributes, for `k` spatial dimensions (PyTorch's
    /// defaults: stride 1, padding 0, dilation 1, one group).
    pub fn from_attrs(a: &AttrView<'_>, k: usize) -> Result<Geometry, String> {
        let list = |name: &str, default: i64, min: i64| -> Result<Vec<i64>, String> {
            let v = a.list(name).unwrap_or_else(|| vec![default; k]);
            if v.len() != k {
                return Err(format!("'{name}' must have {k} entries (one per spatial dimension), got {}", v.len()));
            }
            if let Some(bad) = v.iter().find(|&&x| x < min) {
                return Err(format!("'{name}' entries must be at least {min}, got {bad}"));
            }
            Ok(v)
        };
        let groups = a.i64("groups").unwrap_or(1);
        if groups < 1 {
            return Err(format!("'groups' must be positive, got {groups}"));
        }
        Ok(Geometry {
            stride: list("stride", 1, 1)?,
            padding: list("padding", 0, 0)?,
            dilation: list("dilation", 1, 1)?,
            groups,
        })
    }

    /// The output's spatial sizes for input sizes `s` and kernel sizes `kk`.
    pub fn out_sizes(&self, s: &[i64], kk: &[i64]) -> Result<Vec<i64>, String> {
        self.out_sizes_in(s, kk, aot_ir::sym::Facts::defaults())
    }

    /// [`Geometry::out_sizes`] where symbolic sizes may use what the
    /// function declares about its symbols (their ranges' lower bounds).
    pub fn out_sizes_in(&self, s: &[i64], kk: &[i64], facts: &aot_ir::sym::Facts) -> Result<Vec<i64>, String> {
        let mut out = Vec::with_capacity(s.len());
        for i in 0..s.len() {
            let span = kk[i]
                .checked_sub(1)
                .and_then(|k1| k1.checked_mul(self.dilation[i]))
                .and_then(|v| v.checked_add(1))
                .ok_or("kernel extent overflows")?;
            if aot_ir::sym::is_symbolic(s[i]) {
                // `(s + 2p - span) floordiv stride + 1`, when the form shows
                // the window fits every size the symbol can take.
                use aot_ir::sym;
                let e = |e: sym::SymError| e.to_string();
                let padded = sym::add(s[i], self.padding[i].checked_mul(2).ok_or("padding overflows")?).map_err(e)?;
                let room = sym::sub(padded, span).map_err(e)?;
                if kk[i] < 1 || !facts.known_le(0, room) {
                    return Err(format!(
                        "kernel size {} (dilated {span}) may be larger than the padded input size {} in spatial \
                         dimension {i}: that needs a guard",
                        kk[i],
                        sym::display(padded)
                    ));
                }
                // (Settled: a size the ranges or a guard pin to a constant
                // is that constant, as the result types say it.)
                out.push(facts.settled(sym::add(sym::floordiv(room, self.stride[i]).map_err(e)?, 1).map_err(e)?));
                continue;
            }
            let padded =
                self.padding[i].checked_mul(2).and_then(|p| p.checked_add(s[i])).ok_or("padded size overflows")?;
            if kk[i] < 1 || padded < span {
                return Err(format!(
                    "kernel size {} (dilated {span}) is larger than the padded input size {padded} in spatial dimension {i}",
                    kk[i]
                ));
            }
            out.push((padded - span) / self.stride[i] + 1);
        }
        Ok(out)
    }

    /// `g`'s shape for input `x` and weight `w` shapes, checking channels.
    pub fn result_shape(&self, x: &[i64], w: &[i64]) -> Result<Vec<i64>, String> {
        self.result_shape_in(x, w, aot_ir::sym::Facts::defaults())
    }

    /// [`Geometry::result_shape`] with the function's facts.
    pub fn result_shape_in(&self, x: &[i64], w: &[i64], facts: &aot_ir::sym::Facts) -> Result<Vec<i64>, String> {
        let k = x
            .len()
            .checked_sub(2)
            .filter(|&k| k >= 1)
            .ok_or("the input must be [N, C, *spatial] with at least one spatial dimension")?;
        if w.len() != x.len() {
            return Err(format!("the weight must have rank {} like the input, got rank {}", x.len(), w.len()));
        }
        let (c, o, g) = (x[1], w[0], self.groups);
        if g != 1 && (aot_ir::sym::is_symbolic(c) || aot_ir::sym::is_symbolic(o)) {
            return Err(format!(
                "channels {} and {} in {g} groups: symbolic channels are supported with one group only",
                aot_ir::sym::display(c),
                aot_ir::sym::display(o)
            ));
        }
        if c % g != 0 || o % g != 0 {
            return Err(format!("{c} input and {o} output channels must both divide into {g} groups"));
        }
        if w[1] != c / g {
            return Err(format!(
                "the weight must have {} input channels per group ({c} / {g} groups), got {}",
                c / g,
                w[1]
            ));
        }
        let mut out = vec![x[0], o];
        out.extend(self.out_sizes_in(&x[2..2 + k], &w[2..], facts)?);
        Ok(out)
    }
}

fn geometry_of(ic: &InferCtx<'_>, rank: usize) -> Result<Geometry, String> {
    if rank < 3 {
        return Err(format!("operands must be [N, C, *spatial] with at least one spatial dimension, got rank {rank}"));
    }
    Geometry::from_attrs(&ic.attr_view(), rank - 2)
}

fn float_elem(ic: &InferCtx<'_>) -> Result<ElemType, String> {
    let e = same_elem(ic)?;
    require_float(e, "a convolution")?;
    Ok(e)
}

pub fn infer_conv(ic: &InferCtx<'_>) -> InferResult {
    let e = float_elem(ic)?;
    let (x, w) = (operand_tensor(ic, 0)?, operand_tensor(ic, 1)?);
    let geo = geometry_of(ic, x.rank())?;
    let out = geo.result_shape_in(&x.shape, &w.shape, ic.facts())?;
    if ic.operand_types.len() == 3 {
        let b = operand_tensor(ic, 2)?;
        if b.shape[..] != [w.shape[0]] {
            return Err(format!("the bias must have shape [{}], got {b}", w.shape[0]));
        }
    }
    one(out, e)
}

pub fn infer_input_grad(ic: &InferCtx<'_>) -> InferResult {
    let e = float_elem(ic)?;
    let (g, w) = (operand_tensor(ic, 0)?, operand_tensor(ic, 1)?);
    let x = attr_list(ic, "input_shape")?;
    if x.len() != g.rank() || x.iter().any(|&d| d < 0 && !aot_ir::sym::is_symbolic(d)) {
        return Err(format!("'input_shape' must have rank {} and no negative size, got {}", g.rank(), fmt_shape(&x)));
    }
    let geo = geometry_of(ic, g.rank())?;
    let expect = geo.result_shape_in(&x, &w.shape, ic.facts())?;
    if expect[..] != g.shape[..] {
        return Err(format!("the output gradient must have shape {expect:?} for input {x:?}, got {g}"));
    }
    one(x, e)
}

pub fn infer_weight_grad(ic: &InferCtx<'_>) -> InferResult {
    let e = float_elem(ic)?;
    let (g, x) = (operand_tensor(ic, 0)?, operand_tensor(ic, 1)?);
    let kk = attr_list(ic, "kernel_size")?;
    let geo = geometry_of(ic, x.rank())?;
    if kk.len() + 2 != x.rank() || g.rank() != x.rank() {
        return Err(format!(
            "'kernel_size' must have {} entries and the output gradient rank {}",
            x.rank().saturating_sub(2),
            x.rank()
        ));
    }
    if geo.groups != 1 && (aot_ir::sym::is_symbolic(g.shape[1]) || aot_ir::sym::is_symbolic(x.shape[1])) {
        return Err(format!("symbolic channels of {x} are supported with one group only"));
    }
    if g.shape[1] % geo.groups != 0 || x.shape[1] % geo.groups != 0 {
        return Err(format!("channels {} and {} must divide into {} groups", x.shape[1], g.shape[1], geo.groups));
    }
    let mut w = vec![g.shape[1], x.shape[1] / geo.groups];
    w.extend(kk);
    let expect = geo.result_shape_in(&x.shape, &w, ic.facts())?;
    if expect[..] != g.shape[..] {
        return Err(format!(
            "the output gradient must have shape {expect:?} for input {} and weight {w:?}, got {g}",
            x
        ));
    }
    one(w, e)
}

// ----- interpreter -----

/// Calls `f(x_index, w_index, y_index)` (row-major flat positions) for every
/// product of a convolution of `x` shape and `w` shape whose input element
/// lies inside the input (zero padding contributes nothing).
fn for_each_product(geo: &Geometry, xs: &[i64], ws: &[i64], ys: &[i64], f: &mut dyn FnMut(usize, usize, usize)) {
    let k = xs.len() - 2;
    let (cg, og) = (ws[1], ws[0] / geo.groups);
    let taps: Vec<i64> = ws[2..].to_vec();
    let outs: Vec<i64> = ys[2..].to_vec();
    let ntaps: i64 = taps.iter().product();
    let nout: i64 = outs.iter().product();
    let mut pos = vec![0usize; k];
    let mut tap = vec![0usize; k];
    for n in 0..xs[0] {
        for o in 0..ws[0] {
            let grp = o / og;
            for p in 0..nout {
                unravel(p as usize, &outs, &mut pos);
                let yi = ((n * ys[1] + o) * nout + p) as usize;
                for r in 0..cg {
                    let xc = grp * cg + r;
                    for t in 0..ntaps {
                        unravel(t as usize, &taps, &mut tap);
                        let mut xi = n * xs[1] + xc;
                        let mut inside = true;
                        for i in 0..k {
                            let at = pos[i] as i64 * geo.stride[i] + tap[i] as i64 * geo.dilation[i] - geo.padding[i];
                            inside &= (0..xs[2 + i]).contains(&at);
                            xi = xi * xs[2 + i] + at;
                        }
                        if inside {
                            let wi = ((o * cg + r) * ntaps + t) as usize;
                            f(xi as usize, wi, yi);
                        }
                    }
                }
            }
        }
    }
}

fn geometry_k(k: &KernelCtx<'_>, rank: usize) -> Result<Geometry, String> {
    Geometry::from_attrs(&AttrView::of_op(k.ctx, k.op), rank - 2)
}

pub fn kernel_conv(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, w) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let (xs, ws) = (x.sizes(), w.sizes());
    let geo = geometry_k(k, xs.len())?;
    let (vx, vw) = (x.read_f64(), w.read_f64());
    let mut out = vec![0.0f64; numel(&rt.shape) as usize];
    if k.inputs.len() == 3 {
        let b = k.input(2).read_f64();
        let per = numel(&rt.shape[2..]) as usize;
        for (i, y) in out.iter_mut().enumerate() {
            *y = b[(i / per) % b.len()];
        }
    }
    for_each_product(&geo, &xs, &ws, &rt.shape, &mut |xi, wi, yi| out[yi] += vx[xi] * vw[wi]);
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &out)])
}

pub fn kernel_input_grad(k: &mut KernelCtx<'_>) -> KernelResult {
    let (g, w) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let (gs, ws) = (g.sizes(), w.sizes());
    let geo = geometry_k(k, gs.len())?;
    let (vg, vw) = (g.read_f64(), w.read_f64());
    let mut out = vec![0.0f64; numel(&rt.shape) as usize];
    for_each_product(&geo, &rt.shape, &ws, &gs, &mut |xi, wi, yi| out[xi] += vg[yi] * vw[wi]);
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &out)])
}

pub fn kernel_weight_grad(k: &mut KernelCtx<'_>) -> KernelResult {
    let (g, x) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let (gs, xs) = (g.sizes(), x.sizes());
    let geo = geometry_k(k, xs.len())?;
    let (vg, vx) = (g.read_f64(), x.read_f64());
    let mut out = vec![0.0f64; numel(&rt.shape) as usize];
    for_each_product(&geo, &xs, &rt.shape, &gs, &mut |xi, wi, yi| out[wi] += vg[yi] * vx[xi]);
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &out)])
}

// ----- derivatives -----

/// The geometry attributes of the op being differentiated, plus `extra`.
fn geometry_attrs(c: &mut VjpCtx<'_, '_>, extra: Option<(&'static str, Vec<i64>)>) -> Vec<(&'static str, Attribute)> {
    let mut out = Vec::new();
    for name in ["stride", "padding", "dilation", "groups"] {
        if let Some(a) = c.attrs().get(name) {
            out.push((name, a));
        }
    }
    if let Some((name, v)) = extra {
        let a = c.rw.i64_list_attr(&v);
        out.push((name, a));
    }
    out
}

fn conv_of(c: &mut VjpCtx<'_, '_>, x: Value, w: Value) -> Result<Value, Diagnostic> {
    let attrs = geometry_attrs(c, None);
    c.op1(ConvOp::NAME, &[x, w], &attrs)
}

fn input_grad_of(c: &mut VjpCtx<'_, '_>, g: Value, w: Value, input: Value) -> Result<Value, Diagnostic> {
    let shape = c.shape(input)?;
    let attrs = geometry_attrs(c, Some(("input_shape", shape)));
    c.op1(ConvInputGradOp::NAME, &[g, w], &attrs)
}

fn weight_grad_of(c: &mut VjpCtx<'_, '_>, g: Value, x: Value, weight: Value) -> Result<Value, Diagnostic> {
    let kk = c.shape(weight)?[2..].to_vec();
    let attrs = geometry_attrs(c, Some(("kernel_size", kk)));
    c.op1(ConvWeightGradOp::NAME, &[g, x], &attrs)
}

/// `y = conv(x, w) + b`: `gx = conv_input_grad(g, w)`, `gw =
/// conv_weight_grad(g, x)`, `gb = Σ g` over all but the channels.
pub fn vjp_conv(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let (g, x, w) = (c.g()?, c.x(0), c.x(1));
    let gx = if c.need(0) { Some(input_grad_of(c, g, w, x)?) } else { None };
    let gw = if c.need(1) { Some(weight_grad_of(c, g, x, w)?) } else { None };
    let gb = if c.inputs.len() > 2 && c.need(2) {
        let rank = c.shape(g)?.len() as i64;
        let dims: Vec<i64> = std::iter::once(0).chain(2..rank).collect();
        Some(c.sum(g, &dims, false)?)
    } else {
        None
    };
    Ok(c.grads([gx, gw, gb]))
}

/// `y = conv_input_grad(g, w)` is `conv(·, w)`'s adjoint applied to `g`:
/// `⟨G, y⟩ = ⟨conv(G, w), g⟩`, so `dg = conv(G, w)` and `dw =
/// conv_weight_grad(g, G)`.
pub fn vjp_input_grad(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let (gy, g, w) = (c.g()?, c.x(0), c.x(1));
    let dg = if c.need(0) { Some(conv_of(c, gy, w)?) } else { None };
    let dw = if c.need(1) { Some(weight_grad_of(c, g, gy, w)?) } else { None };
    Ok(c.grads([dg, dw]))
}

/// `y = conv_weight_grad(g, x)`: `⟨W, y⟩ = ⟨conv(x, W), g⟩`, so `dg =
/// conv(x, W)` and `dx = conv_input_grad(g, W)`.
pub fn vjp_weight_grad(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let (gy, g, x) = (c.g()?, c.x(0), c.x(1));
    let dg = if c.need(0) { Some(conv_of(c, x, gy)?) } else { None };
    let dx = if c.need(1) { Some(input_grad_of(c, g, gy, x)?) } else { None };
    Ok(c.grads([dg, dx]))
}

// ----- lowering -----

/// `x` ([N, C, *S]) with `before[i]` and `after[i]` zeros around spatial
/// dimension `i`: `x` itself when there are none, else a fresh buffer.
/// `a · b` of sizes, either of which may be symbolic (the batch).
pub(super) fn mul(a: i64, b: i64) -> Result<i64, String> {
    aot_ir::sym::mul(a, b).map_err(|e| e.to_string())
}

/// The element count of `shape`, symbolic where a size is.
fn count(shape: &[i64]) -> Result<i64, String> {
    aot_ir::sym::numel(shape).map_err(|e| e.to_string())
}

/// Refuses an op of the family (or a pooling op) with a symbolic size
/// where its lowering needs a constant: any size of the operands and
/// results listed in `weights` (a weight or bias, whose sizes pick the
/// unrolled taps and the GEMMs' inner shapes), and unless `channels` the
/// channels (dimension 1) of every other one (a convolution's are its
/// weight's). The batch and the image sizes may be symbolic (and a
/// pooling's channels, which only count planes): they are loop bounds,
/// buffer sizes, strides and offsets, computed through `aot_ir::sym` and
/// read at run time.
///
/// With `contiguous`, an operand whose layout has a symbolic stride or
/// offset and is not row-major at offset 0 is copied into a contiguous
/// buffer first: the convolutions' GEMM paths choose their matrices by
/// comparing strides, which is decided for a row-major layout only.
/// Pooling reads its operands where they lie.
pub(super) fn symbolic_images(
    lc: &mut LowerCtx<'_, '_>,
    weights: &[Slot],
    channels: bool,
    contiguous: bool,
) -> Result<(), String> {
    let sym = aot_ir::sym::is_symbolic;
    let needs_static = |slot: Slot, shape: &[i64]| -> Option<usize> {
        if weights.contains(&slot) {
            shape.iter().position(|&d| sym(d))
        } else {
            (!channels && shape.get(1).is_some_and(|&d| sym(d))).then_some(1)
        }
    };
    for i in 0..lc.operands.len() {
        let m = lc.operand_type(i)?;
        if let Some(d) = needs_static(Slot::Operand(i), &m.shape) {
            return Err(format!("does not lower with a symbolic size in dimension {d} of operand {i} ({m})"));
        }
        let (strides, off) = lp::layout(&m);
        let symbolic_layout = strides.iter().any(|&d| sym(d)) || sym(off);
        if contiguous && symbolic_layout && !(off == 0 && is_row_major(&m.shape, &strides)) {
            let v = lc.operands[i];
            lc.operands[i] = lc.contiguous(v)?;
        }
    }
    for i in 0..lc.ctx().num_results(lc.op) {
        let t = lc.result_type(i)?;
        if let Some(d) = needs_static(Slot::Result(i), &t.shape) {
            return Err(format!("does not lower with a symbolic size in dimension {d} of result {i} ({t})"));
        }
    }
    Ok(())
}

/// An operand or a result of the op being lowered.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Operand(usize),
    Result(usize),
}

/// Whether `a >= b` at the symbols' hint ([`aot_ir::sym::at_hint`]): for
/// choices between two correct lowerings (which GEMM shape pays), made
/// once for every size a symbolic function takes.
fn at_least(a: i64, b: i64) -> bool {
    aot_ir::sym::at_hint(a).is_some_and(|a| aot_ir::sym::at_hint(b).is_some_and(|b| a >= b))
}

/// `a + b` of sizes, either of which may be symbolic.
pub(super) fn add(a: i64, b: i64) -> Result<i64, String> {
    aot_ir::sym::add(a, b).map_err(|e| e.to_string())
}

fn padded(lc: &mut LowerCtx<'_, '_>, x: Value, before: &[i64], after: &[i64]) -> Result<Value, String> {
    padded_with(lc, x, before, after, 0.0)
}

/// [`padded`] with `value` around `x` (max pooling pads with `-inf`).
pub(super) fn padded_with(
    lc: &mut LowerCtx<'_, '_>,
    x: Value,
    before: &[i64],
    after: &[i64],
    value: f64,
) -> Result<Value, String> {
    if before.iter().chain(after).all(|&p| p == 0) {
        return Ok(x);
    }
    let m = lp::memref(lc.ctx(), x).cloned().ok_or("padding a non-buffer")?;
    let shape = padded_shape(&m.shape, before, after)?;
    let buf = fill(lc, &shape, m.elem, value)?;
    let inside = interior(lc, buf, &m.shape, before)?;
    lc.copy_into(x, inside)?;
    Ok(buf)
}

/// `shape` (`[N, C, *spatial]`) with `before[i] + after[i]` added to
/// spatial dimension `i`.
pub(super) fn padded_shape(shape: &[i64], before: &[i64], after: &[i64]) -> Result<Vec<i64>, String> {
    let mut out = shape.to_vec();
    for (i, (&b, &a)) in before.iter().zip(after).enumerate() {
        let padding = b.checked_add(a).ok_or("the padded operand's size overflows")?;
        out[2 + i] = add(out[2 + i], padding).map_err(|e| format!("the padded operand's size: {e}"))?;
    }
    Ok(out)
}

/// The `shape` region of contiguous padded buffer `buf` that starts
/// `before[i]` into each spatial dimension: where the unpadded tensor lies.
pub(super) fn interior(lc: &mut LowerCtx<'_, '_>, buf: Value, shape: &[i64], before: &[i64]) -> Result<Value, String> {
    let m = lp::memref(lc.ctx(), buf).cloned().ok_or("not a buffer")?;
    let strides = row_major(&m.shape);
    let mut offset = 0;
    for (i, &b) in before.iter().enumerate() {
        offset = add(offset, mul(b, strides[2 + i])?)?;
    }
    lc.view(buf, shape, &strides, offset)
}

/// `v`, or a contiguous copy of it when its last dimension is not
/// contiguous: the kernels' innermost loops run along that dimension, and
/// only unit-stride loads move whole vectors (a reduction with a strided
/// load stays scalar). A gradient arriving through a channels-last
/// permutation (ConvNeXt's layer norms) is such an operand.
pub(super) fn unit_stride_last(lc: &mut LowerCtx<'_, '_>, v: Value) -> Result<Value, String> {
    let m = lp::memref(lc.ctx(), v).cloned().ok_or("not a buffer")?;
    let (strides, _) = lp::layout(&m);
    // (A symbolic size may be more than 1.)
    match (m.shape.last(), strides.last()) {
        (Some(&n), Some(&s)) if (n > 1 || aot_ir::sym::is_symbolic(n)) && s != 1 => lc.contiguous(v),
        _ => Ok(v),
    }
}

/// A fresh buffer of zeros.
pub(super) fn fill_zero(lc: &mut LowerCtx<'_, '_>, shape: &[i64], e: ElemType) -> Result<Value, String> {
    fill(lc, shape, e, 0.0)
}

/// A fresh buffer holding `value` everywhere.
pub(super) fn fill(lc: &mut LowerCtx<'_, '_>, shape: &[i64], e: ElemType, value: f64) -> Result<Value, String> {
    let buf = lc.alloc(shape, e);
    fill_with(lc, buf, value)?;
    Ok(buf)
}

/// Writes zeros into the whole of `buf`, a fresh contiguous buffer.
fn zero(lc: &mut LowerCtx<'_, '_>, buf: Value) -> Result<(), String> {
    fill_with(lc, buf, 0.0)
}

/// Writes `value` into the whole of `buf`, a fresh contiguous buffer.
fn fill_with(lc: &mut LowerCtx<'_, '_>, buf: Value, value: f64) -> Result<(), String> {
    let m = lp::memref(lc.ctx(), buf).cloned().ok_or("not a buffer")?;
    let flat = count(&m.shape)?;
    let view = lc.view(buf, &[flat], &[1], 0)?;
    lc.kernel(if value == 0.0 { "zero" } else { "fill" }, &[view], &mut |s, a| {
        s.nest(&[flat], true, &mut |s, ivs| {
            let z = s.const_f(value, ElemType::F64);
            let z = convert(s, z, m.elem)?;
            s.store(z, a[0], ivs);
            Ok(())
        })
    })
}

/// Fewest elements per stretch of a correlation's row: a vector of f32
/// lanes on the host (Cranelift's are four wide); shorter stretches would
/// leave each to the scalar remainder loop.
const LANES: i64 = 4;

/// Into how many equal stretches a correlation splits each output row of
/// `len` elements to compute them side by side: up to four, each at least
/// one vector of lanes (one stretch for a symbolic length, whose division
/// is not known). Every tap's weight is then loaded (and broadcast
/// into lanes) once per iteration for all of them, where one stretch
/// loads it once per vector: a depthwise 7×7 kernel spent more of its
/// instructions on the 49 weights than on the products.
fn stretches(len: i64) -> i64 {
    if aot_ir::sym::is_symbolic(len) {
        return 1;
    }
    (1..=4).rev().find(|&r| len % r == 0 && len / r >= LANES).unwrap_or(1)
}

/// How an output channel of a correlation finds its source channels and
/// weights: output channel `co` belongs to group `co / per`, and sums the
/// `red` source channels `group·red + r`.
#[derive(Clone, Copy)]
enum Channels {
    /// A convolution: weight `[co, r, tap]`.
    Forward,
    /// The input gradient: the source channels are the group's outputs,
    /// weight `[group·red + r, co % per, tap]`.
    Transposed,
}

/// `out[n, co, p] = (bias[co]) + Σ_r Σ_t src[n, ch(co, r), p·stride + t·dilation]
/// · w[...]` over a padded `src`, taps read flipped when `flip`.
struct Correlation {
    stride: Vec<i64>,
    dilation: Vec<i64>,
    kernel: Vec<i64>,
    per: i64,
    red: i64,
    channels: Channels,
    flip: bool,
}

impl Correlation {
    fn emit(
        &self,
        lc: &mut LowerCtx<'_, '_>,
        src: Value,
        w: Value,
        bias: Option<Value>,
        out: Value,
    ) -> Result<(), String> {
        let om = lp::memref(lc.ctx(), out).cloned().ok_or("output is not a buffer")?;
        let k = self.kernel.len();
        if self.red == 0 {
            // No channel to read (a zero-channel input): the bias, or zero.
            let shape = om.shape.to_vec();
            let mut buffers = vec![out];
            buffers.extend(bias);
            return lc.kernel("conv_empty", &buffers, &mut |s, a| {
                s.nest(&shape, true, &mut |s, ivs| {
                    let v = match a.get(1) {
                        Some(&b) => s.load(b, &[ivs[1]])?,
                        None => s.const_f(0.0, compute_elem(om.elem)),
                    };
                    s.store_as(v, a[0], ivs)
                })
            });
        }
        let (n, co) = (om.shape[0], om.shape[1]);
        let outs = om.shape[2..].to_vec();
        // Unroll the trailing kernel dimensions whose product fits.
        let mut split = k;
        let mut unrolled = 1i64;
        while split > 0 && unrolled * self.kernel[split - 1] <= UNROLL {
            split -= 1;
            unrolled *= self.kernel[split];
        }
        let looped: Vec<i64> = std::iter::once(self.red).chain(self.kernel[..split].iter().copied()).collect();
        let passes: i64 = looped.iter().product();
        let compute = compute_elem(om.elem);
        // Several passes add into the output: in a scratch buffer of the
        // compute type when the output is a storage type (f16, bf16).
        let acc_buf = if passes > 1 && compute != om.elem { fill_zero(lc, &om.shape, compute)? } else { out };
        if passes > 1 && acc_buf == out {
            zero(lc, out)?;
        }
        let mut buffers = vec![src, w, acc_buf];
        if let Some(b) = bias {
            buffers.push(b);
        }
        let mut outer = vec![mul(n, co)?];
        outer.extend_from_slice(&outs[..k - 1]);
        let last = outs[k - 1];
        lc.kernel("conv", &buffers, &mut |s, a| {
            let (src, w, dst) = (a[0], a[1], a[2]);
            let bias = a.get(3).copied();
            s.nest(&outer, true, &mut |s, ivs| {
                let nc = s.delinearize(ivs[0], &[n, co])?;
                let (ni, ci) = (nc[0], nc[1]);
                let per = s.index(self.per);
                let grp = s.bin(Binary::Div, ci, per)?;
                let red = s.index(self.red);
                let base = s.mul(grp, red)?;
                let pos_outer: Vec<Value> = ivs[1..].to_vec();
                let body = &mut |s: &mut Scalars<'_, '_>, lv: &[Value]| -> Result<(), String> {
                    // lv: r, then the looped kernel indices.
                    let (r, tl) = (lv[0], &lv[1..]);
                    let sc = s.add(base, r)?;
                    let (w0, w1) = match self.channels {
                        Channels::Forward => (ci, r),
                        Channels::Transposed => (sc, s.bin(Binary::Rem, ci, per)?),
                    };
                    // The row in `parts` stretches computed side by side:
                    // each tap's weight is loaded once for all of them.
                    let parts = stretches(last);
                    let len = last / parts;
                    s.for_loop(0, len, 1, false, &[], &mut |s, j, _| {
                        let mut ps = Vec::with_capacity(parts as usize);
                        let mut accs = Vec::with_capacity(parts as usize);
                        for part in 0..parts {
                            let mut p = pos_outer.clone();
                            let from = s.index(part * len);
                            p.push(s.add(j, from)?);
                            let mut yi = vec![ni, ci];
                            yi.extend_from_slice(&p);
                            accs.push(if passes > 1 {
                                let v = s.load(dst, &yi)?;
                                s.widen(v)?
                            } else if let Some(b) = bias {
                                let v = s.load(b, &[ci])?;
                                s.widen(v)?
                            } else {
                                s.const_f(0.0, compute)
                            });
                            ps.push((p, yi));
                        }
                        for u in 0..unrolled {
                            let mut tap: Vec<Value> = tl.to_vec();
                            let mut rest = u;
                            let mut tail = vec![0i64; k - split];
                            for d in (split..k).rev() {
                                tail[d - split] = rest % self.kernel[d];
                                rest /= self.kernel[d];
                            }
                            for &t in &tail {
                                tap.push(s.index(t));
                            }
                            let mut wi = vec![w0, w1];
                            for (&t, &size) in tap.iter().zip(&self.kernel) {
                                wi.push(if self.flip {
                                    let last = s.index(size - 1);
                                    s.sub(last, t)?
                                } else {
                                    t
                                });
                            }
                            let wv = s.load(w, &wi)?;
                            let wv = s.widen(wv)?;
                            for ((p, _), acc) in ps.iter().zip(accs.iter_mut()) {
                                let geo = (&self.stride[..], &self.dilation[..]);
                                let xi = window_at(s, &[ni, sc], geo, p, &tap)?;
                                let xv = s.load(src, &xi)?;
                                let xv = s.widen(xv)?;
                                let prod = s.mul(xv, wv)?;
                                *acc = s.add(*acc, prod)?;
                            }
                        }
                        for ((_, yi), acc) in ps.iter().zip(accs) {
                            s.store_as(acc, dst, yi)?;
                        }
                        Ok(Vec::new())
                    })?;
                    Ok(())
                };
                if passes == 1 {
                    let zero = s.index(0);
                    body(s, &[zero])
                } else {
                    // Sequential passes over (r, leading taps), each adding
                    // into the output row.
                    s.nest(&looped, false, body)
                }
            })
        })?;
        if let (true, Some(b)) = (passes > 1, bias) {
            // The passes started from zero: the bias is added once.
            let shape = om.shape.to_vec();
            lc.kernel("conv_bias", &[acc_buf, b], &mut |s, a| {
                s.nest(&shape, true, &mut |s, ivs| {
                    let v = s.load(a[0], ivs)?;
                    let bv = s.load(a[1], &[ivs[1]])?;
                    let bv = s.widen(bv)?;
                    let r = s.add(v, bv)?;
                    s.store_as(r, a[0], ivs)
                })
            })?;
        }
        if acc_buf != out {
            lc.copy_into(acc_buf, out)?;
        }
        Ok(())
    }
}

/// The input position (`[lead.., p·stride + tap·dilation ..]`) that output
/// position `pos` reads at kernel tap `tap`.
fn window_at(
    s: &mut Scalars<'_, '_>,
    lead: &[Value],
    (stride, dilation): (&[i64], &[i64]),
    pos: &[Value],
    tap: &[Value],
) -> Result<Vec<Value>, String> {
    let mut at = lead.to_vec();
    for d in 0..pos.len() {
        let st = s.index(stride[d]);
        let o = s.mul(pos[d], st)?;
        let dl = s.index(dilation[d]);
        let off = s.mul(tap[d], dl)?;
        at.push(s.add(o, off)?);
    }
    Ok(at)
}

/// Whether a convolution with `cg` input channels per group is computed
/// by the direct kernels (windowed sums: depthwise ones, which would make
/// GEMMs of one row) rather than through columns and a matrix product.
fn direct(cg: i64) -> bool {
    cg == 1
}

/// The windows of a padded `xp` ([N, C, *Sp]) as columns: a fresh buffer
/// `[G, cg·T, N, P]` (T kernel taps, P output positions) holding
/// `xp[n, g·cg + ci, p·stride + t·dilation]` at `[g, ci·T + t, n, p]`.
fn im2col(
    lc: &mut LowerCtx<'_, '_>,
    xp: Value,
    geo: &Geometry,
    cg: i64,
    kernel: &[i64],
    outs: &[i64],
) -> Result<Value, String> {
    let xm = lp::memref(lc.ctx(), xp).cloned().ok_or("not a buffer")?;
    let (n, k) = (xm.shape[0], kernel.len());
    let taps = numel(kernel);
    let positions = count(outs)?;
    let cols = lc.alloc(&[geo.groups, cg * taps, n, positions], xm.elem);
    // The same buffer as [C, *K, N, *Out] (C = G·cg: a row's group and
    // channel within it are the channel itself): one loop per dimension,
    // so that the load's channel is an induction variable. (A flat index
    // split by division left a `rem` in every address, through which
    // `fuse` could not simplify an inlined producer's indices: the
    // producer's divisions then ran per element, unvectorized.)
    let mut shape = vec![geo.groups * cg];
    shape.extend_from_slice(kernel);
    shape.push(n);
    shape.extend_from_slice(outs);
    let view = lc.view(cols, &shape, &row_major(&shape), 0)?;
    lc.kernel("im2col", &[xp, view], &mut |s, a| {
        s.nest(&shape, true, &mut |s, ivs| {
            let (ch, tap, ni, pos) = (ivs[0], &ivs[1..1 + k], ivs[1 + k], &ivs[2 + k..]);
            let xi = window_at(s, &[ni, ch], (&geo.stride, &geo.dilation), pos, tap)?;
            let v = s.load(a[0], &xi)?;
            s.store(v, a[1], ivs);
            Ok(())
        })
    })?;
    Ok(cols)
}

/// The output gradient `g` ([N, O, *Out]) as rows `[G, og, N·P]`: one
/// row per output channel, the batch and the positions its columns (the
/// depth of the weight gradient's GEMM, the columns of the input
/// gradient's). A view of `g` itself for one image with contiguous
/// positions, else a copy.
fn channel_rows(lc: &mut LowerCtx<'_, '_>, g: Value, groups: i64) -> Result<Value, String> {
    let m = lp::memref(lc.ctx(), g).cloned().ok_or("not a buffer")?;
    let (n, o) = (m.shape[0], m.shape[1]);
    let og = o / groups;
    let outs = m.shape[2..].to_vec();
    let depth = mul(n, count(&outs)?)?;
    let (strides, off) = lp::layout(&m);
    let rm = row_major(&m.shape);
    let flat = (2..m.shape.len()).all(|d| m.shape[d] == 1 || strides[d] == rm[d]);
    if n == 1 && flat && (o == 1 || strides[1] == rm[1]) {
        return lc.view(g, &[groups, og, depth], &[mul(og, rm[1])?, rm[1], 1], off);
    }
    let mut shape = vec![groups, og, n];
    shape.extend_from_slice(&outs);
    let mut from_strides = vec![mul(og, strides[1])?, strides[1], strides[0]];
    from_strides.extend_from_slice(&strides[2..]);
    let from = lc.view(g, &shape, &from_strides, off)?;
    let rows = lc.alloc(&shape, m.elem);
    lc.copy_into(from, rows)?;
    lc.view(rows, &[groups, og, depth], &[mul(og, depth)?, depth, 1], 0)
}

/// Whether `m` (`[N, C, *spatial]`) has its channels closer together than
/// any other dimension of more than one element: channels-last, or an
/// image's channels at one position (`[N, C, 1, 1]`).
fn channel_minor(m: &MemRefType) -> bool {
    let (st, _) = lp::layout(m);
    // (A symbolic layout reaching here is row-major: `symbolic_images`.)
    if !aot_ir::sym::is_static(&st) {
        return false;
    }
    m.shape.len() > 2 && m.shape[1] > 1 && (0..m.shape.len()).all(|d| d == 1 || m.shape[d] == 1 || st[d] > st[1])
}

/// A fresh channels-last buffer: `[N, *spatial, C]` in memory, viewed as
/// `shape` (`[N, C, *spatial]`).
fn channels_last(lc: &mut LowerCtx<'_, '_>, shape: &[i64], e: ElemType) -> Result<Value, String> {
    let mut dense = vec![shape[0]];
    dense.extend_from_slice(&shape[2..]);
    dense.push(shape[1]);
    let buf = lc.alloc(&dense, e);
    let rm = row_major(&dense);
    let mut strides = vec![rm[0], 1];
    strides.extend_from_slice(&rm[1..rm.len() - 1]);
    lc.view(buf, shape, &strides, 0)
}

/// Fewest output positions per image for which a pointwise convolution of
/// a channel-major input runs one GEMM per image (`W · Xₙ`, written
/// straight into the result) rather than copying every image's columns
/// side by side first: a narrower product wastes most of the micro-kernel's
/// sixteen columns (a late stage's 2×2 maps), where the copy is small.
const PER_IMAGE_POSITIONS: i64 = 64;

/// The stride of the row-major run over `shape` (with `strides`) when its
/// positions form one: every dimension of more than one element steps
/// over the whole of the dimensions inside it. None otherwise (a slice, a
/// permutation); 1 for a single position.
fn collapsed_stride(shape: &[i64], strides: &[i64]) -> Option<i64> {
    let mut unit = None;
    let mut next = None;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n == 1 {
            continue;
        }
        match next {
            None => unit = Some(s),
            Some(e) if e == s => {}
            Some(_) => return None,
        }
        next = Some(aot_ir::sym::mul(s, n).ok()?);
    }
    Some(unit.unwrap_or(1))
}

/// Whether the convolution is pointwise: a 1×1 kernel (`kernel`), unit
/// stride, no padding. Its input and output positions are then the same.
fn is_pointwise(geo: &Geometry, kernel: &[i64]) -> bool {
    kernel.iter().all(|&k| k == 1) && geo.stride.iter().all(|&s| s == 1) && geo.padding.iter().all(|&p| p == 0)
}

/// How the GEMMs of a pointwise convolution read a `[N, C, *spatial]`
/// operand where it lies.
#[derive(Clone, Copy, Debug)]
enum Matrix {
    /// The batch and the positions form one run of rows (stride `rows`)
    /// and the channels step faster (`chans`): a `[N·P, C]` matrix
    /// (channels-last, or `[N, C, 1, 1]`).
    Rows { rows: i64, chans: i64, off: i64 },
    /// Each image's positions form one run (stride `pos`): a `[C, P]`
    /// matrix per image (`image` apart).
    Images { image: i64, chans: i64, pos: i64, off: i64 },
}

impl Matrix {
    fn of(m: &MemRefType) -> Option<Matrix> {
        let (st, off) = lp::layout(m);
        let (n, c) = (m.shape[0], m.shape[1]);
        let spatial = &m.shape[2..];
        let mut rows_shape = vec![n];
        rows_shape.extend_from_slice(spatial);
        let mut rows_strides = vec![st[0]];
        rows_strides.extend_from_slice(&st[2..]);
        let chans = st[1];
        if let Some(rows) = collapsed_stride(&rows_shape, &rows_strides)
            .filter(|&rs| c == 1 || (aot_ir::sym::is_static(&[chans, rs]) && chans < rs))
        {
            return Some(Matrix::Rows { rows, chans, off });
        }
        let pos = collapsed_stride(spatial, &st[2..])?;
        Some(Matrix::Images { image: st[0], chans, pos, off })
    }

    /// Whether per-image products are worth it: [`PER_IMAGE_POSITIONS`]
    /// per image, or one image.
    fn per_image_pays(n: i64, p: i64) -> bool {
        n == 1 || at_least(p, PER_IMAGE_POSITIONS)
    }

    /// `[G, N·P, C/G]` (`Rows`: the rows, channel stride and offset) for `g`
    /// groups of `cg` channels over `m` rows.
    fn rows_view(
        lc: &mut LowerCtx<'_, '_>,
        v: Value,
        (rows, chans, off): (i64, i64, i64),
        (g, m, cg): (i64, i64, i64),
    ) -> R {
        lc.view(v, &[g, m, cg], &[mul(cg, chans)?, rows, chans], off)
    }
}

type R = Result<Value, String>;

/// `buf[..., c, ...] = b[c]` over `shape` (`c` at `dim`): the bias a GEMM
/// then accumulates onto.
fn preload_bias(lc: &mut LowerCtx<'_, '_>, b: Value, buf: Value, shape: &[i64], dim: usize) -> Result<(), String> {
    let shape = shape.to_vec();
    lc.kernel("conv_bias", &[b, buf], &mut |s, a| {
        s.nest(&shape, true, &mut |s, ivs| {
            let v = s.load(a[0], &[ivs[dim]])?;
            s.store_as(v, a[1], ivs)
        })
    })
}

/// The sizes of a pointwise convolution's products: images, groups,
/// input and output channels per group, positions per image.
#[derive(Clone, Copy)]
struct Sizes {
    n: i64,
    g: i64,
    cg: i64,
    og: i64,
    p: i64,
}

impl Sizes {
    /// For a convolution of input shape `x` (`[N, C, *spatial]`), `o`
    /// output channels and kernel `kernel`, whose element types are
    /// `elems`: None unless it is pointwise, runs on an external GEMM (f32
    /// or f64, one type) and has something to compute.
    fn of(geo: &Geometry, x: &[i64], o: i64, kernel: &[i64], elems: &[ElemType]) -> Option<Sizes> {
        let gemm = elems.iter().all(|&e| e == elems[0] && matches!(e, ElemType::F32 | ElemType::F64));
        let (n, c, g, p) = (x[0], x[1], geo.groups, count(&x[2..]).ok()?);
        let sz = Sizes { n, g, cg: c / g, og: o / g, p };
        // (A symbolic size, the batch, is at least 2.)
        let some = |k: i64| aot_ir::sym::is_symbolic(k) || k > 0;
        (is_pointwise(geo, kernel) && gemm && [n, c, o, p].into_iter().all(some)).then_some(sz)
    }
}

/// A pointwise convolution is a matrix product of the weight and the input
/// where it lies: no columns are copied. Two cases:
///
/// - [`Matrix::Rows`]: one GEMM `X [N·P, C] · Wᵀ` per group into a
///   channels-last result, which keeps the channels innermost for the ops
///   after it (a layer norm over channels, the next pointwise convolution);
/// - [`Matrix::Images`]: one GEMM `W · Xₙ` per image and group straight
///   into the result's layout, where that pays
///   ([`Matrix::per_image_pays`]).
///
/// Returns the result, or None where neither applies (the caller copies
/// columns). The bias is preloaded and the products accumulated onto it.
fn pointwise_gemm(lc: &mut LowerCtx<'_, '_>, geo: &Geometry, bias: Option<Value>) -> Result<Option<Value>, String> {
    let rt = lc.result_type(0)?;
    let (xm, wt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let elems = [rt.elem, xm.elem, wt.elem];
    let Some(sz) = Sizes::of(geo, &xm.shape, wt.shape[0], &wt.shape[2..], &elems) else { return Ok(None) };
    let (cg, og) = (sz.cg, sz.og);
    // W as [G, cg, og] (Wᵀ per group), and as [N, G, og, cg] (W per image).
    let through = Through { per_in: cg, per_out: og, rows: [og * cg, 1, cg], images: [0, og * cg, cg, 1] };
    through.apply(lc, &xm, sz, &rt, bias)
}

/// The input gradient of a pointwise convolution, `dX = Wᵀ·dY`: the same
/// products as [`pointwise_gemm`] with the weight transposed (a
/// channels-last output gradient gives a channels-last input gradient).
fn pointwise_input_grad(lc: &mut LowerCtx<'_, '_>, geo: &Geometry) -> Result<Option<Value>, String> {
    let rt = lc.result_type(0)?;
    let (gm, wt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let elems = [rt.elem, gm.elem, wt.elem];
    let Some(sz) = Sizes::of(geo, &rt.shape, wt.shape[0], &wt.shape[2..], &elems) else { return Ok(None) };
    let (cg, og) = (sz.cg, sz.og);
    let through = Through { per_in: og, per_out: cg, rows: [og * cg, cg, 1], images: [0, og * cg, 1, cg] };
    through.apply(lc, &gm, sz, &rt, None)
}

/// A pointwise product of operand 0 (`[N, C_in, *spatial]`) with the
/// weight (operand 1, `[O, cg, 1, ...]`) seen as `per_in × per_out`
/// matrices per group: `rows` the strides of its `[G, per_in, per_out]`
/// view (right of the rows of operand 0), `images` those of its
/// `[N, G, per_out, per_in]` view (left of each image).
struct Through {
    per_in: i64,
    per_out: i64,
    rows: [i64; 3],
    images: [i64; 4],
}

impl Through {
    fn apply(
        &self,
        lc: &mut LowerCtx<'_, '_>,
        src: &MemRefType,
        sz: Sizes,
        rt: &TensorType,
        bias: Option<Value>,
    ) -> Result<Option<Value>, String> {
        let Some(mat) = Matrix::of(src) else { return Ok(None) };
        let (x, w) = (lc.operand(0)?, lc.operand(1)?);
        let (n, g, p) = (sz.n, sz.g, sz.p);
        let (per_in, per_out) = (self.per_in, self.per_out);
        let out_c = g * per_out;
        match mat {
            Matrix::Rows { rows, chans, off } => {
                let m = mul(n, p)?;
                let out = channels_last(lc, &rt.shape, rt.elem)?;
                if let Some(b) = bias {
                    let rows = lc.view(out, &[m, out_c], &[out_c, 1], 0)?;
                    preload_bias(lc, b, rows, &[m, out_c], 1)?;
                }
                let w = lc.contiguous(w)?;
                let a = Matrix::rows_view(lc, x, (rows, chans, off), (g, m, per_in))?;
                let b = lc.view(w, &[g, per_in, per_out], &self.rows, 0)?;
                let c = lc.view(out, &[g, m, per_out], &[per_out, out_c, 1], 0)?;
                super::lowering::batched_matmul(lc, a, b, c, bias.is_some())?;
                Ok(Some(out))
            }
            Matrix::Images { image, chans, pos, off } if Matrix::per_image_pays(n, p) => {
                let y = lc.alloc(&rt.shape, rt.elem);
                if let Some(b) = bias {
                    preload_bias(lc, b, y, &rt.shape, 1)?;
                }
                let w = lc.contiguous(w)?;
                let a = lc.view(w, &[n, g, per_out, per_in], &self.images, 0)?;
                let b = lc.view(x, &[n, g, per_in, p], &[image, mul(per_in, chans)?, chans, pos], off)?;
                let c = lc.view(y, &[n, g, per_out, p], &[mul(out_c, p)?, mul(per_out, p)?, p, 1], 0)?;
                super::lowering::batched_matmul(lc, a, b, c, bias.is_some())?;
                Ok(Some(y))
            }
            Matrix::Images { .. } => Ok(None),
        }
    }
}

/// The weight gradient of a pointwise convolution, `dW = Σ dY·Xᵀ` over the
/// images and positions, from both operands where they lie: one GEMM over
/// every row when both are [`Matrix::Rows`], per-image GEMMs added up when
/// both are [`Matrix::Images`] (where that pays); None otherwise.
fn pointwise_weight_grad(lc: &mut LowerCtx<'_, '_>, geo: &Geometry) -> Result<Option<Value>, String> {
    let rt = lc.result_type(0)?;
    let (gm, xm) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let elems = [rt.elem, gm.elem, xm.elem];
    let Some(Sizes { n, g, cg, og, p, .. }) = Sizes::of(geo, &xm.shape, rt.shape[0], &rt.shape[2..], &elems) else {
        return Ok(None);
    };
    let (dy, x) = (lc.operand(0)?, lc.operand(1)?);
    match (Matrix::of(&gm), Matrix::of(&xm)) {
        (Some(Matrix::Rows { rows: gr, chans: gc, off: go }), Some(Matrix::Rows { rows: xr, chans: xc, off: xo })) => {
            let m = mul(n, p)?;
            let out = lc.alloc(&rt.shape, rt.elem);
            let ga = lc.view(dy, &[g, og, m], &[mul(og, gc)?, gc, gr], go)?;
            let xb = Matrix::rows_view(lc, x, (xr, xc, xo), (g, m, cg))?;
            let wc = lc.view(out, &[g, og, cg], &[og * cg, cg, 1], 0)?;
            super::lowering::batched_matmul(lc, ga, xb, wc, false)?;
            Ok(Some(out))
        }
        (
            Some(Matrix::Images { image: gi, chans: gc, pos: gp, off: go }),
            Some(Matrix::Images { image: xi, chans: xc, pos: xp, off: xo }),
        ) if at_least(p, PER_IMAGE_POSITIONS) => {
            let out = fill_zero(lc, &rt.shape, rt.elem)?;
            let ga = lc.view(dy, &[n, g, og, p], &[gi, mul(og, gc)?, gc, gp], go)?;
            let xb = lc.view(x, &[n, g, p, cg], &[xi, mul(cg, xc)?, xp, xc], xo)?;
            let wc = lc.view(out, &[n, g, og, cg], &[0, og * cg, cg, 1], 0)?;
            super::lowering::batched_matmul(lc, ga, xb, wc, true)?;
            Ok(Some(out))
        }
        _ => Ok(None),
    }
}

fn lower_conv_gemm(lc: &mut LowerCtx<'_, '_>, geo: &Geometry, bias: Option<Value>) -> Result<(), String> {
    if let Some(y) = pointwise_gemm(lc, geo, bias)? {
        lc.set_result(0, y);
        return Ok(());
    }
    let rt = lc.result_type(0)?;
    let (x, w) = (lc.operand(0)?, lc.operand(1)?);
    let (xt, wt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let (n, o, cg) = (xt.shape[0], wt.shape[0], wt.shape[1]);
    let g = geo.groups;
    let og = o / g;
    let kernel = wt.shape[2..].to_vec();
    let outs = rt.shape[2..].to_vec();
    let (taps, positions) = (numel(&kernel), count(&outs)?);
    let xp = padded(lc, x, &geo.padding, &geo.padding)?;
    let cols = im2col(lc, xp, geo, cg, &kernel, &outs)?;
    let w = lc.contiguous(w)?;
    let depth = cg * taps;
    let wv = lc.view(w, &[g, og, depth], &[og * depth, depth, 1], 0)?;
    let np = mul(n, positions)?;
    let cv = lc.view(cols, &[g, depth, np], &[mul(depth, np)?, np, 1], 0)?;
    let y = lc.alloc(&rt.shape, rt.elem);
    // One GEMM per group over every image's positions (per image, the
    // late stages' 4×4 maps made products four columns wide, which re-read
    // the weight for every image). For one image its result is `y`'s
    // layout already; otherwise `[O, N, P]`, then moved into place.
    // (`into` holds the sums in the compute type: a bias is added to them
    // before the one rounding to a storage type, as eager's kernel does.)
    let into = if n == 1 { y } else { lc.alloc(&[o, n, positions], compute_elem(rt.elem)) };
    let cview = lc.view(into, &[g, og, np], &[mul(og, np)?, np, 1], 0)?;
    if let (true, Some(b)) = (n == 1, bias) {
        preload_bias(lc, b, y, &rt.shape, 1)?;
    }
    crate::tensor::lowering::batched_matmul(lc, wv, cv, cview, n == 1 && bias.is_some())?;
    if n != 1 {
        // y[n, o, p] = into[o, n, p] (+ bias[o]).
        let mut strides = vec![positions, np];
        strides.extend(row_major(&outs));
        let from = lc.view(into, &rt.shape, &strides, 0)?;
        let shape = rt.shape.to_vec();
        let mut buffers = vec![from, y];
        buffers.extend(bias);
        lc.kernel("conv_out", &buffers, &mut |s, a| {
            s.nest(&shape, true, &mut |s, ivs| {
                let v = s.load(a[0], ivs)?;
                let v = match a.get(2) {
                    Some(&b) => {
                        let v = s.widen(v)?;
                        let bv = s.load(b, &[ivs[1]])?;
                        let bv = s.widen(bv)?;
                        s.add(v, bv)?
                    }
                    None => v,
                };
                s.store_as(v, a[1], ivs)
            })
        })?;
    }
    lc.set_result(0, y);
    Ok(())
}

fn lower_weight_grad_gemm(lc: &mut LowerCtx<'_, '_>, geo: &Geometry) -> Result<(), String> {
    if let Some(dw) = pointwise_weight_grad(lc, geo)? {
        lc.set_result(0, dw);
        return Ok(());
    }
    let rt = lc.result_type(0)?;
    let (g, x) = (lc.operand(0)?, lc.operand(1)?);
    let (gt, xt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let (n, o, cg) = (xt.shape[0], rt.shape[0], rt.shape[1]);
    let groups = geo.groups;
    let og = o / groups;
    let kernel = rt.shape[2..].to_vec();
    let outs = gt.shape[2..].to_vec();
    let (taps, positions) = (numel(&kernel), count(&outs)?);
    let xp = padded(lc, x, &geo.padding, &geo.padding)?;
    let cols = im2col(lc, xp, geo, cg, &kernel, &outs)?;
    let a = channel_rows(lc, g, groups)?;
    let depth = mul(n, positions)?;
    let width = cg * taps;
    let b = lc.view(cols, &[groups, depth, width], &[mul(width, depth)?, 1, depth], 0)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let c = lc.view(out, &[groups, og, width], &[og * width, width, 1], 0)?;
    crate::tensor::lowering::batched_matmul(lc, a, b, c, false)?;
    lc.set_result(0, out);
    Ok(())
}

fn lower_input_grad_gemm(lc: &mut LowerCtx<'_, '_>, geo: &Geometry) -> Result<(), String> {
    if let Some(dx) = pointwise_input_grad(lc, geo)? {
        lc.set_result(0, dx);
        return Ok(());
    }
    let rt = lc.result_type(0)?;
    let (g, w) = (lc.operand(0)?, lc.operand(1)?);
    let (gt, wt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let (n, c, o, cg) = (rt.shape[0], rt.shape[1], wt.shape[0], wt.shape[1]);
    let groups = geo.groups;
    let og = o / groups;
    let k = rt.shape.len() - 2;
    let kernel = wt.shape[2..].to_vec();
    let outs = gt.shape[2..].to_vec();
    let (taps, positions) = (numel(&kernel), count(&outs)?);
    let depth = cg * taps;
    let cols = mul(n, positions)?;
    // Columns of the input gradient, one GEMM per group over every image:
    // dcols[g, j, (n, p)] = Σ_oo w[g·og + oo, j] · g[n, g·og + oo, p].
    let w = lc.contiguous(w)?;
    let wv = lc.view(w, &[groups, depth, og], &[og * depth, 1, depth], 0)?;
    let rows = channel_rows(lc, g, groups)?;
    let dcols = lc.alloc(&[groups, depth, cols], gt.elem);
    crate::tensor::lowering::batched_matmul(lc, wv, rows, dcols, false)?;
    // Each column entry added back where its window read the input (the
    // windows overlap), into a zero-padded input gradient.
    let acc = fill_zero(lc, &padded_shape(&rt.shape, &geo.padding, &geo.padding)?, rt.elem)?;
    let mut dshape = vec![groups, cg];
    dshape.extend_from_slice(&kernel);
    dshape.push(n);
    dshape.extend_from_slice(&outs);
    let dview = lc.view(dcols, &dshape, &row_major(&dshape), 0)?;
    let mut inner = kernel.clone();
    inner.extend_from_slice(&outs);
    lc.kernel("col2im", &[dview, acc], &mut |s, a| {
        s.nest_flat(&[n, c], &mut |s, nc| {
            let cgv = s.index(cg);
            let grp = s.bin(Binary::Div, nc[1], cgv)?;
            let ci = s.bin(Binary::Rem, nc[1], cgv)?;
            s.nest(&inner, false, &mut |s, lv| {
                let (tap, pos) = (&lv[..k], &lv[k..]);
                let xi = window_at(s, nc, (&geo.stride, &geo.dilation), pos, tap)?;
                let mut di = vec![grp, ci];
                di.extend_from_slice(tap);
                di.push(nc[0]);
                di.extend_from_slice(pos);
                let v = s.load(a[0], &di)?;
                let v = s.widen(v)?;
                let prev = s.load(a[1], &xi)?;
                let prev = s.widen(prev)?;
                let sum = s.add(prev, v)?;
                s.store_as(sum, a[1], &xi)
            })
        })
    })?;
    let out = if geo.padding.iter().all(|&p| p == 0) {
        acc
    } else {
        let inside = interior(lc, acc, &rt.shape, &geo.padding)?;
        let out = lc.alloc(&rt.shape, rt.elem);
        lc.copy_into(inside, out)?;
        out
    };
    lc.set_result(0, out);
    Ok(())
}

fn lower_geometry(lc: &LowerCtx<'_, '_>, rank: usize) -> Result<Geometry, String> {
    Geometry::from_attrs(&lc.attrs(), rank - 2)
}

pub fn lower_conv(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    symbolic_images(lc, &[Slot::Operand(1), Slot::Operand(2)], false, true)?;
    let rt = lc.result_type(0)?;
    let (x, w) = (lc.operand(0)?, lc.operand(1)?);
    let (xt, wt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let geo = lower_geometry(lc, xt.shape.len())?;
    let bias = if lc.operands.len() == 3 { Some(lc.operand(2)?) } else { None };
    if !direct(wt.shape[1]) {
        return lower_conv_gemm(lc, &geo, bias);
    }
    let xp = padded(lc, x, &geo.padding, &geo.padding)?;
    let xp = unit_stride_last(lc, xp)?;
    // A channels-last input gives a channels-last result, as in eager: a
    // layer norm over the channels after it (ConvNeXt's) then reads them
    // contiguously. Only where the kernel stores each element once (every
    // tap unrolled, one channel per group): several passes add into the
    // result as a flat buffer.
    let once = wt.shape[1] == 1 && numel(&wt.shape[2..]) <= UNROLL;
    let out =
        if once && channel_minor(&xt) { channels_last(lc, &rt.shape, rt.elem)? } else { lc.alloc(&rt.shape, rt.elem) };
    let corr = Correlation {
        stride: geo.stride.clone(),
        dilation: geo.dilation.clone(),
        kernel: wt.shape[2..].to_vec(),
        per: wt.shape[0] / geo.groups,
        red: wt.shape[1],
        channels: Channels::Forward,
        flip: false,
    };
    corr.emit(lc, xp, w, bias, out)?;
    lc.set_result(0, out);
    Ok(())
}

pub fn lower_input_grad(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    symbolic_images(lc, &[Slot::Operand(1)], false, true)?;
    let rt = lc.result_type(0)?;
    let (g, w) = (lc.operand(0)?, lc.operand(1)?);
    let (gt, wt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let geo = lower_geometry(lc, gt.shape.len())?;
    if !direct(wt.shape[1]) {
        return lower_input_grad_gemm(lc, &geo);
    }
    let k = gt.shape.len() - 2;
    let kernel = wt.shape[2..].to_vec();
    // The output gradient spread out by the stride into a buffer of the
    // input's size plus the dilated kernel's reach, so that every input
    // position reads its full (flipped) window: element p lands at
    // p·stride + reach − padding.
    let mut spread = gt.shape[..2].to_vec();
    let mut lead = Vec::with_capacity(k);
    for (i, &kk) in kernel.iter().enumerate() {
        let reach = geo.dilation[i] * (kk - 1);
        spread.push(add(rt.shape[2 + i], reach).map_err(|e| format!("the spread-out gradient's size: {e}"))?);
        lead.push(reach - geo.padding[i]);
    }
    let unit = geo.stride.iter().all(|&s| s == 1) && lead.iter().all(|&l| l >= 0);
    if !unit && !aot_ir::sym::is_static(&rt.shape[2..]) {
        // Where the spread-out gradient's first and last positions depend
        // on a symbolic size (a stride, or more padding than reach), the
        // columns and col2im, whose loops need no such bounds.
        return lower_input_grad_gemm(lc, &geo);
    }
    let src = if unit {
        padded(lc, g, &lead, &lead)?
    } else {
        let buf = fill_zero(lc, &spread, gt.elem)?;
        let (gs, goff) = lp::layout(&gt);
        let bs = row_major(&spread);
        let (mut shape, mut src_off, mut dst_off) = (gt.shape[..2].to_vec(), goff, 0i64);
        let mut dst_strides = bs[..2].to_vec();
        let mut empty = false;
        for i in 0..k {
            let s = geo.stride[i];
            // Output positions p with 0 ≤ p·s + lead < spread.
            let lo = if lead[i] >= 0 { 0 } else { (-lead[i] + s - 1) / s };
            let hi = ((spread[2 + i] - 1 - lead[i]).div_euclid(s) + 1).min(gt.shape[2 + i]);
            empty |= hi <= lo;
            shape.push((hi - lo).max(0));
            src_off += lo * gs[2 + i];
            dst_off += (lo * s + lead[i]) * bs[2 + i];
            dst_strides.push(bs[2 + i] * s);
        }
        if !empty {
            let from = lc.view(g, &shape, &gs, src_off)?;
            let into = lc.view(buf, &shape, &dst_strides, dst_off)?;
            lc.copy_into(from, into)?;
        }
        buf
    };
    let src = unit_stride_last(lc, src)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let cg = wt.shape[1];
    let corr = Correlation {
        stride: vec![1; k],
        dilation: geo.dilation.clone(),
        kernel,
        per: cg,
        red: wt.shape[0] / geo.groups,
        channels: Channels::Transposed,
        flip: true,
    };
    corr.emit(lc, src, w, None, out)?;
    lc.set_result(0, out);
    Ok(())
}

/// Fewest output channels for which a direct weight gradient's parallel
/// loop runs over the channels alone (two threads get eight each); fewer
/// split the flat (channel, tap) index instead.
const MIN_CHANNELS_TO_SPLIT: i64 = 16;

/// The body of a reduction's innermost loop: induction variables and the
/// carried sum to the next sum.
type Leaf<'a> = dyn FnMut(&mut Scalars<'_, '_>, &[Value], Value) -> Result<Value, String> + 'a;

pub fn lower_weight_grad(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    symbolic_images(lc, &[Slot::Result(0)], false, true)?;
    let rt = lc.result_type(0)?;
    let (g, x) = (lc.operand(0)?, lc.operand(1)?);
    let (gt, xt) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let geo = lower_geometry(lc, xt.shape.len())?;
    if !direct(rt.shape[1]) {
        return lower_weight_grad_gemm(lc, &geo);
    }
    let xp = padded(lc, x, &geo.padding, &geo.padding)?;
    let xp = unit_stride_last(lc, xp)?;
    let g = unit_stride_last(lc, g)?;
    let (o, cg) = (rt.shape[0], rt.shape[1]);
    let og = o / geo.groups;
    let kernel = rt.shape[2..].to_vec();
    let outs = gt.shape[2..].to_vec();
    let n = gt.shape[0];
    let out = lc.alloc(&rt.shape, rt.elem);
    let compute = compute_elem(rt.elem);
    let mut flat_shape = vec![o, cg];
    flat_shape.extend_from_slice(&kernel);
    // One loop per weight dimension, the output channels' parallel, where
    // they are enough to split: a flat loop's division into (channel,
    // tap) was recomputed by the code generator inside the reduction's
    // innermost loop (a depthwise weight gradient of 32 channels over
    // 8x16x16 images took 30% less time without it over symbolic sizes,
    // 20% less per size).
    let flat = o < MIN_CHANNELS_TO_SPLIT;
    lc.kernel("conv_weight_grad", &[xp, g, out], &mut |s, a| {
        let (xb, gb, wb) = (a[0], a[1], a[2]);
        let mut body = |s: &mut Scalars<'_, '_>, at: &[Value]| -> Result<(), String> {
            let (oi, r, tap) = (at[0], at[1], at[2..].to_vec());
            let ogv = s.index(og);
            let grp = s.bin(Binary::Div, oi, ogv)?;
            let cgv = s.index(cg);
            let base = s.mul(grp, cgv)?;
            let xc = s.add(base, r)?;
            let zero = s.const_f(0.0, compute);
            // Loops over the batch and the output positions, carrying the
            // sum; the innermost one (the last spatial dimension) is the
            // vectorized reduction.
            let mut dims = vec![n];
            dims.extend_from_slice(&outs);
            fn reduce(
                s: &mut Scalars<'_, '_>,
                dims: &[i64],
                ivs: &mut Vec<Value>,
                acc: Value,
                leaf: &mut Leaf<'_>,
            ) -> Result<Value, String> {
                let d = dims[ivs.len()];
                let r = s.for_loop(0, d, 1, false, &[acc], &mut |s, iv, carried| {
                    ivs.push(iv);
                    let next = if ivs.len() == dims.len() {
                        leaf(s, ivs, carried[0])
                    } else {
                        reduce(s, dims, ivs, carried[0], leaf)
                    };
                    ivs.pop();
                    Ok(vec![next?])
                })?;
                Ok(r[0])
            }
            let mut leaf = |s: &mut Scalars<'_, '_>, iv: &[Value], acc: Value| -> Result<Value, String> {
                let (ni, p) = (iv[0], &iv[1..]);
                let xi = window_at(s, &[ni, xc], (&geo.stride, &geo.dilation), p, &tap)?;
                let mut gi = vec![ni, oi];
                gi.extend_from_slice(p);
                let xv = s.load(xb, &xi)?;
                let xv = s.widen(xv)?;
                let gv = s.load(gb, &gi)?;
                let gv = s.widen(gv)?;
                let prod = s.mul(xv, gv)?;
                s.add(acc, prod)
            };
            let sum = reduce(s, &dims, &mut Vec::new(), zero, &mut leaf)?;
            let mut wi = vec![oi, r];
            wi.extend_from_slice(&tap);
            s.store_as(sum, wb, &wi)
        };
        if flat {
            s.nest_flat(&flat_shape, &mut body)
        } else {
            s.nest(&flat_shape, true, &mut body)
        }
    })?;
    lc.set_result(0, out);
    Ok(())
}

aot_ir::op_handle!(pub ConvOp = "tensor.conv");
aot_ir::op_handle!(pub ConvInputGradOp = "tensor.conv_input_grad");
aot_ir::op_handle!(pub ConvWeightGradOp = "tensor.conv_weight_grad");
