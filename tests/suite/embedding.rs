//! The embedding API end to end: the `train_mlp` example (compiled forward,
//! lazily compiled backward, in-place compiled SGD updates) on both
//! backends, and the convention a compiled function holds its callers to.

#[path = "../../examples/train_mlp.rs"]
mod train_mlp;

use aot::{Backend, Error, Module, Options, Tensor};

#[test]
fn the_mlp_example_trains_on_both_backends() {
    let native = train_mlp::train(60, Backend::CRANELIFT, &mut |_, _| {}).expect("native training");
    let interp = train_mlp::train(60, Backend::Interp, &mut |_, _| {}).expect("interpreted training");
    assert!(native[59] < 0.6 * native[0], "the loss did not fall: {native:?}");
    // The same program on two backends: the same trajectory within f32 noise.
    for (a, b) in native.iter().zip(&interp) {
        assert!((a - b).abs() <= 1e-4 * a.abs().max(1e-3), "native {a} vs interp {b}");
    }
}

/// The same example through LLVM: the interpreter's trajectory too.
#[cfg(feature = "llvm")]
#[test]
fn the_mlp_example_trains_on_llvm() {
    let llvm = train_mlp::train(60, Backend::parse("llvm").unwrap(), &mut |_, _| {}).expect("LLVM training");
    let interp = train_mlp::train(60, Backend::Interp, &mut |_, _| {}).expect("interpreted training");
    assert!(llvm[59] < 0.6 * llvm[0], "the loss did not fall: {llvm:?}");
    for (a, b) in llvm.iter().zip(&interp) {
        assert!((a - b).abs() <= 1e-4 * a.abs().max(1e-3), "llvm {a} vs interp {b}");
    }
}

/// The same example on the GPU (skipped, saying why, where there is none).
#[cfg(feature = "cuda")]
#[test]
fn the_mlp_example_trains_on_the_gpu() {
    if !crate::common::gpu_or_skip() {
        return;
    }
    let gpu = train_mlp::train(60, Backend::parse("cuda").unwrap(), &mut |_, _| {}).expect("GPU training");
    let interp = train_mlp::train(60, Backend::Interp, &mut |_, _| {}).expect("interpreted training");
    assert!(gpu[59] < 0.6 * gpu[0], "the loss did not fall: {gpu:?}");
    for (a, b) in gpu.iter().zip(&interp) {
        assert!((a - b).abs() <= 1e-4 * a.abs().max(1e-3), "gpu {a} vs interp {b}");
    }
}

fn f32s(shape: &[i64], data: &[f32]) -> Tensor {
    Tensor::from_slice(data, shape).expect("as many values as elements")
}

const SCALE_INTO: &str = "func.func @scale_into(%out: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %y = tensor.mul %x, %x : tensor<2x3xf32>
  mut.copy_ %out, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %t = view.transpose %out {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
";

#[test]
fn calls_keep_pytorch_semantics_and_guard_the_convention() {
    let m = Module::parse(SCALE_INTO, "scale.mlir").unwrap();
    assert_eq!(m.functions(), vec!["scale_into".to_string()]);
    let out = f32s(&[2, 3], &[0.0; 6]);
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let mut f = m.compile(None, &[out.clone(), x.clone()], &Options::inference()).unwrap();
    assert!(!f.has_backward());
    let r = f.call(&[out.clone(), x.clone()]).unwrap();
    // The argument is written in place; the output is a view of it.
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![1.0, 4.0, 9.0, 16.0, 25.0, 36.0]);
    assert!(r[0].shares_storage(&out));
    assert_eq!(r[0].to_vec::<f32>().unwrap(), vec![1.0, 16.0, 4.0, 25.0, 9.0, 36.0]);
    // Passing the same tensor twice breaks the convention it was compiled
    // for (two distinct storages): refused, nothing written.
    let before = x.to_vec::<f32>().unwrap();
    match f.call(&[x.clone(), x.clone()]) {
        Err(Error::Convention(m)) => assert!(!m.is_empty()),
        other => panic!("expected a convention error, got {:?}", other.map(|v| v.len())),
    }
    assert_eq!(x.to_vec::<f32>().unwrap(), before);
    // Wrong shapes: a convention error at call time, a signature error at
    // compile time.
    let small = f32s(&[3], &[0.0; 3]);
    assert!(matches!(f.call(&[small.clone(), x.clone()]), Err(Error::Convention(_))));
    assert!(matches!(m.compile(None, &[small, x.clone()], &Options::inference()), Err(Error::Signature(_))));
    // A backward was not compiled.
    let (_, state) = f.forward(&[out.clone(), x]).unwrap();
    assert!(matches!(f.backward(state, &[None]), Err(Error::Convention(_))));
}

#[test]
fn aliased_arguments_compile_for_their_layout() {
    // x and y are two views of one storage: the function is specialised on
    // that (synthetic base), and the mutation of x is seen through y.
    let text = "func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %c = tensor.full {value = 1.0} : tensor<3xf32>
  mut.add_ %x, %c : tensor<3xf32>, tensor<3xf32>
  %r = tensor.mul %y, %y : tensor<3xf32>
  return %r : tensor<3xf32>
}
";
    let m = Module::parse(text, "alias.mlir").unwrap();
    let base = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
    let x = base.as_strided(&[3], &[1], 0).unwrap();
    let y = base.as_strided(&[3], &[1], 1).unwrap();
    let mut ctx = aot::ir::Context::new();
    let spec = aot::convention_of(&mut ctx, &[x.clone(), y.clone()]).unwrap();
    assert_eq!(spec.storages.len(), 1);
    assert_eq!(spec.storages[0].numel, Some(4), "the storage's length, not a copy of it");
    let mut f = m.compile(None, &[x.clone(), y.clone()], &Options::inference()).unwrap();
    let r = f.call(&[x, y]).unwrap();
    // A non-leaf view whose base the call is not given: beside another
    // view of its storage, their gradients would have to meet in a base the
    // runtime does not have (tested alone below).
    let stray = base.as_strided(&[2], &[1], 2).unwrap();
    stray.set_requires_grad(true);
    stray.set_leaf(false);
    let other = base.as_strided(&[1], &[1], 0).unwrap();
    assert!(matches!(aot::convention_of(&mut ctx, &[stray, other]), Err(Error::Signature(_))));
    // base = [2, 3, 4, 4]; y = [3, 4, 4].
    assert_eq!(base.to_vec::<f32>().unwrap(), vec![2.0, 3.0, 4.0, 4.0]);
    assert_eq!(r[0].to_vec::<f32>().unwrap(), vec![9.0, 16.0, 16.0]);
}

