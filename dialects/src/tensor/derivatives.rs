//! Derivative rules of the `tensor` dialect (see `crate::autodiff`), with
//! PyTorch's conventions (`tools/autograd/derivatives.yaml`): ties split
//! evenly, `pow`'s gradients masked where PyTorch masks them, `relu`
//! differentiated through its result, `layer_norm` as
//! `native_layer_norm_backward`. The derivatives PyTorch computes with one
//! fused kernel (`tanh`, `sigmoid`, `gelu`, `softmax`, `log_softmax`,
//! `layer_norm`) run in `f32` for half-precision operands and round once
//! (`VjpCtx::in_compute_type`), as that kernel does.

use crate::autodiff::{Grads, VjpCtx};
use aot_ir::*;

type R = Result<Grads, Diagnostic>;

/// `a ⊙ b` with gradients `(g·da, g·db)` summed back to each operand.
fn binary(c: &mut VjpCtx<'_, '_>, da: Option<Value>, db: Option<Value>) -> R {
    let (a, b) = (c.x(0), c.x(1));
    let (sa, sb) = (c.shape(a)?, c.shape(b)?);
    let ga = match da {
        Some(v) if c.need(0) => Some(c.sum_to(v, &sa)?),
        _ => None,
    };
    let gb = match db {
        Some(v) if c.need(1) => Some(c.sum_to(v, &sb)?),
        _ => None,
    };
    Ok(c.grads([ga, gb]))
}

pub fn add(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    binary(c, Some(g), Some(g))
}

pub fn sub(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    let ng = if c.need(1) { Some(c.neg(g)?) } else { None };
    binary(c, Some(g), ng)
}

pub fn mul(c: &mut VjpCtx<'_, '_>) -> R {
    let (g, a, b) = (c.g()?, c.x(0), c.x(1));
    let da = if c.need(0) { Some(c.mul(g, b)?) } else { None };
    let db = if c.need(1) { Some(c.mul(g, a)?) } else { None };
    binary(c, da, db)
}

pub fn fma(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    let mut grads = [None, None, None];
    for (i, other) in [(0, Some(1)), (1, Some(0)), (2, None)] {
        if !c.need(i) {
            continue;
        }
        let d = match other {
            Some(j) => {
                let x = c.x(j);
                c.mul(g, x)?
            }
            None => g,
        };
        let shape = c.shape(c.x(i))?;
        grads[i] = Some(c.sum_to(d, &shape)?);
    }
    Ok(c.grads(grads))
}

/// PyTorch's LerpBackward: `g·(1 - w)`, `g·w`, `g·(end - self)`; for a
/// number, `1 - w` in double and both coefficients rounded to the compute
/// type (f32 for halves, so the products round once); for a weight tensor,
/// in the tensors' own type as eager's ops on them.
pub fn lerp(c: &mut VjpCtx<'_, '_>) -> R {
    if let Some(w) = c.attrs().f64("weight") {
        return c.in_compute_type(|c| {
            let g = c.g()?;
            let e = c.elem(g)?;
            let mut grads = [None, None];
            for (i, k) in [(0, 1.0 - w), (1, w)] {
                if c.need(i) {
                    let t = c.scale(g, super::coefficient(k, e))?;
                    let shape = c.shape(c.x(i))?;
                    grads[i] = Some(c.sum_to(t, &shape)?);
                }
            }
            Ok(c.grads(grads))
        });
    }
    let (g, a, b, w) = (c.g()?, c.x(0), c.x(1), c.x(2));
    let e = c.elem(g)?;
    let mut grads = [None, None, None];
    if c.need(0) {
        let one = c.scalar(1.0, e);
        let omw = c.sub(one, w)?;
        grads[0] = Some(c.mul(g, omw)?);
    }
    if c.need(1) {
        grads[1] = Some(c.mul(g, w)?);
    }
    if c.need(2) {
        let d = c.sub(b, a)?;
        grads[2] = Some(c.mul(g, d)?);
    }
    for (i, slot) in grads.iter_mut().enumerate() {
        if let Some(v) = *slot {
            let shape = c.shape(c.x(i))?;
            *slot = Some(c.sum_to(v, &shape)?);
        }
    }
    Ok(c.grads(grads))
}

pub fn div(c: &mut VjpCtx<'_, '_>) -> R {
    let (g, a, b) = (c.g()?, c.x(0), c.x(1));
    let da = if c.need(0) { Some(c.div(g, b)?) } else { None };
    let db = if c.need(1) {
        // -g · ((a / b) / b), in PyTorch's order: `x / x` then has a
        // gradient of exactly 0 (g/b - g·1/b), where `a / b²` rounds b²
        // first (fuzz seed 95098), and a large b does not overflow b².
        let q = c.div(a, b)?;
        let q = c.div(q, b)?;
        let t = c.mul(g, q)?;
        Some(c.neg(t)?)
    } else {
        None
    };
    binary(c, da, db)
}

/// fmod and remainder: a - b·q with q = trunc(a / b) or floor(a / b), a
/// step function of a and b whose derivative is zero (PyTorch's rule).
fn modulo(c: &mut VjpCtx<'_, '_>, round: &str) -> R {
    let (g, a, b) = (c.g()?, c.x(0), c.x(1));
    let da = if c.need(0) { Some(g) } else { None };
    let db = if c.need(1) {
        let q = c.div(a, b)?;
        let q = c.unary(round, q)?;
        let t = c.mul(g, q)?;
        Some(c.neg(t)?)
    } else {
        None
    };
    binary(c, da, db)
}

pub fn fmod(c: &mut VjpCtx<'_, '_>) -> R {
    modulo(c, "tensor.trunc")
}

pub fn remainder(c: &mut VjpCtx<'_, '_>) -> R {
    modulo(c, "tensor.floor")
}

