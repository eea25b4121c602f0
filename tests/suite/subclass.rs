//! Tensor subclasses beyond upstream AOTAutograd and against the dense
//! semantics they stand for.
//!
//! Upstream refuses metadata mutations of subclass inputs, subclass inputs
//! that alias each other with a mutation (synthetic bases) and mutated
//! duplicates (pytorch#114975); here they work. Each case is checked three
//! ways: eager against every compiled configuration (interpreter and
//! Cranelift, inference and training), and eager against runs of the dense
//! program once per component (the subclass types erased, each subclass
//! argument replaced by its k-th inner tensor), which is what per-component
//! dispatch means. Random draws are per component in order: the compiled
//! draws equal eager's bit for bit, and the two components differ.

use aot::compile::{Backend, CompileOptions};
use aot::ir::{parse_module, verify, Context, ParseOptions, SourceMgr};
use aot_run::compare::{compare, CompareOptions};
use aot_run::json::{parse_inputs, parse_tangents};
use aot_run::subclass::dense_case;
use aot_run::{fd, outputs_json, run_compiled, run_eager, Calls};
use serde_json::{json, Value as Json};
use std::sync::Arc;

use crate::common;

fn parse(ctx: &mut Context, text: &str, file: &str) -> (aot::ir::Op, aot::ir::Op) {
    let m = parse_module(ctx, text, &ParseOptions { file: file.to_string(), first_line: 1 }).expect("parses");
    verify(ctx, m).expect("verifies");
    let f = aot::dialects::func::entry_func(ctx, m, None).expect("entry").op;
    (m, f)
}

/// Runs a subclass program eagerly (or compiled with `opts`), the result
/// wrapped back into subclass values; `grad`: also gradients (finite
/// differences in eager mode).
fn run(text: &str, inputs: &str, opts: Option<&CompileOptions>, grad: bool, seed: u64) -> Result<Json, String> {
    let file = "case.mlir";
    let case = dense_case(text, file, inputs, None)?;
    let w = case.wrapper.as_ref().ok_or("no subclass values")?;
    let spec = parse_inputs(&case.inputs).map_err(|e| e.to_string())?;
    let tangents = parse_tangents("{}").map_err(|e| e.to_string())?;
    let mut sources = SourceMgr::new();
    sources.add(file, Arc::from(case.text.as_str()));
    let mut ctx = Context::new();
    let (m, f) = parse(&mut ctx, &case.text, file);
    let mut out = match opts {
        None => {
            let r = run_eager(&ctx, &sources, f, &spec, seed, false).map_err(|e| e.to_string())?;
            let mut out = r.to_json();
            if grad {
                let g =
                    fd::finite_differences(&ctx, &sources, f, &spec, &tangents, &r, seed).map_err(|e| e.to_string())?;
                out["grads"] = Json::Array(g.grads);
            }
            out
        }
        Some(opts) => {
            let calls = Calls { seed, count: 1, grad: grad.then_some(&tangents) };
            let r = run_compiled(ctx, &sources, m, f, &spec, opts, calls).map_err(|e| e.to_string())?;
            let mut out = outputs_json(&r.outputs, &r.args);
            if let Some((g, _)) = r.grads {
                out["grads"] = g;
            }
            out
        }
    };
    w.wrap_result(&mut out);
    Ok(out)
}

fn configs(grad: bool) -> Vec<CompileOptions> {
    let pipelines: &[&str] = if grad { &["aot-train"] } else { &["aot-inference", "aot-train"] };
    let mut out = Vec::new();
    for p in pipelines {
        for backend in [Backend::Interp, Backend::CRANELIFT] {
            out.push(CompileOptions { pipeline: p.to_string(), backend, keep_ir: false, progress: false });
        }
    }
    out
}

