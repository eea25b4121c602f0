//! Vectorization of innermost loops: four f32 lanes per iteration.
//!
//! A loop qualifies when it has no inner loop, steps by 1, and every value
//! its body computes is either *uniform* (the same in every iteration: a
//! constant, a load whose address does not move) or a *lane* value of f32
//! (or a comparison mask of them, stored as 0/1 bytes) computed from f32
//! loads, or from bf16 loads through a cast (and cast back before a bf16
//! store); index values may depend on the induction variable only affinely
//! and only as addresses, but for a comparison of the induction variable
//! itself with a uniform index (a causal mask's column against its row),
//! a mask whose lane `k` compares iteration `iv + k`. Unit-stride loads
//! and stores move whole vectors; others (a slice with a step, a pooling
//! window, a transposed operand) gather and scatter their four elements
//! one by one, the arithmetic still in lanes, and only in a loop without
//! nested loops or reductions (those keep their order). Loop-carried values must be f32 sums, maxima or
//! minima (the reductions). Anything else keeps the scalar loop. That
//! decision is [`analysis`]'s; this module emits the code.
//!
//! Code: a vector loop while four iterations remain (lane values in F32X4,
//! masks in I32X4, bf16 bits zero-extended in I32X4 (rounded from f32 by
//! the scalar code's own expansion), uniform values splatted at their
//! use, reductions in a
//! vector accumulator folded horizontally at the end), then the scalar loop
//! for the remainder, continuing from the folded values. Math functions
//! compute as their row of the math table says: a polynomial through the
//! [`Lanes`] primitives implemented here, or `libm` per lane.

use super::kernel::{flags, Gen};
use aot_dialects::r#loop::expand::{self, IntCmp, IntOp};
use aot_dialects::r#loop::math::{LaneImpl, Lanes, Poly};
use aot_dialects::r#loop::{Binary, LoopOp, Predicate, ScalarOp, Unary};
use aot_ir::{Diagnostic, Op, Value};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self as cl, types, BlockArg, Endianness, InstBuilder, MemFlagsData};
use rustc_hash::{FxHashMap, FxHashSet};

mod analysis;
mod strip;

use analysis::{analyze, constant_operand, is_bf16, is_f32, is_i1, Kind, Plan, Reduce};

