//! Vectorization of innermost loops: four f32 lanes per iteration.
//!
//! A loop qualifies when it has no inner loop, steps by 1, and every value
//! its body computes is either *uniform* (the same in every iteration: a
//! constant, a load whose address does not move) or a *lane* value of f32
//! (or a comparison mask of them) computed from unit-stride f32 loads; index
//! values may depend on the induction variable only affinely and only as
//! addresses. Loop-carried values must be f32 sums, maxima or minima (the
//! reductions). Anything else keeps the scalar loop.
//!
//! Code: a vector loop while four iterations remain (lane values in F32X4,
//! masks in I32X4, uniform values splatted at their use, reductions in a
//! vector accumulator folded horizontally at the end), then the scalar loop
//! for the remainder, continuing from the folded values. `exp`, `tanh`,
//! `erf` and `erfc` use polynomial approximations (a few ulp in f32); other
//! math calls `libm` per lane.

use super::kernel::{flags, Gen};
use super::libcalls;
use crate::affine::flat_offset;
use aot_dialects::r#loop;
use aot_ir::{Context, Diagnostic, ElemType, Op, TypeData, Value};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self as cl, types, BlockArg, Endianness, InstBuilder, MemFlagsData};
use rustc_hash::FxHashMap;

const LANES: i64 = 4;

/// How a value behaves across the iterations of the loop.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    /// The same in every iteration.
    Uniform,
    /// An index that moves with the induction variable (addresses only).
    Index,
    /// A different f32 (or mask) per iteration.
    Lane,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Reduce {
    Add,
    Max,
    Min,
}

struct Plan {
    kinds: FxHashMap<Value, Kind>,
    /// Per carried value (in order): the reduction and the op updating it.
    reductions: Vec<(Reduce, Op)>,
}

fn is_f32(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::Elem(ElemType::F32))
}

fn is_i1(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::Elem(ElemType::I1))
}

fn is_index(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::Index)
}

/// The coefficient of the induction variable in a load/store's element
/// offset; `None` when the address is not affine in it.
fn address_coef(
    ctx: &Context,
    kinds: &FxHashMap<Value, Kind>,
    op: Op,
    buf: Value,
    first: usize,
    iv: Value,
) -> Option<i64> {
    let m = crate::program::memref(ctx, buf)?;
    let idx: Vec<Value> = ctx.operands(op).skip(first).collect();
    let e = flat_offset(ctx, &m, &idx);
    for &(atom, _) in &e.terms {
        if atom != iv && kinds.get(&atom).copied() != Some(Kind::Uniform) && !is_outer(ctx, atom, iv) {
            return None;
        }
    }
    Some(e.coef(iv))
}

/// A value defined outside the loop whose induction variable is `iv`.
fn is_outer(ctx: &Context, v: Value, iv: Value) -> bool {
    let Some(body) = (match ctx.value_def(iv) {
        aot_ir::ValueDef::BlockArg { block, .. } => Some(block),
        _ => None,
    }) else {
        return false;
    };
    match ctx.value_def(v) {
        aot_ir::ValueDef::BlockArg { block, .. } => block != body,
        aot_ir::ValueDef::Result { op, .. } => ctx.op_block(op) != Some(body),
    }
}

