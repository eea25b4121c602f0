//! Eager against compiled: every case of `test/run/` runs on the reference
//! interpreter and through `aot-inference` (functionalize, collect-metadata,
//! ... and the runtime's calling convention) on the interpreter backend;
//! the two output files must agree field by field — outputs (values,
//! `requires_grad`, `alias_of_arg`, layouts of views) and every argument's
//! final state. Cases where eager raises must fail to compile or run too.
//! Each case runs as one call and as two calls (fresh inputs, one
//! generator): the compiled function must be reusable and a second call
//! must continue the random stream exactly as eager execution does.

use aot::compile::Backend;
use aot::ir::{parse_module, verify, Context, ParseOptions, SourceMgr};
use aot_run::compare::{compare, CompareOptions};
use aot_run::json::parse_inputs;
use aot_run::{outputs_json, run_compiled, run_eager_calls, Calls};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};

use crate::common;
use std::sync::Arc;

/// Runs one case both ways; returns the differences.
pub fn check(mlir: &Path, pipeline: &str, backend: Backend) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(mlir).map_err(|e| e.to_string())?;
    let inputs_path = PathBuf::from(mlir.to_string_lossy().replace(".mlir", ".inputs.json"));
    let Ok(inputs) = std::fs::read_to_string(&inputs_path) else { return Ok(Vec::new()) };
    // Subclass programs: both runs on the flattened program.
    let case = aot_run::subclass::dense_case(&text, &mlir.display().to_string(), &inputs, None)?;
    let (text, inputs) = (case.text, case.inputs);
    let spec = parse_inputs(&inputs).map_err(|e| e.to_string())?;
    let file = mlir.display().to_string();
    let mut sources = SourceMgr::new();
    sources.add(&file, Arc::from(text.as_str()));
    let parse = |ctx: &mut Context| -> Result<(aot::ir::Op, aot::ir::Op), String> {
        let m = parse_module(ctx, &text, &ParseOptions { file: file.clone(), first_line: 1 }).map_err(|d| d.message)?;
        verify(ctx, m).map_err(|d| d[0].message.clone())?;
        let f = aot::dialects::func::entry_func(ctx, m, None)?.op;
        Ok((m, f))
    };
    let mut diffs = Vec::new();
    // A second call must find the compiled function reusable and the random
    // stream continued.
    for calls in [1, 2] {
        let mut ctx = Context::new();
        let (_, f) = parse(&mut ctx)?;
        let eager = match run_eager_calls(&ctx, &sources, f, &spec, Calls { seed: 7, count: calls, grad: None }, false)
        {
            Ok(r) => r.to_json(),
            Err(e) => json!({ "error": e.to_string() }),
        };
        let mut ctx2 = Context::new();
        let (m2, f2) = parse(&mut ctx2)?;
        let opts =
            aot::compile::CompileOptions { pipeline: pipeline.to_string(), backend, keep_ir: false, progress: false };
        let compiled: Json =
            match run_compiled(ctx2, &sources, m2, f2, &spec, &opts, Calls { seed: 7, count: calls, grad: None }) {
                Ok(r) => {
                    // On a device, the arguments were placed in its memory
                    // before each call: the calls must copy nothing.
                    let strict = common::resident_calls_copy_nothing(backend);
                    if let Some(c) = r.crossings.filter(|c| strict && c.copies() > 0) {
                        diffs.push(format!("call {calls}: the resident calls crossed the bus: {c:?}"));
                    }
                    outputs_json(&r.outputs, &r.args)
                }
                Err(e) => json!({ "error": e.to_string() }),
            };
        let d = compare(
            &compiled,
            &eager,
            CompareOptions { grads: false, slack: 1.0, all_layouts: true, hidden_output_aliasing: true },
        );
        diffs.extend(d.into_iter().map(|x| format!("call {calls}: {x}")));
    }
    Ok(diffs)
}

fn corpus_against_eager(backend: Backend) {
    corpus_against_eager_where(backend, |_| false)
}

/// [`corpus_against_eager`], leaving out the cases whose differences
/// `skip` accepts (a backend that cannot take every program).
/// Which corpus files a backend's suite checks in the test command
/// (`common::corpus_sample`): MLIR's pipeline and JIT cost several times
/// the other backends per case, so the command checks every second file
/// there, and `AOT_FULL=1` all of them.
pub(crate) fn sample_every(backend: Backend) -> usize {
    #[cfg(feature = "mlir")]
    if backend.name() == "mlir" {
        return 2;
    }
    let _ = backend;
    1
}

fn corpus_against_eager_where(backend: Backend, skip: impl Fn(&[String]) -> bool + Sync) {
    aot::init();
    let root = common::corpus_dir("run");
    let filter = std::env::var("AOT_DIFF_FILTER").unwrap_or_default();
    let all: Vec<_> = common::files_ending(&root, ".mlir")
        .into_iter()
        .filter(|c| c.strip_prefix(&root).unwrap().display().to_string().contains(&filter))
        .collect();
    let every = sample_every(backend);
    let all = common::corpus_sample(all, every);
    // Per case: None when `skip` leaves it out, else its failure (if any).
    let results = common::par_map(&all, |c| {
        let name = c.strip_prefix(&root).unwrap().display().to_string();
        match check(c, "aot-inference", backend) {
            Ok(d) if skip(&d) => None,
            Ok(d) if d.is_empty() => Some(None),
            Ok(d) => Some(Some(format!("{name}:\n    {}", d.join("\n    ")))),
            Err(e) => Some(Some(format!("{name}: {e}"))),
        }
    });
    let checked = results.iter().flatten().count();
    let failures: Vec<String> = results.into_iter().flatten().flatten().collect();
    eprintln!("{checked} cases checked ({backend:?})");
    assert!(
        checked >= common::sampled_least(100, every) || !filter.is_empty(),
        "expected the corpus under {}",
        root.display()
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} cases differ between eager and compiled ({backend:?}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn compiled_inference_matches_eager() {
    corpus_against_eager(Backend::Interp);
}

/// The same corpus through native code: lower-to-loops and Cranelift.
#[test]
fn cranelift_matches_eager() {
    corpus_against_eager(Backend::CRANELIFT);
}

/// The same corpus on the host-memory device, resident: arguments in the
/// device's memory before each call, results allocated there, and not one
/// copy across the bus during a call (aliasing, mutation write-back,
/// `set_`, non-contiguous arguments, generator state all on the device).
#[test]
fn hostdev_resident_matches_eager() {
    corpus_against_eager(Backend::parse("hostdev").unwrap());
}

/// The same corpus through LLVM.
#[cfg(feature = "llvm")]
#[test]
fn llvm_matches_eager() {
    corpus_against_eager(Backend::parse("llvm").unwrap());
}

/// The same corpus through upstream MLIR's own compiler (`--backend mlir`):
/// every program that exports (the rest fail to compile, naming the op,
/// and are left out).
#[cfg(feature = "mlir")]
#[test]
fn mlir_matches_eager() {
    corpus_against_eager_where(Backend::parse("mlir").unwrap(), |d| {
        d.iter().any(|x| x.contains("not exportable to upstream MLIR"))
    });
}

/// The same corpus on the GPU (skipped, saying why, where there is none).
#[cfg(feature = "cuda")]
#[test]
fn cuda_matches_eager() {
    if !common::gpu_or_skip() {
        return;
    }
    corpus_against_eager(Backend::parse("cuda").unwrap());
}