pub(super) const LANES: i64 = 4;

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

    /// A math function `libm` computes, lane by lane.
    fn per_lane(&mut self, f: aot_dialects::r#loop::MathFn, args: &[cl::Value]) -> Result<cl::Value, String> {
        let mut out = self.f32c(0.0);
        for l in 0..LANES as u8 {
            let xs: Vec<cl::Value> = args.iter().map(|&a| self.g.b.ins().extractlane(a, l)).collect();
            let r = self.g.call_math(f, false, &xs)?;
            out = self.ins().insertlane(out, r, l);
        }
        Ok(out)
    }

    fn lane_op(&mut self, op: Op) -> Result<cl::Value, Diagnostic> {
        let ctx = self.g.ctx;
        let Some(LoopOp::Scalar(kind)) = LoopOp::of(ctx, op) else {
            return Err(self.g.err(op, format!("no lane form for '{}'", ctx.op_name(op))));
        };
        if kind == ScalarOp::Cast && (is_bf16(ctx, ctx.operand(op, 0)) || is_bf16(ctx, ctx.result(op, 0))) {
            return self.bf16_cast(op);
        }
        let masks = matches!(kind, ScalarOp::Binary(Binary::And | Binary::Or | Binary::Xor) | ScalarOp::Cast);
        let mut ops = Vec::new();
        for (i, v) in ctx.operands(op).enumerate() {
            let x = self.get(op, v)?;
            // A select of masks blends masks (its operands are all i1).
            let mask = masks || (kind == ScalarOp::Select && (i == 0 || is_i1(ctx, ctx.result(op, 0))));
            ops.push(self.lane(x, mask));
        }
        let none = |g: &Gen<'_, '_>| g.err(op, format!("no lane form for '{}'", ctx.op_name(op)));
        Ok(match kind {
            ScalarOp::Binary(b) => match b {
                Binary::Add => self.ins().fadd(ops[0], ops[1]),
                Binary::Sub => self.ins().fsub(ops[0], ops[1]),
                Binary::Mul => self.ins().fmul(ops[0], ops[1]),
                Binary::Div => self.ins().fdiv(ops[0], ops[1]),
                Binary::Max | Binary::Min => match constant_operand(ctx, op) {
                    // Against a constant (relu, clamp): compare and blend. A
                    // NaN lane compares false and keeps itself, as `max` must.
                    Some(k) => {
                        let (x, c) = (ops[1 - k], ops[k]);
                        let cc = if b == Binary::Max { FloatCC::LessThan } else { FloatCC::GreaterThan };
                        let m = self.ins().fcmp(cc, x, c);
                        let mf = self.as_f32(m);
                        self.ins().bitselect(mf, c, x)
                    }
                    None if b == Binary::Max => self.ins().fmax(ops[0], ops[1]),
                    None => self.ins().fmin(ops[0], ops[1]),
                },
                Binary::And => self.ins().band(ops[0], ops[1]),
                Binary::Or => self.ins().bor(ops[0], ops[1]),
                Binary::Xor => self.ins().bxor(ops[0], ops[1]),
                Binary::Rem | Binary::Shr => return Err(none(self.g)),
            },
            ScalarOp::Unary(u) => match u {
                Unary::Neg => self.ins().fneg(ops[0]),
                Unary::Abs => self.ins().fabs(ops[0]),
                Unary::Sqrt => self.ins().sqrt(ops[0]),
                Unary::Rsqrt => {
                    let s = self.ins().sqrt(ops[0]);
                    let one = self.f32c(1.0);
                    self.ins().fdiv(one, s)
                }
                Unary::Floor => self.ins().floor(ops[0]),
                Unary::Ceil => self.ins().ceil(ops[0]),
                Unary::Trunc => self.ins().trunc(ops[0]),
                Unary::Round => self.ins().nearest(ops[0]),
            },
            ScalarOp::Math(f) => match f.fact().lanes {
                LaneImpl::Poly(p) => p.emit(self, ops[0]),
                LaneImpl::PerLane => self.per_lane(f, &ops).map_err(|m| self.g.err(op, m))?,
            },
            ScalarOp::Fma => self.ins().fma(ops[0], ops[1], ops[2]),
            ScalarOp::Cmp => {
                let p = Predicate::of(ctx, op).ok_or_else(|| self.g.err(op, "cmp without a valid predicate"))?;
                let cc = super::kernel::float_cc(p);
                self.ins().fcmp(cc, ops[0], ops[1])
            }
            ScalarOp::Select if is_i1(ctx, ctx.result(op, 0)) => self.ins().bitselect(ops[0], ops[1], ops[2]),
            ScalarOp::Select => {
                let m = self.as_f32(ops[0]);
                self.ins().bitselect(m, ops[1], ops[2])
            }
            // i1 -> f32: 1.0 where the mask is set, else 0.0.
            ScalarOp::Cast => {
                let one = self.ins().f32const(1.0);
                let ones = self.ins().splat(types::F32X4, one);
                let m = self.as_f32(ops[0]);
                self.ins().band(m, ones)
            }
        })
    }
}

