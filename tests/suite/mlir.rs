//! Export to upstream MLIR (cargo feature `mlir`): every corpus program
//! after `aot-inference`, and the training models' forward and backward
//! after `aot-train`, either exports to a module MLIR 19's verifier accepts
//! or fails with a located "not exportable" error naming the op (never any
//! other failure); `mlir-opt-19` reads a sample back and lowers it through
//! bufferization to loops.
#![cfg(feature = "mlir")]

use aot::codegen::mlir::{literal, nested, ty};
use aot::ir::pass::PassManager;
use aot::ir::{parse_module, verify, Context, ParseOptions};
use std::path::{Path, PathBuf};

use crate::common;

/// The module of `path` after `pipeline`, exported; `None` when the
/// pipeline itself rejects the program (eager raises there too).
fn export(path: &Path, pipeline: &str) -> Option<Result<String, String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, &text, &ParseOptions { file: path.display().to_string(), first_line: 1 }).ok()?;
    verify(&ctx, m).ok()?;
    let mut pm = PassManager::parse(pipeline).ok()?;
    pm.run(&mut ctx, m, &mut std::io::sink()).ok()?;
    Some(aot::codegen::mlir::export_module(&mut ctx, m).map_err(|d| d.message))
}

/// How many corpus programs export; asserted so that a regression in the
/// exporter shows (docs/mlir.md gives the figure and the ops that do not
/// export).
const EXPORTABLE_AT_LEAST: usize = 456;

#[test]
fn corpus_programs_export_or_name_the_op_that_does_not() {
    aot::init();
    let root = common::corpus_dir("run");
    let mut exported = Vec::new();
    let mut refused = std::collections::BTreeMap::<String, usize>::new();
    let mut failures = Vec::new();
    for path in common::files_ending(&root, ".mlir") {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        match export(&path, "builtin.module(aot-inference)") {
            None => {}
            Some(Ok(text)) => {
                assert!(text.contains("func.func @"), "{name}: no function in\n{text}");
                exported.push(path);
            }
            Some(Err(m)) if m.contains("is not exportable to upstream MLIR") => {
                let op = m.split('\'').nth(1).unwrap_or("?").to_string();
                *refused.entry(op).or_default() += 1;
            }
            Some(Err(m)) => failures.push(format!("{name}: {m}")),
        }
    }
    eprintln!("exported {} corpus programs; not exportable, by op: {refused:?}", exported.len());
    assert!(failures.is_empty(), "exports that failed otherwise:\n{}", failures.join("\n"));
    assert!(exported.len() >= EXPORTABLE_AT_LEAST, "only {} programs exported", exported.len());
}

#[test]
fn training_models_export_forward_and_backward() {
    aot::init();
    let root = common::corpus_dir("run").join("models");
    let mut count = 0;
    for path in common::files_ending(&root, ".mlir") {
        let text = export(&path, "builtin.module(aot-train)").expect("trains").unwrap_or_else(|m| {
            panic!("{}: {m}", path.display());
        });
        // The forward and the backward of the partition.
        assert!(text.matches("func.func @").count() >= 2, "{}:\n{text}", path.display());
        count += 1;
    }
    assert!(count >= 2, "expected the MLP and the encoder layer");
}

const DRAWS: &str = "func.func @main(%x: tensor<37x11xf32>, %p: tensor<37x11xf64>) -> (tensor<37x11xf32>, tensor<37x11xi1>, tensor<37x11xf32>, tensor<37x11xf64>, tensor<37x11xf64>) {
  %d:2 = rng.dropout %x {p = 0.3} : tensor<37x11xf32> -> (tensor<37x11xf32>, tensor<37x11xi1>)
  %u = rng.uniform {low = -1.0, high = 2.0} : tensor<37x11xf32>
  %n = rng.normal {mean = 0.5, std = 2.0} : tensor<37x11xf64>
  %b = rng.bernoulli %p : tensor<37x11xf64> -> tensor<37x11xf64>
  return %d#0, %d#1, %u, %n, %b : tensor<37x11xf32>, tensor<37x11xi1>, tensor<37x11xf32>, tensor<37x11xf64>, tensor<37x11xf64>
}
";

