//! The CUDA backend on a GPU (cargo feature `cuda`): what the differential,
//! gradient and convention suites (`cuda_*` in their files) do not show by
//! themselves. Philox draws on the GPU are the host's bit for bit; a failed
//! check reports the first failing kernel's message and leaves the
//! arguments alone; matmuls with transposed, batched and broadcast operands
//! go through cuBLAS and agree with the host; `set_` and `resize_` (steps
//! the host runs in the middle of a device call) keep their semantics; the
//! caching allocator hands the same blocks back call after call.
//!
//! Without a GPU every test here prints why and passes: the feature must
//! build and run everywhere (the test script checks that these ran).
#![cfg(feature = "cuda")]

use aot::{Backend, Module, Options, Tensor};

use crate::common;
use common::gpu_or_skip as gpu;

fn f32s(shape: &[i64], data: &[f32]) -> Tensor {
    Tensor::from_slice(data, shape).expect("as many values as elements")
}

fn ramp(n: usize, scale: f32) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 % 23) as f32 - 11.0) * scale).collect()
}

/// Runs `name` of `text` on `backend` with fresh copies of `args`
/// (seeded), returning the outputs and the arguments after the call.
fn run(text: &str, args: &[Tensor], backend: Backend, seed: u64) -> Result<(Vec<Tensor>, Vec<Tensor>), String> {
    let m = Module::parse(text, "cuda.mlir").map_err(|e| e.to_string())?;
    let args: Vec<Tensor> = args.iter().map(|t| t.deep_clone()).collect();
    let mut f = m.compile(None, &args, &Options::inference().with_backend(backend)).map_err(|e| e.to_string())?;
    f.manual_seed(seed);
    let out = f.call(&args).map_err(|e| e.to_string())?;
    Ok((out, args))
}

fn bits(t: &Tensor) -> Vec<u64> {
    t.read_f64().into_iter().map(f64::to_bits).collect()
}

const DROPOUT: &str =
    "func.func @main(%x: tensor<64x300xf32>) -> (tensor<64x300xf32>, tensor<64x300xi1>, tensor<64x300xf32>) {
  %d:2 = rng.dropout %x {p = 0.3} : tensor<64x300xf32> -> (tensor<64x300xf32>, tensor<64x300xi1>)
  %u = rng.uniform {low = -1.0, high = 2.0} : tensor<64x300xf32>
  return %d#0, %d#1, %u : tensor<64x300xf32>, tensor<64x300xi1>, tensor<64x300xf32>
}
";

/// A seed and offset give the same random numbers on every backend: the
/// GPU's dropout mask and uniform draws are the host's, bit for bit, on
/// two consecutive calls (the offset advances the same way).
#[test]
fn gpu_philox_draws_are_the_hosts_bit_for_bit() {
    if !gpu() {
        return;
    }
    let x = f32s(&[64, 300], &ramp(64 * 300, 0.125));
    for seed in [0u64, 7, 123456789] {
        let (host, _) = run(DROPOUT, std::slice::from_ref(&x), Backend::CRANELIFT, seed).unwrap();
        let (dev, _) = run(DROPOUT, std::slice::from_ref(&x), Backend::parse("cuda").unwrap(), seed).unwrap();
        for (k, (h, d)) in host.iter().zip(&dev).enumerate() {
            assert_eq!(bits(h), bits(d), "seed {seed}: output {k} differs between the host and the GPU");
        }
        let kept = dev[1].read_f64().iter().filter(|&&v| v != 0.0).count();
        assert!((11_000..15_000).contains(&kept), "seed {seed}: {kept} of 19200 kept at p = 0.3");
    }
}

const GATHER: &str = "func.func @main(%out: tensor<4xf32>, %x: tensor<8xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %y = tensor.mul %x, %x : tensor<8xf32>
  %g = tensor.index_select %y, %i {dim = 0} : tensor<8xf32>, tensor<4xi64> -> tensor<4xf32>
  mut.copy_ %out, %g : tensor<4xf32>, tensor<4xf32>
  return %g : tensor<4xf32>
}
";

