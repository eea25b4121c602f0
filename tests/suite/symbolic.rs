//! Symbolic sizes end to end: each program of `test/symbolic` is compiled once
//! (`aot-inference`, on every backend this build runs here) for arguments
//! of one size, then called with arguments of other sizes (native code is
//! generated per set of symbol values, `aot_codegen::by_size`); every call must agree with the
//! reference interpreter run on the same arguments, field by field
//! (values, layouts of views, aliasing, arguments' final state). A call
//! whose sizes break the function's declared ranges or guards must be
//! refused by the compiled function's guards, as the interpreter refuses
//! it.

use aot::compile::{Backend, CompileOptions};
use aot::ir::sym::Bindings;
use aot::ir::{parse_module, verify, Context, ParseOptions, SourceMgr};
use aot_run::compare::{compare, CompareOptions};
use aot_run::{outputs_json, random_inputs_sized, run_compiled_for, run_eager_calls, Calls};
use serde_json::json;
use std::sync::Arc;

use crate::common;

/// The programs of `test/symbolic` (every symbol is bound by an argument
/// dimension), by file name without its extension.
fn programs() -> Vec<(String, String)> {
    let root = common::corpus_dir("symbolic");
    let files = common::files_ending(&root, ".mlir");
    assert!(files.len() >= 10, "the symbolic corpus at {} is missing", root.display());
    files
        .into_iter()
        .map(|f| {
            let name = f.file_stem().and_then(|n| n.to_str()).expect("a file name").to_string();
            (name, std::fs::read_to_string(&f).expect("reads"))
        })
        .collect()
}

fn parse(ctx: &mut Context, text: &str) -> (aot::ir::Op, aot::ir::Op) {
    let m = parse_module(ctx, text, &ParseOptions { file: "symbolic.mlir".into(), first_line: 1 })
        .unwrap_or_else(|d| panic!("{}", d.message));
    verify(ctx, m).unwrap_or_else(|d| panic!("{}", d[0].message));
    let f = aot::dialects::func::entry_func(ctx, m, None).expect("one function").op;
    (m, f)
}

/// `text`'s function compiled through `BySize` on `backend`, with code
/// reading its sizes at run time or per size.
fn by_size(text: &str, backend: &str, runtime_sizes: bool) -> aot::codegen::by_size::BySize {
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx, text);
    let options = aot::codegen::target::Options { runtime_sizes, ..Default::default() };
    aot::codegen::by_size::BySize::new(&ctx, f, aot::codegen::Native::named(backend, options).unwrap()).unwrap()
}

/// `text` compiled on each backend that reads a size table (Cranelift,
/// and LLVM with the feature): code reading its sizes at run time, and
/// code per size to compare it with.
fn sized_and_per_size(text: &str) -> Vec<(&'static str, aot::codegen::by_size::BySize, aot::codegen::by_size::BySize)> {
    let mut backends = vec!["cranelift"];
    if cfg!(feature = "llvm") {
        backends.push("llvm");
    }
    backends.into_iter().map(|b| (b, by_size(text, b, true), by_size(text, b, false))).collect()
}

/// An f32 tensor of `shape` with deterministic values in [-0.5, 0.5)
/// times `scale`, varied by `seed`.
fn pattern(shape: &[i64], seed: usize, scale: f64) -> aot::runtime::Tensor {
    let n = shape.iter().product::<i64>() as usize;
    let v: Vec<f64> = (0..n).map(|i| ((((i + seed) * 37) % 29) as f64 / 29.0 - 0.5) * scale).collect();
    aot::runtime::Tensor::from_f64(aot::ir::ElemType::F32, shape, &v, aot::ir::ElemType::F32)
}

fn inputs(text: &str, sizes: &str, seed: u64) -> aot_run::json::InputSpec {
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx, text);
    let b = Bindings::parse(sizes).expect("sizes");
    random_inputs_sized(&ctx, f, seed, &b).unwrap_or_else(|e| panic!("inputs for {sizes}: {e}"))
}

/// Compiled once at `compile_at`, called at each of `call_at` (twice, the
/// generator's stream continuing, so that random ops' offsets count).
fn check(backend: Backend, name: &str, text: &str, compile_at: &str, call_at: &[&str]) -> Vec<String> {
    let name = format!("{name} [{}]", backend.name());
    let mut sources = SourceMgr::new();
    sources.add("symbolic.mlir", Arc::from(text));
    let compile_for = inputs(text, compile_at, 1);
    let mut diffs = Vec::new();
    for (k, sizes) in call_at.iter().enumerate() {
        let spec = inputs(text, sizes, 10 + k as u64);
        let mut ctx = Context::new();
        let (_, f) = parse(&mut ctx, text);
        let calls = Calls { seed: 7, count: 2, grad: None };
        let eager = match run_eager_calls(&ctx, &sources, f, &spec, calls, false) {
            Ok(r) => r.to_json(),
            Err(e) => json!({ "error": e.to_string() }),
        };
        let mut ctx2 = Context::new();
        let (m2, f2) = parse(&mut ctx2, text);
        let opts = CompileOptions { pipeline: "aot-inference".into(), backend, keep_ir: false, progress: false };
        let calls = Calls { seed: 7, count: 2, grad: None };
        let compiled = match run_compiled_for(ctx2, &sources, m2, f2, &compile_for, &spec, &opts, calls) {
            Ok(r) => outputs_json(&r.outputs, &r.args),
            Err(e) => json!({ "error": e.to_string() }),
        };
        if compiled.get("error").is_some() || eager.get("error").is_some() {
            diffs.push(format!(
                "{name} at {sizes}: eager {:?}, compiled {:?}",
                eager.get("error"),
                compiled.get("error")
            ));
            continue;
        }
        let opts = CompareOptions { grads: false, slack: 1.0, all_layouts: true, hidden_output_aliasing: true };
        diffs.extend(compare(&compiled, &eager, opts).into_iter().map(|d| format!("{name} at {sizes}: {d}")));
    }
    diffs
}

/// The backends that run every program here.
fn backends() -> Vec<Backend> {
    Backend::available().into_iter().map(|(_, b)| b).filter(|b| b.runs_everything_here()).collect()
}

#[test]
fn one_compile_serves_every_size() {
    let mut diffs = Vec::new();
    for (name, text) in programs() {
        let (compile_at, sizes) = common::symbolic_sizes(&name);
        for backend in backends() {
            diffs.extend(check(backend, &name, &text, compile_at, sizes));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Every program of the corpus lowers to code that reads its sizes at run
/// time (none falls back to code per size, which `one_compile_serves_
/// every_size` would not see: its results are the same).
#[test]
fn the_corpus_reads_its_sizes_at_run_time() {
    aot::init();
    let mut refused = Vec::new();
    for (name, text) in programs() {
        let (mut ctx, f) = common::pipelined(&text, &name).unwrap_or_else(|| panic!("{name}: aot-inference fails"));
        let native = aot::codegen::Native::default();
        if let Err(e) = aot::codegen::compile_function(&mut ctx, f, &native, &mut String::new()) {
            refused.push(format!("{name}: {e}"));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// The compiled function's guards bind the symbols and check the ranges
/// and guards the function declares, as the interpreter does.
#[test]
fn a_call_outside_the_declared_ranges_and_guards_is_refused() {
    let text = r#"func.func @f(%x: tensor<s0x2xf32>) -> tensor<s0xf32> attributes {aot.symbols = {s0 = array<i64: 2, 6>}, aot.guards = ["(s0 mod 3) != 1"]} {
  %0 = tensor.sum %x {dims = [1]} : tensor<s0x2xf32> -> tensor<s0xf32>
  return %0 : tensor<s0xf32>
}"#;
    let mut sources = SourceMgr::new();
    sources.add("symbolic.mlir", Arc::from(text));
    let compile_for = inputs(text, "s0=3", 1);
    for backend in backends() {
        let run = |sizes: &str| {
            let spec = inputs(text, sizes, 2);
            let mut ctx = Context::new();
            let (m, f) = parse(&mut ctx, text);
            let opts = CompileOptions { pipeline: "aot-inference".into(), backend, keep_ir: false, progress: false };
            run_compiled_for(ctx, &sources, m, f, &compile_for, &spec, &opts, Calls { seed: 7, count: 1, grad: None })
                .map(|r| r.outputs[0].sizes().to_vec())
                .map_err(|e| e.to_string())
        };
        assert_eq!(run("s0=5"), Ok(vec![5]));
        assert_eq!(run("s0=4").unwrap_err(), "guard (s0 mod 3) != 1 fails with s0 = 4");
        assert_eq!(
            run("s0=7").unwrap_err(),
            "argument 0 has size 7 at dimension 0, outside the range [2, 6] of symbol s0"
        );
    }
}

/// Training programs: each compiled once (`aot-train`, on every backend)
/// at one size, its forward and backward then run at other sizes;
/// outputs and gradients must agree with eager execution and central
/// finite differences at that size. `sum_only`'s backward receives none of
/// the forward's tensors with the size of `x`: the forward saves the value
/// of `s0` itself (`tensor.size_value`), which the backward binds.
const TRAINING: &[(&str, &str)] = &[
    (
        // Outputs that view an argument which requires grad: their
        // tangents reach its gradient through routes between symbolic
        // layouts, resolved for each call's sizes.
        "outputs_view_the_argument",
        r#"func.func @f(%x: tensor<s0x3xf32> {aot.requires_grad}) -> (tensor<3xs0xf32>, tensor<(s0*3)xf32>, tensor<s0x3xf32>) {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<s0x3xf32> -> tensor<3xs0xf32>
  %f = view.view %x {shape = array<i64: (s0*3)>} : tensor<s0x3xf32> -> tensor<(s0*3)xf32>
  %e = tensor.exp %x : tensor<s0x3xf32>
  return %t, %f, %e : tensor<3xs0xf32>, tensor<(s0*3)xf32>, tensor<s0x3xf32>
}"#,
    ),
    (
        "mse",
        r#"func.func @f(%x: tensor<s0x8xf32>, %w: tensor<4x8xf32> {aot.requires_grad}, %b: tensor<4xf32> {aot.requires_grad}, %t: tensor<s0x4xf32>) -> tensor<f32> {
  %h = tensor.linear %x, %w, %b : tensor<s0x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<s0x4xf32>
  %g = tensor.gelu %h : tensor<s0x4xf32>
  %d = tensor.sub %g, %t : tensor<s0x4xf32>, tensor<s0x4xf32> -> tensor<s0x4xf32>
  %sq = tensor.mul %d, %d : tensor<s0x4xf32>
  %m = tensor.mean %sq : tensor<s0x4xf32> -> tensor<f32>
  return %m : tensor<f32>
}"#,
    ),
    (
        // Rows of a wider buffer (never overlapping: the stride test over
        // a symbolic count of rows proves it), as a multi-head split or an
        // unfold makes them.
        "as_strided_rows",
        r#"func.func @f(%x: tensor<s0x4xf32> {aot.requires_grad}) -> tensor<f32> {
  %v = view.as_strided %x {size = array<i64: s0, 3>, stride = array<i64: 4, 1>, offset = 1} : tensor<s0x4xf32> -> tensor<s0x3xf32>
  %e = tensor.exp %v : tensor<s0x3xf32>
  %s = tensor.sum %e : tensor<s0x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}"#,
    ),
    (
        "sum_only",
        r#"func.func @f(%x: tensor<s0xf32> {aot.requires_grad}) -> tensor<f32> {
  %s = tensor.sum %x : tensor<s0xf32> -> tensor<f32>
  return %s : tensor<f32>
}"#,
    ),
    (
        "norm_var_cat",
        r#"func.func @f(%x: tensor<s0x3x8xf32> {aot.requires_grad}, %w: tensor<8xf32> {aot.requires_grad}, %bb: tensor<8xf32>, %e: tensor<2x8xf32> {aot.requires_grad}) -> (tensor<(s0*3 + 2)x8xf32>, tensor<f32>) {
  %ln:3 = tensor.layer_norm %x, %w, %bb {normalized_ndim = 1, eps = 1.0e-05} : tensor<s0x3x8xf32>, tensor<8xf32>, tensor<8xf32> -> (tensor<s0x3x8xf32>, tensor<s0x3x1xf32>, tensor<s0x3x1xf32>)
  %f = view.reshape %ln#0 {shape = array<i64: -1, 8>} : tensor<s0x3x8xf32> -> tensor<(s0*3)x8xf32>
  %c = tensor.cat %f, %e {dim = 0} : tensor<(s0*3)x8xf32>, tensor<2x8xf32> -> tensor<(s0*3 + 2)x8xf32>
  %v = tensor.var %x {dims = [0, 1]} : tensor<s0x3x8xf32> -> tensor<8xf32>
  %s = tensor.sum %v : tensor<8xf32> -> tensor<f32>
  return %c, %s : tensor<(s0*3 + 2)x8xf32>, tensor<f32>
}"#,
    ),
];

fn train_check(backend: Backend, name: &str, text: &str, compile_at: &str, sizes: &str) -> Vec<String> {
    train_check_with(backend, name, text, compile_at, sizes, &|at, seed| inputs(text, at, seed))
}

