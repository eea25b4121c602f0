//! Lowering of the functional `rng` ops to loops. Every element is computed
//! from the same Philox words with the same formulas as the interpreter
//! (`kernels.rs`), in the same precision, with `exact` math, so compiled
//! and eager samples are bit-identical. A kernel walks the elements block
//! by block: one Philox block serves four uniform draws or two normal ones.

use super::kernels::dropout_draws;
use crate::lowering::*;
use crate::r#loop::{Binary, MathFn, Predicate, Unary};
use aot_ir::*;

type R = Result<Value, String>;

/// One result element of a functional Philox op from its element's Philox
/// words (one `i64`-extended 32-bit word per element, or two), the input
/// element it reads (if any) and the result's element type.
pub type ElementFn = fn(&mut Scalars<'_, '_>, Op, &[Value], Option<Value>, ElemType) -> R;

/// How a functional Philox op draws, element by element: the op fact that
/// the loop lowering here and every exporter read, so that a seed and
/// offset give the same bits everywhere. Element `i` (row-major) takes
/// block `offset / 4 + i / per_block` of Philox4x32-10 keyed by the seed,
/// and its word `i % per_block` (or words `2·(i % 2)`, `2·(i % 2) + 1` when
/// `per_block` is 2).
pub struct PhiloxDraws {
    pub per_block: i64,
    /// The operand read elementwise (same shape as the results).
    pub input: Option<usize>,
    /// One formula per result.
    pub results: &'static [ElementFn],
    /// Whether the op draws at all (dropout in evaluation mode, or with
    /// `p >= 1`, does not).
    pub draws: fn(&Context, Op) -> bool,
}

fn always(_: &Context, _: Op) -> bool {
    true
}

fn dropout_draws_at(ctx: &Context, op: Op) -> bool {
    let train = ctx.get_attr(op, "train").and_then(|t| ctx.attr_as_flag(t)).unwrap_or(true);
    train && ctx.attr_f64(op, "p").unwrap_or(0.5) < 1.0
}

pub const UNIFORM_DRAWS: PhiloxDraws =
    PhiloxDraws { per_block: 4, input: None, results: &[uniform_value], draws: always };
pub const NORMAL_DRAWS: PhiloxDraws =
    PhiloxDraws { per_block: 2, input: None, results: &[normal_value], draws: always };
pub const BERNOULLI_DRAWS: PhiloxDraws =
    PhiloxDraws { per_block: 4, input: Some(2), results: &[bernoulli_value], draws: always };
pub const DROPOUT_DRAWS: PhiloxDraws =
    PhiloxDraws { per_block: 4, input: Some(2), results: &[dropout_value, dropout_keep], draws: dropout_draws_at };

fn uniform_value(s: &mut Scalars<'_, '_>, op: Op, w: &[Value], _: Option<Value>, e: ElemType) -> R {
    let low = s.ctx().attr_f64(op, "low").unwrap_or(0.0);
    let high = s.ctx().attr_f64(op, "high").unwrap_or(1.0);
    let d = draw_elem(e);
    let u = unit(s, w[0], d)?;
    let (l, h) = if d == ElemType::F64 { (low, high) } else { (low as f32 as f64, high as f32 as f64) };
    let lv = s.const_f(l, d);
    let hv = s.const_f(h, d);
    let span = s.sub(hv, lv)?;
    let su = s.mul(span, u)?;
    s.add(lv, su)
}

fn normal_value(s: &mut Scalars<'_, '_>, op: Op, w: &[Value], _: Option<Value>, e: ElemType) -> R {
    let mean = s.ctx().attr_f64(op, "mean").unwrap_or(0.0);
    let std = s.ctx().attr_f64(op, "std").unwrap_or(1.0);
    let d = draw_elem(e);
    let eight = s.const_i(8, ElemType::I64);
    let h0 = s.bin(Binary::Shr, w[0], eight)?;
    let one_i = s.const_i(1, ElemType::I64);
    let h0 = s.add(h0, one_i)?;
    let f0 = s.cast_e(h0, d);
    let k = s.const_f(1.0 / 16_777_216.0, d);
    let u1 = s.mul(f0, k)?;
    let u2 = unit(s, w[1], d)?;
    let lg = s.exact(MathFn::Log, u1)?;
    let m2 = s.const_f(-2.0, d);
    let a = s.mul(m2, lg)?;
    let r = s.un(Unary::Sqrt, a)?;
    let two_pi = if d == ElemType::F64 { 2.0 * std::f64::consts::PI } else { (2.0 * std::f32::consts::PI) as f64 };
    let tp = s.const_f(two_pi, d);
    let ang = s.mul(tp, u2)?;
    let c = s.exact(MathFn::Cos, ang)?;
    let z = s.mul(r, c)?;
    let (mv, sv) = if d == ElemType::F64 { (mean, std) } else { (mean as f32 as f64, std as f32 as f64) };
    let mv = s.const_f(mv, d);
    let sv = s.const_f(sv, d);
    let sz = s.mul(sv, z)?;
    s.add(mv, sz)
}

