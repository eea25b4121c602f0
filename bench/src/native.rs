//! Native code: kernel bandwidth, GEMM, a training step, and the cost of
//! one call, on the native backend `--backend` names (`cranelift`, the
//! default, or `llvm` in a build with the `llvm` feature).
//!
//! ```text
//! aot-bench native elementwise [--rows 8192 --cols 8192]   fused chain vs copy, GB/s
//! aot-bench native matmul [--n 1024] [--m M --k K] [--linear] [--dtype f32|bf16] GFLOP/s
//! aot-bench native train [--steps 20] [--model mlp|encoder] MLP and encoder layer step, ms
//! aot-bench native overhead [--calls 200000]              µs per call of a tiny graph
//! ```
//!
//! Threads: `AOT_NUM_THREADS` (kernels and GEMM share one pool; default
//! every core). `AOT_PROFILE=1` adds each step's time when a function is
//! dropped. The PyTorch side of the comparisons is
//! `bench/pytorch/eager_step.py`.

use aot::ir::{parse_module, Context, ElemType, ParseOptions};
use aot::runtime::buffer::Buffer;
use aot::{Backend, Function, Module, Options, Tensor};
use std::time::Instant;

/// Compiles `text`'s entry for the convention of `args` (the embedding API).
fn compile_text(text: &str, pipeline: &str, backend: Backend, args: &[Tensor]) -> Result<Function, String> {
    let opts = Options { pipeline: pipeline.into(), backend, report: false, progress: false };
    Module::parse(text, "bench").and_then(|m| m.compile(None, args, &opts)).map_err(|e| e.to_string())
}

/// An f32 tensor filled with `f(i)`, built in its buffer directly.
fn f32_tensor(shape: &[i64], f: impl Fn(usize) -> f32) -> Tensor {
    let t = Tensor::zeros(ElemType::F32, shape, ElemType::F32);
    if let Buffer::F32(v) = &mut *t.storage().buf_mut() {
        v.iter_mut().enumerate().for_each(|(i, x)| *x = f(i));
    }
    t
}

fn threads() -> String {
    let k = std::env::var("AOT_NUM_THREADS").unwrap_or_else(|_| "all".into());
    format!("threads {k} (kernels and GEMM)")
}

/// The native backend `--backend` names (Cranelift by default).
fn backend(args: &[String]) -> Result<Backend, String> {
    match args.iter().position(|a| a == "--backend") {
        None => Ok(Backend::CRANELIFT),
        Some(i) => {
            let b = Backend::parse(args.get(i + 1).ok_or("--backend expects a name")?)?;
            if b == Backend::Interp {
                return Err("--backend names a native backend here (cranelift or llvm)".into());
            }
            Ok(b)
        }
    }
}

