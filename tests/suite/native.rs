//! Native code beyond the corpus: every row of the math table that a
//! tensor op computes elementwise (`tensor.exp` for `loop.exp`, ...),
//! compiled and run natively against the row's f64 reference within the
//! row's accuracy contract, over its whole range and the special values,
//! with lengths that exercise the vector loop and its scalar remainder; and
//! the JIT entry points used by embedders.

use aot::compile::{compile, Backend, CompileOptions};
use aot::dialects::r#loop::math::{test_inputs, ulps_error};
use aot::dialects::r#loop::MATH;
use aot::ir::registry::lookup_op;
use aot::ir::{parse_module, verify, Context, ElemType, ParseOptions, SourceMgr};
use aot::runtime::Tensor;
use std::sync::Arc;

/// Compiles `func.func @f(%x: tensor<Nxf32>) -> tensor<Nxf32>` applying `op`.
fn unary(op: &str, n: usize, backend: Backend) -> aot::runtime::compiled::CompiledFunction {
    let text = format!(
        "func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %0 = {op} %x : tensor<{n}xf32>\n  return %0 : tensor<{n}xf32>\n}}\n"
    );
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, &text, &ParseOptions { file: "t".into(), first_line: 1 }).expect("parses");
    verify(&ctx, m).expect("verifies");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    let mut sources = SourceMgr::new();
    sources.add("t", Arc::from(text.as_str()));
    let opts = CompileOptions { pipeline: "aot-inference".into(), backend, keep_ir: false, progress: false };
    compile(ctx, &sources, m, f, &opts).expect("compiles").function
}

/// Largest error of `op` against `reference` in units of f32 ulps of the
/// exact value (`abs` floor for results near zero), over `range`'s inputs.
fn check(op: &str, range: f32, reference: &dyn Fn(f64) -> f64, max_ulps: f64, abs: f64, backend: Backend) {
    let xs = test_inputs(range);
    let n = xs.len();
    let mut f = unary(op, n, backend);
    let t =
        Tensor::from_f64(ElemType::F32, &[n as i64], &xs.iter().map(|&x| x as f64).collect::<Vec<_>>(), ElemType::F32);
    let out = f.call(&[t]).expect("runs").remove(0).read_f64();
    let mut worst = (0.0f64, 0.0f32);
    for (&x, &y) in xs.iter().zip(&out) {
        let u = ulps_error(y, reference(x as f64), abs);
        if u > worst.0 {
            worst = (u, x);
        }
    }
    assert!(worst.0 <= max_ulps, "{op} on {backend:?}: {:.1} ulps at x = {} (allowed {max_ulps})", worst.0, worst.1);
}

/// Every one-argument row of the math table whose function a tensor op of
/// the same name computes, natively within the row's contract.
#[test]
fn every_math_row_is_accurate_natively() {
    math_rows_on(Backend::CRANELIFT);
}

/// The same contract for the LLVM backend.
#[cfg(feature = "llvm")]
#[test]
fn every_math_row_is_accurate_on_llvm() {
    math_rows_on(Backend::parse("llvm").unwrap());
}

fn math_rows_on(backend: Backend) {
    aot::init();
    let mut checked = Vec::new();
    for f in MATH.iter().filter(|f| f.arity() == 1) {
        let op = format!("tensor.{}", f.short);
        if lookup_op(&op).is_none() {
            continue;
        }
        check(&op, f.range, &|x| f.eval(&[x]), f.ulps as f64, 1e-37, backend);
        checked.push(f.short);
    }
    // The polynomial rows and a per-lane row at least.
    for must in ["exp", "tanh", "erf", "sin"] {
        assert!(checked.contains(&must), "tensor.{must} was not checked: {checked:?}");
    }
}