/// Classifies the ops of `block` (the vectorized loop's body, or a loop
/// nested in it) for lanes along `iv`. A nested loop runs the same
/// iterations in every lane: its induction variable is uniform, its
/// carried values are lanes (each lane reduces its own column).
fn classify_block(
    ctx: &Context,
    block: aot_ir::Block,
    iv: Value,
    nested: bool,
    kinds: &mut FxHashMap<Value, Kind>,
    any_lane: &mut bool,
) -> Option<()> {
    let kind = |kinds: &FxHashMap<Value, Kind>, v: Value| kinds.get(&v).copied().unwrap_or(Kind::Uniform);
    for o in ctx.block_ops(block) {
        let name = ctx.op_name(o);
        let ks: Vec<Kind> = ctx.operands(o).map(|v| kind(kinds, v)).collect();
        let result = match name {
            r#loop::YIELD => continue,
            r#loop::FOR => {
                let inner = ctx.single_block(o, 0)?;
                let args = ctx.block_args(inner).to_vec();
                // Uniform bounds (attributes), carried values f32 lanes.
                if !nested || ks.contains(&Kind::Index) || args[1..].iter().any(|&c| !is_f32(ctx, c)) {
                    return None;
                }
                kinds.insert(args[0], Kind::Uniform);
                for &c in &args[1..] {
                    kinds.insert(c, Kind::Lane);
                }
                classify_block(ctx, inner, iv, nested, kinds, any_lane)?;
                let term = ctx.block_ops(inner).last()?;
                if ctx.operands(term).any(|v| kind(kinds, v) == Kind::Index) {
                    return None;
                }
                *any_lane = true;
                Kind::Lane
            }
            r#loop::CONSTANT => Kind::Uniform,
            r#loop::LOAD => {
                let buf = ctx.operand(o, 0);
                match address_coef(ctx, kinds, o, buf, 1, iv)? {
                    // The same address in every lane (a broadcast operand:
                    // stride 0 along the loop), whatever the indices are.
                    0 => Kind::Uniform,
                    1 if is_f32(ctx, ctx.result(o, 0)) || is_i1(ctx, ctx.result(o, 0)) => Kind::Lane,
                    _ => return None,
                }
            }
            r#loop::STORE => {
                let (v, buf) = (ctx.operand(o, 0), ctx.operand(o, 1));
                if !is_f32(ctx, v) || address_coef(ctx, kinds, o, buf, 2, iv)? != 1 {
                    return None;
                }
                *any_lane = true;
                continue;
            }
            r#loop::ASSERT | r#loop::PHILOX => {
                if ks.iter().any(|&k| k != Kind::Uniform) {
                    return None;
                }
                Kind::Uniform
            }
            _ => {
                let r = ctx.result(o, 0);
                if ks.iter().all(|&k| k == Kind::Uniform) {
                    Kind::Uniform
                } else if is_index(ctx, r) {
                    // Affine address arithmetic on the induction variable.
                    if !matches!(name, "loop.add" | "loop.sub" | "loop.mul") || ks.contains(&Kind::Lane) {
                        return None;
                    }
                    Kind::Index
                } else if ks.contains(&Kind::Index) {
                    return None;
                } else if lane_op(ctx, o) {
                    *any_lane = true;
                    Kind::Lane
                } else {
                    return None;
                }
            }
        };
        for &r in ctx.results(o) {
            kinds.insert(r, result);
        }
    }
    Some(())
}

fn analyze(ctx: &Context, op: Op) -> Option<Plan> {
    if ctx.attr_i64(op, "step").unwrap_or(1) != 1 {
        return None;
    }
    let body = ctx.single_block(op, 0)?;
    let args = ctx.block_args(body).to_vec();
    let iv = args[0];
    let mut kinds: FxHashMap<Value, Kind> = FxHashMap::default();
    kinds.insert(iv, Kind::Index);
    for &c in &args[1..] {
        if !is_f32(ctx, c) {
            return None;
        }
        kinds.insert(c, Kind::Lane);
    }
    let mut any_lane = false;
    // Loops nested in the vectorized one interleave the iterations of four
    // lanes: only sound when the iterations are independent.
    let nested = ctx.has_attr(op, "parallel");
    let kind = |kinds: &FxHashMap<Value, Kind>, v: Value| kinds.get(&v).copied().unwrap_or(Kind::Uniform);
    classify_block(ctx, body, iv, nested, &mut kinds, &mut any_lane)?;
    // Index values feed addresses only.
    for (&v, &k) in &kinds {
        if k == Kind::Index && v != iv {
            for u in ctx.uses(v) {
                let ok = match ctx.op_name(u.op) {
                    r#loop::LOAD => u.index >= 1,
                    r#loop::STORE => u.index >= 2,
                    _ => kind(&kinds, ctx.result(u.op, 0)) == Kind::Index,
                };
                if !ok {
                    return None;
                }
            }
        }
    }
    // Carried values: reductions.
    let term = ctx.block_ops(body).last()?;
    let mut reductions = Vec::new();
    for (k, &c) in args[1..].iter().enumerate() {
        let y = ctx.operand(term, k);
        let upd = ctx.defining_op(y)?;
        let r = match ctx.op_name(upd) {
            "loop.add" => Reduce::Add,
            "loop.max" => Reduce::Max,
            "loop.min" => Reduce::Min,
            _ => return None,
        };
        let uses: Vec<_> = ctx.uses(c).collect();
        if uses.len() != 1 || uses[0].op != upd || ctx.operands(upd).filter(|&v| v == c).count() != 1 {
            return None;
        }
        // The new value is used only by the yield.
        if ctx.uses(y).count() != 1 {
            return None;
        }
        reductions.push((r, upd));
        any_lane = true;
    }
    any_lane.then_some(Plan { kinds, reductions })
}

/// Ops with a lane-wise form on f32 values and masks.
fn lane_op(ctx: &Context, o: Op) -> bool {
    let name = ctx.op_name(o).strip_prefix("loop.").unwrap_or("");
    let r = ctx.result(o, 0);
    let f32_ops = [
        "add", "sub", "mul", "div", "max", "min", "neg", "abs", "sqrt", "rsqrt", "floor", "exp", "tanh", "erf", "erfc",
        "log", "log1p", "sin", "cos", "pow",
    ];
    if f32_ops.contains(&name) {
        return is_f32(ctx, r) && !ctx.has_attr(o, "exact");
    }
    match name {
        "cmp" => is_f32(ctx, ctx.operand(o, 0)),
        "select" => is_f32(ctx, r) && is_i1(ctx, ctx.operand(o, 0)),
        "and" | "or" | "xor" => is_i1(ctx, r),
        "cast" => is_f32(ctx, r) && is_i1(ctx, ctx.operand(o, 0)),
        _ => false,
    }
}

