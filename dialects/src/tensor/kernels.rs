//! Interpreter kernels of the `tensor` dialect.
//!
//! Each kernel gathers its operands into row-major vectors, computes in `f64`
//! (floats) or `i64` (integers, so large values stay exact), and builds a
//! fresh contiguous result rounded to the result type. The formulas are
//! PyTorch's (e.g. NaN propagation in `maximum`, `clamp` with `min > max`,
//! biased variance in `layer_norm`); accumulation happens in f64, so f32
//! results can differ from PyTorch's by a rounding step, well inside the
//! comparison tolerance.

use crate::r#loop::MathFn;
use aot_ir::{ElemType, Shape};
use aot_runtime::kernel_util::{broadcast_map, broadcast_shapes, norm_dim, numel, reduce_dims, reduction, row_major};
use aot_runtime::{KernelCtx, KernelResult, Tensor};
use smallvec::smallvec;

fn out1(t: Tensor) -> KernelResult {
    Ok(smallvec![t])
}

/// Elementwise binary op with broadcasting; `fi` is used for integer types.
/// Values of `src` broadcast to `shape` (row-major).
pub(crate) fn broadcast_f64(src: &Tensor, shape: &[i64]) -> Vec<f64> {
    let v = src.read_f64();
    broadcast_map(&src.sizes(), shape).into_iter().map(|i| v[i]).collect()
}

pub(crate) fn broadcast_i64(src: &Tensor, shape: &[i64]) -> Vec<i64> {
    let v = src.read_i64();
    broadcast_map(&src.sizes(), shape).into_iter().map(|i| v[i]).collect()
}

fn binary(
    k: &mut KernelCtx<'_>,
    ff: impl Fn(f64, f64) -> f64,
    fi: impl Fn(i64, i64) -> Result<i64, String>,
    result: Option<ElemType>,
) -> KernelResult {
    let (a, b) = (k.input(0), k.input(1));
    let shape = broadcast_shapes(&a.sizes(), &b.sizes())?;
    let ma = broadcast_map(&a.sizes(), &shape);
    let mb = broadcast_map(&b.sizes(), &shape);
    let dtype = result.unwrap_or(a.dtype());
    if a.dtype().is_float() {
        let (va, vb) = (a.read_f64(), b.read_f64());
        let out: Vec<f64> = ma.iter().zip(&mb).map(|(&i, &j)| ff(va[i], vb[j])).collect();
        out1(k.new_f64(dtype, &shape, &out))
    } else {
        let (va, vb) = (a.read_i64(), b.read_i64());
        let out = ma.iter().zip(&mb).map(|(&i, &j)| fi(va[i], vb[j])).collect::<Result<Vec<i64>, String>>()?;
        out1(k.new_i64(dtype, &shape, &out))
    }
}

fn unary(k: &mut KernelCtx<'_>, ff: impl Fn(f64) -> f64, fi: impl Fn(i64) -> i64) -> KernelResult {
    let x = k.input(0);
    let shape = x.sizes();
    if x.dtype().is_float() {
        let out: Vec<f64> = x.read_f64().into_iter().map(ff).collect();
        out1(k.new_f64(x.dtype(), &shape, &out))
    } else {
        let out: Vec<i64> = x.read_i64().into_iter().map(fi).collect();
        out1(k.new_i64(x.dtype(), &shape, &out))
    }
}

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

pub fn add(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, |a, b| a + b, |a, b| Ok(a.wrapping_add(b)), None)
}

pub fn sub(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, |a, b| a - b, |a, b| Ok(a.wrapping_sub(b)), None)
}

pub fn mul(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, |a, b| a * b, |a, b| Ok(a.wrapping_mul(b)), None)
}

pub fn div(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, |a, b| a / b, |_, _| Err("integer division is not supported".into()), None)
}

/// The message PyTorch's integer division by zero raises.
pub const ZERO_DIVISION: &str = "ZeroDivisionError";

pub fn floor_divide(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(
        k,
        |a, b| (a / b).floor(),
        |a, b| {
            if b == 0 {
                return Err(ZERO_DIVISION.into());
            }
            let q = a.wrapping_div(b);
            Ok(if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) { q - 1 } else { q })
        },
        None,
    )
}

pub fn fmod(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, |a, b| a % b, |_, _| Err("fmod of integers".into()), None)
}

pub fn remainder(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(
        k,
        |a, b| {
            let r = a % b;
            if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                r + b
            } else {
                r
            }
        },
        |_, _| Err("remainder of integers".into()),
        None,
    )
}

pub fn pow(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(
        k,
        |a, b| MathFn::Pow.fact().eval(&[a, b]),
        |a, b| {
            if b < 0 {
                return Err("Integers to negative integer powers are not allowed.".into());
            }
            Ok(a.wrapping_pow(b.min(u32::MAX as i64) as u32))
        },
        None,
    )
}

pub fn maximum(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, nan_max, |a, b| Ok(a.max(b)), None)
}

pub fn minimum(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, nan_min, |a, b| Ok(a.min(b)), None)
}

fn compare(k: &mut KernelCtx<'_>, ff: fn(f64, f64) -> bool, fi: fn(i64, i64) -> bool) -> KernelResult {
    binary(k, |a, b| ff(a, b) as i64 as f64, |a, b| Ok(fi(a, b) as i64), Some(ElemType::I1))
}

