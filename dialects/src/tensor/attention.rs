//! Scaled dot-product attention: `tensor.attention` (PyTorch's
//! `_scaled_dot_product_flash_attention_for_cpu`: the output and each row's
//! log-sum-exp) and its derivative, `tensor.attention_grad`, which gives
//! the three input gradients from the saved output and log-sum-exp.
//!
//! Invariants: `q [*B, L, E]`, `k [*B, S, E]`, `v [*B, S, Ev]`, the same
//! batch dimensions and float element type; an optional mask, boolean
//! (true keeps) or additive of the same type, broadcasts to `[*B, L, S]`.
//! The score of query `i` and key `j` is `scale · q_i·k_j` (`scale`
//! defaults to `1/√E`) plus the additive mask, `-inf` where a boolean mask
//! is false or, with `causal`, where `j > i` (the top-left triangle,
//! PyTorch's `is_causal`). A row whose scores are all `-inf` attends to
//! nothing: its output is zero and its log-sum-exp `-inf` (eager's fused
//! kernel gives the same output). The log-sum-exp is in the compute type
//! (f32 for f16, bf16 and f32) and carries no gradient.
//!
//! Lowering: on a target that runs the host's library kernels, f32
//! attention is one `loop.attention` and its gradient one
//! `loop.attention_grad` (codegen's fused kernels: blocks of keys with an
//! online softmax, the scores never stored; see `aot_codegen::attention`). Otherwise, and for other types, the scores of every row are one batched GEMM into a buffer of
//! the compute type, one kernel per row scales and masks them and turns
//! them into probabilities in place (their max; the exponentials, stored,
//! and their sum in one pass; one multiply by its reciprocal: the scaled
//! scores never stored), and a second GEMM multiplies them by the values:
//! three steps where the decomposition took eight (the scaled copies of q
//! and k, the separate max, the fully-masked-row select, the copies around
//! them). When the scores outgrow about a core's L2, the three steps run
//! per chunk of batch items (at most eight chunks), so that a chunk's
//! scores are still in cache for its row kernel and second product; the
//! gradient's steps likewise. Every item is computed exactly as without
//! chunks: the same bits. The gradient recomputes the probabilities from the
//! saved log-sum-exp (one GEMM, one row kernel) and takes four more GEMMs:
//! `dv = Pᵀ g`, `dP = g vᵀ`, `dS = P ∘ (dP − rowsum(g ∘ out))·scale` in one
//! row kernel, `dq = dS k`, `dk = dSᵀ q`. Its own derivative is not
//! defined (as for eager's fused kernel): the op has no `Vjp` interface.
//! Half-precision heads keep PyTorch's roundings in the forward: each
//! row's exponentials are rounded to the storage type and not normalized
//! before the second product, whose rows are then multiplied by the
//! reciprocal of the sum of the unrounded exponentials (interpreter and
//! lowering alike).

use crate::autodiff::{Grads, VjpCtx};
use crate::lowering::*;
use crate::r#loop::{self as lp, Binary, MathFn, Predicate};
use crate::shape::*;
use aot_ir::*;
use aot_runtime::{KernelCtx, KernelResult};
use smallvec::smallvec;

aot_ir::op_handle!(pub AttentionOp = "tensor.attention");
aot_ir::op_handle!(pub AttentionGradOp = "tensor.attention_grad");

pub const ATTRS: &[AttrSpec] =
    &[AttrSpec::optional("scale", AttrKind::F64), AttrSpec::optional("causal", AttrKind::Flag)];

/// The shapes of one attention: batch dims, query rows, key rows, head
/// and value sizes.
#[derive(Clone, Debug)]
struct Dims {
    batch: Vec<i64>,
    l: i64,
    s: i64,
    e: i64,
    ev: i64,
}

impl Dims {
    fn of(q: &[i64], k: &[i64], v: &[i64]) -> Result<Dims, String> {
        let r = q.len();
        if r < 2 {
            return Err(format!("the query must be [*batch, L, E], got rank {r}"));
        }
        if k.len() != r || v.len() != r {
            return Err(format!("query, key and value must have one rank, got {r}, {} and {}", k.len(), v.len()));
        }
        let batch = q[..r - 2].to_vec();
        if k[..r - 2] != batch[..] || v[..r - 2] != batch[..] {
            return Err(format!(
                "query, key and value must have the same batch dimensions, got {q:?}, {k:?} and {v:?}"
            ));
        }
        if k[r - 1] != q[r - 1] {
            return Err(format!("the key's last dimension must be the query's {}, got {}", q[r - 1], k[r - 1]));
        }
        if v[r - 2] != k[r - 2] {
            return Err(format!("the value must have the key's {} rows, got {}", k[r - 2], v[r - 2]));
        }
        Ok(Dims { batch, l: q[r - 2], s: k[r - 2], e: q[r - 1], ev: v[r - 1] })
    }