/// Which operand of a binary op is a non-NaN `loop.constant`, if one is.
fn constant_operand(ctx: &Context, op: Op) -> Option<usize> {
    (0..2).find(|&k| {
        let v = ctx.operand(op, k);
        ctx.defining_op(v).is_some_and(|d| {
            ctx.op_name(d) == r#loop::CONSTANT
                && ctx.get_attr(d, "value").and_then(|a| ctx.attr_as_f64(a)).is_some_and(|x| !x.is_nan())
        })
    })
}

/// A lane value (F32X4 or an I32X4 mask), or a uniform scalar.
#[derive(Copy, Clone)]
enum V {
    S(cl::Value),
    L(cl::Value),
}

struct Vec4<'g, 'a, 'f> {
    g: &'g mut Gen<'a, 'f>,
    vals: FxHashMap<Value, V>,
}

fn vflags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl<'f> Vec4<'_, '_, 'f> {
    fn ins(&mut self) -> cranelift_frontend::FuncInstBuilder<'_, 'f> {
        self.g.b.ins()
    }

    fn f32c(&mut self, x: f32) -> cl::Value {
        let s = self.ins().f32const(x);
        self.ins().splat(types::F32X4, s)
    }

    /// `c[0]·tⁿ⁻¹ + … + c[n-1]` by Horner's rule on the lanes.
    fn horner(&mut self, c: &[f32], t: cl::Value) -> cl::Value {
        let mut p = self.f32c(c[0]);
        for &k in &c[1..] {
            let m = self.ins().fmul(p, t);
            let kv = self.f32c(k);
            p = self.ins().fadd(m, kv);
        }
        p
    }

    /// `v` as a lane vector of `ty` (splatting a uniform scalar; an i1
    /// becomes an all-ones or all-zeros mask).
    fn lane(&mut self, v: V, mask: bool) -> cl::Value {
        match v {
            V::L(x) => x,
            V::S(x) if mask => {
                let t = self.g.b.func.dfg.value_type(x);
                let z = self.ins().iconst(t, 0);
                let on = self.ins().icmp(IntCC::NotEqual, x, z);
                let w = self.ins().sextend(types::I32, on);
                let neg = self.ins().ineg(w);
                let ones = self.ins().band_imm_s(neg, -1);
                self.ins().splat(types::I32X4, ones)
            }
            V::S(x) => self.ins().splat(types::F32X4, x),
        }
    }

    fn get(&self, op: Op, v: Value) -> Result<V, Diagnostic> {
        match self.vals.get(&v) {
            Some(&x) => Ok(x),
            // Defined before the loop: uniform.
            None => self.g.vals.get(&v).map(|&x| V::S(x)).ok_or_else(|| self.g.err(op, "operand has no value")),
        }
    }

    fn as_f32(&mut self, m: cl::Value) -> cl::Value {
        self.ins().bitcast(types::F32X4, vflags(), m)
    }

    /// `e^x` on four lanes: range reduction to `x = n·ln2 + r`, a degree-6
    /// polynomial for `e^r`, scaling by `2^n` through the exponent bits.
    fn exp(&mut self, x: cl::Value) -> cl::Value {
        let hi = self.f32c(88.722_83);
        let lo = self.f32c(-103.972_08);
        let cx = self.ins().fmin(x, hi);
        let cx = self.ins().fmax(cx, lo);
        let log2e = self.f32c(std::f32::consts::LOG2_E);
        let half = self.f32c(0.5);
        let t = self.ins().fmul(cx, log2e);
        let t = self.ins().fadd(t, half);
        let n = self.ins().floor(t);
        let c1 = self.f32c(0.693_359_4);
        let c2 = self.f32c(-2.121_944_4e-4);
        let a = self.ins().fmul(n, c1);
        let r = self.ins().fsub(cx, a);
        let b = self.ins().fmul(n, c2);
        let r = self.ins().fsub(r, b);
        let coeffs = [1.987_569_1e-4f32, 1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1, 0.5];
        let p = self.horner(&coeffs, r);
        let r2 = self.ins().fmul(r, r);
        let p = self.ins().fmul(p, r2);
        let p = self.ins().fadd(p, r);
        let one = self.f32c(1.0);
        let y = self.ins().fadd(p, one);
        // 2^n in two steps so that n down to -150 still scales (subnormals).
        let ni = self.ins().fcvt_to_sint_sat(types::I32X4, n);
        let h = self.ins().sshr_imm_s(ni, 1);
        let rest = self.ins().isub(ni, h);
        let pow = |s: &mut Self, k: cl::Value| {
            let b127 = s.ins().iconst(types::I32, 127);
            let b = s.ins().splat(types::I32X4, b127);
            let e = s.ins().iadd(k, b);
            let sh = s.ins().ishl_imm_s(e, 23);
            s.ins().bitcast(types::F32X4, vflags(), sh)
        };
        let p1 = pow(self, h);
        let p2 = pow(self, rest);
        let y = self.ins().fmul(y, p1);
        let y = self.ins().fmul(y, p2);
        // Overflow to +inf; NaN stays NaN through the arithmetic above.
        let inf = self.f32c(f32::INFINITY);
        let big = self.ins().fcmp(FloatCC::GreaterThan, x, hi);
        let bigf = self.as_f32(big);
        let y = self.ins().bitselect(bigf, inf, y);
        let zero = self.f32c(0.0);
        let small = self.ins().fcmp(FloatCC::LessThan, x, lo);
        let smallf = self.as_f32(small);
        self.ins().bitselect(smallf, zero, y)
    }

    /// `tanh x`: an odd Taylor polynomial below 0.25, `1 - 2/(e^{2|x|}+1)`
    /// with the sign of x above (saturating to ±1).
    fn tanh(&mut self, x: cl::Value) -> cl::Value {
        let ax = self.ins().fabs(x);
        let x2 = self.ins().fmul(x, x);
        // x - x³/3 + 2x⁵/15 - 17x⁷/315 + 62x⁹/2835
        let cs = [62.0f32 / 2835.0, -17.0 / 315.0, 2.0 / 15.0, -1.0 / 3.0];
        let p = self.horner(&cs, x2);
        let px = self.ins().fmul(p, x2);
        let px = self.ins().fmul(px, x);
        let small_v = self.ins().fadd(px, x);
        // Past 10, 2/(e^{2|x|}+1) is below half an ulp of 1: ±1 exactly,
        // as libm's (a cap of 9 left 0.99999994, whose 1 - t² is not 0).
        let cap = self.f32c(10.0);
        let cx = self.ins().fmin(ax, cap);
        let two = self.f32c(2.0);
        let t = self.ins().fmul(cx, two);
        let e = self.exp(t);
        let one = self.f32c(1.0);
        let d = self.ins().fadd(e, one);
        let q = self.ins().fdiv(two, d);
        let mag = self.ins().fsub(one, q);
        let signbits = {
            let sb = self.ins().iconst(types::I32, 0x8000_0000u32 as i32 as i64);
            let s = self.ins().splat(types::I32X4, sb);
            self.as_f32(s)
        };
        let sign = self.ins().band(x, signbits);
        let big_v = self.ins().bor(mag, sign);
        let quarter = self.f32c(0.25);
        let is_small = self.ins().fcmp(FloatCC::LessThan, ax, quarter);
        let m = self.as_f32(is_small);
        // NaN: both branches are NaN already.
        self.ins().bitselect(m, small_v, big_v)
    }

    /// `erfc |x|` for `|x| ≥ 0.5` (Numerical Recipes' `erfcc`, relative
    /// error below 1.2e-7 everywhere): `t·exp(-x² + P(t))`, `t = 1/(1+x/2)`.
    fn erfc_abs(&mut self, ax: cl::Value) -> cl::Value {
        let one = self.f32c(1.0);
        let half = self.f32c(0.5);
        let d = self.ins().fmul(ax, half);
        let d = self.ins().fadd(d, one);
        let t = self.ins().fdiv(one, d);
        let c = [
            0.170_872_77f32,
            -0.822_152_23,
            1.488_515_9,
            -1.135_204,
            0.278_868_07,
            -0.186_288_06,
            0.096_784_18,
            0.374_091_96,
            1.000_023_7,
            -1.265_512_2,
        ];
        let p = self.horner(&c, t);
        let x2 = self.ins().fmul(ax, ax);
        let e = self.ins().fsub(p, x2);
        let ex = self.exp(e);
        self.ins().fmul(t, ex)
    }

    /// `erf x` near zero: 2/√π · (x - x³/3 + x⁵/10 - x⁷/42 + x⁹/216 - x¹¹/1320 + x¹³/9360).
    fn erf_series(&mut self, x: cl::Value) -> cl::Value {
        let x2 = self.ins().fmul(x, x);
        let cs = [1.0f32 / 9360.0, -1.0 / 1320.0, 1.0 / 216.0, -1.0 / 42.0, 1.0 / 10.0, -1.0 / 3.0, 1.0];
        let p = self.horner(&cs, x2);
        let k = self.f32c(std::f32::consts::FRAC_2_SQRT_PI);
        let px = self.ins().fmul(p, x);
        self.ins().fmul(px, k)
    }

    fn sign_of(&mut self, x: cl::Value) -> cl::Value {
        let sb = self.ins().iconst(types::I32, 0x8000_0000u32 as i32 as i64);
        let s = self.ins().splat(types::I32X4, sb);
        let bits = self.as_f32(s);
        self.ins().band(x, bits)
    }

    /// `erf x`: the series below 0.5, `1 - erfc|x|` with x's sign above.
    fn erf(&mut self, x: cl::Value) -> cl::Value {
        let ax = self.ins().fabs(x);
        let small_v = self.erf_series(x);
        let big = self.f32c(0.5);
        let safe = self.ins().fmax(ax, big);
        let ec = self.erfc_abs(safe);
        let one = self.f32c(1.0);
        let mag = self.ins().fsub(one, ec);
        let sign = self.sign_of(x);
        let big_v = self.ins().bor(mag, sign);
        let is_small = self.ins().fcmp(FloatCC::LessThan, ax, big);
        let m = self.as_f32(is_small);
        self.ins().bitselect(m, small_v, big_v)
    }

    /// `erfc x = 1 - erf x`, without cancellation for large |x|.
    fn erfc(&mut self, x: cl::Value) -> cl::Value {
        let ax = self.ins().fabs(x);
        let half = self.f32c(0.5);
        let safe = self.ins().fmax(ax, half);
        let ec = self.erfc_abs(safe);
        let two = self.f32c(2.0);
        let neg = self.ins().fsub(two, ec);
        let zero = self.f32c(0.0);
        let is_neg = self.ins().fcmp(FloatCC::LessThan, x, zero);
        let nm = self.as_f32(is_neg);
        let big_v = self.ins().bitselect(nm, neg, ec);
        let series = self.erf_series(x);
        let one = self.f32c(1.0);
        let small_v = self.ins().fsub(one, series);
        let is_small = self.ins().fcmp(FloatCC::LessThan, ax, half);
        let m = self.as_f32(is_small);
        self.ins().bitselect(m, small_v, big_v)
    }

    /// A math function `libm` computes, lane by lane.
    fn per_lane(&mut self, sym: &'static str, args: &[cl::Value]) -> Result<cl::Value, String> {
        let mut out = self.f32c(0.0);
        for l in 0..LANES as u8 {
            let xs: Vec<cl::Value> = args.iter().map(|&a| self.g.b.ins().extractlane(a, l)).collect();
            let r = self.g.call1(sym, &xs)?;
            out = self.ins().insertlane(out, r, l);
        }
        Ok(out)
    }

    fn lane_op(&mut self, op: Op) -> Result<cl::Value, Diagnostic> {
        let ctx = self.g.ctx;
        let name = ctx.op_name(op).strip_prefix("loop.").unwrap_or("");
        let masks = matches!(name, "and" | "or" | "xor" | "cast");
        let mut ops = Vec::new();
        for (i, v) in ctx.operands(op).enumerate() {
            let x = self.get(op, v)?;
            let mask = masks || (name == "select" && i == 0);
            ops.push(self.lane(x, mask));
        }
        let err = |g: &Gen<'_, '_>, m: String| g.err(op, m);
        Ok(match name {
            "add" => self.ins().fadd(ops[0], ops[1]),
            "sub" => self.ins().fsub(ops[0], ops[1]),
            "mul" => self.ins().fmul(ops[0], ops[1]),
            "div" => self.ins().fdiv(ops[0], ops[1]),
            "max" | "min" => match constant_operand(ctx, op) {
                // Against a constant (relu, clamp): compare and blend. A NaN
                // lane compares false and keeps itself, as `max` must.
                Some(k) => {
                    let (x, c) = (ops[1 - k], ops[k]);
                    let cc = if name == "max" { FloatCC::LessThan } else { FloatCC::GreaterThan };
                    let m = self.ins().fcmp(cc, x, c);
                    let mf = self.as_f32(m);
                    self.ins().bitselect(mf, c, x)
                }
                None if name == "max" => self.ins().fmax(ops[0], ops[1]),
                None => self.ins().fmin(ops[0], ops[1]),
            },
            "neg" => self.ins().fneg(ops[0]),
            "abs" => self.ins().fabs(ops[0]),
            "sqrt" => self.ins().sqrt(ops[0]),
            "rsqrt" => {
                let s = self.ins().sqrt(ops[0]);
                let one = self.f32c(1.0);
                self.ins().fdiv(one, s)
            }
            "floor" => self.ins().floor(ops[0]),
            "exp" => self.exp(ops[0]),
            "tanh" => self.tanh(ops[0]),
            "erf" => self.erf(ops[0]),
            "erfc" => self.erfc(ops[0]),
            "log" | "log1p" | "sin" | "cos" | "pow" => {
                let sym = libcalls::math_symbol(name, false).ok_or_else(|| err(self.g, "no libcall".into()))?;
                self.per_lane(sym, &ops).map_err(|m| err(self.g, m))?
            }
            "cmp" => {
                let cc = super::kernel::float_cc(ctx.attr_str(op, "predicate").unwrap_or("eq"));
                self.ins().fcmp(cc, ops[0], ops[1])
            }
            "select" => {
                let m = self.as_f32(ops[0]);
                self.ins().bitselect(m, ops[1], ops[2])
            }
            // i1 -> f32: 1.0 where the mask is set, else 0.0.
            "cast" => {
                let one = self.ins().f32const(1.0);
                let ones = self.ins().splat(types::F32X4, one);
                let m = self.as_f32(ops[0]);
                self.ins().band(m, ones)
            }
            "and" => self.ins().band(ops[0], ops[1]),
            "or" => self.ins().bor(ops[0], ops[1]),
            "xor" => self.ins().bxor(ops[0], ops[1]),
            other => return Err(err(self.g, format!("no lane form for 'loop.{other}'"))),
        })
    }
}

