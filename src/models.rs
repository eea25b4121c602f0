//! Generated example programs: the models the benchmarks, tests and
//! examples train. Each generator returns IR text in the custom syntax (so
//! what it builds can be read, saved with `--emit`, and fed to `aot-opt`).
//! The small instances are checked against PyTorch's modules
//! (`test/golden/models.py` writes the same programs and compares them with
//! `torch.nn`); the large ones are what `aot-bench train` measures.

use aot_ir::ElemType;
use std::fmt::Write;

/// A stack of post-norm transformer encoder layers with an MSE loss.
#[derive(Clone, Copy, Debug)]
pub struct Encoder {
    pub layers: usize,
    pub d_model: usize,
    pub heads: usize,
    pub ff: usize,
    pub batch: usize,
    pub seq: usize,
    /// Dropout probability (0: no dropout ops).
    pub dropout: f64,
    pub dtype: ElemType,
}

struct Gen {
    text: String,
    n: usize,
}

impl Gen {
    /// Writes `%N = body` (or `%N:k = body` for k results) and returns `%N`.
    fn ops(&mut self, results: usize, body: std::fmt::Arguments<'_>) -> String {
        let v = format!("%{}", self.n);
        self.n += 1;
        let _ = match results {
            1 => writeln!(self.text, "    {v} = {body}"),
            k => writeln!(self.text, "    {v}:{k} = {body}"),
        };
        v
    }

    fn op(&mut self, body: std::fmt::Arguments<'_>) -> String {
        self.ops(1, body)
    }
}

fn tensor_type(shape: &[usize], e: ElemType) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        let _ = write!(s, "{d}x");
    }
    let _ = write!(s, "{e}>");
    s
}

/// The encoder as IR text: `func.func @encoder(%x, %target, weights...)
/// -> loss`, `%x` and every weight marked `aot.requires_grad`.
pub fn transformer_encoder(z: &Encoder) -> String {
    let (b, s, d, h, f) = (z.batch, z.seq, z.d_model, z.heads.max(1), z.ff);
    let e = z.dtype;
    let ty = |shape: &[usize]| tensor_type(shape, e);
    let scalar = format!("tensor<{e}>");
    let hd = d / h;
    let mut args =
        vec![format!("%x: {} {{aot.requires_grad}}", ty(&[b, s, d])), format!("%target: {}", ty(&[b, s, d]))];
    let params: [(&str, Vec<usize>); 12] = [
        ("in_w", vec![3 * d, d]),
        ("in_b", vec![3 * d]),
        ("out_w", vec![d, d]),
        ("out_b", vec![d]),
        ("l1_w", vec![f, d]),
        ("l1_b", vec![f]),
        ("l2_w", vec![d, f]),
        ("l2_b", vec![d]),
        ("n1_w", vec![d]),
        ("n1_b", vec![d]),
        ("n2_w", vec![d]),
        ("n2_b", vec![d]),
    ];
    for l in 0..z.layers {
        for (name, shape) in &params {
            args.push(format!("%{name}{l}: {} {{aot.requires_grad}}", ty(shape)));
        }
    }
    let mut g = Gen { text: String::new(), n: 0 };
    let (tbsd, tbs3d) = (ty(&[b, s, d]), ty(&[b, s, 3 * d]));
    let (tbshd, tbhsd, tbhds, tbhss) = (ty(&[b, s, h, hd]), ty(&[b, h, s, hd]), ty(&[b, h, hd, s]), ty(&[b, h, s, s]));
    let tstat = ty(&[b, s, 1]);
    let scale = g.op(format_args!("tensor.constant dense<{:?}> : {scalar}", 1.0 / (hd as f64).sqrt()));
    // `x · wᵀ + b` from `k` to `n` features.
    let linear = |g: &mut Gen, x: &str, w: &str, bias: &str, k: usize, n: usize| {
        let (tx, ty_out) = (ty(&[b, s, k]), ty(&[b, s, n]));
        g.op(format_args!("tensor.linear {x}, {w}, {bias} : {tx}, {}, {} -> {ty_out}", ty(&[n, k]), ty(&[n])))
    };
    let layer_norm = |g: &mut Gen, x: &str, w: &str, bias: &str| {
        let t = ty(&[d]);
        let r = g.ops(
            3,
            format_args!(
                "tensor.layer_norm {x}, {w}, {bias} {{normalized_ndim = 1, eps = 1.0e-5}} : {tbsd}, {t}, {t} -> ({tbsd}, {tstat}, {tstat})"
            ),
        );
        format!("{r}#0")
    };
    let dropout = |g: &mut Gen, x: &str, shape: &[usize]| {
        if z.dropout == 0.0 {
            return x.to_string();
        }
        let (t, m) = (ty(shape), tensor_type(shape, ElemType::I1));
        let r = g.ops(2, format_args!("rng.dropout {x} {{p = {:?}}} : {t} -> ({t}, {m})", z.dropout));
        format!("{r}#0")
    };
    let mut x = "%x".to_string();
    for l in 0..z.layers {
        let p = |name: &str| format!("%{name}{l}");
        let qkv = linear(&mut g, &x, &p("in_w"), &p("in_b"), d, 3 * d);
        let split = g.ops(
            3,
            format_args!(
                "view.split {qkv} {{dim = -1, sizes = [{d}, {d}, {d}]}} : {tbs3d} -> ({tbsd}, {tbsd}, {tbsd})"
            ),
        );
        let mut heads = Vec::new();
        for k in 0..3 {
            let r =
                g.op(format_args!("view.reshape {split}#{k} {{shape = [{b}, {s}, {h}, {hd}]}} : {tbsd} -> {tbshd}"));
            heads.push(g.op(format_args!("view.permute {r} {{dims = [0, 2, 1, 3]}} : {tbshd} -> {tbhsd}")));
        }
        let kt = g.op(format_args!("view.transpose {} {{dim0 = -2, dim1 = -1}} : {tbhsd} -> {tbhds}", heads[1]));
        let scores = g.op(format_args!("tensor.matmul {}, {kt} : {tbhsd}, {tbhds} -> {tbhss}", heads[0]));
        let scaled = g.op(format_args!("tensor.mul {scores}, {scale} : {tbhss}, {scalar} -> {tbhss}"));
        let attn = g.op(format_args!("tensor.softmax {scaled} {{dim = -1}} : {tbhss}"));
        let attn = dropout(&mut g, &attn, &[b, h, s, s]);
        let ctx = g.op(format_args!("tensor.matmul {attn}, {} : {tbhss}, {tbhsd} -> {tbhsd}", heads[2]));
        let ctx = g.op(format_args!("view.permute {ctx} {{dims = [0, 2, 1, 3]}} : {tbhsd} -> {tbshd}"));
        let ctx = g.op(format_args!("view.reshape {ctx} {{shape = [{b}, {s}, {d}]}} : {tbshd} -> {tbsd}"));
        let sa = linear(&mut g, &ctx, &p("out_w"), &p("out_b"), d, d);
        let sa = dropout(&mut g, &sa, &[b, s, d]);
        let r1 = g.op(format_args!("tensor.add {x}, {sa} : {tbsd}"));
        let n1 = layer_norm(&mut g, &r1, &p("n1_w"), &p("n1_b"));
        let hid = linear(&mut g, &n1, &p("l1_w"), &p("l1_b"), d, f);
        let act = g.op(format_args!("tensor.gelu {hid} : {}", ty(&[b, s, f])));
        let act = dropout(&mut g, &act, &[b, s, f]);
        let out = linear(&mut g, &act, &p("l2_w"), &p("l2_b"), f, d);
        let out = dropout(&mut g, &out, &[b, s, d]);
        let r2 = g.op(format_args!("tensor.add {n1}, {out} : {tbsd}"));
        x = layer_norm(&mut g, &r2, &p("n2_w"), &p("n2_b"));
    }
    let diff = g.op(format_args!("tensor.sub {x}, %target : {tbsd}"));
    let sq = g.op(format_args!("tensor.mul {diff}, {diff} : {tbsd}"));
    let loss = g.op(format_args!("tensor.mean {sq} {{dims = []}} : {tbsd} -> {scalar}"));
    format!(
        "module {{\n  func.func @encoder({}) -> {scalar} {{\n{}    return {loss} : {scalar}\n  }}\n}}\n",
        args.join(", "),
        g.text
    )
}

