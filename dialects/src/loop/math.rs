//! The table of scalar math functions: one row per function the loop
//! dialect can call (`loop.exp`, `loop.tan`, ...), and everything every
//! layer needs to know about it.
//!
//! A row gives the function's loop op, its `f32`/`f64` reference (`libm`,
//! the same code on every platform, with C-ABI wrappers that native code
//! calls by the row's symbol names), how a backend computes it on vector
//! lanes, and its accuracy contract. The interpreter's kernels evaluate the
//! `f64` reference; the Cranelift backend (and the LLVM and PTX backends
//! after it) read the symbols and the lane implementation from here, never
//! from a list of their own. The loop ops themselves are registered from
//! the rows, so adding a row is adding the op.
//!
//! Accuracy contract: an op marked `exact` is computed as the row's `libm`
//! function computes it, bit for bit on every backend (random sampling
//! formulas rely on it). Otherwise an `f32` result is within `ulps` units in
//! the last place of the `f64` reference rounded to `f32` (below `1e-37` in
//! absolute error near zero), over the whole input range; `f64` always calls
//! `libm`. The lane implementations are written once, generically over
//! [`Lanes`]: a backend supplies a dozen vector primitives and gets every
//! polynomial; [`Scalar32`] runs them on plain `f32` so the contract is
//! tested here, without any backend.

use super::{LoopOp, ScalarOp};
use aot_ir::inventory;
use aot_ir::registry::{Arity, AttrKind, AttrSpec, OpDef, Syntax, Traits};

/// How a backend computes a math function on vector lanes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LaneImpl {
    /// A polynomial approximation in [`Poly`], emitted through [`Lanes`];
    /// the scalar code of a non-exact `f32` op uses it too, so an
    /// element's value never depends on whether a vector loop or its
    /// scalar remainder computed it.
    Poly(Poly),
    /// The `f32` libm function called once per lane.
    PerLane,
}

/// The reference implementations of a row: Rust functions for the
/// interpreter and C-ABI wrappers (the same functions) for native code.
#[derive(Copy, Clone)]
pub enum Libm {
    Unary { f32: extern "C" fn(f32) -> f32, f64: extern "C" fn(f64) -> f64 },
    Binary { f32: extern "C" fn(f32, f32) -> f32, f64: extern "C" fn(f64, f64) -> f64 },
}

/// One row of the table.
pub struct MathFact {
    pub func: MathFn,
    /// The loop op, `loop.<short>`.
    pub op: &'static str,
    /// The short name (`exp`): also the tensor-level op's suffix where one
    /// computes this function elementwise.
    pub short: &'static str,
    pub summary: &'static str,
    /// Symbols of the C-ABI wrappers, `[f32, f64]`.
    pub symbols: [&'static str; 2],
    pub libm: Libm,
    pub lanes: LaneImpl,
    /// Accuracy of the non-exact `f32` form (see the module comment).
    pub ulps: u32,
    /// The accuracy tests sweep `-range..range` (and special values).
    pub range: f32,
}

impl MathFact {
    pub fn arity(&self) -> usize {
        match self.libm {
            Libm::Unary { .. } => 1,
            Libm::Binary { .. } => 2,
        }
    }

    /// The libcall symbol for `f32` or `f64` operands.
    pub fn symbol(&self, f64: bool) -> &'static str {
        self.symbols[usize::from(f64)]
    }

    /// The address of the libcall for `f32` or `f64` operands.
    pub fn address(&self, f64: bool) -> *const u8 {
        match (self.libm, f64) {
            (Libm::Unary { f32, .. }, false) => f32 as *const u8,
            (Libm::Unary { f64, .. }, true) => f64 as *const u8,
            (Libm::Binary { f32, .. }, false) => f32 as *const u8,
            (Libm::Binary { f64, .. }, true) => f64 as *const u8,
        }
    }

