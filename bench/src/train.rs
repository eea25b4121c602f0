//! `aot-train` on a generated transformer encoder: compile time, and what
//! each partition strategy saves, models and actually uses.
//!
//! The model is `layers` post-norm encoder layers as
//! `nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.1,
//! activation="gelu", batch_first=True)` builds them (packed q/k/v
//! projection, scaled dot-product attention, dropout on the attention
//! weights and after each block, residuals, layer_norm), then an MSE loss;
//! the same program `test/run/models/transformer_encoder_layer_dropout.mlir`
//! holds for one small layer, where its gradients are checked. Every weight
//! requires grad.
//!
//! Compile time is parse + verify + the whole `aot-train` pipeline
//! (functionalize ... joint, partition) with verification between passes
//! off, best of `reps`. For each strategy the table gives the values saved
//! for the backward, the bytes of storage they keep alive (arguments
//! excluded), the partitioner's modelled peak, and the measured peak: the
//! most bytes of tensor storage alive at once while the compiled forward and
//! backward run on the interpreter (arguments included, as in the model).

use aot::compile::{Backend, CompileOptions};
use aot::ir::pass::PassManager;
use aot::ir::{parse_module, verify, Context, ParseOptions, SourceMgr};
use aot::models::{transformer_encoder, Encoder};
use aot::passes::partition::PartitionInfo;
use aot::runtime::tensor::{memory, Tensor};
use std::sync::Arc;

pub fn count_ops(ctx: &Context, module: aot::ir::Op) -> usize {
    let mut n = 0;
    ctx.walk_pre(module, &mut |_| n += 1);
    n
}

pub fn parse(text: &str) -> Result<(Context, aot::ir::Op), String> {
    let mut ctx = Context::new();
    let m =
        parse_module(&mut ctx, text, &ParseOptions { file: "encoder".into(), first_line: 1 }).map_err(|d| d.message)?;
    verify(&ctx, m).map_err(|d| d[0].message.clone())?;
    Ok((ctx, m))
}

/// `aot-train` up to the partition, as the named pipeline runs it.
pub const PREFIX: &str =
    "functionalize,simplify,collect-metadata,dedupe,synthetic-base{training=true},rng-functionalize,joint,simplify";
/// The same without `simplify`.
pub const PREFIX_WITHOUT_SIMPLIFY: &str =
    "functionalize,collect-metadata,dedupe,synthetic-base{training=true},rng-functionalize,joint";

