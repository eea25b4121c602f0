//! Guards of compiled functions: a function compiled for one calling
//! convention and called with arguments that break it must refuse the call
//! with an error naming the arguments, and leave every argument untouched;
//! a call that still fits must give eager's answer.

use aot::compile::{compile, Backend, CompileOptions};
use aot::ir::{Context, ParseOptions, SourceMgr};
use aot::runtime::compiled::{CallError, CompiledFunction};
use aot_run::json::parse_inputs;
use aot_run::{materialize, outputs_json, run_eager, signature};
use std::sync::Arc;

struct Case {
    function: CompiledFunction,
    ctx: Context,
    func: aot::ir::Op,
    sources: SourceMgr,
}

fn compile_for(src: &str, spec: &str) -> Case {
    aot::init();
    let mut sources = SourceMgr::new();
    sources.add("case.mlir", Arc::from(src));
    let parse = || {
        let mut ctx = Context::new();
        let m =
            aot::ir::parse_module(&mut ctx, src, &ParseOptions { file: "case.mlir".into(), first_line: 1 }).unwrap();
        aot::ir::verify(&ctx, m).unwrap();
        let f = aot::dialects::func::entry_func(&ctx, m, None).unwrap().op;
        (ctx, m, f)
    };
    let (mut ctx, m, f) = parse();
    let spec = parse_inputs(spec).unwrap();
    spec.convention(&ctx, f).unwrap().apply(&mut aot::ir::Rewriter::new(&mut ctx), f).unwrap();
    let opts =
        CompileOptions { pipeline: "aot-inference".into(), backend: Backend::Interp, keep_ir: false, progress: false };
    let compiled = compile(ctx, &sources, m, f, &opts).unwrap_or_else(|e| panic!("{e}"));
    let (ctx, _, func) = parse();
    Case { function: compiled.function, ctx, func, sources }
}

impl Case {
    /// Calls with the arguments of `spec`; on a refused call, checks that
    /// no argument changed and returns the message.
    fn call(&mut self, spec: &str) -> Result<serde_json::Value, String> {
        let spec = parse_inputs(spec).unwrap();
        let params = signature(&self.ctx, self.func).unwrap();
        let m = materialize(&spec, &params, false).unwrap();
        let before = outputs_json(&[], &m.args);
        match self.function.call(&m.args) {
            Ok(outs) => Ok(outputs_json(&outs, &m.args)),
            Err(CallError::Convention(msg)) => {
                assert_eq!(outputs_json(&[], &m.args), before, "a refused call changed an argument");
                Err(msg)
            }
            Err(CallError::Execution(msg)) => panic!("execution failed: {msg}"),
        }
    }

    fn eager(&self, spec: &str) -> serde_json::Value {
        let spec = parse_inputs(spec).unwrap();
        run_eager(&self.ctx, &self.sources, self.func, &spec, 0, false).unwrap().to_json()
    }
}

const MUTATES_A: &str = r#"
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  mut.neg_ %a : tensor<4xf32>
  %0 = tensor.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}"#;

const READS_ONLY: &str = r#"
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}"#;

const DUP: &str = r#"{"args": [{"dtype": "f32", "shape": [4], "data": [1, 2, 3, 4]}, {"same_as": 0}]}"#;
const DISTINCT: &str = r#"{"args": [{"dtype": "f32", "shape": [4], "data": [1, 2, 3, 4]}, {"dtype": "f32", "shape": [4], "data": [5, 6, 7, 8]}]}"#;
const RG: &str = r#"{"args": [{"dtype": "f32", "shape": [4], "data": [1, 2, 3, 4], "requires_grad": true, "non_leaf": true},
                              {"dtype": "f32", "shape": [4], "data": [5, 6, 7, 8]}]}"#;
const LEAF_RG: &str = r#"{"args": [{"dtype": "f32", "shape": [4], "data": [1, 2, 3, 4], "requires_grad": true},
                                   {"dtype": "f32", "shape": [4], "data": [5, 6, 7, 8]}]}"#;
const TWO_STORAGES: &str = r#"{"storages": [{"dtype": "f32", "data": [0, 1, 2, 3, 4, 5]}, {"dtype": "f32", "data": [9, 8, 7, 6, 5, 4]}],
  "args": [{"storage": 0, "size": [4], "stride": [1], "offset": 0}, {"storage": 1, "size": [4], "stride": [1], "offset": 2}]}"#;
const OVERLAPPING: &str = r#"{"storages": [{"dtype": "f32", "data": [0, 1, 2, 3, 4, 5]}],
  "args": [{"storage": 0, "size": [4], "stride": [1], "offset": 0}, {"storage": 0, "size": [4], "stride": [1], "offset": 2}]}"#;
const DISJOINT_SHARED: &str = r#"{"storages": [{"dtype": "f32", "data": [0, 1, 2, 3, 4, 5, 6, 7]}, {"dtype": "f32", "data": [0, 0, 0, 0, 0, 0, 0, 0]}],
  "args": [{"storage": 0, "size": [4], "stride": [1], "offset": 0}, {"storage": 1, "size": [4], "stride": [1], "offset": 4}]}"#;
