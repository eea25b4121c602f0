//! The `dist` dialect's collectives, run with ranks as threads of this
//! process (`aot_runtime::dist::LocalGroup`): each rank compiles the same
//! program (SPMD) and runs it on its own inputs, interpreted and in native
//! code; the results are those of the collectives' definitions, and the
//! gradients those of the sum of every rank's objective, as eager's
//! autograd gives them. A call without a communicator for its group, or
//! with one of another size, fails with a message.

use aot::compile::Backend;
use aot::ir::ElemType;
use aot::runtime::dist::{register_local, LocalGroup};
use aot::runtime::Tensor;
use aot::{Module, Options};
use std::sync::Arc;

const FORWARD: &str = r#"func.func @f(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<WROWSx3xf32>, tensor<PARTx3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %s = dist.all_reduce %x {group = "g", size = W, reduce = "sum"} : tensor<4x3xf32> -> tensor<4x3xf32>
  %m = dist.all_reduce %x {group = "g", size = W, reduce = "max"} : tensor<4x3xf32> -> tensor<4x3xf32>
  %a = dist.all_gather %x {group = "g", size = W} : tensor<4x3xf32> -> tensor<WROWSx3xf32>
  %r = dist.reduce_scatter %x {group = "g", size = W, reduce = "avg"} : tensor<4x3xf32> -> tensor<PARTx3xf32>
  %t = dist.all_to_all %x {group = "g", size = W} : tensor<4x3xf32> -> tensor<4x3xf32>
  %b = dist.broadcast %x {group = "g", size = W, src = 1} : tensor<4x3xf32> -> tensor<4x3xf32>
  %w = dist.wait %s : tensor<4x3xf32>
  %e = tensor.exp %w : tensor<4x3xf32>
  return %s, %m, %a, %r, %t, %b, %e : tensor<4x3xf32>, tensor<4x3xf32>, tensor<WROWSx3xf32>, tensor<PARTx3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}"#;

/// The backends each program runs on: the interpreter and the native code
/// generators of this build.
fn backends() -> Vec<&'static str> {
    let mut b = vec!["interp", "cranelift"];
    if cfg!(feature = "llvm") {
        b.push("llvm");
    }
    b
}

fn program(text: &str, w: usize) -> String {
    text.replace("WROWS", &(4 * w).to_string())
        .replace("PART", &(4 / w).to_string())
        .replace("size = W", &format!("size = {w}"))
}

/// Rank r's input: element i is `10·r + i` (so every rank's differs).
fn input(rank: usize) -> Vec<f64> {
    (0..12).map(|i| (10 * rank + i) as f64).collect()
}

fn tensor(v: &[f64], shape: &[i64]) -> Tensor {
    Tensor::from_f64(ElemType::F32, shape, v, ElemType::F32)
}

/// Runs `body(rank)` on `w` threads, each with its rank's communicator of
/// one group "g" registered on it; returns each rank's result. A rank that
/// panics aborts the group, so that the others fail rather than wait for
/// it forever.
fn ranks<T: Send + 'static>(w: usize, body: impl Fn(usize) -> T + Send + Sync + 'static) -> Vec<T> {
    ranks_with(w, |c| c, body)
}

/// [`ranks`] with each rank's communicator wrapped by `wrap` (a
/// [`Lazy`] one) before it is registered.
pub(crate) fn ranks_with<T: Send + 'static>(
    w: usize,
    wrap: fn(Arc<LocalGroup>) -> Arc<dyn aot::runtime::dist::Communicator>,
    body: impl Fn(usize) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let body = Arc::new(body);
    let handles: Vec<_> = LocalGroup::new(w)
        .into_iter()
        .enumerate()
        .map(|(rank, c)| {
            let body = body.clone();
            std::thread::spawn(move || {
                register_local("g", wrap(c.clone()));
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(rank)));
                r.unwrap_or_else(|e| {
                    c.abort();
                    std::panic::resume_unwind(e)
                })
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().expect("a rank panicked")).collect()
}