/// Parse + verify + pipeline, timed; returns (seconds, ops after).
pub fn compile_time(text: &str, prefix: &str, partition: &str, reps: usize) -> Result<(f64, usize), String> {
    let pipeline = format!("builtin.module(func.func({prefix}),{partition})");
    let mut err = None;
    let (t, n) = crate::best_of(reps, || {
        let r = (|| -> Result<usize, String> {
            let (mut ctx, m) = parse(text)?;
            let mut pm = PassManager::parse(&pipeline).map_err(|e| e.to_string())?;
            pm.options.verify_each = false;
            pm.run(&mut ctx, m, &mut std::io::sink()).map_err(|f| f.diagnostics[0].message.clone())?;
            Ok(count_ops(&ctx, m))
        })();
        match r {
            Ok(n) => n,
            Err(e) => {
                err = Some(e);
                0
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok((t, n)),
    }
}

/// Ops in the joint function (before partition).
pub fn joint_ops(text: &str, prefix: &str) -> Result<usize, String> {
    let (mut ctx, m) = parse(text)?;
    let mut pm = PassManager::parse(&format!("builtin.module(func.func({prefix}))")).map_err(|e| e.to_string())?;
    pm.run(&mut ctx, m, &mut std::io::sink()).map_err(|f| f.diagnostics[0].message.clone())?;
    Ok(count_ops(&ctx, m))
}

pub struct Measured {
    pub info: PartitionInfo,
    pub measured_peak: u64,
    pub seconds: f64,
}

/// Compiles with `partition`, runs forward + backward once on the
/// interpreter and measures the peak of live storage bytes.
pub fn measure(text: &str, prefix: &str, partition: &str) -> Result<Measured, String> {
    let (mut ctx, m) = parse(text)?;
    let func = aot::dialects::func::entry_func(&ctx, m, None)?.op;
    let entry = ctx.attr_str(func, "sym_name").ok_or("the entry function has no name")?.to_string();
    let spec = aot_run::random_inputs(&ctx, func, 1).map_err(|e| e.to_string())?;
    let params = aot_run::signature(&ctx, func).map_err(|e| e.to_string())?;
    spec.convention(&ctx, func)?.apply(&mut aot::ir::Rewriter::new(&mut ctx), func)?;
    let mut sources = SourceMgr::new();
    sources.add("encoder", Arc::from(text));
    let opts = CompileOptions {
        pipeline: format!("builtin.module(func.func({prefix}),{partition})"),
        backend: Backend::Interp,
        keep_ir: true,
        progress: false,
    };
    let compiled = aot::compile::compile(ctx, &sources, m, func, &opts)?;
    let info = {
        // The partition's record, read back from the compiled module.
        let ir = compiled.ir.as_deref().ok_or("no IR kept")?;
        let (ctx2, m2) = parse(ir)?;
        let f2 = aot::dialects::func::entry_func(&ctx2, m2, Some(&entry))?.op;
        PartitionInfo::of_func(&ctx2, f2)?.ok_or("no aot.partition on the forward")?
    };
    let mut function = compiled.function;
    let args = aot_run::materialize(&spec, &params, false).map_err(|e| e.to_string())?.args;
    memory::reset_peak();
    let t0 = std::time::Instant::now();
    let (outputs, state) = function.forward(&args).map_err(|e| format!("{e:?}"))?;
    let tangent = Tensor::from_f64(outputs[0].dtype(), &[], &[1.0], outputs[0].dtype());
    let grads = function.backward(state, &[Some(tangent)], &[], false).map_err(|e| format!("{e:?}"))?;
    let seconds = t0.elapsed().as_secs_f64();
    drop((outputs, grads));
    Ok(Measured { info, measured_peak: memory::peak_bytes(), seconds })
}

pub fn run(args: &[String]) -> Result<(), String> {
    let z = Encoder {
        layers: crate::arg_usize(args, "--layers", 12)?,
        d_model: crate::arg_usize(args, "--d-model", 256)?,
        heads: crate::arg_usize(args, "--heads", 4)?,
        ff: crate::arg_usize(args, "--ff", 1024)?,
        batch: crate::arg_usize(args, "--batch", 2)?,
        seq: crate::arg_usize(args, "--seq", 16)?,
        dropout: 0.1,
        dtype: aot::ir::ElemType::F32,
    };
    let reps = crate::arg_usize(args, "--reps", 5)?;
    if z.heads == 0 || !z.d_model.is_multiple_of(z.heads) {
        return Err("--d-model must be a multiple of --heads".into());
    }
    let text = transformer_encoder(&z);
    if let Some(i) = args.iter().position(|a| a == "--emit") {
        let path = args.get(i + 1).ok_or("--emit expects a file")?;
        std::fs::write(path, &text).map_err(|e| format!("{path}: {e}"))?;
    }
    let (ctx, m) = parse(&text)?;
    let input_ops = count_ops(&ctx, m);
    let joint = joint_ops(&text, PREFIX)?;
    println!(
        "encoder: {} layers, d_model {}, {} heads, ff {}, batch {}, seq {}: {} ops, {} after joint",
        z.layers, z.d_model, z.heads, z.ff, z.batch, z.seq, input_ops, joint
    );
    println!("\ncompile (parse + verify + aot-train), best of {reps}:");
    for partition in ["partition", "partition{strategy=min-cut}"] {
        let (t, n) = compile_time(&text, PREFIX, partition, reps)?;
        println!("  {partition:<32} {:>8.1} ms  ({n} ops out)", t * 1e3);
    }
    println!(
        "\n{:<40} {:>6} {:>12} {:>14} {:>14} {:>10}",
        "strategy", "saved", "saved bytes", "modelled peak", "measured peak", "fw+bw (s)"
    );
    let mut budget_peaks = Vec::new();
    for (label, partition) in [
        ("default", "partition"),
        ("min-cut", "partition{strategy=min-cut}"),
        ("min-cut, memory-budget 0.75", "partition{strategy=min-cut memory-budget=0.75}"),
        ("min-cut, memory-budget 0.5", "partition{strategy=min-cut memory-budget=0.5}"),
        ("min-cut, memory-budget 0.25", "partition{strategy=min-cut memory-budget=0.25}"),
        ("min-cut, memory-budget 0", "partition{strategy=min-cut memory-budget=0}"),
    ] {
        let r = measure(&text, PREFIX, partition)?;
        println!(
            "{label:<40} {:>6} {:>12} {:>14} {:>14} {:>10.2}",
            r.info.num_saved, r.info.saved_bytes, r.info.peak_bytes, r.measured_peak, r.seconds
        );
        if partition.contains("min-cut") {
            budget_peaks.push((label, r.info.peak_bytes, r.measured_peak));
        }
    }
    // min-cut (budget 1) first, then decreasing budgets: peaks must not grow.
    for w in budget_peaks.windows(2) {
        if w[1].1 > w[0].1 || w[1].2 > w[0].2 {
            println!("note: {} has a larger peak than {}", w[1].0, w[0].0);
        }
    }
    Ok(())
}