/// An index out of range fails the kernel's check: the call reports the
/// host's message, and the argument it would have written is untouched.
#[test]
fn a_failed_check_on_the_gpu_is_the_hosts_error() {
    if !gpu() {
        return;
    }
    let out = f32s(&[4], &[5.0; 4]);
    let x = f32s(&[8], &ramp(8, 1.0));
    let good = Tensor::from_slice(&[0i64, 7, 3, 3], &[4]).unwrap();
    let (h, _) = run(GATHER, &[out.clone(), x.clone(), good.clone()], Backend::CRANELIFT, 0).unwrap();
    let (d, args) = run(GATHER, &[out.clone(), x.clone(), good], Backend::parse("cuda").unwrap(), 0).unwrap();
    assert_eq!(bits(&h[0]), bits(&d[0]));
    assert_eq!(bits(&args[0]), bits(&d[0]), "the mutated argument holds the result");
    let bad = Tensor::from_slice(&[0i64, 8, 3, 3], &[4]).unwrap();
    let host = run(GATHER, &[out.clone(), x.clone(), bad.clone()], Backend::CRANELIFT, 0).map(|_| ()).unwrap_err();
    let m = Module::parse(GATHER, "cuda.mlir").unwrap();
    let args = [out.deep_clone(), x.clone(), bad.clone()];
    let mut f = m.compile(None, &args, &Options::inference().with_backend(Backend::parse("cuda").unwrap())).unwrap();
    let dev = f.call(&args).map(|_| ()).unwrap_err().to_string();
    assert_eq!(host, dev);
    assert_eq!(args[0].to_vec::<f32>().unwrap(), vec![5.0; 4], "a failed call wrote its argument");
    // The function stays usable after a failed call.
    let ok = Tensor::from_slice(&[1i64, 2, 3, 4], &[4]).unwrap();
    let r = f.call(&[args[0].clone(), x, ok]).unwrap();
    assert_eq!(bits(&r[0]), bits(&args[0]));
}

const MATMULS: &str = "func.func @main(%a: tensor<3x37x50xf32>, %b: tensor<3x50x29xf32>, %w: tensor<29x50xf32>, %v: tensor<50x37xf64>, %u: tensor<50x2xf64>) -> (tensor<3x37x29xf32>, tensor<3x37x50xf32>, tensor<37x2xf64>, tensor<3x29x37xf32>) {
  %c = tensor.bmm %a, %b : tensor<3x37x50xf32>, tensor<3x50x29xf32> -> tensor<3x37x29xf32>
  %wt = view.transpose %w {dim0 = 0, dim1 = 1} : tensor<29x50xf32> -> tensor<50x29xf32>
  %d = tensor.matmul %c, %w : tensor<3x37x29xf32>, tensor<29x50xf32> -> tensor<3x37x50xf32>
  %vt = view.transpose %v {dim0 = 0, dim1 = 1} : tensor<50x37xf64> -> tensor<37x50xf64>
  %e = tensor.mm %vt, %u : tensor<37x50xf64>, tensor<50x2xf64> -> tensor<37x2xf64>
  %ct = view.transpose %c {dim0 = 1, dim1 = 2} : tensor<3x37x29xf32> -> tensor<3x29x37xf32>
  %f = tensor.add %ct, %ct : tensor<3x29x37xf32>
  return %c, %d, %e, %f : tensor<3x37x29xf32>, tensor<3x37x50xf32>, tensor<37x2xf64>, tensor<3x29x37xf32>
}
";