/// [`train_check`] on the arguments `make(sizes, seed)` gives.
fn train_check_with(
    backend: Backend,
    name: &str,
    text: &str,
    compile_at: &str,
    sizes: &str,
    make: &dyn Fn(&str, u64) -> aot_run::json::InputSpec,
) -> Vec<String> {
    let name = format!("{name} [{}]", backend.name());
    use aot_run::json::TangentSpec;
    let mut sources = SourceMgr::new();
    sources.add("symbolic.mlir", Arc::from(text));
    let compile_for = make(compile_at, 1);
    let spec = make(sizes, 5);
    let tangents = TangentSpec::default();
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx, text);
    let mut expected = match aot_run::run_eager(&ctx, &sources, f, &spec, 0, false) {
        Ok(r) => {
            let mut e = r.to_json();
            let g = aot_run::fd::finite_differences(&ctx, &sources, f, &spec, &tangents, &r, 0)
                .unwrap_or_else(|e| panic!("{name}: finite differences: {e}"));
            e["grads"] = serde_json::Value::Array(g.grads);
            e["storage_grads"] = serde_json::Value::Array(g.storage_grads);
            e
        }
        Err(e) => json!({ "error": e.to_string() }),
    };
    if let Some(o) = expected.as_object_mut() {
        o.remove("args_after");
    }
    let mut ctx2 = Context::new();
    let (m2, f2) = parse(&mut ctx2, text);
    let opts = CompileOptions { pipeline: "aot-train".into(), backend, keep_ir: false, progress: false };
    let calls = Calls { seed: 0, count: 1, grad: Some(&tangents) };
    let mut compiled = run_json(run_compiled_for(ctx2, &sources, m2, f2, &compile_for, &spec, &opts, calls));
    if let Some(o) = compiled.as_object_mut() {
        o.remove("args_after");
    }
    let opts = CompareOptions { grads: true, slack: 1.0, all_layouts: false, hidden_output_aliasing: true };
    compare(&compiled, &expected, opts).into_iter().map(|d| format!("{name} at {sizes}: {d}")).collect()
}

#[test]
fn one_training_compile_serves_every_size() {
    let mut diffs = Vec::new();
    for (name, text) in TRAINING {
        for backend in backends() {
            for sizes in ["s0=2", "s0=3", "s0=6"] {
                diffs.extend(train_check(backend, name, text, "s0=4", sizes));
            }
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// A compiled run as the output file writes it, gradients included; an
/// error as `{"error": ...}`.
fn run_json(r: Result<aot_run::CompiledRun, aot_run::RunError>) -> serde_json::Value {
    match r {
        Ok(r) => r.to_json(),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

/// [`train_check_with`] on every backend at each of `sizes`, compiled at
/// `compile_at`; fails listing the differences.
fn trains_at_every_size(
    name: &str,
    text: &str,
    compile_at: &str,
    sizes: &[&str],
    make: &dyn Fn(&str, u64) -> aot_run::json::InputSpec,
) {
    let mut diffs = Vec::new();
    for backend in backends() {
        for at in sizes {
            diffs.extend(train_check_with(backend, name, text, compile_at, at, make));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// `k` deterministic values in [-1.1, 1.1], varied by `salt` and `seed`.
fn values(k: usize, salt: usize, seed: u64) -> Vec<f64> {
    (0..k).map(|i| (((i * 37 + salt * 11 + seed as usize * 5) % 23) as f64 - 11.0) / 10.0).collect()
}

/// Arguments that require grad and are not leaves (activations of an
/// earlier region), one written in place and returned through a view, the
/// other returned as is: the written argument's new value and the view
/// each take a tangent, the view's routed into the new value's, the
/// returned argument's straight to its gradient; routes between symbolic
/// layouts resolved per call's sizes (these were refused).
#[test]
fn written_and_returned_arguments_train_at_every_size() {
    let text = r#"func.func @f(%x: tensor<s0x3xf32>, %y: tensor<s0x3xf32>) -> (tensor<s0x1xf32>, tensor<s0x3xf32>) {
  %c = tensor.constant dense<1.0> : tensor<f32>
  mut.add_ %x, %c : tensor<s0x3xf32>, tensor<f32>
  %s = view.slice %x {dim = 1, start = 0, end = 1} : tensor<s0x3xf32> -> tensor<s0x1xf32>
  return %s, %y : tensor<s0x1xf32>, tensor<s0x3xf32>
}"#;
    let make = |at: &str, seed: u64| {
        let mut spec = inputs(text, at, seed);
        for a in spec.args.iter_mut() {
            if let aot_run::json::ArgSpec::Own { requires_grad, non_leaf, .. } = a {
                (*requires_grad, *non_leaf) = (true, true);
            }
        }
        spec
    };
    trains_at_every_size("written_and_returned", text, "s0=4", &["s0=2", "s0=3", "s0=7"], &make);
}

/// Parameters that are views of one flat buffer which requires grad (as
/// FSDP2 unshards them), beside an activation of symbolic batch size: the
/// gradient reaches the buffer through element routes of the parameters'
/// static layouts (this was refused with any symbolic size).
#[test]
fn views_of_a_flat_parameter_buffer_train_with_a_symbolic_batch() {
    let text = r#"func.func @f(%x: tensor<s0x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %h = tensor.linear %x, %w, %b : tensor<s0x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<s0x4xf32>
  %t = tensor.tanh %h : tensor<s0x4xf32>
  %s = tensor.sum %t : tensor<s0x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}"#;
    let make = |at: &str, seed: u64| {
        let n: usize = at.trim_start_matches("s0=").parse().expect("s0=N");
        let spec = json!({
            "args": [
                { "dtype": "f32", "shape": [n, 4], "data": values(n * 4, 1, seed) },
                { "storage": 0, "size": [4, 4], "stride": [4, 1], "offset": 0 },
                { "storage": 0, "size": [4], "stride": [1], "offset": 16 },
            ],
            "storages": [{ "dtype": "f32", "data": values(20, 2, seed), "base": true }],
        });
        aot_run::json::parse_inputs(&spec.to_string()).expect("inputs")
    };
    trains_at_every_size("flat_parameter_buffer", text, "s0=4", &["s0=2", "s0=3", "s0=9"], &make);
}

/// An image batch laid out channels-last, with symbolic batch and image
/// sizes: compiled once (its layout the strides of that order of its
/// dimensions, as expressions), called at other sizes on every backend,
/// in inference against eager and in training against finite
/// differences; a call with a row-major batch is refused by the guards.
#[test]
fn a_channels_last_argument_compiles_once() {
    let text = r#"func.func @f(%x: tensor<s0x3xs1xs1xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<s0x4x(s1 - 2)x(s1 - 2)xf32> attributes {aot.symbols = {s1 = array<i64: 4, 64>}} {
  %y = tensor.conv %x, %w, %b : tensor<s0x3xs1xs1xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<s0x4x(s1 - 2)x(s1 - 2)xf32>
  %z = tensor.tanh %y : tensor<s0x4x(s1 - 2)x(s1 - 2)xf32>
  return %z : tensor<s0x4x(s1 - 2)x(s1 - 2)xf32>
}"#;
    let spec = |at: &str, seed: u64, channels_last: bool, requires_grad: bool| {
        let b = Bindings::parse(at).expect("sizes");
        let (n, h) = (b.get(0).expect("s0") as usize, b.get(1).expect("s1") as usize);
        let stride = match channels_last {
            true => [3 * h * h, 1, 3 * h, 3],
            false => [3 * h * h, h * h, h, 1],
        };
        let spec = json!({
            "args": [
                { "storage": 0, "size": [n, 3, h, h], "stride": stride, "offset": 0, "requires_grad": requires_grad },
                { "dtype": "f32", "shape": [4, 3, 3, 3], "data": values(108, 1, seed) },
                { "dtype": "f32", "shape": [4], "data": values(4, 2, seed) },
            ],
            "storages": [{ "dtype": "f32", "data": values(n * 3 * h * h, 3, seed) }],
        });
        aot_run::json::parse_inputs(&spec.to_string()).expect("inputs")
    };
    let mut sources = SourceMgr::new();
    sources.add("symbolic.mlir", Arc::from(text));
    let mut diffs = Vec::new();
    for backend in backends() {
        let sizes = ["s0=2,s1=6", "s0=3,s1=9", "s0=2,s1=4"];
        let specs: Vec<_> = sizes.iter().map(|at| spec(at, 7, true, false)).collect();
        let mut ctx = Context::new();
        let (m, f) = parse(&mut ctx, text);
        let opts = CompileOptions { pipeline: "aot-inference".into(), backend, keep_ir: false, progress: false };
        let calls = Calls { seed: 7, count: 1, grad: None };
        let mut calls_at: Vec<&aot_run::json::InputSpec> = specs.iter().collect();
        let row_major = spec("s0=2,s1=5", 7, false, false);
        calls_at.push(&row_major);
        let hint = spec("s0=2,s1=5", 1, true, false);
        let runs = aot_run::run_compiled_each(ctx, &sources, m, f, &hint, &calls_at, &opts, calls)
            .unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
        for ((at, spec), run) in sizes.iter().zip(&specs).zip(&runs) {
            let mut ectx = Context::new();
            let (_, ef) = parse(&mut ectx, text);
            let eager = run_eager_calls(&ectx, &sources, ef, spec, calls, false).expect("eager").to_json();
            let got = match run {
                Ok(r) => outputs_json(&r.outputs, &r.args),
                Err(e) => panic!("{} at {at}: {e}", backend.name()),
            };
            let opts = CompareOptions { grads: false, slack: 1.0, all_layouts: true, hidden_output_aliasing: true };
            diffs.extend(compare(&got, &eager, opts).into_iter().map(|d| format!("{} at {at}: {d}", backend.name())));
        }
        match &runs[3] {
            Err(e) => assert!(e.to_string().contains("was compiled for strides"), "{e}"),
            Ok(_) => diffs.push(format!("{}: a row-major batch was not refused", backend.name())),
        }
        for at in ["s0=2,s1=6", "s0=3,s1=5"] {
            let make = |at: &str, seed: u64| spec(at, seed, true, true);
            diffs.extend(train_check_with(backend, "channels_last", text, "s0=2,s1=5", at, &make));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // Code generated per size from the compiled function (what a lowering
    // without run-time sizes gets): specialising it evaluates the layout
    // and storage records too (they stayed symbolic, and the specialised
    // function did not verify: fuzz seed 146925).
    let with_layout = text.replace(
        "%x: tensor<s0x3xs1xs1xf32>,",
        "%x: tensor<s0x3xs1xs1xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = array<i64: (s1*s1*3), 1, (s1*3), 3>>},",
    ).replace(
        "attributes {aot.symbols",
        "attributes {aot.storages = [#aot.storage<id = 0, numel = (s0*s1*s1*3)>], aot.symbols",
    );
    assert_ne!(with_layout, text);
    use aot::runtime::compiled::Executable;
    let (mut per_size, mut sized) =
        (by_size(&with_layout, "cranelift", false), by_size(&with_layout, "cranelift", true));
    for (n, h) in [(2i64, 6i64), (3, 5)] {
        let nhwc = pattern(&[n, h, h, 3], 1, 2.0);
        let x = aot::runtime::Tensor::from_parts(
            nhwc.storage(),
            aot::ir::ElemType::F32,
            [n, 3, h, h].as_slice().into(),
            [3 * h * h, 1, 3 * h, 3].as_slice().into(),
            0,
        )
        .unwrap();
        let (w, b) = (pattern(&[4, 3, 3, 3], 2, 1.0), pattern(&[4], 3, 1.0));
        let got =
            per_size.run(vec![x.clone(), w.clone(), b.clone()]).unwrap_or_else(|e| panic!("per size at {n}x{h}: {e}"));
        let want = sized.run(vec![x, w, b]).unwrap_or_else(|e| panic!("run-time sizes at {n}x{h}: {e}"));
        assert_eq!(got[0].sizes().to_vec(), vec![n, 4, h - 2, h - 2]);
        let (g, w2) = (got[0].read_f64(), want[0].read_f64());
        assert!(g.iter().zip(&w2).all(|(a, b)| (a - b).abs() <= 1e-5), "per size differs at {n}x{h}");
    }
    assert!(per_size.versions_built() >= 2, "code per size");
}

/// The Philox ops over symbolic counts read them at run time: whole
/// blocks to `n floordiv 4`, then the `n mod 4` values of the partial
/// block with their lane picked at run time. They give per-size code's
/// bits (whose tail is static), at counts that fill blocks and ones that
/// leave a partial block, on both backends that read a size table.
#[test]
fn philox_draws_read_their_count_at_run_time() {
    use aot::ir::ElemType;
    use aot::runtime::compiled::Executable;
    use aot::runtime::Tensor;
    let text = r#"func.func @f(%seed: tensor<i64>, %off: tensor<i64>, %x: tensor<s0x3xf32>, %p: tensor<s1xf32>) -> (tensor<s0x3xf32>, tensor<s0x3xi1>, tensor<(s0*2 + 1)xf32>, tensor<s1xf32>, tensor<s1x3xf64>) {
  %d:2 = rng.philox_dropout %seed, %off, %x {p = 0.25} : tensor<i64>, tensor<i64>, tensor<s0x3xf32> -> (tensor<s0x3xf32>, tensor<s0x3xi1>)
  %n = rng.philox_normal %seed, %off {mean = 1.0, std = 0.5} : tensor<i64>, tensor<i64> -> tensor<(s0*2 + 1)xf32>
  %b = rng.philox_bernoulli %seed, %off, %p : tensor<i64>, tensor<i64>, tensor<s1xf32> -> tensor<s1xf32>
  %u = rng.philox_uniform %seed, %off {low = -1.0, high = 1.0} : tensor<i64>, tensor<i64> -> tensor<s1x3xf64>
  return %d#0, %d#1, %n, %b, %u : tensor<s0x3xf32>, tensor<s0x3xi1>, tensor<(s0*2 + 1)xf32>, tensor<s1xf32>, tensor<s1x3xf64>
}"#;
    for (backend, mut sized, mut per_size) in sized_and_per_size(text) {
        for (n, m) in [(2i64, 4i64), (3, 5), (7, 2), (4, 9)] {
            let args = || {
                let probs: Vec<f64> = (0..m).map(|i| (i as f64 + 0.5) / m as f64).collect();
                vec![
                    Tensor::from_f64(ElemType::I64, &[], &[11.0], ElemType::I64),
                    Tensor::from_f64(ElemType::I64, &[], &[8.0], ElemType::I64),
                    pattern(&[n, 3], 1, 2.0),
                    Tensor::from_f64(ElemType::F32, &[m], &probs, ElemType::F32),
                ]
            };
            let got = sized.run(args()).unwrap_or_else(|e| panic!("{backend} at {n},{m}: {e}"));
            let want = per_size.run(args()).unwrap();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.sizes().to_vec(), w.sizes().to_vec());
                let same = g.read_f64().iter().zip(&w.read_f64()).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{backend}: result {k} differs at s0={n}, s1={m}");
            }
        }
        assert!(sized.runs_with_runtime_sizes(), "{backend}: {:?}", sized.runtime_sizes_refused());
        assert_eq!(sized.versions_built(), 0, "{backend}: no code generated per size");
    }
}

/// The embedding API: `Module::compile` with example arguments of one size
/// gives a `Function` that takes any size its symbols allow, and refuses
/// one they do not.
#[test]
fn module_compile_takes_a_symbolic_signature() {
    use aot::ir::ElemType;
    use aot::runtime::Tensor;
    let text = r#"func.func @f(%x: tensor<s0x2xf32>) -> tensor<s0xf32> attributes {aot.symbols = {s0 = array<i64: 2, 6>}} {
  %0 = tensor.sum %x {dims = [1]} : tensor<s0x2xf32> -> tensor<s0xf32>
  return %0 : tensor<s0xf32>
}"#;
    let m = aot::Module::parse(text, "symbolic.mlir").unwrap();
    let x = |n: usize| {
        let data: Vec<f64> = (0..2 * n).map(|i| i as f64).collect();
        Tensor::from_f64(ElemType::F32, &[n as i64, 2], &data, ElemType::F32)
    };
    for backend in backends() {
        let opts = aot::Options::inference().with_backend(backend);
        let mut f = m.compile(None, &[x(3)], &opts).unwrap();
        for n in [2usize, 3, 5, 2] {
            let out = f.call(&[x(n)]).unwrap();
            let want: Vec<f64> = (0..n).map(|i| (4 * i + 1) as f64).collect();
            assert_eq!(out[0].read_f64(), want, "s0 = {n} [{}]", backend.name());
        }
        let e = f.call(&[x(7)]).unwrap_err().to_string();
        assert!(e.contains("outside the range [2, 6] of symbol s0"), "{e}");
    }
}

/// `sym::specialise_function` evaluates every size of a function, in types
/// and attributes, and drops what only a symbolic function has.
#[test]
fn specialising_a_function_evaluates_every_size() {
    use aot::ir::printer::print_op;
    let text = r#"func.func @f(%x: tensor<s0x2xf32>, %n: tensor<i64> {aot.symbol = 1}) -> tensor<(s0*2)xf32> attributes {aot.symbols = {s0 = array<i64: 2, 64>, s1 = array<i64: 2, 9>}, aot.guards = ["(s0 mod 3) != 1"]} {
  %0 = view.reshape %x {shape = array<i64: -1>} : tensor<s0x2xf32> -> tensor<(s0*2)xf32>
  %1 = tensor.size_value {size = array<i64: (s1*3 + s0)>} : tensor<f32>
  %2 = tensor.mul %0, %1 : tensor<(s0*2)xf32>, tensor<f32> -> tensor<(s0*2)xf32>
  return %2 : tensor<(s0*2)xf32>
}"#;
    let mut ctx = Context::new();
    let (m, f) = parse(&mut ctx, text);
    let b = Bindings::parse("s0=5,s1=4").unwrap();
    aot::ir::sym::specialise_function(&mut ctx, f, &b).unwrap();
    verify(&ctx, m).unwrap_or_else(|d| panic!("{}", d[0].message));
    let out = print_op(&ctx, f, Default::default());
    assert!(out.contains("(%arg0: tensor<5x2xf32>, %arg1: tensor<i64>) -> tensor<10xf32>"), "{out}");
    assert!(out.contains("{size = array<i64: 17>}"), "{out}");
    assert!(out.contains("tensor<5x2xf32> -> tensor<10xf32>"), "{out}");
    for gone in ["aot.symbol", "aot.guards", "s0", "s1"] {
        assert!(!out.contains(gone), "{gone} left in:\n{out}");
    }
}

/// Native code for a symbolic function is generated once per set of symbol
/// values and reused; at most `BySize::MAX` versions are kept.
#[test]
fn native_code_is_generated_once_per_size() {
    use aot::codegen::by_size::BySize;
    use aot::ir::ElemType;
    use aot::runtime::compiled::Executable;
    use aot::runtime::Tensor;
    let text = r#"func.func @f(%x: tensor<s0x2xf32>) -> tensor<s0xf32> {
  %0 = tensor.sum %x {dims = [1]} : tensor<s0x2xf32> -> tensor<s0xf32>
  return %0 : tensor<s0xf32>
}"#;
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx, text);
    // (Per size whatever AOT_RUNTIME_SIZES says.)
    let options = aot::codegen::target::Options { runtime_sizes: false, ..Default::default() };
    let native = aot::codegen::Native::named("cranelift", options).unwrap();
    let mut exe = BySize::new(&ctx, f, native).unwrap();
    let x = |n: usize| {
        let data: Vec<f64> = (0..2 * n).map(|i| i as f64).collect();
        Tensor::from_f64(ElemType::F32, &[n as i64, 2], &data, ElemType::F32)
    };
    for n in [3, 5, 3, 5, 2] {
        let out = exe.run(vec![x(n)]).unwrap();
        let want: Vec<f64> = (0..n).map(|i| (4 * i + 1) as f64).collect();
        assert_eq!(out[0].read_f64(), want, "s0 = {n}");
    }
    assert_eq!(exe.versions_built(), 3);
    // More sizes than are kept: the least recently used is compiled again.
    let mut n = 2;
    while exe.versions_built() < BySize::MAX + 3 {
        n += 1;
        exe.run(vec![x(n)]).unwrap();
    }
    let built = exe.versions_built();
    exe.run(vec![x(n)]).unwrap();
    assert_eq!(exe.versions_built(), built, "the latest version is kept");
    exe.run(vec![x(3)]).unwrap();
    assert_eq!(exe.versions_built(), built + 1, "the oldest version was dropped");
    let e = exe.run(vec![Tensor::from_f64(ElemType::F32, &[1, 2], &[0.0, 1.0], ElemType::F32)]).unwrap_err();
    assert!(e.contains("sizes 0 and 1 are specialized"), "{e}");
}