    fn with(&self, tail: &[i64]) -> Vec<i64> {
        self.batch.iter().chain(tail).copied().collect()
    }

    fn scores(&self) -> Vec<i64> {
        self.with(&[self.l, self.s])
    }

    /// The same attention over the batch ranges `chunk` only.
    fn chunk(&self, chunk: &[(i64, i64)]) -> Dims {
        Dims { batch: chunk.iter().map(|&(_, n)| n).collect(), ..*self }
    }
}

/// The `scale` attribute, or `1/√E`.
fn scale_of(a: &AttrView<'_>, e: i64) -> f64 {
    a.f64("scale").unwrap_or(1.0 / (e.max(1) as f64).sqrt())
}

fn check_mask(ic: &InferCtx<'_>, at: usize, elem: ElemType, d: &Dims) -> Result<(), String> {
    if ic.operand_types.len() <= at {
        return Ok(());
    }
    let m = operand_tensor(ic, at)?;
    if m.elem != ElemType::I1 && m.elem != elem {
        return Err(format!("the mask must be boolean or {elem}, got {m}"));
    }
    if !broadcasts_to(&m.shape, &d.scores()) {
        return Err(format!("the mask {m} does not broadcast to the scores' shape {:?}", d.scores()));
    }
    Ok(())
}

fn float_elem(ic: &InferCtx<'_>, n: usize) -> Result<ElemType, String> {
    let e = operand_tensor(ic, 0)?.elem;
    require_float(e, "attention")?;
    for i in 1..n {
        let t = operand_tensor(ic, i)?;
        if t.elem != e {
            return Err(format!("operand {i} must be {e} like the others, got {t}"));
        }
    }
    Ok(e)
}

pub fn infer_attention(ic: &InferCtx<'_>) -> InferResult {
    let e = float_elem(ic, 3)?;
    let (q, k, v) = (operand_tensor(ic, 0)?, operand_tensor(ic, 1)?, operand_tensor(ic, 2)?);
    let d = Dims::of(&q.shape, &k.shape, &v.shape)?;
    check_mask(ic, 3, e, &d)?;
    Ok(smallvec![
        TypeData::Tensor(TensorType::new(&d.with(&[d.l, d.ev])[..], e)),
        TypeData::Tensor(TensorType::new(&d.with(&[d.l])[..], compute_elem(e)))
    ])
}

/// Operands `g, q, k, v, out, lse[, mask]`; results `dq, dk, dv`.
pub fn infer_attention_grad(ic: &InferCtx<'_>) -> InferResult {
    let e = float_elem(ic, 5)?;
    let (g, q, k, v, out) = (
        operand_tensor(ic, 0)?,
        operand_tensor(ic, 1)?,
        operand_tensor(ic, 2)?,
        operand_tensor(ic, 3)?,
        operand_tensor(ic, 4)?,
    );
    let d = Dims::of(&q.shape, &k.shape, &v.shape)?;
    let o = d.with(&[d.l, d.ev]);
    if g.shape[..] != o[..] || out.shape[..] != o[..] {
        return Err(format!("the output and its gradient must have shape {o:?}, got {out} and {g}"));
    }
    let lse = operand_tensor(ic, 5)?;
    if lse.shape[..] != d.with(&[d.l])[..] || lse.elem != compute_elem(e) {
        return Err(format!("the log-sum-exp must be {} of shape {:?}, got {lse}", compute_elem(e), d.with(&[d.l])));
    }
    check_mask(ic, 6, e, &d)?;
    Ok(smallvec![TypeData::Tensor(q.clone()), TypeData::Tensor(k.clone()), TypeData::Tensor(v.clone())])
}

// ----- interpreter -----

/// Row-major flat position in a buffer of `shape` broadcast to `full`, of
/// the element at full-shape position `at`.
fn broadcast_at(shape: &[i64], full: &[i64], at: &[usize]) -> usize {
    let lead = full.len() - shape.len();
    let mut flat = 0usize;
    for (d, &n) in shape.iter().enumerate() {
        let i = if n == 1 { 0 } else { at[lead + d] };
        flat = flat * n as usize + i;
    }
    flat
}