pub fn eq(k: &mut KernelCtx<'_>) -> KernelResult {
    compare(k, |a, b| a == b, |a, b| a == b)
}
pub fn ne(k: &mut KernelCtx<'_>) -> KernelResult {
    compare(k, |a, b| a != b, |a, b| a != b)
}
pub fn lt(k: &mut KernelCtx<'_>) -> KernelResult {
    compare(k, |a, b| a < b, |a, b| a < b)
}
pub fn le(k: &mut KernelCtx<'_>) -> KernelResult {
    compare(k, |a, b| a <= b, |a, b| a <= b)
}
pub fn gt(k: &mut KernelCtx<'_>) -> KernelResult {
    compare(k, |a, b| a > b, |a, b| a > b)
}
pub fn ge(k: &mut KernelCtx<'_>) -> KernelResult {
    compare(k, |a, b| a >= b, |a, b| a >= b)
}

pub fn where_(k: &mut KernelCtx<'_>) -> KernelResult {
    let (c, a, b) = (k.input(0), k.input(1), k.input(2));
    let shape = broadcast_shapes(&broadcast_shapes(&c.sizes(), &a.sizes())?, &b.sizes())?;
    let (mc, ma, mb) =
        (broadcast_map(&c.sizes(), &shape), broadcast_map(&a.sizes(), &shape), broadcast_map(&b.sizes(), &shape));
    let vc = c.read_i64();
    if a.dtype().is_float() {
        let (va, vb) = (a.read_f64(), b.read_f64());
        let out: Vec<f64> = (0..mc.len()).map(|i| if vc[mc[i]] != 0 { va[ma[i]] } else { vb[mb[i]] }).collect();
        out1(k.new_f64(a.dtype(), &shape, &out))
    } else {
        let (va, vb) = (a.read_i64(), b.read_i64());
        let out: Vec<i64> = (0..mc.len()).map(|i| if vc[mc[i]] != 0 { va[ma[i]] } else { vb[mb[i]] }).collect();
        out1(k.new_i64(a.dtype(), &shape, &out))
    }
}

/// `minimum(maximum(x, lo), hi)`, NaN-propagating (PyTorch's vectorized
/// kernel: a NaN anywhere gives NaN; a crossed pair `lo > hi` gives hi).
pub fn clamp_tensor(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, lo, hi) = (k.input(0), k.input(1), k.input(2));
    let shape = broadcast_shapes(&broadcast_shapes(&x.sizes(), &lo.sizes())?, &hi.sizes())?;
    let (mx, ml, mh) =
        (broadcast_map(&x.sizes(), &shape), broadcast_map(&lo.sizes(), &shape), broadcast_map(&hi.sizes(), &shape));
    if x.dtype().is_float() {
        let (vx, vl, vh) = (x.read_f64(), lo.read_f64(), hi.read_f64());
        let out: Vec<f64> = (0..mx.len()).map(|i| nan_min(nan_max(vx[mx[i]], vl[ml[i]]), vh[mh[i]])).collect();
        out1(k.new_f64(x.dtype(), &shape, &out))
    } else {
        let (vx, vl, vh) = (x.read_i64(), lo.read_i64(), hi.read_i64());
        let out: Vec<i64> = (0..mx.len()).map(|i| vx[mx[i]].max(vl[ml[i]]).min(vh[mh[i]])).collect();
        out1(k.new_i64(x.dtype(), &shape, &out))
    }
}

/// `a·b + c` with one rounding: `f64` fused in `f64`; the narrower floats
/// fused in `f32` (PyTorch's `opmath` for halves), where a sum of the exact
/// `f64` product would round twice on its way to `f32`.
pub fn fma(k: &mut KernelCtx<'_>) -> KernelResult {
    let (a, b, c) = (k.input(0), k.input(1), k.input(2));
    let shape = broadcast_shapes(&broadcast_shapes(&a.sizes(), &b.sizes())?, &c.sizes())?;
    let (ma, mb, mc) =
        (broadcast_map(&a.sizes(), &shape), broadcast_map(&b.sizes(), &shape), broadcast_map(&c.sizes(), &shape));
    let (va, vb, vc) = (a.read_f64(), b.read_f64(), c.read_f64());
    // (In f64 also where every float is, for finite differences.)
    let wide = k.physical(a.dtype()) == ElemType::F64;
    let out: Vec<f64> = (0..ma.len())
        .map(|i| {
            let (x, y, z) = (va[ma[i]], vb[mb[i]], vc[mc[i]]);
            if wide {
                x.mul_add(y, z)
            } else {
                f64::from((x as f32).mul_add(y as f32, z as f32))
            }
        })
        .collect();
    out1(k.new_f64(a.dtype(), &shape, &out))
}