/// With run-time sizes, a symbolic function of elementwise ops compiles
/// once into kernels that read their sizes from a table: no code is
/// generated per size, small and large sizes (a split across threads)
/// give what per-size code gives, bit for bit, and the ranges are still
/// checked. A function whose ops need static sizes is compiled per size,
/// with the reason kept.
#[test]
fn native_code_reads_sizes_at_run_time() {
    reads_sizes_at_run_time("cranelift");
}

/// The LLVM backend's kernels read the same size table: the same programs,
/// bit-equal to LLVM's own per-size code.
#[cfg(feature = "llvm")]
#[test]
fn llvm_code_reads_sizes_at_run_time() {
    reads_sizes_at_run_time("llvm");
}

fn reads_sizes_at_run_time(backend: &str) {
    use aot::ir::ElemType;
    use aot::runtime::compiled::Executable;
    use aot::runtime::Tensor;
    let elementwise = r#"func.func @f(%x: tensor<s0xs1xf32>, %b: tensor<s1xf32>) -> (tensor<s0xs1xf32>, tensor<s0xs1xf32>) {
  %0 = tensor.add %x, %b : tensor<s0xs1xf32>, tensor<s1xf32> -> tensor<s0xs1xf32>
  %1 = tensor.mul %0, %x : tensor<s0xs1xf32>, tensor<s0xs1xf32> -> tensor<s0xs1xf32>
  %2 = tensor.maximum %1, %b : tensor<s0xs1xf32>, tensor<s1xf32> -> tensor<s0xs1xf32>
  %3 = tensor.neg %2 : tensor<s0xs1xf32>
  return %3, %0 : tensor<s0xs1xf32>, tensor<s0xs1xf32>
}"#;
    let compile = |text: &str, runtime_sizes: bool| by_size(text, backend, runtime_sizes);
    let args = |rows: usize, cols: usize| {
        let x: Vec<f64> = (0..rows * cols).map(|i| ((i * 37) % 23) as f64 - 11.5).collect();
        let b: Vec<f64> = (0..cols).map(|j| (j % 5) as f64 * 0.25 - 0.5).collect();
        vec![
            Tensor::from_f64(ElemType::F32, &[rows as i64, cols as i64], &x, ElemType::F32),
            Tensor::from_f64(ElemType::F32, &[cols as i64], &b, ElemType::F32),
        ]
    };
    let (mut sized, mut per_size) = (compile(elementwise, true), compile(elementwise, false));
    for (rows, cols) in [(3, 4), (5, 2), (300, 257), (3, 4), (2, 9)] {
        let got = sized.run(args(rows, cols)).unwrap();
        let want = per_size.run(args(rows, cols)).unwrap();
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.sizes().to_vec(), vec![rows as i64, cols as i64]);
            assert_eq!(g.strides().to_vec(), w.strides().to_vec());
            assert_eq!(g.read_f64(), w.read_f64(), "{rows}x{cols}");
        }
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0, "no code generated per size");
    assert_eq!(per_size.versions_built(), 4);
    let e = sized.run(args(1, 4)).unwrap_err();
    assert!(e.contains("sizes 0 and 1 are specialized"), "{e}");
    let e = sized.run(vec![args(3, 4).remove(0), args(3, 5).remove(1)]).unwrap_err();
    assert!(e.contains("argument 1"), "{e}");

    // Reductions: sums, maxima, softmax and means over any sizes (a mean
    // over a symbolic dimension divides by the count read at run time).
    let reductions = r#"func.func @f(%x: tensor<s0x8xf32>) -> (tensor<s0xf32>, tensor<s0x8xf32>, tensor<s0xf32>, tensor<8xf32>) {
  %0 = tensor.sum %x {dims = [1]} : tensor<s0x8xf32> -> tensor<s0xf32>
  %1 = tensor.softmax %x {dim = 1} : tensor<s0x8xf32> -> tensor<s0x8xf32>
  %2 = tensor.mean %x {dims = [1]} : tensor<s0x8xf32> -> tensor<s0xf32>
  %3 = tensor.amax %x {dims = [0]} : tensor<s0x8xf32> -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<s0xf32>, tensor<s0x8xf32>, tensor<s0xf32>, tensor<8xf32>
}"#;
    let x = |rows: usize| {
        let v: Vec<f64> = (0..rows * 8).map(|i| ((i * 29) % 19) as f64 * 0.5 - 4.0).collect();
        vec![Tensor::from_f64(ElemType::F32, &[rows as i64, 8], &v, ElemType::F32)]
    };
    let (mut sized, mut per_size) = (compile(reductions, true), compile(reductions, false));
    for rows in [3, 70, 5] {
        let (got, want) = (sized.run(x(rows)).unwrap(), per_size.run(x(rows)).unwrap());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.read_f64(), w.read_f64(), "{rows} rows");
        }
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);
    // An MLP block: GEMMs planned per size, a GELU, a layer norm over its
    // static features, a softmax.
    let mlp = r#"func.func @f(%x: tensor<s0x16xf32>, %w1: tensor<32x16xf32>, %b1: tensor<32xf32>, %w2: tensor<8x32xf32>) -> tensor<s0x8xf32> {
  %h = tensor.linear %x, %w1, %b1 : tensor<s0x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<s0x32xf32>
  %g = tensor.gelu %h : tensor<s0x32xf32>
  %n:3 = tensor.layer_norm %g {normalized_ndim = 1, eps = 1.0e-5} : tensor<s0x32xf32> -> (tensor<s0x32xf32>, tensor<s0x1xf32>, tensor<s0x1xf32>)
  %o = tensor.linear %n#0, %w2 : tensor<s0x32xf32>, tensor<8x32xf32> -> tensor<s0x8xf32>
  %s = tensor.softmax %o {dim = 1} : tensor<s0x8xf32> -> tensor<s0x8xf32>
  return %s : tensor<s0x8xf32>
}"#;
    let t = |shape: &[i64], seed: usize| pattern(shape, seed, 1.0);
    let mlp_args = |rows: i64| vec![t(&[rows, 16], 1), t(&[32, 16], 2), t(&[32], 3), t(&[8, 32], 4)];
    let (mut sized, mut per_size) = (compile(mlp, true), compile(mlp, false));
    for rows in [3, 70, 2, 3] {
        let (got, want) = (sized.run(mlp_args(rows)).unwrap(), per_size.run(mlp_args(rows)).unwrap());
        for (g, w) in got[0].read_f64().iter().zip(want[0].read_f64()) {
            assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{rows} rows: {g} against {w}");
        }
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);
    // Attention written out: views (slices, a transpose) are layouts of
    // symbolic strides, the scores s0 × s0.
    let attention = r#"func.func @f(%x: tensor<s0x16xf32>, %w: tensor<48x16xf32>) -> tensor<s0x16xf32> {
  %qkv = tensor.linear %x, %w : tensor<s0x16xf32>, tensor<48x16xf32> -> tensor<s0x48xf32>
  %q = view.slice %qkv {dim = 1, start = 0, end = 16, step = 1} : tensor<s0x48xf32> -> tensor<s0x16xf32>
  %k = view.slice %qkv {dim = 1, start = 16, end = 32, step = 1} : tensor<s0x48xf32> -> tensor<s0x16xf32>
  %v = view.slice %qkv {dim = 1, start = 32, end = 48, step = 1} : tensor<s0x48xf32> -> tensor<s0x16xf32>
  %kt = view.transpose %k {dim0 = 0, dim1 = 1} : tensor<s0x16xf32> -> tensor<16xs0xf32>
  %s = tensor.matmul %q, %kt : tensor<s0x16xf32>, tensor<16xs0xf32> -> tensor<s0xs0xf32>
  %p = tensor.softmax %s {dim = 1} : tensor<s0xs0xf32> -> tensor<s0xs0xf32>
  %o = tensor.matmul %p, %v : tensor<s0xs0xf32>, tensor<s0x16xf32> -> tensor<s0x16xf32>
  return %o : tensor<s0x16xf32>
}"#;
    let (mut sized, mut per_size) = (compile(attention, true), compile(attention, false));
    for rows in [3, 37, 8] {
        let args = || vec![t(&[rows, 16], 5), t(&[48, 16], 6)];
        let (got, want) = (sized.run(args()).unwrap(), per_size.run(args()).unwrap());
        assert_eq!(got[0].read_f64(), want[0].read_f64(), "{rows} rows");
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);
    // The fused attention, causal, over a symbolic sequence length: the
    // host kernel planned per size.
    let sdpa = r#"func.func @f(%q: tensor<2xs0x8xf32>, %k: tensor<2xs0x8xf32>, %v: tensor<2xs0x8xf32>) -> tensor<2xs0x8xf32> {
  %0:2 = tensor.attention %q, %k, %v {causal} : tensor<2xs0x8xf32>, tensor<2xs0x8xf32>, tensor<2xs0x8xf32> -> (tensor<2xs0x8xf32>, tensor<2xs0xf32>)
  return %0#0 : tensor<2xs0x8xf32>
}"#;
    let (mut sized, mut per_size) = (compile(sdpa, true), compile(sdpa, false));
    for len in [3, 37, 5] {
        let args = || vec![t(&[2, len, 8], 9), t(&[2, len, 8], 10), t(&[2, len, 8], 11)];
        let (got, want) = (sized.run(args()).unwrap(), per_size.run(args()).unwrap());
        assert_eq!(got[0].read_f64(), want[0].read_f64(), "length {len}");
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);
    // Counts of symbolic size read in kernels (column means and
    // variances, a layer norm over every dimension, an embedding's rows),
    // bit-equal to per-size code.
    let counts = r#"func.func @f(%x: tensor<s0x8xf32>, %w: tensor<10x8xf32>, %i: tensor<s0xi64>) -> (tensor<8xf32>, tensor<8xf32>, tensor<s0x8xf32>, tensor<s0x8xf32>) {
  %0 = tensor.mean %x {dims = [0]} : tensor<s0x8xf32> -> tensor<8xf32>
  %1 = tensor.var %x {dims = [0], correction = 1} : tensor<s0x8xf32> -> tensor<8xf32>
  %2 = tensor.embedding %w, %i : tensor<10x8xf32>, tensor<s0xi64> -> tensor<s0x8xf32>
  %3:3 = tensor.layer_norm %x {normalized_ndim = 2, eps = 1.0e-5} : tensor<s0x8xf32> -> (tensor<s0x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  return %0, %1, %2, %3#0 : tensor<8xf32>, tensor<8xf32>, tensor<s0x8xf32>, tensor<s0x8xf32>
}"#;
    let (mut sized, mut per_size) = (compile(counts, true), compile(counts, false));
    for rows in [3, 70, 2] {
        let ids: Vec<f64> = (0..rows).map(|i| ((i * 7) % 10) as f64).collect();
        let args =
            || vec![t(&[rows, 8], 7), t(&[10, 8], 8), Tensor::from_f64(ElemType::I64, &[rows], &ids, ElemType::I64)];
        let (got, want) = (sized.run(args()).unwrap(), per_size.run(args()).unwrap());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.read_f64(), w.read_f64(), "{rows} rows");
        }
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);
    // An index out of the table still fails the call, with eager's words.
    let bad =
        vec![t(&[3, 8], 7), t(&[10, 8], 8), Tensor::from_f64(ElemType::I64, &[3], &[0.0, 10.0, 1.0], ElemType::I64)];
    let e = sized.run(bad).unwrap_err();
    assert!(e.contains("index out of range in self"), "{e}");

    // Concatenation at symbolic offsets, argmax, and cumulative sums
    // along a symbolic dimension, forward and reversed.
    let cat = r#"func.func @f(%x: tensor<s0x4xf32>, %y: tensor<s1x4xf32>) -> (tensor<(s0 + s1)x4xf32>, tensor<s0xi64>, tensor<4xi64>, tensor<s0x4xf32>, tensor<s1x4xf32>) {
  %0 = tensor.cat %x, %y {dim = 0} : tensor<s0x4xf32>, tensor<s1x4xf32> -> tensor<(s0 + s1)x4xf32>
  %1 = tensor.argmax %x {dim = 1} : tensor<s0x4xf32> -> tensor<s0xi64>
  %2 = tensor.argmax %x {dim = 0} : tensor<s0x4xf32> -> tensor<4xi64>
  %3 = tensor.cumsum %x {dim = 0} : tensor<s0x4xf32>
  %4 = tensor.cumsum %y {dim = 0, reverse} : tensor<s1x4xf32>
  return %0, %1, %2, %3, %4 : tensor<(s0 + s1)x4xf32>, tensor<s0xi64>, tensor<4xi64>, tensor<s0x4xf32>, tensor<s1x4xf32>
}"#;
    let (mut sized, mut per_size) = (compile(cat, true), compile(cat, false));
    for (a, b) in [(3, 2), (9, 5), (2, 7)] {
        let args = || vec![t(&[a, 4], 12), t(&[b, 4], 13)];
        let (got, want) = (sized.run(args()).unwrap(), per_size.run(args()).unwrap());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.read_f64(), w.read_f64(), "{a} and {b} rows");
        }
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);

    // Accumulating scatters over a symbolic count of indices (an
    // embedding's gradient is an index_put with accumulate): duplicate
    // and negative indices, in order, as per-size code does.
    let scatters = r#"func.func @f(%x: tensor<10x4xf32>, %i: tensor<s0xi64>, %v: tensor<s0x4xf32>, %j: tensor<s0x4xi64>) -> (tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>) {
  %0 = tensor.index_put %x, %i, %v {accumulate} : tensor<10x4xf32>, tensor<s0xi64>, tensor<s0x4xf32> -> tensor<10x4xf32>
  %1 = tensor.index_put %x, %i, %v : tensor<10x4xf32>, tensor<s0xi64>, tensor<s0x4xf32> -> tensor<10x4xf32>
  %2 = tensor.scatter_add %x, %j, %v {dim = 0} : tensor<10x4xf32>, tensor<s0x4xi64>, tensor<s0x4xf32> -> tensor<10x4xf32>
  return %0, %1, %2 : tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>
}"#;
    let (mut sized, mut per_size) = (compile(scatters, true), compile(scatters, false));
    for n in [3usize, 40, 2] {
        let ids: Vec<f64> = (0..n).map(|k| ((k * 7) % 13) as f64 - 3.0).collect();
        let jds: Vec<f64> = (0..n * 4).map(|k| ((k * 5) % 10) as f64).collect();
        let args = || {
            vec![
                t(&[10, 4], 14),
                Tensor::from_f64(ElemType::I64, &[n as i64], &ids, ElemType::I64),
                t(&[n as i64, 4], 15),
                Tensor::from_f64(ElemType::I64, &[n as i64, 4], &jds, ElemType::I64),
            ]
        };
        let (got, want) = (sized.run(args()).unwrap(), per_size.run(args()).unwrap());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.read_f64(), w.read_f64(), "{n} indices");
        }
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);
    let bad = vec![
        t(&[10, 4], 14),
        Tensor::from_f64(ElemType::I64, &[2], &[1.0, 10.0], ElemType::I64),
        t(&[2, 4], 15),
        Tensor::from_f64(ElemType::I64, &[2, 4], &[0.0; 8], ElemType::I64),
    ];
    let e = sized.run(bad).unwrap_err();
    assert!(e.contains("index out of bounds for dimension 0 with size 10"), "{e}");

    // A linear layer over the (s0*s1) rows of a flattened batch (its bias
    // view's offset and strides are products of symbols, whose bounds
    // must not overflow), a view of a clone of a transpose (the clone's
    // buffer is laid out permuted, so the view copies), and a size a
    // backward receives as a 0-d `aot.symbol` argument.
    let flattened = r#"func.func @f(%x: tensor<s0xs1x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>, %n: tensor<i64> {aot.symbol = 2}, %g: tensor<f32>) -> (tensor<(s0*s1)x4xf32>, tensor<(s0*s1)x8xf32>, tensor<s2xf32>) {
  %0 = view.view %x {shape = array<i64: (s0*s1), 8>} : tensor<s0xs1x8xf32> -> tensor<(s0*s1)x8xf32>
  %1 = tensor.linear %0, %w, %b : tensor<(s0*s1)x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<(s0*s1)x4xf32>
  %2 = view.transpose %x {dim0 = 1, dim1 = 0} : tensor<s0xs1x8xf32> -> tensor<s1xs0x8xf32>
  %3 = tensor.clone %2 : tensor<s1xs0x8xf32>
  %4 = view.view %3 {shape = array<i64: (s0*s1), 8>} : tensor<s1xs0x8xf32> -> tensor<(s0*s1)x8xf32>
  %5 = view.expand %g {shape = array<i64: s2>} : tensor<f32> -> tensor<s2xf32>
  %6 = tensor.exp %5 : tensor<s2xf32>
  return %1, %4, %6 : tensor<(s0*s1)x4xf32>, tensor<(s0*s1)x8xf32>, tensor<s2xf32>
}"#;
    let (mut sized, mut per_size) = (compile(flattened, true), compile(flattened, false));
    for (a, b, n) in [(2, 3, 4), (5, 7, 2), (3, 2, 9)] {
        let args = || {
            vec![
                t(&[a, b, 8], 16),
                t(&[4, 8], 17),
                t(&[4], 18),
                Tensor::from_f64(ElemType::I64, &[], &[n as f64], ElemType::I64),
                t(&[], 19),
            ]
        };
        let (got, want) = (sized.run(args()).unwrap(), per_size.run(args()).unwrap());
        assert_eq!(got[2].sizes().to_vec(), vec![n]);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.read_f64(), w.read_f64(), "{a}x{b}, s2 = {n}");
        }
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0);

    // A sort over a lane of a run-time length (`sort` and `topk` go
    // through it): stable, NaN above every number, one compile.
    let argsort = r#"func.func @f(%x: tensor<s0xs1xf32>) -> (tensor<s0xs1xi64>, tensor<s0xs1xi64>) {
  %0 = tensor.argsort %x {dim = 1} : tensor<s0xs1xf32> -> tensor<s0xs1xi64>
  %1 = tensor.argsort %x {dim = 0, descending} : tensor<s0xs1xf32> -> tensor<s0xs1xi64>
  return %0, %1 : tensor<s0xs1xi64>, tensor<s0xs1xi64>
}"#;
    let mut exe = compile(argsort, true);
    let x = Tensor::from_f64(ElemType::F32, &[3, 2], &[1.0, 2.0, 4.0, 3.0, 5.0, 5.0], ElemType::F32);
    let r = exe.run(vec![x]).unwrap();
    assert_eq!(r[0].read_f64(), vec![0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
    assert_eq!(r[1].read_f64(), vec![2.0, 2.0, 1.0, 1.0, 0.0, 0.0]);
    let x = Tensor::from_f64(ElemType::F32, &[2, 4], &[3.0, f64::NAN, 1.0, 3.0, 0.0, -1.0, 2.0, -1.0], ElemType::F32);
    let r = exe.run(vec![x]).unwrap();
    assert_eq!(r[0].read_f64(), vec![2.0, 0.0, 3.0, 1.0, 1.0, 3.0, 0.0, 2.0]);
    assert_eq!(r[1].read_f64(), vec![0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]);
    assert!(exe.runs_with_runtime_sizes(), "{:?}", exe.runtime_sizes_refused());
    assert_eq!(exe.versions_built(), 0);
}

/// Code with run-time sizes has a memory plan: `plan-memory` gives each
/// temporary of the symbolic function its lifetime, and each set of
/// symbol values places them in one arena, reusing bytes between buffers
/// whose lifetimes do not overlap, the arena growing with the sizes. The
/// results are those of per-size code (which has its own, static plan).
#[test]
fn run_time_sizes_plan_memory_per_size() {
    use aot::codegen::program;
    use aot::runtime::compiled::Executable;
    let text = r#"func.func @f(%x: tensor<s0x64xf32>, %w: tensor<64x64xf32>) -> tensor<s0xf32> {
  %a = tensor.exp %x : tensor<s0x64xf32>
  %b = tensor.mm %a, %w : tensor<s0x64xf32>, tensor<64x64xf32> -> tensor<s0x64xf32>
  %c = tensor.tanh %b : tensor<s0x64xf32>
  %d = tensor.mm %c, %w : tensor<s0x64xf32>, tensor<64x64xf32> -> tensor<s0x64xf32>
  %e = tensor.sin %d : tensor<s0x64xf32>
  %f = tensor.mm %e, %w : tensor<s0x64xf32>, tensor<64x64xf32> -> tensor<s0x64xf32>
  %g = tensor.sum %f {dims = [1]} : tensor<s0x64xf32> -> tensor<s0xf32>
  return %g : tensor<s0xf32>
}"#;
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx, text);
    let native = aot::codegen::Native::named("cranelift", Default::default()).unwrap();
    let mut pm = aot::codegen::pass_manager_for(native.target, Default::default()).unwrap();
    aot::codegen::lower_unless_lowered(&mut ctx, f, &mut pm, &mut std::io::sink()).unwrap();
    let p = program::build_symbolic(&ctx, f).unwrap();
    assert!(p.symbolic);
    assert!(p.per_call.len() >= 3, "temporaries placed per call: {:?}", p.per_call);
    let mut arenas = Vec::new();
    for rows in [3i64, 100] {
        let (e, _) = p.evaluate(&Bindings::from_pairs(&[(0, rows)]), p.globals.len()).unwrap();
        let mut placed = Vec::new();
        for &(k, life) in &p.per_call {
            let (m, off) = &e.allocs[k];
            let off = off.expect("placed at these sizes");
            let bytes = m.shape.iter().product::<i64>() as u64 * 4;
            placed.push((off, off + bytes, life));
        }
        for (i, &(s, e1, (a, b))) in placed.iter().enumerate() {
            assert!(e1 <= e.arena_bytes);
            for &(s2, e2, (c, d)) in &placed[..i] {
                assert!(!(c <= b && a <= d && s < e2 && s2 < e1), "{rows} rows: live buffers share bytes: {placed:?}");
            }
        }
        let total: u64 = placed.iter().map(|&(s, e, _)| e - s).sum();
        assert!(e.arena_bytes < total, "{rows} rows: no bytes reused ({} of {total})", e.arena_bytes);
        arenas.push(e.arena_bytes);
    }
    assert!(arenas[1] > arenas[0], "the arena grows with the sizes: {arenas:?}");
    let compile = |runtime_sizes: bool| by_size(text, "cranelift", runtime_sizes);
    let (mut sized, mut per_size) = (compile(true), compile(false));
    let t = |shape: &[i64], seed: usize| pattern(shape, seed, 0.1);
    for rows in [3, 100, 7, 100] {
        let args = || vec![t(&[rows, 64], 1), t(&[64, 64], 2)];
        let (got, want) = (sized.run(args()).unwrap(), per_size.run(args()).unwrap());
        assert_eq!(got[0].read_f64(), want[0].read_f64(), "{rows} rows");
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
}

