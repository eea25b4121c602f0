//! Symbolic sizes in native code: one compile whose kernels read their
//! sizes at run time (`target::Options::runtime_sizes`), against code
//! generated per set of sizes (`codegen::by_size`), on an elementwise
//! chain over `s0 × s1` with a broadcast row.
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

fn compile(runtime_sizes: bool) -> Result<BySize, String> {
    let mut ctx = Context::new();
    let m =
        parse_module(&mut ctx, CHAIN, &ParseOptions { file: "sizes".into(), first_line: 1 }).map_err(|d| d.message)?;
    let f = aot::dialects::func::entry_func(&ctx, m, None)?.op;
    let options = aot::codegen::target::Options { runtime_sizes, ..Default::default() };
    let native = aot::codegen::Native::named("cranelift", options)?;
    BySize::new(&ctx, f, native)
}

fn args(rows: i64, cols: i64) -> Vec<Tensor> {
    let x: Vec<f64> = (0..rows * cols).map(|i| ((i % 17) as f64 - 8.0) * 0.125).collect();
    let b: Vec<f64> = (0..cols).map(|j| (j % 5) as f64 * 0.25).collect();
    vec![
        Tensor::from_f64(ElemType::F32, &[rows, cols], &x, ElemType::F32),
        Tensor::from_f64(ElemType::F32, &[cols], &b, ElemType::F32),
    ]
}

pub fn run(rest: &[String]) -> Result<(), String> {
    let sizes = arg_usize(rest, "--sizes", 16)?.max(1) as i64;
    let rows = arg_usize(rest, "--rows", 512)? as i64;
    let cols = arg_usize(rest, "--cols", 1024)? as i64;
    let calls = arg_usize(rest, "--calls", 200)?.max(1);
    println!("elementwise chain over s0 x s1 (add of a row, sigmoid, two products), cranelift");
    println!("| code | sweep of {sizes} new sizes (ms) | per new size (ms) | steady call at {rows}x{cols} (us) |");
    println!("|---|---:|---:|---:|");
    let mut outputs = Vec::new();
    for (name, runtime_sizes) in [("per size", false), ("run-time sizes", true)] {
        let mut exe = compile(runtime_sizes)?;
        let t0 = Instant::now();
        for k in 0..sizes {
            exe.run(args(2 + k % 7, 3 + 5 * k))?;
        }
        let sweep = t0.elapsed().as_secs_f64() * 1e3;
        if runtime_sizes && !exe.runs_with_runtime_sizes() {
            return Err(format!("not compiled with run-time sizes: {:?}", exe.runtime_sizes_refused()));
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
        println!("| {name} | {sweep:.1} | {:.2} | {:.1} |", sweep / sizes as f64, best * 1e6);
    }
    if outputs[0] != outputs[1] {
        return Err("the two codes disagree".into());
    }
    Ok(())
}