/// A non-leaf view that requires grad, alone over its storage, of a base
/// the call is not given (`(x * 1.5)[1:3]` passed on from an earlier graph):
/// an argument with its own history, as a non-leaf root. Written in place,
/// it is bound where it lies (the storage's other elements untouched), and
/// its gradient is that of its value on entry: for `v *= w; return v * 2`,
/// 2w for v and 2v for w.
#[test]
fn a_written_non_leaf_view_of_an_unseen_base_has_its_own_history() {
    let text = "func.func @f(%v: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  mut.mul_ %v, %w : tensor<2xf32>, tensor<2xf32>
  %c = tensor.full {value = 2.0} : tensor<2xf32>
  %r = tensor.mul %v, %c : tensor<2xf32>
  return %r : tensor<2xf32>
}
";
    let m = Module::parse(text, "nonleaf.mlir").unwrap();
    let fresh = || {
        let base = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
        let v = base.as_strided(&[2], &[1], 1).unwrap();
        v.set_requires_grad(true);
        v.set_leaf(false);
        let w = f32s(&[2], &[0.5, -3.0]);
        w.set_requires_grad(true);
        (base, v, w)
    };
    let (_, v, w) = fresh();
    let spec = aot::convention_of(&mut aot::ir::Context::new(), &[v.clone(), w.clone()]).unwrap();
    let a0 = &spec.args[0];
    assert!(a0.requires_grad && a0.non_leaf && a0.layout.as_ref().is_some_and(|l| l.offset == 1), "{a0:?}");
    assert!(!spec.storages[0].requires_grad);
    for options in [Options::training(), Options::inference()] {
        let (base, v, w) = fresh();
        let mut f = m.compile(None, &[v.clone(), w.clone()], &options).unwrap();
        if f.has_backward() {
            let (out, state) = f.forward(&[v.clone(), w.clone()]).unwrap();
            assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![2.0, -18.0]);
            let g = f.backward(state, &[Some(f32s(&[2], &[1.0, 1.0]))]).unwrap();
            assert_eq!(g.args[0].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![1.0, -6.0]);
            assert_eq!(g.args[1].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![4.0, 6.0]);
            assert!(g.bases.is_empty());
        } else {
            assert_eq!(f.call(&[v.clone(), w.clone()]).unwrap()[0].to_vec::<f32>().unwrap(), vec![2.0, -18.0]);
        }
        assert_eq!(base.to_vec::<f32>().unwrap(), vec![1.0, 1.0, -9.0, 4.0]);
    }
}

/// A dimension of size 1 is only ever indexed at 0: the guards ignore its
/// stride (`x.t()` of a `1 x 5` tensor, strides `[1, 5]`, is contiguous to
/// PyTorch and to the compiled code), and still refuse a different stride
/// of a longer dimension.
#[test]
fn the_stride_of_a_dimension_of_size_one_is_not_guarded() {
    let text = "func.func @f(%x: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %c = tensor.full {value = 2.0} : tensor<5x1xf32>
  %r = tensor.mul %x, %c : tensor<5x1xf32>
  return %r : tensor<5x1xf32>
}
";
    let m = Module::parse(text, "unit.mlir").unwrap();
    let values = [1.0f32, 2.0, 3.0, 4.0, 5.0];
    let mut f = m.compile(None, &[f32s(&[5, 1], &values)], &Options::inference()).unwrap();
    let transposed = f32s(&[5], &values).as_strided(&[5, 1], &[1, 5], 0).unwrap();
    let out = f.call(&[transposed]).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 8.0, 10.0]);
    let spaced = f32s(&[10], &[0.0; 10]).as_strided(&[5, 1], &[2, 1], 0).unwrap();
    let Err(Error::Convention(e)) = f.call(&[spaced]) else { panic!("strides [2, 1] were accepted") };
    assert!(e.contains("compiled for strides [1, 1] at storage offset 0, but got strides [2, 1]"), "{e}");
}