    /// The `f64` reference on `args` (one or two values; missing ones are 0).
    pub fn eval(&self, args: &[f64]) -> f64 {
        let a = |i: usize| args.get(i).copied().unwrap_or(0.0);
        match self.libm {
            Libm::Unary { f64, .. } => f64(a(0)),
            Libm::Binary { f64, .. } => f64(a(0), a(1)),
        }
    }

    /// The `f32` libm function on `args`.
    pub fn eval_f32(&self, args: &[f32]) -> f32 {
        let a = |i: usize| args.get(i).copied().unwrap_or(0.0);
        match self.libm {
            Libm::Unary { f32, .. } => f32(a(0)),
            Libm::Binary { f32, .. } => f32(a(0), a(1)),
        }
    }
}

const EXACT: &[AttrSpec] = &[AttrSpec::optional("exact", AttrKind::Flag)];

/// Declares the table: the [`MathFn`] enum, the C-ABI wrappers, the rows
/// and one registered loop op per row.
macro_rules! math_table {
    ($(
        $v:ident = $short:literal, $summary:literal,
        $kind:ident($f32:ident, $f64:ident), lanes: $lanes:expr, ulps: $ulps:expr, range: $range:expr;
    )*) => {
        /// A math function of the loop dialect; [`MathFn::fact`] is its row.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum MathFn { $($v),* }

        /// C-ABI wrappers of the `libm` functions, whose addresses native
        /// code calls.
        mod wrappers {
            $( math_table!(@wrap $kind $f32 f32); math_table!(@wrap $kind $f64 f64); )*
        }

        /// Every row, in declaration order.
        pub const MATH: &[MathFact] = &[$(
            MathFact {
                func: MathFn::$v,
                op: concat!("loop.", $short),
                short: $short,
                summary: $summary,
                symbols: [concat!("aot_", stringify!($f32)), concat!("aot_", stringify!($f64))],
                libm: math_table!(@libm $kind $f32 $f64),
                lanes: $lanes,
                ulps: $ulps,
                range: $range,
            },
        )*];

        $(
            inventory::submit! {
                OpDef {
                    name: concat!("loop.", $short),
                    summary: $summary,
                    traits: Traits::PURE,
                    operands: Arity::Exact(math_table!(@arity $kind)),
                    results: Arity::Exact(1),
                    attrs: EXACT,
                    infer: Some(super::infer_float_math),
                    syntax: Syntax::Functional,
                    interfaces: &[&LoopOp::Scalar(ScalarOp::Math(MathFn::$v))],
                    ..OpDef::DEFAULT
                }
            }
        )*
    };
    (@wrap unary $f:ident $t:ty) => {
        pub extern "C" fn $f(x: $t) -> $t {
            libm::$f(x)
        }
    };
    (@wrap binary $f:ident $t:ty) => {
        pub extern "C" fn $f(x: $t, y: $t) -> $t {
            libm::$f(x, y)
        }
    };
    (@libm unary $f32:ident $f64:ident) => {
        Libm::Unary { f32: wrappers::$f32, f64: wrappers::$f64 }
    };
    (@libm binary $f32:ident $f64:ident) => {
        Libm::Binary { f32: wrappers::$f32, f64: wrappers::$f64 }
    };
    (@arity unary) => { 1 };
    (@arity binary) => { 2 };
}

