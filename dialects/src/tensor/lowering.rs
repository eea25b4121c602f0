//! Lowering of the `tensor` dialect to loops: scalar formulas for the
//! elementwise ops ([`Pointwise`]) and kernels for the others ([`Lower`]).
//! Each mirrors the interpreter kernel of the same op (`kernels.rs`):
//! NaN propagation, integer wrapping, index wrapping and bound errors, the
//! order in which duplicates accumulate.

use crate::lowering::*;
use crate::r#loop::{Binary, MathFn, Predicate, Unary};
use aot_ir::*;
use aot_runtime::kernel_util::norm_dim;

type R = Result<Value, String>;

/// A reduction body: induction variables and carried values to the next ones.
type ReduceBody<'a> = dyn FnMut(&mut Scalars<'_, '_>, &[Value], &[Value]) -> Result<Vec<Value>, String> + 'a;

fn result_elem(s: &Scalars<'_, '_>, op: Op) -> Result<ElemType, String> {
    s.ctx().value_tensor(s.ctx().result(op, 0)).map(|t| t.elem).ok_or_else(|| "result is not a tensor".to_string())
}

/// Widens the operands, applies `f`, converts to the result type.
fn arith(s: &mut Scalars<'_, '_>, op: Op, v: &[Value], f: &dyn Fn(&mut Scalars<'_, '_>, &[Value]) -> R) -> R {
    let w: Vec<Value> = v.iter().map(|&x| s.widen(x)).collect::<Result<_, _>>()?;
    let r = f(s, &w)?;
    let e = result_elem(s, op)?;
    convert(s, r, e)
}

fn binary(s: &mut Scalars<'_, '_>, op: Op, v: &[Value], b: Binary) -> R {
    arith(s, op, v, &|s, w| s.bin(b, w[0], w[1]))
}

fn unary(s: &mut Scalars<'_, '_>, op: Op, v: &[Value], u: Unary) -> R {
    arith(s, op, v, &|s, w| s.un(u, w[0]))
}

/// A math function of the table on the widened operands.
fn math(s: &mut Scalars<'_, '_>, op: Op, v: &[Value], f: MathFn) -> R {
    arith(s, op, v, &|s, w| s.math(f, w))
}

fn is_float_op(s: &Scalars<'_, '_>, v: Value) -> Result<bool, String> {
    Ok(s.elem_of(v)?.is_float())
}

/// Pointwise lowerings that are one scalar op: `binary`, `unary` and
/// `math` convert to the result type, `compare` gives `i1`.
macro_rules! scalar_ops {
    ($helper:ident: $($name:ident => $op:expr),* $(,)?) => {
        $(
            pub fn $name(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
                $helper(s, op, v, $op)
            }
        )*
    };
}

scalar_ops!(binary:
    add => Binary::Add,
    sub => Binary::Sub,
    mul => Binary::Mul,
    maximum => Binary::Max,
    minimum => Binary::Min,
);

scalar_ops!(unary:
    neg => Unary::Neg,
    abs => Unary::Abs,
    sqrt => Unary::Sqrt,
    rsqrt => Unary::Rsqrt,
    floor => Unary::Floor,
    ceil => Unary::Ceil,
    trunc => Unary::Trunc,
    round => Unary::Round,
);

scalar_ops!(math:
    exp => MathFn::Exp,
    log => MathFn::Log,
    log1p => MathFn::Log1p,
    expm1 => MathFn::Expm1,
    sin => MathFn::Sin,
    cos => MathFn::Cos,
    tan => MathFn::Tan,
    tanh => MathFn::Tanh,
    erf => MathFn::Erf,
);

scalar_ops!(compare:
    eq => Predicate::Eq,
    ne => Predicate::Ne,
    lt => Predicate::Lt,
    le => Predicate::Le,
    gt => Predicate::Gt,
    ge => Predicate::Ge,
);

pub fn div(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    if !is_float_op(s, v[0])? {
        return Err("integer division is not supported".into());
    }
    binary(s, op, v, Binary::Div)
}

/// Integer floor division: `loop.div` rounds toward negative infinity;
/// a zero divisor fails the call with PyTorch's error.
pub fn floor_divide(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    if is_float_op(s, v[0])? {
        return Err("floor_divide takes integers".into());
    }
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[1])?;
        let zero = s.const_i(0, e);
        let ok = s.cmp(Predicate::Ne, w[1], zero)?;
        s.assert(ok, super::kernels::ZERO_DIVISION);
        s.bin(Binary::Div, w[0], w[1])
    })
}

pub fn fmod(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    math(s, op, v, MathFn::Fmod)
}

/// PyTorch's float remainder: fmod, moved by b when it is non-zero and
/// its sign is not b's.
pub fn remainder(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let r = s.math(MathFn::Fmod, w)?;
        let e = s.elem_of(r)?;
        let zero = s.constant(0.0, e);
        let nonzero = s.cmp(Predicate::Ne, r, zero)?;
        let r_neg = s.cmp(Predicate::Lt, r, zero)?;
        let b_neg = s.cmp(Predicate::Lt, w[1], zero)?;
        let other_sign = s.bin(Binary::Xor, r_neg, b_neg)?;
        let moved = s.bin(Binary::And, nonzero, other_sign)?;
        let shifted = s.add(r, w[1])?;
        s.select(moved, shifted, r)
    })
}

pub fn pow(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    if is_float_op(s, v[0])? {
        return math(s, op, v, MathFn::Pow);
    }
    // Integers: wrapping square-and-multiply over the exponent's 32 bits
    // (Rust's `wrapping_pow` with the exponent clamped to u32).
    arith(s, op, v, &|s, w| {
        let zero = s.const_i(0, ElemType::I64);
        let ok = s.cmp(Predicate::Ge, w[1], zero)?;
        s.assert(ok, "Integers to negative integer powers are not allowed.");
        let cap = s.const_i(u32::MAX as i64, ElemType::I64);
        let e = s.bin(Binary::Min, w[1], cap)?;
        let one = s.const_i(1, ElemType::I64);
        let r = s.for_loop(0, 32, 1, false, &[one, w[0], e], &mut |s, _, c| {
            let one = s.const_i(1, ElemType::I64);
            let bit = s.bin(Binary::And, c[2], one)?;
            let z = s.const_i(0, ElemType::I64);
            let set = s.cmp(Predicate::Ne, bit, z)?;
            let prod = s.mul(c[0], c[1])?;
            let acc = s.select(set, prod, c[0])?;
            let sq = s.mul(c[1], c[1])?;
            let sh = s.bin(Binary::Shr, c[2], one)?;
            Ok(vec![acc, sq, sh])
        })?;
        Ok(r[0])
    })
}

fn compare(s: &mut Scalars<'_, '_>, _: Op, v: &[Value], pred: Predicate) -> R {
    let a = s.widen(v[0])?;
    let b = s.widen(v[1])?;
    s.cmp(pred, a, b)
}
pub fn where_(s: &mut Scalars<'_, '_>, _: Op, v: &[Value]) -> R {
    s.select(v[0], v[1], v[2])
}

pub fn clamp_tensor(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let m = s.bin(Binary::Max, w[0], w[1])?;
        s.bin(Binary::Min, m, w[2])
    })
}

pub fn lerp(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    let scalar = s.ctx().attr_f64(op, "weight");
    arith(s, op, v, &|s, w| {
        let (a, b, e) = (w[0], w[1], s.elem_of(w[0])?);
        let diff = s.sub(b, a)?;
        let one = s.const_f(1.0, e);
        if let Some(k) = scalar {
            let k = super::coefficient(k, e);
            let kv = s.const_f(k, e);
            return if k.abs() < 0.5 {
                s.fma(kv, diff, a)
            } else {
                let k1 = s.sub(kv, one)?;
                s.fma(k1, diff, b)
            };
        }
        let wt = w[2];
        let half = s.const_f(0.5, e);
        let mag = s.un(Unary::Abs, wt)?;
        let small = s.cmp(Predicate::Lt, mag, half)?;
        let w1 = s.sub(wt, one)?;
        let coeff = s.select(small, wt, w1)?;
        let base = s.select(small, a, b)?;
        s.fma(coeff, diff, base)
    })
}

