//! Kernels split across threads after a scalar prologue (`split_loop`): the
//! Philox kernels load their seed and offset and check the offset before
//! the parallel loop, and each thread's chunk runs that prologue again. On
//! several threads their draws must be the interpreter's, bit for bit.
//!
//! The only test of this binary, because it sets `AOT_NUM_THREADS` before
//! anything reads it (so the split runs even on a one-core machine).

use aot::compile::Backend;
use aot::ir::ElemType;

#[test]
fn philox_kernels_split_across_threads_draw_what_one_thread_draws() {
    std::env::set_var("AOT_NUM_THREADS", "3");
    aot::init();
    // Large enough to be split (the runtime splits from 2^15 operations).
    let text =
        "func.func @f(%x: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xi1>, tensor<256x512xf32>) {
  %d:2 = rng.dropout %x {p = 0.3} : tensor<256x512xf32> -> (tensor<256x512xf32>, tensor<256x512xi1>)
  %u = rng.uniform {high = 1.0, low = -1.0} : tensor<256x512xf32>
  return %d#0, %d#1, %u : tensor<256x512xf32>, tensor<256x512xi1>, tensor<256x512xf32>
}
";
    let m = aot::Module::parse(text.to_string(), "split.mlir").expect("parses");
    let data: Vec<f64> = (0..256 * 512).map(|i| (i % 17) as f64 * 0.25 - 2.0).collect();
    let x = aot::Tensor::from_f64(ElemType::F32, &[256, 512], &data, ElemType::F32);
    let results = |backend: Backend| -> Vec<Vec<f64>> {
        let opts = aot::Options { backend, ..aot::Options::inference() };
        let mut f = m.compile(None, std::slice::from_ref(&x), &opts).expect("compiles");
        // Two calls: the second draws from the advanced offset.
        let mut out = Vec::new();
        for _ in 0..2 {
            out.extend(f.call(std::slice::from_ref(&x)).expect("runs").iter().map(|t| t.read_f64()));
        }
        out
    };
    let want = results(Backend::Interp);
    for &(name, backend) in Backend::AVAILABLE.iter().filter(|(n, b)| *n != "interp" && b.runs_everything_here()) {
        let got = results(backend);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let first = g.iter().zip(w).position(|(a, b)| a.to_bits() != b.to_bits());
            assert_eq!(first, None, "{name}: result {k} differs from the interpreter's at element {first:?}");
        }
    }
}