/// `lerp` from the nearer end, as `fma` rounds (f32 for the narrower floats).
pub fn lerp(k: &mut KernelCtx<'_>) -> KernelResult {
    let (s, e) = (k.input(0), k.input(1));
    let wide = k.physical(s.dtype()) == ElemType::F64;
    let scalar = k.attr_f64_opt("weight");
    let mut shape = broadcast_shapes(&s.sizes(), &e.sizes())?;
    let w = if scalar.is_none() { Some(k.input(2)) } else { None };
    if let Some(w) = w {
        shape = broadcast_shapes(&shape, &w.sizes())?;
    }
    let (ms, me) = (broadcast_map(&s.sizes(), &shape), broadcast_map(&e.sizes(), &shape));
    let (vs, ve) = (s.read_f64(), e.read_f64());
    let weights: Vec<f64> = match (w, scalar) {
        (Some(w), _) => {
            let mw = broadcast_map(&w.sizes(), &shape);
            let vw = w.read_f64();
            mw.iter().map(|&i| vw[i]).collect()
        }
        (None, Some(v)) => vec![super::coefficient(v, if wide { ElemType::F64 } else { ElemType::F32 }); ms.len()],
        (None, None) => return Err("tensor.lerp: no weight".into()),
    };
    let out: Vec<f64> = (0..ms.len())
        .map(|i| {
            let (a, b, w) = (vs[ms[i]], ve[me[i]], weights[i]);
            if wide {
                if w.abs() < 0.5 {
                    w.mul_add(b - a, a)
                } else {
                    (w - 1.0).mul_add(b - a, b)
                }
            } else {
                let (a, b, w) = (a as f32, b as f32, w as f32);
                f64::from(if w.abs() < 0.5 { w.mul_add(b - a, a) } else { (w - 1.0).mul_add(b - a, b) })
            }
        })
        .collect();
    out1(k.new_f64(s.dtype(), &shape, &out))
}

pub fn neg(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| -x, |x| x.wrapping_neg())
}
pub fn abs(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, f64::abs, |x| x.wrapping_abs())
}
pub fn exp(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Exp.eval1(x), |x| x)
}
pub fn log(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Log.eval1(x), |x| x)
}
pub fn floor(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, f64::floor, |x| x)
}
pub fn ceil(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, f64::ceil, |x| x)
}
pub fn trunc(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, f64::trunc, |x| x)
}
pub fn round(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, f64::round_ties_even, |x| x)
}
pub fn expm1(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Expm1.eval1(x), |x| x)
}
pub fn log1p(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Log1p.eval1(x), |x| x)
}
pub fn sqrt(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, f64::sqrt, |x| x)
}
pub fn rsqrt(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| 1.0 / x.sqrt(), |x| x)
}
pub fn reciprocal(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| 1.0 / x, |x| x)
}
pub fn sin(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Sin.eval1(x), |x| x)
}
pub fn cos(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Cos.eval1(x), |x| x)
}
pub fn tan(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Tan.eval1(x), |x| x)
}
pub fn tanh(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Tanh.eval1(x), |x| x)
}
pub fn sigmoid(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| 1.0 / (1.0 + (-x).exp()), |x| x)
}
pub fn silu(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| x / (1.0 + (-x).exp()), |x| x)
}
pub fn bce_logits(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(
        k,
        |x, t| (1.0 - t) * x - (nan_min(0.0, x) - (-x.abs()).exp().ln_1p()),
        |_, _| Err("tensor.bce_logits of integers".into()),
        None,
    )
}
pub fn log_sigmoid(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| nan_min(0.0, x) - (-x.abs()).exp().ln_1p(), |x| x)
}
pub fn softplus(k: &mut KernelCtx<'_>) -> KernelResult {
    let e = crate::lowering::compute_elem(k.input(0).dtype());
    let (beta, threshold) = super::softplus_coefficients(|n| k.attr_f64_opt(n), e);
    unary(k, |x| if x * beta > threshold { x } else { (x * beta).exp().ln_1p() / beta }, |x| x)
}
pub fn mish(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| x * x.exp().ln_1p().tanh(), |x| x)
}
pub fn logit(k: &mut KernelCtx<'_>) -> KernelResult {
    let e = crate::lowering::compute_elem(k.input(0).dtype());
    let bounds = super::logit_bounds(|n| k.attr_f64_opt(n), e);
    unary(
        k,
        |x| {
            let x = match bounds {
                Some((lo, _)) if x < lo => lo,
                Some((_, hi)) if x > hi => hi,
                _ => x,
            };
            (x / (1.0 - x)).ln()
        },
        |x| x,
    )
}
pub fn glu(k: &mut KernelCtx<'_>) -> KernelResult {
    binary(k, |a, b| a * (1.0 / (1.0 + (-b).exp())), |_, _| Err("tensor.glu of integers".into()), None)
}
pub fn elu(k: &mut KernelCtx<'_>) -> KernelResult {
    let e = crate::lowering::compute_elem(k.input(0).dtype());
    let (c1, c2, p) = super::elu_coefficients(|n| k.attr_f64_opt(n), e);
    unary(k, |x| if x <= 0.0 { (x * c1).exp_m1() * c2 } else { x * p }, |x| x)
}
/// `x ** k` with PyTorch's special exponents (a root keeps the sign of -0).
pub fn pow_scalar_f64(x: f64, k: f64) -> f64 {
    match k {
        2.0 => x * x,
        3.0 => x * x * x,
        0.5 => x.sqrt(),
        -0.5 => 1.0 / x.sqrt(),
        -1.0 => 1.0 / x,
        -2.0 => 1.0 / (x * x),
        _ => x.powf(k),
    }
}
pub fn pow_scalar(k: &mut KernelCtx<'_>) -> KernelResult {
    let e = k.attr_f64_opt("exponent").ok_or("tensor.pow_scalar: no exponent")?;
    unary(k, |x| pow_scalar_f64(x, e), |x| x)
}
/// `min(max(x + 3, 0), 6)`, NaN staying NaN.
fn hard_gate(x: f64) -> f64 {
    nan_min(nan_max(x + 3.0, 0.0), 6.0)
}
pub fn hardswish(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| x * hard_gate(x) / 6.0, |x| x)
}
pub fn hardsigmoid(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| hard_gate(x) / 6.0, |x| x)
}
pub fn relu(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| if x.is_nan() { x } else { x.max(0.0) }, |x| x.max(0))
}
pub fn erf(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(k, |x| MathFn::Erf.eval1(x), |x| x)
}
pub fn sign(k: &mut KernelCtx<'_>) -> KernelResult {
    unary(
        k,
        // PyTorch's `(0 < x) - (x < 0)`: 0 for NaN and both zeros.
        |x| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        },
        |x| x.signum(),
    )
}