/// A backward called with tangents no gradient reached runs code with
/// run-time sizes too, compiled once per set of absent tangents with those
/// tangents dropped (a derivative only they feed is not computed, as in
/// eager: `t1 / x` at `x = 0` is no NaN when `t1` is absent), and gives
/// what per-size code gives, bit for bit, at every size.
#[test]
fn absent_tangents_run_with_run_time_sizes() {
    use aot::ir::ElemType;
    use aot::runtime::compiled::Executable;
    use aot::runtime::Tensor;
    let text = r#"func.func @f(%x: tensor<s0x4xf32>, %t0: tensor<s0x4xf32>, %t1: tensor<s0x4xf32>) -> tensor<s0x4xf32> {
  %a = tensor.mul %t0, %x : tensor<s0x4xf32>, tensor<s0x4xf32> -> tensor<s0x4xf32>
  %b = tensor.div %t1, %x : tensor<s0x4xf32>, tensor<s0x4xf32> -> tensor<s0x4xf32>
  %c = tensor.add %a, %b : tensor<s0x4xf32>, tensor<s0x4xf32> -> tensor<s0x4xf32>
  return %c : tensor<s0x4xf32>
}"#;
    let compile = |runtime_sizes: bool| by_size(text, "cranelift", runtime_sizes);
    let (mut sized, mut per_size) = (compile(true), compile(false));
    let args = |rows: usize| {
        let x: Vec<f64> = (0..rows * 4).map(|i| (i % 3) as f64).collect();
        let t: Vec<f64> = (0..rows * 4).map(|i| i as f64 * 0.5).collect();
        let z = vec![0.0; rows * 4];
        let shape = [rows as i64, 4];
        vec![
            Tensor::from_f64(ElemType::F32, &shape, &x, ElemType::F32),
            Tensor::from_f64(ElemType::F32, &shape, &t, ElemType::F32),
            Tensor::from_f64(ElemType::F32, &shape, &z, ElemType::F32),
        ]
    };
    for rows in [3, 40, 7] {
        let got = sized.run_absent(args(rows), 1, &[2]).unwrap();
        let want = per_size.run_absent(args(rows), 1, &[2]).unwrap();
        let g = got[0].read_f64();
        assert!(g.iter().all(|v| v.is_finite()), "{rows} rows: {g:?}");
        assert_eq!(g, want[0].read_f64(), "{rows} rows");
        // Every tangent present: the NaN of 0 / 0 is there.
        let all = sized.run_absent(args(rows), 1, &[]).unwrap();
        assert!(all[0].read_f64()[0].is_nan());
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
    assert_eq!(sized.versions_built(), 0, "no code generated per size");
    assert_eq!(per_size.versions_built(), 3);
}