pub fn pow(c: &mut VjpCtx<'_, '_>) -> R {
    let (g, a, b, y) = (c.g()?, c.x(0), c.x(1), c.y(0));
    let e = c.elem(a)?;
    let zero = c.scalar(0.0, e);
    let da = if c.need(0) {
        // g · b · a^(b-1), zero where b == 0. A constant exponent stays
        // one (eager's `pow(x, b - 1)` with a number: `x²` is `x·x`).
        let bm1 = match c.constant(b) {
            Some(k) if c.shape(b)?.is_empty() => c.scalar(k - 1.0, c.elem(b)?),
            _ => {
                let one = c.scalar(1.0, e);
                c.sub(b, one)?
            }
        };
        let p = c.op1("tensor.pow", &[a, bm1], &[])?;
        let t = c.mul(b, p)?;
        let t = c.mul(g, t)?;
        let b0 = c.op1("tensor.eq", &[b, zero], &[])?;
        Some(c.select(b0, zero, t)?)
    } else {
        None
    };
    let db = if c.need(1) {
        // g · a^b · ln a, zero where a == 0 and b >= 0.
        let la = c.unary("tensor.log", a)?;
        let t = c.mul(y, la)?;
        let t = c.mul(g, t)?;
        let a0 = c.op1("tensor.eq", &[a, zero], &[])?;
        let bpos = c.op1("tensor.ge", &[b, zero], &[])?;
        let inner = c.select(bpos, zero, t)?;
        Some(c.select(a0, inner, t)?)
    } else {
        None
    };
    binary(c, da, db)
}

/// `maximum`/`minimum`: the gradient goes to the winner; ties split it.
/// PyTorch's rule: `where(x == y, g/2, g)` with the losing side's elements
/// zeroed (`lose(x, y)`); where a NaN is involved nothing compares true,
/// so both sides get the whole gradient.
fn extremum(c: &mut VjpCtx<'_, '_>, lose: &str) -> R {
    let (g, a, b) = (c.g()?, c.x(0), c.x(1));
    let e = c.elem(a)?;
    let zero = c.scalar(0.0, e);
    let half = c.scale(g, 0.5)?;
    let eq = c.op1("tensor.eq", &[a, b], &[])?;
    let shared = c.select(eq, half, g)?;
    let side = |c: &mut VjpCtx<'_, '_>, x: Value, y: Value| -> Result<Value, Diagnostic> {
        let l = c.op1(lose, &[x, y], &[])?;
        c.select(l, zero, shared)
    };
    let da = if c.need(0) { Some(side(c, a, b)?) } else { None };
    let db = if c.need(1) { Some(side(c, b, a)?) } else { None };
    binary(c, da, db)
}

pub fn maximum(c: &mut VjpCtx<'_, '_>) -> R {
    extremum(c, "tensor.lt")
}

pub fn minimum(c: &mut VjpCtx<'_, '_>) -> R {
    extremum(c, "tensor.gt")
}

/// Eager's joint rule for `clamp.Tensor` (`clamp_backward` and
/// `clamp_backward_min_max`): x takes g unless below lo or above hi; where
/// `lo < hi` and x meets a bound, x and that bound take g/2 each; lo takes g
/// where x is below it and `lo <= hi`, hi where x is above it and `lo <= hi`,
/// or where `hi < lo`. A NaN bound makes every comparison with it false, so
/// it takes nothing and x takes g on the other side's terms.
pub fn clamp_tensor(c: &mut VjpCtx<'_, '_>) -> R {
    let (g, x, lo, hi) = (c.g()?, c.x(0), c.x(1), c.x(2));
    let e = c.elem(g)?;
    let zero = c.scalar(0.0, e);
    let half = c.scale(g, 0.5)?;
    let below = c.op1("tensor.lt", &[x, lo], &[])?;
    let above = c.op1("tensor.gt", &[x, hi], &[])?;
    let ordered = c.op1("tensor.lt", &[lo, hi], &[])?;
    let at_lo = c.op1("tensor.eq", &[x, lo], &[])?;
    let at_hi = c.op1("tensor.eq", &[x, hi], &[])?;
    let mut grads = [None, None, None];
    if c.need(0) {
        let t = c.select(at_hi, half, g)?;
        let t = c.select(at_lo, half, t)?;
        let t = c.select(ordered, t, g)?;
        let t = c.select(above, zero, t)?;
        let t = c.select(below, zero, t)?;
        grads[0] = Some(t);
    }
    if c.need(1) || c.need(2) {
        let not_crossed = c.op1("tensor.le", &[lo, hi], &[])?;
        if c.need(1) {
            let inner = c.select(below, g, zero)?;
            let tie = c.select(at_lo, half, inner)?;
            let rest = c.select(not_crossed, inner, zero)?;
            grads[1] = Some(c.select(ordered, tie, rest)?);
        }
        if c.need(2) {
            let crossed = c.op1("tensor.lt", &[hi, lo], &[])?;
            let inner = c.select(above, g, zero)?;
            let tie = c.select(at_hi, half, inner)?;
            let other = c.select(crossed, g, zero)?;
            let rest = c.select(not_crossed, inner, other)?;
            grads[2] = Some(c.select(ordered, tie, rest)?);
        }
    }
    for (i, slot) in grads.iter_mut().enumerate() {
        if let Some(v) = *slot {
            let shape = c.shape(c.x(i))?;
            *slot = Some(c.sum_to(v, &shape)?);
        }
    }
    Ok(c.grads(grads))
}

pub fn where_(c: &mut VjpCtx<'_, '_>) -> R {
    let (g, cond) = (c.g()?, c.x(0));
    let e = c.elem(g)?;
    let zero = c.scalar(0.0, e);
    let (sa, sb) = (c.shape(c.x(1))?, c.shape(c.x(2))?);
    let ga = if c.need(1) {
        let t = c.select(cond, g, zero)?;
        Some(c.sum_to(t, &sa)?)
    } else {
        None
    };
    let gb = if c.need(2) {
        let t = c.select(cond, zero, g)?;
        Some(c.sum_to(t, &sb)?)
    } else {
        None
    };
    Ok(c.grads([None, ga, gb]))
}

/// A unary rule `g · f(x, y)`.
fn unary_with(
    c: &mut VjpCtx<'_, '_>,
    f: impl FnOnce(&mut VjpCtx<'_, '_>, Value, Value) -> Result<Value, Diagnostic>,
) -> R {
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x, y) = (c.g()?, c.x(0), c.y(0));
    let d = f(c, x, y)?;
    let r = c.mul(g, d)?;
    Ok(c.grads([Some(r)]))
}

pub fn neg(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    let r = if c.need(0) { Some(c.neg(g)?) } else { None };
    Ok(c.grads([r]))
}

pub fn abs(c: &mut VjpCtx<'_, '_>) -> R {
    unary_with(c, |c, x, _| c.unary("tensor.sign", x))
}