/// A seed and offset draw the same bits through MLIR as through the
/// native backends: Philox4x32-10 exported as `arith` on `i32`, and each
/// op's element formula, on two consecutive calls (the offset advances).
#[test]
fn mlir_draws_are_the_native_backends_bit_for_bit() {
    use aot::{Backend, Module, Options, Tensor};
    let x: Vec<f32> = (0..37 * 11).map(|i| (i % 13) as f32 * 0.25 - 1.0).collect();
    let p: Vec<f64> = (0..37 * 11).map(|i| (i % 10) as f64 / 10.0).collect();
    let args = [Tensor::from_slice(&x, &[37, 11]).unwrap(), Tensor::from_slice(&p, &[37, 11]).unwrap()];
    let m = Module::parse(DRAWS, "draws.mlir").unwrap();
    let bits = |t: &Tensor| t.read_f64().into_iter().map(f64::to_bits).collect::<Vec<_>>();
    for seed in [0u64, 42, 0xDEAD_BEEF_1234] {
        let mut native = m.compile(None, &args, &Options::inference().with_backend(Backend::CRANELIFT)).unwrap();
        let mut mlir =
            m.compile(None, &args, &Options::inference().with_backend(Backend::parse("mlir").unwrap())).unwrap();
        native.manual_seed(seed);
        mlir.manual_seed(seed);
        for call in 0..2 {
            let (a, b) = (native.call(&args).unwrap(), mlir.call(&args).unwrap());
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                assert_eq!(bits(x), bits(y), "seed {seed}, call {call}: output {k} differs");
            }
        }
    }
}

/// A bad module is MLIR's error, not a panic.
#[test]
fn mlir_reports_what_it_rejects() {
    let e = aot::codegen::mlir::verify("func.func @f() -> tensor<2xf32> {\n  return\n}\n").unwrap_err();
    assert!(e.contains("return"), "{e}");
    assert!(aot::codegen::mlir::verify("not mlir at all").is_err());
    assert!(aot::codegen::mlir::verify("module {}\0").is_err());
}