/// Convolutions (im2col and GEMM, depthwise direct, pointwise GEMM;
/// padding, stride, dilation, groups, bias) and pooling (max with its
/// indices, average with ceil mode and without the padding in the count),
/// forward and backward, over a symbolic batch: compiled once into code
/// that reads the batch at run time, bit-equal to per-size code at every
/// batch.
#[test]
fn convolutions_and_pooling_read_the_batch_at_run_time() {
    use aot::ir::ElemType;
    use aot::runtime::compiled::Executable;
    use aot::runtime::Tensor;
    let forward = r#"func.func @f(%x: tensor<s0x3x8x8xf32>, %w1: tensor<8x3x3x3xf32>, %b1: tensor<8xf32>, %wd: tensor<8x1x3x3xf32>, %wp: tensor<8x8x1x1xf32>, %w2: tensor<16x8x3x3xf32>) -> (tensor<s0x8x8x8xf32>, tensor<s0x8x4x4xf32>, tensor<s0x8x4x4xi64>, tensor<s0x8x4x4xf32>, tensor<s0x8x4x4xf32>, tensor<s0x16x2x2xf32>, tensor<s0x16x2x2xf32>) {
  %a = tensor.conv %x, %w1, %b1 {padding = [1, 1]} : tensor<s0x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32> -> tensor<s0x8x8x8xf32>
  %m:2 = tensor.max_pool %a {kernel_size = [2, 2], stride = [2, 2]} : tensor<s0x8x8x8xf32> -> (tensor<s0x8x4x4xf32>, tensor<s0x8x4x4xi64>)
  %d = tensor.conv %m#0, %wd {padding = [1, 1], groups = 8} : tensor<s0x8x4x4xf32>, tensor<8x1x3x3xf32> -> tensor<s0x8x4x4xf32>
  %p = tensor.conv %d, %wp : tensor<s0x8x4x4xf32>, tensor<8x8x1x1xf32> -> tensor<s0x8x4x4xf32>
  %e = tensor.conv %p, %w2 {stride = [2, 2], padding = [2, 2], dilation = [2, 2]} : tensor<s0x8x4x4xf32>, tensor<16x8x3x3xf32> -> tensor<s0x16x2x2xf32>
  %v = tensor.avg_pool %e {kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], ceil_mode, count_include_pad = false} : tensor<s0x16x2x2xf32> -> tensor<s0x16x2x2xf32>
  %t = tensor.tanh %v : tensor<s0x16x2x2xf32>
  return %a, %m#0, %m#1, %d, %p, %e, %t : tensor<s0x8x8x8xf32>, tensor<s0x8x4x4xf32>, tensor<s0x8x4x4xi64>, tensor<s0x8x4x4xf32>, tensor<s0x8x4x4xf32>, tensor<s0x16x2x2xf32>, tensor<s0x16x2x2xf32>
}"#;
    let backward = r#"func.func @f(%arg0: tensor<s0x3x8x8xf32>, %arg1: tensor<8x3x3x3xf32>, %arg2: tensor<8x1x3x3xf32>, %arg3: tensor<8x8x1x1xf32>, %arg4: tensor<16x8x3x3xf32>, %arg5: tensor<s0x8x4x4xf32>, %arg6: tensor<s0x8x4x4xi64>, %arg7: tensor<s0x8x4x4xf32>, %arg8: tensor<s0x8x4x4xf32>, %arg9: tensor<s0x16x2x2xf32>, %arg10: tensor<f32>) -> (tensor<s0x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8x1x3x3xf32>, tensor<8x8x1x1xf32>, tensor<16x8x3x3xf32>) {
  %0 = view.expand %arg10 {shape = array<i64: s0, 16, 2, 2>} : tensor<f32> -> tensor<s0x16x2x2xf32>
  %1 = tensor.full {value = 1.0} : tensor<f32>
  %2 = tensor.neg %arg9 : tensor<s0x16x2x2xf32>
  %3 = tensor.fma %2, %arg9, %1 : tensor<s0x16x2x2xf32>, tensor<s0x16x2x2xf32>, tensor<f32> -> tensor<s0x16x2x2xf32>
  %4 = tensor.mul %0, %3 : tensor<s0x16x2x2xf32>
  %5 = tensor.avg_pool_grad %4 {ceil_mode, count_include_pad = false, input_shape = array<i64: s0, 16, 2, 2>, kernel_size = [3, 3], padding = [1, 1], stride = [2, 2]} : tensor<s0x16x2x2xf32>
  %6 = tensor.conv_input_grad %5, %arg4 {dilation = [2, 2], input_shape = array<i64: s0, 8, 4, 4>, padding = [2, 2], stride = [2, 2]} : tensor<s0x16x2x2xf32>, tensor<16x8x3x3xf32> -> tensor<s0x8x4x4xf32>
  %7 = tensor.conv_weight_grad %5, %arg8 {dilation = [2, 2], kernel_size = array<i64: 3, 3>, padding = [2, 2], stride = [2, 2]} : tensor<s0x16x2x2xf32>, tensor<s0x8x4x4xf32> -> tensor<16x8x3x3xf32>
  %8 = tensor.conv_input_grad %6, %arg3 {input_shape = array<i64: s0, 8, 4, 4>} : tensor<s0x8x4x4xf32>, tensor<8x8x1x1xf32> -> tensor<s0x8x4x4xf32>
  %9 = tensor.conv_weight_grad %6, %arg7 {kernel_size = array<i64: 1, 1>} : tensor<s0x8x4x4xf32> -> tensor<8x8x1x1xf32>
  %10 = tensor.conv_input_grad %8, %arg2 {groups = 8, input_shape = array<i64: s0, 8, 4, 4>, padding = [1, 1]} : tensor<s0x8x4x4xf32>, tensor<8x1x3x3xf32> -> tensor<s0x8x4x4xf32>
  %11 = tensor.conv_weight_grad %8, %arg5 {groups = 8, kernel_size = array<i64: 3, 3>, padding = [1, 1]} : tensor<s0x8x4x4xf32> -> tensor<8x1x3x3xf32>
  %12 = tensor.max_pool_grad %10, %arg6 {input_shape = array<i64: s0, 8, 8, 8>} : tensor<s0x8x4x4xf32>, tensor<s0x8x4x4xi64> -> tensor<s0x8x8x8xf32>
  %13 = tensor.conv_input_grad %12, %arg1 {input_shape = array<i64: s0, 3, 8, 8>, padding = [1, 1]} : tensor<s0x8x8x8xf32>, tensor<8x3x3x3xf32> -> tensor<s0x3x8x8xf32>
  %14 = tensor.conv_weight_grad %12, %arg0 {kernel_size = array<i64: 3, 3>, padding = [1, 1]} : tensor<s0x8x8x8xf32>, tensor<s0x3x8x8xf32> -> tensor<8x3x3x3xf32>
  %15 = tensor.sum %12 {dims = array<i64: 0, 2, 3>} : tensor<s0x8x8x8xf32> -> tensor<8xf32>
  return %13, %14, %15, %11, %9, %7 : tensor<s0x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8x1x3x3xf32>, tensor<8x8x1x1xf32>, tensor<16x8x3x3xf32>
}"#;
    let compile = |text: &str, runtime_sizes: bool| by_size(text, "cranelift", runtime_sizes);
    let t = |shape: &[i64], seed: usize| pattern(shape, seed, 1.0);
    let idx = |shape: &[i64]| {
        let n = shape.iter().product::<i64>() as usize;
        let v: Vec<f64> = (0..n).map(|i| ((i * 7) % 64) as f64).collect();
        Tensor::from_f64(ElemType::I64, shape, &v, ElemType::I64)
    };
    let fwd_args = |b: i64| {
        vec![
            t(&[b, 3, 8, 8], 1),
            t(&[8, 3, 3, 3], 2),
            t(&[8], 3),
            t(&[8, 1, 3, 3], 4),
            t(&[8, 8, 1, 1], 5),
            t(&[16, 8, 3, 3], 6),
        ]
    };
    let bwd_args = |b: i64| {
        vec![
            t(&[b, 3, 8, 8], 1),
            t(&[8, 3, 3, 3], 2),
            t(&[8, 1, 3, 3], 4),
            t(&[8, 8, 1, 1], 5),
            t(&[16, 8, 3, 3], 6),
            t(&[b, 8, 4, 4], 7),
            idx(&[b, 8, 4, 4]),
            t(&[b, 8, 4, 4], 8),
            t(&[b, 8, 4, 4], 9),
            t(&[b, 16, 2, 2], 10),
            t(&[], 11),
        ]
    };
    // (The backward's sums over the batch, the bias gradient's, run as
    // nested loops with run-time sizes, where per-size code collapses them:
    // another order of the same float sum, a few ulps apart.)
    for (text, args, exact) in [(forward, &fwd_args as &dyn Fn(i64) -> Vec<Tensor>, true), (backward, &bwd_args, false)]
    {
        let (mut sized, mut per_size) = (compile(text, true), compile(text, false));
        for b in [2, 5, 3] {
            let (got, want) = (sized.run(args(b)).unwrap(), per_size.run(args(b)).unwrap());
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.sizes().to_vec(), w.sizes().to_vec());
                if exact {
                    assert_eq!(g.read_f64(), w.read_f64(), "result {k} at batch {b}");
                } else {
                    for (x, y) in g.read_f64().iter().zip(w.read_f64()) {
                        assert!((x - y).abs() <= 1e-5 * y.abs().max(1.0), "result {k} at batch {b}: {x} against {y}");
                    }
                }
            }
        }
        assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
        assert_eq!(sized.versions_built(), 0);
    }
}

