//! Compiled gradients: every case of `test/run/` that differentiates
//! something is compiled for training (`aot-train`: ... joint, partition)
//! with the default and the min-cut partitioner, run forward and backward
//! on the interpreter, and compared field by field — outputs and final
//! arguments against eager, gradients against PyTorch's (the golden), or,
//! for cases PyTorch cannot run (random ops), against eager finite
//! differences. This checks every derivative rule on the shapes of the
//! corpus, and the routing of tangents through aliased outputs, mutated
//! inputs, duplicates and synthetic bases.

use aot::compile::{Backend, CompileOptions};
use aot::ir::{parse_module, verify, Context, ParseOptions, SourceMgr};
use aot_run::compare::{compare, CompareOptions};
use aot_run::json::{parse_inputs, parse_tangents, TangentSpec};
use aot_run::{fd, outputs_json, run_compiled, run_eager, Calls};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common;

fn sibling(mlir: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(mlir.to_string_lossy().replace(".mlir", suffix))
}

/// Differences between compiled and expected for one case and pipeline:
/// against PyTorch's gradients when the case has a golden (unless
/// `finite_differences`), else against eager finite differences.
fn check(
    mlir: &Path,
    pipeline: &str,
    finite_differences: bool,
    backend: Backend,
) -> Result<Option<Vec<String>>, String> {
    let text = std::fs::read_to_string(mlir).map_err(|e| e.to_string())?;
    let Ok(inputs) = std::fs::read_to_string(sibling(mlir, ".inputs.json")) else { return Ok(None) };
    // Subclass programs run flattened; results are wrapped back below.
    let tangents_text = std::fs::read_to_string(sibling(mlir, ".tangents.json")).ok();
    let case = aot_run::subclass::dense_case(&text, &mlir.display().to_string(), &inputs, tangents_text.as_deref())?;
    let wrap = |j: &mut Json| {
        if let Some(w) = &case.wrapper {
            w.wrap_result(j)
        }
    };
    let (text, inputs) = (case.text.clone(), case.inputs.clone());
    let spec = parse_inputs(&inputs).map_err(|e| e.to_string())?;
    let differentiates = spec.args.iter().any(|a| {
        matches!(
            a,
            aot_run::json::ArgSpec::Own { requires_grad: true, .. }
                | aot_run::json::ArgSpec::View { requires_grad: true, .. }
        )
    }) || spec.storages.iter().any(|s| s.base);
    if !differentiates {
        return Ok(None);
    }
    let tangents = match &case.tangents {
        Some(t) => parse_tangents(t).map_err(|e| e.to_string())?,
        None => TangentSpec::default(),
    };
    let file = mlir.display().to_string();
    let mut sources = SourceMgr::new();
    sources.add(&file, Arc::from(text.as_str()));
    let parse = |ctx: &mut Context| -> Result<(aot::ir::Op, aot::ir::Op), String> {
        let m = parse_module(ctx, &text, &ParseOptions { file: file.clone(), first_line: 1 }).map_err(|d| d.message)?;
        verify(ctx, m).map_err(|d| d[0].message.clone())?;
        let f = aot::dialects::func::entry_func(ctx, m, None)?.op;
        Ok((m, f))
    };
    // What the gradients must be: PyTorch's, else eager finite differences.
    // `// golden: no-grad-check`: PyTorch's gradient is known wrong there.
    let no_grad_check = text.lines().any(|l| l.starts_with("// golden:") && l.contains("no-grad-check"));
    let golden: Option<Json> = std::fs::read_to_string(sibling(mlir, ".golden.json"))
        .ok()
        .filter(|_| !no_grad_check && !finite_differences)
        .map(|g| serde_json::from_str(&g).map_err(|e| e.to_string()))
        .transpose()?;
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx)?;
    let expected = match golden {
        Some(g) if g.get("error").is_some() => g,
        Some(g) if g.get("grads").is_some() => {
            // Outputs and arguments as eager has them (layouts included).
            let mut e = run_eager(&ctx, &sources, f, &spec, 0, false).map_err(|e| e.to_string())?.to_json();
            wrap(&mut e);
            e["grads"] = g["grads"].clone();
            if let Some(sg) = g.get("storage_grads") {
                e["storage_grads"] = sg.clone();
            }
            e
        }
        _ => match run_eager(&ctx, &sources, f, &spec, 0, false) {
            Err(e) => json!({ "error": e.to_string() }),
            Ok(r) => {
                let mut e = r.to_json();
                match fd::finite_differences(&ctx, &sources, f, &spec, &tangents, &r, 0) {
                    Ok(g) => {
                        e["grads"] = Json::Array(g.grads);
                        e["storage_grads"] = Json::Array(g.storage_grads);
                    }
                    Err(_) => return Ok(None),
                }
                wrap(&mut e);
                e
            }
        },
    };
    let mut ctx2 = Context::new();
    let (m2, f2) = parse(&mut ctx2)?;
    let opts = CompileOptions { pipeline: pipeline.into(), backend, keep_ir: false, progress: false };
    let mut crossed = Vec::new();
    let compiled =
        match run_compiled(ctx2, &sources, m2, f2, &spec, &opts, Calls { seed: 0, count: 1, grad: Some(&tangents) }) {
            Ok(r) => {
                // On a device, forward and backward must copy nothing,
                // but for the values the backward routes on the host.
                let strict = common::resident_calls_copy_nothing(backend);
                if let Some(c) = r.crossings.filter(|c| strict && c.copies() > 0 && !r.routed_on_host) {
                    crossed.push(format!("the resident forward and backward crossed the bus: {c:?}"));
                }
                if r.crossings.is_some_and(|c| c.copies() == 0) {
                    RESIDENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                let mut c = r.to_json();
                wrap(&mut c);
                c
            }
            Err(e) => json!({ "error": e.to_string() }),
        };
    // `// golden: train-refused (reason)`: a documented training refusal
    // (PyTorch drops or misplaces a gradient there); the forward is
    // checked by the differential tests.
    if text.lines().any(|l| l.starts_with("// golden:") && l.contains("train-refused")) {
        return Ok(Some(match compiled.get("error").and_then(|e| e.as_str()) {
            Some(e) if e.contains("unsupported operation") => Vec::new(),
            _ => vec![format!("expected a training refusal, got {compiled}")],
        }));
    }
    // AOTAutograd's training restriction, which synthetic-base enforces.
    if compiled
        .get("error")
        .and_then(|e| e.as_str())
        .is_some_and(|e| e.contains("non-differentiable view input mutations"))
        && expected.get("error").is_none()
    {
        return Ok(Some(Vec::new()));
    }
    let grads = expected.get("grads").is_some();
    let mut d = compare(
        &compiled,
        &expected,
        CompareOptions { grads, slack: 1.0, all_layouts: false, hidden_output_aliasing: true },
    );
    d.extend(crossed);
    Ok(Some(d))
}

