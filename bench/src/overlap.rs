//! The overlap check for aliased inputs at scale: AOTAutograd tests every
//! pair (`compute_overlapping_inputs`, capped at 5 aliased inputs with
//! dynamic shapes because of it); `aot_runtime::overlap::overlap_groups`
//! sweeps by address instead. Three layouts of n views of one storage:
//!
//! - `chunks`: disjoint contiguous chunks (false aliasing everywhere);
//! - `columns`: one column each of an n-column matrix (perfectly
//!   interleaved: every address range intersects every other);
//! - `windows`: sliding windows, each overlapping the next (one group).
//!
//! Then the same at the two places that use it: the `synthetic-base` pass
//! on a function with n aliased arguments (one mutated), and the runtime
//! guard that checks, at every call, that mutated arguments do not overlap
//! arguments compiled as independent.

use aot::ir::{parse_module, Context, ParseOptions};
use aot::runtime::overlap::{overlap_groups, overlap_groups_all_pairs, View};
use std::fmt::Write;

fn layout(kind: &str, n: usize) -> Vec<View> {
    let n = n as i64;
    (0..n)
        .map(|i| match kind {
            "chunks" => View::new(&[16], &[1], 16 * i),
            "columns" => View::new(&[8, 1], &[n, 1], i),
            _ => View::new(&[16], &[1], 8 * i),
        })
        .collect()
}

fn ms(s: f64) -> f64 {
    s * 1e3
}

fn grouping(reps: usize, max: usize) {
    println!("overlap grouping of n views of one storage");
    println!(
        "{:>8} {:>8} {:>12} {:>14} {:>14} {:>16}",
        "layout", "n", "groups", "sweep (ms)", "pairs swept", "all pairs (ms)"
    );
    for kind in ["chunks", "columns", "windows"] {
        for n in [max / 8, max / 4, max / 2, max] {
            let views = layout(kind, n);
            let (t_sweep, (groups, stats)) = crate::best_of(reps, || overlap_groups(&views));
            let (t_all, reference) = crate::best_of(1, || overlap_groups_all_pairs(&views));
            assert_eq!(groups, reference, "the sweep must group exactly as all pairs do");
            println!(
                "{:>8} {:>8} {:>12} {:>14.3} {:>14} {:>16.1}",
                kind,
                n,
                groups.len(),
                ms(t_sweep),
                stats.pairs_tested,
                ms(t_all)
            );
        }
    }
}

/// A function with `n` aliased 16-element arguments of one storage laid
/// out as `kind`; the first is mutated.
fn aliased_function(kind: &str, n: usize) -> String {
    let step = if kind == "chunks" { 16 } else { 8 };
    let mut s = String::from("func.func @f(");
    for i in 0..n {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(
            s,
            "%a{i}: tensor<16xf32> {{aot.layout = #aot.layout<storage = 0, offset = {}, strides = [1]>}}",
            step * i
        );
    }
    s.push_str(") -> tensor<16xf32> {\n  mut.neg_ %a0 : tensor<16xf32>\n");
    let _ = writeln!(s, "  %r = tensor.add %a1, %a{} : tensor<16xf32>\n  return %r : tensor<16xf32>\n}}", n - 1);
    s
}

fn pass(reps: usize, max: usize) -> Result<(), String> {
    println!("\nfunctionalize,collect-metadata,dedupe,synthetic-base on n aliased arguments (one mutated)");
    println!("{:>8} {:>8} {:>14} {:>12} {:>12}", "layout", "n", "time (ms)", "bases", "args after");
    for kind in ["chunks", "windows"] {
        for n in [max / 8, max / 4, max / 2, max] {
            let text = aliased_function(kind, n);
            let (t, (bases, args)) = crate::best_of(reps, || {
                let mut ctx = Context::new();
                let m =
                    parse_module(&mut ctx, &text, &ParseOptions { file: "gen".into(), first_line: 1 }).expect("parses");
                let mut pm = aot::ir::pass::PassManager::parse(
                    "builtin.module(func.func(functionalize,collect-metadata,dedupe,synthetic-base))",
                )
                .expect("pipeline");
                pm.options.verify_each = false;
                pm.run(&mut ctx, m, &mut std::io::sink()).expect("pipeline runs");
                let f = aot::dialects::func::entry_func(&ctx, m, None).expect("one function");
                let bases = ctx.get_attr(f.op, "aot.synthetic_base").is_some() as usize;
                (bases, f.num_args(&ctx))
            });
            println!("{:>8} {:>8} {:>14.1} {:>12} {:>12}", kind, n, ms(t), bases, args);
        }
    }
    Ok(())
}

fn guard(reps: usize, max: usize) {
    use aot::ir::ElemType;
    use aot::runtime::compiled::{ArgGuard, Guards};
    use aot::runtime::tensor::Storage;
    use aot::runtime::{Buffer, Tensor};
    println!("\nruntime guard: n disjoint views of one storage, compiled as independent arguments, the first mutated");
    println!("{:>8} {:>16}", "n", "check (µs)");
    for n in [max / 8, max / 4, max / 2, max] {
        let storage = Storage::new(Buffer::zeros(ElemType::F32, 16 * n));
        let args: Vec<Tensor> = (0..n)
            .map(|i| {
                Tensor::from_parts(
                    storage.clone(),
                    ElemType::F32,
                    aot::ir::Shape::from_slice(&[16]),
                    aot::ir::Shape::from_slice(&[1]),
                    16 * i as i64,
                )
                .expect("in bounds")
            })
            .collect();
        let guards = Guards {
            symbols: None,
            args: (0..n)
                .map(|i| ArgGuard {
                    dtype: ElemType::F32,
                    size: aot::ir::Shape::from_slice(&[16]),
                    stride: aot::ir::Shape::from_slice(&[1]),
                    offset: 16 * i as i64,
                    requires_grad: false,
                    is_leaf: true,
                    storage_len: None,
                })
                .collect(),
            same_object: Vec::new(),
            shared_storage: Vec::new(),
            storage_class: (0..n).collect(),
            mutated: (0..n).map(|i| i == 0).collect(),
        };
        let (t, r) = crate::best_of(reps, || guards.check(&args));
        r.expect("disjoint views pass");
        println!("{:>8} {:>16.1}", n, t * 1e6);
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let reps = crate::arg_usize(args, "--reps", 5)?;
    let max = crate::arg_usize(args, "--n", 10_000)?;
    grouping(reps, max);
    pass(reps.min(3), max)?;
    guard(reps, max);
    Ok(())
}
