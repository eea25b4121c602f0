//! Random calling conventions: every case of `test/run/` is called with
//! arguments that duplicate each other, view one shared storage at random
//! offsets and strides (overlapping or not, with or without a
//! differentiable base), or require grad — and the compiled function
//! (`aot-inference`: functionalize ... dedupe, synthetic-base,
//! rng-functionalize, and the runtime's prologue and epilogue) must agree
//! with eager execution field by field, or both must fail.
//!
//! Conventions come from a fixed-seed generator, so a failure names the case
//! and the input file that reproduces it (`aot-run --inputs`).

use aot::compile::{Backend, CompileOptions};
use aot::ir::{parse_module, verify, Context, ElemType, ParseOptions, SourceMgr, TensorType};
use aot_run::compare::{compare, CompareOptions};
use aot_run::json::{ArgSpec, InputSpec, StorageSpec};
use aot_run::{inputs_to_json, outputs_json, run_compiled, run_eager, signature, Calls};
use serde_json::json;
use std::sync::Arc;

use crate::common::{self, Rng};

/// A value of element type `e` for a random input: 0/1, 0..3, or a
/// quarter step in [-2, 2].
fn value(rng: &mut Rng, e: ElemType) -> f64 {
    match e {
        ElemType::I1 => rng.below(2) as f64,
        e if e.is_int() => rng.below(3) as f64,
        _ => (rng.below(17) as f64 - 8.0) / 4.0,
    }
}

fn numel(s: &[i64]) -> i64 {
    s.iter().product()
}

/// A random input file for parameters `params`.
fn random_spec(rng: &mut Rng, params: &[TensorType]) -> InputSpec {
    let mut spec = InputSpec::default();
    let mut storage: Option<(ElemType, i64)> = None;
    let base = rng.below(3) == 0;
    for (i, p) in params.iter().enumerate() {
        let choice = rng.below(10);
        let earlier: Vec<usize> = (0..i).filter(|&k| params[k] == *p).collect();
        if choice < 3 && !earlier.is_empty() {
            spec.args.push(ArgSpec::SameAs(earlier[rng.below(earlier.len() as u64) as usize]));
            continue;
        }
        let fits_storage = storage.is_none_or(|(e, _)| e == p.elem) && (!base || p.elem.is_float());
        if (3..7).contains(&choice) && fits_storage && !p.shape.is_empty() {
            let shape = p.shape.to_vec();
            let mut stride = aot::runtime::tensor::contiguous_strides(&shape).to_vec();
            if shape.len() == 2 && rng.below(3) == 0 {
                stride = vec![1, shape[0]];
            } else if !shape.is_empty() && rng.below(3) == 0 {
                stride[0] += rng.below(3) as i64;
            }
            let offset = rng.below(7) as i64;
            let extent = if numel(&shape) == 0 {
                offset
            } else {
                offset + shape.iter().zip(&stride).map(|(&n, &s)| (n - 1) * s).sum::<i64>() + 1
            };
            let len = storage.map_or(0, |s| s.1).max(extent);
            storage = Some((p.elem, len));
            // Without a differentiable base, a view may be a leaf that
            // requires grad (`view.detach().requires_grad_()`).
            let leaf_rg = !base && p.elem.is_float() && rng.below(8) == 0;
            spec.args.push(ArgSpec::View {
                storage: 0,
                size: shape,
                stride,
                offset,
                requires_grad: leaf_rg,
                non_leaf: false,
            });
            continue;
        }
        let rg = p.elem.is_float() && rng.below(3) == 0;
        let data = (0..numel(&p.shape)).map(|_| value(rng, p.elem)).collect();
        spec.args.push(ArgSpec::Own {
            dtype: p.elem,
            shape: p.shape.to_vec(),
            data,
            requires_grad: rg,
            non_leaf: rg && rng.below(2) == 0,
        });
    }
    if let Some((dtype, len)) = storage {
        let len = len + rng.below(3) as i64;
        let data = (0..len).map(|_| value(rng, dtype)).collect();
        spec.storages.push(StorageSpec { dtype, data, base: base && dtype.is_float() });
    }
    spec
}