/// PyTorch's GELU, exact (`erf`) or with the tanh approximation.
pub fn gelu_f64(x: f64, tanh_approx: bool) -> f64 {
    if tanh_approx {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
    } else {
        0.5 * x * (1.0 + MathFn::Erf.eval1(x / std::f64::consts::SQRT_2))
    }
}

pub fn gelu(k: &mut KernelCtx<'_>) -> KernelResult {
    let approx = k.attr_str_or("approximate", "none") == "tanh";
    // Where the exact GELU underflows (x far below zero, and -0), one of
    // PyTorch's f32 kernels gives +0 (`0.5·(x + x·erf)`, oneDNN's on AVX2
    // cores), others -0 (`0.5·x·(1 + erf)`: its f64 and scalar paths, and
    // oneDNN's on AVX-512 cores): a division by the result tells them apart
    // (fuzz seed 35614). Without `signed_zero` the f32 (and half) tail is
    // +0, which adding +0 gives and changes nothing else; with it, -0
    // (adding -0 changes nothing at all).
    let signed = approx || k.attr_flag("signed_zero") || k.input(0).dtype() == ElemType::F64;
    let zero = if signed { -0.0 } else { 0.0 };
    unary(k, |x| gelu_f64(x, approx) + zero, |x| x)
}

/// `torch.clamp` on one value: NaN propagates; with `min > max` the result is `max`.
pub fn clamp_f64(x: f64, lo: Option<f64>, hi: Option<f64>) -> f64 {
    if x.is_nan() {
        return x;
    }
    let mut y = x;
    if let Some(l) = lo {
        y = y.max(l);
    }
    if let Some(h) = hi {
        y = y.min(h);
    }
    y
}

/// `torch.clamp` on an integer: bounds round inward.
pub fn clamp_i64(x: i64, lo: Option<f64>, hi: Option<f64>) -> i64 {
    let mut y = x;
    if let Some(l) = lo {
        y = y.max(l.ceil() as i64);
    }
    if let Some(h) = hi {
        y = y.min(h.floor() as i64);
    }
    y
}

pub fn clamp(k: &mut KernelCtx<'_>) -> KernelResult {
    let (lo, hi) = (k.attr_f64_opt("min"), k.attr_f64_opt("max"));
    unary(k, |x| clamp_f64(x, lo, hi), |x| clamp_i64(x, lo, hi))
}

pub fn cast(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let rt = k.result_type(0)?;
    if x.dtype().is_float() && rt.elem.is_int() {
        let out: Vec<f64> = x
            .read_f64()
            .into_iter()
            .map(|v| if rt.elem.is_bool() { (v != 0.0) as i64 as f64 } else { v.trunc() })
            .collect();
        out1(k.new_f64(rt.elem, &rt.shape, &out))
    } else if x.dtype().is_float() || rt.elem.is_float() {
        let out = x.read_f64();
        out1(k.new_f64(rt.elem, &rt.shape, &out))
    } else {
        let out: Vec<i64> =
            x.read_i64().into_iter().map(|v| if rt.elem.is_bool() { (v != 0) as i64 } else { v }).collect();
        out1(k.new_i64(rt.elem, &rt.shape, &out))
    }
}

fn reduce_setup(k: &KernelCtx<'_>) -> Result<aot_runtime::kernel_util::Reduction, String> {
    let x = k.input(0);
    let dims = reduce_dims(&k.attr_list_or_empty("dims"), x.rank())?;
    Ok(reduction(&x.sizes(), &dims, k.attr_flag("keepdim")))
}

/// A reduction that folds each group from `unit` with `ff` (floats, in
/// f64) or `fi` (integers, wrapping).
fn fold_groups(k: &mut KernelCtx<'_>, unit: i64, ff: fn(f64, f64) -> f64, fi: fn(i64, i64) -> i64) -> KernelResult {
    let r = reduce_setup(k)?;
    let x = k.input(0);
    let rt = k.result_type(0)?;
    if x.dtype().is_float() {
        let mut acc = vec![unit as f64; r.out_numel];
        for (v, &o) in x.read_f64().into_iter().zip(&r.map) {
            acc[o] = ff(acc[o], v);
        }
        out1(k.new_f64(rt.elem, &r.out_shape, &acc))
    } else {
        let mut acc = vec![unit; r.out_numel];
        for (v, &o) in x.read_i64().into_iter().zip(&r.map) {
            acc[o] = fi(acc[o], v);
        }
        out1(k.new_i64(rt.elem, &r.out_shape, &acc))
    }
}

pub fn sum(k: &mut KernelCtx<'_>) -> KernelResult {
    fold_groups(k, 0, |a, v| a + v, i64::wrapping_add)
}

pub fn prod(k: &mut KernelCtx<'_>) -> KernelResult {
    fold_groups(k, 1, |a, v| a * v, i64::wrapping_mul)
}

