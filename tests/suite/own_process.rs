//! Tests that need a process of their own, each run through
//! [`common::in_own_process`]: three size the thread pool before it starts
//! (`AOT_NUM_THREADS=3`, so the parallel paths run even on a one-core
//! machine), one installs the process's host thread team, and two measure
//! the process's tensor storage, which no other test may allocate
//! meanwhile. They were binaries of their own; each linked the whole
//! compiler again.
//!
//! - `matmul_layouts_are_exact_on_several_threads`: matrix products on
//!   native code with several threads on aot's own pool.
//! - `philox_kernels_split_across_threads_draw_what_one_thread_draws`:
//!   kernels split across threads after a scalar prologue.
//! - `parallel_steps_run_on_an_openmp_team`: native code's parallel steps on
//!   a host's OpenMP team (`aot::codegen::threads`): the team runs every job
//!   once, on several threads at once, and re-raises a job's panic on the
//!   caller; installed as the host team, split kernels and GEMMs (batched,
//!   split by rows and by columns) run on it and give the exact results they
//!   give on aot's pool. Needs GNU libgomp (Debian's `libgomp1`, which GCC
//!   depends on).
//! - `peak_memory_is_monotonic_in_the_budget`: `partition{memory-budget=F}`
//!   against the runtime's own measurement: on a generated transformer
//!   encoder, a larger budget never gives a larger modelled peak nor a
//!   larger measured peak (bytes of tensor storage alive at once while the
//!   compiled forward and backward run), and the model predicts the
//!   measurement.
//! - `contiguous_arguments_are_bound_in_place`: compiled calls bind the
//!   caller's buffers without copying them: a large contiguous argument
//!   mutated in place costs no storage of its size.

use crate::common::{self, in_own_process};
use aot::codegen::threads::{self, OpenMp, Team};
use aot::compile::{compile, Backend, CompileOptions};
use aot::ir::{parse_module, verify, Context, ElemType, ParseOptions, Rewriter, SourceMgr};
use aot::models::{transformer_encoder, Encoder};
use aot::passes::partition::PartitionInfo;
use aot::runtime::tensor::{memory, Tensor};
use aot::{Module, Options};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const THREADS: &[(&str, &str)] = &[("AOT_NUM_THREADS", "3")];

#[test]
fn matmul_layouts_are_exact_on_several_threads() {
    in_own_process("own_process::matmul_layouts_are_exact_on_several_threads", THREADS, || {
        aot::init();
        common::parallel::matmul_layouts_are_exact();
    });
}

#[test]
fn philox_kernels_split_across_threads_draw_what_one_thread_draws() {
    in_own_process("own_process::philox_kernels_split_across_threads_draw_what_one_thread_draws", THREADS, || {
        aot::init();
        common::parallel::philox_splits_draw_what_one_thread_draws();
    });
}
fn libgomp() -> OpenMp {
    OpenMp::load("libgomp.so.1").unwrap_or_else(|e| panic!("{e} (this test needs GNU libgomp: Debian's libgomp1)"))
}

/// The OpenMP team, counting the splits it runs.
struct Counting(OpenMp, &'static AtomicUsize);

impl Team for Counting {
    fn name(&self) -> String {
        self.0.name()
    }
    fn threads(&self) -> usize {
        self.0.threads()
    }
    fn run(&self, n: usize, job: &(dyn Fn(usize) + Sync)) {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.run(n, job)
    }
}

#[test]
fn parallel_steps_run_on_an_openmp_team() {
    in_own_process("own_process::parallel_steps_run_on_an_openmp_team", THREADS, || {
        aot::init();
        let team = libgomp();
        assert!(team.name().starts_with("OpenMP ("), "{}", team.name());
        assert!(team.threads() >= 1);

        // Every job exactly once.
        let hits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
        team.run(hits.len(), &|i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        });
        let wrong: Vec<usize> = (0..hits.len()).filter(|&i| hits[i].load(Ordering::Relaxed) != 1).collect();
        assert!(wrong.is_empty(), "jobs not run exactly once: {wrong:?}");

        // Two jobs that each wait for the other: only two threads at once
        // finish them (one thread would wait out the deadline in the first).
        let arrived = AtomicUsize::new(0);
        let met = AtomicUsize::new(0);
        team.run(2, &|_| {
            arrived.fetch_add(1, Ordering::SeqCst);
            let deadline = Instant::now() + Duration::from_secs(20);
            while arrived.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
                std::hint::spin_loop();
            }
            if arrived.load(Ordering::SeqCst) == 2 {
                met.fetch_add(1, Ordering::SeqCst);
            }
        });
        assert_eq!(met.load(Ordering::SeqCst), 2, "the two jobs did not run at the same time");

        // A panicking job: the others stop being handed out, the panic reaches
        // the caller after the team has returned.
        // (Quietly: the default hook would print the expected panic.)
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            team.run(4, &|i| {
                if i == 2 {
                    panic!("job 2 failed");
                }
            })
        }));
        std::panic::set_hook(hook);
        let payload = caught.expect_err("the job's panic reaches the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"job 2 failed"));

        // Installed: the runtime's splits and GEMMs run on it, with the results
        // they have on aot's own pool.
        static SPLITS: AtomicUsize = AtomicUsize::new(0);
        assert!(threads::host_team().is_none());
        assert!(threads::set_host_team(Box::new(Counting(team, &SPLITS))).is_ok());
        assert!(threads::set_host_team(Box::new(libgomp())).is_err(), "a second team is refused");
        assert_eq!(threads::default_threads(), 3, "AOT_NUM_THREADS still decides the count");
        common::parallel::matmul_layouts_are_exact();
        let after_gemm = SPLITS.load(Ordering::Relaxed);
        assert!(after_gemm > 0, "no GEMM ran on the team");
        common::parallel::philox_splits_draw_what_one_thread_draws();
        assert!(SPLITS.load(Ordering::Relaxed) > after_gemm, "no split kernel ran on the team");
    });
}