#[test]
fn collectives_follow_their_definitions() {
    for w in [2usize, 4] {
        for backend in backends() {
            let text = program(FORWARD, w);
            let outs = ranks(w, move |rank| {
                let m = Module::parse(text.clone(), "dist.mlir").unwrap();
                let opts = Options::inference().with_backend(Backend::parse(backend).unwrap());
                let x = tensor(&input(rank), &[4, 3]);
                let mut f = m.compile(Some("f"), std::slice::from_ref(&x), &opts).unwrap();
                f.call(&[x]).unwrap().iter().map(|t| t.read_f64()).collect::<Vec<_>>()
            });
            let all: Vec<Vec<f64>> = (0..w).map(input).collect();
            let part = 12 / w;
            for (rank, out) in outs.iter().enumerate() {
                let at = |f: &dyn Fn(usize) -> f64| (0..12).map(f).collect::<Vec<f64>>();
                let sum = at(&|i| all.iter().map(|v| v[i]).sum());
                assert_eq!(out[0], sum, "{backend}, {w} ranks: all_reduce sum on rank {rank}");
                assert_eq!(out[1], at(&|i| all.iter().map(|v| v[i]).fold(f64::MIN, f64::max)));
                assert_eq!(out[2], all.concat(), "all_gather stacks in rank order");
                let avg = at(&|i| all.iter().map(|v| v[i]).sum::<f64>() / w as f64);
                assert_eq!(out[3], avg[rank * part..(rank + 1) * part].to_vec(), "reduce_scatter keeps part r");
                let a2a: Vec<f64> = all.iter().flat_map(|v| v[rank * part..(rank + 1) * part].to_vec()).collect();
                assert_eq!(out[4], a2a, "all_to_all");
                assert_eq!(out[5], all[1], "broadcast from rank 1");
                let e: Vec<f64> = sum.iter().map(|&s| (s as f32).exp() as f64).collect();
                for (g, want) in out[6].iter().zip(&e) {
                    assert!(g == want || (g - want).abs() <= 1e-6 * want.abs(), "{g} against {want}");
                }
            }
        }
    }
}

const TRAIN: &str = r#"func.func @f(%x: tensor<4x3xf32> {aot.requires_grad}, %c: tensor<WROWSx3xf32>) -> tensor<f32> {
  %s = dist.all_reduce %x {group = "g", size = W, reduce = "sum"} : tensor<4x3xf32> -> tensor<4x3xf32>
  %a = dist.all_gather %s {group = "g", size = W} : tensor<4x3xf32> -> tensor<WROWSx3xf32>
  %p = tensor.mul %a, %c : tensor<WROWSx3xf32>, tensor<WROWSx3xf32> -> tensor<WROWSx3xf32>
  %r = dist.reduce_scatter %p {group = "g", size = W, reduce = "sum"} : tensor<WROWSx3xf32> -> tensor<4x3xf32>
  %t = dist.all_to_all %r {group = "g", size = W} : tensor<4x3xf32> -> tensor<4x3xf32>
  %q = tensor.mul %t, %t : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %l = tensor.sum %q : tensor<4x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}"#;