math_table! {
    Exp = "exp", "e^a",
        unary(expf, exp), lanes: LaneImpl::Poly(Poly::Exp), ulps: 2, range: 110.0;
    Log = "log", "Natural logarithm",
        unary(logf, log), lanes: LaneImpl::PerLane, ulps: 1, range: 100.0;
    Log1p = "log1p", "log(1 + a)",
        unary(log1pf, log1p), lanes: LaneImpl::PerLane, ulps: 1, range: 100.0;
    Expm1 = "expm1", "e^a - 1 (exact near 0)",
        unary(expm1f, expm1), lanes: LaneImpl::PerLane, ulps: 1, range: 80.0;
    Sin = "sin", "Sine",
        unary(sinf, sin), lanes: LaneImpl::PerLane, ulps: 1, range: 100.0;
    Cos = "cos", "Cosine",
        unary(cosf, cos), lanes: LaneImpl::PerLane, ulps: 1, range: 100.0;
    Tan = "tan", "Tangent",
        unary(tanf, tan), lanes: LaneImpl::PerLane, ulps: 1, range: 100.0;
    Tanh = "tanh", "Hyperbolic tangent",
        unary(tanhf, tanh), lanes: LaneImpl::Poly(Poly::Tanh), ulps: 4, range: 12.0;
    Erf = "erf", "Error function",
        unary(erff, erf), lanes: LaneImpl::Poly(Poly::Erf), ulps: 3, range: 6.0;
    // erfc's relative error grows in the far tail (x > 4, results below
    // 1e-8): x² is rounded before exp, ~61 ulps at x = 8.2.
    Erfc = "erfc", "Complementary error function 1 - erf(a)",
        unary(erfcf, erfc), lanes: LaneImpl::Poly(Poly::Erfc), ulps: 64, range: 9.0;
    Pow = "pow", "a to the power b",
        binary(powf, pow), lanes: LaneImpl::PerLane, ulps: 1, range: 0.0;
    Fmod = "fmod", "a - b·trunc(a / b), exactly (C's fmod)",
        binary(fmodf, fmod), lanes: LaneImpl::PerLane, ulps: 0, range: 0.0;
}

impl MathFn {
    /// This function's row.
    pub fn fact(self) -> &'static MathFact {
        // The rows are declared in the enum's order.
        &MATH[self as usize]
    }

    /// The function whose loop op is `name` (`loop.exp`).
    pub fn from_op_name(name: &str) -> Option<MathFn> {
        MATH.iter().find(|f| f.op == name).map(|f| f.func)
    }

    /// The `f64` reference of a one-argument function.
    pub fn eval1(self, x: f64) -> f64 {
        self.fact().eval(&[x])
    }
}