/// Each batch's masked, scaled scores `[L, S]` (row-major), in f64.
fn scores(k: &KernelCtx<'_>, d: &Dims, mask_at: usize) -> Result<Vec<Vec<f64>>, String> {
    let a = AttrView::of_op(k.ctx, k.op);
    let scale = scale_of(&a, d.e);
    let causal = a.flag("causal");
    let first = mask_offset(mask_at);
    let (q, kk) = (k.input(first).read_f64(), k.input(first + 1).read_f64());
    let mask = (k.inputs.len() > mask_at).then(|| (k.input(mask_at).sizes(), k.input(mask_at).read_f64()));
    let bool_mask = k.inputs.len() > mask_at && k.input(mask_at).dtype() == ElemType::I1;
    let full = d.scores();
    let (l, s, e) = (d.l as usize, d.s as usize, d.e as usize);
    let nb = numel(&d.batch) as usize;
    let mut out = Vec::with_capacity(nb);
    let mut at = vec![0usize; full.len()];
    for b in 0..nb {
        let mut sc = vec![0.0; l * s];
        super::kernels::unravel(b, &d.batch, &mut at[..d.batch.len()]);
        for i in 0..l {
            for j in 0..s {
                let dot: f64 = (0..e).map(|x| q[(b * l + i) * e + x] * kk[(b * s + j) * e + x]).fold(0.0, |a, b| a + b);
                let mut t = dot * scale;
                if let Some((ms, mv)) = &mask {
                    at[full.len() - 2] = i;
                    at[full.len() - 1] = j;
                    let m = mv[broadcast_at(ms, &full, &at)];
                    if bool_mask {
                        if m == 0.0 {
                            t = f64::NEG_INFINITY;
                        }
                    } else {
                        t += m;
                    }
                }
                if causal && j > i {
                    t = f64::NEG_INFINITY;
                }
                sc[i * s + j] = t;
            }
        }
        out.push(sc);
    }
    Ok(out)
}

/// Where q, k, v start among an op's operands: 0 for the forward op
/// (`mask_at` 3), 1 for the gradient (`mask_at` 6, after g).
fn mask_offset(mask_at: usize) -> usize {
    if mask_at == 3 {
        0
    } else {
        1
    }
}

/// Softmax rows (`l` of `s` scores each) of `sc` in place, returning each
/// row's log-sum-exp (`-inf` for a row with no key).
fn softmax_rows(sc: &mut [f64], l: usize, s: usize) -> Vec<f64> {
    exp_rows(sc, l, s, None).into_iter().map(|(lse, _)| lse).collect()
}

/// Each row's exponentials `exp(x - max)` in place, and its log-sum-exp
/// and the divisor of its exponentials after the product with the values.
/// Without `half` the rows are normalized (divisor 1); with it they are
/// kept as PyTorch's half-precision attention keeps them: each rounded
/// (through `f32`) to the storage type, not normalized, the divisor the
/// sum of the unrounded ones. A row with no key is zeros, its log-sum-exp
/// `-inf`, its divisor 1.
fn exp_rows(sc: &mut [f64], l: usize, s: usize, half: Option<ElemType>) -> Vec<(f64, f64)> {
    if s == 0 {
        return vec![(f64::NEG_INFINITY, 1.0); l];
    }
    sc.chunks_mut(s)
        .map(|row| {
            let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if m == f64::NEG_INFINITY {
                row.iter_mut().for_each(|x| *x = 0.0);
                return (f64::NEG_INFINITY, 1.0);
            }
            let mut sum = 0.0;
            for x in row.iter_mut() {
                *x = (*x - m).exp();
                sum += *x;
            }
            let lse = m + sum.ln();
            match half {
                Some(e) => {
                    row.iter_mut().for_each(|x| *x = aot_runtime::buffer::round_to(e, *x as f32 as f64));
                    (lse, sum)
                }
                None => {
                    row.iter_mut().for_each(|x| *x /= sum);
                    (lse, 1.0)
                }
            }
        })
        .collect()
}

fn dims_k(k: &KernelCtx<'_>, first: usize) -> Result<Dims, String> {
    Dims::of(&k.input(first).sizes(), &k.input(first + 1).sizes(), &k.input(first + 2).sizes())
}

pub fn kernel_attention(k: &mut KernelCtx<'_>) -> KernelResult {
    let d = dims_k(k, 0)?;
    let (l, s, ev) = (d.l as usize, d.s as usize, d.ev as usize);
    let v = k.input(2).read_f64();
    let e = k.result_type(0)?.elem;
    // (Not when the interpreter computes every float in f64, as finite
    // differences do: rounding would make the function a staircase.)
    let half = (matches!(e, ElemType::F16 | ElemType::BF16) && k.physical(e) == e).then_some(e);
    let mut out = Vec::new();
    let mut lse = Vec::new();
    for (b, mut p) in scores(k, &d, 3)?.into_iter().enumerate() {
        // (Half precision: the product divided by the row's sum after it;
        // the lowering's comment says why.)
        let rows = exp_rows(&mut p, l, s, half);
        lse.extend(rows.iter().map(|&(x, _)| x));
        for (i, &(_, divisor)) in rows.iter().enumerate() {
            for x in 0..ev {
                let dot = (0..s).map(|j| p[i * s + j] * v[(b * s + j) * ev + x]).fold(0.0, |a, b| a + b);
                out.push(dot * (1.0 / divisor));
            }
        }
    }
    Ok(smallvec![k.new_f64(e, &d.with(&[d.l, d.ev]), &out), k.new_f64(compute_elem(e), &d.with(&[d.l]), &lse)])
}