/// A function that writes one argument from others: compiled for
/// independent arguments, the whole chain and the write are one kernel (the
/// runtime's guards keep a call from breaking that); compiled for an output
/// that is the input itself (a duplicate), or that the broadcast weight is
/// a row of (one synthetic base), every element must still see the values
/// the arguments had on entry.
#[test]
fn an_argument_written_from_overlapping_arguments_sees_their_entry_values() {
    let text = "func.func @f(%x: tensor<3x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>, %out: tensor<3x4xf32>) {
  %0 = tensor.mul %x, %w : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>
  %1 = tensor.add %0, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>
  %2 = tensor.relu %1 : tensor<3x4xf32>
  %3 = tensor.mul %2, %2 : tensor<3x4xf32>
  %4 = tensor.sub %3, %x : tensor<3x4xf32>
  mut.copy_ %out, %4 : tensor<3x4xf32>, tensor<3x4xf32>
  return
}
";
    let m = Module::parse(text, "into.mlir").unwrap();
    let xs: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 2.0).collect();
    let (ws, bs) = (vec![1.5f32, -1.0, 0.5, 2.0], vec![0.25f32, 1.0, -0.5, 0.0]);
    let want = |x: &[f32], w: &[f32], b: &[f32]| -> Vec<f32> {
        (0..12)
            .map(|i| {
                let r = (x[i] * w[i % 4] + b[i % 4]).max(0.0);
                r * r - x[i]
            })
            .collect()
    };
    for &(name, backend) in Backend::available().iter().filter(|(_, b)| b.runs_everything_here()) {
        let opts = Options { backend, ..Options::inference() };
        // Independent arguments.
        let (x, w, b, out) = (f32s(&[3, 4], &xs), f32s(&[4], &ws), f32s(&[4], &bs), f32s(&[3, 4], &[0.0; 12]));
        let mut f = m.compile(None, &[x.clone(), w.clone(), b.clone(), out.clone()], &opts).unwrap();
        f.call(&[x.clone(), w.clone(), b.clone(), out.clone()]).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), want(&xs, &ws, &bs), "{name}: independent");
        assert!(
            matches!(f.call(&[x.clone(), w.clone(), b.clone(), x.clone()]), Err(Error::Convention(_))),
            "{name}: the output may not be the input of a function compiled for distinct ones"
        );
        // The output is the input.
        let x = f32s(&[3, 4], &xs);
        let mut f = m.compile(None, &[x.clone(), w.clone(), b.clone(), x.clone()], &opts).unwrap();
        f.call(&[x.clone(), w.clone(), b.clone(), x.clone()]).unwrap();
        assert_eq!(x.to_vec::<f32>().unwrap(), want(&xs, &ws, &bs), "{name}: out is x");
        // The weight is row 1 of the output: rows after it must still use
        // the weight's entry values.
        let mut init = vec![0.0f32; 12];
        init[4..8].copy_from_slice(&ws);
        let out = f32s(&[3, 4], &init);
        let w = out.as_strided(&[4], &[1], 4).unwrap();
        let x = f32s(&[3, 4], &xs);
        let mut f = m.compile(None, &[x.clone(), w.clone(), b.clone(), out.clone()], &opts).unwrap();
        f.call(&[x, w, b.clone(), out.clone()]).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), want(&xs, &ws, &bs), "{name}: w is a row of out");
    }
}

#[test]
fn bad_text_is_a_located_parse_error() {
    match Module::parse(
        "func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {\n  return %y : tensor<3xf32>\n}\n",
        "bad.mlir",
    ) {
        Err(e @ Error::Parse(_)) => {
            let Error::Parse(ds) = &e else { unreachable!() };
            assert_eq!(ds.len(), 1, "{e}");
            assert_eq!((ds[0].file.as_deref(), ds[0].line), (Some("bad.mlir"), 2), "{e}");
            assert!(ds[0].message.contains("%y"), "{e}");
            // Displayed as aot-opt prints it: location, message, line, caret.
            assert!(e.to_string().starts_with("bad.mlir:2:"), "{e}");
            assert!(e.to_string().contains("return %y"), "{e}");
        }
        _ => panic!("expected a parse error"),
    }
}

/// Dropout on 64 values: a program that draws.
const DROPOUT: &str = "func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y, %m = rng.dropout %x {p = 0.5} : tensor<64xf32> -> (tensor<64xf32>, tensor<64xi1>)
  return %y : tensor<64xf32>
}
";

#[test]
fn manual_seed_replays_the_draws() {
    let m = Module::parse(DROPOUT, "dropout.mlir").unwrap();
    let x = f32s(&[64], &[1.0; 64]);
    let mut f = m.compile(None, std::slice::from_ref(&x), &Options::inference()).unwrap();
    // The metadata says the random op was made a pure function of (seed, offset).
    assert!(f.meta().is_rng_op_functionalized);
    assert_eq!(f.meta().input_info.len(), 1);
    f.manual_seed(11);
    let first = f.call(std::slice::from_ref(&x)).unwrap()[0].to_vec::<f32>().unwrap();
    let second = f.call(std::slice::from_ref(&x)).unwrap()[0].to_vec::<f32>().unwrap();
    assert_ne!(first, second, "the generator advances between calls");
    f.manual_seed(11);
    assert_eq!(f.call(std::slice::from_ref(&x)).unwrap()[0].to_vec::<f32>().unwrap(), first);
    f.manual_seed(12);
    assert_ne!(f.call(std::slice::from_ref(&x)).unwrap()[0].to_vec::<f32>().unwrap(), first);
}

#[test]
fn run_pipeline_prints_what_aot_opt_prints_and_reports_failures() {
    let text = "func.func @f(%b: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  mut.add_ %b, %x : tensor<3xf32>, tensor<3xf32>
  %s = tensor.sum %x : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
";
    let m = Module::parse(text, "m.mlir").unwrap();
    let out = m.run_pipeline("builtin.module(functionalize{keep-input-mutations=false},collect-metadata)").unwrap();
    // Export's form: the mutated argument's new value is returned before
    // the user output.
    assert!(out.contains("-> (tensor<3xf32>, tensor<f32>)"), "{out}");
    assert!(out.contains("mutation_type = \"mutated_out_graph\""), "{out}");
    assert!(!out.contains("mut.add_"), "{out}");
    match m.run_pipeline("builtin.module(no-such-pass)") {
        Err(Error::Compile(msg)) => assert!(msg.contains("no-such-pass"), "{msg}"),
        other => panic!("expected a compile error, got {other:?}"),
    }
}