/// The vector primitives the polynomials are written in. `F` holds float
/// lanes, `M` a mask of them. Comparisons are ordered (false on NaN);
/// `min(a, b)`/`max(a, b)` clamp a value `a` by a bound `b` that is never
/// NaN, and return NaN when `a` is (so a backend may use one `minps`/
/// `maxps` with the operands in the order that passes `a`'s NaN on).
/// `exp2i`'s argument is integral and within its range, or NaN in a lane
/// whose result the arithmetic makes NaN anyway.
pub trait Lanes {
    type F: Copy;
    type M: Copy;
    fn splat(&mut self, c: f32) -> Self::F;
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `a·b + c` rounded once (a fused multiply-add: every x86-64 core of
    /// the last decade, and GPUs, have one instruction for it).
    fn mul_add(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn min(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn max(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn floor(&mut self, a: Self::F) -> Self::F;
    fn abs(&mut self, a: Self::F) -> Self::F;
    fn lt(&mut self, a: Self::F, b: Self::F) -> Self::M;
    fn gt(&mut self, a: Self::F, b: Self::F) -> Self::M;
    /// `m ? a : b` per lane.
    fn select(&mut self, m: Self::M, a: Self::F, b: Self::F) -> Self::F;
    /// `mag` (whose sign bit is clear) with the sign bit of `x`.
    fn with_sign_of(&mut self, mag: Self::F, x: Self::F) -> Self::F;
    /// `2^n` for an integral `n` in `-126..=127` (through the exponent bits).
    fn exp2i(&mut self, n: Self::F) -> Self::F;
}

/// The polynomial approximations (each a few `f32` ulps; see the rows).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Poly {
    Exp,
    Tanh,
    Erf,
    Erfc,
}

impl Poly {
    /// Emits the approximation of `x` with `l`'s primitives.
    #[inline(always)]
    pub fn emit<L: Lanes>(self, l: &mut L, x: L::F) -> L::F {
        match self {
            Poly::Exp => exp(l, x),
            Poly::Tanh => tanh(l, x),
            Poly::Erf => erf(l, x),
            Poly::Erfc => erfc(l, x),
        }
    }
}

/// `c[0]·tⁿ⁻¹ + … + c[n-1]` by Horner's rule.
#[inline(always)]
fn horner<L: Lanes>(l: &mut L, c: &[f32], t: L::F) -> L::F {
    let mut p = l.splat(c[0]);
    for &k in &c[1..] {
        let kv = l.splat(k);
        p = l.mul_add(p, t, kv);
    }
    p
}

/// The same polynomial by Estrin's scheme: pairs of terms combined with
/// `t`, then pairs of those with `t²`, `t⁴`, …: a dependency chain of
/// about `2·log₂ n` operations instead of Horner's `2n`, for a kernel
/// bound by its longest chain rather than by its operation count.
#[inline(always)]
fn estrin<L: Lanes>(l: &mut L, c: &[f32], t: L::F) -> L::F {
    // A fixed array rather than a `Vec`: native helpers run this per eight
    // lanes ([`Lanes`] on registers), where an allocation would cost more
    // than the polynomial. The rows' polynomials have at most nine terms.
    const MAX: usize = 16;
    assert!(!c.is_empty() && c.len() <= MAX, "estrin: {} coefficients", c.len());
    let mut terms = [t; MAX];
    for (slot, &k) in terms.iter_mut().zip(c.iter().rev()) {
        *slot = l.splat(k);
    }
    let mut n = c.len();
    let mut x = t;
    while n > 1 {
        let half = n.div_ceil(2);
        // (Slot i is written after slots 2i and 2i+1, both >= i, are read.)
        for i in 0..half {
            terms[i] = if 2 * i + 1 < n { l.mul_add(terms[2 * i + 1], x, terms[2 * i]) } else { terms[2 * i] };
        }
        n = half;
        if n > 1 {
            x = l.mul(x, x);
        }
    }
    terms[0]
}

/// `e^r·2^-n` and `n` for a clamped `cx`: the range reduction `cx = n·ln2
/// + r` (`n` the nearest integer) and a degree-6 polynomial for `e^r`,
/// which [`exp`] and [`exp_nonpositive`] then scale by `2^n`.
#[inline(always)]
fn exp_reduced<L: Lanes>(l: &mut L, cx: L::F) -> (L::F, L::F) {
    let log2e = l.splat(std::f32::consts::LOG2_E);
    let half = l.splat(0.5);
    let t = l.mul_add(cx, log2e, half);
    let n = l.floor(t);
    // cx - n·ln2, ln2 in two parts (the first exact in few bits).
    let c1 = l.splat(-0.693_359_4);
    let c2 = l.splat(2.121_944_4e-4);
    let r = l.mul_add(n, c1, cx);
    let r = l.mul_add(n, c2, r);
    let coeffs = [1.987_569_1e-4f32, 1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1, 0.5];
    let p = estrin(l, &coeffs, r);
    let r2 = l.mul(r, r);
    let p = l.mul_add(p, r2, r);
    let one = l.splat(1.0);
    (l.add(p, one), n)
}

/// `e^x`: [`exp_reduced`], scaling by `2^n` in two steps (so `n` down to
/// -150 still reaches the subnormals); +inf above the overflow bound, 0
/// below the underflow bound, NaN through the arithmetic.
#[inline(always)]
fn exp<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let hi = l.splat(88.722_83);
    let lo = l.splat(-103.972_08);
    let cx = l.min(x, hi);
    let cx = l.max(cx, lo);
    let (y, n) = exp_reduced(l, cx);
    let half = l.splat(0.5);
    let h = l.mul(n, half);
    let h = l.floor(h);
    let rest = l.sub(n, h);
    let p1 = l.exp2i(h);
    let p2 = l.exp2i(rest);
    let y = l.mul(y, p1);
    let y = l.mul(y, p2);
    let inf = l.splat(f32::INFINITY);
    let big = l.gt(x, hi);
    let y = l.select(big, inf, y);
    let zero = l.splat(0.0);
    let small = l.lt(x, lo);
    l.select(small, zero, y)
}

/// `e^x` for `x <= 0` (or NaN) where results below `f32`'s normal range
/// may be off by up to that range (1.2e-38): [`exp_reduced`] of `x`
/// clamped at the normal range's bottom, one scaling by `2^n`, and 0 below
/// the clamp. What [`erfc_abs`] needs of its `e^{-x²}`, in a third fewer
/// operations than [`exp`] (its overflow and subnormal handling).
#[inline(always)]
fn exp_nonpositive<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    // ln(2^-126): n stays within exp2i's range.
    let lo = l.splat(-87.336_55);
    let cx = l.max(x, lo);
    let (y, n) = exp_reduced(l, cx);
    let s = l.exp2i(n);
    let y = l.mul(y, s);
    // Past the clamp, 0 (as `exp` underflows): a result that is exactly
    // zero stays so through the callers' products (GELU's tail, whose
    // sign a division sees).
    let zero = l.splat(0.0);
    let small = l.lt(x, lo);
    l.select(small, zero, y)
}

/// `tanh x`: an odd Taylor polynomial below 0.25, `1 - 2/(e^{2|x|}+1)` with
/// the sign of x above (exactly ±1 from 10 on).
#[inline(always)]
fn tanh<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = l.abs(x);
    let x2 = l.mul(x, x);
    // x - x³/3 + 2x⁵/15 - 17x⁷/315 + 62x⁹/2835
    let cs = [62.0f32 / 2835.0, -17.0 / 315.0, 2.0 / 15.0, -1.0 / 3.0];
    let p = horner(l, &cs, x2);
    let px = l.mul(p, x2);
    let small_v = l.mul_add(px, x, x);
    // Past 10, 2/(e^{2|x|}+1) is below half an ulp of 1: ±1 exactly, as
    // libm's (a cap of 9 left 0.99999994, whose 1 - t² is not 0).
    let cap = l.splat(10.0);
    let cx = l.min(ax, cap);
    let two = l.splat(2.0);
    let t = l.mul(cx, two);
    let e = exp(l, t);
    let one = l.splat(1.0);
    let d = l.add(e, one);
    let q = l.div(two, d);
    let mag = l.sub(one, q);
    let big_v = l.with_sign_of(mag, x);
    let quarter = l.splat(0.25);
    let is_small = l.lt(ax, quarter);
    // NaN: both branches are NaN already.
    l.select(is_small, small_v, big_v)
}