/// The same families over symbolic image sizes as well as a symbolic
/// batch (what `torch.compile(dynamic=True)` gives a CNN): the padded
/// input, the columns, the windows, the pooled sizes (`floordiv`
/// expressions) and every stride and offset read at run time. One
/// compile serves heights and widths odd and even, square or not, within
/// a few ulps of code per size (whose static decisions, such as
/// stretches of a row and GEMM shapes, sum in other orders); a symbolic
/// channel count is still refused, with its reason.
#[test]
fn convolutions_and_pooling_read_image_sizes_at_run_time() {
    image_sizes_at_run_time("cranelift");
}

/// The same on the LLVM backend, whose kernels load the same size table.
#[cfg(feature = "llvm")]
#[test]
fn llvm_convolutions_and_pooling_read_image_sizes_at_run_time() {
    image_sizes_at_run_time("llvm");
}

fn image_sizes_at_run_time(backend: &str) {
    use aot::ir::ElemType;
    use aot::runtime::compiled::Executable;
    use aot::runtime::Tensor;
    let m = "((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)";
    let e = "((s1 - 1) floordiv 4 + 1)x((s2 - 1) floordiv 4 + 1)";
    let v = "((s1 + 3) floordiv 8 + 1)x((s2 + 3) floordiv 8 + 1)";
    let q = "(s1 floordiv 2 + 1)x(s2 floordiv 2 + 1)";
    let z = "((s1 - 3) floordiv 2 + 1)x((s2 - 3) floordiv 2 + 1)";
    let attrs = "attributes {aot.symbols = {s1 = array<i64: 8, 64>, s2 = array<i64: 8, 64>}}";
    let forward = format!(
        r#"func.func @f(%x: tensor<s0x3xs1xs2xf32>, %w1: tensor<8x3x3x3xf32>, %b1: tensor<8xf32>, %wd: tensor<8x1x3x3xf32>, %wp: tensor<8x8x1x1xf32>, %w2: tensor<16x8x3x3xf32>, %wz: tensor<3x1x3x3xf32>) -> (tensor<s0x8xs1xs2xf32>, tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xi64>, tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xf32>, tensor<s0x16x{e}xf32>, tensor<s0x16x{v}xf32>, tensor<s0x3x{z}xf32>, tensor<s0x8x{q}xf32>) {attrs} {{
  %a = tensor.conv %x, %w1, %b1 {{padding = [1, 1]}} : tensor<s0x3xs1xs2xf32>, tensor<8x3x3x3xf32>, tensor<8xf32> -> tensor<s0x8xs1xs2xf32>
  %m:2 = tensor.max_pool %a {{kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]}} : tensor<s0x8xs1xs2xf32> -> (tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xi64>)
  %d = tensor.conv %m#0, %wd {{padding = [1, 1], groups = 8}} : tensor<s0x8x{m}xf32>, tensor<8x1x3x3xf32> -> tensor<s0x8x{m}xf32>
  %p = tensor.conv %d, %wp : tensor<s0x8x{m}xf32>, tensor<8x8x1x1xf32> -> tensor<s0x8x{m}xf32>
  %e = tensor.conv %p, %w2 {{stride = [2, 2], padding = [2, 2], dilation = [2, 2]}} : tensor<s0x8x{m}xf32>, tensor<16x8x3x3xf32> -> tensor<s0x16x{e}xf32>
  %v = tensor.avg_pool %e {{kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], ceil_mode, count_include_pad = false}} : tensor<s0x16x{e}xf32> -> tensor<s0x16x{v}xf32>
  %t = tensor.tanh %v : tensor<s0x16x{v}xf32>
  %z = tensor.conv %x, %wz {{stride = [2, 2], groups = 3}} : tensor<s0x3xs1xs2xf32>, tensor<3x1x3x3xf32> -> tensor<s0x3x{z}xf32>
  %q = tensor.avg_pool %a {{kernel_size = [2, 2], stride = [2, 2], padding = [1, 1]}} : tensor<s0x8xs1xs2xf32> -> tensor<s0x8x{q}xf32>
  return %a, %m#0, %m#1, %d, %p, %e, %t, %z, %q : tensor<s0x8xs1xs2xf32>, tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xi64>, tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xf32>, tensor<s0x16x{e}xf32>, tensor<s0x16x{v}xf32>, tensor<s0x3x{z}xf32>, tensor<s0x8x{q}xf32>
}}"#
    );
    let backward = format!(
        r#"func.func @f(%x: tensor<s0x3xs1xs2xf32>, %w1: tensor<8x3x3x3xf32>, %wd: tensor<8x1x3x3xf32>, %wp: tensor<8x8x1x1xf32>, %w2: tensor<16x8x3x3xf32>, %wz: tensor<3x1x3x3xf32>, %m0: tensor<s0x8x{m}xf32>, %idx: tensor<s0x8x{m}xi64>, %d: tensor<s0x8x{m}xf32>, %p: tensor<s0x8x{m}xf32>, %gv: tensor<s0x16x{v}xf32>, %gz: tensor<s0x3x{z}xf32>, %gq: tensor<s0x8x{q}xf32>) -> (tensor<s0x3xs1xs2xf32>, tensor<8x3x3x3xf32>, tensor<8x1x3x3xf32>, tensor<8x8x1x1xf32>, tensor<16x8x3x3xf32>, tensor<3x1x3x3xf32>) {attrs} {{
  %5 = tensor.avg_pool_grad %gv {{ceil_mode, count_include_pad = false, input_shape = array<i64: s0, 16, {ea}>, kernel_size = [3, 3], padding = [1, 1], stride = [2, 2]}} : tensor<s0x16x{v}xf32> -> tensor<s0x16x{e}xf32>
  %6 = tensor.conv_input_grad %5, %w2 {{dilation = [2, 2], input_shape = array<i64: s0, 8, {ma}>, padding = [2, 2], stride = [2, 2]}} : tensor<s0x16x{e}xf32>, tensor<16x8x3x3xf32> -> tensor<s0x8x{m}xf32>
  %7 = tensor.conv_weight_grad %5, %p {{dilation = [2, 2], kernel_size = array<i64: 3, 3>, padding = [2, 2], stride = [2, 2]}} : tensor<s0x16x{e}xf32>, tensor<s0x8x{m}xf32> -> tensor<16x8x3x3xf32>
  %8 = tensor.conv_input_grad %6, %wp {{input_shape = array<i64: s0, 8, {ma}>}} : tensor<s0x8x{m}xf32>, tensor<8x8x1x1xf32> -> tensor<s0x8x{m}xf32>
  %9 = tensor.conv_weight_grad %6, %d {{kernel_size = array<i64: 1, 1>}} : tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xf32> -> tensor<8x8x1x1xf32>
  %10 = tensor.conv_input_grad %8, %wd {{groups = 8, input_shape = array<i64: s0, 8, {ma}>, padding = [1, 1]}} : tensor<s0x8x{m}xf32>, tensor<8x1x3x3xf32> -> tensor<s0x8x{m}xf32>
  %11 = tensor.conv_weight_grad %8, %m0 {{groups = 8, kernel_size = array<i64: 3, 3>, padding = [1, 1]}} : tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xf32> -> tensor<8x1x3x3xf32>
  %12 = tensor.max_pool_grad %10, %idx {{input_shape = array<i64: s0, 8, s1, s2>}} : tensor<s0x8x{m}xf32>, tensor<s0x8x{m}xi64> -> tensor<s0x8xs1xs2xf32>
  %q = tensor.avg_pool_grad %gq {{input_shape = array<i64: s0, 8, s1, s2>, kernel_size = [2, 2], padding = [1, 1], stride = [2, 2]}} : tensor<s0x8x{q}xf32> -> tensor<s0x8xs1xs2xf32>
  %g = tensor.add %12, %q : tensor<s0x8xs1xs2xf32>, tensor<s0x8xs1xs2xf32> -> tensor<s0x8xs1xs2xf32>
  %13 = tensor.conv_input_grad %g, %w1 {{input_shape = array<i64: s0, 3, s1, s2>, padding = [1, 1]}} : tensor<s0x8xs1xs2xf32>, tensor<8x3x3x3xf32> -> tensor<s0x3xs1xs2xf32>
  %14 = tensor.conv_weight_grad %g, %x {{kernel_size = array<i64: 3, 3>, padding = [1, 1]}} : tensor<s0x8xs1xs2xf32>, tensor<s0x3xs1xs2xf32> -> tensor<8x3x3x3xf32>
  %15 = tensor.conv_input_grad %gz, %wz {{groups = 3, input_shape = array<i64: s0, 3, s1, s2>, stride = [2, 2]}} : tensor<s0x3x{z}xf32>, tensor<3x1x3x3xf32> -> tensor<s0x3xs1xs2xf32>
  %16 = tensor.conv_weight_grad %gz, %x {{groups = 3, kernel_size = array<i64: 3, 3>, stride = [2, 2]}} : tensor<s0x3x{z}xf32>, tensor<s0x3xs1xs2xf32> -> tensor<3x1x3x3xf32>
  %17 = tensor.add %13, %15 : tensor<s0x3xs1xs2xf32>, tensor<s0x3xs1xs2xf32> -> tensor<s0x3xs1xs2xf32>
  return %17, %14, %11, %9, %7, %16 : tensor<s0x3xs1xs2xf32>, tensor<8x3x3x3xf32>, tensor<8x1x3x3xf32>, tensor<8x8x1x1xf32>, tensor<16x8x3x3xf32>, tensor<3x1x3x3xf32>
}}"#,
        ea = e.replace(")x(", "), ("),
        ma = m.replace(")x(", "), ("),
    );
    let compile = |text: &str, runtime_sizes: bool| by_size(text, backend, runtime_sizes);
    let t = |shape: &[i64], seed: usize| pattern(shape, seed, 1.0);
    // Max-pool indices inside each plane of `plane` elements.
    let idx = |shape: &[i64], plane: i64| {
        let n = shape.iter().product::<i64>() as usize;
        let v: Vec<f64> = (0..n).map(|i| ((i as i64 * 7) % plane) as f64).collect();
        Tensor::from_f64(ElemType::I64, shape, &v, ElemType::I64)
    };
    let pooled = |s: i64, k: i64, p: i64, st: i64, ceil: bool| (s + 2 * p - k + if ceil { st - 1 } else { 0 }) / st + 1;
    let fwd_args = |b: i64, h: i64, w: i64| {
        vec![
            t(&[b, 3, h, w], 1),
            t(&[8, 3, 3, 3], 2),
            t(&[8], 3),
            t(&[8, 1, 3, 3], 4),
            t(&[8, 8, 1, 1], 5),
            t(&[16, 8, 3, 3], 6),
            t(&[3, 1, 3, 3], 7),
        ]
    };
    let bwd_args = |b: i64, h: i64, w: i64| {
        let (mh, mw) = (pooled(h, 3, 1, 2, false), pooled(w, 3, 1, 2, false));
        let (eh, ew) = ((mh - 1) / 2 + 1, (mw - 1) / 2 + 1);
        let (vh, vw) = (pooled(eh, 3, 1, 2, true), pooled(ew, 3, 1, 2, true));
        let (zh, zw) = ((h - 3) / 2 + 1, (w - 3) / 2 + 1);
        vec![
            t(&[b, 3, h, w], 1),
            t(&[8, 3, 3, 3], 2),
            t(&[8, 1, 3, 3], 4),
            t(&[8, 8, 1, 1], 5),
            t(&[16, 8, 3, 3], 6),
            t(&[3, 1, 3, 3], 7),
            t(&[b, 8, mh, mw], 8),
            idx(&[b, 8, mh, mw], h * w),
            t(&[b, 8, mh, mw], 9),
            t(&[b, 8, mh, mw], 10),
            t(&[b, 16, vh, vw], 11),
            t(&[b, 3, zh, zw], 12),
            t(&[b, 8, h / 2 + 1, w / 2 + 1], 13),
        ]
    };
    for (text, args) in [(&forward, &fwd_args as &dyn Fn(i64, i64, i64) -> Vec<Tensor>), (&backward, &bwd_args)] {
        let (mut sized, mut per_size) = (compile(text, true), compile(text, false));
        for (b, h, w) in [(2, 8, 8), (3, 13, 9), (2, 17, 24), (5, 11, 11), (2, 8, 8)] {
            let (got, want) = (sized.run(args(b, h, w)).unwrap(), per_size.run(args(b, h, w)).unwrap());
            assert_eq!(got.len(), want.len());
            for (k, (g, w_)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.sizes().to_vec(), w_.sizes().to_vec(), "result {k} at {b}x{h}x{w}");
                for (x, y) in g.read_f64().iter().zip(w_.read_f64()) {
                    assert!((x - y).abs() <= 1e-5 * y.abs().max(1.0), "result {k} at {b}x{h}x{w}: {x} against {y}");
                }
            }
        }
        assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
        assert_eq!(sized.versions_built(), 0, "no code generated per size");
        assert_eq!(per_size.versions_built(), 4);
    }
    // A symbolic channel count: code per size, with the reason.
    let channels = r#"func.func @f(%x: tensor<2xs0x9xf32>, %w: tensor<4xs0x3xf32>) -> tensor<2x4x7xf32> {
  %0 = tensor.conv %x, %w : tensor<2xs0x9xf32>, tensor<4xs0x3xf32> -> tensor<2x4x7xf32>
  return %0 : tensor<2x4x7xf32>
}"#;
    let mut exe = compile(channels, true);
    let out = exe.run(vec![t(&[2, 3, 9], 1), t(&[4, 3, 3], 2)]).unwrap();
    assert_eq!(out[0].sizes().to_vec(), vec![2, 4, 7]);
    assert!(!exe.runs_with_runtime_sizes());
    let why = exe.runtime_sizes_refused().unwrap_or_default();
    assert!(why.contains("'tensor.conv' op does not lower with a symbolic size in dimension 1 of operand 0"), "{why}");
}