/// `arg_effects` describes the user's arguments, whatever deduplication
/// and synthetic bases did to the graph's inputs.
#[test]
fn arg_effects_are_per_user_argument() {
    let text = "func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  mut.add_ %a, %c : tensor<4xf32>, tensor<4xf32>
  %t = view.unsqueeze %b {dim = 0} : tensor<4xf32> -> tensor<1x4xf32>
  %s = tensor.mul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
";
    let m = Module::parse(text, "effects.mlir").unwrap();
    let x = f32s(&[4], &[1.0; 4]);
    let c = f32s(&[4], &[2.0; 4]);
    let effects = |args: &[Tensor]| {
        let f = m.compile(None, args, &Options::inference()).unwrap();
        f.arg_effects().iter().map(|e| (e.mutates_data, e.mutates_metadata)).collect::<Vec<_>>()
    };
    let plain = [(true, false), (false, false), (false, false)];
    assert_eq!(effects(&[x.clone(), f32s(&[4], &[3.0; 4]), c.clone()]), plain);
    // The mutated object passed twice: both positions are written.
    assert_eq!(effects(&[x.clone(), x.clone(), c.clone()]), [(true, false), (true, false), (false, false)]);
    // Two views of one storage, one mutated (a synthetic base).
    let base = f32s(&[8], &[1.0; 8]);
    let lo = base.as_strided(&[4], &[1], 0).unwrap();
    let hi = base.as_strided(&[4], &[1], 4).unwrap();
    let e = effects(&[lo, hi, c.clone()]);
    assert!(e[0].0 && !e[2].0, "{e:?}");
}

/// An output that views another output's value shares its storage, as in
/// eager mode (a write through one is seen through the other), on every
/// backend; without grad this is no alias AOTAutograd's metadata records.
#[test]
fn an_output_viewing_another_output_shares_its_storage() {
    let text = "func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<6xf32>) {
  %y = tensor.exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %t = view.t %y : tensor<2x3xf32> -> tensor<3x2xf32>
  %z = view.reshape %y {shape = [6]} : tensor<2x3xf32> -> tensor<6xf32>
  return %y, %t, %z : tensor<2x3xf32>, tensor<3x2xf32>, tensor<6xf32>
}
";
    let m = Module::parse(text, "views.mlir").unwrap();
    let x = f32s(&[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        let mut f = m.compile(None, std::slice::from_ref(&x), &Options { backend, ..Options::inference() }).unwrap();
        let outs = f.call(std::slice::from_ref(&x)).unwrap();
        let y = outs[0].to_vec::<f32>().unwrap();
        for (i, v) in y.iter().enumerate() {
            assert!((v - (i as f32).exp()).abs() <= 1e-6 * v, "{backend:?}: {y:?}");
        }
        assert_eq!(outs[1].to_vec::<f32>().unwrap(), [y[0], y[3], y[1], y[4], y[2], y[5]], "{backend:?}");
        assert_eq!(outs[2].to_vec::<f32>().unwrap(), y, "{backend:?}");
        assert!(outs[1].shares_storage(&outs[0]) && outs[2].shares_storage(&outs[0]), "{backend:?}");
        assert_eq!((&outs[1].strides()[..], outs[1].offset()), (&[1i64, 3][..], 0), "{backend:?}");
    }
}

/// Views of one intermediate the graph does not return share one storage,
/// as in eager mode, where each is a view of that intermediate: a 0-d
/// select and its expand (the torch.compile fuzzer, seed 2118), and two
/// selects of different elements, each at its offset in eager's storage.
#[test]
fn views_of_an_intermediate_that_is_not_returned_share_its_storage() {
    let text = "func.func @f(%x: tensor<3xf32>) -> (tensor<f32>, tensor<2xf32>, tensor<f32>) {
  %y = tensor.exp %x : tensor<3xf32> -> tensor<3xf32>
  %a = view.select %y {dim = 0, index = 2} : tensor<3xf32> -> tensor<f32>
  %b = view.expand %a {shape = [2]} : tensor<f32> -> tensor<2xf32>
  %c = view.select %y {dim = 0, index = 0} : tensor<3xf32> -> tensor<f32>
  return %a, %b, %c : tensor<f32>, tensor<2xf32>, tensor<f32>
}
";
    let m = Module::parse(text, "siblings.mlir").unwrap();
    let x = f32s(&[3], &[0.5, 1.0, 2.0]);
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        let mut f = m.compile(None, std::slice::from_ref(&x), &Options { backend, ..Options::inference() }).unwrap();
        let outs = f.call(std::slice::from_ref(&x)).unwrap();
        let e = |v: f32| v.exp();
        assert_eq!(outs[0].to_vec::<f32>().unwrap(), [e(2.0)], "{backend:?}");
        assert_eq!(outs[1].to_vec::<f32>().unwrap(), [e(2.0), e(2.0)], "{backend:?}");
        assert_eq!(outs[2].to_vec::<f32>().unwrap(), [e(0.5)], "{backend:?}");
        assert!(outs[1].shares_storage(&outs[0]) && outs[2].shares_storage(&outs[0]), "{backend:?}");
        let layout = |t: &Tensor| (t.strides().to_vec(), t.offset());
        assert_eq!(layout(&outs[0]), (vec![], 2), "{backend:?}");
        assert_eq!(layout(&outs[1]), (vec![0], 2), "{backend:?}");
        assert_eq!(layout(&outs[2]), (vec![], 0), "{backend:?}");
    }
}