/// `erfc |x|`: `t·Q(t)·e^{-x²}`, `t = 1/(1+x/2)`, `Q` a degree-8 fit of
/// `erfc(x)·e^{x²}/t` over `x` in `[0, 10.2]` for relative error (4e-8
/// before `f32` rounding; erfc underflows past 10.05). The polynomial and
/// the exponential are independent chains: a vector loop over this is
/// bound by the longer one, where a form with the polynomial inside the
/// exponential's argument (`t·e^{-x²+P(t)}`) chains both.
#[inline(always)]
fn erfc_abs<L: Lanes>(l: &mut L, ax: L::F) -> L::F {
    let one = l.splat(1.0);
    let half = l.splat(0.5);
    let d = l.mul_add(ax, half, one);
    let t = l.div(one, d);
    let c = [
        -0.059_124_596f32,
        0.284_847,
        -0.487_764_5,
        0.278_714_78,
        -0.027_073_05,
        0.202_876_75,
        0.243_055_61,
        0.282_381_95,
        0.282_086_04,
    ];
    let q = estrin(l, &c, t);
    let tq = l.mul(t, q);
    let x2 = l.mul(ax, ax);
    let zero = l.splat(0.0);
    let nx2 = l.sub(zero, x2);
    // (Below 1.2e-38 the result is off by less than that: the contract's
    // absolute bound near zero.)
    let ex = exp_nonpositive(l, nx2);
    l.mul(tq, ex)
}

