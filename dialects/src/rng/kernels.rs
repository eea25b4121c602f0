//! Kernels of the `rng` dialect and the sampling formulas every backend
//! reproduces. A float result of type f64 is computed in f64, every other
//! float type in f32 (then rounded to f16/bf16).

use crate::r#loop::MathFn;
use aot_ir::{AttrView, ElemType};
use aot_runtime::philox::{block, uniform_f32, uniform_f64, word, words_for_normal, words_for_uniform};
use aot_runtime::{KernelCtx, KernelResult};
use smallvec::smallvec;

/// Uniform [0, 1) sample `i` of the stream at (seed, offset), in the
/// computation type of `e` (returned widened to f64).
pub fn unit_uniform(seed: u64, offset: u64, i: u64, e: ElemType) -> f64 {
    let w = word(seed, offset, i);
    if e == ElemType::F64 {
        uniform_f64(w)
    } else {
        uniform_f32(w) as f64
    }
}

/// `low + (high - low) * u` in the computation type.
pub fn uniform_value(seed: u64, offset: u64, i: u64, e: ElemType, low: f64, high: f64) -> f64 {
    let u = unit_uniform(seed, offset, i, e);
    if e == ElemType::F64 {
        low + (high - low) * u
    } else {
        let (l, h) = (low as f32, high as f32);
        (l + (h - l) * u as f32) as f64
    }
}

/// Box-Muller normal sample `i`.
pub fn normal_value(seed: u64, offset: u64, i: u64, e: ElemType, mean: f64, std: f64) -> f64 {
    let b = block(seed, offset / 4 + i / 2);
    let k = 2 * (i % 2) as usize;
    let (w0, w1) = (b[k], b[k + 1]);
    if e == ElemType::F64 {
        let u1 = ((w0 >> 8) as f64 + 1.0) * (1.0 / 16_777_216.0);
        let u2 = (w1 >> 8) as f64 * (1.0 / 16_777_216.0);
        let (log, cos) = (MathFn::Log.fact(), MathFn::Cos.fact());
        let z = (-2.0 * log.eval(&[u1])).sqrt() * cos.eval(&[2.0 * std::f64::consts::PI * u2]);
        mean + std * z
    } else {
        let u1 = ((w0 >> 8) as f32 + 1.0) * (1.0 / 16_777_216.0);
        let u2 = (w1 >> 8) as f32 * (1.0 / 16_777_216.0);
        // The formula the lowering marks `exact`: libm's f32 functions, as native code calls them.
        let (log, cos) = (MathFn::Log.fact(), MathFn::Cos.fact());
        let z = (-2.0 * log.eval_f32(&[u1])).sqrt() * cos.eval_f32(&[2.0 * std::f32::consts::PI * u2]);
        (mean as f32 + std as f32 * z) as f64
    }
}

/// Dropout of value `x` with sample `i`: (output, kept).
/// Dropout of element `i`: the mask is drawn in `e`'s precision; the scaling
/// is computed in `arith` (`e`, or f64 when the interpreter promotes floats
/// for finite differences, which must see the same mask).
pub fn dropout_value(seed: u64, offset: u64, i: u64, e: ElemType, arith: ElemType, x: f64, p: f64) -> (f64, bool) {
    if p >= 1.0 {
        return (0.0, false);
    }
    let u = unit_uniform(seed, offset, i, e);
    let keep = u >= if e == ElemType::F64 { p } else { p as f32 as f64 };
    if !keep {
        return (0.0, false);
    }
    let scale = 1.0 / (1.0 - p);
    let y = if arith == ElemType::F64 { x * scale } else { (x as f32 * scale as f32) as f64 };
    (y, true)
}

fn state(k: &KernelCtx<'_>) -> Result<(u64, u64), String> {
    let seed = k.input(0).read_i64()[0] as u64;
    let offset = k.input(1).read_i64()[0];
    if offset < 0 || offset % 4 != 0 {
        return Err(format!("Philox offset must be a non-negative multiple of 4, got {offset}"));
    }
    Ok((seed, offset as u64))
}

fn gen_uniform(k: &mut KernelCtx<'_>, seed: u64, offset: u64) -> KernelResult {
    let rt = k.result_type(0)?;
    let (low, high) = (k.attr_f64_or("low", 0.0), k.attr_f64_or("high", 1.0));
    let n = rt.numel() as u64;
    let v: Vec<f64> = (0..n).map(|i| uniform_value(seed, offset, i, rt.elem, low, high)).collect();
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &v)])
}