pub fn kernel_attention_grad(k: &mut KernelCtx<'_>) -> KernelResult {
    let d = dims_k(k, 1)?;
    let (l, s, e, ev) = (d.l as usize, d.s as usize, d.e as usize, d.ev as usize);
    let scale = scale_of(&AttrView::of_op(k.ctx, k.op), d.e);
    let (g, q, kk, v, out) = (
        k.input(0).read_f64(),
        k.input(1).read_f64(),
        k.input(2).read_f64(),
        k.input(3).read_f64(),
        k.input(4).read_f64(),
    );
    let (mut dq, mut dk, mut dv) = (vec![0.0; q.len()], vec![0.0; kk.len()], vec![0.0; v.len()]);
    for (b, mut p) in scores(k, &d, 6)?.into_iter().enumerate() {
        softmax_rows(&mut p, l, s);
        for i in 0..l {
            let gi = &g[(b * l + i) * ev..(b * l + i + 1) * ev];
            let delta: f64 =
                gi.iter().zip(&out[(b * l + i) * ev..(b * l + i + 1) * ev]).map(|(a, o)| a * o).fold(0.0, |a, b| a + b);
            for j in 0..s {
                let pij = p[i * s + j];
                let vj = &v[(b * s + j) * ev..(b * s + j + 1) * ev];
                let dp: f64 = gi.iter().zip(vj).map(|(a, c)| a * c).fold(0.0, |a, b| a + b);
                for x in 0..ev {
                    dv[(b * s + j) * ev + x] += pij * gi[x];
                }
                let ds = pij * (dp - delta) * scale;
                for x in 0..e {
                    dq[(b * l + i) * e + x] += ds * kk[(b * s + j) * e + x];
                    dk[(b * s + j) * e + x] += ds * q[(b * l + i) * e + x];
                }
            }
        }
    }
    let el = k.result_type(0)?.elem;
    Ok(smallvec![
        k.new_f64(el, &k.input(1).sizes(), &dq),
        k.new_f64(el, &k.input(2).sizes(), &dk),
        k.new_f64(el, &k.input(3).sizes(), &dv)
    ])
}

// ----- derivative -----