/// Batched, broadcast and transposed operands, in f32 and f64: cuBLAS
/// against the host GEMM, within the products' rounding.
#[test]
fn gpu_matmuls_agree_with_the_host() {
    if !gpu() {
        return;
    }
    let a = f32s(&[3, 37, 50], &ramp(3 * 37 * 50, 0.05));
    let b = f32s(&[3, 50, 29], &ramp(3 * 50 * 29, 0.03));
    let w = f32s(&[29, 50], &ramp(29 * 50, 0.02));
    let v = Tensor::from_slice(&ramp(50 * 37, 0.1).iter().map(|&x| x as f64).collect::<Vec<_>>(), &[50, 37]).unwrap();
    let u = Tensor::from_slice(&ramp(100, 0.2).iter().map(|&x| x as f64).collect::<Vec<_>>(), &[50, 2]).unwrap();
    let args = [a, b, w, v, u];
    let (host, _) = run(MATMULS, &args, Backend::CRANELIFT, 0).unwrap();
    let (dev, _) = run(MATMULS, &args, Backend::parse("cuda").unwrap(), 0).unwrap();
    for (k, (h, d)) in host.iter().zip(&dev).enumerate() {
        assert_eq!(h.sizes(), d.sizes());
        let (h, d) = (h.read_f64(), d.read_f64());
        let scale = h.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (i, (x, y)) in h.iter().zip(&d).enumerate() {
            assert!((x - y).abs() <= 1e-5 * scale, "output {k}[{i}]: host {x}, GPU {y}");
        }
    }
}

const SET_AND_RESIZE: &str = "func.func @main(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<6xf32> {
  %e = tensor.exp %y : tensor<6xf32>
  %s = mut.set_ %x, %e : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  %z = tensor.add %s, %y : tensor<6xf32>
  return %z : tensor<6xf32>
}
";

/// `set_` is a step the host runs between device steps: the argument takes
/// the result's storage and what follows reads it.
#[test]
fn set_between_gpu_steps_keeps_its_semantics() {
    if !gpu() {
        return;
    }
    let x = f32s(&[6], &[1.0; 6]);
    let y = f32s(&[6], &ramp(6, 0.5));
    let (h, ha) = run(SET_AND_RESIZE, &[x.clone(), y.clone()], Backend::CRANELIFT, 0).unwrap();
    let (d, da) = run(SET_AND_RESIZE, &[x, y], Backend::parse("cuda").unwrap(), 0).unwrap();
    assert_eq!(h[0].to_vec::<f32>().unwrap(), d[0].to_vec::<f32>().unwrap());
    assert_eq!(ha[0].to_vec::<f32>().unwrap(), da[0].to_vec::<f32>().unwrap());
}

const CHAIN: &str = "func.func @main(%x: tensor<1000x100xf32>) -> (tensor<1000x100xf32>, tensor<1000xf32>) {
  %a = tensor.tanh %x : tensor<1000x100xf32>
  %b = tensor.mul %a, %x : tensor<1000x100xf32>
  %s = tensor.sum %b {dims = [1]} : tensor<1000x100xf32> -> tensor<1000xf32>
  return %b, %s : tensor<1000x100xf32>, tensor<1000xf32>
}
";

/// The caching allocator: after the first call, repeated calls of one
/// function take every block from the free lists (no `cuMemAlloc`).
#[test]
fn repeated_calls_reuse_cached_device_memory() {
    if !gpu() {
        return;
    }
    let g = aot::runtime::cuda::gpu().unwrap();
    let x = f32s(&[1000, 100], &ramp(100_000, 0.01));
    let m = Module::parse(CHAIN, "cuda.mlir").unwrap();
    let mut f = m
        .compile(None, std::slice::from_ref(&x), &Options::inference().with_backend(Backend::parse("cuda").unwrap()))
        .unwrap();
    let first = f.call(std::slice::from_ref(&x)).unwrap();
    drop(first);
    let before = g.allocator_stats();
    let mut last = Vec::new();
    for _ in 0..5 {
        last = f.call(std::slice::from_ref(&x)).unwrap();
    }
    let after = g.allocator_stats();
    // Other tests may allocate at the same time; this function's calls
    // alone would add none.
    assert!(after.reuses >= before.reuses + 5, "{before:?} -> {after:?}");
    let (host, _) = run(CHAIN, std::slice::from_ref(&x), Backend::CRANELIFT, 0).unwrap();
    for (h, d) in host.iter().zip(&last) {
        for (a, b) in h.read_f64().iter().zip(d.read_f64()) {
            assert!((a - b).abs() <= 1e-5 * a.abs().max(1.0), "host {a}, GPU {b}");
        }
    }
}