pub fn fma(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| s.fma(w[0], w[1], w[2]))
}

pub fn reciprocal(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[0])?;
        let one = s.const_f(1.0, e);
        s.div(one, w[0])
    })
}

/// `num / (1 + e^-x)`, the logistic function's form in PyTorch's kernels
/// (`num` is 1 for the sigmoid, `x` for SiLU).
fn over_logistic_denominator(s: &mut Scalars<'_, '_>, x: Value, silu: bool) -> R {
    let e = s.elem_of(x)?;
    let one = s.const_f(1.0, e);
    let n = s.un(Unary::Neg, x)?;
    let ex = s.math(MathFn::Exp, &[n])?;
    let d = s.add(one, ex)?;
    s.div(if silu { x } else { one }, d)
}

pub fn sigmoid(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| over_logistic_denominator(s, w[0], false))
}

pub fn silu(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| over_logistic_denominator(s, w[0], true))
}

/// `a·sigmoid(b)`, the sigmoid as `tensor.sigmoid` computes it.
pub fn glu(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let sig = over_logistic_denominator(s, w[1], false)?;
        s.mul(w[0], sig)
    })
}

/// `log(x/(1 - x))`, x clamped to the bounds first where `eps` is given
/// (a NaN passes both tests).
pub fn logit(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let (mut x, e) = (w[0], s.elem_of(w[0])?);
        if let Some((lo, hi)) = super::logit_bounds(|n| s.ctx().attr_f64(op, n), e) {
            let lov = s.const_f(lo, e);
            let below = s.cmp(Predicate::Lt, x, lov)?;
            let hiv = s.const_f(hi, e);
            let above = s.cmp(Predicate::Gt, x, hiv)?;
            let t = s.select(above, hiv, x)?;
            x = s.select(below, lov, t)?;
        }
        let one = s.const_f(1.0, e);
        let d = s.sub(one, x)?;
        let q = s.div(x, d)?;
        s.math(MathFn::Log, &[q])
    })
}

/// Log-sigmoid as PyTorch's kernel computes it: `min(0, x) -
/// log1p(exp(-|x|))`.
pub fn log_sigmoid(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| log_sigmoid_of(s, w[0]))
}

fn log_sigmoid_of(s: &mut Scalars<'_, '_>, x: Value) -> R {
    let e = s.elem_of(x)?;
    let zero = s.const_f(0.0, e);
    let m = s.bin(Binary::Min, zero, x)?;
    let a = s.un(Unary::Abs, x)?;
    let n = s.un(Unary::Neg, a)?;
    let z = s.math(MathFn::Exp, &[n])?;
    let l = s.math(MathFn::Log1p, &[z])?;
    s.sub(m, l)
}

/// `(1 - t)·x - log_sigmoid(x)`, in PyTorch's order.
pub fn bce_logits(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let (x, t, e) = (w[0], w[1], s.elem_of(w[0])?);
        let one = s.const_f(1.0, e);
        let omt = s.sub(one, t)?;
        let p = s.mul(omt, x)?;
        let l = log_sigmoid_of(s, x)?;
        s.sub(p, l)
    })
}

/// Softplus as PyTorch's kernel computes it: `x` where `x·beta >
/// threshold`, else `log1p(exp(x·beta)) / beta`.
pub fn softplus(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let (x, e) = (w[0], s.elem_of(w[0])?);
        let (beta, threshold) = super::softplus_coefficients(|n| s.ctx().attr_f64(op, n), e);
        let b = s.const_f(beta, e);
        let t = s.mul(x, b)?;
        let thr = s.const_f(threshold, e);
        let linear = s.cmp(Predicate::Gt, t, thr)?;
        let ex = s.math(MathFn::Exp, &[t])?;
        let l = s.math(MathFn::Log1p, &[ex])?;
        let r = s.div(l, b)?;
        s.select(linear, x, r)
    })
}

/// Mish as PyTorch's vectorized kernel: `x·tanh(log1p(exp(x)))`.
pub fn mish(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let x = w[0];
        let ex = s.math(MathFn::Exp, &[x])?;
        let sp = s.math(MathFn::Log1p, &[ex])?;
        let t = s.math(MathFn::Tanh, &[sp])?;
        s.mul(x, t)
    })
}

/// The ELU family as PyTorch's kernel computes it: `expm1(x·c1)·c2` where
/// `x <= 0`, else `x·scale` (NaN fails the test).
pub fn elu(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let (x, e) = (w[0], s.elem_of(w[0])?);
        let (c1, c2, p) = super::elu_coefficients(|n| s.ctx().attr_f64(op, n), e);
        let zero = s.const_f(0.0, e);
        let negative = s.cmp(Predicate::Le, x, zero)?;
        let c1v = s.const_f(c1, e);
        let t = s.mul(x, c1v)?;
        let em = s.math(MathFn::Expm1, &[t])?;
        let c2v = s.const_f(c2, e);
        let nv = s.mul(em, c2v)?;
        let pv = s.const_f(p, e);
        let pos = s.mul(x, pv)?;
        s.select(negative, nv, pos)
    })
}

/// `x ** k`: PyTorch's special cases as its kernel computes them, else `pow`.
pub fn pow_scalar(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    let k = s.ctx().attr_f64(op, "exponent").ok_or("tensor.pow_scalar: no exponent")?;
    arith(s, op, v, &|s, w| {
        let (x, e) = (w[0], s.elem_of(w[0])?);
        match k {
            2.0 => s.mul(x, x),
            3.0 => {
                let sq = s.mul(x, x)?;
                s.mul(sq, x)
            }
            0.5 => s.un(Unary::Sqrt, x),
            -0.5 => s.un(Unary::Rsqrt, x),
            -1.0 | -2.0 => {
                let d = if k == -2.0 { s.mul(x, x)? } else { x };
                let one = s.const_f(1.0, e);
                s.div(one, d)
            }
            1.0 => Ok(x),
            _ => {
                let c = s.const_f(k, e);
                s.math(MathFn::Pow, &[x, c])
            }
        }
    })
}

/// `min(max(x + 3, 0), 6)` as `tensor.clamp` computes it.
fn hard_gate(s: &mut Scalars<'_, '_>, x: Value) -> R {
    let e = s.elem_of(x)?;
    let three = s.const_f(3.0, e);
    let t = s.add(x, three)?;
    let zero = s.const_f(0.0, e);
    let t = s.bin(Binary::Max, t, zero)?;
    let six = s.const_f(6.0, e);
    s.bin(Binary::Min, t, six)
}

pub fn hardswish(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[0])?;
        let t = hard_gate(s, w[0])?;
        let p = s.mul(w[0], t)?;
        let six = s.const_f(6.0, e);
        s.div(p, six)
    })
}

pub fn hardsigmoid(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[0])?;
        let t = hard_gate(s, w[0])?;
        let six = s.const_f(6.0, e);
        s.div(t, six)
    })
}

pub fn relu(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[0])?;
        let z = s.constant(0.0, e);
        s.bin(Binary::Max, w[0], z)
    })
}

pub fn sign(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[0])?;
        let (z, one, m1) = (s.constant(0.0, e), s.constant(1.0, e), s.constant(-1.0, e));
        let pos = s.cmp(Predicate::Gt, w[0], z)?;
        let negv = s.cmp(Predicate::Lt, w[0], z)?;
        // PyTorch's `(0 < x) - (x < 0)`: NaN and -0 give +0.
        let a = s.select(negv, m1, z)?;
        s.select(pos, one, a)
    })
}