fn random_conventions(backend: Backend, default_per_case: u64) {
    aot::init();
    let root = common::corpus_dir("run");
    let per_case: u64 = std::env::var("AOT_CONVENTIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(default_per_case);
    let filter = std::env::var("AOT_CONVENTIONS_FILTER").unwrap_or_default();
    let all: Vec<_> = common::files_ending(&root, ".mlir")
        .into_iter()
        .filter(|p| p.strip_prefix(&root).unwrap().display().to_string().contains(&filter))
        .collect();
    // Per case: (runs, refusals, failures). A case's conventions run on one
    // thread, one after another (the compile caches are per thread).
    let per_file = common::par_map(&all, |path| {
        let mut failures = Vec::new();
        let mut runs = 0;
        let mut refusals = 0;
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let file = path.display().to_string();
        // Subclass programs: random conventions of their inner tensors.
        let Ok((text, _)) = aot_run::subclass::flatten_text(&text, &file) else { return (0, 0, failures) };
        let mut sources = SourceMgr::new();
        sources.add(&file, Arc::from(text.as_str()));
        let parse = |ctx: &mut Context| {
            let m = parse_module(ctx, &text, &ParseOptions { file: file.clone(), first_line: 1 }).ok()?;
            verify(ctx, m).ok()?;
            let f = aot::dialects::func::entry_func(ctx, m, None).ok()?.op;
            Some((m, f))
        };
        let mut ctx = Context::new();
        let Some((_, f)) = parse(&mut ctx) else { return (0, 0, failures) };
        let Ok(params) = signature(&ctx, f) else { return (0, 0, failures) };
        for k in 0..per_case {
            let mut rng =
                Rng(0xA07 ^ (k << 32) ^ name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64)));
            let spec = random_spec(&mut rng, &params);
            runs += 1;
            // Beyond the output file: which arguments require grad afterwards.
            let flags = |args: &[aot::runtime::Tensor]| args.iter().map(|a| a.requires_grad()).collect::<Vec<_>>();
            let (eager, eager_flags) = match run_eager(&ctx, &sources, f, &spec, 5, false) {
                Ok(r) => (r.to_json(), flags(&r.args)),
                Err(e) => (json!({ "error": e.to_string() }), Vec::new()),
            };
            let mut ctx2 = Context::new();
            let (m2, f2) = parse(&mut ctx2).expect("parsed once already");
            let opts = CompileOptions { pipeline: "aot-inference".into(), backend, keep_ir: false, progress: false };
            let (compiled, compiled_flags) =
                match run_compiled(ctx2, &sources, m2, f2, &spec, &opts, Calls { seed: 5, count: 1, grad: None }) {
                    // On a device: placed there before, the call copies nothing.
                    Ok(r)
                        if common::resident_calls_copy_nothing(backend)
                            && r.crossings.is_some_and(|c| c.copies() > 0) =>
                    {
                        (
                            json!({ "error": format!("the resident call crossed the bus: {:?}", r.crossings) }),
                            Vec::new(),
                        )
                    }
                    Ok(r) => (outputs_json(&r.outputs, &r.args), flags(&r.args)),
                    Err(e) => (json!({ "error": e.to_string() }), Vec::new()),
                };
            // Refusals synthetic-base documents (a clear error, never a
            // wrong answer): set_/resize_ of an argument that overlaps
            // another mutated one, and writes that metadata mutations moved
            // out of every argument.
            let refused = compiled.get("error").and_then(|e| e.as_str()).is_some_and(|e| {
                e.contains("synthetic bases do not support that") || e.contains("synthetic bases cannot write it back")
            });
            if refused && eager.get("error").is_none() {
                refusals += 1;
                continue;
            }
            // A backend that takes only some programs (`mlir`: those that
            // export) leaves the others out.
            let unexportable = compiled
                .get("error")
                .and_then(|e| e.as_str())
                .is_some_and(|e| e.contains("not exportable to upstream MLIR"));
            if unexportable {
                runs -= 1;
                continue;
            }
            let mut d = compare(
                &compiled,
                &eager,
                CompareOptions { grads: false, slack: 1.0, all_layouts: true, hidden_output_aliasing: true },
            );
            if compiled_flags != eager_flags && !compiled_flags.is_empty() && !eager_flags.is_empty() {
                d.push(format!("arguments requiring grad after the call: {compiled_flags:?}, eager {eager_flags:?}"));
            }
            if !d.is_empty() {
                failures.push(format!("{name} with inputs {}:\n    {}", inputs_to_json(&spec), d.join("\n    ")));
            }
        }
        (runs, refusals, failures)
    });
    let runs: u64 = per_file.iter().map(|r| r.0).sum();
    let refusals: u64 = per_file.iter().map(|r| r.1).sum();
    let failures: Vec<String> = per_file.into_iter().flat_map(|r| r.2).collect();
    assert!(runs >= 400 || !filter.is_empty(), "expected the corpus under {}", root.display());
    // Refusals must stay rare, or this test stops testing anything.
    assert!(refusals * 100 <= runs, "{refusals} of {runs} random conventions were refused");
    assert!(
        failures.is_empty(),
        "{} of {runs} random conventions differ ({backend:?}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_conventions_match_eager() {
    random_conventions(Backend::Interp, 24);
}