/// The gradient of Σ over ranks of each rank's loss, by the chain rule
/// written out over every rank's values (what eager's autograd computes
/// for these collectives).
fn reference_grads(w: usize, c: &[Vec<f64>], xs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = 12;
    let part = n / w;
    // Forward, on every rank.
    let s: Vec<f64> = (0..n).map(|i| xs.iter().map(|x| x[i]).sum()).collect();
    let a: Vec<f64> = (0..w).flat_map(|_| s.clone()).collect();
    let p: Vec<Vec<f64>> = (0..w).map(|r| a.iter().zip(&c[r]).map(|(a, c)| a * c).collect()).collect();
    let psum: Vec<f64> = (0..w * n).map(|i| p.iter().map(|v| v[i]).sum()).collect();
    // reduce_scatter of [W·4, 3] keeps rows [4r, 4r + 4): n elements each.
    let r: Vec<Vec<f64>> = (0..w).map(|k| psum[k * n..(k + 1) * n].to_vec()).collect();
    let t: Vec<Vec<f64>> =
        (0..w).map(|k| r.iter().flat_map(|v| v[k * part..(k + 1) * part].to_vec()).collect()).collect();
    // Backward: dq/dt = 2t; all_to_all back; all_gather of the parts;
    // times c; reduce_scatter of sums; all_reduce of sums.
    let gt: Vec<Vec<f64>> = t.iter().map(|v| v.iter().map(|x| 2.0 * x).collect()).collect();
    let gr: Vec<Vec<f64>> =
        (0..w).map(|k| gt.iter().flat_map(|v| v[k * part..(k + 1) * part].to_vec()).collect()).collect();
    let gp: Vec<f64> = gr.concat();
    let ga: Vec<Vec<f64>> = (0..w).map(|k| gp.iter().zip(&c[k]).map(|(g, c)| g * c).collect()).collect();
    let gs_all: Vec<f64> = (0..w * n).map(|i| ga.iter().map(|v| v[i]).sum()).collect();
    let gs: Vec<Vec<f64>> = (0..w).map(|k| gs_all[k * n..(k + 1) * n].to_vec()).collect();
    let gx: Vec<f64> = (0..n).map(|i| gs.iter().map(|v| v[i]).sum()).collect();
    vec![gx; w]
}