pub fn mean(k: &mut KernelCtx<'_>) -> KernelResult {
    let r = reduce_setup(k)?;
    let x = k.input(0);
    let mut acc = vec![0.0f64; r.out_numel];
    for (v, &o) in x.read_f64().into_iter().zip(&r.map) {
        acc[o] += v;
    }
    let n = r.group as f64;
    let out: Vec<f64> = acc.into_iter().map(|s| s / n).collect();
    out1(k.new_f64(x.dtype(), &r.out_shape, &out))
}

fn extremum(k: &mut KernelCtx<'_>, max: bool) -> KernelResult {
    let r = reduce_setup(k)?;
    let x = k.input(0);
    if r.group == 0 && x.numel() == 0 && r.out_numel > 0 {
        return Err("cannot compute the maximum or minimum over an empty dimension".into());
    }
    if x.dtype().is_float() {
        let init = if max { f64::NEG_INFINITY } else { f64::INFINITY };
        let mut acc = vec![init; r.out_numel];
        for (v, &o) in x.read_f64().into_iter().zip(&r.map) {
            acc[o] = if max { nan_max(acc[o], v) } else { nan_min(acc[o], v) };
        }
        out1(k.new_f64(x.dtype(), &r.out_shape, &acc))
    } else {
        let init = if max { i64::MIN } else { i64::MAX };
        let mut acc = vec![init; r.out_numel];
        for (v, &o) in x.read_i64().into_iter().zip(&r.map) {
            acc[o] = if max { acc[o].max(v) } else { acc[o].min(v) };
        }
        out1(k.new_i64(x.dtype(), &r.out_shape, &acc))
    }
}

pub fn amax(k: &mut KernelCtx<'_>) -> KernelResult {
    extremum(k, true)
}

pub fn amin(k: &mut KernelCtx<'_>) -> KernelResult {
    extremum(k, false)
}

pub fn var(k: &mut KernelCtx<'_>) -> KernelResult {
    let r = reduce_setup(k)?;
    let x = k.input(0);
    let correction = k.attr_i64_or("correction", 1) as f64;
    let v = x.read_f64();
    let mut mean = vec![0.0f64; r.out_numel];
    for (&a, &o) in v.iter().zip(&r.map) {
        mean[o] += a;
    }
    let n = r.group as f64;
    mean.iter_mut().for_each(|m| *m /= n);
    let mut ss = vec![0.0f64; r.out_numel];
    for (&a, &o) in v.iter().zip(&r.map) {
        ss[o] += (a - mean[o]) * (a - mean[o]);
    }
    let denom = (n - correction).max(0.0);
    let out: Vec<f64> = ss.into_iter().map(|s| s / denom).collect();
    out1(k.new_f64(x.dtype(), &r.out_shape, &out))
}

pub fn argmax(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let rt = k.result_type(0)?;
    if x.numel() == 0 {
        return Err("argmax of an empty tensor".into());
    }
    let v = x.read_f64();
    let (dims, keep) = match k.ctx.attr_i64(k.op, "dim") {
        None => ((0..x.rank()).collect::<Vec<_>>(), true),
        Some(d) => (vec![norm_dim(d, x.rank(), 0)?], k.attr_flag("keepdim")),
    };
    let shape = x.sizes();
    let r = reduction(&shape, &dims, keep);
    // Position of each element along the reduced dims (row-major within the group).
    let strides = row_major(&shape);
    let mut best: Vec<(f64, i64)> = vec![(f64::NEG_INFINITY, -1); r.out_numel];
    for (lin, (&a, &o)) in v.iter().zip(&r.map).enumerate() {
        let mut pos = 0i64;
        for &d in &dims {
            let idx = (lin / strides[d]) % shape[d] as usize;
            pos = pos * shape[d] + idx as i64;
        }
        let (bv, bi) = best[o];
        // NaN counts as the maximum; the first occurrence wins.
        let better = bi < 0 || (a.is_nan() && !bv.is_nan()) || (!bv.is_nan() && a > bv);
        if better {
            best[o] = (a, pos);
        }
    }
    let out: Vec<i64> = best.into_iter().map(|(_, i)| i).collect();
    out1(k.new_i64(ElemType::I64, &rt.shape, &out))
}

pub fn argsort(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let shape = x.sizes();
    let lanes: Vec<i64> = if shape.is_empty() { vec![1] } else { shape.to_vec() };
    let dim = norm_dim(k.attr_i64("dim")?, lanes.len(), 0)?;
    let descending = k.attr_flag("descending");
    // Integers compare as integers (an i64 beyond 2^53 is not an f64).
    let keys: Vec<(f64, i64)> = if x.dtype().is_float() {
        x.read_f64().into_iter().map(|v| (v, 0)).collect()
    } else {
        x.read_i64().into_iter().map(|v| (0.0, v)).collect()
    };
    // NaN above every number; a stable sort keeps equal elements in order
    // (also descending: the order is reversed, not the sort).
    let ascending = |a: &(f64, i64), b: &(f64, i64)| match (a.0.is_nan(), b.0.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        (false, false) => a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.cmp(&b.1)),
    };
    let mut out = vec![0i64; keys.len()];
    for_each_lane(&lanes, dim, |lane| {
        let mut order: Vec<usize> = (0..lane.len()).collect();
        order.sort_by(|&a, &b| {
            let o = ascending(&keys[lane[a]], &keys[lane[b]]);
            if descending {
                o.reverse()
            } else {
                o
            }
        });
        for (pos, &i) in order.iter().enumerate() {
            out[lane[pos]] = i as i64;
        }
    });
    out1(k.new_i64(ElemType::I64, &shape, &out))
}