const PREFIX: &str = "functionalize,collect-metadata,dedupe,synthetic-base{training=true},rng-functionalize,joint";

/// (modelled peak, measured peak) for one partition.
fn peaks(text: &str, partition: &str) -> (u64, u64) {
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: "encoder".into(), first_line: 1 }).expect("parses");
    verify(&ctx, m).expect("verifies");
    let f = aot::dialects::func::entry_func(&ctx, m, None).expect("entry").op;
    let spec = aot_run::random_inputs(&ctx, f, 3).expect("inputs");
    let params = aot_run::signature(&ctx, f).expect("signature");
    spec.convention(&ctx, f).and_then(|c| c.apply(&mut Rewriter::new(&mut ctx), f)).expect("convention");
    let mut sources = SourceMgr::new();
    sources.add("encoder", Arc::from(text));
    let opts = CompileOptions {
        pipeline: format!("builtin.module(func.func({PREFIX}),{partition})"),
        backend: Backend::Interp,
        keep_ir: true,
        progress: false,
    };
    let compiled = compile(ctx, &sources, m, f, &opts).expect("compiles");
    let ir = compiled.ir.clone().expect("kept IR");
    let mut c2 = Context::new();
    let m2 = parse_module(&mut c2, &ir, &ParseOptions { file: "out".into(), first_line: 1 }).expect("reparses");
    let f2 = aot::dialects::func::entry_func(&c2, m2, Some("encoder")).expect("forward").op;
    let info = PartitionInfo::of_func(&c2, f2).expect("well-formed").expect("aot.partition");
    let mut function = compiled.function;
    let args = aot_run::materialize(&spec, &params, false).expect("args").args;
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
    in_own_process("own_process::peak_memory_is_monotonic_in_the_budget", &[], || {
        aot::init();
        let z =
            Encoder { layers: 3, d_model: 8, heads: 2, ff: 32, batch: 4, seq: 16, dropout: 0.1, dtype: ElemType::F32 };
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
    });
}

#[test]
fn contiguous_arguments_are_bound_in_place() {
    in_own_process("own_process::contiguous_arguments_are_bound_in_place", &[], || {
        let n = 1 << 20;
        let text = format!(
            "func.func @inc(%x: tensor<{n}xf32>) {{
      %c = tensor.full {{value = 1.0}} : tensor<{n}xf32>
      mut.add_ %x, %c : tensor<{n}xf32>, tensor<{n}xf32>
      return
    }}
    "
        );
        let m = Module::parse(text, "inc.mlir").unwrap();
        let x = Tensor::zeros(ElemType::F32, &[n], ElemType::F32);
        let mut f = m.compile(None, std::slice::from_ref(&x), &Options::inference()).unwrap();
        f.call(std::slice::from_ref(&x)).unwrap();
        memory::reset_peak();
        let before = memory::live_bytes();
        f.call(std::slice::from_ref(&x)).unwrap();
        let extra = memory::peak_bytes() - before;
        assert!(extra < (n as u64) * 4 / 8, "a call allocated {extra} bytes for a {}-byte argument", n * 4);
        assert!(x.read_f64().iter().all(|&v| v == 2.0));
    });
}