/// A multi-layer perceptron with an MSE loss: `widths[0]` inputs, ReLU
/// between layers, `widths.last()` outputs.
#[derive(Clone, Debug)]
pub struct Mlp {
    pub widths: Vec<usize>,
    pub batch: usize,
    pub dtype: ElemType,
}

/// The MLP as IR text: `func.func @mlp(%x, %target, %w0, %b0, ...) -> loss`,
/// every weight marked `aot.requires_grad` (`%w{i}` is `[out, in]`, as
/// `nn.Linear` stores it).
pub fn mlp(z: &Mlp) -> String {
    let e = z.dtype;
    let ty = |shape: &[usize]| tensor_type(shape, e);
    let scalar = format!("tensor<{e}>");
    let n = z.batch;
    let w = &z.widths;
    let last = *w.last().unwrap_or(&1);
    let mut args = vec![format!("%x: {}", ty(&[n, w[0]])), format!("%target: {}", ty(&[n, last]))];
    for l in 0..w.len().saturating_sub(1) {
        args.push(format!("%w{l}: {} {{aot.requires_grad}}", ty(&[w[l + 1], w[l]])));
        args.push(format!("%b{l}: {} {{aot.requires_grad}}", ty(&[w[l + 1]])));
    }
    let mut g = Gen { text: String::new(), n: 0 };
    let mut h = "%x".to_string();
    for l in 0..w.len().saturating_sub(1) {
        let (tin, tout) = (ty(&[n, w[l]]), ty(&[n, w[l + 1]]));
        h = g.op(format_args!(
            "tensor.linear {h}, %w{l}, %b{l} : {tin}, {}, {} -> {tout}",
            ty(&[w[l + 1], w[l]]),
            ty(&[w[l + 1]])
        ));
        if l + 2 < w.len() {
            h = g.op(format_args!("tensor.relu {h} : {tout}"));
        }
    }
    let to = ty(&[n, last]);
    let d = g.op(format_args!("tensor.sub {h}, %target : {to}"));
    let sq = g.op(format_args!("tensor.mul {d}, {d} : {to}"));
    let loss = g.op(format_args!("tensor.mean {sq} {{dims = []}} : {to} -> {scalar}"));
    format!(
        "module {{\n  func.func @mlp({}) -> {scalar} {{\n{}    return {loss} : {scalar}\n  }}\n}}\n",
        args.join(", "),
        g.text
    )
}