/// Outputs eager holds in one storage still share one when a write
/// through a view of the intermediate makes the value-level rewrites fold
/// the view into the write's result, so that the outputs' values are no
/// longer views of one value: `w = y[1:]; w.mul_(2); return w, y` (the
/// first output becomes the product, the second the scatter of it into
/// `y`), and `z = y.as_strided(..); z.index_put_(..); return z,
/// z.squeeze(1)` over an intermediate `y` (the torch.compile fuzzer, seed
/// 464, in grad mode with nothing requiring grad). Each came back in a
/// storage of its own, so a write into one after the call missed the other.
#[test]
fn outputs_a_write_through_a_view_folds_apart_still_share_a_storage() {
    let slice = "func.func @f(%x: tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<3x3xf32>) {
  %y = tensor.exp %x : tensor<3x3xf32> -> tensor<3x3xf32>
  %w = view.slice %y {dim = 0, start = 1, end = 3, step = 1} : tensor<3x3xf32> -> tensor<2x3xf32>
  %c = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %w, %c : tensor<2x3xf32>, tensor<f32>
  return %w, %y : tensor<2x3xf32>, tensor<3x3xf32>
}
";
    let index_put = "func.func @f(%x: tensor<3x3xf32>) -> (tensor<3x1xf32>, tensor<3xf32>) {
  %i = tensor.constant dense<[0, 2]> : tensor<2xi64>
  %y = tensor.index_select %x, %i {dim = 0} : tensor<3x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
  %z = view.as_strided %y {size = [3, 1], stride = [1, 1], offset = 0} : tensor<2x3xf32> -> tensor<3x1xf32>
  %s = view.squeeze %z {dim = 1} : tensor<3x1xf32> -> tensor<3xf32>
  %e = view.expand %z {shape = [3, 1]} : tensor<3x1xf32> -> tensor<3x1xf32>
  %v = tensor.full {value = 1.5} : tensor<f32>
  mut.index_put_ %e, %i, %v : tensor<3x1xf32>, tensor<2xi64>, tensor<f32>
  return %e, %s : tensor<3x1xf32>, tensor<3xf32>
}
";
    let data: Vec<f32> = (0..9).map(|k| k as f32 / 4.0).collect();
    let x = f32s(&[3, 3], &data);
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        let opts = Options { backend, ..Options::inference() };
        let m = Module::parse(slice, "slice.mlir").unwrap();
        let outs = m.compile(None, std::slice::from_ref(&x), &opts).unwrap().call(std::slice::from_ref(&x)).unwrap();
        let y: Vec<f32> = data.iter().enumerate().map(|(k, v)| if k < 3 { v.exp() } else { v.exp() * 2.0 }).collect();
        let got = outs[1].to_vec::<f32>().unwrap();
        assert!(got.iter().zip(&y).all(|(a, b)| (a - b).abs() <= 1e-5 * b.abs()), "{backend:?}: {got:?}");
        assert_eq!(outs[0].to_vec::<f32>().unwrap(), got[3..], "{backend:?}");
        assert!(outs[0].shares_storage(&outs[1]), "{backend:?}");
        assert_eq!((outs[0].strides().to_vec(), outs[0].offset()), (vec![3, 1], 3), "{backend:?}");

        let m = Module::parse(index_put, "index_put.mlir").unwrap();
        let outs = m.compile(None, std::slice::from_ref(&x), &opts).unwrap().call(std::slice::from_ref(&x)).unwrap();
        // `z` holds y[0, 0..3] = x[0, 0..3]; rows 0 and 2 of it become 1.5.
        let want = [1.5, data[1], 1.5];
        assert_eq!(outs[0].to_vec::<f32>().unwrap(), want, "{backend:?}");
        assert_eq!(outs[1].to_vec::<f32>().unwrap(), want, "{backend:?}");
        assert!(outs[0].shares_storage(&outs[1]), "{backend:?}");
        assert_eq!((outs[1].strides().to_vec(), outs[1].offset()), (vec![1], 0), "{backend:?}");
    }
}

/// A view of all of an intermediate returned beside it (`return y[:], y`):
/// functionalization folds the view away, so the graph returns one value
/// twice; eager holds both outputs in one storage, and so does the call
/// (they were two copies; torch.compile fuzzer, seed 3312). Two equal
/// fresh values stay two tensors (`two_equal_fresh_outputs_are_distinct`
/// below checks the other side).
#[test]
fn a_whole_view_of_a_returned_intermediate_shares_its_storage() {
    let text = "func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = tensor.exp %x : tensor<3xf32> -> tensor<3xf32>
  %v = view.slice %y {dim = 0, start = 0, end = 3, step = 1} : tensor<3xf32> -> tensor<3xf32>
  return %v, %y : tensor<3xf32>, tensor<3xf32>
}
";
    let m = Module::parse(text, "whole-view.mlir").unwrap();
    let x = f32s(&[3], &[0.5, 1.0, 2.0]);
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        let mut f = m.compile(None, std::slice::from_ref(&x), &Options { backend, ..Options::inference() }).unwrap();
        let outs = f.call(std::slice::from_ref(&x)).unwrap();
        assert!(outs[0].shares_storage(&outs[1]), "{backend:?}");
        assert_eq!(outs[0].to_vec::<f32>().unwrap(), outs[1].to_vec::<f32>().unwrap(), "{backend:?}");
    }
}

/// The other side of the rule above: two equal values computed apart
/// (merged into one by the passes) are two tensors, as in eager.
#[test]
fn two_equal_fresh_outputs_are_distinct() {
    let text = "func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = tensor.exp %x : tensor<3xf32> -> tensor<3xf32>
  %b = tensor.exp %x : tensor<3xf32> -> tensor<3xf32>
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}
";
    let m = Module::parse(text, "fresh-twice.mlir").unwrap();
    let x = f32s(&[3], &[0.5, 1.0, 2.0]);
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        let mut f = m.compile(None, std::slice::from_ref(&x), &Options { backend, ..Options::inference() }).unwrap();
        let outs = f.call(std::slice::from_ref(&x)).unwrap();
        assert!(!outs[0].shares_storage(&outs[1]), "{backend:?}");
    }
}