#[test]
fn collective_gradients_sum_over_ranks() {
    for w in [2usize, 4] {
        for backend in backends() {
            let text = program(TRAIN, w);
            let cs: Vec<Vec<f64>> =
                (0..w).map(|r| (0..12 * w).map(|i| ((i + r) % 5) as f64 * 0.25 - 0.5).collect()).collect();
            let xs: Vec<Vec<f64>> = (0..w).map(|r| input(r).iter().map(|v| v * 0.01).collect()).collect();
            let (cs2, xs2) = (cs.clone(), xs.clone());
            let grads = ranks(w, move |rank| {
                let m = Module::parse(text.clone(), "dist.mlir").unwrap();
                let opts = Options::training().with_backend(Backend::parse(backend).unwrap());
                let args = [tensor(&xs2[rank], &[4, 3]), tensor(&cs2[rank], &[(4 * w) as i64, 3])];
                args[0].set_requires_grad(true);
                let mut f = m.compile(Some("f"), &args, &opts).unwrap();
                let (_, state) = f.forward(&args).unwrap();
                let g = f.backward(state, &[None]).unwrap();
                g.args[0].as_ref().expect("a gradient for x").read_f64()
            });
            let want = reference_grads(w, &cs, &xs);
            for (rank, (g, want)) in grads.iter().zip(&want).enumerate() {
                for (a, b) in g.iter().zip(want) {
                    assert!(
                        (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                        "{backend}, {w} ranks, rank {rank}: {g:?} against {want:?}"
                    );
                }
            }
        }
    }
}

/// A collective whose group has no communicator here, or one of another
/// size than the program's, fails the call with a message (it never
/// blocks); max, min and broadcast have no derivative.
#[test]
fn collectives_refuse_what_they_cannot_run() {
    let text = program(FORWARD, 2).replace("\"g\"", "\"nowhere\"");
    for backend in backends() {
        let m = Module::parse(text.clone(), "dist.mlir").unwrap();
        let opts = Options::inference().with_backend(Backend::parse(backend).unwrap());
        let x = tensor(&input(0), &[4, 3]);
        let e = match m.compile(Some("f"), std::slice::from_ref(&x), &opts).and_then(|mut f| f.call(&[x])) {
            Ok(_) => panic!("{backend}: ran without a communicator"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("process group 'nowhere'") && e.contains("no communicator"), "{backend}: {e}");
    }
    let text = program(FORWARD, 4);
    let errs = ranks(2, move |rank| {
        let m = Module::parse(text.clone(), "dist.mlir").unwrap();
        let x = tensor(&input(rank), &[4, 3]);
        let r = m.compile(Some("f"), std::slice::from_ref(&x), &Options::inference()).and_then(|mut f| f.call(&[x]));
        r.err().map(|e| e.to_string()).unwrap_or_default()
    });
    for e in errs {
        assert!(e.contains("compiled for 4 ranks, but the group has 2"), "{e}");
    }
    let max = r#"func.func @f(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<f32> {
  %m = dist.all_reduce %x {group = "g", size = 2, reduce = "max"} : tensor<4xf32> -> tensor<4xf32>
  %l = tensor.sum %m : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}"#;
    let m = Module::parse(max, "dist.mlir").unwrap();
    let x = tensor(&[1.0, 2.0, 3.0, 4.0], &[4]);
    x.set_requires_grad(true);
    let e = m.compile(Some("f"), &[x], &Options::training()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("an all-reduce with reduce \"max\" is not differentiable"), "{e}");
}

/// A communicator that does its work when waited for, not when started:
/// it reads the input and writes the output only then, so a step that
/// overwrote the input (a temporary reusing its arena bytes) or read the
/// output before the wait would give a wrong result.
pub(crate) struct Lazy(Arc<LocalGroup>);

impl Lazy {
    pub(crate) fn wrap(c: Arc<LocalGroup>) -> Arc<dyn aot::runtime::dist::Communicator> {
        Arc::new(Lazy(c))
    }
}

struct LazyPending {
    group: Arc<LocalGroup>,
    op: aot::runtime::dist::Collective,
    elem: ElemType,
    input: (*const u8, usize, Vec<i64>),
    output: (*mut u8, usize, Vec<i64>),
    done: bool,
}

impl LazyPending {
    fn finish(&mut self) -> Result<(), String> {
        use aot::runtime::dist::{Communicator, Data, DataMut};
        if std::mem::replace(&mut self.done, true) {
            return Ok(());
        }
        // SAFETY: the executor keeps both buffers alive and untouched until
        // the wait (what this test checks by the results).
        let (i, o) = unsafe {
            (
                std::slice::from_raw_parts(self.input.0, self.input.1),
                std::slice::from_raw_parts_mut(self.output.0, self.output.1),
            )
        };
        self.group.run(
            &self.op,
            Data { elem: self.elem, shape: &self.input.2, bytes: i },
            DataMut { elem: self.elem, shape: &self.output.2, bytes: o },
        )
    }
}

impl aot::runtime::dist::Pending for LazyPending {
    fn wait(mut self: Box<Self>) -> Result<(), String> {
        self.finish()
    }
}

impl Drop for LazyPending {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl aot::runtime::dist::Communicator for Lazy {
    fn size(&self) -> usize {
        self.0.size()
    }

    fn rank(&self) -> usize {
        self.0.rank()
    }

    fn run(
        &self,
        op: &aot::runtime::dist::Collective,
        input: aot::runtime::dist::Data<'_>,
        output: aot::runtime::dist::DataMut<'_>,
    ) -> Result<(), String> {
        self.0.run(op, input, output)
    }

    fn start<'a>(
        &self,
        op: &aot::runtime::dist::Collective,
        input: aot::runtime::dist::Data<'a>,
        output: aot::runtime::dist::DataMut<'a>,
    ) -> Result<Box<dyn aot::runtime::dist::Pending + 'a>, String> {
        Ok(Box::new(LazyPending {
            group: self.0.clone(),
            op: op.clone(),
            elem: input.elem,
            input: (input.bytes.as_ptr(), input.bytes.len(), input.shape.to_vec()),
            output: (output.bytes.as_mut_ptr(), output.bytes.len(), output.shape.to_vec()),
            done: false,
        }))
    }
}

/// The host program Cranelift's pipeline makes of `text`'s function.
fn host_program(text: &str) -> aot::codegen::program::HostProgram {
    let mut ctx = aot::ir::Context::new();
    let opts = aot::ir::ParseOptions { file: "dist.mlir".into(), first_line: 1 };
    let m = aot::ir::parse_module(&mut ctx, text, &opts).unwrap();
    let f = aot::dialects::func::entry_func(&ctx, m, None).unwrap().op;
    let native = aot::codegen::Native::named("cranelift", Default::default()).unwrap();
    let mut pm = aot::codegen::pass_manager_for(native.target, Default::default()).unwrap();
    aot::codegen::lower_unless_lowered(&mut ctx, f, &mut pm, &mut std::io::sink()).unwrap();
    aot::codegen::program::build(&ctx, f).unwrap()
}