impl Vec4<'_, '_, '_> {
    /// A comparison of the induction variable with a uniform index (the
    /// analysis's `index_cmp`): lane `k` compares iteration `iv + k`, the
    /// scalar `iv` being the first lane's; a mask of all-ones lanes.
    fn index_cmp(&mut self, op: Op, moving_a: bool) -> Result<cl::Value, Diagnostic> {
        let ctx = self.g.ctx;
        let p = Predicate::of(ctx, op).ok_or_else(|| self.g.err(op, "cmp without a valid predicate"))?;
        let cc = super::kernel::int_cc(p);
        let (a, b) = (ctx.operand(op, 0), ctx.operand(op, 1));
        let (xa, xb) = (self.g.val(op, a)?, self.g.val(op, b)?);
        let mut out = self.ins().iconst(types::I32, 0);
        out = self.ins().splat(types::I32X4, out);
        for k in 0..LANES {
            let (l, r) = if moving_a { (self.ins().iadd_imm_s(xa, k), xb) } else { (xa, self.ins().iadd_imm_s(xb, k)) };
            let c = self.ins().icmp(cc, l, r);
            let w = self.ins().uextend(types::I32, c);
            let m = self.ins().ineg(w);
            out = self.ins().insertlane(out, m, k as u8);
        }
        Ok(out)
    }

    /// `v` as bf16 lanes: its bits zero-extended in I32X4 (a uniform bf16
    /// scalar, an I16, splatted).
    fn bf16_lane(&mut self, v: V) -> cl::Value {
        match v {
            V::L(x) => x,
            V::S(x) => {
                let w = self.ins().uextend(types::I32, x);
                self.ins().splat(types::I32X4, w)
            }
        }
    }

    /// A cast between f32 and bf16 lanes: widening is exact (the bits
    /// shifted into the high half); narrowing rounds as the scalar code
    /// does ([`expand::f32_to_bf16`] on lanes).
    fn bf16_cast(&mut self, op: Op) -> Result<cl::Value, Diagnostic> {
        let ctx = self.g.ctx;
        let x = self.get(op, ctx.operand(op, 0))?;
        if is_bf16(ctx, ctx.operand(op, 0)) {
            let bits = self.bf16_lane(x);
            let high = self.ins().ishl_imm_u(bits, 16);
            return Ok(self.as_f32(high));
        }
        let x = self.lane(x, false);
        expand::f32_to_bf16(&mut LanePrimitives(self), x).map_err(|m| self.g.err(op, m))
    }
}

/// The integer primitives of [`expand`] on I32X4 lanes (conditions are
/// all-ones masks), for the expansions that lanes run: bf16 rounding.
struct LanePrimitives<'v, 'g, 'a, 'f>(&'v mut Vec4<'g, 'a, 'f>);

impl expand::Primitives for LanePrimitives<'_, '_, '_, '_> {
    type Value = cl::Value;
    type Error = String;

    fn int(&mut self, _like: cl::Value, k: i64) -> Result<cl::Value, String> {
        let k = i32::try_from(k).map_err(|_| format!("lane constant {k} is not an i32"))?;
        let s = self.0.ins().iconst(types::I32, k as i64);
        Ok(self.0.ins().splat(types::I32X4, s))
    }

    fn binary(&mut self, op: IntOp, a: cl::Value, b: cl::Value) -> Result<cl::Value, String> {
        let i = self.0.ins();
        Ok(match op {
            IntOp::Add => i.iadd(a, b),
            IntOp::Sub => i.isub(a, b),
            IntOp::And => i.band(a, b),
            IntOp::Or => i.bor(a, b),
            IntOp::Xor => i.bxor(a, b),
            IntOp::SDiv | IntOp::SRem | IntOp::ShrU => return Err(format!("no lane form for {op:?}")),
        })
    }

    fn binary_imm(&mut self, op: IntOp, a: cl::Value, k: i64) -> Result<cl::Value, String> {
        if op == IntOp::ShrU {
            return Ok(self.0.ins().ushr_imm_u(a, k));
        }
        let b = self.int(a, k)?;
        self.binary(op, a, b)
    }

    fn cmp(&mut self, p: IntCmp, _a: cl::Value, _b: cl::Value) -> Result<cl::Value, String> {
        Err(format!("no lane form for {p:?}"))
    }

    fn cond(&mut self, op: IntOp, a: cl::Value, b: cl::Value) -> Result<cl::Value, String> {
        self.binary(op, a, b)
    }

    fn select(&mut self, c: cl::Value, a: cl::Value, b: cl::Value) -> Result<cl::Value, String> {
        Ok(self.0.ins().bitselect(c, a, b))
    }