fn elementwise(args: &[String]) -> Result<(), String> {
    let backend = backend(args)?;
    let rows = crate::arg_usize(args, "--rows", 8192)?;
    let cols = crate::arg_usize(args, "--cols", 8192)?;
    let reps = crate::arg_usize(args, "--reps", 5)?;
    let t = format!("tensor<{rows}x{cols}xf32>");
    let v = format!("tensor<{cols}xf32>");
    let text = format!(
        "func.func @chain(%x: {t}, %w: {v}, %b: {v}) -> {t} {{
  %0 = tensor.mul %x, %w : {t}, {v} -> {t}
  %1 = tensor.add %0, %b : {t}, {v} -> {t}
  %2 = tensor.relu %1 : {t}
  %3 = tensor.mul %2, %2 : {t}
  %4 = tensor.sub %3, %x : {t}
  return %4 : {t}
}}
"
    );
    // The same chain written into a caller's buffer (a trailing copy_ the
    // graph keeps): no fresh output, so no page faults.
    let into = format!(
        "func.func @chain_into(%x: {t}, %w: {v}, %b: {v}, %out: {t}) {{
  %0 = tensor.mul %x, %w : {t}, {v} -> {t}
  %1 = tensor.add %0, %b : {t}, {v} -> {t}
  %2 = tensor.relu %1 : {t}
  %3 = tensor.mul %2, %2 : {t}
  %4 = tensor.sub %3, %x : {t}
  mut.copy_ %out, %4 : {t}, {t}
  return
}}
"
    );
    let n = rows * cols;
    let x = f32_tensor(&[rows as i64, cols as i64], |i| (i % 1000) as f32 * 0.001 - 0.5);
    let w = f32_tensor(&[cols as i64], |i| 1.0 + (i % 7) as f32 * 0.01);
    let b = f32_tensor(&[cols as i64], |i| (i % 5) as f32 * 0.01);
    let out = f32_tensor(&[rows as i64, cols as i64], |_| 0.0);
    let call_args = [x.clone(), w.clone(), b.clone()];
    let into_args = [x.clone(), w, b, out];
    let mut f = compile_text(&text, "aot-inference", backend, &call_args)?;
    let mut g = compile_text(&into, "aot-inference", backend, &into_args)?;
    f.call(&call_args).map_err(|e| e.to_string())?;
    g.call(&into_args).map_err(|e| e.to_string())?;
    let (t_chain, _) = crate::best_of(reps, || f.call(&call_args).map(|_| ()));
    let (t_into, _) = crate::best_of(reps, || g.call(&into_args).map(|_| ()));
    let bytes = 2.0 * (n * 4) as f64;
    // Copies of the same bytes: into a fresh buffer (what a call that
    // returns a new tensor pays) and into a buffer already touched.
    let src: Vec<f32> = vec![0.25; n];
    let (t_fresh, _) = crate::best_of(reps, || {
        let mut d: Vec<f32> = Vec::with_capacity(n);
        d.extend_from_slice(&src);
        d
    });
    let mut dst = vec![0f32; n];
    let (t_copy, _) = crate::best_of(reps, || dst.copy_from_slice(&src));
    // The same chain written in Rust (rustc/LLVM, baseline x86-64 SIMD):
    // what an ahead-of-time compiler makes of it.
    let (xs, ws, bs) = (vec![0.25f32; n], vec![1.01f32; cols], vec![0.02f32; cols]);
    let (t_rustc, _) = crate::best_of(reps, || {
        for (drow, xrow) in dst.chunks_exact_mut(cols).zip(xs.chunks_exact(cols)) {
            for (((d, &x), &w), &b) in drow.iter_mut().zip(xrow).zip(&ws).zip(&bs) {
                let r = (x * w + b).max(0.0);
                *d = r * r - x;
            }
        }
        std::hint::black_box(&dst);
    });
    println!(
        "elementwise: 5-op chain over {rows}x{cols} f32 ({} MB in, {} MB out), {}, {}",
        (n * 4) >> 20,
        (n * 4) >> 20,
        backend.name(),
        threads()
    );
    println!("{:<44} {:>10} {:>10}", "", "ms", "GB/s");
    for (name, t) in [
        ("fused chain into the caller's buffer", t_into),
        ("fused chain (compiled call, fresh output)", t_chain),
        ("copy into a fresh buffer (one thread)", t_fresh),
        ("copy into a touched buffer (one thread)", t_copy),
        ("the chain in Rust, rustc -O (one thread)", t_rustc),
    ] {
        println!("{name:<44} {:>10.1} {:>10.1}", t * 1e3, bytes / t / 1e9);
    }
    Ok(())
}

fn matmul(args: &[String]) -> Result<(), String> {
    let n = crate::arg_usize(args, "--n", 1024)?;
    let m = crate::arg_usize(args, "--m", n)?;
    let k = crate::arg_usize(args, "--k", n)?;
    let reps = crate::arg_usize(args, "--reps", 5)?;
    // `--linear`: `x @ w.T` with `w` stored [n, k], as `nn.Linear` keeps it.
    let linear = args.iter().any(|a| a == "--linear");
    let dtype = match args.iter().position(|a| a == "--dtype").map(|i| args.get(i + 1).map(String::as_str)) {
        None | Some(Some("f32")) => ElemType::F32,
        Some(Some("bf16")) => ElemType::BF16,
        _ => return Err("--dtype expects f32 or bf16".into()),
    };
    let (ta, tc) = (format!("tensor<{m}x{k}x{dtype}>"), format!("tensor<{m}x{n}x{dtype}>"));
    let (tb, op, bshape) = if linear {
        (format!("tensor<{n}x{k}x{dtype}>"), "tensor.linear", [n as i64, k as i64])
    } else {
        (format!("tensor<{k}x{n}x{dtype}>"), "tensor.mm", [k as i64, n as i64])
    };
    let text = format!(
        "func.func @mm(%a: {ta}, %b: {tb}) -> {tc} {{\n  %0 = {op} %a, %b : {ta}, {tb} -> {tc}\n  return %0 : {tc}\n}}\n"
    );
    let typed = |t: Tensor| {
        if dtype == ElemType::F32 {
            return t;
        }
        let out = Tensor::zeros(dtype, &t.sizes(), dtype);
        out.copy_values_from(&t);
        out
    };
    let a = typed(f32_tensor(&[m as i64, k as i64], |i| (i % 13) as f32 * 0.1));
    let b = typed(f32_tensor(&bshape, |i| (i % 7) as f32 * 0.1));
    let args2 = [a, b];
    let mut f = compile_text(&text, "aot-inference", Backend::CRANELIFT, &args2)?;
    f.call(&args2).map_err(|e| e.to_string())?;
    let (t, _) = crate::best_of(reps, || f.call(&args2).map(|_| ()));
    let shape = if linear { format!("{m}x{k} @ ({n}x{k})ᵀ") } else { format!("{m}x{k}x{n}") };
    let flops = 2.0 * m as f64 * k as f64 * n as f64;
    println!("matmul {shape} {dtype}, {}: {:.3} ms, {:.1} GFLOP/s", threads(), t * 1e3, flops / t / 1e9);
    Ok(())
}