pub fn exp(c: &mut VjpCtx<'_, '_>) -> R {
    unary_with(c, |_, _, y| Ok(y))
}

pub fn log(c: &mut VjpCtx<'_, '_>) -> R {
    // g / x, one division as eager's (`g · (1/x)` rounds twice).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let r = c.div(g, x)?;
    Ok(c.grads([Some(r)]))
}

pub fn expm1(c: &mut VjpCtx<'_, '_>) -> R {
    // e^x = y + 1
    unary_with(c, |c, _, y| {
        let e = c.elem(y)?;
        let one = c.scalar(1.0, e);
        c.add(y, one)
    })
}

pub fn log1p(c: &mut VjpCtx<'_, '_>) -> R {
    unary_with(c, |c, x, _| {
        let e = c.elem(x)?;
        let one = c.scalar(1.0, e);
        let s = c.add(x, one)?;
        c.unary("tensor.reciprocal", s)
    })
}

pub fn sqrt(c: &mut VjpCtx<'_, '_>) -> R {
    // g / (2 y), one division as eager's (`g · (1/y · 0.5)` rounds twice).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, y) = (c.g()?, c.y(0));
    let two_y = c.scale(y, 2.0)?;
    let r = c.div(g, two_y)?;
    Ok(c.grads([Some(r)]))
}

pub fn rsqrt(c: &mut VjpCtx<'_, '_>) -> R {
    // -0.5 · g · y³
    unary_with(c, |c, _, y| {
        let y2 = c.mul(y, y)?;
        let y3 = c.mul(y2, y)?;
        c.scale(y3, -0.5)
    })
}

pub fn reciprocal(c: &mut VjpCtx<'_, '_>) -> R {
    // -g · y²
    unary_with(c, |c, _, y| {
        let y2 = c.mul(y, y)?;
        c.neg(y2)
    })
}

pub fn sin(c: &mut VjpCtx<'_, '_>) -> R {
    unary_with(c, |c, x, _| c.unary("tensor.cos", x))
}

pub fn cos(c: &mut VjpCtx<'_, '_>) -> R {
    unary_with(c, |c, x, _| {
        let s = c.unary("tensor.sin", x)?;
        c.neg(s)
    })
}

pub fn tan(c: &mut VjpCtx<'_, '_>) -> R {
    // 1 + y²
    unary_with(c, |c, _, y| {
        let e = c.elem(y)?;
        let one = c.scalar(1.0, e);
        let y2 = c.mul(y, y)?;
        c.add(one, y2)
    })
}

pub fn tanh(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(tanh_rule)
}

fn tanh_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // 1 - y², its multiply-add fused as in eager's kernel (the C++
    // compiler contracts `1 - y*y`; in the saturated tails the difference
    // is many units in the last place of the result).
    unary_with(c, |c, _, y| {
        let e = c.elem(y)?;
        let one = c.scalar(1.0, e);
        let ny = c.neg(y)?;
        c.op1("tensor.fma", &[ny, y, one], &[])
    })
}

pub fn sigmoid(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(sigmoid_rule)
}

fn sigmoid_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // (g (1 - y)) y, multiplied in eager's order (`g · (y (1 - y))` rounds
    // otherwise: a third of the gradients an ulp off).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, y) = (c.g()?, c.y(0));
    let e = c.elem(y)?;
    let one = c.scalar(1.0, e);
    let d = c.sub(one, y)?;
    let t = c.mul(g, d)?;
    let r = c.mul(t, y)?;
    Ok(c.grads([Some(r)]))
}

pub fn silu(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(silu_rule)
}

fn silu_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's SiluBackward: g·s·(1 + x·(1 - s)), s = sigmoid(x), its
    // multiply-add fused by the C++ compiler. (Not the chain rule through
    // x / (1 + e^-x): e^-x overflows for x below -88 and 0·inf is NaN.)
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let one = c.scalar(1.0, e);
    let s = c.unary("tensor.sigmoid", x)?;
    let d = c.sub(one, s)?;
    let t = c.op1("tensor.fma", &[x, d, one], &[])?;
    let gs = c.mul(g, s)?;
    let r = c.mul(gs, t)?;
    Ok(c.grads([Some(r)]))
}

pub fn bce_logits(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(bce_logits_rule)
}

fn bce_logits_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's binary_cross_entropy_with_logits_backward and its target
    // backward (no weights; the caller multiplies them and reduces).
    let (g, x, t) = (c.g()?, c.x(0), c.x(1));
    let dx = if c.need(0) {
        let s = c.unary("tensor.sigmoid", x)?;
        let d = c.sub(s, t)?;
        Some(c.mul(d, g)?)
    } else {
        None
    };
    let dt = if c.need(1) {
        let nx = c.neg(x)?;
        Some(c.mul(nx, g)?)
    } else {
        None
    };
    binary(c, dx, dt)
}

pub fn log_sigmoid(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(log_sigmoid_rule)
}

fn log_sigmoid_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's LogSigmoidBackward: g·(m - s·(z/(1 + z))), z = exp(-|x|),
    // (m, s) = (1, 1) where x < 0, else (0, -1) (a NaN takes the second).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let zero = c.scalar(0.0, e);
    let one = c.scalar(1.0, e);
    let minus_one = c.scalar(-1.0, e);
    let negative = c.op1("tensor.lt", &[x, zero], &[])?;
    let m = c.select(negative, one, zero)?;
    let sg = c.select(negative, one, minus_one)?;
    let a = c.unary("tensor.abs", x)?;
    let n = c.neg(a)?;
    let z = c.unary("tensor.exp", n)?;
    let z1 = c.add(one, z)?;
    let t = c.div(z, z1)?;
    let st = c.mul(sg, t)?;
    let d = c.sub(m, st)?;
    let r = c.mul(g, d)?;
    Ok(c.grads([Some(r)]))
}

pub fn softplus(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(softplus_rule)
}

fn softplus_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's SoftplusBackward: g where x·beta > threshold, else
    // (g·z)/(z + 1), z = exp(x·beta).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let (beta, threshold) = super::softplus_coefficients(|n| c.attrs().f64(n), e);
    let t = c.scale(x, beta)?;
    let thr = c.scalar(threshold, e);
    let linear = c.op1("tensor.gt", &[t, thr], &[])?;
    let z = c.unary("tensor.exp", t)?;
    let gz = c.mul(g, z)?;
    let one = c.scalar(1.0, e);
    let z1 = c.add(z, one)?;
    let r = c.div(gz, z1)?;
    let r = c.select(linear, g, r)?;
    Ok(c.grads([Some(r)]))
}