    fn zext_cond(&mut self, _c: cl::Value, _like: cl::Value) -> Result<cl::Value, String> {
        Err("no lane form for a condition as a number".into())
    }

    fn f32_bits(&mut self, x: cl::Value) -> Result<cl::Value, String> {
        Ok(self.0.ins().bitcast(types::I32X4, vflags(), x))
    }

    fn is_nan(&mut self, x: cl::Value) -> Result<cl::Value, String> {
        Ok(self.0.ins().fcmp(FloatCC::Unordered, x, x))
    }

    /// bf16 lanes keep their bits zero-extended in I32X4: the rounded
    /// value is below 2¹⁶ already.
    fn low_i16(&mut self, v: cl::Value) -> Result<cl::Value, String> {
        Ok(v)
    }
}

/// The math table's lane primitives on F32X4 (masks in I32X4).
impl Lanes for Vec4<'_, '_, '_> {
    type F = cl::Value;
    type M = cl::Value;
    fn splat(&mut self, c: f32) -> cl::Value {
        self.f32c(c)
    }
    fn add(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        self.ins().fadd(a, b)
    }
    fn sub(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        self.ins().fsub(a, b)
    }
    fn mul(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        self.ins().fmul(a, b)
    }
    // One `vfmadd` with the ISA's FMA flag (cranelift_native sets it where
    // the CPU has it); without it Cranelift calls `fmaf` per lane: the same
    // bits, slowly.
    fn mul_add(&mut self, a: cl::Value, b: cl::Value, c: cl::Value) -> cl::Value {
        self.ins().fma(a, b, c)
    }
    fn div(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        self.ins().fdiv(a, b)
    }
    // One `minps`/`maxps` each (Cranelift's x64 lowering matches this
    // select of a compare): `b < a ? b : a` and `a < b ? b : a` pass a NaN
    // `a` on, which is all the polynomials need (`b` is a bound), where
    // `fmin`/`fmax` (NaN from either side, -0 below +0) take eight
    // instructions on x86.
    fn min(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        let m = self.ins().fcmp(FloatCC::LessThan, b, a);
        let mf = self.as_f32(m);
        self.ins().bitselect(mf, b, a)
    }
    fn max(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        let m = self.ins().fcmp(FloatCC::LessThan, a, b);
        let mf = self.as_f32(m);
        self.ins().bitselect(mf, b, a)
    }
    fn floor(&mut self, a: cl::Value) -> cl::Value {
        self.ins().floor(a)
    }
    fn abs(&mut self, a: cl::Value) -> cl::Value {
        self.ins().fabs(a)
    }
    fn lt(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        self.ins().fcmp(FloatCC::LessThan, a, b)
    }
    fn gt(&mut self, a: cl::Value, b: cl::Value) -> cl::Value {
        self.ins().fcmp(FloatCC::GreaterThan, a, b)
    }
    fn select(&mut self, m: cl::Value, a: cl::Value, b: cl::Value) -> cl::Value {
        let mf = self.as_f32(m);
        self.ins().bitselect(mf, a, b)
    }
    fn with_sign_of(&mut self, mag: cl::Value, x: cl::Value) -> cl::Value {
        let sb = self.ins().iconst(types::I32, 0x8000_0000u32 as i32 as i64);
        let s = self.ins().splat(types::I32X4, sb);
        let bits = self.as_f32(s);
        let sign = self.ins().band(x, bits);
        self.ins().bor(mag, sign)
    }
    fn exp2i(&mut self, n: cl::Value) -> cl::Value {
        // n + 127 + 1.5·2^23 holds n + 127 (1..=254) in its low mantissa
        // bits, and 1.5·2^23's low 9 bits are zero: shifted left by 23 they
        // are 2^n's exponent field. (Three instructions where a saturating
        // conversion takes eleven on x86.)
        let magic = self.f32c(127.0 + 12_582_912.0);
        let biased = self.ins().fadd(n, magic);
        let bits = self.ins().bitcast(types::I32X4, vflags(), biased);
        let sh = self.ins().ishl_imm_s(bits, 23);
        self.ins().bitcast(types::F32X4, vflags(), sh)
    }
}