/// Where f32's tanh is ±1 it is exactly ±1 (1 - tanh² is then 0, which a
/// backward multiplies with an infinite factor as PyTorch does: NaN).
#[test]
fn vector_tanh_saturates_exactly() {
    aot::init();
    let xs = [10.0f32, 12.5, 20.0, 1e6, f32::MAX, f32::INFINITY];
    let all: Vec<f64> = xs.iter().flat_map(|&x| [x as f64, -x as f64]).collect();
    let n = all.len();
    let mut f = unary("tensor.tanh", n, Backend::CRANELIFT);
    let t = Tensor::from_f64(ElemType::F32, &[n as i64], &all, ElemType::F32);
    let out = f.call(&[t]).expect("runs").remove(0).read_f64();
    for (x, y) in all.iter().zip(&out) {
        assert_eq!(*y, x.signum(), "tanh({x})");
    }
}

/// GELU goes through erfc, so it keeps its relative accuracy where
/// `1 + erf` would cancel (the interpreter's f64 formula flushes to 0
/// there): within a few ulps where |gelu| is not tiny; in the far negative
/// tail (|gelu| < 1e-6) rounding of x²/2 before exp costs up to ~30 ulps.
#[test]
fn gelu_is_accurate() {
    aot::init();
    for &(_, backend) in Backend::available().iter().filter(|(n, b)| *n != "interp" && b.runs_everything_here()) {
        check("tensor.gelu", 12.0, &|x| 0.5 * x * libm::erfc(-x / std::f64::consts::SQRT_2), 32.0, 1e-12, backend);
    }
}

/// Reductions over outer dimensions vectorize along the kept (unit-stride)
/// dimension (Cranelift: lanes of the outer loop; LLVM: 16 iterations of it
/// unrolled and jammed, then packed by the SLP vectorizer), each lane
/// carrying its own column's sum through the nested loops, with a scalar
/// remainder: every column equals the sequential sum on every backend.
#[test]
fn column_sums_match_sequential_sums() {
    // Widths below, at and above a 16-lane jam, with remainders.
    for (shape, dims) in
        [(vec![37i64, 10], "[0]"), (vec![5, 7, 9], "[0, 1]"), (vec![3, 33, 8], "[0]"), (vec![9, 53], "[0]")]
    {
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
        for &(name, backend) in Backend::available().iter().filter(|(n, b)| *n != "interp" && b.runs_everything_here())
        {
            let opts = aot::Options { backend, ..aot::Options::inference() };
            let mut f = m.compile(None, std::slice::from_ref(&x), &opts).unwrap();
            let got = f.call(std::slice::from_ref(&x)).unwrap()[0].read_f64();
            let cols: i64 = kept.iter().product();
            let rows = n / cols;
            for c in 0..cols {
                let mut acc = 0f32;
                for r in 0..rows {
                    acc += data[(r * cols + c) as usize] as f32;
                }
                assert_eq!(got[c as usize], acc as f64, "{name}: {shape:?} dims {dims}: column {c}");
            }
        }
    }
}

/// LLVM's kernels: a buffer only the kernel's own allocation reaches gets
/// an alias scope (so the vectorizer needs no overlap check against it);
/// function arguments, which may be views of one storage, never do.
#[cfg(feature = "llvm")]
#[test]
fn llvm_scopes_only_buffers_no_other_operand_can_share() {
    aot::init();
    let text = "func.func @f(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tensor.mul %x, %y : tensor<64xf32>
  %1 = tensor.exp %0 : tensor<64xf32>
  return %1 : tensor<64xf32>
}
";
    let ir = llvm_text(text, aot::codegen::llvm::Emit::Llvm);
    let scoped = ir.lines().filter(|l| l.contains("store ") && l.contains("!alias.scope")).count();
    let arg_loads = ir.lines().filter(|l| l.contains(" load ") && l.contains("!alias.scope")).count();
    assert!(scoped > 0, "the result buffer's stores have no scope:\n{ir}");
    assert_eq!(arg_loads, 0, "an argument's loads got a scope of their own:\n{ir}");
    assert!(ir.contains("!noalias"), "no access is marked as missing the result:\n{ir}");
}