/// The dense program of one component: subclass types erased.
fn per_component_program(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("aot.subclass @") {
            continue;
        }
        let mut l = line.to_string();
        while let Some(i) = l.find("!aot.subclass<") {
            let rest = &l[i..];
            let comma = rest.find(", ").expect("subclass type has a comma");
            // The outer tensor type ends at the first '>' after it, and the
            // subclass type one character later.
            let close = rest[comma..].find('>').expect("tensor type closes") + comma;
            let tensor = rest[comma + 2..=close].to_string();
            l = format!("{}{}{}", &l[..i], tensor, &rest[close + 2..]);
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The input file of component `k`: each subclass argument replaced by its
/// k-th inner tensor (TwoTensor-like classes of dense components only).
fn per_component_inputs(inputs: &Json, k: usize) -> Json {
    let mut out = inputs.clone();
    let args: Vec<Json> = inputs["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| match a.get("subclass") {
            Some(_) => {
                let mut inner = a["inner"][k].clone();
                if let Some(rg) = a.get("requires_grad") {
                    inner["requires_grad"] = rg.clone();
                }
                inner
            }
            None => a.clone(),
        })
        .collect();
    out["args"] = Json::Array(args);
    out
}

/// Component `k` of every subclass value in a result file.
fn component(result: &Json, key: &str, k: usize) -> Vec<Json> {
    result[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            if v.get("subclass").is_none() {
                return v.clone();
            }
            let mut c = v["inner"][k].clone();
            // An output's aliasing and requires_grad are the outer value's.
            for f in ["alias_of_arg", "requires_grad"] {
                if let Some(x) = v.get(f) {
                    c[f] = x.clone();
                }
            }
            c
        })
        .collect()
}

fn check_case(name: &str, grad: bool) {
    let dir = common::corpus_dir("run").join("subclass");
    let text = std::fs::read_to_string(dir.join(format!("{name}.mlir"))).unwrap();
    let inputs_text = std::fs::read_to_string(dir.join(format!("{name}.inputs.json"))).unwrap();
    let eager = run(&text, &inputs_text, None, grad, 0).unwrap_or_else(|e| panic!("{name}: eager: {e}"));
    let cmp = CompareOptions { grads: grad, slack: 1.0, all_layouts: false, hidden_output_aliasing: true };
    for opts in configs(grad) {
        let compiled = run(&text, &inputs_text, Some(&opts), grad, 0)
            .unwrap_or_else(|e| panic!("{name}: {} {:?}: {e}", opts.pipeline, opts.backend));
        let diffs = compare(&compiled, &eager, cmp);
        assert!(diffs.is_empty(), "{name}: {} {:?} differs from eager: {diffs:?}", opts.pipeline, opts.backend);
    }
    // Per-component dispatch: component k of every subclass value is what
    // the dense program computes on the k-th inner tensors.
    let dense_text = per_component_program(&text);
    let inputs: Json = serde_json::from_str(&inputs_text).unwrap();
    for k in 0..2 {
        let spec = parse_inputs(&per_component_inputs(&inputs, k).to_string()).unwrap();
        let mut ctx = Context::new();
        let (_, f) = parse(&mut ctx, &dense_text, "dense.mlir");
        let mut sources = SourceMgr::new();
        sources.add("dense.mlir", Arc::from(dense_text.as_str()));
        let r = run_eager(&ctx, &sources, f, &spec, 0, false).unwrap_or_else(|e| panic!("{name}: dense run {k}: {e}"));
        let dense = r.to_json();
        for key in ["outputs", "args_after"] {
            let want = json!({ key: dense[key] });
            let got = json!({ key: component(&eager, key, k) });
            let (a, b) = (
                json!({"outputs": got.get("outputs").cloned().unwrap_or(json!([])), "args_after": got.get("args_after").cloned().unwrap_or(json!([]))}),
                json!({"outputs": want.get("outputs").cloned().unwrap_or(json!([])), "args_after": want.get("args_after").cloned().unwrap_or(json!([]))}),
            );
            let diffs = compare(
                &a,
                &b,
                CompareOptions { grads: false, slack: 1.0, all_layouts: true, hidden_output_aliasing: true },
            );
            assert!(diffs.is_empty(), "{name}: component {k} of {key} differs from the dense program's: {diffs:?}");
        }
    }
}

#[test]
fn metadata_mutation_of_a_subclass_input() {
    aot::init();
    check_case("metadata_mutation_t_", false);
}

#[test]
fn subclass_inputs_aliasing_each_other_with_a_mutation() {
    aot::init();
    check_case("aliased_inputs_mutation", false);
}

#[test]
fn mutated_duplicate_subclass_input() {
    aot::init();
    check_case("mutated_duplicate_input", false);
}

#[test]
fn data_mutations_and_views_per_component() {
    aot::init();
    check_case("input_data_mutation", false);
    check_case("mutation_through_view", false);
    check_case("view_output_aliases_input", false);
}

