//! `functionalize,collect-metadata` on generated programs full of views and
//! mutations, at several sizes, to show the time grows linearly.
//!
//! Each block of the generated function takes a fresh intermediate, views
//! it three ways (slice, transpose, select), mutates through two of the
//! views, reads through the third, and also mutates the input through a
//! strided view and reads the input back — so every block exercises chain
//! replay, scatter-back, regeneration after a write and input write-back.

use aot::ir::{parse_module, Context, ParseOptions};
use std::fmt::Write;

fn generate(blocks: usize) -> (String, usize) {
    let mut s = String::new();
    s.push_str("func.func @f(%x: tensor<8x8xf32>, %y: tensor<8xf32>) -> tensor<8x8xf32> {\n");
    let mut ops = 0;
    let mut acc = "%x".to_string();
    for b in 0..blocks {
        let _ = writeln!(s, "  %m{b} = tensor.mul {acc}, %x : tensor<8x8xf32>");
        let _ = writeln!(
            s,
            "  %s{b} = view.slice %m{b} {{dim = 0, start = 2, end = 6}} : tensor<8x8xf32> -> tensor<4x8xf32>"
        );
        let _ =
            writeln!(s, "  %t{b} = view.transpose %m{b} {{dim0 = 0, dim1 = 1}} : tensor<8x8xf32> -> tensor<8x8xf32>");
        let _ = writeln!(s, "  %r{b} = view.select %t{b} {{dim = 0, index = 3}} : tensor<8x8xf32> -> tensor<8xf32>");
        let _ = writeln!(s, "  mut.add_ %s{b}, %y : tensor<4x8xf32>, tensor<8xf32>");
        let _ = writeln!(s, "  mut.mul_ %r{b}, %y : tensor<8xf32>");
        let _ = writeln!(
            s,
            "  %xs{b} = view.slice %x {{dim = 1, start = 0, end = 8, step = 2}} : tensor<8x8xf32> -> tensor<8x4xf32>"
        );
        let _ = writeln!(s, "  %c{b} = tensor.constant dense<0.5> : tensor<8x4xf32>");
        let _ = writeln!(s, "  mut.add_ %xs{b}, %c{b} : tensor<8x4xf32>");
        let _ = writeln!(s, "  %a{b} = tensor.add %m{b}, %x : tensor<8x8xf32>");
        acc = format!("%a{b}");
        ops += 10;
    }
    let _ = writeln!(s, "  return {acc} : tensor<8x8xf32>\n}}");
    (s, ops + 1)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let reps = crate::arg_usize(args, "--reps", 3)?;
    let max = crate::arg_usize(args, "--ops", 10_000)?;
    println!("{:>8} {:>12} {:>12} {:>14}", "ops", "time (ms)", "ops out", "µs per op");
    for n in [max / 8, max / 4, max / 2, max, max * 2] {
        let (text, ops) = generate(n / 10);
        let (t, out_ops) = crate::best_of(reps, || {
            let mut ctx = Context::new();
            let m = parse_module(&mut ctx, &text, &ParseOptions { file: "gen".into(), first_line: 1 }).expect("parses");
            let mut pm = aot::ir::pass::PassManager::parse("builtin.module(func.func(functionalize,collect-metadata))")
                .expect("pipeline");
            pm.options.verify_each = false;
            let t0 = std::time::Instant::now();
            pm.run(&mut ctx, m, &mut std::io::sink()).expect("pipeline runs");
            let dt = t0.elapsed();
            let mut count = 0;
            ctx.walk_pre(m, &mut |_| count += 1);
            (dt, count)
        });
        let _ = t;
        let (dt, out_ops) = out_ops;
        println!(
            "{:>8} {:>12.2} {:>12} {:>14.2}",
            ops,
            dt.as_secs_f64() * 1e3,
            out_ops,
            dt.as_secs_f64() * 1e6 / ops as f64
        );
    }
    Ok(())
}