/// LLVM's Philox: the scalar 64-bit products of 32-bit words vectorize as
/// 32 × 32 → 64-bit lane multiplies (`vpmuludq`, the multiply-high and low
/// halves at once) over whole vectors of counters, not one block at a time.
/// The draws themselves equal the interpreter's (the random-convention and
/// dropout tests).
#[cfg(all(feature = "llvm", target_arch = "x86_64"))]
#[test]
fn llvm_philox_multiplies_32_bit_lanes() {
    aot::init();
    if !std::arch::is_x86_feature_detected!("avx2") {
        eprintln!("skipped: the host has no AVX2, so no vector lanes to check");
        return;
    }
    let text = "func.func @f(%seed: tensor<i64>, %offset: tensor<i64>) -> tensor<4096xf32> {
  %u = rng.philox_uniform %seed, %offset {high = 1.0, low = 0.0} : tensor<i64> -> tensor<4096xf32>
  return %u : tensor<4096xf32>
}
";
    let asm = llvm_text(text, aot::codegen::llvm::Emit::Asm);
    let vector_muls =
        asm.lines().filter(|l| l.contains("vpmuludq") && (l.contains("%ymm") || l.contains("%zmm"))).count();
    assert!(vector_muls >= 8, "Philox's multiplies are not 32-bit vector lanes ({vector_muls} found):\n{asm}");
}

/// What the LLVM backend emits (`emit`) while compiling `text`'s entry.
#[cfg(feature = "llvm")]
fn llvm_text(text: &str, emit: aot::codegen::llvm::Emit) -> String {
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: "t".into(), first_line: 1 }).expect("parses");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    let mut out = String::new();
    let kind = match emit {
        aot::codegen::llvm::Emit::Asm => "asm",
        _ => "llvm",
    };
    let options = aot::codegen::target::Options { emit: Some(kind), ..Default::default() };
    let native = aot::codegen::Native::named("llvm", options).expect("the LLVM backend");
    aot::codegen::compile_function(&mut ctx, f, &native, &mut out).expect("compiles");
    out
}

/// The programs of [`polynomial_strips_give_the_vector_loops_bits`], run on
/// Cranelift: every output element's bits, in order.
fn strip_program_bits() -> Vec<u32> {
    aot::init();
    let t = |s: &[i64]| format!("tensor<{}xf32>", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"));
    // Elementwise polynomials over lengths around the strip (64) and the
    // unrolled loop (8): whole strips, strips plus a remainder, one short;
    // two polynomials in one body; row reductions through `exp` (softmax
    // over rows longer than a strip, with a remainder).
    let mut programs: Vec<(String, Vec<i64>)> = Vec::new();
    for n in [63i64, 64, 200, 1000, 4099] {
        for body in [
            "tensor.gelu %x {approximate = \"none\"}",
            "tensor.gelu %x {approximate = \"tanh\"}",
            "tensor.sigmoid %x",
            "tensor.erf %x",
            "tensor.exp %x",
        ] {
            let tx = t(&[n]);
            let op = body.split(' ').next().unwrap_or_default();
            let attrs = body.strip_prefix(op).unwrap_or_default().replace(" %x", "");
            programs.push((
                format!("func.func @f(%x: {tx}) -> {tx} {{\n  %0 = {op} %x{attrs} : {tx}\n  return %0 : {tx}\n}}\n"),
                vec![n],
            ));
        }
        let tx = t(&[n]);
        programs.push((
            format!(
                "func.func @f(%x: {tx}) -> {tx} {{\n  %a = tensor.exp %x : {tx}\n  %b = tensor.tanh %x : {tx}\n  \
                 %c = tensor.mul %a, %b : {tx}, {tx} -> {tx}\n  return %c : {tx}\n}}\n"
            ),
            vec![n],
        ));
    }
    for shape in [vec![5i64, 200], vec![3, 64], vec![2, 3, 131]] {
        let tx = t(&shape);
        let d = shape.len() - 1;
        for op in ["tensor.softmax", "tensor.log_softmax"] {
            programs.push((
                format!(
                    "func.func @f(%x: {tx}) -> {tx} {{\n  %0 = {op} %x {{dim = {d}}} : {tx}\n  return %0 : {tx}\n}}\n"
                ),
                shape.clone(),
            ));
        }
    }
    let mut bits = Vec::new();
    for (text, shape) in programs {
        let m = aot::Module::parse(text.clone(), "strips.mlir").unwrap_or_else(|e| panic!("{e}\n{text}"));
        let n: i64 = shape.iter().product();
        // Values over the polynomials' ranges, and their special values.
        let mut data: Vec<f64> = (0..n).map(|i| ((i * 7919 + 13) % 2003) as f64 * 0.013 - 13.0).collect();
        for (k, s) in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 95.0, -110.0].into_iter().enumerate() {
            if let Some(v) = data.get_mut(k * 37 + 5) {
                *v = s;
            }
        }
        let x = aot::Tensor::from_f64(ElemType::F32, &shape, &data, ElemType::F32);
        let opts = aot::Options { backend: Backend::CRANELIFT, ..aot::Options::inference() };
        let mut f = m.compile(None, std::slice::from_ref(&x), &opts).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let out = f.call(std::slice::from_ref(&x)).unwrap_or_else(|e| panic!("{e}\n{text}"));
        bits.extend(out[0].read_f64().iter().map(|&v| (v as f32).to_bits()));
    }
    bits
}