fn gen_normal(k: &mut KernelCtx<'_>, seed: u64, offset: u64) -> KernelResult {
    let rt = k.result_type(0)?;
    let (mean, std) = (k.attr_f64_or("mean", 0.0), k.attr_f64_or("std", 1.0));
    let n = rt.numel() as u64;
    let v: Vec<f64> = (0..n).map(|i| normal_value(seed, offset, i, rt.elem, mean, std)).collect();
    Ok(smallvec![k.new_f64(rt.elem, &rt.shape, &v)])
}

fn gen_bernoulli(k: &mut KernelCtx<'_>, p_index: usize, seed: u64, offset: u64) -> KernelResult {
    let p = k.input(p_index);
    let e = p.dtype();
    let v: Vec<f64> = p
        .read_f64()
        .into_iter()
        .enumerate()
        .map(|(i, pi)| {
            let u = unit_uniform(seed, offset, i as u64, e);
            let pi = if e == ElemType::F64 { pi } else { pi as f32 as f64 };
            (u < pi) as i64 as f64
        })
        .collect();
    Ok(smallvec![k.new_f64(e, &p.sizes(), &v)])
}

fn gen_dropout(k: &mut KernelCtx<'_>, x_index: usize, seed: u64, offset: u64) -> KernelResult {
    let x = k.input(x_index);
    let (e, shape) = (x.dtype(), x.sizes());
    let p = k.attr_f64_or("p", 0.5);
    let xs = x.read_f64();
    let arith = if k.promote_f64 { ElemType::F64 } else { e };
    if !dropout_draws(&AttrView::of_op(k.ctx, k.op)) {
        return Ok(smallvec![k.new_f64(e, &shape, &xs), k.new_i64(ElemType::I1, &shape, &vec![1; xs.len()])]);
    }
    let mut out = Vec::with_capacity(xs.len());
    let mut mask = Vec::with_capacity(xs.len());
    for (i, &xi) in xs.iter().enumerate() {
        let (y, keep) = dropout_value(seed, offset, i as u64, e, arith, xi, p);
        out.push(y);
        mask.push(keep as i64);
    }
    Ok(smallvec![k.new_f64(e, &shape, &out), k.new_i64(ElemType::I1, &shape, &mask)])
}

/// Does a dropout draw random words? Only in training mode (`train`, default true).
pub fn dropout_draws(a: &AttrView<'_>) -> bool {
    a.get("train").and_then(|t| a.ctx.attr_as_flag(t)).unwrap_or(true)
}

pub fn uniform(k: &mut KernelCtx<'_>) -> KernelResult {
    let n = k.result_type(0)?.numel() as u64;
    let seed = k.gen.seed;
    let offset = k.gen.advance(words_for_uniform(n));
    gen_uniform(k, seed, offset)
}

pub fn normal(k: &mut KernelCtx<'_>) -> KernelResult {
    let n = k.result_type(0)?.numel() as u64;
    let seed = k.gen.seed;
    let offset = k.gen.advance(words_for_normal(n));
    gen_normal(k, seed, offset)
}

pub fn bernoulli(k: &mut KernelCtx<'_>) -> KernelResult {
    let n = k.input(0).numel() as u64;
    let seed = k.gen.seed;
    let offset = k.gen.advance(words_for_uniform(n));
    gen_bernoulli(k, 0, seed, offset)
}

pub fn dropout(k: &mut KernelCtx<'_>) -> KernelResult {
    let n = k.input(0).numel() as u64;
    let seed = k.gen.seed;
    let offset =
        if dropout_draws(&AttrView::of_op(k.ctx, k.op)) { k.gen.advance(words_for_uniform(n)) } else { k.gen.offset };
    gen_dropout(k, 0, seed, offset)
}

pub fn philox_uniform(k: &mut KernelCtx<'_>) -> KernelResult {
    let (s, o) = state(k)?;
    gen_uniform(k, s, o)
}

pub fn philox_normal(k: &mut KernelCtx<'_>) -> KernelResult {
    let (s, o) = state(k)?;
    gen_normal(k, s, o)
}

pub fn philox_bernoulli(k: &mut KernelCtx<'_>) -> KernelResult {
    let (s, o) = state(k)?;
    gen_bernoulli(k, 2, s, o)
}

pub fn philox_dropout(k: &mut KernelCtx<'_>) -> KernelResult {
    let (s, o) = state(k)?;
    gen_dropout(k, 2, s, o)
}