fn corpus_gradients(backend: Backend) {
    corpus_gradients_where(backend, 400, |_| false)
}

/// [`corpus_gradients`], leaving out the cases whose differences `skip`
/// accepts, expecting at least `least` checked.
fn corpus_gradients_where(backend: Backend, least: usize, skip: impl Fn(&[String]) -> bool + Sync) {
    aot::init();
    let root = common::corpus_dir("run");
    let filter = std::env::var("AOT_GRAD_FILTER").unwrap_or_default();
    let all: Vec<_> = common::files_ending(&root, ".mlir")
        .into_iter()
        .filter(|p| p.strip_prefix(&root).unwrap().display().to_string().contains(&filter))
        .collect();
    // MLIR's pipeline and JIT cost several times the other backends per
    // case: the test command checks a sample of the corpus there.
    let every = crate::differential::sample_every(backend);
    let all = common::corpus_sample(all, every);
    let least = common::sampled_least(least, every);
    // Per case: (checked, failures) over both partitions.
    let per_file = common::par_map(&all, |path| {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let mut failures = Vec::new();
        let mut checked = 0;
        for pipeline in ["aot-train", MIN_CUT] {
            match check(path, pipeline, false, backend) {
                Ok(Some(d)) if skip(&d) => {}
                Ok(None) => {}
                Ok(Some(d)) if d.is_empty() => checked += 1,
                Ok(Some(d)) => {
                    checked += 1;
                    let which = if pipeline == "aot-train" { "default" } else { "min-cut" };
                    failures.push(format!("{name} ({which}):\n    {}", d.join("\n    ")));
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
        (checked, failures)
    });
    let checked: usize = per_file.iter().map(|r| r.0).sum();
    let failures: Vec<String> = per_file.into_iter().flat_map(|r| r.1).collect();
    eprintln!("{checked} gradient cases checked ({backend:?})");
    assert!(checked >= least || !filter.is_empty(), "only {checked} cases checked under {}", root.display());
    assert!(
        failures.is_empty(),
        "{} of {checked} compiled gradients differ ({backend:?}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn compiled_gradients_match_pytorch() {
    corpus_gradients(Backend::Interp);
}

/// Forward and backward in native code (the backward compiled lazily).
#[test]
fn cranelift_gradients_match_pytorch() {
    corpus_gradients(Backend::CRANELIFT);
}

/// Cases whose resident forward and backward crossed the bus not once.
static RESIDENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Forward and backward on the host-memory device, resident: arguments
/// and tangents in the device's memory, saved values, gradients and the
/// backward's own buffers there, and nothing copied across the bus, but
/// for the values the backward routes on the host (mutated arguments'
/// tangents, aliased outputs', duplicates' and bases' gradients), which
/// the backward reports.
#[test]
fn hostdev_resident_gradients_match_pytorch() {
    corpus_gradients(Backend::parse("hostdev").unwrap());
    let resident = RESIDENT.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("{resident} gradient cases with no bus crossing");
    assert!(resident >= 500, "only {resident} gradient cases ran without crossing the bus");
}

/// Forward and backward through LLVM.
#[cfg(feature = "llvm")]
#[test]
fn llvm_gradients_match_pytorch() {
    corpus_gradients(Backend::parse("llvm").unwrap());
}

/// Forward and backward through upstream MLIR's own compiler, for every
/// program whose forward and backward both export.
#[cfg(feature = "mlir")]
#[test]
fn mlir_gradients_match_pytorch() {
    corpus_gradients_where(Backend::parse("mlir").unwrap(), 100, |d| {
        d.iter().any(|x| x.contains("not exportable to upstream MLIR"))
    });
}

/// Forward and backward on the GPU (skipped, saying why, where there is none).
#[cfg(feature = "cuda")]
#[test]
fn cuda_gradients_match_pytorch() {
    if !common::gpu_or_skip() {
        return;
    }
    corpus_gradients(Backend::parse("cuda").unwrap());
}

const MIN_CUT: &str = "builtin.module(func.func(functionalize,collect-metadata,dedupe,synthetic-base{training=true},rng-functionalize,joint),partition{strategy=min-cut})";

/// The training models (MLP with an MSE loss, transformer encoder layer with
/// and without dropout) against both oracles: PyTorch's gradients where the
/// case has a golden, and finite differences of the eager interpreter for
/// the f64 ones (the dropout variant under the same seed).
#[test]
fn models_match_pytorch_and_finite_differences() {
    aot::init();
    let root = common::corpus_dir("run").join("models");
    let mut failures = Vec::new();
    let mut checked = Vec::new();
    for path in common::files_ending(&root, ".mlir") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let has_golden = sibling(&path, ".golden.json").exists();
        let f64_case = std::fs::read_to_string(&path).is_ok_and(|t| t.contains("xf64>") && !t.contains("xf32>"));
        for pipeline in ["aot-train", MIN_CUT] {
            for fd in [false, true] {
                if (!fd && !has_golden) || (fd && !f64_case) {
                    continue;
                }
                let what = format!(
                    "{name} ({}, {})",
                    if pipeline == MIN_CUT { "min-cut" } else { "default" },
                    if fd { "finite differences" } else { "PyTorch" }
                );
                match check(&path, pipeline, fd, Backend::Interp) {
                    Ok(Some(d)) if d.is_empty() => checked.push(what),
                    Ok(Some(d)) => failures.push(format!("{what}:\n    {}", d.join("\n    "))),
                    Ok(None) => failures.push(format!("{what}: nothing to differentiate")),
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} model gradient checks failed:\n{}", failures.len(), failures.join("\n"));
    // mlp_mse, transformer_encoder_layer: PyTorch; the _f64 ones: both;
    // transformer_encoder_layer_dropout: finite differences — per partitioner.
    assert!(checked.len() >= 2 * 7, "expected the models corpus, checked only {checked:?}");
}

/// Dropout recomputed in the backward replays the forward's draws: a
/// 3-layer encoder whose memory budget 0 partition recomputes dropout from
/// its explicit Philox seed and offset (checkpointed dropout) has the
/// gradients of the default partition, which saves the masks instead, and
/// both agree with finite differences of the eager forward under the same
/// seed along random directions (two eager runs per direction: the
/// element-by-element differences of all 3,000 parameters took 34
/// CPU-seconds). Fresh randomness in the recomputation would give wrong
/// gradients (upstream #190758).
#[test]
fn checkpointed_dropout_replays_its_draws() {
    use aot::models::{transformer_encoder, Encoder};
    aot::init();
    let z = Encoder {
        layers: 3,
        d_model: 8,
        heads: 2,
        ff: 32,
        batch: 4,
        seq: 16,
        dropout: 0.1,
        dtype: aot::ir::ElemType::F64,
    };
    let text = transformer_encoder(&z);
    let mut sources = SourceMgr::new();
    sources.add("encoder", Arc::from(text.as_str()));
    let parse = |ctx: &mut Context| {
        let m = parse_module(ctx, &text, &ParseOptions { file: "encoder".into(), first_line: 1 }).expect("parses");
        verify(ctx, m).expect("verifies");
        let f = aot::dialects::func::entry_func(ctx, m, None).expect("entry").op;
        (m, f)
    };
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx);
    let spec = aot_run::random_inputs(&ctx, f, 5).expect("inputs");
    let tangents = TangentSpec::default();
    let eager = run_eager(&ctx, &sources, f, &spec, 9, false).expect("eager");
    let train = |pipeline: String| {
        let mut ctx2 = Context::new();
        let (m2, f2) = parse(&mut ctx2);
        let opts = CompileOptions { pipeline, backend: Backend::Interp, keep_ir: true, progress: false };
        run_compiled(ctx2, &sources, m2, f2, &spec, &opts, Calls { seed: 9, count: 1, grad: Some(&tangents) })
            .expect("compiled run")
    };
    let backward_of = |r: &aot_run::CompiledRun| {
        let ir = r.ir.clone().expect("kept IR");
        ir[ir.find("func.func @encoder_backward").expect("a backward")..].to_string()
    };
    let replayed = train(MIN_CUT.replace("strategy=min-cut", "strategy=min-cut memory-budget=0"));
    let backward = backward_of(&replayed);
    assert!(backward.contains("rng.philox_dropout"), "the budget-0 partition should replay dropout in the backward");
    assert!(!backward.contains("rng.dropout "), "a stateful random op in the backward");
    let saved = train("aot-train".to_string());
    assert!(!backward_of(&saved).contains("philox_dropout"), "the default partition should save the masks");

    let result = |r: &aot_run::CompiledRun| {
        let mut j = outputs_json(&r.outputs, &r.args);
        j["grads"] = r.grads.clone().expect("gradients").0;
        j
    };
    let (got, reference) = (result(&replayed), result(&saved));
    let exact = CompareOptions { grads: true, slack: 1.0, all_layouts: false, hidden_output_aliasing: true };
    let d = compare(&got, &eager.to_json(), CompareOptions { grads: false, ..exact });
    assert!(d.is_empty(), "the replaying partition's forward differs from eager:\n{}", d.join("\n"));
    let d = compare(&got, &reference, exact);
    assert!(d.is_empty(), "replayed and saved dropout masks give different gradients:\n{}", d.join("\n"));

    // ⟨gradient, v⟩ against the derivative along v, for two random v.
    let grads: Vec<Option<Vec<f64>>> = got["grads"]
        .as_array()
        .expect("grads")
        .iter()
        .map(|g| g["data"].as_array().map(|d| d.iter().map(|x| x.as_f64().expect("a number")).collect()))
        .collect();
    assert!(grads.iter().flatten().map(Vec::len).sum::<usize>() > 2000, "the encoder's parameters have gradients");
    let mut rng = common::Rng(0x9e37_79b9_7f4a_7c15);
    let objective = fd::directional(&ctx, &sources, f, &spec, &tangents, &eager, 9).expect("the objective");
    for _ in 0..2 {
        let direction: Vec<Option<Vec<f64>>> =
            grads.iter().map(|g| g.as_ref().map(|g| g.iter().map(|_| rng.symmetric()).collect())).collect();
        let dot: f64 = grads
            .iter()
            .zip(&direction)
            .filter_map(|(g, v)| Some(g.as_ref()?.iter().zip(v.as_ref()?).map(|(a, b)| a * b).sum::<f64>()))
            .sum();
        let fd = objective.along(&direction).expect("fd");
        assert!(
            (fd - dot).abs() <= 1e-6 * (1.0 + fd.abs()),
            "along a random direction: finite differences {fd}, the compiled gradient {dot}"
        );
    }
    // A direction that does not fit the arguments is an error, not a guess.
    let short = objective.along(&[]).expect_err("a direction without entries");
    assert!(short.to_string().contains("one entry per argument"), "{short}");
    let mut wrong = vec![None; grads.len()];
    let first = grads.iter().position(Option::is_some).expect("a differentiable argument");
    wrong[first] = Some(vec![1.0]);
    let e = objective.along(&wrong).expect_err("a direction of the wrong length");
    assert!(e.to_string().contains(&format!("argument {first}")), "{e}");
}