/// Native code sees arguments that share storage and overlap (in their
/// storage layouts): fusion must not reorder a read past a write there.
#[test]
fn random_conventions_match_eager_in_native_code() {
    random_conventions(Backend::CRANELIFT, common::cases(12, 24));
}

/// The same on the host-memory device, resident (the shared and
/// overlapping storages placed in its memory, as one storage each), with
/// no copy across the bus in a call; the first 4 of 24 in the test command.
#[test]
fn random_conventions_match_eager_resident_on_a_device() {
    random_conventions(Backend::parse("hostdev").unwrap(), common::cases(4, 24));
}

/// The same through LLVM (in the test command, the first 2 of the full
/// run's 24 conventions per case: LLVM's O3 takes most of the time, and
/// what a convention decides, the host program and the runtime, is the
/// Cranelift backend's, which the command checks on 12).
#[cfg(feature = "llvm")]
#[test]
fn random_conventions_match_eager_in_llvm_code() {
    random_conventions(Backend::parse("llvm").unwrap(), common::cases(2, 24));
}

/// The same through upstream MLIR's own compiler, for the conventions whose
/// programs export (as_strided views into a shared storage do not); the
/// first 2 of 24 in the test command.
#[cfg(feature = "mlir")]
#[test]
fn random_conventions_match_eager_through_mlir() {
    random_conventions(Backend::parse("mlir").unwrap(), common::cases(2, 24));
}

/// The same on the GPU (skipped, saying why, where there is none): the
/// first 4 of 24 conventions per case (each is a PTX compile at LLVM's O3;
/// all 24 with AOT_FULL=1).
#[cfg(feature = "cuda")]
#[test]
fn random_conventions_match_eager_on_the_gpu() {
    if !common::gpu_or_skip() {
        return;
    }
    random_conventions(Backend::parse("cuda").unwrap(), common::cases(4, 24));
}

/// The typed convention is what the compiler reads: written onto a
/// function with `Convention::apply`, it reads back equal, from tensors
/// (`aot::convention_of`, which takes a storage's length, not a copy of
/// it) and from an input file alike; a convention that does not fit the
/// function is refused.
#[test]
fn a_convention_written_onto_a_function_reads_back_the_same() {
    use aot::passes::convention::{ArgConvention, Convention};
    let text = "func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
";
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: "c.mlir".into(), first_line: 1 }).expect("parses");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    let base = aot::Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[8]).expect("base");
    let a = base.as_strided(&[3], &[1], 0).expect("view");
    let c = aot::Tensor::from_slice(&[1.0f32, 2.0], &[2]).expect("own");
    c.set_requires_grad(true);
    let convention = aot::convention_of(&mut ctx, &[a.clone(), a.clone(), c.clone()]).expect("a convention");
    assert_eq!(convention.args[1].same_as, Some(0));
    assert_eq!(convention.storages[0].numel, Some(8));
    assert_eq!(convention.requires_grad(), vec![false, false, true]);
    convention.apply(&mut aot::ir::Rewriter::new(&mut ctx), f).expect("fits");
    assert_eq!(Convention::of_func(&ctx, f), Ok(convention.clone()));
    // The same convention from an input file.
    let spec = InputSpec {
        storages: vec![StorageSpec {
            dtype: ElemType::F32,
            data: aot_run::json::Values::Float(vec![0.0; 8]),
            base: false,
        }],
        args: vec![
            ArgSpec::View {
                storage: 0,
                size: vec![3],
                stride: vec![1],
                offset: 0,
                requires_grad: false,
                non_leaf: false,
            },
            ArgSpec::SameAs(0),
            ArgSpec::Own {
                dtype: ElemType::F32,
                shape: vec![2],
                data: aot_run::json::Values::Float(vec![1.0, 2.0]),
                requires_grad: true,
                non_leaf: false,
            },
        ],
    };
    assert_eq!(spec.convention(&ctx, f), Ok(convention.clone()));
    // Refused: a duplicate of itself, another type, another count.
    let mut bad = convention.clone();
    bad.args[1].same_as = Some(1);
    assert!(bad.apply(&mut aot::ir::Rewriter::new(&mut ctx), f).unwrap_err().contains("earlier argument"));
    let mut bad = convention.clone();
    bad.args[2] = ArgConvention { ty: ctx.tensor_type(&[5], ElemType::F32), ..bad.args[2].clone() };
    assert!(bad.apply(&mut aot::ir::Rewriter::new(&mut ctx), f).unwrap_err().contains("argument 2"));
    let mut bad = convention;
    bad.args.pop();
    assert!(bad.apply(&mut aot::ir::Rewriter::new(&mut ctx), f).unwrap_err().contains("takes 3 arguments"));
}