/// A reshape its operand's layout cannot express copies, as PyTorch's
/// does: `reshape(t(y))` returned beside `y` is a fresh tensor in `t(y)`'s
/// element order, not a view of `y`'s storage in `y`'s order (found by
/// the PyTorch fuzzer, seed 32464); `reshape(y)` still shares `y`'s.
#[test]
fn a_reshape_that_copies_is_no_view_of_another_output() {
    let text = "func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<6xf32>) {
  %y = tensor.exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %t = view.t %y : tensor<2x3xf32> -> tensor<3x2xf32>
  %c = view.reshape %t {shape = [6]} : tensor<3x2xf32> -> tensor<6xf32>
  %v = view.reshape %y {shape = [6]} : tensor<2x3xf32> -> tensor<6xf32>
  return %y, %c, %v : tensor<2x3xf32>, tensor<6xf32>, tensor<6xf32>
}
";
    let m = Module::parse(text, "reshape.mlir").unwrap();
    let x = f32s(&[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        let mut f = m.compile(None, std::slice::from_ref(&x), &Options { backend, ..Options::inference() }).unwrap();
        let outs = f.call(std::slice::from_ref(&x)).unwrap();
        let y = outs[0].to_vec::<f32>().unwrap();
        assert_eq!(outs[1].to_vec::<f32>().unwrap(), [y[0], y[3], y[1], y[4], y[2], y[5]], "{backend:?}");
        assert!(!outs[1].shares_storage(&outs[0]), "{backend:?}: a copy");
        assert_eq!(outs[2].to_vec::<f32>().unwrap(), y, "{backend:?}");
        assert!(outs[2].shares_storage(&outs[0]), "{backend:?}: a view");
    }
}

/// Functions sharing a generator draw one stream in turn, as eager ops
/// draw from PyTorch's default generator: f then g gives what one function
/// called twice gives, and reseeding through either restarts the stream.
#[test]
fn a_shared_generator_is_one_stream_across_functions() {
    let m = Module::parse(DROPOUT, "dropout.mlir").unwrap();
    let x = f32s(&[64], &[1.0; 64]);
    let args = std::slice::from_ref(&x);
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        let opts = Options { backend, ..Options::inference() };
        let mut one = m.compile(None, args, &opts).unwrap();
        one.manual_seed(5);
        let a = one.call(args).unwrap()[0].to_vec::<f32>().unwrap();
        let b = one.call(args).unwrap()[0].to_vec::<f32>().unwrap();
        let shared = aot::SharedGenerator::default();
        let mut f = m.compile(None, args, &opts).unwrap();
        let mut g = m.compile(None, args, &opts).unwrap();
        f.share_generator(shared.clone());
        g.share_generator(shared.clone());
        g.manual_seed(5);
        assert_eq!(f.call(args).unwrap()[0].to_vec::<f32>().unwrap(), a, "{backend:?}");
        assert_eq!(g.call(args).unwrap()[0].to_vec::<f32>().unwrap(), b, "{backend:?}: g continues f's stream");
        f.manual_seed(5);
        assert_eq!(g.call(args).unwrap()[0].to_vec::<f32>().unwrap(), a, "{backend:?}");
    }
}

/// The native runtime reuses a result's buffer for the next call only once
/// the caller has let go of every tensor of it: a result still held keeps
/// its values across later calls, on every backend.
#[test]
fn results_still_held_are_never_reused() {
    let text = "func.func @sq(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tensor.mul %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}";
    let m = Module::parse(text, "sq.mlir").expect("parses");
    for &(name, backend) in Backend::available().iter().filter(|(_, b)| b.runs_everything_here()) {
        let x = |k: f32| f32s(&[4], &[k, k + 1.0, k + 2.0, k + 3.0]);
        let sq = |k: f32| vec![k * k, (k + 1.0) * (k + 1.0), (k + 2.0) * (k + 2.0), (k + 3.0) * (k + 3.0)];
        let mut f = m.compile(None, &[x(1.0)], &Options::inference().with_backend(backend)).expect("compiles");
        let held = f.call(&[x(1.0)]).expect("runs").remove(0);
        let second = f.call(&[x(2.0)]).expect("runs").remove(0);
        let view =
            Tensor::from_parts(second.storage(), aot::ir::ElemType::F32, [2i64, 2][..].into(), [2i64, 1][..].into(), 0)
                .expect("a 2x2 view of the result");
        drop(second);
        for k in 3..6 {
            // Dropped at once: its buffer may serve the next call.
            let out = f.call(&[x(k as f32)]).expect("runs").remove(0);
            assert_eq!(out.to_vec::<f32>().unwrap(), sq(k as f32), "{name}, call {k}");
        }
        assert_eq!(held.to_vec::<f32>().unwrap(), sq(1.0), "{name}: a held result changed");
        assert_eq!(view.to_vec::<f32>().unwrap(), sq(2.0), "{name}: a result held through a view changed");
    }
}