/// Without a GPU the backend still parses, and compiling says why it
/// cannot run rather than failing later (or panicking).
#[test]
fn without_a_gpu_compiling_says_why() {
    if aot::runtime::cuda::gpu().is_ok() {
        return;
    }
    let x = f32s(&[1000, 100], &ramp(100_000, 0.01));
    let m = Module::parse(CHAIN, "cuda.mlir").unwrap();
    let e = m
        .compile(None, &[x], &Options::inference().with_backend(Backend::parse("cuda").unwrap()))
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("no GPU"), "{e}");
}

const ROWS: &str = "func.func @main(%x: tensor<300x1000xf32>, %d: tensor<37x513xf64>, %w: tensor<1000xf32>, %b: tensor<1000xf32>) -> (tensor<300xf32>, tensor<300x1000xf32>, tensor<300xf32>, tensor<37xf64>, tensor<300x1000xf32>, tensor<37xf64>) {
  %s = tensor.sum %x {dims = [1]} : tensor<300x1000xf32> -> tensor<300xf32>
  %sm = tensor.softmax %x {dim = 1} : tensor<300x1000xf32>
  %m = tensor.amax %x {dims = [1]} : tensor<300x1000xf32> -> tensor<300xf32>
  %dm = tensor.amin %d {dims = [1]} : tensor<37x513xf64> -> tensor<37xf64>
  %ln:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 1} : tensor<300x1000xf32>, tensor<1000xf32>, tensor<1000xf32> -> (tensor<300x1000xf32>, tensor<300x1xf32>, tensor<300x1xf32>)
  %ds = tensor.sum %d {dims = [1]} : tensor<37x513xf64> -> tensor<37xf64>
  return %s, %sm, %m, %dm, %ln#0, %ds : tensor<300xf32>, tensor<300x1000xf32>, tensor<300xf32>, tensor<37xf64>, tensor<300x1000xf32>, tensor<37xf64>
}
";

/// Row reductions run one warp per row on the GPU (lanes side by side, a
/// butterfly of shuffles): sums agree with the host up to the order of
/// the additions, max/min exactly (NaN rows give NaN), softmax and
/// layer_norm (several reductions and a store loop in one kernel) within
/// float tolerance.
#[test]
fn gpu_row_reductions_agree_with_the_host() {
    if !gpu() {
        return;
    }
    let mut xs = ramp(300 * 1000, 0.01);
    xs[5 * 1000 + 17] = f32::NAN;
    let x = f32s(&[300, 1000], &xs);
    let mut ds: Vec<f64> = (0..37 * 513).map(|i| ((i * 131 % 97) as f64 - 48.0) * 0.37).collect();
    ds[3 * 513 + 500] = f64::NAN;
    let d = Tensor::from_slice(&ds, &[37, 513]).unwrap();
    let w = f32s(&[1000], &ramp(1000, 0.05));
    let b = f32s(&[1000], &ramp(1000, 0.02));
    let args = [x, d, w, b];
    agree_with_the_host(ROWS, &args, &[2, 3]);
}

/// Runs `text` on the host and on the GPU and compares every output:
/// within float tolerance (NaN where the host has NaN), and exactly for
/// the outputs listed in `exact` (max and min), except for which NaN a
/// NaN row gives (the GPU's max/min return the canonical NaN, the host's
/// the input's).
fn agree_with_the_host(text: &str, args: &[Tensor], exact: &[usize]) {
    let (host, _) = run(text, args, Backend::CRANELIFT, 0).unwrap();
    let (dev, _) = run(text, args, Backend::parse("cuda").unwrap(), 0).unwrap();
    assert_eq!(host.len(), dev.len());
    for (k, (h, g)) in host.iter().zip(&dev).enumerate() {
        let (h, g) = (h.read_f64(), g.read_f64());
        assert_eq!(h.len(), g.len());
        for (i, (p, q)) in h.iter().zip(&g).enumerate() {
            let ok = if p.is_nan() { q.is_nan() } else { (p - q).abs() <= 1e-4 * (1.0 + p.abs()) };
            assert!(ok, "output {k}[{i}]: host {p}, GPU {q}");
        }
        if exact.contains(&k) {
            let exact =
                |v: &[f64]| v.iter().map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() }).collect::<Vec<_>>();
            assert_eq!(exact(&h), exact(&g), "max/min of output {k} are exact");
        }
    }
}