fn bernoulli_value(s: &mut Scalars<'_, '_>, _: Op, w: &[Value], p: Option<Value>, e: ElemType) -> R {
    let d = draw_elem(e);
    let u = unit(s, w[0], d)?;
    let p = p.ok_or("no probability")?;
    let pw = s.widen(p)?;
    let pd = s.cast_e(pw, d);
    let lt = s.cmp(Predicate::Lt, u, pd)?;
    let one = s.const_f(1.0, d);
    let zero = s.const_f(0.0, d);
    s.select(lt, one, zero)
}

/// The element type of dropout's input (operand 2: a tensor, or the
/// buffer an argument became while the function is lowered).
fn input_elem(s: &Scalars<'_, '_>, op: Op) -> Result<ElemType, String> {
    let ctx = s.ctx();
    match ctx.type_data(ctx.value_type(ctx.operand(op, 2))) {
        TypeData::Tensor(t) => Ok(t.elem),
        TypeData::MemRef(m) => Ok(m.elem),
        _ => Err("dropout's input is neither a tensor nor a buffer".into()),
    }
}

/// Dropout's mask: the element is kept when its uniform draw (in the
/// input's draw precision) is `>= p`.
fn dropout_keep(s: &mut Scalars<'_, '_>, op: Op, w: &[Value], _: Option<Value>, _: ElemType) -> R {
    let p = s.ctx().attr_f64(op, "p").unwrap_or(0.5);
    let d = draw_elem(input_elem(s, op)?);
    let u = unit(s, w[0], d)?;
    let pv = s.const_f(if d == ElemType::F64 { p } else { p as f32 as f64 }, d);
    s.cmp(Predicate::Ge, u, pv)
}

/// Dropout's output: `x / (1 - p)` where kept, else 0, computed in the
/// input's arithmetic type.
fn dropout_value(s: &mut Scalars<'_, '_>, op: Op, w: &[Value], x: Option<Value>, e: ElemType) -> R {
    let keep = dropout_keep(s, op, w, x, e)?;
    dropout_scale(s, op, keep, x.ok_or("no input")?)
}

fn dropout_scale(s: &mut Scalars<'_, '_>, op: Op, keep: Value, x: Value) -> R {
    let p = s.ctx().attr_f64(op, "p").unwrap_or(0.5);
    let e = s.elem_of(x)?;
    let d = draw_elem(e);
    let scale = 1.0 / (1.0 - p);
    let xv = s.widen(x)?;
    let sc = s.const_f(if d == ElemType::F64 { scale } else { scale as f32 as f64 }, compute_elem(e));
    let y = s.mul(xv, sc)?;
    let z = s.const_f(0.0, compute_elem(e));
    s.select(keep, y, z)
}

/// What to do with element `i` given its Philox words.
type DrawBody<'a> = dyn FnMut(&mut Scalars<'_, '_>, Value, &[Value]) -> Result<(), String> + 'a;

/// `(w >> 8) · 2⁻²⁴`, a uniform [0, 1) sample in f32 or f64.
fn unit(s: &mut Scalars<'_, '_>, w: Value, e: ElemType) -> R {
    let eight = s.const_i(8, ElemType::I64);
    let hi = s.bin(Binary::Shr, w, eight)?;
    let f = s.cast_e(hi, e);
    let k = s.const_f(1.0 / 16_777_216.0, e);
    s.mul(f, k)
}