/// `backward_given` takes a missing tangent as an output no gradient
/// reached (an autograd engine's None), never as a scalar loss's ones. With
/// none given at all, no argument gets a gradient (an autograd node that
/// receives only undefined gradients passes undefined ones on, and eager's
/// `.grad` stays None); with any given, every argument gets its gradient,
/// zeros included (eager's graph has the edge). `backward_with_mutations`
/// reads a missing tangent as zeros (ones for a scalar output).
#[test]
fn backward_given_passes_on_that_no_gradient_reached() {
    let text =
        "func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = tensor.sin %x : tensor<3xf32>
  %1 = tensor.exp %y : tensor<3xf32>
  %2 = tensor.add %w, %w : tensor<3xf32>
  mut.copy_ %w, %2 : tensor<3xf32>, tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
";
    let m = Module::parse(text, "given.mlir").unwrap();
    let fresh = || -> Vec<Tensor> {
        let args: Vec<Tensor> = (0..3).map(|_| f32s(&[3], &[0.5, 1.0, 2.0])).collect();
        for a in &args {
            a.set_requires_grad(true);
        }
        args[2].set_leaf(false);
        args
    };
    let args = fresh();
    let mut f = m.compile(None, &args, &Options::training()).unwrap();
    let ones = || Some(f32s(&[3], &[1.0, 1.0, 1.0]));
    // Nothing reached: no gradient at all.
    let (_, state) = f.forward(&args).unwrap();
    let g = f.backward_given(state, &[None, None], &[None, None, None]).unwrap();
    assert!(g.args.iter().all(Option::is_none), "no tangent given: every gradient is None");
    // Only w's new value reached: x and y get zeros, w twice its tangent.
    let args = fresh();
    let (_, state) = f.forward(&args).unwrap();
    let g = f.backward_given(state, &[None, None], &[None, None, ones()]).unwrap();
    assert_eq!(g.args[0].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![0.0; 3]);
    assert_eq!(g.args[1].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![0.0; 3]);
    assert_eq!(g.args[2].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![2.0; 3]);
    // The contract's form: a missing tangent is zeros, gradients are reported.
    let args = fresh();
    let (_, state) = f.forward(&args).unwrap();
    let g = f.backward_with_mutations(state, &[None, None], &[]).unwrap();
    assert!(g.args.iter().all(Option::is_some));
}

/// An argument no gradient can reach (its only use is dead, or under
/// no_grad) is reported so: eager autograd leaves its `.grad` None, and an
/// embedder (aot_torch) returns none. The runtime's gradient for it stays
/// zeros, as `aot-run`'s contract says; one that is reached is reported too.
#[test]
fn arguments_no_gradient_reaches_are_reported() {
    let text = "func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>, %z: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tensor.exp %y : tensor<3xf32>
  %1 = tensor.sin %z {aot.no_grad} : tensor<3xf32>
  %2 = tensor.mul %x, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}
";
    let m = Module::parse(text, "reach.mlir").unwrap();
    let args: Vec<Tensor> = (0..3).map(|_| f32s(&[3], &[0.5, 1.0, 2.0])).collect();
    for a in &args {
        a.set_requires_grad(true);
    }
    let mut f = m.compile(None, &args, &Options::training()).unwrap();
    let reach: Vec<bool> = f.arg_effects().iter().map(|e| e.grad_reaches).collect();
    assert_eq!(reach, vec![true, false, false]);
    let (_, state) = f.forward(&args).unwrap();
    let g = f.backward(state, &[Some(f32s(&[3], &[1.0, 1.0, 1.0]))]).unwrap();
    assert_eq!(g.args[1].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![0.0; 3]);
    let inference = m.compile(None, &args, &Options::inference()).unwrap();
    assert!(inference.arg_effects().iter().all(|e| e.grad_reaches));
}

/// An output no gradient reached contributes nothing to the backward, not
/// even where its derivative multiplies by a value that is not finite:
/// PyTorch's engine never runs that derivative (`log` of an exact zero, an
/// output kept for logging, gave `0 * -inf = nan` gradients to the weights
/// when the backward took the missing tangent as zeros). The backward is
/// specialised for the missing tangent, native and interpreted; where the
/// tangent is given, the non-finite derivative is eager's, and stays.
#[test]
fn an_output_no_gradient_reached_adds_nothing_to_the_backward() {
    let text = "func.func @f(%x: tensor<3xf32> {aot.requires_grad}) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = tensor.sub %x, %x : tensor<3xf32>
  %1 = tensor.div %0, %0 : tensor<3xf32>
  %2 = tensor.mul %x, %x : tensor<3xf32>
  return %2, %1 : tensor<3xf32>, tensor<3xf32>
}
";
    let m = Module::parse(text, "absent.mlir").unwrap();
    let x = [f32s(&[3], &[0.5, 1.0, 2.0])];
    x[0].set_requires_grad(true);
    let ones = || f32s(&[3], &[1.0; 3]);
    for backend in [Backend::CRANELIFT, Backend::Interp] {
        let mut f = m.compile(None, &x, &Options::training().with_backend(backend)).unwrap();
        // Twice: the specialised backward is compiled once, then reused.
        for _ in 0..2 {
            let (_, state) = f.forward(&x).unwrap();
            let g = f.backward(state, &[Some(ones()), None]).unwrap();
            assert_eq!(g.args[0].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![1.0, 2.0, 4.0], "{backend:?}");
        }
        let (_, state) = f.forward(&x).unwrap();
        let g = f.backward(state, &[Some(ones()), Some(ones())]).unwrap();
        assert!(g.args[0].as_ref().unwrap().to_vec::<f32>().unwrap().iter().all(|v| v.is_nan()));
    }
}