pub fn mish(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(mish_rule)
}

fn mish_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's MishBackward (its vectorized kernel, left to right):
    // g·(t + (x·s)·(1 - t·t)), t = tanh(log1p(exp(x))), s = 1/(1 + exp(-x)).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let one = c.scalar(1.0, e);
    let nx = c.neg(x)?;
    let enx = c.unary("tensor.exp", nx)?;
    let den = c.add(one, enx)?;
    let sig = c.div(one, den)?;
    let ex = c.unary("tensor.exp", x)?;
    let sp = c.unary("tensor.log1p", ex)?;
    let t = c.unary("tensor.tanh", sp)?;
    let tt = c.mul(t, t)?;
    let omt = c.sub(one, tt)?;
    let xs = c.mul(x, sig)?;
    let p = c.mul(xs, omt)?;
    let q = c.add(t, p)?;
    let r = c.mul(g, q)?;
    Ok(c.grads([Some(r)]))
}

pub fn logit(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(logit_rule)
}

fn logit_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's LogitBackward: g / (x·(1 - x)) inside the range; outside,
    // NaN without eps, 0 with it (a NaN input fails both tests: NaN).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let one = c.scalar(1.0, e);
    let omx = c.sub(one, x)?;
    let den = c.mul(x, omx)?;
    let q = c.div(g, den)?;
    let (lo, hi, fill) = match super::logit_bounds(|n| c.attrs().f64(n), e) {
        Some((lo, hi)) => (lo, hi, 0.0),
        None => (0.0, 1.0, f64::NAN),
    };
    let (lov, hiv, fillv) = (c.scalar(lo, e), c.scalar(hi, e), c.scalar(fill, e));
    let below = c.op1("tensor.lt", &[x, lov], &[])?;
    let above = c.op1("tensor.gt", &[x, hiv], &[])?;
    let t = c.select(above, fillv, q)?;
    let r = c.select(below, fillv, t)?;
    Ok(c.grads([Some(r)]))
}

pub fn glu(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(glu_rule)
}

fn glu_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's GluBackward kernel: sigmoid(b)·g for a, ((1 - s)·s)·a·g for b.
    let (g, a, b) = (c.g()?, c.x(0), c.x(1));
    let s = c.unary("tensor.sigmoid", b)?;
    let da = if c.need(0) { Some(c.mul(s, g)?) } else { None };
    let db = if c.need(1) {
        let e = c.elem(b)?;
        let one = c.scalar(1.0, e);
        let oms = c.sub(one, s)?;
        let t = c.mul(oms, s)?;
        let t = c.mul(t, a)?;
        Some(c.mul(t, g)?)
    } else {
        None
    };
    binary(c, da, db)
}

pub fn elu(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(elu_rule)
}

fn elu_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's EluBackward (from the input): ((g·c1)·c2)·exp(x·c1) where
    // x <= 0, else g·scale.
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let (c1, c2, p) = super::elu_coefficients(|n| c.attrs().f64(n), e);
    let zero = c.scalar(0.0, e);
    let negative = c.op1("tensor.le", &[x, zero], &[])?;
    let t = c.scale(x, c1)?;
    let ex = c.unary("tensor.exp", t)?;
    let gn = c.scale(g, c1)?;
    let gn = c.scale(gn, c2)?;
    let rn = c.mul(gn, ex)?;
    let rp = c.scale(g, p)?;
    let r = c.select(negative, rn, rp)?;
    Ok(c.grads([Some(r)]))
}

pub fn pow_scalar(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's pow_backward: 0 for the exponent 0, else
    // g · (k · x ** (k - 1)), the power with the same special cases.
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let k = c.attrs().f64("exponent").ok_or_else(|| c.err("no exponent"))?;
    if k == 0.0 {
        let z = c.zeros_like(x)?;
        return Ok(c.grads([Some(z)]));
    }
    let a = c.rw.f64_attr(k - 1.0);
    let p = c.op1("tensor.pow_scalar", &[x], &[("exponent", a)])?;
    let t = c.scale(p, k)?;
    let r = c.mul(g, t)?;
    Ok(c.grads([Some(r)]))
}

pub fn hardswish(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(hardswish_rule)
}

fn hardswish_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's HardswishBackward: 0 for x <= -3, g·(x/3 + 1/2) below 3,
    // else g (a NaN input fails both tests and takes the last branch).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let (three, half, zero) = (c.scalar(3.0, e), c.scalar(0.5, e), c.scalar(0.0, e));
    let neg_three = c.scalar(-3.0, e);
    let slope = c.div(x, three)?;
    let slope = c.add(slope, half)?;
    let mid = c.mul(g, slope)?;
    let below = c.op1("tensor.lt", &[x, three], &[])?;
    let upper = c.select(below, mid, g)?;
    let low = c.op1("tensor.le", &[x, neg_three], &[])?;
    let r = c.select(low, zero, upper)?;
    Ok(c.grads([Some(r)]))
}

pub fn hardsigmoid(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(hardsigmoid_rule)
}

fn hardsigmoid_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's HardsigmoidBackward: g · (1/6) strictly inside (-3, 3),
    // else 0; its 1/6 is the f32 constant in every dtype (f64 included).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let e = c.elem(x)?;
    let (three, neg_three, zero) = (c.scalar(3.0, e), c.scalar(-3.0, e), c.scalar(0.0, e));
    let inner = c.scale(g, f64::from(1.0f32 / 6.0))?;
    let below = c.op1("tensor.lt", &[x, three], &[])?;
    let above = c.op1("tensor.gt", &[x, neg_three], &[])?;
    let t = c.select(below, inner, zero)?;
    let r = c.select(above, t, zero)?;
    Ok(c.grads([Some(r)]))
}

pub fn erf(c: &mut VjpCtx<'_, '_>) -> R {
    // 2/√π · exp(-x²)
    unary_with(c, |c, x, _| {
        let x2 = c.mul(x, x)?;
        let n = c.neg(x2)?;
        let ex = c.unary("tensor.exp", n)?;
        c.scale(ex, std::f64::consts::FRAC_2_SQRT_PI)
    })
}