fn mlir_opt() -> Option<PathBuf> {
    ["mlir-opt-19", "/usr/lib/llvm-19/bin/mlir-opt"]
        .iter()
        .map(PathBuf::from)
        .find(|p| std::process::Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// `mlir-opt-19` parses exported modules and lowers them with the pipeline
/// `--backend mlir` uses (`codegen::mlir::LOWERING`).
#[test]
fn mlir_opt_reads_and_lowers_exported_modules() {
    let Some(tool) = mlir_opt() else {
        eprintln!("skipped: no mlir-opt-19 (Debian's mlir-19-tools)");
        return;
    };
    aot::init();
    let root = common::corpus_dir("run");
    let dir = std::env::temp_dir().join(format!("aot-mlir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    for path in common::files_ending(&root, ".mlir").iter().step_by(7) {
        let Some(Ok(text)) = export(path, "builtin.module(aot-inference)") else { continue };
        let file = dir.join("m.mlir");
        std::fs::write(&file, &text).unwrap();
        for lower in [false, true] {
            let out = run_mlir_opt(&tool, &file, lower);
            assert!(
                out.status.success(),
                "{} (lowered: {lower}): {}\n{text}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked >= 40, "only {checked} modules checked");
}

/// Conversions between f32 and bf16 are lowered to integer arithmetic,
/// not to LLVM's `fptrunc`/`fpext`: on an x86 CPU without AVX512-BF16
/// those become calls of compiler-rt's `__truncsfbf2`, which MLIR's JIT
/// cannot resolve, so the MLIR backend failed on such CPUs only. Checked
/// on the text, so that it fails on every CPU.
#[test]
fn bf16_conversions_lower_without_compiler_runtime_calls() {
    let Some(tool) = mlir_opt() else {
        eprintln!("skipped: no mlir-opt-19 (Debian's mlir-19-tools)");
        return;
    };
    aot::init();
    let dir = std::env::temp_dir().join(format!("aot-mlir-bf16-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    for name in ["cast_f32_to_bf16", "exp_bf16", "expm1_f64_bf16"] {
        let path = common::corpus_dir("run").join("ops").join(format!("{name}.mlir"));
        let text = export(&path, "builtin.module(aot-inference)").unwrap().unwrap();
        let file = dir.join(format!("{name}.mlir"));
        std::fs::write(&file, &text).unwrap();
        let out = run_mlir_opt(&tool, &file, true);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let lowered = String::from_utf8_lossy(&out.stdout);
        assert!(lowered.contains("bf16"), "{name}: the lowered module has no bf16 left to check:\n{lowered}");
        let conversions: Vec<&str> = lowered
            .lines()
            .filter(|l| (l.contains("llvm.fptrunc") || l.contains("llvm.fpext")) && l.contains("bf16"))
            .collect();
        assert!(conversions.is_empty(), "{name}: bf16 conversions left to compiler-rt:\n{}", conversions.join("\n"));
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(checked, 3);
}

/// `mlir-opt` on `file`: parsed and verified only, or lowered with the
/// pipeline `--backend mlir` uses.
fn run_mlir_opt(tool: &Path, file: &Path, lower: bool) -> std::process::Output {
    let mut cmd = std::process::Command::new(tool);
    if lower {
        cmd.arg(format!("--pass-pipeline={}", aot::codegen::mlir::LOWERING));
    }
    cmd.arg(file).output().unwrap()
}

fn tool(names: &[&str]) -> Option<PathBuf> {
    names
        .iter()
        .map(PathBuf::from)
        .find(|p| std::process::Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// The numbers `printMemref*` printed after `data =`, per printed memref.
fn printed_values(text: &str) -> Vec<Vec<f64>> {
    text.split("Unranked Memref")
        .skip(1)
        .map(|block| {
            let data = block.split_once("data =").map_or("", |(_, d)| d);
            data.split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .filter_map(|t| match t {
                    "nan" | "-nan" => Some(f64::NAN),
                    "inf" => Some(f64::INFINITY),
                    "-inf" => Some(f64::NEG_INFINITY),
                    _ => t.parse::<f64>().ok(),
                })
                .collect()
        })
        .collect()
}

/// An independent oracle: exported corpus programs, lowered by MLIR's own
/// pipeline (bufferization, linalg to loops, the LLVM dialect) and run by
/// `mlir-cpu-runner`, compute what the eager interpreter computes (within
/// the six digits `printMemref` prints). Programs whose arguments are all
/// plain f32/f64/i64/i32 tensors and whose results are too take part.
#[test]
fn exported_programs_run_by_mlir_compute_what_eager_computes() {
    let (Some(opt), Some(runner)) = (
        tool(&["mlir-opt-19", "/usr/lib/llvm-19/bin/mlir-opt"]),
        tool(&["mlir-cpu-runner-19", "/usr/lib/llvm-19/bin/mlir-cpu-runner"]),
    ) else {
        eprintln!("skipped: no mlir-opt-19 and mlir-cpu-runner-19 (Debian's mlir-19-tools)");
        return;
    };
    let libs = ["/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so", "/usr/lib/llvm-19/lib/libmlir_runner_utils.so"];
    if !libs.iter().all(|l| Path::new(l).exists()) {
        eprintln!("skipped: MLIR's runner libraries are missing");
        return;
    }
    use aot::ir::{ElemType, SourceMgr};
    use aot_run::json::{parse_inputs, ArgSpec, Values};
    aot::init();
    let root = common::corpus_dir("run");
    let dir = std::env::temp_dir().join(format!("aot-mlir-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let printable = |e: ElemType| matches!(e, ElemType::F32 | ElemType::F64 | ElemType::I64 | ElemType::I32);
    // Two processes of MLIR's tools per case: the test command runs every
    // second file (`common::corpus_sample`), `AOT_FULL=1` all of them.
    let files = common::corpus_sample(common::files_ending(&root, ".mlir"), 2);
    // Per case: (1 if it ran, failures).
    let per_file = common::par_map(&files, |path| {
        let path = path.clone();
        let mut failures: Vec<String> = Vec::new();
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let Ok(inputs) = std::fs::read_to_string(path.to_string_lossy().replace(".mlir", ".inputs.json")) else {
            return (0, failures);
        };
        let Ok(spec) = parse_inputs(&inputs) else { return (0, failures) };
        let Some(Ok(exported)) = export(&path, "builtin.module(aot-inference)") else { return (0, failures) };
        // Arguments: plain tensors with their own data.
        let mut consts = Vec::new();
        let mut ok = true;
        for a in &spec.args {
            let ArgSpec::Own { dtype, shape, data, .. } = a else {
                ok = false;
                break;
            };
            if !printable(*dtype) {
                ok = false;
                break;
            }
            let items: Vec<String> = match data {
                Values::Float(v) => v.iter().map(|&x| literal(x, *dtype)).collect(),
                Values::Int(v) => v.iter().map(|&x| literal(x as f64, *dtype)).collect(),
            };
            let t = aot::ir::TensorType::new(shape.clone(), *dtype);
            consts.push((nested(shape, &mut items.into_iter()), t));
        }
        if !ok {
            return (0, failures);
        }
        // Eager outputs.
        let text = std::fs::read_to_string(&path).unwrap();
        let mut ctx = Context::new();
        let mut sources = SourceMgr::new();
        sources.add(&name, std::sync::Arc::from(text.as_str()));
        let Ok(m) = parse_module(&mut ctx, &text, &ParseOptions { file: name.clone(), first_line: 1 }) else {
            return (0, failures);
        };
        let f = aot::dialects::func::entry_func(&ctx, m, None).unwrap().op;
        let Ok(eager) = aot_run::run_eager(&ctx, &sources, f, &spec, 0, false) else { return (0, failures) };
        if !eager.outputs.iter().all(|o| printable(o.dtype())) || eager.outputs.is_empty() {
            return (0, failures);
        }
        // The exported entry's results: mutated arguments first, then outputs.
        let entry = aot::dialects::func::entry_func(&ctx, m, None).unwrap().name(&ctx).to_string();
        let header =
            exported.lines().find(|l| l.contains(&format!("func.func @{entry}("))).unwrap_or_default().to_string();
        let results_txt =
            header.rsplit_once("-> (").map_or("", |(_, r)| r).trim_end_matches(" {").trim_end_matches(')');
        let result_types: Vec<&str> =
            if results_txt.is_empty() { Vec::new() } else { results_txt.split(", ").collect() };
        // Functions that draw random numbers take the generator's seed and
        // offset too (and return the offset): the suites on --backend mlir
        // cover them; this driver passes the case's arguments only.
        let params = header.split_once('(').map_or("", |(_, p)| p).split(") ->").next().unwrap_or("");
        if params.matches("%arg").count() != spec.args.len() {
            return (0, failures);
        }
        let skip = result_types.len() - eager.outputs.len();
        let mut driver = String::from("  func.func @aot_driver() {\n");
        let mut args = Vec::new();
        let mut arg_types = Vec::new();
        for (i, (value, t)) in consts.iter().enumerate() {
            let tt = ty(t);
            driver += &format!("    %a{i} = arith.constant dense<{value}> : {tt}\n");
            args.push(format!("%a{i}"));
            arg_types.push(tt);
        }
        let n = result_types.len();
        driver += &format!(
            "    %r:{n} = func.call @{entry}({}) : ({}) -> ({})\n",
            args.join(", "),
            arg_types.join(", "),
            result_types.join(", ")
        );
        for (k, o) in eager.outputs.iter().enumerate() {
            let t = result_types[skip + k];
            let memref = t.replacen("tensor<", "memref<", 1);
            let e = o.dtype();
            let e_name = e.name();
            let print = match e {
                ElemType::F32 => "printMemrefF32",
                ElemType::F64 => "printMemrefF64",
                ElemType::I64 => "printMemrefI64",
                _ => "printMemrefI32",
            };
            driver += &format!("    %m{k} = bufferization.to_memref %r#{} : {memref}\n", skip + k);
            driver += &format!("    %u{k} = memref.cast %m{k} : {memref} to memref<*x{e_name}>\n");
            driver += &format!("    func.call @{print}(%u{k}) : (memref<*x{e_name}>) -> ()\n");
        }
        driver += "    return\n  }\n";
        for (p, e) in
            [("printMemrefF32", "f32"), ("printMemrefF64", "f64"), ("printMemrefI64", "i64"), ("printMemrefI32", "i32")]
        {
            driver += &format!("  func.func private @{p}(memref<*x{e}>) attributes {{llvm.emit_c_interface}}\n");
        }
        let module = exported.trim_end().trim_end_matches('}').to_string() + &driver + "}\n";
        let file = dir.join(format!("{}.mlir", name.replace('/', "_")));
        std::fs::write(&file, &module).unwrap();
        let lower = format!("--pass-pipeline={}", aot::codegen::mlir::LOWERING);
        let lowered = std::process::Command::new(&opt).arg(&lower).arg(&file).output().unwrap();
        if !lowered.status.success() {
            failures.push(format!("{name}: mlir-opt: {}", String::from_utf8_lossy(&lowered.stderr)));
            return (0, failures);
        }
        let llfile = dir.join(format!("{}.ll.mlir", name.replace('/', "_")));
        std::fs::write(&llfile, &lowered.stdout).unwrap();
        let ran = std::process::Command::new(&runner)
            .args(["-e", "aot_driver", "-entry-point-result=void", &format!("-shared-libs={}", libs.join(","))])
            .arg(&llfile)
            .output()
            .unwrap();
        if !ran.status.success() {
            failures.push(format!("{name}: mlir-cpu-runner: {}", String::from_utf8_lossy(&ran.stderr)));
            return (0, failures);
        }
        let printed = printed_values(&String::from_utf8_lossy(&ran.stdout));
        for (k, o) in eager.outputs.iter().enumerate() {
            let want = o.read_f64();
            if want.is_empty() {
                // printMemref shows an empty memref's data as a placeholder.
                continue;
            }
            let got = printed.get(k).cloned().unwrap_or_default();
            let close = |a: f64, b: f64| {
                (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 2e-5 * a.abs().max(b.abs()) + 1e-6
            };
            if want.len() != got.len() || !want.iter().zip(&got).all(|(&a, &b)| close(a, b)) {
                failures.push(format!("{name}: output {k}: eager {want:?}, MLIR {got:?}"));
            }
        }
        (1, failures)
    });
    let checked: usize = per_file.iter().map(|r| r.0).sum();
    let failures: Vec<String> = per_file.into_iter().flat_map(|r| r.1).collect();
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{checked} exported programs ran through MLIR");
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= common::sampled_least(100, 2), "only {checked} programs ran");
}