/// The precision a sample of type `e` is drawn in.
fn draw_elem(e: ElemType) -> ElemType {
    if e == ElemType::F64 {
        ElemType::F64
    } else {
        ElemType::F32
    }
}

/// Loads seed and offset, checks the offset, and calls `f(s, i, words)`
/// for every element `i < n`, where `words` are its Philox words: one per
/// element (`per_block` = 4) or two (`per_block` = 2).
fn each_draw(
    s: &mut Scalars<'_, '_>,
    seed_buf: Value,
    off_buf: Value,
    n: i64,
    per_block: i64,
    f: &mut DrawBody<'_>,
) -> Result<(), String> {
    let seed = s.load(seed_buf, &[])?;
    let off = s.load(off_buf, &[])?;
    let zero = s.const_i(0, ElemType::I64);
    let four = s.const_i(4, ElemType::I64);
    let nonneg = s.cmp(Predicate::Ge, off, zero)?;
    let r = s.bin(Binary::Rem, off, four)?;
    let aligned = s.cmp(Predicate::Eq, r, zero)?;
    let ok = s.bin(Binary::And, nonneg, aligned)?;
    s.assert(ok, "Philox offset must be a non-negative multiple of 4");
    let base = s.div(off, four)?;
    let words = |s: &mut Scalars<'_, '_>, blk: &[Value; 4], lane: i64| -> Vec<Value> {
        if per_block == 4 {
            vec![blk[lane as usize]]
        } else {
            let k = 2 * lane as usize;
            let _ = s;
            vec![blk[k], blk[k + 1]]
        }
    };
    // The whole blocks, then the partial one: at most `per_block - 1`
    // draws, `n mod per_block` of them (an expression where the count is
    // symbolic: its lane is then picked at run time). The words are those
    // of code per size either way, so the samples are too.
    let err = |e: aot_ir::sym::SymError| e.to_string();
    let full = aot_ir::sym::floordiv(n, per_block).map_err(err)?;
    let rest = aot_ir::sym::modulo(n, per_block).map_err(err)?;
    let pb = s.index(per_block);
    // Block `b` (an index): its Philox words, and the draws of its first
    // `lanes` lanes.
    let mut block = |s: &mut Scalars<'_, '_>, b: Value, lanes: i64| -> Result<(), String> {
        let bi = s.cast_e(b, ElemType::I64);
        let ctr = s.add(base, bi)?;
        let blk = s.philox(seed, ctr);
        let first = s.mul(b, pb)?;
        for lane in 0..lanes {
            let l = s.index(lane);
            let i = s.add(first, l)?;
            let w = words(s, &blk, lane);
            f(s, i, &w)?;
        }
        Ok(())
    };
    if full != 0 {
        s.for_loop(0, full, 1, true, &[], &mut |s, b, _| block(s, b, per_block).map(|_| Vec::new()))?;
    }
    if !aot_ir::sym::is_symbolic(rest) {
        // (`full` may still be symbolic: `(4·s0 + 1) mod 4` is 1.)
        if rest > 0 {
            let fb = s.size_index(full);
            block(s, fb, rest)?;
        }
        return Ok(());
    }
    s.for_loop(0, rest, 1, false, &[], &mut |s, lane, _| {
        let fb = s.size_index(full);
        let fbi = s.cast_e(fb, ElemType::I64);
        let ctr = s.add(base, fbi)?;
        let blk = s.philox(seed, ctr);
        let first = s.mul(fb, pb)?;
        let i = s.add(first, lane)?;
        // Lane k's words, picked by the run-time lane.
        let mut w = words(s, &blk, 0);
        for k in 1..per_block {
            let kv = s.index(k);
            let at = s.cmp(Predicate::Eq, lane, kv)?;
            let wk = words(s, &blk, k);
            for (x, y) in w.iter_mut().zip(wk) {
                *x = s.select(at, y, *x)?;
            }
        }
        f(s, i, &w)?;
        Ok(Vec::new())
    })?;
    Ok(())
}