/// A polynomial of the math table on one f32, computed as the lanes
/// compute it (on a splat, lane 0 taken), so an element's value never
/// depends on whether the vector loop or the scalar remainder reached it,
/// and scalar loops (philox kernels, reductions across rows) avoid a libm
/// call.
pub(super) fn scalar_poly(g: &mut Gen<'_, '_>, p: Poly, x: cl::Value) -> cl::Value {
    let mut vs = Vec4 { g, vals: FxHashMap::default() };
    let v = vs.ins().splat(types::F32X4, x);
    let r = p.emit(&mut vs, v);
    vs.ins().extractlane(r, 0)
}

/// The lanes of a load whose element offset moves by `k` per iteration,
/// one element at a time: f32 lanes, or an i1 mask (0/1 bytes widened to
/// all-ones or all-zeros i32 lanes, as the unit-stride mask load gives).
fn gather(vs: &mut Vec4<'_, '_, '_>, addr: cl::Value, k: i64, mask: bool, fl: MemFlagsData) -> cl::Value {
    if k == 2 && !mask {
        // Every other f32 (a stride-2 slice: pooling windows, strided
        // convolutions): two vector loads, elements 0..3 and 3..6 (exactly
        // the span the four lanes cover, so nothing past the last one is
        // read), and one shuffle taking lanes 0, 2 of the first and 1, 3 of
        // the second (one `shufps`) instead of four loads and three inserts.
        let lo = vs.ins().load(types::F32X4, fl, addr, 0);
        let hi = vs.ins().load(types::F32X4, fl, addr, 12);
        let (lo, hi) = (vs.ins().bitcast(types::I8X16, vflags(), lo), vs.ins().bitcast(types::I8X16, vflags(), hi));
        let lanes: [u8; 4] = [0, 2, 5, 7];
        let bytes: Vec<u8> = lanes.iter().flat_map(|&l| (0..4).map(move |b| l * 4 + b)).collect();
        let imm = vs.g.b.func.dfg.immediates.push(bytes.into());
        let v = vs.ins().shuffle(lo, hi, imm);
        return vs.ins().bitcast(types::F32X4, vflags(), v);
    }
    let (ty, vty, size) = if mask { (types::I8, types::I32X4, 1) } else { (types::F32, types::F32X4, 4) };
    let mut v = None;
    for j in 0..LANES {
        let a = vs.ins().iadd_imm_s(addr, j.saturating_mul(k).saturating_mul(size));
        let mut e = vs.ins().load(ty, fl, a, 0);
        if mask {
            let w = vs.ins().uextend(types::I32, e);
            e = vs.ins().ineg(w);
        }
        v = Some(match v {
            None => vs.ins().scalar_to_vector(vty, e),
            Some(acc) => vs.ins().insertlane(acc, e, j as u8),
        });
    }
    v.expect("four lanes")
}