#[test]
fn gradients_per_component() {
    aot::init();
    check_case("pointwise_dense_operand", true);
    check_case("intermediate_alias_and_grad", true);
    check_case("matmul_dense_weight", true);
}

/// Random ops draw once per component, component order first: compiled
/// draws are eager's bit for bit, and the components' masks differ.
#[test]
fn random_draws_per_component_in_order() {
    aot::init();
    let text = r#"
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<64xf32>>) -> !aot.subclass<@TwoTensor, tensor<64xf32>> {
  %0, %m = rng.dropout %x {p = 0.5} : !aot.subclass<@TwoTensor, tensor<64xf32>> -> (!aot.subclass<@TwoTensor, tensor<64xf32>>, !aot.subclass<@TwoTensor, tensor<64xi1>>)
  return %0 : !aot.subclass<@TwoTensor, tensor<64xf32>>
}
"#;
    let ones = vec![1.0; 64];
    let inputs = json!({"args": [{"subclass": "TwoTensor", "requires_grad": true, "inner": [
        {"dtype": "f32", "shape": [64], "data": ones}, {"dtype": "f32", "shape": [64], "data": ones}]}]})
    .to_string();
    let eager = run(text, &inputs, None, false, 11).unwrap();
    let a = &eager["outputs"][0]["inner"][0]["data"];
    let b = &eager["outputs"][0]["inner"][1]["data"];
    assert_ne!(a, b, "both components drew the same mask");
    for opts in configs(true) {
        let compiled = run(text, &inputs, Some(&opts), true, 11).unwrap();
        assert_eq!(compiled["outputs"], eager["outputs"], "{} {:?}", opts.pipeline, opts.backend);
        // The gradient is the mask scaled by 1/(1-p), per component.
        let g = &compiled["grads"][0]["inner"];
        assert_eq!(g[0]["data"], *a, "grad of component a");
        assert_eq!(g[1]["data"], *b, "grad of component b");
    }
}

mod embedding {
    use aot::subclass::{compile, Value};
    use aot::{Module, Options, Tensor};

    const PROGRAM: &str = r#"
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @step(%w: !aot.subclass<@TwoTensor, tensor<3x2xf32>>, %x: tensor<4x3xf32>, %acc: !aot.subclass<@TwoTensor, tensor<3x2xf32>>) -> (tensor<f32>, !aot.subclass<@TwoTensor, tensor<f32>>, !aot.subclass<@TwoTensor, tensor<2x3xf32>>) {
  %h = tensor.matmul %x, %w : tensor<4x3xf32>, !aot.subclass<@TwoTensor, tensor<3x2xf32>> -> !aot.subclass<@TwoTensor, tensor<4x2xf32>>
  %t = tensor.tanh %h : !aot.subclass<@TwoTensor, tensor<4x2xf32>>
  %l = tensor.sum %t {dims = [0, 1]} : !aot.subclass<@TwoTensor, tensor<4x2xf32>> -> !aot.subclass<@TwoTensor, tensor<f32>>
  mut.add_ %acc, %w : !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  %v = view.transpose %acc {dim0 = 0, dim1 = 1} : !aot.subclass<@TwoTensor, tensor<3x2xf32>> -> !aot.subclass<@TwoTensor, tensor<2x3xf32>>
  %a, %b = aot.subclass_unwrap %l : !aot.subclass<@TwoTensor, tensor<f32>> -> (tensor<f32>, tensor<f32>)
  %d = tensor.sub %a, %b : tensor<f32>
  return %d, %l, %v : tensor<f32>, !aot.subclass<@TwoTensor, tensor<f32>>, !aot.subclass<@TwoTensor, tensor<2x3xf32>>
}
"#;