fn generate(lc: &mut LowerCtx<'_, '_>, name: &str, draws: &PhiloxDraws) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let shape = rt.shape.to_vec();
    let n = aot_ir::sym::numel(&shape).map_err(|e| e.to_string())?;
    let out = lc.alloc(&shape, rt.elem);
    // (The fresh result is row-major: draw `i` goes to its element `i`,
    // with no multi-index to compute, which divides by run-time sizes
    // where they are symbolic.)
    let flat = lc.view(out, &[n], &[1], 0)?;
    let mut bufs = vec![lc.operand(0)?, lc.operand(1)?];
    if let Some(i) = draws.input {
        bufs.push(lc.operand(i)?);
    }
    bufs.push(flat);
    let op = lc.op;
    let value = draws.results[0];
    lc.kernel(name, &bufs, &mut |s, a| {
        let o = *a.last().expect("out");
        each_draw(s, a[0], a[1], n, draws.per_block, &mut |s, i, w| {
            let x = match draws.input {
                Some(_) => {
                    let idx = s.delinearize(i, &shape)?;
                    Some(s.load(a[2], &idx)?)
                }
                None => None,
            };
            let v = value(s, op, w, x, rt.elem)?;
            s.store_as(v, o, &[i])
        })
    })?;
    lc.set_result(0, out);
    Ok(())
}

pub fn philox_uniform(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    generate(lc, "uniform", &UNIFORM_DRAWS)
}

pub fn philox_normal(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    generate(lc, "normal", &NORMAL_DRAWS)
}

pub fn philox_bernoulli(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    generate(lc, "bernoulli", &BERNOULLI_DRAWS)
}

pub fn philox_dropout(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let p = lc.attrs().f64("p").unwrap_or(0.5);
    let x = lc.operand(2)?;
    let xt = lc.operand_type(2)?;
    let shape = xt.shape.to_vec();
    let e = xt.elem;
    let draws = dropout_draws(&lc.attrs());
    if !draws || p >= 1.0 {
        // Evaluation mode copies x and keeps everything; p = 1 drops all.
        let out = lc.alloc(&shape, e);
        let mask = lc.alloc(&shape, ElemType::I1);
        let (keep, scale) = if draws { (0, 0.0) } else { (1, 1.0) };
        lc.kernel("dropout", &[x, out, mask], &mut |s, a| {
            s.nest(&shape, true, &mut |s, ivs| {
                let v = s.load(a[0], ivs)?;
                let v = s.widen(v)?;
                let c = s.const_f(scale, compute_elem(e));
                let y = s.mul(v, c)?;
                let y = if draws { c } else { y };
                s.store_as(y, a[1], ivs)?;
                let k = s.const_i(keep, ElemType::I1);
                s.store(k, a[2], ivs);
                Ok(())
            })
        })?;
        lc.set_result(0, out);
        lc.set_result(1, mask);
        return Ok(());
    }
    let n = aot_ir::sym::numel(&shape).map_err(|e| e.to_string())?;
    let out = lc.alloc(&shape, e);
    let mask = lc.alloc(&shape, ElemType::I1);
    let (seed, off) = (lc.operand(0)?, lc.operand(1)?);
    let op = lc.op;
    // The draws write the mask; the scaling
    // is a separate elementwise kernel, so fuse can join it with x's
    // producers and its consumers in vectorized loops (the philox loop
    // itself stays scalar).
    // (The fresh mask is row-major: draw `i` is its element `i`.)
    let flat_mask = lc.view(mask, &[n], &[1], 0)?;
    lc.kernel("dropout_mask", &[seed, off, flat_mask], &mut |s, a| {
        each_draw(s, a[0], a[1], n, 4, &mut |s, i, w| {
            let keep = dropout_keep(s, op, w, None, ElemType::I1)?;
            s.store(keep, a[2], &[i]);
            Ok(())
        })
    })?;
    lc.kernel("dropout", &[x, mask, out], &mut |s, a| {
        s.nest(&shape, true, &mut |s, ivs| {
            let keep = s.load(a[1], ivs)?;
            let xv = s.load(a[0], ivs)?;
            let y = dropout_scale(s, op, keep, xv)?;
            s.store_as(y, a[2], ivs)
        })
    })?;
    lc.set_result(0, out);
    lc.set_result(1, mask);
    Ok(())
}

/// Stateful random ops have no compiled form: their state is the global
/// generator, which `rng-functionalize` makes explicit.
pub fn stateful(_: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    Err("draws from the global generator: run rng-functionalize before lowering to loops".into())
}