pub fn relu(c: &mut VjpCtx<'_, '_>) -> R {
    // PyTorch's threshold_backward on the result: zero where y <= 0, else
    // g (so a NaN result passes its gradient, as in PyTorch).
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, y) = (c.g()?, c.y(0));
    let e = c.elem(y)?;
    let zero = c.scalar(0.0, e);
    let off = c.op1("tensor.le", &[y, zero], &[])?;
    let r = c.select(off, zero, g)?;
    Ok(c.grads([Some(r)]))
}

/// Ops constant in their operand, zero as PyTorch's derivative: piecewise
/// (sign, floor, ceil, trunc, round; also at the steps), or everywhere
/// (`tensor.fill`, whose gradient is zeros rather than none: the operand
/// keeps its history, as eager's FillBackward does). The zeros are a fill
/// of the cotangent (value-independent of it): eager's engine makes them
/// only when a gradient reaches the op, and where none does
/// (`aot_codegen::absent`), what they feed (a matrix product with a value
/// that is not finite: fuzz seed 95925) must go with the cotangent, which
/// a constant would not.
/// `overwrite(dst, src)`: a zero gradient for `dst` (a materialized one,
/// as `constant` gives), the gradient itself for `src`.
pub fn overwrite(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    let zero = if c.need(0) {
        let z = c.rw.f64_attr(0.0);
        let t = c.rw.value_type(c.x(0));
        Some(super::FillOp::build_typed1(c.rw, &[g], &[("value", z)], t))
    } else {
        None
    };
    Ok(c.grads([zero, if c.need(1) { Some(g) } else { None }]))
}

pub fn constant(c: &mut VjpCtx<'_, '_>) -> R {
    let r = if c.need(0) {
        let g = c.g()?;
        let (gt, xt) = (c.ty(g)?, c.ty(c.x(0))?);
        if gt == xt {
            let zero = c.rw.f64_attr(0.0);
            let t = c.rw.value_type(c.x(0));
            Some(super::FillOp::build_typed1(c.rw, &[g], &[("value", zero)], t))
        } else {
            Some(c.zeros_like(c.x(0))?)
        }
    } else {
        None
    };
    Ok(c.grads([r]))
}

pub fn gelu(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(gelu_rule)
}

fn gelu_rule(c: &mut VjpCtx<'_, '_>) -> R {
    let tanh_approx = c.attrs().str("approximate") == Some("tanh");
    unary_with(c, |c, x, _| {
        if tanh_approx {
            // PyTorch's GeluBackward (tanh): 0.5·(1 + t) + 0.5·x·(1 - t²)·β·(1 + 3κx²),
            // t = tanh(β (x + κ x³)).
            let (beta, kappa) = ((2.0 / std::f64::consts::PI).sqrt(), 0.044715);
            let x2 = c.mul(x, x)?;
            let x3 = c.mul(x2, x)?;
            let kx3 = c.scale(x3, kappa)?;
            let inner = c.add(x, kx3)?;
            let inner = c.scale(inner, beta)?;
            let t = c.unary("tensor.tanh", inner)?;
            let e = c.elem(x)?;
            let one = c.scalar(1.0, e);
            let right = c.add(one, t)?;
            let left_d = c.scale(right, 0.5)?;
            let t2 = c.mul(t, t)?;
            let dt = c.sub(one, t2)?;
            let k3x2 = c.scale(x2, 3.0 * kappa)?;
            let di = c.add(one, k3x2)?;
            let di = c.scale(di, beta)?;
            let half_x = c.scale(x, 0.5)?;
            let r = c.mul(half_x, dt)?;
            let right_d = c.mul(r, di)?;
            c.add(left_d, right_d)
        } else {
            // Φ(x) + x·φ(x)
            let s = c.scale(x, std::f64::consts::FRAC_1_SQRT_2)?;
            let erf = c.unary("tensor.erf", s)?;
            let e = c.elem(x)?;
            let one = c.scalar(1.0, e);
            let cdf = c.add(one, erf)?;
            let cdf = c.scale(cdf, 0.5)?;
            let x2 = c.mul(x, x)?;
            let h = c.scale(x2, -0.5)?;
            let pdf = c.unary("tensor.exp", h)?;
            let pdf = c.scale(pdf, 1.0 / (2.0 * std::f64::consts::PI).sqrt())?;
            let xp = c.mul(x, pdf)?;
            c.add(cdf, xp)
        }
    })
}

/// The gradient passes strictly inside the bounds: PyTorch (2.15) gives 0
/// at an input equal to `min` or `max`, where the result is the bound.
pub fn clamp(c: &mut VjpCtx<'_, '_>) -> R {
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x) = (c.g()?, c.x(0));
    let (lo, hi) = (c.attrs().f64("min"), c.attrs().f64("max"));
    let e = c.elem(x)?;
    let zero = c.scalar(0.0, e);
    let mut r = g;
    if let Some(lo) = lo {
        let l = c.scalar(lo, e);
        let ok = c.op1("tensor.gt", &[x, l], &[])?;
        r = c.select(ok, r, zero)?;
    }
    if let Some(hi) = hi {
        let h = c.scalar(hi, e);
        let ok = c.op1("tensor.lt", &[x, h], &[])?;
        r = c.select(ok, r, zero)?;
    }
    Ok(c.grads([Some(r)]))
}

pub fn cast(c: &mut VjpCtx<'_, '_>) -> R {
    let x = c.x(0);
    if !c.need(0) || !c.elem(x)?.is_float() {
        return Ok(c.grads([]));
    }
    let g = c.g()?;
    let e = c.elem(x)?;
    let r = c.cast(g, e)?;
    Ok(c.grads([Some(r)]))
}

pub fn clone(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    Ok(c.grads([c.need(0).then_some(g)]))
}

/// The gradient of a reduction's result, broadcast back over its input,
/// and the reduced dims.
fn unreduce(c: &mut VjpCtx<'_, '_>) -> Result<(Value, Vec<usize>, Vec<i64>), Diagnostic> {
    let (g, x) = (c.g()?, c.x(0));
    let xs = c.shape(x)?;
    let dims = c.reduced_dims(xs.len())?;
    let keep = VjpCtx::keep_shape(&xs, &dims);
    let gk = c.reshape(g, &keep)?;
    let ge = c.expand_to(gk, &xs)?;
    Ok((ge, dims, keep))
}

