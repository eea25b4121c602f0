//! The code generators as targets: one list (`aot_codegen::target::TARGETS`)
//! feeds the facade's backends, a target outside the list plugs into the
//! facade and into fusion without an enum to extend, and `fuse` asks the
//! target it runs for, not Cranelift, whether a merge costs a loop its
//! lanes.

use aot::codegen::target::{self, Capabilities, Options as TargetOptions, Target};
use aot::ir::{parse_module, Context, Diagnostic, Op, ParseOptions};
use aot::{Backend, Error, Module, Options, Tensor};

/// Two row sums of one matrix, one of them through a transpose: Cranelift
/// runs the first in lanes and not the second.
const TWO_SUMS: &str = "func.func @lanes_kept(%x: tensor<16x16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = tensor.sum %x {dims = [1]} : tensor<16x16xf32> -> tensor<16xf32>
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<16x16xf32> -> tensor<16x16xf32>
  %b = tensor.sum %t {dims = [1]} : tensor<16x16xf32> -> tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}
";

/// A code generator with no lanes of its own that compiles as Cranelift
/// does: what a new backend starts as.
struct Scalar;

impl Target for Scalar {
    fn name(&self) -> &'static str {
        "scalar-test"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { lowered_input: true, runs: true, device: false, gpu_arch: false }
    }

    fn compile(
        &self,
        ctx: &mut Context,
        func: Op,
        _options: &TargetOptions,
        text: &mut String,
    ) -> Result<Box<dyn aot::runtime::compiled::Executable>, Diagnostic> {
        let options = TargetOptions { vectorize: false, ..Default::default() };
        target::default_target().compile(ctx, func, &options, text)
    }
}

/// `@lanes_kept` lowered to loops and fused for `target`: the number of
/// sibling loops merged.
fn merged_loops(target: &dyn Target) -> u64 {
    aot::init();
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, TWO_SUMS, &ParseOptions { file: "t.mlir".into(), first_line: 1 }).expect("parses");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    aot::codegen::lower_to_loops::lower_function(&mut ctx, f).expect("lowers");
    aot::codegen::fuse::fuse_function(&mut ctx, f, target).expect("fuses").merged_loops
}

#[test]
fn fusion_asks_its_target_whether_a_merge_costs_a_loop_its_lanes() {
    assert_eq!(merged_loops(target::default_target()), 0, "Cranelift keeps the vector loop apart");
    assert_eq!(merged_loops(&Scalar), 1, "without lanes, the two row sums are one loop");
}

static SCALAR: Scalar = Scalar;
static SCALAR_ENTRY: target::Registration = target::Registration {
    name: "scalar-test",
    title: "scalar test backend",
    summary: "Cranelift without lanes (a test)",
    feature: None,
    emits: &[],
    target: Some(&SCALAR),
};

/// Registering a target changes what `Backend::available()` lists for the
/// whole process (and so what the suites that loop over every backend
/// run): it happens in a process of its own.
#[test]
fn a_target_outside_the_list_compiles_and_runs_through_the_facade() {
    crate::common::in_own_process(
        "targets::a_target_outside_the_list_compiles_and_runs_through_the_facade",
        &[],
        || {
            target::register(&SCALAR_ENTRY).expect("a new name");
            assert!(target::register(&SCALAR_ENTRY).is_err(), "a name is registered once");
            let backend = Backend::parse("scalar-test").expect("registered");
            assert_eq!(backend.name(), "scalar-test");
            assert!(Backend::available().iter().any(|(n, _)| *n == "scalar-test"));
            let m = Module::parse(TWO_SUMS, "t.mlir").expect("parses");
            let x = Tensor::from_slice(&(0..256).map(|i| i as f32).collect::<Vec<_>>(), &[16, 16]).expect("x");
            let call = |backend: Backend| -> Result<Vec<Tensor>, Error> {
                m.compile(None, std::slice::from_ref(&x), &Options::inference().with_backend(backend))?
                    .call(std::slice::from_ref(&x))
            };
            let (got, want) = (call(backend).expect("compiles and runs"), call(Backend::Interp).expect("eager"));
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.to_vec::<f32>().expect("f32"), w.to_vec::<f32>().expect("f32"));
            }
        },
    );
}

#[test]
fn the_backends_are_the_listed_targets_that_run_and_the_interpreter() {
    let available = Backend::available();
    let names: Vec<&str> = available.iter().map(|(n, _)| *n).collect();
    let expected: Vec<&str> = target::all()
        .into_iter()
        .filter(|r| r.target.is_some_and(|t| t.capabilities().runs))
        .map(|r| r.name)
        .chain(["interp"])
        .collect();
    assert_eq!(names, expected);
    assert_eq!(names[0], "cranelift", "the default comes first");
    for (name, backend) in &available {
        assert_eq!(Backend::parse(name), Ok(*backend));
        assert_eq!(backend.name(), *name);
    }
    for r in target::all() {
        let parsed = Backend::parse(r.name);
        match r.target {
            None => {
                let e = parsed.expect_err("a target this build lacks");
                let feature = r.feature.expect("only optional targets can be missing");
                assert!(e.contains(&format!("cargo feature `{feature}`")), "{e}");
            }
            Some(t) if !t.capabilities().runs => {
                assert!(parsed.expect_err("text only").contains("text only"));
            }
            Some(_) => assert!(parsed.is_ok()),
        }
    }
    let e = Backend::parse("nosuch").expect_err("unknown");
    assert!(e.starts_with("unknown backend 'nosuch' (available: cranelift"), "{e}");
}

#[test]
fn the_fuse_pass_takes_a_listed_target_by_name() {
    let run = |pipeline: &str| {
        aot::init();
        let mut ctx = Context::new();
        let m =
            parse_module(&mut ctx, TWO_SUMS, &ParseOptions { file: "t.mlir".into(), first_line: 1 }).expect("parses");
        aot::ir::pass::PassManager::parse(pipeline)
            .map_err(|e| e.to_string())
            .and_then(|mut pm| pm.run(&mut ctx, m, &mut std::io::sink()).map_err(|f| format!("{f:?}")))
    };
    assert!(run("builtin.module(func.func(lower-to-loops,fuse{target=cranelift}))").is_ok());
    let e = run("builtin.module(func.func(lower-to-loops,fuse{target=nosuch}))").expect_err("unknown target");
    assert!(e.contains("unknown target 'nosuch' (available: cranelift, hostdev, llvm, ptx, cuda, mlir"), "{e}");
    if target::lookup("llvm").is_some_and(|r| r.target.is_none()) {
        let e = run("builtin.module(func.func(lower-to-loops,fuse{target=llvm}))").expect_err("not built");
        assert!(e.contains("needs the LLVM backend") && e.contains("cargo feature `llvm`"), "{e}");
    }
}