/// The programs of one symbolic function evaluated at different sizes
/// share their memory: a result buffer the caller let go of is reused,
/// resized, at the next size (no fresh pages), and the values are still
/// those of code per size.
#[test]
fn run_time_sizes_reuse_memory_across_sizes() {
    use aot::runtime::compiled::Executable;
    let text = r#"func.func @f(%x: tensor<s0x64xf32>, %w: tensor<64x64xf32>) -> tensor<s0x64xf32> {
  %a = tensor.exp %x : tensor<s0x64xf32>
  %b = tensor.mm %a, %w : tensor<s0x64xf32>, tensor<64x64xf32> -> tensor<s0x64xf32>
  %c = tensor.tanh %b : tensor<s0x64xf32>
  return %c : tensor<s0x64xf32>
}"#;
    let compile = |runtime_sizes: bool| by_size(text, "cranelift", runtime_sizes);
    let t = |shape: &[i64], seed: usize| pattern(shape, seed, 0.1);
    let (mut sized, mut per_size) = (compile(true), compile(false));
    let mut last = None;
    for rows in [300, 250, 280, 300] {
        let args = || vec![t(&[rows, 64], 1), t(&[64, 64], 2)];
        let got = sized.run(args()).unwrap();
        let want = per_size.run(args()).unwrap();
        assert_eq!(got[0].read_f64(), want[0].read_f64(), "{rows} rows");
        let ptr = got[0].storage().buf_mut().as_mut_ptr() as usize;
        if let Some(p) = last {
            assert_eq!(ptr, p, "{rows} rows: a fresh result buffer, where the last size's was free");
        }
        last = Some(ptr);
    }
    assert!(sized.runs_with_runtime_sizes(), "{:?}", sized.runtime_sizes_refused());
}

/// The gradient of an `as_strided` that may reach an element twice lists
/// its positions per element, which symbolic sizes do not have: a clean,
/// located refusal (this panicked before).
#[test]
fn training_a_symbolic_view_that_may_overlap_itself_is_refused() {
    let text = r#"func.func @f(%x: tensor<s0x4xf32> {aot.requires_grad}) -> tensor<f32> {
  %w = view.as_strided %x {size = array<i64: s0, 2>, stride = array<i64: 1, 1>} : tensor<s0x4xf32> -> tensor<s0x2xf32>
  %t = tensor.sum %w : tensor<s0x2xf32> -> tensor<f32>
  return %t : tensor<f32>
}"#;
    let mut sources = SourceMgr::new();
    sources.add("symbolic.mlir", Arc::from(text));
    let spec = inputs(text, "s0=3", 1);
    let mut ctx = Context::new();
    let (m, f) = parse(&mut ctx, text);
    let opts =
        CompileOptions { pipeline: "aot-train".into(), backend: Backend::Interp, keep_ir: false, progress: false };
    let tangents = aot_run::json::TangentSpec::default();
    let calls = Calls { seed: 0, count: 1, grad: Some(&tangents) };
    let e = run_compiled_for(ctx, &sources, m, f, &spec, &spec, &opts, calls).err().expect("refused").to_string();
    assert!(e.contains("may reach an element twice is not supported yet"), "{e}");
}

/// `collapse-loops` over symbolic sizes merges an image plane's rows into
/// one loop where every access is contiguous across them (as
/// expressions), and keeps them apart where not (a padded buffer's
/// interior, a permuted batch): code that reads its sizes at run time
/// gives per-size code's bits at odd, even, square and non-square sizes,
/// on both backends that read a size table.
#[test]
fn collapsed_image_planes_read_sizes_at_run_time() {
    use aot::runtime::compiled::Executable;
    let text = r#"func.func @f(%x: tensor<8xs0xs1xs2xf32>, %y: tensor<s0x8xs1xs2xf32>) -> (tensor<s0x8xs1xs2xf32>, tensor<s0x8x(s1 - 2)x(s2 - 2)xf32>, tensor<s0x8xs1xs2xf32>) {
  %0 = view.permute %x {dims = [1, 0, 2, 3]} : tensor<8xs0xs1xs2xf32> -> tensor<s0x8xs1xs2xf32>
  %1 = tensor.tanh %0 : tensor<s0x8xs1xs2xf32>
  %2 = tensor.mul %1, %y : tensor<s0x8xs1xs2xf32>, tensor<s0x8xs1xs2xf32> -> tensor<s0x8xs1xs2xf32>
  %3 = view.slice %y {dim = 2, start = 1, end = -1} : tensor<s0x8xs1xs2xf32> -> tensor<s0x8x(s1 - 2)xs2xf32>
  %4 = view.slice %3 {dim = 3, start = 1, end = -1} : tensor<s0x8x(s1 - 2)xs2xf32> -> tensor<s0x8x(s1 - 2)x(s2 - 2)xf32>
  %5 = tensor.exp %4 : tensor<s0x8x(s1 - 2)x(s2 - 2)xf32>
  %6 = tensor.relu %y : tensor<s0x8xs1xs2xf32>
  return %2, %5, %6 : tensor<s0x8xs1xs2xf32>, tensor<s0x8x(s1 - 2)x(s2 - 2)xf32>, tensor<s0x8xs1xs2xf32>
}"#;
    for (backend, mut sized, mut per_size) in sized_and_per_size(text) {
        for (n, h, w) in [(2, 5, 7), (3, 8, 8), (2, 33, 4), (4, 16, 16), (2, 3, 3)] {
            let args = || vec![pattern(&[8, n, h, w], n as usize, 3.0), pattern(&[n, 8, h, w], h as usize, 3.0)];
            let got = sized.run(args()).unwrap_or_else(|e| panic!("{backend} at {n}x{h}x{w}: {e}"));
            let want = per_size.run(args()).unwrap();
            for (k, (g, w2)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.sizes().to_vec(), w2.sizes().to_vec());
                let (g, w2) = (g.read_f64(), w2.read_f64());
                let same = g.iter().zip(&w2).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{backend}: result {k} differs at {n}x{h}x{w}");
            }
        }
        assert!(sized.runs_with_runtime_sizes(), "{backend}: {:?}", sized.runtime_sizes_refused());
        assert_eq!(sized.versions_built(), 0, "{backend}: no code generated per size");
    }
}

/// `text` with every tensor dimension equal to `n` made the symbol `s0`,
/// where the result parses and verifies: each op's declared result type
/// must be what its shape rule infers from the symbolic operands, so a
/// program whose attributes or layouts fix `n` (a reshape to `[n, 4]`, a
/// strided argument layout) is refused, and one where `n` stood for two
/// unrelated sizes only if the rules cannot tell.
fn generalized(text: &str, n: i64) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("tensor<") {
        let (head, tail) = rest.split_at(at + "tensor<".len());
        out.push_str(head);
        let end = tail.find('>')?;
        let (dims, after) = tail.split_at(end);
        let mut parts: Vec<String> = dims.split('x').map(str::to_string).collect();
        let last = parts.len() - 1;
        for p in parts.iter_mut().take(last) {
            if p.parse::<i64>().ok() == Some(n) {
                *p = "s0".into();
            }
        }
        out.push_str(&parts.join("x"));
        rest = after;
    }
    out.push_str(rest);
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, &out, &ParseOptions { file: "g.mlir".into(), first_line: 1 }).ok()?;
    verify(&ctx, m).ok()?;
    let f = aot::dialects::func::entry_func(&ctx, m, None).ok()?.op;
    let sym = aot::dialects::func::FuncView { op: f }
        .function_type(&ctx)
        .0
        .iter()
        .any(|&t| aot::ir::sym::type_is_symbolic(&ctx, t));
    sym.then_some(out)
}

/// The argument sizes of `text`'s entry function, most frequent first
/// (sizes 0 and 1 stay specialized, as Dynamo keeps them).
fn candidate_sizes(text: &str) -> Vec<i64> {
    let mut ctx = Context::new();
    let Ok(m) = parse_module(&mut ctx, text, &ParseOptions { file: "c.mlir".into(), first_line: 1 }) else {
        return Vec::new();
    };
    let Ok(f) = aot::dialects::func::entry_func(&ctx, m, None) else { return Vec::new() };
    let mut counts: Vec<(i64, usize)> = Vec::new();
    let types = aot::dialects::func::FuncView { op: f.op }.function_type(&ctx).0;
    for &t in types.iter() {
        let Some(tt) = ctx.as_tensor(t) else { continue };
        for &d in tt.shape.iter().filter(|&&d| d >= 2) {
            match counts.iter_mut().find(|(v, _)| *v == d) {
                Some(c) => c.1 += 1,
                None => counts.push((d, 1)),
            }
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.into_iter().map(|(d, _)| d).collect()
}

/// The corpus programs that can take a symbolic size (below): name,
/// generalized text, the size that became `s0`.
fn corpus_programs() -> Vec<(String, String, i64)> {
    let root = common::corpus_dir("run");
    let files = common::files_ending(&root, ".mlir");
    files
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).ok()?;
            // (Subclass programs stay static.)
            if text.contains("aot.subclass") {
                return None;
            }
            let name = p.strip_prefix(&root).ok()?.display().to_string();
            candidate_sizes(&text)
                .into_iter()
                .filter(|&n| n <= 64)
                .take(2)
                .find_map(|n| generalized(&text, n).map(|g| (name.clone(), g, n)))
        })
        .collect()
}

/// Runs `check` over `programs` in parallel and fails on any difference
/// not listed in [`KNOWN_SYMBOLIC_DIVERGENCES`], or when more than
/// `max_refused_percent` of the compiles were refused as not supported.
fn corpus_verdict(
    what: &str,
    programs: &[(String, String, i64)],
    max_refused_percent: usize,
    check: impl Fn(&str, &str, i64) -> (Vec<String>, bool) + Sync,
) {
    let results = common::par_map(programs, |(name, text, n)| check(name, text, *n));
    let refused = results.iter().filter(|r| r.1).count();
    let mut failures = Vec::new();
    for ((name, _, _), (diffs, _)) in programs.iter().zip(&results) {
        match (KNOWN_SYMBOLIC_DIVERGENCES.iter().any(|(k, _)| k == name), diffs.is_empty()) {
            (false, _) => failures.extend(diffs.iter().cloned()),
            (true, true) => failures.push(format!("{name}: agrees now: take it off KNOWN_SYMBOLIC_DIVERGENCES")),
            (true, false) => {}
        }
    }
    eprintln!("{what}: {} corpus programs run with symbolic sizes, {refused} refused", programs.len());
    assert!(failures.is_empty(), "{what}: {} differences:\n{}", failures.len(), failures.join("\n"));
    assert!(
        refused * 100 <= programs.len() * max_refused_percent,
        "{what}: {refused} of {} symbolic programs were refused",
        programs.len()
    );
}

/// The corpus with symbolic sizes: each program of `test/run` whose most
/// frequent argument size (at most 64) can become a symbol (above) is
/// compiled once, at its own size, on every backend this build runs here,
/// and called at three sizes, against the interpreter's eager run of the
/// symbolic program at the same sizes (random arguments). Both refusing a
/// size (a guard the program implies) counts as agreement; one refusing
/// does not. A compile refused as not supported with symbolic sizes is
/// counted: few may be. (The programs of `test/symbolic` run on every
/// backend, above.)
#[test]
fn the_corpus_runs_with_symbolic_sizes() {
    aot::init();
    let programs = corpus_programs();
    assert!(programs.len() >= 400, "only {} corpus programs took a symbolic size", programs.len());
    for backend in backends() {
        corpus_verdict(backend.name(), &programs, 5, |name, text, n| corpus_check(name, text, n, backend));
    }
}

/// The corpus's training with symbolic sizes: each program of the corpus
/// that differentiates (its input file has arguments that require grad,
/// each a tensor of its own) and takes a symbolic size is compiled once for
/// training (`aot-train`, Cranelift), called forward and backward at three
/// sizes, and compared with the static program at each of those sizes
/// (the function specialised to them, compiled for training and run on
/// the interpreter: what the gradient suite checks against PyTorch):
/// outputs and gradients.
#[test]
fn the_corpus_trains_with_symbolic_sizes() {
    aot::init();
    let root = common::corpus_dir("run");
    let programs: Vec<(String, String, i64)> =
        corpus_programs().into_iter().filter(|(name, _, _)| !training_flags(&root.join(name)).is_empty()).collect();
    assert!(programs.len() >= 150, "only {} differentiating corpus programs took a symbolic size", programs.len());
    corpus_verdict("training", &programs, 5, |name, text, n| {
        corpus_train_check(name, text, n, &training_flags(&root.join(name)))
    });
}

/// Which arguments of corpus program `mlir` require grad, from its input
/// file; empty where none does, or where an argument is not a tensor of
/// its own (a view of a shared storage, a duplicate: symbolic training
/// refuses those by design).
fn training_flags(mlir: &std::path::Path) -> Vec<bool> {
    let Ok(inputs) = std::fs::read_to_string(mlir.to_string_lossy().replace(".mlir", ".inputs.json")) else {
        return Vec::new();
    };
    let Ok(spec) = aot_run::json::parse_inputs(&inputs) else { return Vec::new() };
    let flags: Option<Vec<bool>> = spec
        .args
        .iter()
        .map(|a| match a {
            aot_run::json::ArgSpec::Own { requires_grad, non_leaf: false, .. } => Some(*requires_grad),
            _ => None,
        })
        .collect();
    match flags {
        Some(f) if f.contains(&true) => f,
        _ => Vec::new(),
    }
}