/// `exp`, `tanh`, `erf` or `erfc` of one f32 computed as the lanes compute
/// it (on a splat, lane 0 taken), so an element's value never depends on
/// whether the vector loop or the scalar remainder reached it, and scalar
/// loops (philox kernels, reductions across rows) avoid a libm call.
pub(super) fn scalar_poly(g: &mut Gen<'_, '_>, name: &str, x: cl::Value) -> Option<cl::Value> {
    if !matches!(name, "exp" | "tanh" | "erf" | "erfc") {
        return None;
    }
    let mut vs = Vec4 { g, vals: FxHashMap::default() };
    let v = vs.ins().splat(types::F32X4, x);
    let r = match name {
        "exp" => vs.exp(v),
        "tanh" => vs.tanh(v),
        "erf" => vs.erf(v),
        "erfc" => vs.erfc(v),
        _ => return None,
    };
    Some(vs.ins().extractlane(r, 0))
}

/// Emits loop `op` vectorized when it qualifies; `Ok(false)` leaves it to
/// the scalar code.
/// Emits the ops of `block` in lane mode, updating the accumulators of the
/// vectorized loop's reductions; returns the yielded values.
fn emit_ops(
    vs: &mut Vec4<'_, '_, '_>,
    plan: &Plan,
    block: aot_ir::Block,
    accs: &mut [cl::Value],
) -> Result<Vec<V>, Diagnostic> {
    let ctx = vs.g.ctx;
    for o in ctx.block_ops(block) {
        let name = ctx.op_name(o);
        if name == r#loop::YIELD {
            return ctx.operands(o).map(|v| vs.get(o, v)).collect();
        }
        let kind = ctx.results(o).first().map(|r| plan.kinds[r]);
        match (name, kind) {
            (r#loop::FOR, _) => nested_loop(vs, plan, o)?,
            (r#loop::STORE, _) => {
                let v = vs.get(o, ctx.operand(o, 0))?;
                let x = vs.lane(v, false);
                let buf = ctx.operand(o, 1);
                let (base, m) = vs.g.bufs.get(&buf).cloned().ok_or_else(|| vs.g.err(o, "unknown buffer"))?;
                let idx: Vec<cl::Value> = ctx.operands(o).skip(2).map(|v| vs.g.val(o, v)).collect::<Result<_, _>>()?;
                let addr = vs.g.address(base, &m, &idx);
                vs.g.b.ins().store(flags(), x, addr, 0);
            }
            (r#loop::LOAD, Some(Kind::Lane)) => {
                let buf = ctx.operand(o, 0);
                let (base, m) = vs.g.bufs.get(&buf).cloned().ok_or_else(|| vs.g.err(o, "unknown buffer"))?;
                let idx: Vec<cl::Value> = ctx.operands(o).skip(1).map(|v| vs.g.val(o, v)).collect::<Result<_, _>>()?;
                let addr = vs.g.address(base, &m, &idx);
                let v = if is_i1(ctx, ctx.result(o, 0)) {
                    // Four 0/1 bytes become a mask: widen to i32 lanes, negate.
                    let b = &mut vs.g.b;
                    let word = b.ins().load(types::I32, flags(), addr, 0);
                    let v = b.ins().scalar_to_vector(types::I32X4, word);
                    let bytes = b.ins().bitcast(types::I8X16, vflags(), v);
                    let halves = b.ins().uwiden_low(bytes);
                    let words = b.ins().uwiden_low(halves);
                    b.ins().ineg(words)
                } else {
                    vs.g.b.ins().load(types::F32X4, flags(), addr, 0)
                };
                vs.vals.insert(ctx.result(o, 0), V::L(v));
            }
            (_, Some(Kind::Lane)) => {
                let v = vs.lane_op(o)?;
                if let Some(k) = plan.reductions.iter().position(|&(_, u)| u == o) {
                    accs[k] = v;
                }
                vs.vals.insert(ctx.result(o, 0), V::L(v));
            }
            _ => {
                // Uniform and index values: the scalar code at lane 0.
                vs.g.op_scalar(o)?;
                for &r in ctx.results(o) {
                    if let Some(&v) = vs.g.vals.get(&r) {
                        vs.vals.insert(r, V::S(v));
                    }
                }
            }
        }
    }
    Ok(Vec::new())
}