/// Which tangents make the backward read each saved value: `w` and `x`
/// only for the product's (output 0), so writing them after the forward
/// changes no backward that only output 1's tangent reaches; that one is
/// what a caller with eager's rules (a derivative that never runs never
/// reads what it saved) checks before letting such a write stand.
#[test]
fn saved_values_name_the_tangents_that_read_them() {
    let text =
        "func.func @f(%w: tensor<3xf32>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = tensor.mul %w, %x : tensor<3xf32>
  %1 = tensor.exp %y : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
";
    let m = Module::parse(text, "needs.mlir").unwrap();
    let args: Vec<Tensor> = (0..3).map(|_| f32s(&[3], &[0.5, 1.0, 2.0])).collect();
    for a in &args {
        a.set_requires_grad(true);
    }
    for backend in [Backend::CRANELIFT, Backend::Interp] {
        let mut f = m.compile(None, &args, &Options::training().with_backend(backend)).unwrap();
        let (_, state) = f.forward(&args).unwrap();
        let needs = f.saved_needs().to_vec();
        assert_eq!(needs.len(), state.saved.len(), "{backend:?}");
        let of_arg = |i: usize| -> Vec<_> {
            state.saved.iter().zip(&needs).filter(|(s, _)| s.shares_storage(&args[i])).map(|(_, n)| n.clone()).collect()
        };
        for i in [0, 1] {
            assert_eq!(of_arg(i), vec![Some((vec![0], vec![]))], "argument {i}, {backend:?}");
        }
        // `exp` saves its result, which only output 1's tangent reads.
        assert!(of_arg(2).is_empty(), "{backend:?}");
        let fresh: Vec<_> =
            state.saved.iter().zip(&needs).filter(|(s, _)| !args.iter().any(|a| s.shares_storage(a))).collect();
        assert_eq!(fresh.len(), 1, "{backend:?}");
        assert_eq!(fresh[0].1, &Some((vec![1], vec![])), "{backend:?}");
    }
}

/// A profile counts each step's runs and time while profiling is on, with
/// its static cost: a GEMM's `2·M·N·K` flops and its three operands' bytes,
/// an elementwise kernel's one flop per element and each operand once.
#[test]
fn a_profile_counts_steps_with_their_flops_and_bytes() {
    use aot::codegen::executor::{profiling, set_profiling};
    let text = "func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>)
    -> (tensor<8x4xf32>, tensor<4x8xf32>) {
  %m = tensor.mm %a, %b : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %s = tensor.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %m, %s : tensor<8x4xf32>, tensor<4x8xf32>
}
";
    let m = Module::parse(text, "profile.mlir").unwrap();
    let args = [
        f32s(&[8, 16], &[0.5; 128]),
        f32s(&[16, 4], &[0.25; 64]),
        f32s(&[4, 8], &[1.0; 32]),
        f32s(&[4, 8], &[2.0; 32]),
    ];
    let mut f = m.compile(None, &args, &Options::inference()).unwrap();
    let was = profiling();
    set_profiling(true);
    for _ in 0..3 {
        f.call(&args).unwrap();
    }
    set_profiling(false);
    f.call(&args).unwrap();
    let rows = f.profile();
    set_profiling(was);
    let mm: Vec<_> = rows.iter().filter(|(_, r)| r.kind == "matmul").collect();
    let kernels: Vec<_> = rows.iter().filter(|(_, r)| r.kind == "kernel").collect();
    assert_eq!(mm.len(), 1, "{rows:?}");
    assert_eq!((mm[0].1.flops, mm[0].1.bytes), (2 * 8 * 4 * 16, (128 + 64 + 32) * 4), "{rows:?}");
    assert_eq!(kernels.len(), 1, "{rows:?}");
    assert_eq!((kernels[0].1.flops, kernels[0].1.bytes), (32, 3 * 32 * 4), "{rows:?}");
    // Three calls while profiling was on; the fourth was not counted.
    assert!(rows.iter().all(|(p, r)| *p == "forward" && r.runs == 3 && r.seconds > 0.0), "{rows:?}");
    f.reset_profile();
    assert!(f.profile().iter().all(|(_, r)| r.runs == 0 && r.seconds == 0.0));
}

/// A tangent that is not dense (the expanded gradient of a `sum()` taken
/// after the compiled call, a transposed one) gives the gradients of the
/// dense tangent with the same values, through the typed strided copy
/// (the f64 round trip one element at a time cost more than the kernels).
#[test]
fn strided_and_expanded_tangents_give_the_dense_tangents_gradients() {
    let text = "func.func @f(%x: tensor<4x6xf32>, %w: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = tensor.mul %x, %w : tensor<4x6xf32>
  %1 = tensor.exp %0 : tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}
";
    let m = Module::parse(text, "tangents.mlir").unwrap();
    let xs: Vec<f32> = (0..24).map(|i| i as f32 * 0.1 - 1.0).collect();
    let ws: Vec<f32> = (0..24).map(|i| 0.5 - i as f32 * 0.03).collect();
    let args = [f32s(&[4, 6], &xs), f32s(&[4, 6], &ws)];
    for a in &args {
        a.set_requires_grad(true);
    }
    // The tangent values row-major, and three layouts holding them.
    let gs: Vec<f32> = (0..24).map(|i| ((i * 7) % 5) as f32 - 2.0).collect();
    let dense = f32s(&[4, 6], &gs);
    let mut t = vec![0.0f32; 24];
    for r in 0..4 {
        for c in 0..6 {
            t[c * 4 + r] = gs[r * 6 + c];
        }
    }
    let transposed = f32s(&[6, 4], &t).alias_with([4i64, 6].as_slice().into(), [1i64, 4].as_slice().into(), 0).unwrap();
    let ones = f32s(&[4, 6], &[1.0; 24]);
    let expanded = f32s(&[1], &[1.0]).alias_with([4i64, 6].as_slice().into(), [0i64, 0].as_slice().into(), 0).unwrap();
    for backend in [Backend::CRANELIFT, Backend::Interp] {
        let mut f = m.compile(None, &args, &Options::training().with_backend(backend)).unwrap();
        for (want_t, got_t) in [(&dense, &transposed), (&ones, &expanded)] {
            let mut grads = Vec::new();
            for tangent in [want_t, got_t] {
                let (_, state) = f.forward(&args).unwrap();
                let g = f.backward(state, &[Some(tangent.clone())]).unwrap();
                let g: Vec<Vec<f32>> = g.args.iter().map(|g| g.as_ref().unwrap().to_vec::<f32>().unwrap()).collect();
                grads.push(g);
            }
            assert_eq!(grads[0], grads[1], "{backend:?}");
        }
    }
}