/// Random inputs of `text` at `sizes`, with `flags`' arguments requiring
/// grad.
fn inputs_with_grad(text: &str, sizes: &str, seed: u64, flags: &[bool]) -> aot_run::json::InputSpec {
    let mut spec = inputs(text, sizes, seed);
    for (a, &rg) in spec.args.iter_mut().zip(flags) {
        if let aot_run::json::ArgSpec::Own { requires_grad, .. } = a {
            *requires_grad = rg;
        }
    }
    spec
}

/// Programs of the corpus whose symbolic compile still differs from eager
/// (found by the tests above; open bugs, each checked to still differ, so
/// a fix must take it off this list).
const KNOWN_SYMBOLIC_DIVERGENCES: &[(&str, &str)] = &[];

/// The sizes a corpus program is called at: its own, the next, and a
/// larger odd one.
fn corpus_sizes(n: i64) -> [i64; 3] {
    [n, n + 1, 2 * n + 3]
}

/// Whether a compile error says the symbolic form is not supported.
fn not_supported(e: &str) -> bool {
    e.contains("not supported")
}

/// One call of a compiled function, or why it failed.
type CallRun = Result<aot_run::CompiledRun, aot_run::RunError>;
/// A corpus program's differences, and whether its compile was refused.
type Verdict = (Vec<String>, bool);

/// A corpus program's symbolic `text` compiled once with `opts` (for the
/// convention of `hint`) and called with each of `specs`; a compile
/// refused is the program's verdict: counted as refused where it says
/// the form is not supported, agreement where `expected` (the reference
/// at each size) failed everywhere too, else a difference.
#[allow(clippy::too_many_arguments)]
fn compile_once_run_each(
    name: &str,
    text: &str,
    sources: &SourceMgr,
    hint: &aot_run::json::InputSpec,
    specs: &[aot_run::json::InputSpec],
    opts: &CompileOptions,
    calls: Calls<'_>,
    expected: &[serde_json::Value],
) -> Result<Vec<CallRun>, Verdict> {
    let mut ctx = Context::new();
    let (m, f) = parse(&mut ctx, text);
    let spec_refs: Vec<_> = specs.iter().collect();
    match aot_run::run_compiled_each(ctx, sources, m, f, hint, &spec_refs, opts, calls) {
        Ok(runs) => Ok(runs),
        Err(e) if not_supported(&e.to_string()) => Err((Vec::new(), true)),
        // A program the reference refuses at every size may be refused
        // when compiled.
        Err(_) if expected.iter().all(|e| e.get("error").is_some()) => Err((Vec::new(), false)),
        Err(e) => Err((vec![format!("{name}: the symbolic program does not compile ({}): {e}", opts.pipeline)], false)),
    }
}

/// One program of [`the_corpus_runs_with_symbolic_sizes`] on `backend`:
/// its differences, and whether its compile was refused.
fn corpus_check(name: &str, text: &str, n: i64, backend: Backend) -> (Vec<String>, bool) {
    let name = format!("{name} [{}]", backend.name());
    let mut sources = SourceMgr::new();
    sources.add("symbolic.mlir", Arc::from(text));
    let hint = inputs(text, &format!("s0={n}"), 1);
    let sizes = corpus_sizes(n).map(|s| format!("s0={s}"));
    let specs: Vec<_> = sizes.iter().enumerate().map(|(k, at)| inputs(text, at, 10 + k as u64)).collect();
    let eager: Vec<_> = specs
        .iter()
        .map(|spec| {
            let mut ectx = Context::new();
            let (_, ef) = parse(&mut ectx, text);
            let calls = Calls { seed: 7, count: 1, grad: None };
            match run_eager_calls(&ectx, &sources, ef, spec, calls, false) {
                Ok(r) => r.to_json(),
                Err(e) => json!({ "error": e.to_string() }),
            }
        })
        .collect();
    let opts = CompileOptions { pipeline: "aot-inference".into(), backend, keep_ir: false, progress: false };
    let calls = Calls { seed: 7, count: 1, grad: None };
    let runs = match compile_once_run_each(&name, text, &sources, &hint, &specs, &opts, calls, &eager) {
        Ok(runs) => runs,
        Err(verdict) => return verdict,
    };
    let mut diffs = Vec::new();
    for ((at, eager), run) in sizes.iter().zip(&eager).zip(runs) {
        let got = match run {
            Ok(r) => outputs_json(&r.outputs, &r.args),
            Err(e) => json!({ "error": e.to_string() }),
        };
        match (eager.get("error"), got.get("error")) {
            (Some(_), Some(_)) => {}
            (None, None) => {
                let opts = CompareOptions { grads: false, slack: 1.0, all_layouts: true, hidden_output_aliasing: true };
                diffs.extend(compare(&got, eager, opts).into_iter().map(|d| format!("{name} at {at}: {d}")));
            }
            (e, c) => diffs.push(format!("{name} at {at}: eager {e:?}, compiled {c:?}")),
        }
    }
    (diffs, false)
}

/// One program of [`the_corpus_trains_with_symbolic_sizes`]: its
/// differences, and whether its symbolic compile was refused.
fn corpus_train_check(name: &str, text: &str, n: i64, flags: &[bool]) -> (Vec<String>, bool) {
    use aot_run::json::TangentSpec;
    let mut sources = SourceMgr::new();
    sources.add("symbolic.mlir", Arc::from(text));
    let tangents = TangentSpec::default();
    let calls = Calls { seed: 7, count: 1, grad: Some(&tangents) };
    let hint = inputs_with_grad(text, &format!("s0={n}"), 1, flags);
    let sizes = corpus_sizes(n).map(|s| format!("s0={s}"));
    let specs: Vec<_> =
        sizes.iter().enumerate().map(|(k, at)| inputs_with_grad(text, at, 10 + k as u64, flags)).collect();
    // The static program at each size, compiled for training.
    let reference: Vec<_> = sizes
        .iter()
        .zip(&specs)
        .map(|(at, spec)| {
            let mut ctx = Context::new();
            let (m, f) = parse(&mut ctx, text);
            aot::ir::sym::specialise_function(&mut ctx, f, &Bindings::parse(at).expect("sizes")).expect("specialise");
            let opts = CompileOptions {
                pipeline: "aot-train".into(),
                backend: Backend::Interp,
                keep_ir: false,
                progress: false,
            };
            run_json(run_compiled_for(ctx, &sources, m, f, spec, spec, &opts, calls))
        })
        .collect();
    let opts =
        CompileOptions { pipeline: "aot-train".into(), backend: Backend::CRANELIFT, keep_ir: false, progress: false };
    let runs = match compile_once_run_each(name, text, &sources, &hint, &specs, &opts, calls, &reference) {
        Ok(runs) => runs,
        Err(verdict) => return verdict,
    };
    let mut diffs = Vec::new();
    for ((at, want), run) in sizes.iter().zip(&reference).zip(runs) {
        let got = run_json(run);
        match (want.get("error"), got.get("error")) {
            (Some(_), Some(_)) => {}
            (None, None)
                if got.get("grads").and_then(|g| g.as_array()).is_none_or(|g| g.iter().all(|g| g.is_null())) =>
            {
                diffs.push(format!("{name} at {at}: the symbolic compile gave no gradient"))
            }
            (None, None) => {
                let opts = CompareOptions { grads: true, slack: 1.0, all_layouts: true, hidden_output_aliasing: true };
                diffs.extend(compare(&got, want, opts).into_iter().map(|d| format!("{name} at {at}: {d}")));
            }
            (e, c) => diffs.push(format!("{name} at {at}: static {e:?}, symbolic {c:?}")),
        }
    }
    (diffs, false)
}

/// A function whose lowering needs static sizes (attention's default
/// scale, 1/sqrt(E), over a symbolic head size E) runs code per size and
/// says why: its own refusal, and the process's list of them that
/// `aot_torch.runtime_sizes_refusals` reads.
#[test]
fn code_per_size_says_why() {
    use aot::runtime::compiled::Executable;
    let text = r#"func.func @f(%q: tensor<2x4xs0xf32>, %k: tensor<2x4xs0xf32>, %v: tensor<2x4xs0xf32>) -> tensor<2x4xs0xf32> {
  %0:2 = tensor.attention %q, %k, %v : tensor<2x4xs0xf32>, tensor<2x4xs0xf32>, tensor<2x4xs0xf32> -> (tensor<2x4xs0xf32>, tensor<2x4xf32>)
  return %0#0 : tensor<2x4xs0xf32>
}"#;
    let mut sized = by_size(text, "cranelift", true);
    for n in [3i64, 5] {
        let args: Vec<_> = (0..3).map(|k| pattern(&[2, 4, n], k, 1.0)).collect();
        sized.run(args).unwrap();
    }
    assert!(!sized.runs_with_runtime_sizes());
    let why = sized.runtime_sizes_refused().expect("a reason").to_string();
    assert!(why.contains("attention"), "{why}");
    assert_eq!(sized.versions_built(), 2);
    assert!(aot::codegen::by_size::runtime_sizes_refusals().contains(&why), "{why}");
}

/// An elementwise op over a view whose strides eager orders one way at
/// some sizes and not at others (a tie where a size may be 1): when its
/// result is only read by a reduction, its layout is free and the code
/// reads its sizes at run time (the sum adds in another order than code
/// per size, which lays the intermediate out as eager does: equal within
/// rounding); when the result is returned, its layout is eager's, which
/// changes with the sizes, and the function gets code per size, saying
/// why, unless it is a value saved for the backward.
#[test]
fn an_intermediates_layout_is_free() {
    use aot::runtime::compiled::Executable;
    let text = std::fs::read_to_string(common::corpus_dir("symbolic").join("intermediate_layout.mlir")).unwrap();
    let returned = text
        .replace("-> tensor<s0x8xf32> {", "-> (tensor<s0x8xf32>, tensor<s0x8xs1x((s2 + 1) floordiv 2)xf32>) {")
        .replace(
            "return %s : tensor<s0x8xf32>",
            "return %s, %e : tensor<s0x8xf32>, tensor<s0x8xs1x((s2 + 1) floordiv 2)xf32>",
        );
    assert_ne!(text, returned);
    // Returned as a value saved for the backward (`aot.saved`), which
    // reads it in any layout: free again.
    let saved = returned.replace(
        "-> (tensor<s0x8xf32>, tensor<s0x8xs1x((s2 + 1) floordiv 2)xf32>) {",
        "-> (tensor<s0x8xf32>, tensor<s0x8xs1x((s2 + 1) floordiv 2)xf32> {aot.saved = 0}) {",
    );
    assert_ne!(saved, returned);
    for (text, free) in [(&text, true), (&returned, false), (&saved, true)] {
        let (mut sized, mut per_size) = (by_size(text, "cranelift", true), by_size(text, "cranelift", false));
        for (s0, s1, s2) in [(2i64, 3i64, 2i64), (3, 2, 5), (2, 4, 7)] {
            let a = pattern(&[s1, s2, 16, s0], 1, 1.0);
            let (got, want) = (sized.run(vec![a.clone()]).unwrap(), per_size.run(vec![a]).unwrap());
            for (g, w) in got.iter().zip(&want) {
                let close =
                    g.read_f64().iter().zip(w.read_f64()).all(|(a, b)| (a - b).abs() <= 1e-6 * b.abs().max(1.0));
                assert!(close, "at s0={s0}, s1={s1}, s2={s2}");
                assert_eq!(g.strides().to_vec(), w.strides().to_vec(), "at s0={s0}, s1={s1}, s2={s2}");
            }
        }
        assert_eq!(sized.runs_with_runtime_sizes(), free, "{:?}", sized.runtime_sizes_refused());
        if !free {
            assert!(sized.runtime_sizes_refused().is_some_and(|m| m.contains("symbolic layout")));
        }
    }
}

/// A maximum over a size that is 0 at some sizes is refused (eager raises
/// over an empty group): code per size. The function's own ranges decide
/// (`s1 >= 3`, which Dynamo gives after a convolution without padding that
/// needs 3 rows): with them, the same maximum reads its sizes at run time.
#[test]
fn an_empty_group_is_ruled_out_by_the_functions_ranges() {
    use aot::runtime::compiled::Executable;
    let body = r#" {
  %t = view.slice %x {dim = 1, start = 2} : tensor<s0xs1xf32> -> tensor<s0x(s1 - 2)xf32>
  %m = tensor.amax %t {dims = [1]} : tensor<s0x(s1 - 2)xf32> -> tensor<s0xf32>
  return %m : tensor<s0xf32>
}"#;
    let head = "func.func @f(%x: tensor<s0xs1xf32>) -> tensor<s0xf32>";
    let ranged = format!("{head} attributes {{aot.symbols = {{s1 = array<i64: 3, 64>}}}}{body}");
    let open = format!("{head}{body}");
    for (text, runtime) in [(&ranged, true), (&open, false)] {
        let (mut sized, mut per_size) = (by_size(text, "cranelift", true), by_size(text, "cranelift", false));
        for (s0, s1) in [(2i64, 3i64), (3, 7)] {
            let x = pattern(&[s0, s1], 2, 1.0);
            let (got, want) = (sized.run(vec![x.clone()]).unwrap(), per_size.run(vec![x]).unwrap());
            assert_eq!(got[0].read_f64(), want[0].read_f64());
        }
        assert_eq!(sized.runs_with_runtime_sizes(), runtime, "{:?}", sized.runtime_sizes_refused());
        if !runtime {
            assert!(sized.runtime_sizes_refused().is_some_and(|m| m.contains("which may be 0")));
        }
    }
}