/// A loop nested in the vectorized one: the same iterations for every
/// lane (a scalar counter), carrying one vector per value.
fn nested_loop(vs: &mut Vec4<'_, '_, '_>, plan: &Plan, op: Op) -> Result<(), Diagnostic> {
    let ctx = vs.g.ctx;
    let inner = ctx.single_block(op, 0).ok_or_else(|| vs.g.err(op, "a loop needs a body"))?;
    let args = ctx.block_args(inner).to_vec();
    let (lo, hi) = (ctx.attr_i64(op, "lower").unwrap_or(0), ctx.attr_i64(op, "upper").unwrap_or(0));
    let step = ctx.attr_i64(op, "step").unwrap_or(1);
    let mut inits: Vec<BlockArg> = vec![vs.ins().iconst(types::I64, lo).into()];
    for v in ctx.operands(op) {
        let x = vs.get(op, v)?;
        inits.push(vs.lane(x, false).into());
    }
    let (header, body, exit) = (vs.g.b.create_block(), vs.g.b.create_block(), vs.g.b.create_block());
    vs.g.b.append_block_param(header, types::I64);
    for _ in 1..args.len() {
        vs.g.b.append_block_param(header, types::F32X4);
        vs.g.b.append_block_param(exit, types::F32X4);
    }
    vs.ins().jump(header, &inits);
    vs.g.b.switch_to_block(header);
    let hp = vs.g.b.block_params(header).to_vec();
    let more = vs.ins().icmp_imm_s(IntCC::SignedLessThan, hp[0], hi);
    let carried: Vec<BlockArg> = hp[1..].iter().map(|&v| v.into()).collect();
    vs.ins().brif(more, body, &[], exit, &carried);
    vs.g.b.switch_to_block(body);
    vs.g.vals.insert(args[0], hp[0]);
    for (k, &c) in args[1..].iter().enumerate() {
        vs.vals.insert(c, V::L(hp[1 + k]));
    }
    // A nested loop carries no reduction of the vectorized loop.
    let yielded = emit_ops(vs, plan, inner, &mut [])?;
    let mut back: Vec<BlockArg> = vec![vs.ins().iadd_imm_s(hp[0], step).into()];
    for y in yielded {
        back.push(vs.lane(y, false).into());
    }
    vs.ins().jump(header, &back);
    vs.g.b.switch_to_block(exit);
    let ep = vs.g.b.block_params(exit).to_vec();
    for (k, &r) in ctx.results(op).iter().enumerate() {
        vs.vals.insert(r, V::L(ep[k]));
    }
    Ok(())
}