const LONG_ROWS: &str = "func.func @main(%x: tensor<40x5000xf32>, %d: tensor<6x2048xf64>, %w: tensor<5000xf32>, %b: tensor<5000xf32>) -> (tensor<40xf32>, tensor<40x5000xf32>, tensor<40xf32>, tensor<6xf64>, tensor<40x5000xf32>, tensor<f32>, tensor<f64>, tensor<f64>) {
  %s = tensor.sum %x {dims = [1]} : tensor<40x5000xf32> -> tensor<40xf32>
  %sm = tensor.softmax %x {dim = 1} : tensor<40x5000xf32>
  %m = tensor.amax %x {dims = [1]} : tensor<40x5000xf32> -> tensor<40xf32>
  %dm = tensor.amin %d {dims = [1]} : tensor<6x2048xf64> -> tensor<6xf64>
  %ln:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 1} : tensor<40x5000xf32>, tensor<5000xf32>, tensor<5000xf32> -> (tensor<40x5000xf32>, tensor<40x1xf32>, tensor<40x1xf32>)
  %all = tensor.sum %w {dims = [0]} : tensor<5000xf32> -> tensor<f32>
  %dmax = tensor.amax %d {dims = [0, 1]} : tensor<6x2048xf64> -> tensor<f64>
  %dsum = tensor.sum %d {dims = [0, 1]} : tensor<6x2048xf64> -> tensor<f64>
  return %s, %sm, %m, %dm, %ln#0, %all, %dmax, %dsum : tensor<40xf32>, tensor<40x5000xf32>, tensor<40xf32>, tensor<6xf64>, tensor<40x5000xf32>, tensor<f32>, tensor<f64>, tensor<f64>
}
";

/// Long rows (over 1024 elements) are shared by a whole block (warp
/// shuffles, then the warps' values through shared memory), and full
/// reductions to one value (nests of loops) run on one block: they agree
/// with the host as the warp-per-row kernels do, NaN rows included.
#[test]
fn gpu_block_reductions_agree_with_the_host() {
    if !gpu() {
        return;
    }
    let mut xs = ramp(40 * 5000, 0.01);
    xs[7 * 5000 + 4321] = f32::NAN;
    let x = f32s(&[40, 5000], &xs);
    let ds: Vec<f64> = (0..6 * 2048).map(|i| ((i * 131 % 97) as f64 - 48.0) * 0.37).collect();
    let d = Tensor::from_slice(&ds, &[6, 2048]).unwrap();
    let w = f32s(&[5000], &ramp(5000, 0.05));
    let b = f32s(&[5000], &ramp(5000, 0.02));
    agree_with_the_host(LONG_ROWS, &[x, d, w, b], &[2, 3, 6]);
}

const ELEMENTWISE_ROWS: &str = "func.func @main(%x: tensor<64x516xf32>, %y: tensor<64x516xf32>, %z: tensor<33x130xf32>, %d: tensor<16x258xf64>) -> (tensor<64x516xf32>, tensor<64x516xi1>, tensor<33x130xf32>, tensor<16x258xf64>, tensor<64x512xf32>) {
  %a = tensor.mul %x, %y : tensor<64x516xf32>, tensor<64x516xf32> -> tensor<64x516xf32>
  %b = tensor.tanh %a : tensor<64x516xf32> -> tensor<64x516xf32>
  %c = tensor.gt %x, %y : tensor<64x516xf32>, tensor<64x516xf32> -> tensor<64x516xi1>
  %e = tensor.sigmoid %z : tensor<33x130xf32> -> tensor<33x130xf32>
  %f = tensor.mul %d, %d : tensor<16x258xf64>, tensor<16x258xf64> -> tensor<16x258xf64>
  %s = view.slice %x {dim = 1, start = 3, end = 515, step = 1} : tensor<64x516xf32> -> tensor<64x512xf32>
  %g = tensor.neg %s : tensor<64x512xf32> -> tensor<64x512xf32>
  return %b, %c, %e, %f, %g : tensor<64x516xf32>, tensor<64x516xi1>, tensor<33x130xf32>, tensor<16x258xf64>, tensor<64x512xf32>
}
";