pub fn sum(c: &mut VjpCtx<'_, '_>) -> R {
    if !c.need(0) || !c.elem(c.x(0))?.is_float() {
        return Ok(c.grads([]));
    }
    let (ge, _, _) = unreduce(c)?;
    Ok(c.grads([Some(ge)]))
}

/// The number of elements `dims` of shape `xs` reduce (an expression when
/// a size is symbolic).
fn reduced_count(c: &VjpCtx<'_, '_>, xs: &[i64], dims: &[usize]) -> Result<i64, Diagnostic> {
    let sizes: Vec<i64> = dims.iter().map(|&d| xs[d]).collect();
    aot_ir::sym::numel(&sizes).map_err(|e| c.err(e.to_string()))
}

pub fn mean(c: &mut VjpCtx<'_, '_>) -> R {
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let xs = c.shape(c.x(0))?;
    let (ge, dims, _) = unreduce(c)?;
    let n = reduced_count(c, &xs, &dims)?;
    let r = c.scale_by_size(ge, 1.0, n)?;
    Ok(c.grads([Some(r)]))
}

/// `prod`, PyTorch's rule without dividing by a zero: in a group with no
/// zero, `g · (y / x)`; with one zero, `g` times the product of the others
/// at the zero and 0 elsewhere; with more, 0.
pub fn prod(c: &mut VjpCtx<'_, '_>) -> R {
    if !c.need(0) || !c.elem(c.x(0))?.is_float() {
        return Ok(c.grads([]));
    }
    let (x, y) = (c.x(0), c.y(0));
    let xs = c.shape(x)?;
    let e = c.elem(x)?;
    let (ge, dims, keep) = unreduce(c)?;
    let dl: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let (zero, one) = (c.scalar(0.0, e), c.scalar(1.0, e));
    let is_zero = c.op1("tensor.eq", &[x, zero], &[])?;
    let nonzero = c.select(is_zero, one, x)?;
    let dims_attr = c.rw.i64_list_attr(&dl);
    let keepdim = c.rw.unit_attr();
    let others = c.op1("tensor.prod", &[nonzero], &[("dims", dims_attr), ("keepdim", keepdim)])?;
    let others = c.expand_to(others, &xs)?;
    let zf = c.cast(is_zero, e)?;
    let count = c.sum(zf, &dl, true)?;
    let count = c.expand_to(count, &xs)?;
    let yk = c.reshape(y, &keep)?;
    let yk = c.expand_to(yk, &xs)?;
    let no_zero = c.div(yk, nonzero)?;
    let at_zero = c.select(is_zero, others, zero)?;
    let none = c.op1("tensor.eq", &[count, zero], &[])?;
    let single = c.op1("tensor.eq", &[count, one], &[])?;
    let d = c.select(single, at_zero, zero)?;
    let d = c.select(none, no_zero, d)?;
    let r = c.mul(ge, d)?;
    Ok(c.grads([Some(r)]))
}

/// `amax`/`amin`: the gradient split evenly among the elements equal to the
/// result (with `nan_selects`, among the NaN elements when the result is NaN).
pub fn amax(c: &mut VjpCtx<'_, '_>) -> R {
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (x, y) = (c.x(0), c.y(0));
    let xs = c.shape(x)?;
    let e = c.elem(x)?;
    let (ge, dims, keep) = unreduce(c)?;
    let yk = c.reshape(y, &keep)?;
    let mut hit = c.op1("tensor.eq", &[x, yk], &[])?;
    if c.attrs().flag("nan_selects") {
        // (x == y) or both NaN: where x is NaN, whether y is.
        let x_nan = c.op1("tensor.ne", &[x, x], &[])?;
        let y_nan = c.op1("tensor.ne", &[yk, yk], &[])?;
        hit = c.select(x_nan, y_nan, hit)?;
    }
    let mask = c.cast(hit, e)?;
    let dl: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let count = c.sum(mask, &dl, true)?;
    let count = c.expand_to(count, &xs)?;
    let r = c.mul(ge, mask)?;
    let r = c.div(r, count)?;
    Ok(c.grads([Some(r)]))
}

pub fn var(c: &mut VjpCtx<'_, '_>) -> R {
    // g · 2 (x - mean) / (N - correction)
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let x = c.x(0);
    let xs = c.shape(x)?;
    let correction = c.attrs().i64("correction").unwrap_or(1);
    let (ge, dims, _) = unreduce(c)?;
    let n = reduced_count(c, &xs, &dims)?;
    let dl = c.rw.i64_list_attr(&dims.iter().map(|&d| d as i64).collect::<Vec<_>>());
    let k = c.rw.unit_attr();
    let m = c.op1("tensor.mean", &[x], &[("dims", dl), ("keepdim", k)])?;
    let d = c.sub(x, m)?;
    // ((2 / dof) · g) · (x - mean), multiplied in eager's order.
    let dof = aot_ir::sym::sub(n, correction).map_err(|e| c.err(e.to_string()))?;
    let scaled = c.scale_by_size(ge, 2.0, dof)?;
    let r = c.mul(scaled, d)?;
    Ok(c.grads([Some(r)]))
}

fn dim_attr(c: &VjpCtx<'_, '_>, rank: usize) -> Result<i64, Diagnostic> {
    let d = c.attrs().i64("dim").ok_or_else(|| c.err("missing 'dim'"))?;
    Ok(crate::shape::norm_dim(d, rank, 0).map_err(|m| c.err(m))? as i64)
}

pub fn cumsum(c: &mut VjpCtx<'_, '_>) -> R {
    // Each input element feeds the outputs after it (before it, reversed):
    // its gradient is the running sum of g the other way.
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let g = c.g()?;
    let d = c.attrs().i64("dim").ok_or_else(|| c.err("missing 'dim'"))?;
    let dim = c.rw.i64_attr(d);
    let r = if c.attrs().flag("reverse") {
        c.op1("tensor.cumsum", &[g], &[("dim", dim)])?
    } else {
        let rev = c.rw.unit_attr();
        c.op1("tensor.cumsum", &[g], &[("dim", dim), ("reverse", rev)])?
    };
    Ok(c.grads([Some(r)]))
}

pub fn softmax(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(softmax_rule)
}