pub fn gelu(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    let approx = s.ctx().attr_str(op, "approximate") == Some("tanh");
    let signed_zero = s.ctx().has_attr(op, "signed_zero");
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[0])?;
        let x = w[0];
        let half = s.const_f(0.5, e);
        let one = s.const_f(1.0, e);
        let hx = s.mul(half, x)?;
        let t = if approx {
            let c = s.const_f((2.0 / std::f64::consts::PI).sqrt(), e);
            let k = s.const_f(0.044715, e);
            let x2 = s.mul(x, x)?;
            let x3 = s.mul(x2, x)?;
            // (PyTorch's kernel fuses x + κ·x³.)
            let inner = s.fma(k, x3, x)?;
            let ci = s.mul(c, inner)?;
            s.math(MathFn::Tanh, &[ci])?
        } else {
            // 1 + erf(x/√2) = erfc(-x/√2): no cancellation for negative x.
            let r = s.const_f(-std::f64::consts::FRAC_1_SQRT_2, e);
            let xs = s.mul(x, r)?;
            let c = s.math(MathFn::Erfc, &[xs])?;
            let y = s.mul(hx, c)?;
            if e == ElemType::F64 || signed_zero {
                return Ok(y);
            }
            // The underflowed tail (and -0) as +0 (`kernels::gelu`): adding
            // +0 changes nothing else.
            let zero = s.const_f(0.0, e);
            return s.add(y, zero);
        };
        let opt = s.add(one, t)?;
        s.mul(hx, opt)
    })
}

pub fn clamp(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    let (lo, hi) = (s.ctx().attr_f64(op, "min"), s.ctx().attr_f64(op, "max"));
    arith(s, op, v, &|s, w| {
        let e = s.elem_of(w[0])?;
        let mut y = w[0];
        if let Some(l) = lo {
            let c = if e.is_float() { s.const_f(l, e) } else { s.const_i(l.ceil() as i64, e) };
            y = s.bin(Binary::Max, y, c)?;
        }
        if let Some(h) = hi {
            let c = if e.is_float() { s.const_f(h, e) } else { s.const_i(h.floor() as i64, e) };
            y = s.bin(Binary::Min, y, c)?;
        }
        Ok(y)
    })
}

pub fn cast(s: &mut Scalars<'_, '_>, op: Op, v: &[Value]) -> R {
    let e = result_elem(s, op)?;
    convert(s, v[0], e)
}

pub fn clone(_: &mut Scalars<'_, '_>, _: Op, v: &[Value]) -> R {
    Ok(v[0])
}

pub fn overwrite(_: &mut Scalars<'_, '_>, _: Op, v: &[Value]) -> R {
    Ok(v[1])
}

// ----- creation -----