/// Iterates over the 1-D lanes along `dim` of a row-major `shape`: calls `f`
/// with the flat indices of each lane.
fn for_each_lane(shape: &[i64], dim: usize, mut f: impl FnMut(&[usize])) {
    let strides = row_major(shape);
    let n = numel(shape);
    let len = shape[dim].max(0) as usize;
    if len == 0 {
        return;
    }
    let stride = strides[dim];
    let mut lane = vec![0usize; len];
    for base in 0..n {
        if !(base / stride).is_multiple_of(len) {
            continue;
        }
        for (i, l) in lane.iter_mut().enumerate() {
            *l = base + i * stride;
        }
        f(&lane);
    }
}

fn softmax_impl(k: &mut KernelCtx<'_>, log: bool) -> KernelResult {
    let x = k.input(0);
    let shape = x.sizes();
    let dim = norm_dim(k.attr_i64("dim")?, x.rank(), 0)?;
    let v = x.read_f64();
    let mut out = vec![0.0; v.len()];
    if shape.is_empty() {
        out = vec![if log { 0.0 } else { 1.0 }; v.len()];
    } else {
        // PyTorch's half-precision log-softmax over the last dimension
        // rounds each row's sum of exponentials and its logarithm to the
        // storage type. (Not when every float is computed in f64, as for
        // finite differences.)
        let e = x.dtype();
        let rounds = log && k.physical(e) == e && matches!(e, ElemType::F16 | ElemType::BF16) && dim + 1 == shape.len();
        let round = |v: f64| if rounds { aot_runtime::buffer::round_to(e, v) } else { v };
        for_each_lane(&shape, dim, |lane| {
            let m = lane.iter().map(|&i| v[i]).fold(f64::NEG_INFINITY, nan_max);
            let s: f64 = lane.iter().map(|&i| (v[i] - m).exp()).sum();
            let ls = round(round(s).ln());
            for &i in lane {
                out[i] = if log { v[i] - m - ls } else { (v[i] - m).exp() / s };
            }
        });
    }
    out1(k.new_f64(x.dtype(), &shape, &out))
}

pub fn cumsum(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let shape = x.sizes();
    let lanes: Vec<i64> = if shape.is_empty() { vec![1] } else { shape.to_vec() };
    let dim = norm_dim(k.attr_i64("dim")?, lanes.len(), 0)?;
    let reverse = k.attr_flag("reverse");
    let order = |lane: &[usize]| -> Vec<usize> {
        if reverse {
            lane.iter().rev().copied().collect()
        } else {
            lane.to_vec()
        }
    };
    if x.dtype().is_float() {
        let v = x.read_f64();
        let mut out = vec![0.0; v.len()];
        for_each_lane(&lanes, dim, |lane| {
            let mut acc = 0.0;
            for i in order(lane) {
                acc += v[i];
                out[i] = acc;
            }
        });
        return out1(k.new_f64(x.dtype(), &shape, &out));
    }
    let v = x.read_i64();
    let mut out = vec![0i64; v.len()];
    for_each_lane(&lanes, dim, |lane| {
        let mut acc = 0i64;
        for i in order(lane) {
            acc = acc.wrapping_add(v[i]);
            out[i] = acc;
        }
    });
    out1(k.new_i64(ElemType::I64, &shape, &out))
}

pub fn softmax(k: &mut KernelCtx<'_>) -> KernelResult {
    softmax_impl(k, false)
}

pub fn log_softmax(k: &mut KernelCtx<'_>) -> KernelResult {
    softmax_impl(k, true)
}

pub fn layer_norm(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let n = k.attr_i64("normalized_ndim")? as usize;
    let eps = k.attr_f64_or("eps", 1e-5);
    let shape = x.sizes();
    let inner: usize = numel(&shape[shape.len() - n..]);
    let outer: usize = numel(&shape[..shape.len() - n]);
    let v = x.read_f64();
    let (w, b) =
        if k.inputs.len() == 3 { (Some(k.input(1).read_f64()), Some(k.input(2).read_f64())) } else { (None, None) };
    let mut out = vec![0.0; v.len()];
    let mut means = vec![0.0; outer];
    let mut rstds = vec![0.0; outer];
    for o in 0..outer {
        let row = &v[o * inner..(o + 1) * inner];
        // An empty row has PyTorch's statistics: mean 0, rstd NaN.
        if inner == 0 {
            rstds[o] = f64::NAN;
            continue;
        }
        let mean = row.iter().sum::<f64>() / inner as f64;
        let var = row.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / inner as f64;
        let rstd = 1.0 / (var + eps).sqrt();
        // PyTorch's mean is NaN for a row with a non-finite element, as
        // its variance is.
        means[o] = mean + 0.0 * var;
        rstds[o] = rstd;
        for i in 0..inner {
            let mut y = (row[i] - mean) * rstd;
            if let (Some(w), Some(b)) = (&w, &b) {
                y = y * w[i] + b[i];
            }
            out[o * inner + i] = y;
        }
    }
    let mut stat: Shape = shape[..shape.len() - n].iter().copied().collect();
    stat.extend(std::iter::repeat_n(1, n));
    let e = x.dtype();
    Ok(smallvec![k.new_f64(e, &shape, &out), k.new_f64(e, &stat, &means), k.new_f64(e, &stat, &rstds)])
}