/// `erf x` near zero: 2/√π · (x - x³/3 + x⁵/10 - x⁷/42 + x⁹/216 - x¹¹/1320 + x¹³/9360).
#[inline(always)]
fn erf_series<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let x2 = l.mul(x, x);
    let cs = [1.0f32 / 9360.0, -1.0 / 1320.0, 1.0 / 216.0, -1.0 / 42.0, 1.0 / 10.0, -1.0 / 3.0, 1.0];
    let p = horner(l, &cs, x2);
    let k = l.splat(std::f32::consts::FRAC_2_SQRT_PI);
    let px = l.mul(p, x);
    l.mul(px, k)
}

/// `erf x`: the series below 0.5 (where `1 - erfc` would cancel),
/// `1 - erfc|x|` with x's sign above.
#[inline(always)]
fn erf<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = l.abs(x);
    let small_v = erf_series(l, x);
    let big = l.splat(0.5);
    let ec = erfc_abs(l, ax);
    let one = l.splat(1.0);
    let mag = l.sub(one, ec);
    let big_v = l.with_sign_of(mag, x);
    let is_small = l.lt(ax, big);
    l.select(is_small, small_v, big_v)
}

/// `erfc x = 1 - erf x`: `erfc|x|`, or `2 - erfc|x|` for negative x (at
/// least 1: no cancellation).
#[inline(always)]
fn erfc<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = l.abs(x);
    let ec = erfc_abs(l, ax);
    let two = l.splat(2.0);
    let neg = l.sub(two, ec);
    let zero = l.splat(0.0);
    let is_neg = l.lt(x, zero);
    l.select(is_neg, neg, ec)
}

/// [`Lanes`] on one plain `f32`: the polynomials as the backends compute
/// them (IEEE `f32` arithmetic, fused multiply-adds where the formulas
/// have them), for tests and for anyone who needs the approximation
/// itself.
pub struct Scalar32;

fn nan_or(a: f32, b: f32, f: fn(f32, f32) -> f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        f(a, b)
    }
}