fn softmax_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // y (g - Σ g y)
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, y) = (c.g()?, c.y(0));
    let d = dim_attr(c, c.shape(y)?.len())?;
    let gy = c.mul(g, y)?;
    let s = c.sum(gy, &[d], true)?;
    let t = c.sub(g, s)?;
    let r = c.mul(y, t)?;
    Ok(c.grads([Some(r)]))
}

pub fn log_softmax(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(log_softmax_rule)
}

fn log_softmax_rule(c: &mut VjpCtx<'_, '_>) -> R {
    // g - exp(y) Σ g
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, y) = (c.g()?, c.y(0));
    let d = dim_attr(c, c.shape(y)?.len())?;
    let s = c.sum(g, &[d], true)?;
    let p = c.unary("tensor.exp", y)?;
    let t = c.mul(p, s)?;
    let r = c.sub(g, t)?;
    Ok(c.grads([Some(r)]))
}

pub fn layer_norm(c: &mut VjpCtx<'_, '_>) -> R {
    c.in_compute_type(layer_norm_rule)
}

fn layer_norm_rule(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    let x = c.x(0);
    let xs = c.shape(x)?;
    let n = c.attrs().i64("normalized_ndim").ok_or_else(|| c.err("missing 'normalized_ndim'"))? as usize;
    let (mean, rstd) = (c.y(1), c.y(2));
    let norm_dims: Vec<i64> = ((xs.len() - n) as i64..xs.len() as i64).collect();
    let batch_dims: Vec<i64> = (0..(xs.len() - n) as i64).collect();
    let count = aot_ir::sym::numel(&xs[xs.len() - n..]).map_err(|e| c.err(e.to_string()))?;
    let centered = c.sub(x, mean)?;
    let xhat = c.mul(centered, rstd)?;
    let w = (c.inputs.len() > 1).then(|| c.x(1));
    let gx = if c.need(0) {
        // PyTorch's arrangement (LayerNormBackwardKernelImpl), which rounds
        // as PyTorch does: with gw = g·w, ds = Σ gw·x and db = Σ gw per row,
        // dx = rstd·gw + b·x + c, b = (db·mean − ds)·rstd³/N,
        // c = −b·mean − db·rstd/N.
        let gw = match w {
            Some(w) => c.mul(g, w)?,
            None => g,
        };
        let gwx = c.mul(gw, x)?;
        let ds = c.sum(gwx, &norm_dims, true)?;
        let db = c.sum(gw, &norm_dims, true)?;
        let dbm = c.mul(db, mean)?;
        let t = c.sub(dbm, ds)?;
        let r2 = c.mul(rstd, rstd)?;
        let r3 = c.mul(r2, rstd)?;
        let b = c.mul(t, r3)?;
        let b = c.scale_by_size(b, 1.0, count)?;
        let bm = c.mul(b, mean)?;
        let dbr = c.mul(db, rstd)?;
        let dbr = c.scale_by_size(dbr, 1.0, count)?;
        let cc = c.add(bm, dbr)?;
        let cc = c.neg(cc)?;
        let a = c.mul(rstd, gw)?;
        let bx = c.mul(b, x)?;
        let dx = c.add(a, bx)?;
        Some(c.add(dx, cc)?)
    } else {
        None
    };
    let norm_shape: Vec<i64> = xs[xs.len() - n..].to_vec();
    let gw = if c.need(1) {
        let t = c.mul(g, xhat)?;
        let s = if batch_dims.is_empty() { t } else { c.sum(t, &batch_dims, false)? };
        Some(c.reshape(s, &norm_shape)?)
    } else {
        None
    };
    let gb = if c.need(2) {
        let s = if batch_dims.is_empty() { g } else { c.sum(g, &batch_dims, false)? };
        Some(c.reshape(s, &norm_shape)?)
    } else {
        None
    };
    Ok(c.grads([gx, gw, gb]))
}

fn transpose_last(c: &mut VjpCtx<'_, '_>, v: Value) -> Result<Value, Diagnostic> {
    let d0 = c.rw.i64_attr(-2);
    let d1 = c.rw.i64_attr(-1);
    c.op1("view.transpose", &[v], &[("dim0", d0), ("dim1", d1)])
}

pub fn mm(c: &mut VjpCtx<'_, '_>) -> R {
    // mm and bmm: ga = g bᵀ, gb = aᵀ g (over the last two dims).
    let name = if c.rw.op_name(c.op) == "tensor.bmm" { "tensor.bmm" } else { "tensor.mm" };
    let (g, a, b) = (c.g()?, c.x(0), c.x(1));
    let ga = if c.need(0) {
        let bt = transpose_last(c, b)?;
        Some(c.op1(name, &[g, bt], &[])?)
    } else {
        None
    };
    let gb = if c.need(1) {
        let at = transpose_last(c, a)?;
        Some(c.op1(name, &[at, g], &[])?)
    } else {
        None
    };
    Ok(c.grads([ga, gb]))
}

pub fn matmul(c: &mut VjpCtx<'_, '_>) -> R {
    // 1-D operands become matrices, batch dims broadcast: the gradients are
    // matmuls of the promoted operands, summed back to each operand.
    let (g, a, b) = (c.g()?, c.x(0), c.x(1));
    let (sa, sb) = (c.shape(a)?, c.shape(b)?);
    let pa = if sa.len() == 1 { vec![1, sa[0]] } else { sa.clone() };
    let pb = if sb.len() == 1 { vec![sb[0], 1] } else { sb.clone() };
    let a2 = c.reshape(a, &pa)?;
    let b2 = c.reshape(b, &pb)?;
    // The promoted result's shape: g's, with the dropped matrix dims back.
    let mut ys = c.shape(g)?;
    if sb.len() == 1 {
        ys.push(1);
    }
    if sa.len() == 1 {
        let at = ys.len() - 1;
        ys.insert(at, 1);
    }
    let g2 = c.reshape(g, &ys)?;
    let ga = if c.need(0) {
        let bt = transpose_last(c, b2)?;
        let t = c.op1("tensor.matmul", &[g2, bt], &[])?;
        let t = c.sum_to(t, &pa)?;
        Some(c.reshape(t, &sa)?)
    } else {
        None
    };
    let gb = if c.need(1) {
        let at = transpose_last(c, a2)?;
        let t = c.op1("tensor.matmul", &[at, g2], &[])?;
        let t = c.sum_to(t, &pb)?;
        Some(c.reshape(t, &sb)?)
    } else {
        None
    };
    Ok(c.grads([ga, gb]))
}