/// Emits one body copy in lane mode at induction value `iv` (lane 0),
/// with the reductions' accumulators `accs`; returns the new accumulators.
fn emit_body(
    g: &mut Gen<'_, '_>,
    plan: &Plan,
    op: Op,
    iv: cl::Value,
    accs: &[cl::Value],
) -> Result<Vec<cl::Value>, Diagnostic> {
    let ctx = g.ctx;
    let body = ctx.single_block(op, 0).ok_or_else(|| g.err(op, "a loop needs a body"))?;
    let args = ctx.block_args(body).to_vec();
    let mut vs = Vec4 { g, vals: FxHashMap::default() };
    vs.g.vals.insert(args[0], iv);
    for (k, &c) in args[1..].iter().enumerate() {
        vs.vals.insert(c, V::L(accs[k]));
    }
    let mut new_accs: Vec<cl::Value> = accs.to_vec();
    emit_ops(&mut vs, plan, body, &mut new_accs)?;
    Ok(new_accs)
}

fn combine(b: &mut cranelift_frontend::FunctionBuilder<'_>, r: Reduce, x: cl::Value, y: cl::Value) -> cl::Value {
    match r {
        Reduce::Add => b.ins().fadd(x, y),
        Reduce::Max => b.ins().fmax(x, y),
        Reduce::Min => b.ins().fmin(x, y),
    }
}

