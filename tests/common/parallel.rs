//! Checks of the parallel paths of native code (split kernels, split and
//! batched GEMMs), run by the tests of `own_process` that set up threads,
//! each in a process of its own with `AOT_NUM_THREADS` set (or a host team
//! installed) before anything reads it.

use aot::compile::Backend;
use aot::ir::ElemType;

/// `rows × cols` row-major matrix `m[i][j]` for batch `b` of `a`.
fn at(a: &[f64], shape: &[i64], b: i64, i: i64, j: i64) -> f64 {
    let r = shape.len();
    let (rows, cols) = (shape[r - 2], shape[r - 1]);
    a[(b * rows * cols + i * cols + j) as usize]
}

fn data(n: i64, seed: i64) -> Vec<f64> {
    (0..n).map(|i| ((i * 7 + seed * 13) % 7 - 3) as f64).collect()
}

fn ty(shape: &[i64]) -> String {
    format!("tensor<{}xf32>", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"))
}

fn run(backend: Backend, text: &str, inputs: &[(Vec<i64>, Vec<f64>)]) -> Vec<f64> {
    let m = aot::Module::parse(text.to_string(), "gemm.mlir").expect("parses");
    let xs: Vec<aot::Tensor> =
        inputs.iter().map(|(s, d)| aot::Tensor::from_f64(ElemType::F32, s, d, ElemType::F32)).collect();
    let opts = aot::Options { backend, ..aot::Options::inference() };
    let mut f = m.compile(None, &xs, &opts).expect("compiles");
    f.call(&xs).expect("runs")[0].read_f64()
}

/// Matrix products on native code in every layout the runtime treats
/// differently: a batch folded into the rows (a shared right operand), a
/// column-major right operand packed to row-major first (the weight of
/// `x @ w.T`), a transposed left operand, small batch items run on
/// different threads at once, and GEMMs big enough to be split (by rows
/// and by columns, and a deep one with a small result along its depth). Values are small integers, so every product and sum is
/// exact in f32 and the results must equal the reference bit for bit.
pub fn matmul_layouts_are_exact() {
    for &(name, backend) in Backend::available().iter().filter(|(n, b)| *n != "interp" && b.runs_everything_here()) {
        // x @ w.T + b with a 3-D x: batch folded into rows, w packed.
        let (xs, ws) = (vec![4i64, 40, 24], vec![36i64, 24]);
        let (x, w, bias) = (data(4 * 40 * 24, 1), data(36 * 24, 2), data(36, 3));
        let text = format!(
            "func.func @f(%x: {}, %w: {}, %b: tensor<36xf32>) -> {} {{\n  %0 = tensor.linear %x, %w, %b : {}, {}, tensor<36xf32> -> {}\n  return %0 : {}\n}}\n",
            ty(&xs), ty(&ws), ty(&[4, 40, 36]), ty(&xs), ty(&ws), ty(&[4, 40, 36]), ty(&[4, 40, 36])
        );
        let got = run(backend, &text, &[(xs.clone(), x.clone()), (ws.clone(), w.clone()), (vec![36], bias.clone())]);
        for b in 0..4 {
            for i in 0..40 {
                for j in 0..36 {
                    let want =
                        bias[j as usize] + (0..24).map(|k| at(&x, &xs, b, i, k) * at(&w, &ws, 0, j, k)).sum::<f64>();
                    assert_eq!(got[(b * 40 * 36 + i * 36 + j) as usize], want, "{name}: linear [{b}, {i}, {j}]");
                }
            }
        }

        // Batched products: small items at once, then one split GEMM.
        for (batch, m, k, n) in [(8i64, 33i64, 16i64, 20i64), (1, 256, 64, 256)] {
            let (sa, sb, sc) = (vec![batch, m, k], vec![batch, k, n], vec![batch, m, n]);
            let (a, b) = (data(batch * m * k, 4), data(batch * k * n, 5));
            let text = format!(
                "func.func @f(%a: {}, %b: {}) -> {} {{\n  %0 = tensor.bmm %a, %b : {}, {} -> {}\n  return %0 : {}\n}}\n",
                ty(&sa), ty(&sb), ty(&sc), ty(&sa), ty(&sb), ty(&sc), ty(&sc)
            );
            let got = run(backend, &text, &[(sa.clone(), a.clone()), (sb.clone(), b.clone())]);
            for t in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let want = (0..k).map(|p| at(&a, &sa, t, i, p) * at(&b, &sb, t, p, j)).sum::<f64>();
                        assert_eq!(
                            got[(t * m * n + i * n + j) as usize],
                            want,
                            "{name}: bmm {batch}x{m}x{k}x{n} [{t}, {i}, {j}]"
                        );
                    }
                }
            }
        }
        // A transposed left operand (xᵀ @ y, as in a weight gradient), and
        // a deep one with a small result: split along its depth, the parts
        // added after.
        transposed_product(backend, name, 48, 40, 36);
        transposed_product(backend, name, 4096, 8, 6);
    }
}

/// `xᵀ @ y` for `x: [k, m]`, `y: [k, n]`, checked exactly.
fn transposed_product(backend: Backend, name: &str, k: i64, m: i64, n: i64) {
    let (sx, sy) = (vec![k, m], vec![k, n]);
    let (x, y) = (data(k * m, 6), data(k * n, 7));
    let text = format!(
        "func.func @f(%x: {}, %y: {}) -> {} {{\n  %t = view.transpose %x {{dim0 = 0, dim1 = 1}} : {} -> {}\n  %0 = tensor.mm %t, %y : {}, {} -> {}\n  return %0 : {}\n}}\n",
        ty(&sx), ty(&sy), ty(&[m, n]), ty(&sx), ty(&[m, k]), ty(&[m, k]), ty(&sy), ty(&[m, n]), ty(&[m, n])
    );
    let got = run(backend, &text, &[(sx.clone(), x.clone()), (sy.clone(), y.clone())]);
    for i in 0..m {
        for j in 0..n {
            let want = (0..k).map(|p| at(&x, &sx, 0, p, i) * at(&y, &sy, 0, p, j)).sum::<f64>();
            assert_eq!(got[(i * n + j) as usize], want, "{name}: xᵀ @ y, {k}x{m} by {k}x{n} [{i}, {j}]");
        }
    }
}

/// Kernels split across threads after a scalar prologue (`split_loop`):
/// the Philox kernels load their seed and offset and check the offset
/// before the parallel loop, and each thread's chunk runs that prologue
/// again. Their draws must be the interpreter's, bit for bit.
pub fn philox_splits_draw_what_one_thread_draws() {
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
    for &(name, backend) in Backend::available().iter().filter(|(n, b)| *n != "interp" && b.runs_everything_here()) {
        let got = results(backend);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let first = g.iter().zip(w).position(|(a, b)| a.to_bits() != b.to_bits());
            assert_eq!(first, None, "{name}: result {k} differs from the interpreter's at element {first:?}");
        }
    }
}
