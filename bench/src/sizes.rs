//! Symbolic sizes in native code: one compile whose kernels read their
//! sizes at run time (`target::Options::runtime_sizes`), against code
//! generated per set of sizes (`codegen::by_size`), on an elementwise
//! chain over `s0 × s1` with a broadcast row, and on an MLP block over
//! `s0` rows (two linear layers, GELU, layer norm, softmax).
//!
//! ```text
//! aot-bench sizes [--sizes 16] [--rows 512 --cols 1024] [--calls 200]
//! ```
//!
//! "sweep" is one call at each of `--sizes` new sizes (what a
//! variable-length loop pays until it has seen every size: per-size code
//! generates code at each); "steady" is the best time of one call at
//! `--rows × --cols` after the sweep, each the best of three rounds of
//! `--calls` calls.

use crate::{arg_usize, best_of};
use aot::codegen::by_size::BySize;
use aot::ir::{parse_module, Context, ElemType, ParseOptions};
use aot::runtime::compiled::Executable;
use aot::runtime::Tensor;
use std::time::Instant;

const CHAIN: &str = r#"func.func @f(%x: tensor<s0xs1xf32>, %b: tensor<s1xf32>) -> tensor<s0xs1xf32> {
  %0 = tensor.add %x, %b : tensor<s0xs1xf32>, tensor<s1xf32> -> tensor<s0xs1xf32>
  %1 = tensor.sigmoid %0 : tensor<s0xs1xf32>
  %2 = tensor.mul %0, %1 : tensor<s0xs1xf32>, tensor<s0xs1xf32> -> tensor<s0xs1xf32>
  %3 = tensor.mul %2, %x : tensor<s0xs1xf32>, tensor<s0xs1xf32> -> tensor<s0xs1xf32>
  return %3 : tensor<s0xs1xf32>
}"#;

const MLP: &str = r#"func.func @f(%x: tensor<s0x256xf32>, %w1: tensor<512x256xf32>, %b1: tensor<512xf32>, %w2: tensor<256x512xf32>) -> tensor<s0x256xf32> {
  %h = tensor.linear %x, %w1, %b1 : tensor<s0x256xf32>, tensor<512x256xf32>, tensor<512xf32> -> tensor<s0x512xf32>
  %g = tensor.gelu %h : tensor<s0x512xf32>
  %n:3 = tensor.layer_norm %g {normalized_ndim = 1, eps = 1.0e-5} : tensor<s0x512xf32> -> (tensor<s0x512xf32>, tensor<s0x1xf32>, tensor<s0x1xf32>)
  %o = tensor.linear %n#0, %w2 : tensor<s0x512xf32>, tensor<256x512xf32> -> tensor<s0x256xf32>
  %s = tensor.softmax %o {dim = 1} : tensor<s0x256xf32> -> tensor<s0x256xf32>
  return %s : tensor<s0x256xf32>
}"#;

fn compile(text: &str, runtime_sizes: bool) -> Result<BySize, String> {
    let mut ctx = Context::new();
    let m =
        parse_module(&mut ctx, text, &ParseOptions { file: "sizes".into(), first_line: 1 }).map_err(|d| d.message)?;
    let f = aot::dialects::func::entry_func(&ctx, m, None)?.op;
    let options = aot::codegen::target::Options { runtime_sizes, ..Default::default() };
    let native = aot::codegen::Native::named("cranelift", options)?;
    BySize::new(&ctx, f, native)
}

fn filled(shape: &[i64], seed: i64) -> Tensor {
    let n: i64 = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (((i + seed) % 17) as f64 - 8.0) * 0.0625).collect();
    Tensor::from_f64(ElemType::F32, shape, &v, ElemType::F32)
}

fn chain_args(rows: i64, cols: i64) -> Vec<Tensor> {
    vec![filled(&[rows, cols], 0), filled(&[cols], 1)]
}

fn mlp_args(rows: i64, _: i64) -> Vec<Tensor> {
    vec![filled(&[rows, 256], 0), filled(&[512, 256], 1), filled(&[512], 2), filled(&[256, 512], 3)]
}

pub fn run(rest: &[String]) -> Result<(), String> {
    let sizes = arg_usize(rest, "--sizes", 16)?.max(1) as i64;
    let rows = arg_usize(rest, "--rows", 512)? as i64;
    let cols = arg_usize(rest, "--cols", 1024)? as i64;
    let calls = arg_usize(rest, "--calls", 200)?.max(1);
    println!("cranelift; steady calls at {rows} rows ({cols} columns for the chain)");
    println!("| program | code | sweep of {sizes} new sizes (ms) | per new size (ms) | steady call (us) |");
    println!("|---|---|---:|---:|---:|");
    type Args = fn(i64, i64) -> Vec<Tensor>;
    let programs: [(&str, &str, Args); 2] = [("chain", CHAIN, chain_args), ("mlp block", MLP, mlp_args)];
    for (program, text, args) in programs {
        let mut outputs = Vec::new();
        for (name, runtime_sizes) in [("per size", false), ("run-time sizes", true)] {
            let mut exe = compile(text, runtime_sizes)?;
            let t0 = Instant::now();
            for k in 0..sizes {
                exe.run(args(2 + k, 3 + 5 * k))?;
            }
            let sweep = t0.elapsed().as_secs_f64() * 1e3;
            if runtime_sizes && !exe.runs_with_runtime_sizes() {
                return Err(format!("{program}: not compiled with run-time sizes: {:?}", exe.runtime_sizes_refused()));
            }
            let a = args(rows, cols);
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let (t, _) = best_of(1, || {
                    for _ in 0..calls {
                        exe.run(a.clone()).expect("a call");
                    }
                });
                best = best.min(t / calls as f64);
            }
            outputs.push(exe.run(a.clone())?.remove(0).read_f64());
            println!("| {program} | {name} | {sweep:.1} | {:.2} | {:.1} |", sweep / sizes as f64, best * 1e6);
        }
        if outputs[0] != outputs[1] {
            return Err(format!("{program}: the two codes disagree"));
        }
    }
    Ok(())
}