/// A vector loop running `unroll` body copies per iteration from `lo`
/// while they fit below `hi`, each copy with its own accumulators (so the
/// copies are independent); returns where it stopped and the accumulators
/// of each copy.
fn vector_loop(
    g: &mut Gen<'_, '_>,
    plan: &Plan,
    op: Op,
    lo: cl::Value,
    hi: cl::Value,
    accs: &[Vec<cl::Value>],
) -> Result<(cl::Value, Vec<Vec<cl::Value>>), Diagnostic> {
    let unroll = accs.len();
    let per = plan.reductions.len();
    let header = g.b.create_block();
    let vbody = g.b.create_block();
    let vexit = g.b.create_block();
    for blk in [header, vexit] {
        g.b.append_block_param(blk, types::I64);
        for _ in 0..unroll * per {
            g.b.append_block_param(blk, types::F32X4);
        }
    }
    let mut a: Vec<BlockArg> = vec![lo.into()];
    a.extend(accs.iter().flatten().map(|&v| BlockArg::from(v)));
    g.b.ins().jump(header, &a);
    g.b.switch_to_block(header);
    let hp = g.b.block_params(header).to_vec();
    let next = g.b.ins().iadd_imm_s(hp[0], LANES * unroll as i64);
    let fits = g.b.ins().icmp(IntCC::SignedLessThanOrEqual, next, hi);
    let out: Vec<BlockArg> = hp.iter().map(|&v| v.into()).collect();
    g.b.ins().brif(fits, vbody, &[], vexit, &out);
    g.b.switch_to_block(vbody);
    let mut back: Vec<BlockArg> = vec![next.into()];
    for u in 0..unroll {
        let iv = if u == 0 { hp[0] } else { g.b.ins().iadd_imm_s(hp[0], LANES * u as i64) };
        let mine = &hp[1 + u * per..1 + (u + 1) * per];
        let new = emit_body(g, plan, op, iv, mine)?;
        back.extend(new.into_iter().map(BlockArg::from));
    }
    g.b.ins().jump(header, &back);
    g.b.switch_to_block(vexit);
    let ep = g.b.block_params(vexit).to_vec();
    let accs_out = (0..unroll).map(|u| ep[1 + u * per..1 + (u + 1) * per].to_vec()).collect();
    Ok((ep[0], accs_out))
}