/// `(out, lse) = attention(q, k, v[, mask])`: the three gradients at once
/// from the saved output and log-sum-exp. A mask that needs a gradient is
/// an error, not a silent zero (PyTorch's fused kernel has none either;
/// `aot_torch` decomposes such an attention instead).
pub fn vjp_attention(c: &mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic> {
    let g = c.g()?;
    let (q, k, v) = (c.x(0), c.x(1), c.x(2));
    let (out, lse) = (c.y(0), c.y(1));
    let mut operands = vec![g, q, k, v, out, lse];
    if c.inputs.len() > 3 {
        if c.need(3) {
            return Err(c.err("tensor.attention gives no gradient for its mask (as PyTorch's fused kernel); detach it"));
        }
        operands.push(c.x(3));
    }
    let attrs: Vec<(&str, Attribute)> =
        ["scale", "causal"].iter().filter_map(|&n| c.attrs().get(n).map(|a| (n, a))).collect();
    let op = c.rw.build(AttentionGradOp::NAME, &operands, &attrs)?;
    let rs = c.rw.ctx().results(op).to_vec();
    let mut grads = vec![Some(rs[0]), Some(rs[1]), Some(rs[2])];
    if c.inputs.len() > 3 {
        grads.push(None);
    }
    Ok(c.grads(grads))
}

// ----- lowering -----

/// `v` ([*B, m, n]) as [*B, n, m]: a view with the last two dimensions
/// swapped.
fn transposed(lc: &mut LowerCtx<'_, '_>, v: Value) -> Result<Value, String> {
    let m = lp::memref(lc.ctx(), v).cloned().ok_or("not a buffer")?;
    let (st, off) = lp::layout(&m);
    let r = m.shape.len();
    let (mut shape, mut strides) = (m.shape.to_vec(), st.to_vec());
    shape.swap(r - 1, r - 2);
    strides.swap(r - 1, r - 2);
    lc.view(v, &shape, &strides, off)
}

/// A fresh `shape` buffer of element type `acc` holding `a·b` (batched).
fn product(lc: &mut LowerCtx<'_, '_>, a: Value, b: Value, shape: &[i64], acc: ElemType) -> Result<Value, String> {
    let c = lc.alloc(shape, acc);
    super::lowering::batched_matmul(lc, a, b, c, false)?;
    Ok(c)
}

/// What the row kernels need to mask a score.
struct Masking {
    scale: f64,
    causal: bool,
    /// The mask broadcast to the scores' shape, and whether it is boolean.
    mask: Option<bool>,
}

impl Masking {
    fn of(lc: &mut LowerCtx<'_, '_>, d: &Dims, at: usize) -> Result<(Masking, Option<Value>), String> {
        let a = lc.attrs();
        let (scale, causal) = (scale_checked(&a, d.e)?, a.flag("causal"));
        if lc.operands.len() <= at {
            return Ok((Masking { scale, causal, mask: None }, None));
        }
        let m = lc.operand(at)?;
        let boolean = lc.operand_type(at)?.elem == ElemType::I1;
        let m = lc.expand(m, &d.scores())?;
        Ok((Masking { scale, causal, mask: Some(boolean) }, Some(m)))
    }

    /// The masked, scaled score at `idx` ([*b, i, j]) from the raw `raw`.
    fn score(
        &self,
        s: &mut Scalars<'_, '_>,
        raw: Value,
        mask: Option<Value>,
        idx: &[Value],
        acc: ElemType,
    ) -> Result<Value, String> {
        let sc = s.const_f(self.scale, acc);
        let mut t = s.mul(raw, sc)?;
        let ninf = s.const_f(f64::NEG_INFINITY, acc);
        if let (Some(boolean), Some(m)) = (self.mask, mask) {
            let mv = s.load(m, idx)?;
            t = if boolean {
                s.select(mv, t, ninf)?
            } else {
                let mv = convert(s, mv, acc)?;
                s.add(t, mv)?
            };
        }
        if self.causal {
            let r = idx.len();
            let late = s.cmp(Predicate::Gt, idx[r - 1], idx[r - 2])?;
            t = s.select(late, ninf, t)?;
        }
        Ok(t)
    }
}

fn with_col(row: &[Value], j: Value) -> Vec<Value> {
    let mut v = row.to_vec();
    v.push(j);
    v
}

/// The value of a row's element from its index `[*b, i, j]`.
type ElementOf<'a> = dyn FnMut(&mut Scalars<'_, '_>, &[Value]) -> Result<Value, String> + 'a;

/// Stores `f(at)` into `dst` at every `at` of row `row` (`len` columns).
fn each_col(s: &mut Scalars<'_, '_>, row: &[Value], len: i64, dst: Value, f: &mut ElementOf<'_>) -> Result<(), String> {
    s.for_loop(0, len, 1, false, &[], &mut |s, j, _| {
        let at = with_col(row, j);
        let v = f(s, &at)?;
        s.store(v, dst, &at);
        Ok(Vec::new())
    })?;
    Ok(())
}

/// Scores per chunk of the forward, in bytes: about a core's L2, so that
/// the scores a chunk's first product writes are still in cache when its
/// row kernel and its second product read them.
const CHUNK_BYTES: i64 = 1 << 20;

/// At most this many chunks (each is a product, a row kernel and a
/// product; every row kernel is code of its own to compile).
const MAX_CHUNKS: i64 = 8;

/// The batch ranges (start, length per batch dimension) the forward runs
/// in turn: one for the whole batch when its scores fit [`CHUNK_BYTES`],
/// else runs of whole batch items, split along one batch dimension (the
/// innermost one whose suffix no longer fits), at most [`MAX_CHUNKS`].
/// Every item is computed as in one run: the products and the row kernel
/// treat batch items independently, so the results are the same bits.
fn batch_chunks(d: &Dims, acc: ElemType) -> Vec<Vec<(i64, i64)>> {
    let whole: Vec<(i64, i64)> = d.batch.iter().map(|&n| (0, n)).collect();
    let item = d.l.saturating_mul(d.s).saturating_mul(acc.byte_size() as i64).max(1);
    let items: i64 = d.batch.iter().product();
    if d.batch.iter().any(|&n| aot_ir::sym::is_symbolic(n) || n <= 0) || items.saturating_mul(item) <= CHUNK_BYTES {
        return vec![whole];
    }
    let per_chunk = (CHUNK_BYTES / item).max(1).max((items + MAX_CHUNKS - 1) / MAX_CHUNKS);
    // The dimension to split: the outermost k whose suffix product still fits.
    let mut k = d.batch.len();
    let mut suffix = 1i64;
    while k > 0 && suffix.saturating_mul(d.batch[k - 1]) <= per_chunk {
        k -= 1;
        suffix *= d.batch[k];
    }
    if k == 0 {
        return vec![whole];
    }
    let split = k - 1;
    let step = (per_chunk / suffix).max(1);
    let mut chunks = Vec::new();
    let outer: i64 = d.batch[..split].iter().product();
    for flat in 0..outer {
        let mut idx = vec![0i64; split];
        let mut r = flat;
        for j in (0..split).rev() {
            idx[j] = r % d.batch[j];
            r /= d.batch[j];
        }
        let mut start = 0;
        while start < d.batch[split] {
            let len = step.min(d.batch[split] - start);
            let mut c: Vec<(i64, i64)> = idx.iter().map(|&i| (i, 1)).collect();
            c.push((start, len));
            c.extend(d.batch[split + 1..].iter().map(|&n| (0, n)));
            chunks.push(c);
            start += len;
        }
    }
    chunks
}

/// The part of buffer `v` ([*B, ...]) in batch ranges `chunk`, a view.
fn batch_part(lc: &mut LowerCtx<'_, '_>, v: Value, chunk: &[(i64, i64)]) -> Result<Value, String> {
    let m = lp::memref(lc.ctx(), v).cloned().ok_or("not a buffer")?;
    let (st, off) = lp::layout(&m);
    let (mut shape, mut offset) = (m.shape.to_vec(), off);
    for (j, &(start, len)) in chunk.iter().enumerate() {
        shape[j] = len;
        offset += start * st[j];
    }
    let strides = st.to_vec();
    lc.view(v, &shape, &strides, offset)
}

/// Whether an attention of these heads lowers to the host's fused kernel
/// (`loop.attention`, `loop.attention_grad`): on a target that runs it, f32
/// heads (of any sizes: the kernel is planned per size). Otherwise the
/// heads must have static sizes (the products' path chunks the batch and
/// scales by the head size); `Err` says why not.
fn fused_on_host(lc: &LowerCtx<'_, '_>, e: ElemType, shapes: [&Shape; 3]) -> Result<bool, String> {
    if lc.host_kernels && e == ElemType::F32 {
        return Ok(true);
    }
    match shapes.iter().flat_map(|s| s.iter()).find(|&&d| aot_ir::sym::is_symbolic(d)) {
        Some(&d) => Err(format!(
            "an attention of {e} heads over the symbolic size {} runs only as the host's fused kernel",
            aot_ir::sym::display(d)
        )),
        None => Ok(false),
    }
}

/// The scale of an attention whose head size is `e`: its `scale`, else
/// 1/√E, which needs a static head size.
fn scale_checked(a: &AttrView<'_>, e: i64) -> Result<f64, String> {
    if a.f64("scale").is_none() && aot_ir::sym::is_symbolic(e) {
        return Err(format!("an attention's default scale over the symbolic head size {}", aot_ir::sym::display(e)));
    }
    Ok(scale_of(a, e))
}

pub fn lower_attention(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let (qt, kt, vt) = (lc.operand_type(0)?, lc.operand_type(1)?, lc.operand_type(2)?);
    let d = Dims::of(&qt.shape, &kt.shape, &vt.shape)?;
    let e = qt.elem;
    let acc = compute_elem(e);
    let (masking, mask) = Masking::of(lc, &d, 3)?;
    let (q, k, v) = (lc.operand(0)?, lc.operand(1)?, lc.operand(2)?);
    if fused_on_host(lc, e, [&qt.shape, &kt.shape, &vt.shape])? {
        // One fused kernel: the scores are never stored.
        let out = lc.alloc(&d.with(&[d.l, d.ev]), e);
        let lse = lc.alloc(&d.with(&[d.l]), e);
        let mut ops = vec![q, k, v, out, lse];
        ops.extend(mask);
        lc.attention(false, &ops, masking.scale, masking.causal);
        lc.set_result(0, out);
        lc.set_result(1, lse);
        return Ok(());
    }
    let (q, k, v) = (lc.as_elem(q, acc)?, lc.as_elem(k, acc)?, lc.as_elem(v, acc)?);
    let kt = transposed(lc, k)?;
    let lse = lc.alloc(&d.with(&[d.l]), acc);
    let len = d.s;
    // Half precision, as PyTorch's kernel computes it: the exponentials
    // rounded to the storage type and not normalized go into the product
    // with the values (summed in f32), which is then multiplied by the
    // reciprocal of the row's sum (of the unrounded exponentials) and
    // rounded once. Normalizing before the product, as for f32 and f64,
    // gave another last bit in about one element of eight.
    let half = e != acc;
    let inv_buf = if half { Some(lc.alloc(&d.with(&[d.l]), acc)) } else { None };
    let oshape = d.with(&[d.l, d.ev]);
    let o = lc.alloc(&oshape, acc);
    for chunk in batch_chunks(&d, acc) {
        let part = |lc: &mut LowerCtx<'_, '_>, v: Value| batch_part(lc, v, &chunk);
        let (qc, ktc, vc, lsec, oc) = (part(lc, q)?, part(lc, kt)?, part(lc, v)?, part(lc, lse)?, part(lc, o)?);
        let maskc = mask.map(|m| part(lc, m)).transpose()?;
        let invc = inv_buf.map(|b| part(lc, b)).transpose()?;
        let cd = d.chunk(&chunk);
        let p = product(lc, qc, ktc, &cd.scores(), acc)?;
        let rows = cd.with(&[d.l]);
        let mut bufs = vec![p, lsec];
        bufs.extend(maskc);
        bufs.extend(invc);
        lc.kernel("attention_softmax", &bufs, &mut |s, a| {
            let (p, lse) = (a[0], a[1]);
            let mask = maskc.map(|_| a[2]);
            let inv_out = invc.map(|_| a[a.len() - 1]);
            s.nest_flat(&rows, &mut |s, row| {
                // The masked scores' maximum, each score computed from the raw
                // product where it is read (twice: here and for its
                // exponential), so that the row is written once before the sum.
                let ninf = s.const_f(f64::NEG_INFINITY, acc);
                let m = s.for_loop(0, len, 1, false, &[ninf], &mut |s, j, c| {
                    let at = with_col(row, j);
                    let raw = s.load(p, &at)?;
                    let t = masking.score(s, raw, mask, &at, acc)?;
                    Ok(vec![s.bin(Binary::Max, c[0], t)?])
                })?[0];
                // A row of -inf: exp(-inf - 0) = 0 everywhere.
                let empty = s.cmp(Predicate::Eq, m, ninf)?;
                let zero = s.const_f(0.0, acc);
                let shift = s.select(empty, zero, m)?;
                // The exponentials, stored, and their sum in the same pass.
                let sum = s.for_loop(0, len, 1, false, &[zero], &mut |s, j, c| {
                    let at = with_col(row, j);
                    let raw = s.load(p, &at)?;
                    let t = masking.score(s, raw, mask, &at, acc)?;
                    let dd = s.sub(t, shift)?;
                    let x = s.math(MathFn::Exp, &[dd])?;
                    s.store(x, p, &at);
                    Ok(vec![s.add(c[0], x)?])
                })?[0];
                let lg = s.math(MathFn::Log, &[sum])?;
                let l = s.add(shift, lg)?;
                s.store(l, lse, row);
                let one = s.const_f(1.0, acc);
                let inv = s.div(one, sum)?;
                let inv = s.select(empty, zero, inv)?;
                if let Some(ib) = inv_out {
                    s.store(inv, ib, row);
                    return each_col(s, row, len, p, &mut |s, at| {
                        let x = s.load(p, at)?;
                        let r = convert(s, x, e)?;
                        convert(s, r, acc)
                    });
                }
                each_col(s, row, len, p, &mut |s, at| {
                    let x = s.load(p, at)?;
                    s.mul(x, inv)
                })
            })
        })?;
        super::lowering::batched_matmul(lc, p, vc, oc, false)?;
    }
    let out = match inv_buf {
        Some(ib) => {
            let out = lc.alloc(&oshape, e);
            let r = oshape.len();
            lc.kernel("attention_out", &[o, ib, out], &mut |s, a| {
                s.nest(&oshape, true, &mut |s, ivs| {
                    let x = s.load(a[0], ivs)?;
                    let w = s.load(a[1], &ivs[..r - 1])?;
                    let y = s.mul(x, w)?;
                    s.store_as(y, a[2], ivs)
                })
            })?;
            out
        }
        None => lc.as_elem(o, e)?,
    };
    lc.set_result(0, out);
    lc.set_result(1, lse);
    Ok(())
}

pub fn lower_attention_grad(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let (qt, kty, vt) = (lc.operand_type(1)?, lc.operand_type(2)?, lc.operand_type(3)?);
    let d = Dims::of(&qt.shape, &kty.shape, &vt.shape)?;
    let e = qt.elem;
    let acc = compute_elem(e);
    let (masking, mask) = Masking::of(lc, &d, 6)?;
    if fused_on_host(lc, e, [&qt.shape, &kty.shape, &vt.shape])? {
        // One fused kernel: probabilities recomputed per block of keys.
        let mut ops = Vec::with_capacity(10);
        for i in 0..6 {
            ops.push(lc.operand(i)?);
        }
        for shape in [&qt.shape, &kty.shape, &vt.shape] {
            ops.push(lc.alloc(shape, e));
        }
        let grads = [ops[6], ops[7], ops[8]];
        ops.extend(mask);
        lc.attention(true, &ops, masking.scale, masking.causal);
        for (i, g) in grads.into_iter().enumerate() {
            lc.set_result(i, g);
        }
        return Ok(());
    }
    let mut ops = Vec::with_capacity(5);
    for i in 0..5 {
        let v = lc.operand(i)?;
        ops.push(lc.as_elem(v, acc)?);
    }
    let (g, q, k, v, out) = (ops[0], ops[1], ops[2], ops[3], ops[4]);
    let lse = lc.operand(5)?;
    let kt = transposed(lc, k)?;
    let vtr = transposed(lc, v)?;
    let (dq, dk, dv) = (lc.alloc(&qt.shape, acc), lc.alloc(&kty.shape, acc), lc.alloc(&vt.shape, acc));
    let len = d.s;
    let ev = d.ev;
    let scale = masking.scale;
    // In batch chunks, as the forward (each item's gradients are its own).
    for chunk in batch_chunks(&d, acc) {
        let part = |lc: &mut LowerCtx<'_, '_>, v: Value| batch_part(lc, v, &chunk);
        let (gc, qc, kc, ktc, vtc, outc, lsec) =
            (part(lc, g)?, part(lc, q)?, part(lc, k)?, part(lc, kt)?, part(lc, vtr)?, part(lc, out)?, part(lc, lse)?);
        let (dqc, dkc, dvc) = (part(lc, dq)?, part(lc, dk)?, part(lc, dv)?);
        let maskc = mask.map(|m| part(lc, m)).transpose()?;
        let cd = d.chunk(&chunk);
        let rows = cd.with(&[d.l]);
        // The probabilities again, from the saved log-sum-exp.
        let p = product(lc, qc, ktc, &cd.scores(), acc)?;
        let mut bufs = vec![p, lsec];
        bufs.extend(maskc);
        lc.kernel("attention_probs", &bufs, &mut |s, a| {
            let (p, lse, mask) = (a[0], a[1], a.get(2).copied());
            s.nest_flat(&rows, &mut |s, row| {
                let l = s.load(lse, row)?;
                let ninf = s.const_f(f64::NEG_INFINITY, acc);
                let empty = s.cmp(Predicate::Eq, l, ninf)?;
                let zero = s.const_f(0.0, acc);
                let shift = s.select(empty, zero, l)?;
                each_col(s, row, len, p, &mut |s, at| {
                    let raw = s.load(p, at)?;
                    let t = masking.score(s, raw, mask, at, acc)?;
                    let dd = s.sub(t, shift)?;
                    s.math(MathFn::Exp, &[dd])
                })
            })
        })?;
        // dv = Pᵀ g.
        let pt = transposed(lc, p)?;
        super::lowering::batched_matmul(lc, pt, gc, dvc, false)?;
        // dP = g vᵀ, then dS = P ∘ (dP − rowsum(g ∘ out))·scale in its place.
        let ds = product(lc, gc, vtc, &cd.scores(), acc)?;
        lc.kernel("attention_dscores", &[p, ds, gc, outc], &mut |s, a| {
            let (p, ds, g, out) = (a[0], a[1], a[2], a[3]);
            s.nest_flat(&rows, &mut |s, row| {
                let zero = s.const_f(0.0, acc);
                let delta = s.for_loop(0, ev, 1, false, &[zero], &mut |s, x, c| {
                    let at = with_col(row, x);
                    let gv = s.load(g, &at)?;
                    let ov = s.load(out, &at)?;
                    let pr = s.mul(gv, ov)?;
                    Ok(vec![s.add(c[0], pr)?])
                })?[0];
                let sc = s.const_f(scale, acc);
                each_col(s, row, len, ds, &mut |s, at| {
                    let dp = s.load(ds, at)?;
                    let pv = s.load(p, at)?;
                    let diff = s.sub(dp, delta)?;
                    let y = s.mul(pv, diff)?;
                    s.mul(y, sc)
                })
            })
        })?;
        super::lowering::batched_matmul(lc, ds, kc, dqc, false)?;
        let dst = transposed(lc, ds)?;
        super::lowering::batched_matmul(lc, dst, qc, dkc, false)?;
    }
    let (dq, dk, dv) = (lc.as_elem(dq, e)?, lc.as_elem(dk, e)?, lc.as_elem(dv, e)?);
    lc.set_result(0, dq);
    lc.set_result(1, dk);
    lc.set_result(2, dv);
    Ok(())
}