const DISJOINT_ONE: &str = r#"{"storages": [{"dtype": "f32", "data": [0, 1, 2, 3, 4, 5, 6, 7]}],
  "args": [{"storage": 0, "size": [4], "stride": [1], "offset": 0}, {"storage": 0, "size": [4], "stride": [1], "offset": 4}]}"#;

#[test]
fn compiled_for_duplicates_called_with_distinct() {
    let mut c = compile_for(MUTATES_A, DUP);
    let e = c.call(DISTINCT).unwrap_err();
    assert!(e.contains("argument 1 would be a duplicate of argument 0"), "{e}");
    assert_eq!(c.call(DUP).unwrap(), c.eager(DUP));
}

#[test]
fn compiled_for_distinct_called_with_duplicates() {
    let mut c = compile_for(MUTATES_A, DISTINCT);
    let e = c.call(DUP).unwrap_err();
    assert!(e.contains("arguments 0 and 1 are the same tensor"), "{e}");
    assert_eq!(c.call(DISTINCT).unwrap(), c.eager(DISTINCT));
}

#[test]
fn untouched_duplicates_work_for_any_pattern() {
    // Strategy 1: each position is its own input.
    let mut c = compile_for(READS_ONLY, DUP);
    assert_eq!(c.call(DISTINCT).unwrap(), c.eager(DISTINCT));
    assert_eq!(c.call(DUP).unwrap(), c.eager(DUP));
    let mut c = compile_for(READS_ONLY, DISTINCT);
    assert_eq!(c.call(DUP).unwrap(), c.eager(DUP));
}

#[test]
fn requires_grad_must_match_both_ways() {
    let mut c = compile_for(MUTATES_A, DISTINCT);
    let e = c.call(RG).unwrap_err();
    assert!(e.contains("argument 0 requires grad, but the function was compiled for an argument that does not"), "{e}");
    let mut c = compile_for(MUTATES_A, RG);
    let e = c.call(DISTINCT).unwrap_err();
    assert!(e.contains("argument 0 does not require grad"), "{e}");
    let e = c.call(LEAF_RG).unwrap_err();
    assert!(e.contains("argument 0 is a leaf, but the function was compiled for a non-leaf"), "{e}");
}

#[test]
fn overlap_that_appears_at_the_call_is_refused() {
    // pytorch issue 139789: compiled for two storages, called with one.
    let mut c = compile_for(MUTATES_A, TWO_STORAGES);
    let e = c.call(OVERLAPPING).unwrap_err();
    assert!(e.contains("arguments 0 and 1 may overlap in memory, and the function mutates argument 0"), "{e}");
    // Sharing a storage without overlapping is fine.
    let mut c = compile_for(MUTATES_A, DISJOINT_SHARED);
    assert_eq!(c.call(DISJOINT_ONE).unwrap(), c.eager(DISJOINT_ONE));
}

#[test]
fn synthetic_base_needs_its_storage() {
    let mut c = compile_for(MUTATES_A, OVERLAPPING);
    assert_eq!(c.call(OVERLAPPING).unwrap(), c.eager(OVERLAPPING));
    let e = c.call(TWO_STORAGES).unwrap_err();
    assert!(e.contains("arguments 0 and 1 were compiled as views of one storage"), "{e}");
}

#[test]
fn shapes_dtypes_and_layouts_are_checked() {
    use aot::ir::ElemType;
    use aot::runtime::Tensor;
    let mut c = compile_for(MUTATES_A, DISTINCT);
    let b = Tensor::from_f64(ElemType::F32, &[4], &[5.0, 6.0, 7.0, 8.0], ElemType::F32);
    let square = Tensor::from_f64(ElemType::F32, &[2, 2], &[1.0, 2.0, 3.0, 4.0], ElemType::F32);
    let Err(CallError::Convention(e)) = c.function.call(&[square, b.clone()]) else {
        panic!("a 2x2 argument was accepted")
    };
    assert!(
        e.contains(
            "argument 0: the function was compiled for a f32 tensor of shape [4], but got a f32 tensor of shape [2, 2]"
        ),
        "{e}"
    );
    let wide = Tensor::from_f64(ElemType::F64, &[4], &[1.0, 2.0, 3.0, 4.0], ElemType::F64);
    let Err(CallError::Convention(e)) = c.function.call(&[wide, b.clone()]) else {
        panic!("an f64 argument was accepted")
    };
    assert!(e.contains("but got a f64 tensor"), "{e}");
    let Err(CallError::Convention(e)) = c.function.call(std::slice::from_ref(&b)) else {
        panic!("one argument was accepted")
    };
    assert!(e.contains("the function takes 2 arguments, got 1"), "{e}");
    let e = c
        .call(
            r#"{"storages": [{"dtype": "f32", "data": [0, 1, 2, 3, 4, 5, 6, 7]}],
          "args": [{"storage": 0, "size": [4], "stride": [2], "offset": 0}, {"dtype": "f32", "shape": [4], "data": [5, 6, 7, 8]}]}"#,
        )
        .unwrap_err();
    assert!(
        e.contains("argument 0: the function was compiled for strides [1] at storage offset 0, but got strides [2]"),
        "{e}"
    );
}