/// Rank `rank`'s 64 values for the overlap programs.
pub(crate) fn lazy_input(rank: usize) -> Vec<f64> {
    (0..64).map(|i| ((i + 7 * rank) % 11) as f64 * 0.1).collect()
}

/// `text`'s function `f` compiled on `backend` and called with
/// `args(rank)` on two ranks whose communicators only work when waited for
/// ([`Lazy`]): each rank's outputs.
fn call_on_lazy_ranks(text: &'static str, backend: &'static str, args: fn(usize) -> Vec<Tensor>) -> Vec<Vec<Vec<f64>>> {
    ranks_with(2, Lazy::wrap, move |rank| {
        let m = Module::parse(text, "dist.mlir").unwrap();
        let opts = Options::inference().with_backend(Backend::parse(backend).unwrap());
        let args = args(rank);
        let mut f = m.compile(Some("f"), &args, &opts).unwrap();
        f.call(&args).unwrap().iter().map(|t| t.read_f64()).collect::<Vec<_>>()
    })
}

pub(crate) const OVERLAP: &str = r#"func.func @f(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a = tensor.mul %x, %x : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %r = dist.all_reduce %a {group = "g", size = 2, reduce = "sum"} : tensor<64xf32> -> tensor<64xf32>
  %b = tensor.exp %x : tensor<64xf32>
  %c = tensor.sin %b : tensor<64xf32>
  %d = tensor.cos %c : tensor<64xf32>
  %s = tensor.add %r, %d : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %g = dist.all_gather %x {group = "g", size = 2} : tensor<64xf32> -> tensor<128xf32>
  %h = tensor.neg %b : tensor<64xf32>
  %v = view.slice %g {dim = 0, start = 64, end = 128, step = 1} : tensor<128xf32> -> tensor<64xf32>
  %t = tensor.add %v, %h : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %s, %t, %b : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}"#;

/// Native code starts a collective and runs the steps that touch neither
/// its output nor its input's bytes while it is in flight, waiting before
/// the first step that does: with a communicator that only works when
/// waited for, the results are still the definitions', and a collective
/// is in flight over at least one step.
#[test]
fn native_code_runs_independent_steps_while_a_collective_is_in_flight() {
    use aot::codegen::program::Step;
    // The schedule: some collective waits later than its next step.
    let p = host_program(OVERLAP);
    let waits: Vec<(usize, usize)> = p
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Step::Collective(c) => Some((i, c.wait_before)),
            _ => None,
        })
        .collect();
    assert_eq!(waits.len(), 2, "{waits:?}");
    assert!(waits.iter().any(|&(i, w)| w > i + 1), "no step runs while a collective is in flight: {waits:?}");
    // The results, with the work done at the waits.
    for backend in backends().into_iter().filter(|b| *b != "interp") {
        let outs = call_on_lazy_ranks(OVERLAP, backend, |rank| vec![tensor(&lazy_input(rank), &[64])]);
        let xs: Vec<Vec<f64>> = (0..2).map(lazy_input).collect();
        for (rank, out) in outs.iter().enumerate() {
            for i in 0..64 {
                let f = |v: f64| v as f32;
                let sum = xs.iter().map(|x| f(x[i]) * f(x[i])).sum::<f32>();
                let b = f(xs[rank][i]).exp();
                let want = sum + b.sin().cos();
                assert!((out[0][i] as f32 - want).abs() <= 1e-5 * want.abs().max(1.0), "{backend} rank {rank} [{i}]");
                let want_t = f(xs[1][i]) - b;
                assert!((out[1][i] as f32 - want_t).abs() <= 1e-5 * want_t.abs().max(1.0), "{backend} rank {rank}");
            }
        }
    }
}