/// Emits loop `op` vectorized when it qualifies; `Ok(false)` leaves it to
/// the scalar code. Two body copies per iteration while eight iterations
/// remain, one while four do, then the scalar loop.
pub(super) fn try_vectorize(g: &mut Gen<'_, '_>, op: Op) -> Result<bool, Diagnostic> {
    let ctx = g.ctx;
    // A loop of fewer iterations than lanes never enters the vector body:
    // emitting it would only cost compile time (programs of thousands of
    // tiny kernels, such as long chains of small scatters, spent most of
    // their compile time in vector code that never ran).
    if let (Some(lo), Some(hi)) = (ctx.attr_i64(op, "lower"), ctx.attr_i64(op, "upper")) {
        if hi.saturating_sub(lo) < LANES {
            return Ok(false);
        }
    }
    let Some(plan) = analyze(ctx, op) else { return Ok(false) };
    let (lo, hi) = g.bounds(op);
    let inits: Vec<cl::Value> = ctx.operands(op).map(|v| g.val(op, v)).collect::<Result<_, _>>()?;
    // Accumulators: sums start from (init, 0, 0, 0) (the second copy's from
    // zeros), extrema from init.
    let mut accs2: Vec<Vec<cl::Value>> = vec![Vec::new(), Vec::new()];
    for (k, &(r, _)) in plan.reductions.iter().enumerate() {
        let b = &mut g.b;
        let (first, second) = match r {
            Reduce::Add => {
                let z = b.ins().f32const(0.0);
                let s = b.ins().splat(types::F32X4, z);
                (b.ins().insertlane(s, inits[k], 0), s)
            }
            _ => {
                let s = b.ins().splat(types::F32X4, inits[k]);
                (s, s)
            }
        };
        accs2[0].push(first);
        accs2[1].push(second);
    }
    let (mid, accs) = vector_loop(g, &plan, op, lo, hi, &accs2)?;
    let merged: Vec<cl::Value> =
        plan.reductions.iter().enumerate().map(|(k, &(r, _))| combine(&mut g.b, r, accs[0][k], accs[1][k])).collect();
    let (end, accs) = vector_loop(g, &plan, op, mid, hi, &[merged])?;
    // Fold the accumulators, then finish the remaining iterations.
    let mut folded = Vec::new();
    for (k, &(r, _)) in plan.reductions.iter().enumerate() {
        let acc = accs[0][k];
        let l: Vec<cl::Value> = (0..LANES as u8).map(|i| g.b.ins().extractlane(acc, i)).collect();
        let p = combine(&mut g.b, r, l[0], l[1]);
        let q = combine(&mut g.b, r, l[2], l[3]);
        folded.push(combine(&mut g.b, r, p, q));
    }
    let results = g.scalar_for(op, end, hi, &folded)?;
    for (i, &r) in ctx.results(op).iter().enumerate() {
        g.vals.insert(r, results[i]);
    }
    Ok(true)
}