    /// The same step on dense tensors, for one component.
    const DENSE: &str = r#"
func.func @step(%w: tensor<3x2xf32>, %x: tensor<4x3xf32>) -> tensor<f32> {
  %h = tensor.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %t = tensor.tanh %h : tensor<4x2xf32>
  %l = tensor.sum %t {dims = [0, 1]} : tensor<4x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
"#;

    fn t(v: &[f32], shape: &[i64]) -> Tensor {
        Tensor::from_slice::<f32>(v, shape).unwrap()
    }

    fn two(a: Tensor, b: Tensor) -> Value {
        Value::subclass("TwoTensor", vec![Value::Tensor(a), Value::Tensor(b)])
    }

    /// Mutations land in the caller's inner tensors, aliased outputs are
    /// views of them, gradients are subclass values equal to the dense
    /// program's per component, and a dense tangent is coerced.
    #[test]
    fn embedding_api_runs_subclass_functions() {
        aot::init();
        let module = Module::parse(PROGRAM, "step.mlir").unwrap();
        let dense = Module::parse(DENSE, "dense.mlir").unwrap();
        let wa: Vec<f32> = (0..6).map(|i| 0.1 * i as f32 - 0.2).collect();
        let wb: Vec<f32> = (0..6).map(|i| 0.3 - 0.07 * i as f32).collect();
        let xs: Vec<f32> = (0..12).map(|i| ((i * 7) % 5) as f32 * 0.25 - 0.5).collect();
        let make = || {
            let (a, b) = (t(&wa, &[3, 2]), t(&wb, &[3, 2]));
            a.set_requires_grad(true);
            b.set_requires_grad(true);
            (two(a, b), t(&xs, &[4, 3]), two(t(&[0.0; 6], &[3, 2]), t(&[1.0; 6], &[3, 2])))
        };
        for opts in [Options::training(), Options::training().with_backend(aot::Backend::Interp)] {
            let (w, x, acc) = make();
            let mut f = compile(&module, None, &[w.clone(), Value::Tensor(x.clone()), acc.clone()], &opts).unwrap();
            let (outs, saved) = f.forward(&[w.clone(), Value::Tensor(x.clone()), acc.clone()]).unwrap();
            // acc += w landed in the caller's inner tensors; the output views them.
            let acc_b = acc.inner()[1].tensor().unwrap();
            let want: Vec<f32> = wb.iter().map(|v| v + 1.0).collect();
            assert_eq!(acc_b.to_vec::<f32>().unwrap(), want);
            let v_b = outs[2].inner()[1].tensor().unwrap();
            assert!(v_b.shares_storage(acc_b), "the transposed output must view the argument's inner tensor");
            // Losses per component, and their difference as a dense output.
            let la = outs[1].inner()[0].tensor().unwrap().to_vec::<f32>().unwrap()[0];
            let lb = outs[1].inner()[1].tensor().unwrap().to_vec::<f32>().unwrap()[0];
            assert!((outs[0].tensor().unwrap().to_vec::<f32>().unwrap()[0] - (la - lb)).abs() < 1e-6);
            // Backward: a dense tangent 1 for the subclass loss (coerced),
            // 0 for the dense difference (a scalar's default would be 1).
            let (one, zero) = (t(&[1.0], &[]), t(&[0.0], &[]));
            let grads = f.backward(saved, &[Some(Value::Tensor(zero)), Some(Value::Tensor(one)), None]).unwrap();
            let g = grads[0].as_ref().expect("w requires grad");
            assert_eq!(g.class(), Some("TwoTensor"));
            for (k, wk) in [&wa, &wb].into_iter().enumerate() {
                let wd = t(wk, &[3, 2]);
                wd.set_requires_grad(true);
                let xd = t(&xs, &[4, 3]);
                let mut fd = dense.compile(None, &[wd.clone(), xd.clone()], &Options::training()).unwrap();
                let (lo, s) = fd.forward(&[wd, xd]).unwrap();
                let l = lo[0].to_vec::<f32>().unwrap()[0];
                assert!((l - [la, lb][k]).abs() < 1e-5, "loss of component {k}");
                let gd = fd.backward(s, &[None]).unwrap().args[0].clone().unwrap().to_vec::<f32>().unwrap();
                let gs = g.inner()[k].tensor().unwrap().to_vec::<f32>().unwrap();
                for (p, q) in gs.iter().zip(&gd) {
                    assert!((p - q).abs() < 1e-5, "component {k}: {gs:?} vs {gd:?}");
                }
            }
        }
    }

    /// Calls that break the convention are refused and change nothing.
    #[test]
    fn embedding_api_guards_subclass_arguments() {
        aot::init();
        let module = Module::parse(PROGRAM, "step.mlir").unwrap();
        let w = two(t(&[0.5; 6], &[3, 2]), t(&[0.25; 6], &[3, 2]));
        let acc = two(t(&[0.0; 6], &[3, 2]), t(&[0.0; 6], &[3, 2]));
        let x = Value::Tensor(t(&[1.0; 12], &[4, 3]));
        let mut f = compile(&module, None, &[w.clone(), x.clone(), acc.clone()], &Options::inference()).unwrap();
        // A dense tensor where a TwoTensor is expected.
        let e = f.call(&[Value::Tensor(t(&[0.5; 6], &[3, 2])), x.clone(), acc.clone()]).unwrap_err();
        assert!(e.to_string().contains("takes a @TwoTensor value, got a dense tensor"), "{e}");
        // Another class.
        let other = Value::subclass("Other", w.inner().to_vec());
        let e = f.call(&[other, x.clone(), acc.clone()]).unwrap_err();
        assert!(e.to_string().contains("got a @Other value"), "{e}");
        // An inner tensor that aliases another argument's: the dense guards.
        let shared = acc.inner()[0].tensor().unwrap().clone();
        let aliased = two(shared, t(&[0.25; 6], &[3, 2]));
        let before = acc.inner()[0].tensor().unwrap().to_vec::<f32>().unwrap();
        assert!(f.call(&[aliased, x.clone(), acc.clone()]).is_err());
        assert_eq!(
            acc.inner()[0].tensor().unwrap().to_vec::<f32>().unwrap(),
            before,
            "a refused call changed an argument"
        );
        // Inner tensors that disagree on requires_grad.
        let a = t(&[0.5; 6], &[3, 2]);
        a.set_requires_grad(true);
        let e = f.call(&[two(a, t(&[0.25; 6], &[3, 2])), x, acc]).unwrap_err();
        assert!(e.to_string().contains("must all require grad or none"), "{e}");
    }
}

/// A dense argument that requires grad and is read by the components of a
/// subclass op gets a subclass gradient (component k: its dense uses'
/// gradient plus component k's use), in the embedding API as in PyTorch.
#[test]
fn dense_argument_read_by_components_gets_a_subclass_gradient() {
    use aot::subclass::{compile, Value};
    use aot::{Module, Options, Tensor};
    aot::init();
    let module = Module::parse(
        r#"aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @f(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>, %w: tensor<3xf32>) -> (!aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<f32>) {
  %y = tensor.mul %x, %w : !aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<3xf32> -> !aot.subclass<@TwoTensor, tensor<3xf32>>
  %s = tensor.sum %w {dims = [0]} : tensor<3xf32> -> tensor<f32>
  return %y, %s : !aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<f32>
}"#,
        "w.mlir",
    )
    .unwrap();
    let t = |v: &[f32]| Tensor::from_slice::<f32>(v, &[3]).unwrap();
    let x =
        Value::subclass("TwoTensor", vec![Value::Tensor(t(&[1.0, 2.0, 3.0])), Value::Tensor(t(&[10.0, 20.0, 30.0]))]);
    let w = t(&[0.5, 0.25, 2.0]);
    w.set_requires_grad(true);
    for opts in [Options::training(), Options::training().with_backend(aot::Backend::Interp)] {
        let args = [x.clone(), Value::Tensor(w.clone())];
        let mut f = compile(&module, None, &args, &opts).unwrap();
        let (outs, saved) = f.forward(&args).unwrap();
        assert_eq!(outs[0].inner()[1].tensor().unwrap().to_vec::<f32>().unwrap(), vec![5.0, 5.0, 60.0]);
        // Tangents: ones for the subclass output (coerced), 1 for the sum.
        let grads = f.backward(saved, &[Some(Value::Tensor(t(&[1.0, 1.0, 1.0]))), None]).unwrap();
        let g = grads[1].as_ref().expect("w requires grad");
        assert_eq!(g.class(), Some("TwoTensor"));
        assert_eq!(g.inner()[0].tensor().unwrap().to_vec::<f32>().unwrap(), vec![2.0, 3.0, 4.0]);
        assert_eq!(g.inner()[1].tensor().unwrap().to_vec::<f32>().unwrap(), vec![11.0, 21.0, 31.0]);
        // The caller's weight is untouched and still the one passed.
        assert_eq!(w.to_vec::<f32>().unwrap(), vec![0.5, 0.25, 2.0]);
    }
}
