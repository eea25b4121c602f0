//! `simplify` on and off, side by side in one run: what the e-graph pass
//! changes in the training graphs of the 12-layer encoder and the MLP
//! (ops after `joint` and after `partition`, the values and bytes saved
//! for the backward), what it costs at compile time, and the native
//! training step with and without it.
//!
//! "Without" is `aot-train` with the two `simplify` passes left out; the
//! partition is the default one in both columns.

use crate::native::train_step;
use crate::train::{compile_time, count_ops, joint_ops, measure, parse, PREFIX, PREFIX_WITHOUT_SIMPLIFY};
use aot::compile::Backend;
use aot::ir::pass::PassManager;
use aot::ir::ElemType;
use aot::models::{mlp, transformer_encoder, Encoder, Mlp};

/// Ops after the whole pipeline (forward + backward), and the pipeline's
/// `simplify` statistics (ops and modelled cost before/after, summed over
/// both runs), if it ran.
fn partitioned(text: &str, prefix: &str) -> Result<(usize, Option<[u64; 4]>), String> {
    let (mut ctx, m) = parse(text)?;
    let mut pm =
        PassManager::parse(&format!("builtin.module(func.func({prefix}),partition)")).map_err(|e| e.to_string())?;
    pm.run(&mut ctx, m, &mut std::io::sink()).map_err(|f| f.diagnostics[0].message.clone())?;
    let stat = |s: &str| pm.statistic("simplify", s);
    let stats = match (stat("ops-before"), stat("ops-after"), stat("cost-before"), stat("cost-after")) {
        (Some(a), Some(b), Some(c), Some(d)) => Some([a, b, c, d]),
        _ => None,
    };
    Ok((count_ops(&ctx, m), stats))
}

pub fn run(args: &[String]) -> Result<(), String> {
    let reps = crate::arg_usize(args, "--reps", 10)?;
    if args.iter().any(|a| a == "--compile-only") {
        // The compile-time configuration of `aot-bench train` (batch 2,
        // sequence 16; shapes do not change compile time).
        let text = transformer_encoder(&Encoder {
            layers: 12,
            d_model: 256,
            heads: 4,
            ff: 1024,
            batch: 2,
            seq: 16,
            dropout: 0.1,
            dtype: ElemType::F32,
        });
        for round in 0..3 {
            let off = compile_time(&text, PREFIX_WITHOUT_SIMPLIFY, "partition", reps)?.0 * 1e3;
            let on = compile_time(&text, PREFIX, "partition", reps)?.0 * 1e3;
            println!("round {round}: aot-train on the 12-layer encoder, best of {reps}: {off:.2} ms without simplify, {on:.2} ms with ({:.2}x)", on / off);
        }
        return Ok(());
    }
    let steps = crate::arg_usize(args, "--steps", 20)?;
    let without = format!("builtin.module(func.func({PREFIX_WITHOUT_SIMPLIFY}),partition)");
    let with = format!("builtin.module(func.func({PREFIX}),partition)");
    let encoder12 = |batch, seq| Encoder {
        layers: 12,
        d_model: 256,
        heads: 4,
        ff: 1024,
        batch,
        seq,
        dropout: 0.1,
        dtype: ElemType::F32,
    };
    let mlp_text = mlp(&Mlp { widths: vec![512, 1024, 1024, 10], batch: 256, dtype: ElemType::F32 });
    let models = [
        ("encoder, 12 layers (8x64)", transformer_encoder(&encoder12(8, 64))),
        ("MLP 512-1024-1024-10 (batch 256)", mlp_text.clone()),
    ];
    println!("simplify off | on (default partition)\n");
    println!(
        "{:<34} {:>15} {:>15} {:>15} {:>25} {:>17}",
        "model", "ops after joint", "ops fw+bw", "saved values", "saved bytes", "compile (ms)"
    );
    for (name, text) in &models {
        let j = [joint_ops(text, PREFIX_WITHOUT_SIMPLIFY)?, joint_ops(text, PREFIX)?];
        let p = [partitioned(text, PREFIX_WITHOUT_SIMPLIFY)?, partitioned(text, PREFIX)?];
        let s = [measure(text, PREFIX_WITHOUT_SIMPLIFY, "partition")?, measure(text, PREFIX, "partition")?];
        let c = [
            compile_time(text, PREFIX_WITHOUT_SIMPLIFY, "partition", reps)?.0 * 1e3,
            compile_time(text, PREFIX, "partition", reps)?.0 * 1e3,
        ];
        println!(
            "{name:<34} {:>7} | {:>5} {:>7} | {:>5} {:>7} | {:>5} {:>12} | {:>10} {:>8.2} | {:>6.2}",
            j[0],
            j[1],
            p[0].0,
            p[1].0,
            s[0].info.num_saved,
            s[1].info.num_saved,
            s[0].info.saved_bytes,
            s[1].info.saved_bytes,
            c[0],
            c[1]
        );
        if let Some([ob, oa, cb, ca]) = p[1].1 {
            println!("{:<34} simplify: pure ops {ob} -> {oa}, modelled cost {cb} -> {ca}", "");
        }
    }
    let layer = transformer_encoder(&Encoder { layers: 1, ..encoder12(8, 64) });
    println!("\nnative training step (forward + backward), cranelift, best of {steps}: off | on (ms)");
    for (name, text) in [("MLP 512-1024-1024-10, batch 256", &mlp_text), ("encoder layer d256 h4 ff1024, 8x64", &layer)]
    {
        let off = train_step(text, &without, steps, Backend::CRANELIFT)?;
        let on = train_step(text, &with, steps, Backend::CRANELIFT)?;
        println!("  {name:<40} {:>8.2} | {:>8.2}", off.0, on.0);
    }
    Ok(())
}