/// Elementwise rows run one warp per row; rows whose accesses are
/// contiguous from an aligned start take 16 bytes per lane at a time
/// (128-bit loads and stores, then the leftover elements one by one),
/// the others (rows of 130 floats, a slice starting at element 3) one
/// element at a time: every path agrees with the host.
#[test]
fn gpu_elementwise_rows_agree_with_the_host() {
    if !gpu() {
        return;
    }
    let x = f32s(&[64, 516], &ramp(64 * 516, 0.03));
    let y = f32s(&[64, 516], &ramp(64 * 516, -0.02));
    let z = f32s(&[33, 130], &ramp(33 * 130, 0.1));
    let ds: Vec<f64> = (0..16 * 258).map(|i| ((i * 37 % 101) as f64 - 50.0) * 0.01).collect();
    let d = Tensor::from_slice(&ds, &[16, 258]).unwrap();
    agree_with_the_host(ELEMENTWISE_ROWS, &[x, y, z, d], &[1, 3, 4]);
}

/// Timings on the GPU against the host, printed (run by hand with
/// `--ignored --nocapture`; the figures go to bench/README.md): the
/// per-call cost of a tiny graph, and a fused elementwise chain over 16M
/// elements, whose time on the GPU includes copying its input in and its
/// result out (tensors live on the host between calls).
#[test]
#[ignore]
fn gpu_timings() {
    if !gpu() {
        return;
    }
    let time = |f: &mut aot::Function, args: &[Tensor], reps: usize| {
        f.call(args).unwrap();
        let t = std::time::Instant::now();
        for _ in 0..reps {
            f.call(args).unwrap();
        }
        t.elapsed().as_secs_f64() / reps as f64
    };
    const TINY: &str = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tensor.mul %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
";
    const CHAIN16M: &str = "func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %a = tensor.mul %x, %x : tensor<4096x4096xf32>
  %b = tensor.add %a, %x : tensor<4096x4096xf32>
  %c = tensor.tanh %b : tensor<4096x4096xf32>
  %d = tensor.mul %c, %x : tensor<4096x4096xf32>
  return %d : tensor<4096x4096xf32>
}
";
    // Row reductions: one thread, one warp and one block per row
    // (AOT_CUDA_ROW_THREADS), side by side.
    const SOFTMAX: &str = "func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %y = tensor.softmax %x {dim = 1} : tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