/// `torch.matmul` semantics (also `mm` and `bmm`, which are special cases).
pub fn matmul(k: &mut KernelCtx<'_>) -> KernelResult {
    let (a, b) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let (sa, sb) = (a.sizes(), b.sizes());
    // Promote 1-D operands to matrices, remembering to drop the dim.
    let ma: Vec<i64> = if sa.len() == 1 { vec![1, sa[0]] } else { sa.to_vec() };
    let mb: Vec<i64> = if sb.len() == 1 { vec![sb[0], 1] } else { sb.to_vec() };
    let (m, kk, n) = (ma[ma.len() - 2], ma[ma.len() - 1], mb[mb.len() - 1]);
    let batch_a = &ma[..ma.len() - 2];
    let batch_b = &mb[..mb.len() - 2];
    let batch = broadcast_shapes(batch_a, batch_b)?;
    let nb = numel(&batch);
    let ia = broadcast_map(batch_a, &batch);
    let ib = broadcast_map(batch_b, &batch);
    let (m, kk, n) = (m as usize, kk as usize, n as usize);
    let (va, vb) = (a.read_f64(), b.read_f64());
    let mut out = vec![0.0f64; nb * m * n];
    for bi in 0..nb {
        let (pa, pb) = (ia[bi] * m * kk, ib[bi] * kk * n);
        let po = bi * m * n;
        for i in 0..m {
            for p in 0..kk {
                let x = va[pa + i * kk + p];
                for j in 0..n {
                    out[po + i * n + j] += x * vb[pb + p * n + j];
                }
            }
        }
    }
    out1(k.new_f64(rt.elem, &rt.shape, &out))
}

pub fn linear(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, w) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let xs = x.sizes();
    let (inn, outn) = (xs[xs.len() - 1] as usize, w.sizes()[0] as usize);
    let rows = numel(&xs) / inn.max(1);
    let (vx, vw) = (x.read_f64(), w.read_f64());
    let vb = if k.inputs.len() == 3 { Some(k.input(2).read_f64()) } else { None };
    let mut out = vec![0.0f64; rows * outn];
    for r in 0..rows {
        for o in 0..outn {
            let mut s = vb.as_ref().map_or(0.0, |b| b[o]);
            for i in 0..inn {
                s += vx[r * inn + i] * vw[o * inn + i];
            }
            out[r * outn + o] = s;
        }
    }
    out1(k.new_f64(rt.elem, &rt.shape, &out))
}

/// An index of `gather`, `index_select` and `scatter_add`, which PyTorch
/// takes in `[0, size)` only.
fn check_index(i: i64, size: i64) -> Result<usize, String> {
    if i < 0 || i >= size {
        return Err(format!("index {i} is out of bounds for dimension with size {size}"));
    }
    Ok(i as usize)
}

pub fn embedding(k: &mut KernelCtx<'_>) -> KernelResult {
    let (w, idx) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let ws = w.sizes();
    let (v, d) = (ws[0], ws[1] as usize);
    let vw = w.read_f64();
    let mut out = Vec::with_capacity(idx.numel() as usize * d);
    for i in idx.read_i64() {
        if i < 0 || i >= v {
            return Err(format!("index {i} is out of range in self (the table has {v} rows)"));
        }
        let row = i as usize * d;
        out.extend_from_slice(&vw[row..row + d]);
    }
    out1(k.new_f64(rt.elem, &rt.shape, &out))
}

/// Maps a row-major index of `shape` to its multi-index.
pub(crate) fn unravel(mut lin: usize, shape: &[i64], out: &mut [usize]) {
    for d in (0..shape.len()).rev() {
        let s = shape[d].max(1) as usize;
        out[d] = lin % s;
        lin /= s;
    }
}

pub fn gather(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, idx) = (k.input(0), k.input(1));
    let dim = norm_dim(k.attr_i64("dim")?, x.rank(), 0)?;
    let (xs, is) = (x.sizes(), idx.sizes());
    let xstr = row_major(&xs);
    let vx = x.read_f64();
    let vi = idx.read_i64();
    let mut mi = vec![0usize; is.len()];
    let mut out = Vec::with_capacity(vi.len());
    for (lin, &i) in vi.iter().enumerate() {
        unravel(lin, &is, &mut mi);
        let j = check_index(i, xs[dim])?;
        let mut src = 0;
        for d in 0..xs.len() {
            src += (if d == dim { j } else { mi[d] }) * xstr[d];
        }
        out.push(vx[src]);
    }
    out1(k.new_f64(x.dtype(), &is, &out))
}

pub fn index_select(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, idx) = (k.input(0), k.input(1));
    let rt = k.result_type(0)?;
    let xs = x.sizes();
    if xs.is_empty() {
        let v = x.read_f64();
        for i in idx.read_i64() {
            check_index(i, 1)?;
        }
        return out1(k.new_f64(x.dtype(), &rt.shape, &v));
    }
    let dim = norm_dim(k.attr_i64("dim")?, x.rank(), 0)?;
    let xstr = row_major(&xs);
    let vx = x.read_f64();
    let vi: Vec<usize> = idx.read_i64().into_iter().map(|i| check_index(i, xs[dim])).collect::<Result<_, _>>()?;
    let mut mi = vec![0usize; xs.len()];
    let mut out = Vec::with_capacity(numel(&rt.shape));
    for lin in 0..numel(&rt.shape) {
        unravel(lin, &rt.shape, &mut mi);
        let mut src = 0;
        for d in 0..xs.len() {
            src += (if d == dim { vi[mi[d]] } else { mi[d] }) * xstr[d];
        }
        out.push(vx[src]);
    }
    out1(k.new_f64(x.dtype(), &rt.shape, &out))
}