/// Where the CPU has AVX2 and FMA, Cranelift's loops that compute the math
/// table's polynomials run them eight lanes at a time in strips
/// (`aot_codegen::lanes8`): every element, reductions included, must be the
/// bits the plain four-lane loop gives, which a process of its own computes
/// with the helpers off (`AOT_LANES8=0`).
#[test]
fn polynomial_strips_give_the_vector_loops_bits() {
    const EXPECT: &str = "AOT_TEST_LANES8_BITS";
    let got = strip_program_bits();
    if let Some(path) = std::env::var_os(EXPECT) {
        assert!(!aot::codegen::lanes8::available(), "AOT_LANES8=0 turns the helpers off");
        let raw = std::fs::read(&path).expect("the parent's bits");
        let want: Vec<u32> = raw.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert_eq!(want.len(), got.len(), "the same programs");
        for (i, (&w, &g)) in want.iter().zip(&got).enumerate() {
            let (wf, gf) = (f32::from_bits(w), f32::from_bits(g));
            assert!(w == g || (wf.is_nan() && gf.is_nan()), "element {i}: strips {wf:e}, plain loop {gf:e}");
        }
        return;
    }
    if !aot::codegen::lanes8::available() {
        eprintln!("skipped: the eight-lane helpers do not run here (no AVX2 and FMA, or AOT_LANES8=0)");
        return;
    }
    let path = std::env::temp_dir().join(format!("aot-lanes8-bits-{}", std::process::id()));
    std::fs::write(&path, got.iter().flat_map(|b| b.to_le_bytes()).collect::<Vec<u8>>()).expect("writes");
    let p = path.to_string_lossy().into_owned();
    crate::common::in_own_process(
        "native::polynomial_strips_give_the_vector_loops_bits",
        &[("AOT_LANES8", "0"), (EXPECT, p.as_str())],
        || {},
    );
    let _ = std::fs::remove_file(&path);
}

/// Compiles `text`'s `@f` for `backend` (inference pipeline).
fn compiled(text: &str, backend: Backend) -> aot::runtime::compiled::CompiledFunction {
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: "t".into(), first_line: 1 }).expect("parses");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    let mut sources = SourceMgr::new();
    sources.add("t", Arc::from(text));
    let opts = CompileOptions { pipeline: "aot-inference".into(), backend, keep_ir: false, progress: false };
    compile(ctx, &sources, m, f, &opts).expect("compiles").function
}

