//! Parse, verify and print throughput on a generated module of N ops.
//!
//! The module is one function whose body is a chain of `tensor.add` /
//! `tensor.mul` ops over a few live values, with a constant every 16 ops and
//! mixed shapes (broadcasting), so the parser sees realistic operand lists,
//! types and attributes.

use aot::ir::{parse_module, print_op, verify, Context, ParseOptions, PrintOptions};
use std::fmt::Write;

pub fn generate(n: usize) -> String {
    let mut s = String::with_capacity(n * 64);
    s.push_str("func.func @big(%a: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {\n");
    let mut last = "%a".to_string();
    for i in 0..n {
        if i % 16 == 0 {
            let _ = writeln!(s, "  %c{i} = tensor.constant dense<{}.5> : tensor<32xf32>", i % 7);
            let _ = writeln!(
                s,
                "  %v{i} = tensor.add {last}, %c{i} : tensor<16x32xf32>, tensor<32xf32> -> tensor<16x32xf32>"
            );
        } else if i % 3 == 0 {
            let _ =
                writeln!(s, "  %v{i} = tensor.mul {last}, %b : tensor<16x32xf32>, tensor<32xf32> -> tensor<16x32xf32>");
        } else {
            let _ = writeln!(s, "  %v{i} = tensor.add {last}, %a : tensor<16x32xf32>");
        }
        last = format!("%v{i}");
    }
    let _ = writeln!(s, "  return {last} : tensor<16x32xf32>\n}}");
    s
}

pub fn run(args: &[String]) -> Result<(), String> {
    let n = crate::arg_usize(args, "--ops", 100_000)?;
    let reps = crate::arg_usize(args, "--reps", 5)?;
    let text = generate(n);
    let ops = n + n / 16 + 3;
    let opts = ParseOptions { file: "bench.mlir".into(), first_line: 1 };
    let (t_parse, (ctx, m)) = crate::best_of(reps, || {
        let mut ctx = Context::new();
        let m = parse_module(&mut ctx, &text, &opts).expect("generated module parses");
        (ctx, m)
    });
    let (t_verify, ()) = crate::best_of(reps, || verify(&ctx, m).expect("generated module verifies"));
    let (t_print, printed) = crate::best_of(reps, || print_op(&ctx, m, PrintOptions::default()));
    let (t_generic, _) = crate::best_of(reps, || print_op(&ctx, m, PrintOptions { generic: true, debug_info: false }));
    let mb = text.len() as f64 / 1e6;
    println!("module: {ops} ops, {:.1} MB of text (best of {reps})", mb);
    println!("{:<14} {:>10} {:>14} {:>10}", "stage", "time (ms)", "ops/s", "MB/s");
    for (name, t, bytes) in [
        ("parse", t_parse, text.len()),
        ("verify", t_verify, 0),
        ("print", t_print, printed.len()),
        ("print-generic", t_generic, 0),
    ] {
        let mbs = if bytes > 0 { format!("{:.0}", bytes as f64 / 1e6 / t) } else { "-".into() };
        println!("{:<14} {:>10.2} {:>14.0} {:>10}", name, t * 1e3, ops as f64 / t, mbs);
    }
    Ok(())
}