/// Emits the ops of `block` in lane mode (only those in `keep`, when
/// given: a stage of a strip, [`strip`]), updating the accumulators of the
/// vectorized loop's reductions; returns the yielded values (none for a
/// stage).
fn emit_ops(
    vs: &mut Vec4<'_, '_, '_>,
    plan: &Plan,
    block: aot_ir::Block,
    accs: &mut [cl::Value],
    keep: Option<&FxHashSet<Op>>,
) -> Result<Vec<V>, Diagnostic> {
    let ctx = vs.g.ctx;
    for o in ctx.block_ops(block) {
        let op_kind = LoopOp::of(ctx, o);
        if op_kind == Some(LoopOp::Yield) {
            if keep.is_some() {
                return Ok(Vec::new());
            }
            return ctx.operands(o).map(|v| vs.get(o, v)).collect();
        }
        if keep.is_some_and(|k| !k.contains(&o)) {
            continue;
        }
        let kind = ctx.results(o).first().map(|r| plan.kinds[r]);
        match (op_kind, kind) {
            (Some(LoopOp::For), _) => nested_loop(vs, plan, o)?,
            (Some(LoopOp::Store), _) => {
                let mask = is_i1(ctx, ctx.operand(o, 0));
                let v = vs.get(o, ctx.operand(o, 0))?;
                if is_bf16(ctx, ctx.operand(o, 0)) {
                    // Four lanes of bf16 bits narrow to four halves, one
                    // 64-bit store (unit stride: the analysis's rule).
                    let x = vs.bf16_lane(v);
                    let buf = ctx.operand(o, 1);
                    let (base, m) = vs.g.bufs.get(&buf).cloned().ok_or_else(|| vs.g.err(o, "unknown buffer"))?;
                    let idx: Vec<cl::Value> =
                        ctx.operands(o).skip(2).map(|v| vs.g.val(o, v)).collect::<Result<_, _>>()?;
                    let addr = vs.g.address(base, &m, &idx);
                    let halves = vs.ins().unarrow(x, x);
                    let words = vs.ins().bitcast(types::I64X2, vflags(), halves);
                    let word = vs.ins().extractlane(words, 0);
                    vs.ins().store(flags(), word, addr, 0);
                    continue;
                }
                let x = vs.lane(v, mask);
                let buf = ctx.operand(o, 1);
                let (base, m) = vs.g.bufs.get(&buf).cloned().ok_or_else(|| vs.g.err(o, "unknown buffer"))?;
                let idx: Vec<cl::Value> = ctx.operands(o).skip(2).map(|v| vs.g.val(o, v)).collect::<Result<_, _>>()?;
                let addr = vs.g.address(base, &m, &idx);
                // A mask is stored as 0/1 bytes: all-ones lanes negate to 1.
                let x = if mask { vs.ins().ineg(x) } else { x };
                let size = if mask { 1 } else { 4 };
                match plan.strides.get(&o) {
                    Some(&k) => {
                        for j in 0..LANES {
                            let mut e = vs.ins().extractlane(x, j as u8);
                            if mask {
                                e = vs.ins().ireduce(types::I8, e);
                            }
                            let a = vs.ins().iadd_imm_s(addr, j.saturating_mul(k).saturating_mul(size));
                            vs.ins().store(flags(), e, a, 0);
                        }
                    }
                    None if mask => {
                        // Four lanes of 0/1 narrow to four bytes, one i32 store.
                        let halves = vs.ins().snarrow(x, x);
                        let bytes = vs.ins().snarrow(halves, halves);
                        let words = vs.ins().bitcast(types::I32X4, vflags(), bytes);
                        let word = vs.ins().extractlane(words, 0);
                        vs.ins().store(flags(), word, addr, 0);
                    }
                    None => {
                        vs.ins().store(flags(), x, addr, 0);
                    }
                }
            }
            (Some(LoopOp::Load), Some(Kind::Lane)) => {
                let buf = ctx.operand(o, 0);
                let (base, m) = vs.g.bufs.get(&buf).cloned().ok_or_else(|| vs.g.err(o, "unknown buffer"))?;
                let idx: Vec<cl::Value> = ctx.operands(o).skip(1).map(|v| vs.g.val(o, v)).collect::<Result<_, _>>()?;
                let addr = vs.g.address(base, &m, &idx);
                let fl = vs.g.load_flags(ctx.operand(o, 0));
                let v = if is_bf16(ctx, ctx.result(o, 0)) {
                    // Four halves zero-extended to I32X4 (unit stride).
                    vs.g.b.ins().uload16x4(fl, addr, 0)
                } else if let Some(&k) = plan.strides.get(&o) {
                    gather(vs, addr, k, is_i1(ctx, ctx.result(o, 0)), fl)
                } else if is_i1(ctx, ctx.result(o, 0)) {
                    // Four 0/1 bytes become a mask: widen to i32 lanes, negate.
                    let b = &mut vs.g.b;
                    let word = b.ins().load(types::I32, fl, addr, 0);
                    let v = b.ins().scalar_to_vector(types::I32X4, word);
                    let bytes = b.ins().bitcast(types::I8X16, vflags(), v);
                    let halves = b.ins().uwiden_low(bytes);
                    let words = b.ins().uwiden_low(halves);
                    b.ins().ineg(words)
                } else {
                    vs.g.b.ins().load(types::F32X4, fl, addr, 0)
                };
                vs.vals.insert(ctx.result(o, 0), V::L(v));
            }
            (Some(LoopOp::Scalar(ScalarOp::Cmp)), Some(Kind::Lane)) if !is_f32(ctx, ctx.operand(o, 0)) => {
                // (`analysis::index_cmp`: the induction variable on one side.)
                let moving_a = plan.kinds.get(&ctx.operand(o, 0)) == Some(&Kind::Index);
                let v = vs.index_cmp(o, moving_a)?;
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
    let done = if aot_ir::sym::is_symbolic(hi) {
        let hi = vs.g.size(hi);
        vs.ins().icmp(IntCC::SignedGreaterThanOrEqual, hp[0], hi)
    } else {
        vs.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, hp[0], hi)
    };
    let carried: Vec<BlockArg> = hp[1..].iter().map(|&v| v.into()).collect();
    // (The body is the else-target, for Cranelift's hoisting: see
    // `kernel::Gen::scalar_for`.)
    vs.ins().brif(done, exit, &carried, body, &[]);
    vs.g.b.switch_to_block(body);
    vs.g.vals.insert(args[0], hp[0]);
    for (k, &c) in args[1..].iter().enumerate() {
        vs.vals.insert(c, V::L(hp[1 + k]));
    }
    // A nested loop carries no reduction of the vectorized loop.
    let yielded = emit_ops(vs, plan, inner, &mut [], None)?;
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
    emit_ops(&mut vs, plan, body, &mut new_accs, None)?;
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
    let over = g.b.ins().icmp(IntCC::SignedGreaterThan, next, hi);
    let out: Vec<BlockArg> = hp.iter().map(|&v| v.into()).collect();
    // (The body is the else-target, for Cranelift's hoisting.)
    g.b.ins().brif(over, vexit, &out, vbody, &[]);
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

/// The lane plan of loop `op`, when it qualifies.
fn plan_for(ctx: &aot_ir::Context, op: Op) -> Option<Plan> {
    // A loop of fewer iterations than lanes never enters the vector body:
    // emitting it would only cost compile time (programs of thousands of
    // tiny kernels, such as long chains of small scatters, spent most of
    // their compile time in vector code that never ran).
    // (A symbolic trip count is known only at run time: the vector loop
    // then runs as many times as it fits.)
    if let (Some(lo), Some(hi)) = (ctx.attr_i64(op, "lower"), ctx.attr_i64(op, "upper")) {
        if !aot_ir::sym::is_symbolic(hi) && hi.saturating_sub(lo) < LANES {
            return None;
        }
    }
    analyze(ctx, op)
}

/// Whether loop `op` runs in lanes.
pub(super) fn vectorizes(ctx: &aot_ir::Context, op: Op) -> bool {
    plan_for(ctx, op).is_some()
}

/// Emits loop `op` vectorized when it qualifies; `Ok(false)` leaves it to
/// the scalar code. Strips of 64 iterations where the body computes
/// polynomials and the eight-lane helpers run ([`strip`]), then two body
/// copies per iteration while eight iterations remain, one while four do,
/// then the scalar loop.
pub(super) fn try_vectorize(g: &mut Gen<'_, '_>, op: Op) -> Result<bool, Diagnostic> {
    let ctx = g.ctx;
    let Some(plan) = plan_for(ctx, op) else { return Ok(false) };
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
    // Strips first where the body computes polynomials: they cover the
    // same iterations the unrolled loop would, with its accumulators.
    let mut start = lo;
    if g.opts.lanes8 {
        if let Some(strips) = strip::plan(ctx, op, &plan) {
            (start, accs2) = strip::strip_loop(g, &plan, &strips, op, lo, hi, &accs2)?;
        }
    }
    let (mid, accs) = vector_loop(g, &plan, op, start, hi, &accs2)?;
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
