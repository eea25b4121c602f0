//! `partition{memory-budget=F}` against the runtime's own measurement: on a
//! generated transformer encoder, a larger budget never gives a larger
//! modelled peak nor a larger measured peak (bytes of tensor storage alive
//! at once while the compiled forward and backward run), and the model
//! predicts the measurement. This binary holds a single test, so no other
//! thread allocates tensors while it measures.

use aot::compile::{annotate_convention, compile, Backend, CompileOptions};
use aot::ir::{parse_module, verify, Context, ElemType, ParseOptions, Rewriter, SourceMgr};
use aot::models::{transformer_encoder, Encoder};
use aot::passes::partition::PartitionInfo;
use aot::runtime::tensor::{memory, Tensor};
use std::sync::Arc;

const PREFIX: &str = "functionalize,collect-metadata,dedupe,synthetic-base{training=true},rng-functionalize,joint";

/// (modelled peak, measured peak) for one partition.
fn peaks(text: &str, partition: &str) -> (u64, u64) {
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: "encoder".into(), first_line: 1 }).expect("parses");
    verify(&ctx, m).expect("verifies");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    let spec = aot::run::random_inputs(&ctx, f, 3).expect("inputs");
    let params = aot::run::signature(&ctx, f).expect("signature");
    annotate_convention(&mut Rewriter::new(&mut ctx), f, &spec).expect("convention");
    let mut sources = SourceMgr::new();
    sources.add("encoder", Arc::from(text));
    let opts = CompileOptions {
        pipeline: format!("builtin.module(func.func({PREFIX}),{partition})"),
        backend: Backend::Interp,
        keep_ir: true,
        compile_for: None,
    };
    let compiled = compile(ctx, &sources, m, f, &opts).expect("compiles");
    let ir = compiled.ir.clone().expect("kept IR");
    let mut c2 = Context::new();
    let m2 = parse_module(&mut c2, &ir, &ParseOptions { file: "out".into(), first_line: 1 }).expect("reparses");
    let f2 = aot::dialects::func::entry_func(&c2, m2, Some("encoder")).expect("forward").op;
    let info = PartitionInfo::of_func(&c2, f2).expect("well-formed").expect("aot.partition");
    let mut function = compiled.function;
    let args = aot::run::materialize(&spec, &params, false).expect("args").args;
    memory::reset_peak();
    let (outputs, state) = function.forward(&args).expect("forward");
    let tangent = Tensor::from_f64(outputs[0].dtype(), &[], &[1.0], outputs[0].dtype());
    let grads = function.backward(state, &[Some(tangent)], &[], false).expect("backward");
    let measured = memory::peak_bytes();
    drop((outputs, grads));
    (info.peak_bytes, measured)
}

#[test]
fn peak_memory_is_monotonic_in_the_budget() {
    aot::init();
    let z = Encoder { layers: 3, d_model: 8, heads: 2, ff: 32, batch: 4, seq: 16, dropout: 0.1, dtype: ElemType::F32 };
    let text = transformer_encoder(&z);
    let mut last: Option<(f64, u64, u64)> = None;
    let mut distinct = std::collections::BTreeSet::new();
    for budget in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let (modelled, measured) = peaks(&text, &format!("partition{{strategy=min-cut memory-budget={budget}}}"));
        distinct.insert(modelled);
        let error = (measured as f64 - modelled as f64).abs() / modelled as f64;
        assert!(error < 0.02, "budget {budget}: modelled {modelled} bytes, measured {measured}");
        if let Some((b0, m0, r0)) = last {
            assert!(modelled >= m0, "budget {budget} models {modelled} bytes, budget {b0} {m0}");
            assert!(measured >= r0, "budget {budget} measures {measured} bytes, budget {b0} {r0}");
        }
        last = Some((budget, modelled, measured));
    }
    assert!(distinct.len() >= 2, "the budgets should trade memory here: {distinct:?}");
    // The default partition saves at least what the min cut (budget 1) saves.
    let (default, _) = peaks(&text, "partition");
    assert!(default >= last.expect("ran").1);
}