/// A kernel writing `f(row-major position)` into a fresh buffer.
fn generate(
    lc: &mut LowerCtx<'_, '_>,
    name: &str,
    f: &dyn Fn(&mut Scalars<'_, '_>, Value, ElemType) -> R,
) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let shape = rt.shape.to_vec();
    let out = lc.alloc(&shape, rt.elem);
    lc.kernel(name, &[out], &mut |s, a| {
        s.nest(&shape, true, &mut |s, ivs| {
            let flat = s.linearize(ivs, &shape)?;
            let v = f(s, flat, rt.elem)?;
            s.store_as(v, a[0], ivs)
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

pub fn full(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let v = lc.attrs().f64("value").unwrap_or(0.0);
    generate(lc, "full", &|s, _, e| {
        let c = s.const_f(v, ElemType::F64);
        convert(s, c, e)
    })
}

/// A size's value (a symbolic one read from the call's size table), or
/// numerator / size.
pub fn size_value(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let a = lc.attrs();
    let n = a.list("size").and_then(|v| v.first().copied()).ok_or("'size' must hold one size")?;
    let numerator = a.f64("numerator");
    if !aot_ir::sym::is_symbolic(n) {
        let v = super::size_value_of(n, numerator);
        return generate(lc, "size_value", &|s, _, e| {
            if e.is_float() {
                let c = s.const_f(v, ElemType::F64);
                convert(s, c, e)
            } else {
                Ok(s.const_i(n, e))
            }
        });
    }
    generate(lc, "size_value", &|s, _, e| {
        if !e.is_float() {
            return Ok(s.size_as(n, e));
        }
        // (In f64 as `size_value_of` computes it, then rounded to e.)
        let d = s.size_as(n, ElemType::F64);
        let v = match numerator {
            Some(x) => {
                let x = s.const_f(x, ElemType::F64);
                s.div(x, d)?
            }
            None => d,
        };
        convert(s, v, e)
    })
}

pub fn arange(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let start = lc.attrs().f64("start").unwrap_or(0.0);
    let step = lc.attrs().f64("step").unwrap_or(1.0);
    generate(lc, "arange", &|s, flat, e| {
        if e.is_float() {
            let i = s.cast_e(flat, ElemType::I64);
            let f = s.cast_e(i, ElemType::F64);
            let st = s.const_f(step, ElemType::F64);
            let a = s.const_f(start, ElemType::F64);
            let m = s.mul(f, st)?;
            let r = s.add(a, m)?;
            convert(s, r, e)
        } else {
            let i = s.cast_e(flat, ElemType::I64);
            let st = s.const_i(step as i64, ElemType::I64);
            let a = s.const_i(start as i64, ElemType::I64);
            let m = s.mul(i, st)?;
            let r = s.add(a, m)?;
            convert(s, r, e)
        }
    })
}

pub fn constant(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let value = lc.ctx().get_attr(lc.op, "value").ok_or("missing 'value'")?;
    if !aot_ir::sym::is_static(&rt.shape) {
        // A splat of a symbolic shape (the verifier allows no other): each
        // element stored by a kernel, an integer exactly.
        let data = match lc.ctx().attr_data(value) {
            aot_ir::AttrData::Dense { data, .. } if data.is_splat() => data.clone(),
            _ => return Err("a constant of a symbolic shape must be a splat".into()),
        };
        return generate(lc, "constant", &|s, _, e| match data {
            aot_ir::DenseData::SplatInt(v) if !e.is_float() => Ok(s.const_i(v, e)),
            _ => {
                let c = s.const_f(data.get_f64(0), ElemType::F64);
                convert(s, c, e)
            }
        });
    }
    let g = lc.global(value, &rt.shape, rt.elem);
    lc.set_result(0, g);
    Ok(())
}

// ----- reductions -----

/// Loops over `shape` carrying `inits`; returns the final carried values.
fn reduce_nest(
    s: &mut Scalars<'_, '_>,
    shape: &[i64],
    inits: &[Value],
    body: &mut ReduceBody<'_>,
) -> Result<Vec<Value>, String> {
    fn go(
        s: &mut Scalars<'_, '_>,
        shape: &[i64],
        ivs: &mut Vec<Value>,
        carried: &[Value],
        body: &mut ReduceBody<'_>,
    ) -> Result<Vec<Value>, String> {
        if ivs.len() == shape.len() {
            return body(s, ivs, carried);
        }
        s.for_loop(0, shape[ivs.len()], 1, false, carried, &mut |s, iv, c| {
            ivs.push(iv);
            let r = go(s, shape, ivs, c, body);
            ivs.pop();
            r
        })
    }
    go(s, shape, &mut Vec::new(), inits, body)
}

/// The reduced dimensions (sorted) of a reduction over `dims` (all when empty).
fn reduced_dims(dims: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    if dims.is_empty() {
        return Ok((0..rank).collect());
    }
    let mut v: Vec<usize> = dims.iter().map(|&d| norm_dim(d, rank, 0)).collect::<Result<_, _>>()?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// A reduction kernel: for every output position (kept dims, the
/// outermost loop parallel), `body` folds the reduced sub-tensor and
/// returns the value to store. `load(ivs_red)` reads the input there.
struct Reduction {
    x_shape: Vec<i64>,
    red: Vec<usize>,
    kept: Vec<usize>,
    red_shape: Vec<i64>,
    kept_shape: Vec<i64>,
    out_keepdim: bool,
}

impl Reduction {
    fn new(x_shape: &[i64], red: Vec<usize>, out_rank: usize) -> Reduction {
        let kept: Vec<usize> = (0..x_shape.len()).filter(|d| !red.contains(d)).collect();
        Reduction {
            x_shape: x_shape.to_vec(),
            red_shape: red.iter().map(|&d| x_shape[d]).collect(),
            kept_shape: kept.iter().map(|&d| x_shape[d]).collect(),
            out_keepdim: out_rank == x_shape.len() && !red.is_empty(),
            red,
            kept,
        }
    }

    fn input_index(&self, kept: &[Value], red: &[Value]) -> Vec<Value> {
        let mut idx = vec![kept.first().or(red.first()).copied(); self.x_shape.len()];
        for (k, &d) in self.kept.iter().enumerate() {
            idx[d] = Some(kept[k]);
        }
        for (k, &d) in self.red.iter().enumerate() {
            idx[d] = Some(red[k]);
        }
        idx.into_iter().map(|v| v.expect("every dimension is kept or reduced")).collect()
    }

    fn output_index(&self, s: &mut Scalars<'_, '_>, kept: &[Value]) -> Vec<Value> {
        if !self.out_keepdim {
            return kept.to_vec();
        }
        let zero = s.index(0);
        let mut idx = vec![zero; self.x_shape.len()];
        for (k, &d) in self.kept.iter().enumerate() {
            idx[d] = kept[k];
        }
        idx
    }
}

type Fold<'a> = &'a dyn Fn(&mut Scalars<'_, '_>, &Reduction, Value, &[Value]) -> R;

/// One kernel over `[x, out]`: `fold(s, r, x, kept_ivs)` computes one
/// output element.
fn reduction_kernel(lc: &mut LowerCtx<'_, '_>, name: &str, red: Vec<usize>, fold: Fold<'_>) -> Result<(), String> {
    let x = lc.operand(0)?;
    let xt = lc.operand_type(0)?;
    let rt = lc.result_type(0)?;
    let r = Reduction::new(&xt.shape, red, rt.shape.len());
    let out = lc.alloc(&rt.shape, rt.elem);
    let kept_shape = r.kept_shape.clone();
    lc.kernel(name, &[x, out], &mut |s, a| {
        // Each output element is its own fold: every kept loop is
        // independent (a reduction over a middle dimension vectorizes
        // along the kept dimensions inside it).
        s.nest_independent(&kept_shape, &mut |s, kept| {
            let v = fold(s, &r, a[0], kept)?;
            let oi = r.output_index(s, kept);
            s.store_as(v, a[1], &oi)
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

/// Σ over the reduced dims of `f(x)` in the compute type of x.
fn sum_of(
    s: &mut Scalars<'_, '_>,
    r: &Reduction,
    x: Value,
    kept: &[Value],
    acc_elem: ElemType,
    f: &dyn Fn(&mut Scalars<'_, '_>, Value) -> R,
) -> R {
    fold_of(s, r, x, kept, acc_elem, Binary::Add, f)
}

/// One output element's group folded from `op`'s unit (0 for a sum, 1 for
/// a product), each input element converted and mapped by `f` first.
fn fold_of(
    s: &mut Scalars<'_, '_>,
    r: &Reduction,
    x: Value,
    kept: &[Value],
    acc_elem: ElemType,
    op: Binary,
    f: &dyn Fn(&mut Scalars<'_, '_>, Value) -> R,
) -> R {
    let unit = s.constant(if op == Binary::Mul { 1.0 } else { 0.0 }, acc_elem);
    let out = reduce_nest(s, &r.red_shape, &[unit], &mut |s, red, c| {
        let idx = r.input_index(kept, red);
        let v = s.load(x, &idx)?;
        let v = convert(s, v, acc_elem)?;
        let v = f(s, v)?;
        Ok(vec![s.bin(op, c[0], v)?])
    })?;
    Ok(out[0])
}

fn reduce_attrs(lc: &LowerCtx<'_, '_>) -> Result<Vec<usize>, String> {
    let dims = lc.attrs().list("dims").unwrap_or_default();
    reduced_dims(&dims, lc.operand_type(0)?.shape.len())
}

pub fn sum(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let red = reduce_attrs(lc)?;
    let acc = compute_elem(lc.result_type(0)?.elem);
    reduction_kernel(lc, "sum", red, &|s, r, x, kept| sum_of(s, r, x, kept, acc, &|_, v| Ok(v)))
}

pub fn prod(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let red = reduce_attrs(lc)?;
    let acc = compute_elem(lc.result_type(0)?.elem);
    reduction_kernel(lc, "prod", red, &|s, r, x, kept| fold_of(s, r, x, kept, acc, Binary::Mul, &|_, v| Ok(v)))
}

/// The number of elements each output element folds, as a size (an
/// expression when a reduced size is symbolic).
fn group(r: &Reduction) -> Result<i64, String> {
    aot_ir::sym::numel(&r.red_shape).map_err(|e| e.to_string())
}

pub fn mean(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let red = reduce_attrs(lc)?;
    let acc = compute_elem(lc.result_type(0)?.elem);
    reduction_kernel(lc, "mean", red, &|s, r, x, kept| {
        let t = sum_of(s, r, x, kept, acc, &|_, v| Ok(v))?;
        let n = s.size_as(group(r)?, acc);
        s.div(t, n)
    })
}

fn extremum(lc: &mut LowerCtx<'_, '_>, max: bool) -> Result<(), String> {
    let red = reduce_attrs(lc)?;
    let xt = lc.operand_type(0)?;
    let rt = lc.result_type(0)?;
    // (A symbolic size is at least 2: only a static 0 empties a group or
    // the result.)
    let red_sizes: Vec<i64> = red.iter().map(|&d| xt.shape[d]).collect();
    provably_nonempty(lc, "a maximum or minimum", &red_sizes)?;
    if red_sizes.contains(&0) && !rt.shape.contains(&0) {
        return Err("cannot compute the maximum or minimum over an empty dimension".into());
    }
    let acc = compute_elem(rt.elem);
    let (init, name) = if max { (f64::NEG_INFINITY, Binary::Max) } else { (f64::INFINITY, Binary::Min) };
    let iinit = if max { i64::MIN } else { i64::MAX };
    reduction_kernel(lc, if max { "amax" } else { "amin" }, red, &|s, r, x, kept| {
        let i0 = if acc.is_float() { s.const_f(init, acc) } else { s.const_i(iinit, acc) };
        let out = reduce_nest(s, &r.red_shape, &[i0], &mut |s, red, c| {
            let idx = r.input_index(kept, red);
            let v = s.load(x, &idx)?;
            let v = convert(s, v, acc)?;
            Ok(vec![s.bin(name, c[0], v)?])
        })?;
        Ok(out[0])
    })
}

pub fn amax(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    extremum(lc, true)
}

pub fn amin(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    extremum(lc, false)
}

pub fn var(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let red = reduce_attrs(lc)?;
    let correction = lc.attrs().i64("correction").unwrap_or(1) as f64;
    let acc = compute_elem(lc.result_type(0)?.elem);
    reduction_kernel(lc, "var", red, &|s, r, x, kept| {
        let n = group(r)?;
        let t = sum_of(s, r, x, kept, acc, &|_, v| Ok(v))?;
        let nn = s.size_as(n, acc);
        let m = s.div(t, nn)?;
        let ss = sum_of(s, r, x, kept, acc, &|s, v| {
            let d = s.sub(v, m)?;
            s.mul(d, d)
        })?;
        let den = if aot_ir::sym::is_symbolic(n) {
            // max(n - correction, 0), n read at run time.
            let c = s.const_f(correction, acc);
            let d = s.sub(nn, c)?;
            let z = s.const_f(0.0, acc);
            s.bin(Binary::Max, d, z)?
        } else {
            s.const_f((n as f64 - correction).max(0.0), acc)
        };
        s.div(ss, den)
    })
}

/// Refuses a reduction that eager refuses over an empty group (a maximum,
/// an argmax) when a symbolic size in `sizes` may be 0 at run time, by the
/// ranges and guards of the function (`lc`'s): compiled code would fold
/// nothing where eager raises.
fn provably_nonempty(lc: &LowerCtx<'_, '_>, what: &str, sizes: &[i64]) -> Result<(), String> {
    if aot_ir::sym::is_static(sizes) {
        return Ok(());
    }
    match sizes.iter().find(|&&d| aot_ir::sym::is_symbolic(d) && lc.facts.lower_bound(d).is_none_or(|l| l < 1)) {
        Some(&d) => Err(format!("{what} over the size {}, which may be 0", aot_ir::sym::display(d))),
        None => Ok(()),
    }
}

pub fn argmax(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let xt = lc.operand_type(0)?;
    provably_nonempty(lc, "an argmax", &xt.shape)?;
    if xt.shape.contains(&0) {
        return Err("argmax of an empty tensor".into());
    }
    let red = match lc.attrs().i64("dim") {
        None => (0..xt.shape.len()).collect(),
        Some(d) => vec![norm_dim(d, xt.shape.len(), 0)?],
    };
    let acc = compute_elem(xt.elem);
    reduction_kernel(lc, "argmax", red, &|s, r, x, kept| {
        let ninf = s.constant(f64::NEG_INFINITY, acc);
        let ninf = if acc.is_float() { ninf } else { s.const_i(i64::MIN, acc) };
        let m1 = s.const_i(-1, ElemType::I64);
        let out = reduce_nest(s, &r.red_shape, &[ninf, m1], &mut |s, red, c| {
            let idx = r.input_index(kept, red);
            let v = s.load(x, &idx)?;
            let a = convert(s, v, acc)?;
            let pos = s.linearize(red, &r.red_shape)?;
            let pos = s.cast_e(pos, ElemType::I64);
            let z = s.const_i(0, ElemType::I64);
            let first = s.cmp(Predicate::Lt, c[1], z)?;
            let gt = s.cmp(Predicate::Gt, a, c[0])?;
            let better = if acc.is_float() {
                // NaN counts as the maximum; the first occurrence wins.
                let a_nan = s.cmp(Predicate::Ne, a, a)?;
                let b_nan = s.cmp(Predicate::Ne, c[0], c[0])?;
                let t = s.const_i(1, ElemType::I1);
                let b_ok = s.bin(Binary::Xor, b_nan, t)?;
                let nan_wins = s.bin(Binary::And, a_nan, b_ok)?;
                let bigger = s.bin(Binary::And, b_ok, gt)?;
                let x = s.bin(Binary::Or, nan_wins, bigger)?;
                s.bin(Binary::Or, first, x)?
            } else {
                s.bin(Binary::Or, first, gt)?
            };
            let bv = s.select(better, a, c[0])?;
            let bi = s.select(better, pos, c[1])?;
            Ok(vec![bv, bi])
        })?;
        Ok(out[1])
    })
}

// ----- lanes: cumsum, argsort, softmax -----

/// The 1-D lanes along the `dim` attribute of a tensor of `shape`, which an
/// op walks one at a time: `outer`, the sizes of the other dimensions (a
/// nest over them reaches every lane), and the lane's length. A 0-d tensor
/// is one lane of one element (PyTorch accepts dim 0 or -1).
struct Lanes {
    dim: usize,
    outer: Vec<i64>,
    len: i64,
    zero_d: bool,
}

impl Lanes {
    fn of(lc: &LowerCtx<'_, '_>, shape: &[i64]) -> Result<Lanes, String> {
        let zero_d = shape.is_empty();
        let shape: &[i64] = if zero_d { &[1] } else { shape };
        let dim = norm_dim(lc.attrs().i64("dim").ok_or("missing 'dim'")?, shape.len(), 0)?;
        let outer = shape.iter().enumerate().filter(|&(d, _)| d != dim).map(|(_, &n)| n).collect();
        Ok(Lanes { dim, outer, len: shape[dim], zero_d })
    }

    /// The index of element `j` of the lane the nest's `ivs` reach.
    fn at(&self, ivs: &[Value], j: Value) -> Vec<Value> {
        if self.zero_d {
            return Vec::new();
        }
        let mut idx = ivs.to_vec();
        idx.insert(self.dim, j);
        idx
    }
}

// ----- cumsum -----

pub fn cumsum(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let x = lc.operand(0)?;
    let xt = lc.operand_type(0)?;
    let rt = lc.result_type(0)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let lanes = Lanes::of(lc, &xt.shape)?;
    let reverse = lc.attrs().flag("reverse");
    // (The lane's last index, an expression over a symbolic length.)
    let last_index = aot_ir::sym::sub(lanes.len, 1).map_err(|e| e.to_string())?;
    // PyTorch's CPU kernel accumulates f32 in f64 and rounds each partial
    // sum (halves in f32, integers in i64).
    let acc = match rt.elem {
        ElemType::F32 | ElemType::F64 => ElemType::F64,
        e => compute_elem(e),
    };
    lc.kernel("cumsum", &[x, out], &mut |s, a| {
        s.nest(&lanes.outer, true, &mut |s, ivs| {
            let zero = s.constant(0.0, acc);
            let last = s.size_index(last_index);
            s.for_loop(0, lanes.len, 1, false, &[zero], &mut |s, j, c| {
                let j = if reverse { s.bin(Binary::Sub, last, j)? } else { j };
                let idx = lanes.at(ivs, j);
                let v = s.load(a[0], &idx)?;
                let v = convert(s, v, acc)?;
                let sum = s.add(c[0], v)?;
                s.store_as(sum, a[1], &idx)?;
                Ok(vec![sum])
            })?;
            Ok(())
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

// ----- argsort -----

/// Each element's place is the number of elements of its lane that sort
/// before it: smaller (larger, descending), or equal and earlier (stable);
/// NaN above every number, NaNs equal. Quadratic in the lane's length, and
/// every element's count is independent of the others.
pub fn argsort(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let x = lc.operand(0)?;
    let xt = lc.operand_type(0)?;
    let rt = lc.result_type(0)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let lanes = Lanes::of(lc, &xt.shape)?;
    let len = lanes.len;
    let descending = lc.attrs().flag("descending");
    let acc = compute_elem(xt.elem);
    let float = acc.is_float();
    lc.kernel("argsort", &[x, out], &mut |s, a| {
        s.nest(&lanes.outer, true, &mut |s, ivs| {
            let at = |j: Value| lanes.at(ivs, j);
            s.for_loop(0, len, 1, false, &[], &mut |s, i, _| {
                let xi = s.load(a[0], &at(i))?;
                let xi = convert(s, xi, acc)?;
                let zero = s.index(0);
                let place = s.for_loop(0, len, 1, false, &[zero], &mut |s, j, c| {
                    let xj = s.load(a[0], &at(j))?;
                    let xj = convert(s, xj, acc)?;
                    let (first, second) = if descending { (xi, xj) } else { (xj, xi) };
                    // `first < second`: j's value sorts before i's.
                    let less = s.cmp(Predicate::Lt, first, second)?;
                    let equal = s.cmp(Predicate::Eq, xj, xi)?;
                    let (value_before, tie) = if float {
                        let nan_j = s.cmp(Predicate::Ne, xj, xj)?;
                        let nan_i = s.cmp(Predicate::Ne, xi, xi)?;
                        let t = s.const_i(1, ElemType::I1);
                        // NaN is the largest: before i ascending when i is
                        // NaN and j is not; descending, when j is NaN and i
                        // is not.
                        let (nan_first, nan_second) = if descending { (nan_j, nan_i) } else { (nan_i, nan_j) };
                        let second_ok = s.bin(Binary::Xor, nan_second, t)?;
                        let by_nan = s.bin(Binary::And, nan_first, second_ok)?;
                        let before = s.bin(Binary::Or, less, by_nan)?;
                        let both_nan = s.bin(Binary::And, nan_i, nan_j)?;
                        (before, s.bin(Binary::Or, equal, both_nan)?)
                    } else {
                        (less, equal)
                    };
                    let earlier = s.cmp(Predicate::Lt, j, i)?;
                    let stable = s.bin(Binary::And, tie, earlier)?;
                    let before = s.bin(Binary::Or, value_before, stable)?;
                    let one = s.index(1);
                    let none = s.index(0);
                    let step = s.select(before, one, none)?;
                    Ok(vec![s.add(c[0], step)?])
                })?[0];
                let iv = s.cast_e(i, ElemType::I64);
                s.store_as(iv, a[1], &at(place))?;
                Ok(Vec::new())
            })?;
            Ok(())
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

// ----- softmax and layer_norm -----

fn softmax_impl(lc: &mut LowerCtx<'_, '_>, log: bool) -> Result<(), String> {
    let x = lc.operand(0)?;
    let xt = lc.operand_type(0)?;
    let rt = lc.result_type(0)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let acc = compute_elem(rt.elem);
    let shape = xt.shape.to_vec();
    let name = if log { "log_softmax" } else { "softmax" };
    if shape.is_empty() {
        let v = if log { 0.0 } else { 1.0 };
        lc.kernel(name, &[out], &mut |s, a| {
            let c = s.const_f(v, acc);
            s.store_as(c, a[0], &[])
        })?;
        lc.set_result(0, out);
        return Ok(());
    }
    let lanes = Lanes::of(lc, &shape)?;
    let len = lanes.len;
    // PyTorch's half-precision log-softmax over the last dimension keeps
    // each row's sum of exponentials and its logarithm in the storage type
    // (rounded twice); over another dimension it keeps them in `float`.
    let round = log && rt.elem != acc && lanes.dim + 1 == shape.len();
    let storage = rt.elem;
    // The exponentials go into the result, are summed from there and
    // scaled there: computed once, where the result holds them exactly (its
    // type is the one they are computed in); otherwise they are computed
    // again for the result.
    let keep_exp = !log && rt.elem == acc;
    lc.kernel(name, &[x, out], &mut |s, a| {
        s.nest(&lanes.outer, true, &mut |s, ivs| {
            let at = |j: Value| lanes.at(ivs, j);
            let ninf = s.const_f(f64::NEG_INFINITY, acc);
            let m = s.for_loop(0, len, 1, false, &[ninf], &mut |s, j, c| {
                let v = s.load(a[0], &at(j))?;
                let v = convert(s, v, acc)?;
                Ok(vec![s.bin(Binary::Max, c[0], v)?])
            })?[0];
            // x - max, and an exponential the result holds, in `acc`.
            let shifted = |s: &mut Scalars<'_, '_>, j: Value| -> Result<Value, String> {
                let v = s.load(a[0], &at(j))?;
                let v = convert(s, v, acc)?;
                s.sub(v, m)
            };
            let stored = |s: &mut Scalars<'_, '_>, j: Value| -> Result<Value, String> {
                let e = s.load(a[1], &at(j))?;
                convert(s, e, acc)
            };
            let zero = s.const_f(0.0, acc);
            let sum = if keep_exp {
                // A store loop, then a sum of what it stored: each loop
                // keeps a form every backend maps (a GPU's lanes split a
                // store loop and a reduction, not a reduction that stores).
                s.for_loop(0, len, 1, false, &[], &mut |s, j, _| {
                    let d = shifted(s, j)?;
                    let e = s.math(MathFn::Exp, &[d])?;
                    s.store_as(e, a[1], &at(j))?;
                    Ok(Vec::new())
                })?;
                s.for_loop(0, len, 1, false, &[zero], &mut |s, j, c| {
                    let e = stored(s, j)?;
                    Ok(vec![s.add(c[0], e)?])
                })?[0]
            } else {
                s.for_loop(0, len, 1, false, &[zero], &mut |s, j, c| {
                    let d = shifted(s, j)?;
                    let e = s.math(MathFn::Exp, &[d])?;
                    Ok(vec![s.add(c[0], e)?])
                })?[0]
            };
            if log {
                let through = |s: &mut Scalars<'_, '_>, v: Value| -> Result<Value, String> {
                    if !round {
                        return Ok(v);
                    }
                    let v = convert(s, v, storage)?;
                    convert(s, v, acc)
                };
                let sum = through(s, sum)?;
                let l = s.math(MathFn::Log, &[sum])?;
                let l = through(s, l)?;
                s.for_loop(0, len, 1, false, &[], &mut |s, j, _| {
                    let d = shifted(s, j)?;
                    let r = s.sub(d, l)?;
                    s.store_as(r, a[1], &at(j))?;
                    Ok(Vec::new())
                })?;
                return Ok(());
            }
            // Scaled by the sum's reciprocal, as PyTorch's CPU kernel does
            // (one division per row, not per element).
            let one = s.const_f(1.0, acc);
            let r = s.div(one, sum)?;
            s.for_loop(0, len, 1, false, &[], &mut |s, j, _| {
                let e = if keep_exp {
                    stored(s, j)?
                } else {
                    let d = shifted(s, j)?;
                    s.math(MathFn::Exp, &[d])?
                };
                let y = s.mul(e, r)?;
                s.store_as(y, a[1], &at(j))?;
                Ok(Vec::new())
            })?;
            Ok(())
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

pub fn softmax(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    softmax_impl(lc, false)
}

pub fn log_softmax(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    softmax_impl(lc, true)
}

pub fn layer_norm(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let xt = lc.operand_type(0)?;
    let n = lc.attrs().i64("normalized_ndim").ok_or("missing 'normalized_ndim'")? as usize;
    let eps = lc.attrs().f64("eps").unwrap_or(1e-5);
    let shape = xt.shape.to_vec();
    let split = shape.len().checked_sub(n).ok_or("'normalized_ndim' exceeds the rank")?;
    let (outer, inner) = (shape[..split].to_vec(), shape[split..].to_vec());
    let e = xt.elem;
    let acc = compute_elem(e);
    let mut stat = outer.clone();
    stat.extend(std::iter::repeat_n(1, n));
    let out = lc.alloc(&shape, e);
    let mean = lc.alloc(&stat, e);
    let rstd = lc.alloc(&stat, e);
    let affine = lc.operands.len() == 3;
    let mut bufs = vec![lc.operand(0)?];
    if affine {
        bufs.push(lc.operand(1)?);
        bufs.push(lc.operand(2)?);
    }
    bufs.extend([out, mean, rstd]);
    let count = aot_ir::sym::numel(&inner).map_err(|e| e.to_string())?;
    // (An empty row's mean is 0, decided on the count: over a symbolic
    // count that may be 0 the decision would need its value.)
    provably_nonempty(lc, "a layer norm", &[count])?;
    lc.kernel("layer_norm", &bufs, &mut |s, a| {
        let x = a[0];
        let (o, mb, rb) = (a[a.len() - 3], a[a.len() - 2], a[a.len() - 1]);
        s.nest(&outer, true, &mut |s, ovs| {
            let full = |ivs: &[Value]| -> Vec<Value> { ovs.iter().chain(ivs).copied().collect() };
            let zero = s.const_f(0.0, acc);
            let t = reduce_nest(s, &inner, &[zero], &mut |s, ivs, c| {
                let v = s.load(x, &full(ivs))?;
                let v = convert(s, v, acc)?;
                Ok(vec![s.add(c[0], v)?])
            })?[0];
            let nn = s.size_as(count, acc);
            let m = s.div(t, nn)?;
            let zero = s.const_f(0.0, acc);
            let ss = reduce_nest(s, &inner, &[zero], &mut |s, ivs, c| {
                let v = s.load(x, &full(ivs))?;
                let v = convert(s, v, acc)?;
                let d = s.sub(v, m)?;
                let d2 = s.mul(d, d)?;
                Ok(vec![s.add(c[0], d2)?])
            })?[0];
            let var = s.div(ss, nn)?;
            let ep = s.const_f(eps, acc);
            let ve = s.add(var, ep)?;
            let sq = s.un(Unary::Sqrt, ve)?;
            let one = s.const_f(1.0, acc);
            let r = s.div(one, sq)?;
            let z = s.index(0);
            let si: Vec<Value> = ovs.iter().copied().chain(std::iter::repeat_n(z, inner.len())).collect();
            // PyTorch's mean is NaN for a row with a non-finite element,
            // as its variance is: mean + 0·var. An empty row's mean is 0
            // (its rstd is 1/sqrt(0/0 + eps), NaN, as PyTorch's).
            let m_out = if count == 0 {
                s.const_f(0.0, acc)
            } else {
                let zv = s.const_f(0.0, acc);
                let nan_if = s.mul(var, zv)?;
                s.add(m, nan_if)?
            };
            s.store_as(m_out, mb, &si)?;
            s.store_as(r, rb, &si)?;
            s.nest(&inner, false, &mut |s, ivs| {
                let idx = full(ivs);
                let v = s.load(x, &idx)?;
                let v = convert(s, v, acc)?;
                let d = s.sub(v, m)?;
                let mut y = s.mul(d, r)?;
                if affine {
                    let w = s.load(a[1], ivs)?;
                    let w = convert(s, w, acc)?;
                    let b = s.load(a[2], ivs)?;
                    let b = convert(s, b, acc)?;
                    // (PyTorch's kernel fuses this multiply-add.)
                    y = s.fma(y, w, b)?;
                }
                s.store_as(y, o, &idx)
            })
        })
    })?;
    lc.set_result(0, out);
    lc.set_result(1, mean);
    lc.set_result(2, rstd);
    Ok(())
}

// ----- matrix products -----

/// `c[..., m, n] = Σ_k a[..., m, k] · b[..., k, n]` on rank-equal buffers
/// with equal batch dims (broadcast with stride-0 views): an external GEMM
/// for f32/f64, a loop kernel for integers.
///
/// Float operands of other types (`f16`/`bf16` storage, or a product whose
/// operands and result differ in type) meet in the result's compute type:
/// one GEMM into a buffer of the compute type (starting from `c`'s values
/// when `accumulate`), and one rounding into `c`. That is how PyTorch's CPU
/// GEMMs treat half-precision operands (sums in `f32`, rounded once, a bias
/// added before the rounding), and it runs at the GEMM's speed where an
/// element loop ran scalar. The GEMM reads `bf16` operands as they are
/// (`loop.matmul` sums them into `f32`: a native bf16 GEMM where the CPU
/// has one, twice the f32 one's speed); other types are converted copies.
pub(crate) fn batched_matmul(
    lc: &mut LowerCtx<'_, '_>,
    a: Value,
    b: Value,
    c: Value,
    accumulate: bool,
) -> Result<(), String> {
    let ct = memref(lc.ctx(), c).cloned().ok_or("matmul output is not a buffer")?;
    let at = memref(lc.ctx(), a).cloned().ok_or("matmul operand is not a buffer")?;
    let bt = memref(lc.ctx(), b).cloned().ok_or("matmul operand is not a buffer")?;
    let gemm = |e: ElemType| matches!(e, ElemType::F32 | ElemType::F64);
    if gemm(ct.elem) && at.elem == ct.elem && bt.elem == ct.elem {
        lc.matmul(a, b, c, accumulate);
        return Ok(());
    }
    let acc = compute_elem(ct.elem);
    if gemm(acc) && [at.elem, bt.elem, ct.elem].iter().all(|e| e.is_float()) {
        let halves = at.elem == ElemType::BF16 && bt.elem == ElemType::BF16 && acc == ElemType::F32;
        let (a, b) = if halves { (a, b) } else { (converted(lc, a, acc)?, converted(lc, b, acc)?) };
        let sums = if ct.elem == acc {
            c
        } else {
            let t = lc.alloc(&ct.shape, acc);
            if accumulate {
                lc.copy_into(c, t)?;
            }
            t
        };
        lc.matmul(a, b, sums, accumulate);
        if sums != c {
            lc.copy_into(sums, c)?;
        }
        return Ok(());
    }
    let r = ct.shape.len();
    let kk = at.shape[r - 1];
    let shape = ct.shape.to_vec();
    let acc = compute_elem(ct.elem);
    lc.kernel("matmul", &[a, b, c], &mut |s, bufs| {
        s.nest(&shape, true, &mut |s, ivs| {
            let init = if accumulate {
                let v = s.load(bufs[2], ivs)?;
                convert(s, v, acc)?
            } else {
                s.constant(0.0, acc)
            };
            let sum = s.for_loop(0, kk, 1, false, &[init], &mut |s, k, c| {
                let mut ia = ivs.to_vec();
                ia[r - 1] = k;
                let mut ib = ivs.to_vec();
                ib[r - 2] = k;
                let x = s.load(bufs[0], &ia)?;
                let x = convert(s, x, acc)?;
                let y = s.load(bufs[1], &ib)?;
                let y = convert(s, y, acc)?;
                let p = s.mul(x, y)?;
                Ok(vec![s.add(c[0], p)?])
            })?[0];
            s.store_as(sum, bufs[2], ivs)
        })
    })
}

/// `v` with elements of type `e`: itself, or a converted copy of the
/// elements it addresses, broadcast again (a weight expanded over a batch
/// is converted once, not once per batch element).
fn converted(lc: &mut LowerCtx<'_, '_>, v: Value, e: ElemType) -> Result<Value, String> {
    let m = memref(lc.ctx(), v).cloned().ok_or("not a buffer")?;
    if m.elem == e {
        return Ok(v);
    }
    let (st, off) = crate::r#loop::layout(&m);
    let compact: Vec<i64> = m.shape.iter().zip(st.iter()).map(|(&n, &s)| if s == 0 { 1 } else { n }).collect();
    if compact[..] == m.shape[..] {
        return lc.as_elem(v, e);
    }
    let src = lc.view(v, &compact, &st, off)?;
    let copy = lc.as_elem(src, e)?;
    let strides: Vec<i64> =
        row_major(&compact).iter().zip(st.iter()).map(|(&r, &s)| if s == 0 { 0 } else { r }).collect();
    lc.view(copy, &m.shape, &strides, 0)
}

/// A view of `v` with a size-1 dimension inserted at `at`.
fn unsqueeze(lc: &mut LowerCtx<'_, '_>, v: Value, at: usize) -> Result<Value, String> {
    let m = memref(lc.ctx(), v).cloned().ok_or("not a buffer")?;
    let (st, off) = crate::r#loop::layout(&m);
    let mut shape = m.shape.to_vec();
    let mut strides = st.to_vec();
    shape.insert(at, 1);
    strides.insert(at, 0);
    lc.view(v, &shape, &strides, off)
}

/// `torch.matmul` (and `mm`, `bmm`): 1-D operands promoted, batch dims broadcast.
pub fn matmul(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let (mut a, mut b) = (lc.operand(0)?, lc.operand(1)?);
    let (ra, rb) = (lc.operand_type(0)?.shape.len(), lc.operand_type(1)?.shape.len());
    if ra == 1 {
        a = unsqueeze(lc, a, 0)?;
    }
    if rb == 1 {
        b = unsqueeze(lc, b, 1)?;
    }
    let (sa, sb) = (memref(lc.ctx(), a).cloned().ok_or("a")?.shape, memref(lc.ctx(), b).cloned().ok_or("b")?.shape);
    let (m, k, n) = (sa[sa.len() - 2], sa[sa.len() - 1], sb[sb.len() - 1]);
    let batch = aot_runtime::kernel_util::broadcast_shapes(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    let mut full_a = batch.to_vec();
    full_a.extend([m, k]);
    let mut full_b = batch.to_vec();
    full_b.extend([k, n]);
    let mut full_c = batch.to_vec();
    full_c.extend([m, n]);
    let av = lc.expand(a, &full_a)?;
    let bv = lc.expand(b, &full_b)?;
    let c = lc.alloc(&full_c, rt.elem);
    batched_matmul(lc, av, bv, c, false)?;
    let out = lc.view(c, &rt.shape, &row_major(&rt.shape), 0)?;
    lc.set_result(0, out);
    Ok(())
}

pub fn linear(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let x = lc.operand(0)?;
    let x = lc.contiguous(x)?;
    let xt = memref(lc.ctx(), x).cloned().ok_or("x")?;
    let w = lc.operand(1)?;
    let wt = lc.operand_type(1)?;
    let (outn, inn) = (wt.shape[0], wt.shape[1]);
    let rows = aot_ir::sym::numel(&xt.shape[..xt.shape.len() - 1]).map_err(|e| e.to_string())?;
    let x3 = lc.view(x, &[1, rows, inn], &[0, inn, 1], 0)?;
    let (ws, woff) = crate::r#loop::layout(&wt);
    let w3 = lc.view(w, &[1, inn, outn], &[0, ws[1], ws[0]], woff)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let c3 = lc.view(out, &[1, rows, outn], &[0, outn, 1], 0)?;
    let bias = lc.operands.len() == 3;
    if bias {
        let b = lc.operand(2)?;
        lc.copy_into(b, out)?;
    }
    batched_matmul(lc, x3, w3, c3, bias)?;
    lc.set_result(0, out);
    Ok(())
}

// ----- indexing -----

/// An index value loaded from an integer buffer, as i64.
fn load_index(s: &mut Scalars<'_, '_>, buf: Value, ivs: &[Value]) -> R {
    let v = s.load(buf, ivs)?;
    Ok(s.cast_e(v, ElemType::I64))
}

/// `i` wrapped once for negative values and checked against `size`; as index.
pub(super) fn checked_index(s: &mut Scalars<'_, '_>, i: Value, size: i64, wrap: bool, msg: &str) -> R {
    let n = s.size_as(size, ElemType::I64);
    let z = s.const_i(0, ElemType::I64);
    let j = if wrap {
        let neg = s.cmp(Predicate::Lt, i, z)?;
        let w = s.add(i, n)?;
        s.select(neg, w, i)?
    } else {
        i
    };
    let lo = s.cmp(Predicate::Ge, j, z)?;
    let hi = s.cmp(Predicate::Lt, j, n)?;
    let ok = s.bin(Binary::And, lo, hi)?;
    s.assert(ok, msg);
    // An out-of-range index was reported; clamp so the access stays inside.
    let zero = s.const_i(0, ElemType::I64);
    let safe = s.select(ok, j, zero)?;
    let ix = s.rw.index_type();
    Ok(s.cast(safe, ix))
}

pub fn embedding(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let (w, idx) = (lc.operand(0)?, lc.operand(1)?);
    let (wt, it) = (lc.operand_type(0)?, lc.operand_type(1)?);
    let (v, d) = (wt.shape[0], wt.shape[1]);
    let out = lc.alloc(&rt.shape, rt.elem);
    let ishape = it.shape.to_vec();
    let msg = format!("index out of range in self (the table has {} rows)", aot_ir::sym::display(v));
    lc.kernel("embedding", &[w, idx, out], &mut |s, a| {
        s.nest(&ishape, true, &mut |s, ivs| {
            let i = load_index(s, a[1], ivs)?;
            let row = checked_index(s, i, v, false, &msg)?;
            s.for_loop(0, d, 1, false, &[], &mut |s, j, _| {
                let x = s.load(a[0], &[row, j])?;
                let mut oi = ivs.to_vec();
                oi.push(j);
                s.store(x, a[2], &oi);
                Ok(Vec::new())
            })?;
            Ok(())
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

/// `out[ivs] = x[ivs with dimension dim replaced by idx[at(ivs)]]`, the
/// index checked against `[0, size)` (PyTorch's `gather` and
/// `index_select` take no negative index).
fn take_along(
    lc: &mut LowerCtx<'_, '_>,
    name: &str,
    dim: usize,
    at: fn(&[Value], usize) -> Vec<Value>,
) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let (x, idx) = (lc.operand(0)?, lc.operand(1)?);
    let size = lc.operand_type(0)?.shape[dim];
    let out = lc.alloc(&rt.shape, rt.elem);
    let shape = rt.shape.to_vec();
    let msg = format!("index out of bounds for dimension {dim} with size {}", aot_ir::sym::display(size));
    lc.kernel(name, &[x, idx, out], &mut |s, a| {
        s.nest(&shape, true, &mut |s, ivs| {
            let i = load_index(s, a[1], &at(ivs, dim))?;
            let j = checked_index(s, i, size, false, &msg)?;
            let mut xi = ivs.to_vec();
            xi[dim] = j;
            let v = s.load(a[0], &xi)?;
            s.store(v, a[2], ivs);
            Ok(())
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

pub fn gather(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rank = lc.operand_type(0)?.shape.len();
    let dim = norm_dim(lc.attrs().i64("dim").ok_or("missing 'dim'")?, rank, 0)?;
    take_along(lc, "gather", dim, |ivs, _| ivs.to_vec())
}

pub fn index_select(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let xt = lc.operand_type(0)?;
    if xt.shape.is_empty() {
        // A 0-d input: every index must be 0 (or -1); the result is x.
        let rt = lc.result_type(0)?;
        let (x, idx) = (lc.operand(0)?, lc.operand(1)?);
        let out = lc.alloc(&rt.shape, rt.elem);
        let n = lc.operand_type(1)?.shape[0];
        lc.kernel("index_select", &[x, idx, out], &mut |s, a| {
            s.for_loop(0, n, 1, false, &[], &mut |s, k, _| {
                let i = load_index(s, a[1], &[k])?;
                checked_index(s, i, 1, false, "index out of bounds for dimension 0 with size 1")?;
                Ok(Vec::new())
            })?;
            let v = s.load(a[0], &[])?;
            s.store(v, a[2], &[]);
            Ok(())
        })?;
        lc.set_result(0, out);
        return Ok(());
    }
    let dim = norm_dim(lc.attrs().i64("dim").ok_or("missing 'dim'")?, xt.shape.len(), 0)?;
    take_along(lc, "index_select", dim, |ivs, dim| vec![ivs[dim]])
}

pub fn scatter_add(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let (x, idx, src) = (lc.operand(0)?, lc.operand(1)?, lc.operand(2)?);
    let dim = norm_dim(lc.attrs().i64("dim").ok_or("missing 'dim'")?, rt.shape.len(), 0)?;
    let size = rt.shape[dim];
    let ishape = lc.operand_type(1)?.shape.to_vec();
    let out = lc.alloc(&rt.shape, rt.elem);
    lc.copy_into(x, out)?;
    let acc = compute_elem(rt.elem);
    let msg = format!("index out of bounds for dimension {dim} with size {}", aot_ir::sym::display(size));
    // Sequential: duplicate indices accumulate in row-major order.
    lc.kernel("scatter_add", &[idx, src, out], &mut |s, a| {
        s.nest(&ishape, false, &mut |s, ivs| {
            let i = load_index(s, a[0], ivs)?;
            let j = checked_index(s, i, size, false, &msg)?;
            let mut oi = ivs.to_vec();
            oi[dim] = j;
            let old = s.load(a[2], &oi)?;
            let old = convert(s, old, acc)?;
            let v = s.load(a[1], ivs)?;
            let v = convert(s, v, acc)?;
            let n = s.add(old, v)?;
            s.store_as(n, a[2], &oi)
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

pub fn index_put(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let (x, idx, vals) = (lc.operand(0)?, lc.operand(1)?, lc.operand(2)?);
    let accumulate = lc.attrs().flag("accumulate");
    let rows = rt.shape[0];
    let n = lc.operand_type(1)?.shape[0];
    let mut target = vec![n];
    target.extend(rt.shape[1..].iter().copied());
    let vals = lc.expand(vals, &target)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    lc.copy_into(x, out)?;
    let inner = rt.shape[1..].to_vec();
    let acc = compute_elem(rt.elem);
    let msg = format!("index out of bounds for dimension 0 with size {}", aot_ir::sym::display(rows));
    lc.kernel("index_put", &[idx, vals, out], &mut |s, a| {
        s.for_loop(0, n, 1, false, &[], &mut |s, r, _| {
            let i = load_index(s, a[0], &[r])?;
            let j = checked_index(s, i, rows, true, &msg)?;
            s.nest(&inner, false, &mut |s, ivs| {
                let mut vi = vec![r];
                vi.extend_from_slice(ivs);
                let mut oi = vec![j];
                oi.extend_from_slice(ivs);
                let v = s.load(a[1], &vi)?;
                if accumulate {
                    let v = convert(s, v, acc)?;
                    let old = s.load(a[2], &oi)?;
                    let old = convert(s, old, acc)?;
                    let n = s.add(old, v)?;
                    s.store_as(n, a[2], &oi)
                } else {
                    s.store(v, a[2], &oi);
                    Ok(())
                }
            })?;
            Ok(Vec::new())
        })?;
        Ok(())
    })?;
    lc.set_result(0, out);
    Ok(())
}

pub fn cat(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let dim = norm_dim(lc.attrs().i64("dim").ok_or("missing 'dim'")?, rt.shape.len(), 0)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let strides = row_major(&rt.shape);
    // (Offsets are size expressions where a part's size is symbolic.)
    let e = |r: Result<i64, aot_ir::sym::SymError>| r.map_err(|e| e.to_string());
    let mut start = 0;
    for i in 0..lc.operands.len() {
        let t = lc.operand_type(i)?;
        let part = lc.operand(i)?;
        if t.shape[dim] != 0 {
            let region = lc.view(out, &t.shape, &strides, e(aot_ir::sym::mul(start, strides[dim]))?)?;
            lc.copy_into(part, region)?;
        }
        start = e(aot_ir::sym::add(start, t.shape[dim]))?;
    }
    lc.set_result(0, out);
    Ok(())
}