/// Milliseconds per forward + backward step, best of `steps`.
pub fn train_step(text: &str, pipeline: &str, steps: usize, backend: Backend) -> Result<(f64, f64), String> {
    // Random example arguments for the function's signature.
    let mut ctx = Context::new();
    let m =
        parse_module(&mut ctx, text, &ParseOptions { file: "bench".into(), first_line: 1 }).map_err(|d| d.message)?;
    let f = aot::dialects::func::entry_func(&ctx, m, None)?.op;
    let spec = aot_run::random_inputs(&ctx, f, 1).map_err(|e| e.to_string())?;
    let params = aot_run::signature(&ctx, f).map_err(|e| e.to_string())?;
    let args = aot_run::materialize(&spec, &params, false).map_err(|e| e.to_string())?.args;
    let t0 = Instant::now();
    let mut function = compile_text(text, pipeline, backend, &args)?;
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut step = || -> Result<(), String> {
        let (_, state) = function.forward(&args).map_err(|e| e.to_string())?;
        function.backward(state, &[None]).map_err(|e| e.to_string())?;
        Ok(())
    };
    step()?;
    let mut best = f64::INFINITY;
    for _ in 0..steps {
        let t = Instant::now();
        step()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok((best * 1e3, compile_ms))
}

fn train(args: &[String]) -> Result<(), String> {
    let backend = backend(args)?;
    let steps = crate::arg_usize(args, "--steps", 20)?;
    let only = args.iter().position(|a| a == "--model").and_then(|i| args.get(i + 1)).map(String::as_str);
    let mlp =
        aot::models::mlp(&aot::models::Mlp { widths: vec![512, 1024, 1024, 10], batch: 256, dtype: ElemType::F32 });
    let enc = aot::models::transformer_encoder(&aot::models::Encoder {
        layers: 1,
        d_model: 256,
        heads: 4,
        ff: 1024,
        batch: 8,
        seq: 64,
        dropout: 0.1,
        dtype: ElemType::F32,
    });
    println!("training step (forward + backward), {}, {}, best of {steps}:", backend.name(), threads());
    for (key, name, text) in [
        ("mlp", "MLP 512-1024-1024-10, batch 256, MSE", mlp),
        ("encoder", "encoder layer d256 h4 ff1024, 8x64, dropout 0.1", enc),
    ] {
        if only.is_some_and(|o| o != key) {
            continue;
        }
        let (ms, compile_ms) = train_step(&text, "aot-train", steps, backend)?;
        println!("  {name:<52} {ms:>8.2} ms   (compile {compile_ms:.0} ms)");
    }
    Ok(())
}

fn overhead(args: &[String]) -> Result<(), String> {
    let calls = crate::arg_usize(args, "--calls", 200_000)?;
    let text = "func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
";
    let a = f32_tensor(&[4], |i| i as f32);
    let b = f32_tensor(&[4], |i| 2.0 * i as f32);
    let args2 = [a, b];
    println!("per-call cost of a 4-element add (guards, argument binding, the kernel, the output tensor):");
    for &(name, backend) in Backend::available().iter().filter(|(_, b)| b.runs_everything_here()) {
        let mut f = compile_text(text, "aot-inference", backend, &args2)?;
        for _ in 0..1000 {
            f.call(&args2).map_err(|e| e.to_string())?;
        }
        let (t, _) = crate::best_of(5, || {
            for _ in 0..calls {
                let _ = f.call(&args2);
            }
        });
        println!("  {name:<10} {:>8.3} µs per call", t / calls as f64 * 1e6);
    }
    Ok(())
}

pub fn run(args: &[String]) -> Result<(), String> {
    let rest = args.get(1..).unwrap_or(&[]);
    match args.first().map(String::as_str) {
        Some("elementwise") => elementwise(rest),
        Some("matmul") => matmul(rest),
        Some("train") => train(rest),
        Some("overhead") => overhead(rest),
        _ => Err("usage: aot-bench native <elementwise|matmul|train|overhead> [options]".into()),
    }
}