";
    const ROWSUM: &str = "func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %y = tensor.sum %x {dims = [1]} : tensor<4096x4096xf32> -> tensor<4096xf32>
  return %y : tensor<4096xf32>
}
";
    // Resident calls: the arguments on the GPU before the calls, the
    // results left there; the clock stops once the GPU is idle. Returns the
    // time per call and the copies across the bus the calls made.
    let mem: std::rc::Rc<dyn aot::runtime::device::DeviceMemory> =
        aot::codegen::cuda::cuda_memory().expect("the GPU's memory");
    let gpu = aot::runtime::cuda::gpu().unwrap();
    let resident = |f: &mut aot::Function, dev: &[Tensor], reps: usize| {
        f.call(dev).unwrap();
        gpu.synchronize().unwrap();
        let before = mem.crossings();
        let t = std::time::Instant::now();
        for _ in 0..reps {
            f.call(dev).unwrap();
        }
        gpu.synchronize().unwrap();
        (t.elapsed().as_secs_f64() / reps as f64, mem.crossings().since(&before).copies())
    };
    let big = [f32s(&[4096, 4096], &ramp(4096 * 4096, 0.001))];
    let big_dev: Vec<Tensor> = big.iter().map(|a| a.to_device(&mem).unwrap()).collect();
    for (name, text) in [("softmax4096", SOFTMAX), ("rowsum4096", ROWSUM)] {
        for threads in ["1", "32", "256"] {
            std::env::set_var("AOT_CUDA_ROW_THREADS", threads);
            let m = Module::parse(text, "t.mlir").unwrap();
            let mut f =
                m.compile(None, &big, &Options::inference().with_backend(Backend::parse("cuda").unwrap())).unwrap();
            let (s, copies) = resident(&mut f, &big_dev, 20);
            println!("timing {name} cuda resident row_threads={threads}: {:.1} us per call", s * 1e6);
            assert_eq!(copies, 0, "{name}: resident calls copied across the bus");
        }
        std::env::remove_var("AOT_CUDA_ROW_THREADS");
        let m = Module::parse(text, "t.mlir").unwrap();
        let mut f = m.compile(None, &big, &Options::inference().with_backend(Backend::CRANELIFT)).unwrap();
        println!("timing {name} cranelift: {:.1} us per call", time(&mut f, &big, 5) * 1e6);
    }
    let tiny = [f32s(&[4], &[1.0, 2.0, 3.0, 4.0])];
    let big = [f32s(&[4096, 4096], &ramp(4096 * 4096, 0.001))];
    for (name, text, args, reps) in [("tiny", TINY, &tiny, 2000usize), ("chain16M", CHAIN16M, &big, 10)] {
        for backend in [Backend::CRANELIFT, Backend::parse("cuda").unwrap()] {
            let m = Module::parse(text, "t.mlir").unwrap();
            let mut f = m.compile(None, args, &Options::inference().with_backend(backend)).unwrap();
            let s = time(&mut f, args, reps);
            let bytes = 2.0 * 4.0 * args[0].numel() as f64;
            println!(
                "timing {name} {}: {:.1} us per call, {:.1} GB/s (input read + output written)",
                backend.name(),
                s * 1e6,
                bytes / s / 1e9
            );
        }
        let dev: Vec<Tensor> = args.iter().map(|a| a.to_device(&mem).unwrap()).collect();
        let m = Module::parse(text, "t.mlir").unwrap();
        let mut f = m.compile(None, args, &Options::inference().with_backend(Backend::parse("cuda").unwrap())).unwrap();
        let (s, copies) = resident(&mut f, &dev, reps);
        let bytes = 2.0 * 4.0 * args[0].numel() as f64;
        println!(
            "timing {name} cuda resident: {:.1} us per call, {:.1} GB/s (input read + output written), {copies} copies across the bus",
            s * 1e6,
            bytes / s / 1e9,
        );
        assert_eq!(copies, 0, "{name}: resident calls copied across the bus");
    }
}

/// Calls on tensors already in the GPU's memory (resident): results stay
/// there, nothing crosses the bus, and the values are the host's.
#[test]
fn resident_calls_stay_on_the_gpu() {
    if !gpu() {
        return;
    }
    let mem: std::rc::Rc<dyn aot::runtime::device::DeviceMemory> =
        aot::codegen::cuda::cuda_memory().expect("the GPU's memory");
    let x = f32s(&[64, 33], &ramp(64 * 33, 0.01));
    let m = Module::parse(
        "func.func @main(%x: tensor<64x33xf32>) -> (tensor<64x33xf32>, tensor<64xf32>) {
  %a = tensor.mul %x, %x : tensor<64x33xf32>
  %b = tensor.tanh %a : tensor<64x33xf32>
  %s = tensor.sum %b {dims = [1]} : tensor<64x33xf32> -> tensor<64xf32>
  return %b, %s : tensor<64x33xf32>, tensor<64xf32>
}
"
        .to_string(),
        "t.mlir",
    )
    .unwrap();
    let mut host = m.compile(None, std::slice::from_ref(&x), &Options::inference()).unwrap();
    let mut cuda = m
        .compile(None, std::slice::from_ref(&x), &Options::inference().with_backend(Backend::parse("cuda").unwrap()))
        .unwrap();
    let want = host.call(std::slice::from_ref(&x)).unwrap();
    let dev = x.to_device(&mem).unwrap();
    let before = mem.crossings();
    let got = cuda.call(std::slice::from_ref(&dev)).unwrap();
    assert_eq!(mem.crossings().since(&before).copies(), 0, "a resident call copied across the bus");
    assert!(got.iter().all(|t| t.is_on_device()));
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5 * y.abs().max(1.0));
    assert!(close(&got[0].read_f64(), &want[0].read_f64()));
    assert!(close(&got[1].read_f64(), &want[1].read_f64()));
}