pub fn linear(c: &mut VjpCtx<'_, '_>) -> R {
    // y = x wᵀ + b: gx = g w, gw = Σ gᵀ x, gb = Σ g.
    let (g, x, w) = (c.g()?, c.x(0), c.x(1));
    let (xs, ws) = (c.shape(x)?, c.shape(w)?);
    let (out, inn) = (ws[0], ws[1]);
    let gx = if c.need(0) {
        let t = c.op1("tensor.matmul", &[g, w], &[])?;
        Some(c.reshape(t, &xs)?)
    } else {
        None
    };
    let gw = if c.need(1) {
        let g2 = c.reshape(g, &[-1, out])?;
        let x2 = c.reshape(x, &[-1, inn])?;
        let gt = transpose_last(c, g2)?;
        Some(c.op1("tensor.mm", &[gt, x2], &[])?)
    } else {
        None
    };
    let gb = if c.inputs.len() > 2 && c.need(2) {
        let g2 = c.reshape(g, &[-1, out])?;
        Some(c.sum(g2, &[0], false)?)
    } else {
        None
    };
    Ok(c.grads([gx, gw, gb]))
}

pub fn embedding(c: &mut VjpCtx<'_, '_>) -> R {
    // Rows of g accumulated at their indices.
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, w, idx) = (c.g()?, c.x(0), c.x(1));
    let d = c.shape(w)?[1];
    let flat = c.reshape(idx, &[-1])?;
    let g2 = c.reshape(g, &[-1, d])?;
    let z = c.zeros_like(w)?;
    let acc = c.rw.unit_attr();
    let r = c.op1("tensor.index_put", &[z, flat, g2], &[("accumulate", acc)])?;
    Ok(c.grads([Some(r)]))
}

pub fn gather(c: &mut VjpCtx<'_, '_>) -> R {
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x, idx) = (c.g()?, c.x(0), c.x(1));
    let dim = c.attrs().get("dim").ok_or_else(|| c.err("missing 'dim'"))?;
    let z = c.zeros_like(x)?;
    let r = c.op1("tensor.scatter_add", &[z, idx, g], &[("dim", dim)])?;
    Ok(c.grads([Some(r)]))
}

pub fn index_select(c: &mut VjpCtx<'_, '_>) -> R {
    // index_add along dim: moved to dim 0 for index_put.
    if !c.need(0) {
        return Ok(c.grads([]));
    }
    let (g, x, idx) = (c.g()?, c.x(0), c.x(1));
    let d = dim_attr(c, c.shape(x)?.len())?;
    let z = c.zeros_like(x)?;
    let acc = c.rw.unit_attr();
    let r = if d == 0 {
        c.op1("tensor.index_put", &[z, idx, g], &[("accumulate", acc)])?
    } else {
        let d0 = c.rw.i64_attr(0);
        let dd = c.rw.i64_attr(d);
        let zt = c.op1("view.transpose", &[z], &[("dim0", d0), ("dim1", dd)])?;
        let gt = c.op1("view.transpose", &[g], &[("dim0", d0), ("dim1", dd)])?;
        let t = c.op1("tensor.index_put", &[zt, idx, gt], &[("accumulate", acc)])?;
        c.op1("view.transpose", &[t], &[("dim0", d0), ("dim1", dd)])?
    };
    Ok(c.grads([Some(r)]))
}

pub fn scatter_add(c: &mut VjpCtx<'_, '_>) -> R {
    let (g, idx) = (c.g()?, c.x(1));
    let gx = c.need(0).then_some(g);
    let gs = if c.need(2) {
        let dim = c.attrs().get("dim").ok_or_else(|| c.err("missing 'dim'"))?;
        Some(c.op1("tensor.gather", &[g, idx], &[("dim", dim)])?)
    } else {
        None
    };
    Ok(c.grads([gx, None, gs]))
}

pub fn index_put(c: &mut VjpCtx<'_, '_>) -> R {
    let (g, idx, vals) = (c.g()?, c.x(1), c.x(2));
    let accumulate = c.attrs().flag("accumulate");
    let gx = if c.need(0) {
        if accumulate {
            Some(g)
        } else {
            // The overwritten rows get nothing.
            let e = c.elem(g)?;
            let zero = c.scalar(0.0, e);
            Some(c.op1("tensor.index_put", &[g, idx, zero], &[])?)
        }
    } else {
        None
    };
    let gv = if c.need(2) {
        // `index_put` counts a negative index from the end; `index_select`
        // takes `[0, size)` only.
        let ie = c.elem(idx)?;
        let size = c.shape(g)?.first().copied().unwrap_or(1);
        let (zero, n) = (c.scalar(0.0, ie), c.size_scalar(size, ie));
        let neg = c.op1("tensor.lt", &[idx, zero], &[])?;
        let wrapped = c.add(idx, n)?;
        let idx = c.select(neg, wrapped, idx)?;
        let d0 = c.rw.i64_attr(0);
        let rows = c.op1("tensor.index_select", &[g, idx], &[("dim", d0)])?;
        let vs = c.shape(vals)?;
        Some(c.sum_to(rows, &vs)?)
    } else {
        None
    };
    Ok(c.grads([gx, None, gv]))
}

pub fn cat(c: &mut VjpCtx<'_, '_>) -> R {
    let g = c.g()?;
    let rank = c.shape(g)?.len();
    let d = dim_attr(c, rank)?;
    let mut start = 0;
    let mut out = Vec::new();
    for i in 0..c.inputs.len() {
        let n = c.shape(c.x(i))?[d as usize];
        // Offsets are expressions when a size is symbolic (`s0`, `s0 + 3`).
        let end = aot_ir::sym::add(start, n).map_err(|e| c.err(e.to_string()))?;
        if c.need(i) {
            let (da, s, e) = (c.rw.i64_attr(d), c.rw.i64_attr(start), c.rw.i64_attr(end));
            out.push(Some(c.op1("view.slice", &[g], &[("dim", da), ("start", s), ("end", e)])?));
        } else {
            out.push(None);
        }
        start = end;
    }
    Ok(c.grads(out))
}