/// bf16 loads, casts and stores run in Cranelift's vector lanes (four
/// halves per load and store, the rounding on I32X4): every element must be
/// what the interpreter gives, over the values where rounding decides
/// (ties to even both ways, the largest finite values that round to
/// infinity, subnormals, NaN with payloads that rounding must not carry
/// to infinity) and lengths that leave a scalar remainder; the exponential
/// also runs in eight-lane strips.
#[test]
fn bf16_lanes_round_as_the_interpreter() {
    let specials: [u32; 16] = [
        0x3f80_8000, // 1 + 2⁻⁸: a tie, rounds down to even
        0x3f81_8000, // a tie that rounds up to even
        0x3f80_8001, // just above a tie
        0x7f7f_ffff, // the largest f32: to infinity
        0x7f7f_7fff, // stays finite
        0x0000_0001, // the smallest subnormal
        0x807f_ffff, // a negative subnormal that rounds up in magnitude
        0x7f80_0000, // infinity
        0xff80_0000,
        0x7fc0_0000, // a quiet NaN
        0x7f80_0001, // a signalling NaN whose payload is below the kept half
        0xffff_ffff, // a NaN with every payload bit set
        0x0000_0000,
        0x8000_0000,
        0x4049_0fdb, // π
        0xc2f7_0000,
    ];
    let n = 203usize;
    let xs: Vec<f64> = (0..n)
        .map(|i| if i < specials.len() { f32::from_bits(specials[i]) as f64 } else { (i as f64 - 100.0) * 0.173 })
        .collect();
    let programs = [
        format!(
            "func.func @f(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xbf16> {{\n  %0 = tensor.cast %x : tensor<{n}xf32> -> tensor<{n}xbf16>\n  return %0 : tensor<{n}xbf16>\n}}\n"
        ),
        format!(
            "func.func @f(%x: tensor<{n}xbf16>, %y: tensor<{n}xbf16>) -> tensor<{n}xbf16> {{\n  %0 = tensor.mul %x, %y : tensor<{n}xbf16>\n  %1 = tensor.add %0, %x : tensor<{n}xbf16>\n  return %1 : tensor<{n}xbf16>\n}}\n"
        ),
        format!(
            "func.func @f(%x: tensor<{n}xbf16>, %y: tensor<{n}xbf16>) -> tensor<{n}xbf16> {{\n  %0 = tensor.exp %x : tensor<{n}xbf16>\n  return %0 : tensor<{n}xbf16>\n}}\n"
        ),
    ];
    for (k, text) in programs.iter().enumerate() {
        let ty = if k == 0 { ElemType::F32 } else { ElemType::BF16 };
        let arg = |scale: f64| Tensor::from_f64(ty, &[n as i64], &xs.iter().map(|x| x * scale).collect::<Vec<_>>(), ty);
        let args = [arg(1.0), arg(-0.37)];
        let run = |backend: Backend| compiled(text, backend).call(&args).expect("runs").remove(0).read_f64();
        let (got, want) = (run(Backend::CRANELIFT), run(Backend::Interp));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "program {k}, element {i} (x = {:e}): Cranelift {g:e}, interpreter {w:e}",
                xs[i]
            );
        }
    }
}

