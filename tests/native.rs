//! Native code beyond the corpus: the vectorized approximations of `exp`,
//! `tanh` and `erf` against `libm` in f64 over their whole range and the
//! special values, with lengths that exercise the vector loop and its
//! scalar remainder; and the JIT entry points used by embedders.

use aot::compile::{compile, Backend, CompileOptions};
use aot::ir::{parse_module, verify, Context, ElemType, ParseOptions, SourceMgr};
use aot::runtime::Tensor;
use std::sync::Arc;

/// Compiles `func.func @f(%x: tensor<Nxf32>) -> tensor<Nxf32>` applying `op`.
fn unary(op: &str, n: usize) -> aot::runtime::compiled::CompiledFunction {
    let text = format!(
        "func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %0 = {op} %x : tensor<{n}xf32>\n  return %0 : tensor<{n}xf32>\n}}\n"
    );
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, &text, &ParseOptions { file: "t".into(), first_line: 1 }).expect("parses");
    verify(&ctx, m).expect("verifies");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    let mut sources = SourceMgr::new();
    sources.add("t", Arc::from(text.as_str()));
    let opts = CompileOptions {
        pipeline: "aot-inference".into(),
        backend: Backend::Cranelift,
        keep_ir: false,
        compile_for: None,
    };
    compile(ctx, &sources, m, f, &opts).expect("compiles").function
}

/// Inputs: a dense sweep, powers of two down to subnormals, and specials.
fn inputs(range: f32) -> Vec<f32> {
    let mut v: Vec<f32> = (0..20_001).map(|i| -range + 2.0 * range * i as f32 / 20_000.0).collect();
    for e in -149..=20 {
        let p = 2f32.powi(e);
        v.extend([p, -p]);
    }
    v.extend([0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN, 1e-30, -1e-30]);
    v
}

/// Largest error of `op` against `reference` in units of f32 ulps of the
/// exact value (`abs` floor for results near zero).
fn check(op: &str, range: f32, reference: fn(f64) -> f64, max_ulps: f64, abs: f64) {
    let xs = inputs(range);
    let n = xs.len();
    let mut f = unary(op, n);
    let t =
        Tensor::from_f64(ElemType::F32, &[n as i64], &xs.iter().map(|&x| x as f64).collect::<Vec<_>>(), ElemType::F32);
    let out = f.call(&[t]).expect("runs").remove(0).read_f64();
    let mut worst = (0.0f64, 0.0f32);
    for (&x, &y) in xs.iter().zip(&out) {
        let want = reference(x as f64);
        let want32 = want as f32 as f64;
        if want.is_nan() {
            assert!(y.is_nan(), "{op}({x}) = {y}, expected NaN");
            continue;
        }
        if want32.is_infinite() {
            assert_eq!(y, want32, "{op}({x})");
            continue;
        }
        let ulp = (want32.abs() as f32).max(f32::MIN_POSITIVE);
        let ulp = (f32::from_bits(ulp.to_bits() + 1) - ulp) as f64;
        let err = (y - want).abs();
        if err <= abs {
            continue;
        }
        let u = err / ulp;
        if u > worst.0 {
            worst = (u, x);
        }
    }
    assert!(worst.0 <= max_ulps, "{op}: {:.1} ulps at x = {} (allowed {max_ulps})", worst.0, worst.1);
}

#[test]
fn vector_exp_is_accurate() {
    aot::init();
    check("tensor.exp", 110.0, f64::exp, 2.0, 1e-37);
}

#[test]
fn vector_tanh_is_accurate() {
    aot::init();
    check("tensor.tanh", 12.0, f64::tanh, 4.0, 1e-37);
}

/// Where f32's tanh is ±1 it is exactly ±1 (1 - tanh² is then 0, which a
/// backward multiplies with an infinite factor as PyTorch does: NaN).
#[test]
fn vector_tanh_saturates_exactly() {
    aot::init();
    let xs = [10.0f32, 12.5, 20.0, 1e6, f32::MAX, f32::INFINITY];
    let all: Vec<f64> = xs.iter().flat_map(|&x| [x as f64, -x as f64]).collect();
    let n = all.len();
    let mut f = unary("tensor.tanh", n);
    let t = Tensor::from_f64(ElemType::F32, &[n as i64], &all, ElemType::F32);
    let out = f.call(&[t]).expect("runs").remove(0).read_f64();
    for (x, y) in all.iter().zip(&out) {
        assert_eq!(*y, x.signum(), "tanh({x})");
    }
}

#[test]
fn vector_erf_is_accurate() {
    aot::init();
    check("tensor.erf", 6.0, libm::erf, 3.0, 1e-37);
}

/// GELU goes through erfc, so it keeps its relative accuracy where
/// `1 + erf` would cancel (the interpreter's f64 formula flushes to 0
/// there): within a few ulps where |gelu| is not tiny; in the far negative
/// tail (|gelu| < 1e-6) rounding of -x²/2 inside exp costs up to ~30 ulps.
#[test]
fn gelu_is_accurate() {
    aot::init();
    check("tensor.gelu", 12.0, |x| 0.5 * x * libm::erfc(-x / std::f64::consts::SQRT_2), 32.0, 1e-12);
}

/// Reductions over outer dimensions vectorize along the kept (unit-stride)
/// dimension, each lane carrying its own column's sum through the nested
/// loops, with a scalar remainder: every column equals the sequential sum.
#[test]
fn column_sums_match_sequential_sums() {
    for (shape, dims) in [(vec![37i64, 10], "[0]"), (vec![5, 7, 9], "[0, 1]"), (vec![3, 33, 8], "[0]")] {
        let t = |s: &[i64]| format!("tensor<{}xf32>", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"));
        let kept: Vec<i64> = if dims == "[0]" { shape[1..].to_vec() } else { shape[2..].to_vec() };
        let (tx, tr) = (t(&shape), t(&kept));
        let text = format!(
            "func.func @f(%x: {tx}) -> {tr} {{\n  %s = tensor.sum %x {{dims = {dims}}} : {tx} -> {tr}\n  return %s : {tr}\n}}\n"
        );
        let m = aot::Module::parse(text, "colsum.mlir").unwrap();
        let n: i64 = shape.iter().product();
        let data: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 * 0.01 - 5.0).collect();
        let x = aot::Tensor::from_f64(ElemType::F32, &shape, &data, ElemType::F32);
        let mut f = m.compile(None, std::slice::from_ref(&x), &aot::Options::inference()).unwrap();
        let got = f.call(&[x]).unwrap()[0].read_f64();
        let cols: i64 = kept.iter().product();
        let rows = n / cols;
        for c in 0..cols {
            let mut acc = 0f32;
            for r in 0..rows {
                acc += data[(r * cols + c) as usize] as f32;
            }
            assert_eq!(got[c as usize], acc as f64, "{shape:?} dims {dims}: column {c}");
        }
    }
}
