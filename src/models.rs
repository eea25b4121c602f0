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
    fn op(&mut self, body: std::fmt::Arguments<'_>) -> String {
        let v = format!("%{}", self.n);
        self.n += 1;
        let _ = writeln!(self.text, "    {v} = {body}");
        v
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
    let (tbsd, tbsf, tbs3d) = (ty(&[b, s, d]), ty(&[b, s, f]), ty(&[b, s, 3 * d]));
    let (tbshd, tbhsd, tbhds, tbhss) = (ty(&[b, s, h, hd]), ty(&[b, h, s, hd]), ty(&[b, h, hd, s]), ty(&[b, h, s, s]));
    let tstat = ty(&[b, s, 1]);
    let mask = |t: &str| t.replace(&format!("{e}>"), "i1>");
    let scale = g.op(format_args!("tensor.constant dense<{:?}> : {scalar}", 1.0 / (hd as f64).sqrt()));
    let mut x = "%x".to_string();
    for l in 0..z.layers {
        let dropout = |g: &mut Gen, v: &str, t: &str| -> String {
            if z.dropout == 0.0 {
                return v.to_string();
            }
            let r = g.op(format_args!("rng.dropout {v} {{p = {:?}}} : {t} -> ({t}, {})", z.dropout, mask(t)));
            // `%N = ...` with two results: name the pair and take the first.
            let line_start = g.text.rfind(&format!("    {r} = ")).expect("just written");
            g.text.replace_range(line_start..line_start + 4 + r.len(), &format!("    {r}:2"));
            format!("{r}#0")
        };
        let p = |name: &str| format!("%{name}{l}");
        let qkv = g.op(format_args!(
            "tensor.linear {x}, {}, {} : {tbsd}, {}, {} -> {tbs3d}",
            p("in_w"),
            p("in_b"),
            ty(&[3 * d, d]),
            ty(&[3 * d])
        ));
        let split = g.op(format_args!(
            "view.split {qkv} {{dim = -1, sizes = [{d}, {d}, {d}]}} : {tbs3d} -> ({tbsd}, {tbsd}, {tbsd})"
        ));
        let start = g.text.rfind(&format!("    {split} = ")).expect("just written");
        g.text.replace_range(start..start + 4 + split.len(), &format!("    {split}:3"));
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
        let attn = dropout(&mut g, &attn, &tbhss);
        let ctx = g.op(format_args!("tensor.matmul {attn}, {} : {tbhss}, {tbhsd} -> {tbhsd}", heads[2]));
        let ctx = g.op(format_args!("view.permute {ctx} {{dims = [0, 2, 1, 3]}} : {tbhsd} -> {tbshd}"));
        let ctx = g.op(format_args!("view.reshape {ctx} {{shape = [{b}, {s}, {d}]}} : {tbshd} -> {tbsd}"));
        let sa = g.op(format_args!(
            "tensor.linear {ctx}, {}, {} : {tbsd}, {}, {} -> {tbsd}",
            p("out_w"),
            p("out_b"),
            ty(&[d, d]),
            ty(&[d])
        ));
        let sa = dropout(&mut g, &sa, &tbsd);
        let r1 = g.op(format_args!("tensor.add {x}, {sa} : {tbsd}"));
        let n1 = g.op(format_args!(
            "tensor.layer_norm {r1}, {}, {} {{normalized_ndim = 1, eps = 1.0e-5}} : {tbsd}, {}, {} -> ({tbsd}, {tstat}, {tstat})",
            p("n1_w"),
            p("n1_b"),
            ty(&[d]),
            ty(&[d])
        ));
        let start = g.text.rfind(&format!("    {n1} = ")).expect("just written");
        g.text.replace_range(start..start + 4 + n1.len(), &format!("    {n1}:3"));
        let n1 = format!("{n1}#0");
        let hid = g.op(format_args!(
            "tensor.linear {n1}, {}, {} : {tbsd}, {}, {} -> {tbsf}",
            p("l1_w"),
            p("l1_b"),
            ty(&[f, d]),
            ty(&[f])
        ));
        let act = g.op(format_args!("tensor.gelu {hid} : {tbsf}"));
        let act = dropout(&mut g, &act, &tbsf);
        let out = g.op(format_args!(
            "tensor.linear {act}, {}, {} : {tbsf}, {}, {} -> {tbsd}",
            p("l2_w"),
            p("l2_b"),
            ty(&[d, f]),
            ty(&[d])
        ));
        let out = dropout(&mut g, &out, &tbsd);
        let r2 = g.op(format_args!("tensor.add {n1}, {out} : {tbsd}"));
        let n2 = g.op(format_args!(
            "tensor.layer_norm {r2}, {}, {} {{normalized_ndim = 1, eps = 1.0e-5}} : {tbsd}, {}, {} -> ({tbsd}, {tstat}, {tstat})",
            p("n2_w"),
            p("n2_b"),
            ty(&[d]),
            ty(&[d])
        ));
        let start = g.text.rfind(&format!("    {n2} = ")).expect("just written");
        g.text.replace_range(start..start + 4 + n2.len(), &format!("    {n2}:3"));
        x = format!("{n2}#0");
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