/// The exact GELU's underflowed negative tail (and -0) is +0 in f32 and
/// bf16, or -0 with `signed_zero` (PyTorch's kernels differ by machine:
/// `aot_torch` asks eager which it gives), on the interpreter and in native
/// code, in the vector lanes and the scalar remainder alike; f64 keeps the
/// sign either way, and other values do not change.
#[test]
fn gelu_signed_zero_keeps_the_tails_sign() {
    let n = 37usize;
    let xs: Vec<f64> = (0..n).map(|i| [-40.0, -0.0, -100.0, 1.5, -0.25][i % 5]).collect();
    for ty in ["f32", "bf16", "f64"] {
        for flag in [false, true] {
            let attrs = if flag { "{signed_zero}" } else { "" };
            let text = format!(
                "func.func @f(%x: tensor<{n}x{ty}>) -> tensor<{n}x{ty}> {{\n  %0 = tensor.gelu %x {attrs} : tensor<{n}x{ty}>\n  return %0 : tensor<{n}x{ty}>\n}}\n"
            );
            let elem = ElemType::from_name(ty).expect("a type");
            let x = Tensor::from_f64(elem, &[n as i64], &xs, elem);
            for backend in [Backend::Interp, Backend::CRANELIFT] {
                let y = compiled(&text, backend).call(std::slice::from_ref(&x)).expect("runs").remove(0).read_f64();
                for (i, (&xi, &yi)) in xs.iter().zip(&y).enumerate() {
                    if xi == 1.5 || xi == -0.25 {
                        assert!(yi != 0.0, "{ty} {backend:?}: gelu({xi}) = {yi}");
                        continue;
                    }
                    assert_eq!(yi, 0.0, "{ty} {backend:?}: gelu({xi})");
                    let negative = flag || ty == "f64";
                    assert_eq!(yi.is_sign_negative(), negative, "{ty} signed_zero={flag} {backend:?}: element {i}");
                }
            }
        }
    }
}

/// An attention whose scores outgrow a core's L2 runs in batch chunks
/// (two here: 16 items of 160×160 f32 scores, 1.6 MB), each item computed
/// as the unchunked kernels compute it: every item's output and
/// log-sum-exp are, bit for bit, those of the same attention compiled for
/// that item alone (causal: the row kernel's test of the column against
/// the row runs in lanes).
#[test]
fn chunked_attention_gives_each_items_bits() {
    let (b, h, l, e) = (2usize, 8usize, 160usize, 16usize);
    let ty = |b: usize, h: usize| format!("tensor<{b}x{h}x{l}x{e}xf32>");
    let program = |b: usize, h: usize| {
        let t = ty(b, h);
        format!(
            "func.func @f(%q: {t}, %k: {t}, %v: {t}) -> ({t}, tensor<{b}x{h}x{l}xf32>) {{\n  %o:2 = tensor.attention %q, %k, %v {{causal}} : {t}, {t}, {t} -> ({t}, tensor<{b}x{h}x{l}xf32>)\n  return %o#0, %o#1 : {t}, tensor<{b}x{h}x{l}xf32>\n}}\n"
        )
    };
    let n = b * h * l * e;
    let data: Vec<Vec<f64>> = (0..3)
        .map(|s| (0..n).map(|i| (((i * 7919 + s * 104729) % 2003) as f64 / 1001.0 - 1.0) * 2.0).collect())
        .collect();
    let shape = [b as i64, h as i64, l as i64, e as i64];
    let args: Vec<Tensor> = data.iter().map(|d| Tensor::from_f64(ElemType::F32, &shape, d, ElemType::F32)).collect();
    let mut whole = compiled(&program(b, h), Backend::CRANELIFT);
    let outs = whole.call(&args).expect("runs");
    let (o, lse) = (outs[0].read_f64(), outs[1].read_f64());
    let mut single = compiled(&program(1, 1), Backend::CRANELIFT);
    let item = l * e;
    for (bi, hi) in [(0, 0), (0, 5), (1, 3), (1, 7)] {
        let at = (bi * h + hi) * item;
        let one: Vec<Tensor> = data
            .iter()
            .map(|d| Tensor::from_f64(ElemType::F32, &[1, 1, l as i64, e as i64], &d[at..at + item], ElemType::F32))
            .collect();
        let got = single.call(&one).expect("runs");
        let (o1, lse1) = (got[0].read_f64(), got[1].read_f64());
        assert!(o[at..at + item] == o1[..], "item ({bi}, {hi}): outputs differ from the unchunked kernels'");
        let r = (bi * h + hi) * l;
        assert!(lse[r..r + l] == lse1[..], "item ({bi}, {hi}): log-sum-exps differ");
    }
}