impl Lanes for Scalar32 {
    type F = f32;
    type M = bool;
    fn splat(&mut self, c: f32) -> f32 {
        c
    }
    fn add(&mut self, a: f32, b: f32) -> f32 {
        a + b
    }
    fn sub(&mut self, a: f32, b: f32) -> f32 {
        a - b
    }
    fn mul(&mut self, a: f32, b: f32) -> f32 {
        a * b
    }
    fn mul_add(&mut self, a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    fn div(&mut self, a: f32, b: f32) -> f32 {
        a / b
    }
    fn min(&mut self, a: f32, b: f32) -> f32 {
        nan_or(a, b, f32::min)
    }
    fn max(&mut self, a: f32, b: f32) -> f32 {
        nan_or(a, b, f32::max)
    }
    fn floor(&mut self, a: f32) -> f32 {
        a.floor()
    }
    fn abs(&mut self, a: f32) -> f32 {
        a.abs()
    }
    fn lt(&mut self, a: f32, b: f32) -> bool {
        a < b
    }
    fn gt(&mut self, a: f32, b: f32) -> bool {
        a > b
    }
    fn select(&mut self, m: bool, a: f32, b: f32) -> f32 {
        if m {
            a
        } else {
            b
        }
    }
    fn with_sign_of(&mut self, mag: f32, x: f32) -> f32 {
        f32::from_bits(mag.to_bits() | (x.to_bits() & 0x8000_0000))
    }
    fn exp2i(&mut self, n: f32) -> f32 {
        f32::from_bits(((n as i32 + 127) as u32) << 23)
    }
}

/// Error of `got` against the exact value `want`, in units in the last
/// place of `want` rounded to `f32`; 0 when within `abs` (results near
/// zero), or when both are NaN, or both the same infinity; infinite when
/// one is NaN or an infinity and the other is not.
pub fn ulps_error(got: f64, want: f64, abs: f64) -> f64 {
    let want32 = want as f32 as f64;
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if want32.is_infinite() || got.is_infinite() {
        return if got == want32 { 0.0 } else { f64::INFINITY };
    }
    let err = (got - want).abs();
    if err <= abs {
        return 0.0;
    }
    let u = (want32.abs() as f32).max(f32::MIN_POSITIVE);
    let ulp = (f32::from_bits(u.to_bits() + 1) - u) as f64;
    err / ulp
}

/// Accuracy-test inputs for a row: a dense sweep of `-range..range`,
/// powers of two down to the subnormals, and special values.
pub fn test_inputs(range: f32) -> Vec<f32> {
    let mut v: Vec<f32> = (0..20_001).map(|i| -range + 2.0 * range * i as f32 / 20_000.0).collect();
    for e in -149..=20 {
        let p = 2f32.powi(e);
        v.extend([p, -p]);
    }
    v.extend([0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN, 1e-30, -1e-30]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_enum_order_with_unique_names() {
        for (i, f) in MATH.iter().enumerate() {
            assert_eq!(f.func as usize, i);
            assert_eq!(f.func.fact().op, f.op);
            assert_eq!(MathFn::from_op_name(f.op), Some(f.func));
            assert!(MATH.iter().filter(|g| g.short == f.short).count() == 1);
        }
    }

    /// Every row's non-exact `f32` form meets its contract: the polynomial
    /// as the backends emit it, or libm's `f32` function per lane.
    #[test]
    fn every_row_meets_its_accuracy_contract() {
        for f in MATH.iter().filter(|f| f.arity() == 1) {
            let mut worst = (0.0f64, 0.0f32);
            for x in test_inputs(f.range) {
                let got = match f.lanes {
                    LaneImpl::Poly(p) => p.emit(&mut Scalar32, x),
                    LaneImpl::PerLane => f.eval_f32(&[x]),
                };
                let e = ulps_error(got as f64, f.eval(&[x as f64]), 1e-37);
                if e > worst.0 {
                    worst = (e, x);
                }
            }
            assert!(worst.0 <= f.ulps as f64, "{}: {:.1} ulps at {} (contract {})", f.op, worst.0, worst.1, f.ulps);
        }
    }

    /// Past `exp`'s clamp `erfc` is exactly zero, as libm's underflows:
    /// GELU's far tail is then exactly +0 (a division by it is +inf, as
    /// in eager), and `erf` exactly ±1.
    #[test]
    fn erfc_underflows_to_zero() {
        for x in [9.5f32, 10.5, 14.0, 30.0, 1e10, f32::INFINITY] {
            assert_eq!(Poly::Erfc.emit(&mut Scalar32, x).to_bits(), 0.0f32.to_bits(), "erfc({x})");
            assert_eq!(Poly::Erfc.emit(&mut Scalar32, -x), 2.0, "erfc(-{x})");
            assert_eq!(Poly::Erf.emit(&mut Scalar32, x), 1.0, "erf({x})");
        }
        assert!(Poly::Erfc.emit(&mut Scalar32, f32::NAN).is_nan());
    }

    #[test]
    fn libcalls_compute_the_reference() {
        assert_eq!(MathFn::Pow.fact().eval(&[2.0, 10.0]), 1024.0);
        assert_eq!(MathFn::Pow.fact().eval_f32(&[2.0, 0.5]), 2f32.sqrt());
        assert_eq!(MathFn::Exp.eval1(0.0), 1.0);
        assert_eq!(MathFn::Exp.fact().symbol(true), "aot_exp");
        assert_eq!(MathFn::Exp.fact().symbol(false), "aot_expf");
    }
}