pub fn scatter_add(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, idx, src) = (k.input(0), k.input(1), k.input(2));
    let dim = norm_dim(k.attr_i64("dim")?, x.rank(), 0)?;
    let (xs, is, ss) = (x.sizes(), idx.sizes(), src.sizes());
    let xstr = row_major(&xs);
    let sstr = row_major(&ss);
    let mut out = x.read_f64();
    let vs = src.read_f64();
    let vi = idx.read_i64();
    let mut mi = vec![0usize; is.len()];
    for (lin, &i) in vi.iter().enumerate() {
        unravel(lin, &is, &mut mi);
        let j = check_index(i, xs[dim])?;
        let mut dst = 0;
        let mut s = 0;
        for d in 0..xs.len() {
            dst += (if d == dim { j } else { mi[d] }) * xstr[d];
            s += mi[d] * sstr[d];
        }
        out[dst] += vs[s];
    }
    out1(k.new_f64(x.dtype(), &xs, &out))
}

pub fn index_put(k: &mut KernelCtx<'_>) -> KernelResult {
    let (x, idx, vals) = (k.input(0), k.input(1), k.input(2));
    let data = index_put_values(x, idx, vals, k.attr_flag("accumulate"))?;
    out1(k.new_f64(x.dtype(), &x.sizes(), &data))
}

pub fn cat(k: &mut KernelCtx<'_>) -> KernelResult {
    let rt = k.result_type(0)?;
    let first = k.input(0);
    let dim = norm_dim(k.attr_i64("dim")?, first.rank(), 0)?;
    let outer: usize = numel(&rt.shape[..dim]);
    let float = first.dtype().is_float();
    let parts: Vec<(Vec<f64>, Vec<i64>, usize)> = k
        .inputs
        .iter()
        .map(|t| {
            let s = t.sizes();
            let chunk = numel(&s[dim..]);
            if float {
                (t.read_f64(), Vec::new(), chunk)
            } else {
                (Vec::new(), t.read_i64(), chunk)
            }
        })
        .collect();
    if float {
        let mut out = Vec::with_capacity(numel(&rt.shape));
        for o in 0..outer {
            for (v, _, c) in &parts {
                out.extend_from_slice(&v[o * c..(o + 1) * c]);
            }
        }
        out1(k.new_f64(rt.elem, &rt.shape, &out))
    } else {
        let mut out = Vec::with_capacity(numel(&rt.shape));
        for o in 0..outer {
            for (_, v, c) in &parts {
                out.extend_from_slice(&v[o * c..(o + 1) * c]);
            }
        }
        out1(k.new_i64(rt.elem, &rt.shape, &out))
    }
}

/// `tensor.overwrite`: a copy of the source (the destination only keeps
/// its history for the gradient).
pub fn overwrite(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(1);
    let out = Tensor::zeros(x.dtype(), &x.sizes(), k.physical(x.dtype()));
    out.copy_values_from(x);
    out1(out)
}

pub fn clone(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    let out = Tensor::zeros(x.dtype(), &x.sizes(), k.physical(x.dtype()));
    out.copy_values_from(x);
    out1(out)
}

pub fn full(k: &mut KernelCtx<'_>) -> KernelResult {
    let rt = k.result_type(0)?;
    let v = k.attr_f64_or("value", 0.0);
    let n = numel(&rt.shape);
    out1(k.new_f64(rt.elem, &rt.shape, &vec![v; n]))
}

pub fn size_value(k: &mut KernelCtx<'_>) -> KernelResult {
    let rt = k.result_type(0)?;
    let n = *k.attr_list("size")?.first().ok_or("'size' is empty")?;
    let v = super::size_value_of(n, k.attr_f64_opt("numerator"));
    if rt.elem.is_float() {
        out1(k.new_f64(rt.elem, &[], &[v]))
    } else {
        out1(k.new_i64(rt.elem, &[], &[n]))
    }
}

pub fn arange(k: &mut KernelCtx<'_>) -> KernelResult {
    let rt = k.result_type(0)?;
    let start = k.attr_f64_or("start", 0.0);
    let step = k.attr_f64_or("step", 1.0);
    let n = numel(&rt.shape);
    if rt.elem.is_float() {
        let out: Vec<f64> = (0..n).map(|i| start + i as f64 * step).collect();
        out1(k.new_f64(rt.elem, &rt.shape, &out))
    } else {
        let (s, st) = (start as i64, step as i64);
        let out: Vec<i64> = (0..n as i64).map(|i| s + i * st).collect();
        out1(k.new_i64(rt.elem, &rt.shape, &out))
    }
}

pub fn constant(k: &mut KernelCtx<'_>) -> KernelResult {
    let rt = k.result_type(0)?;
    if rt.elem.is_float() {
        let v = k.attr_dense_f64("value")?;
        out1(k.new_f64(rt.elem, &rt.shape, &v))
    } else {
        let v = k.attr_dense_i64("value")?;
        out1(k.new_i64(rt.elem, &rt.shape, &v))
    }
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