const LATE: &str = r#"func.func @f(%x: tensor<64xf32>, %y: tensor<32x32xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<32x32xf32>) {
  %a = tensor.mul %x, %x : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %m = tensor.exp %y : tensor<32x32xf32>
  %r = dist.all_reduce %a {group = "g", size = 2, reduce = "sum"} : tensor<64xf32> -> tensor<64xf32>
  %s = tensor.add %r, %x : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %g = dist.all_gather %x {group = "g", size = 2} : tensor<64xf32> -> tensor<128xf32>
  %v = view.slice %g {dim = 0, start = 64, end = 128, step = 1} : tensor<128xf32> -> tensor<64xf32>
  %t = tensor.add %v, %x : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %s, %t, %m : tensor<64xf32>, tensor<64xf32>, tensor<32x32xf32>
}"#;

/// A collective written after independent work (right before its first
/// use, as a traced graph often has it) is moved up to just after what it
/// depends on: the all-reduce to after the product it reduces, ahead of
/// the independent kernel, which then runs while it is in flight. (The
/// all-gather stays behind the step that reads the all-reduce's result:
/// its output may take that result's bytes in the arena.) The results are
/// the definitions', with the work done at the waits.
#[test]
fn collectives_start_as_soon_as_their_inputs_are_ready() {
    use aot::codegen::program::Step;
    let p = host_program(LATE);
    let kinds: Vec<&str> = p
        .steps
        .iter()
        .map(|s| match s {
            Step::Kernel { .. } => "kernel",
            Step::Matmul(_) => "matmul",
            Step::Collective(_) => "collective",
            _ => "other",
        })
        .collect();
    assert_eq!(&kinds[..3], ["kernel", "collective", "kernel"], "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "collective").count(), 2, "{kinds:?}");
    let Step::Collective(c) = &p.steps[1] else { unreachable!() };
    assert!(c.wait_before > 2, "the exponential runs while the all-reduce is in flight: {}", c.wait_before);
    for backend in backends().into_iter().filter(|b| *b != "interp") {
        let outs = call_on_lazy_ranks(LATE, backend, |rank| {
            let y: Vec<f64> = (0..1024).map(|i| ((i * 3) % 7) as f64 * 0.25).collect();
            vec![tensor(&lazy_input(rank), &[64]), tensor(&y, &[32, 32])]
        });
        let xs: Vec<Vec<f32>> = (0..2).map(|r| lazy_input(r).into_iter().map(|v| v as f32).collect()).collect();
        for (rank, out) in outs.iter().enumerate() {
            for i in 0..64 {
                let want = xs.iter().map(|x| x[i] * x[i]).sum::<f32>() + xs[rank][i];
                assert!((out[0][i] as f32 - want).abs() <= 1e-5 * want.abs().max(1.0), "{backend} rank {rank} [{i}]");
                let want_t = xs[1][i] + xs[rank][i];
                assert!((out[1][i] as f32 - want_t).abs() <= 1e-5, "{backend} rank {rank} [{i}]");
            }
            let y: Vec<f32> = (0..1024).map(|i| ((i * 3) % 7) as f32 * 0.25).collect();
            for (k, &v) in y.iter().enumerate() {
                assert!((out[2][k] as f32 - v.exp()).abs() <= 1e-5 * v.exp(), "{backend} rank {rank} exp [{k}]");
            }
        }
    }
}

/// A rank that fails before a collective does not leave the others waiting
/// for it: the group is aborted and their collectives fail with a message.
#[test]
fn a_failed_rank_does_not_hang_the_others() {
    let text = program(FORWARD, 2);
    let handles: Vec<_> = LocalGroup::new(2)
        .into_iter()
        .enumerate()
        .map(|(rank, c)| {
            let text = text.clone();
            std::thread::spawn(move || {
                register_local("g", c.clone());
                if rank == 1 {
                    // Rank 1 fails before its first collective.
                    c.abort();
                    return String::new();
                }
                let m = Module::parse(text, "dist.mlir").unwrap();
                let x = tensor(&input(rank), &[4, 3]);
                let r = m
                    .compile(Some("f"), std::slice::from_ref(&x), &Options::inference())
                    .and_then(|mut f| f.call(&[x]));
                r.err().map(|e| e.to_string()).unwrap_or_default()
            })
        })
        .collect();
    let errs: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(errs[0].contains("a rank of the group gave up"), "{}", errs[0]);
}
