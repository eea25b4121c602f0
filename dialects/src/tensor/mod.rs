//! The `tensor` dialect: pure tensor ops with value semantics.
//!
//! Every op here creates a new tensor object with fresh contiguous storage;
//! none aliases its operands. Each op's facts live in this folder: the
//! definitions below (traits, attributes, shape and type rules, which double
//! as verifiers), the interpreter kernels in [`kernels`], and the custom
//! syntax (the shared functional form, plus `tensor.constant`).
//!
//! Element types are never promoted implicitly: binary ops require equal
//! element types (PyTorch would promote; a frontend inserts `tensor.cast`).

pub mod attention;
pub mod conv;
pub mod derivatives;
pub mod kernels;
pub mod lowering;
pub mod pool;

use crate::autodiff::{OpClass, Recompute, Vjp};
use crate::export::{Reduction, TensorExport};
use crate::lowering::{LowerSymbolic, Pointwise};
use crate::shape::*;
use aot_ir::*;
use aot_runtime::interp::NonDifferentiableResults;
use aot_runtime::Kernel;
use derivatives as d;
use kernels as k;
use lowering as l;

// ----- shape and type rules -----

fn infer_binary(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    let a = operand_tensor(ic, 0)?;
    let b = operand_tensor(ic, 1)?;
    one(broadcast(&a.shape, &b.shape)?, e)
}

fn infer_binary_float(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    require_float(e, "this op")?;
    infer_binary(ic)
}

fn infer_binary_no_bool(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    if e.is_bool() {
        return Err("does not support i1 operands".into());
    }
    infer_binary(ic)
}

fn infer_binary_int(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    if e.is_float() || e.is_bool() {
        return Err(format!("takes integer operands, got {e}"));
    }
    infer_binary(ic)
}

fn infer_compare(ic: &InferCtx<'_>) -> InferResult {
    same_elem(ic)?;
    let a = operand_tensor(ic, 0)?;
    let b = operand_tensor(ic, 1)?;
    one(broadcast(&a.shape, &b.shape)?, ElemType::I1)
}

fn infer_where(ic: &InferCtx<'_>) -> InferResult {
    let c = operand_tensor(ic, 0)?;
    let a = operand_tensor(ic, 1)?;
    let b = operand_tensor(ic, 2)?;
    if c.elem != ElemType::I1 {
        return Err(format!("condition must have element type i1, got {}", c.elem));
    }
    if a.elem != b.elem {
        return Err(format!("requires the same element type for both branches, got {} and {}", a.elem, b.elem));
    }
    let s = broadcast(&broadcast(&c.shape, &a.shape)?, &b.shape)?;
    one(s, a.elem)
}

fn infer_fma(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    require_float(e, "tensor.fma")?;
    let (a, b, c) = (operand_tensor(ic, 0)?, operand_tensor(ic, 1)?, operand_tensor(ic, 2)?);
    one(broadcast(&broadcast(&a.shape, &b.shape)?, &c.shape)?, e)
}

fn infer_clamp_tensor(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    if e.is_bool() {
        return Err("does not support i1 operands".into());
    }
    let (x, lo, hi) = (operand_tensor(ic, 0)?, operand_tensor(ic, 1)?, operand_tensor(ic, 2)?);
    one(broadcast(&broadcast(&x.shape, &lo.shape)?, &hi.shape)?, e)
}

fn infer_lerp(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    require_float(e, "tensor.lerp")?;
    let scalar = attr_f64_opt(ic, "weight")?.is_some();
    let mut s = broadcast(&operand_tensor(ic, 0)?.shape, &operand_tensor(ic, 1)?.shape)?;
    match (ic.operand_types.len(), scalar) {
        (2, true) => {}
        (3, false) => s = broadcast(&s, &operand_tensor(ic, 2)?.shape)?,
        _ => return Err("takes its weight as a third operand or as the 'weight' attribute, exactly one".into()),
    }
    one(s, e)
}

fn infer_unary(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    one(t.shape.clone(), t.elem)
}

/// A coefficient rounded to the compute type `e` (f32 but for f64), as
/// PyTorch's kernels take their scalar arguments.
pub fn coefficient(v: f64, e: ElemType) -> f64 {
    if e == ElemType::F64 {
        v
    } else {
        f64::from(v as f32)
    }
}

/// `tensor.elu`'s coefficients from its attributes (`attr(name)`; each
/// defaults to 1): the negative branch's input scale, its output scale
/// `alpha·scale`, the positive branch's `scale`, rounded to the compute
/// type `e` as PyTorch's kernel rounds them (for f32 and the half types,
/// `alpha` and `scale` rounded, then their product).
pub fn elu_coefficients(attr: impl Fn(&str) -> Option<f64>, e: ElemType) -> (f64, f64, f64) {
    let a = |n: &str| coefficient(attr(n).unwrap_or(1.0), e);
    // (Two rounded f32 factors: their f64 product is exact, so rounding it
    // once is f32's multiplication.)
    (a("input_scale"), coefficient(a("alpha") * a("scale"), e), a("scale"))
}

/// `tensor.logit`'s bounds `(eps, 1 - eps)` rounded to the compute type as
/// PyTorch's kernel computes them (`1 - eps` in that type), if it has `eps`.
pub fn logit_bounds(attr: impl Fn(&str) -> Option<f64>, e: ElemType) -> Option<(f64, f64)> {
    let lo = coefficient(attr("eps")?, e);
    Some((lo, coefficient(1.0 - lo, e)))
}

/// `tensor.softplus`'s `beta` (default 1) and `threshold` (default 20)
/// from its attributes, rounded to the compute type `e`.
pub fn softplus_coefficients(attr: impl Fn(&str) -> Option<f64>, e: ElemType) -> (f64, f64) {
    (coefficient(attr("beta").unwrap_or(1.0), e), coefficient(attr("threshold").unwrap_or(20.0), e))
}

fn infer_unary_float(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    require_float(t.elem, "this op")?;
    one(t.shape.clone(), t.elem)
}

fn infer_unary_signed(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    if t.elem.is_bool() {
        return Err("does not support i1 operands".into());
    }
    one(t.shape.clone(), t.elem)
}

fn infer_gelu(ic: &InferCtx<'_>) -> InferResult {
    match attr_str(ic, "approximate") {
        None | Some("none") | Some("tanh") => {}
        Some(other) => return Err(format!("attribute 'approximate' must be \"none\" or \"tanh\", got \"{other}\"")),
    }
    infer_unary_float(ic)
}

fn infer_clamp(ic: &InferCtx<'_>) -> InferResult {
    let lo = attr_f64_opt(ic, "min")?;
    let hi = attr_f64_opt(ic, "max")?;
    if lo.is_none() && hi.is_none() {
        return Err("requires at least one of 'min' and 'max'".into());
    }
    infer_unary_signed(ic)
}

fn verify_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (Some(a), Some(r)) = (ctx.value_tensor(ctx.operand(op, 0)), ctx.value_tensor(ctx.result(op, 0))) else {
        return Err(Diagnostic::op_error(ctx, op, "operand and result must be tensors"));
    };
    if a.shape != r.shape {
        return Err(Diagnostic::op_error(
            ctx,
            op,
            format!("result shape {} must equal operand shape {}", fmt_shape(&r.shape), fmt_shape(&a.shape)),
        ));
    }
    Ok(())
}

/// Output shape of a reduction over the `dims` attribute.
pub fn reduced_shape(ic: &InferCtx<'_>, t: &TensorType) -> Result<Shape, String> {
    let dims = attr_list_or_empty(ic, "dims")?;
    let keep = attr_flag(ic, "keepdim");
    // PyTorch lets a 0-d tensor reduce over an implicit dim 0 or -1; the
    // kernels, derivatives and lowerings here index real dims only.
    if let (0, Some(&d)) = (t.rank(), dims.first()) {
        return Err(format!("cannot reduce a 0-d tensor along dimension {d} (leave out 'dims')"));
    }
    let mut red = vec![false; t.rank()];
    if dims.is_empty() {
        red.iter_mut().for_each(|r| *r = true);
    }
    for &d in &dims {
        let n = norm_dim(d, t.rank(), 0)?;
        if red[n] && !dims.is_empty() {
            return Err(format!("dimension {d} appears more than once in 'dims'"));
        }
        red[n] = true;
    }
    Ok(t.shape
        .iter()
        .zip(&red)
        .filter_map(|(&s, &r)| match (r, keep) {
            (false, _) => Some(s),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect())
}

fn infer_sum(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    let e = if t.elem.is_int() { ElemType::I64 } else { t.elem };
    one(reduced_shape(ic, t)?, e)
}

fn infer_mean(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    require_float(t.elem, "mean")?;
    one(reduced_shape(ic, t)?, t.elem)
}

fn infer_amax(ic: &InferCtx<'_>) -> InferResult {
    infer_extremum(ic, "amax")
}

fn infer_amin(ic: &InferCtx<'_>) -> InferResult {
    infer_extremum(ic, "amin")
}

/// A maximum or minimum has no value over an empty dimension: PyTorch's
/// error, raised by every mode (a dead reduction too) since shapes are
/// static.
fn infer_extremum(ic: &InferCtx<'_>, name: &str) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    let shape = reduced_shape(ic, t)?;
    let dims = attr_list_or_empty(ic, "dims")?;
    if dims.is_empty() && t.shape.contains(&0) {
        return Err(format!(
            "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        ));
    }
    for &d in &dims {
        let n = norm_dim(d, t.rank(), 0)?;
        if t.shape[n] == 0 {
            return Err(format!("{name}(): Expected reduction dim {d} to have non-zero size."));
        }
    }
    one(shape, t.elem)
}

fn infer_var(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    require_float(t.elem, "var")?;
    attr_i64_or(ic, "correction", 1)?;
    one(reduced_shape(ic, t)?, t.elem)
}

fn infer_argmax(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    let keep = attr_flag(ic, "keepdim");
    let shape: Shape = match find_attr(ic, "dim") {
        None => {
            if keep {
                Shape::from_elem(1, t.rank())
            } else {
                Shape::new()
            }
        }
        Some(_) => {
            let dim = attr_i64(ic, "dim")?;
            if t.rank() == 0 {
                return Err(format!("cannot reduce a 0-d tensor along dimension {dim} (leave out 'dim')"));
            }
            let d = norm_dim(dim, t.rank(), 0)?;
            let mut s = t.shape.clone();
            if keep {
                s[d] = 1;
            } else {
                s.remove(d);
            }
            s
        }
    };
    one(shape, ElemType::I64)
}

fn infer_softmax(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    require_float(t.elem, "softmax")?;
    norm_dim(attr_i64(ic, "dim")?, t.rank(), 0)?;
    one(t.shape.clone(), t.elem)
}

fn infer_cumsum(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    // A 0-d tensor is one lane (PyTorch accepts dim 0 or -1).
    norm_dim(attr_i64(ic, "dim")?, t.rank().max(1), 0)?;
    // PyTorch sums integers and bools in int64.
    let elem = if t.elem.is_float() { t.elem } else { ElemType::I64 };
    one(t.shape.clone(), elem)
}

fn infer_argsort(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    // A 0-d tensor is one lane of one element (PyTorch accepts dim 0 or -1).
    norm_dim(attr_i64(ic, "dim")?, t.rank().max(1), 0)?;
    if t.elem == ElemType::I1 {
        return Err("argsort of booleans is not supported".into());
    }
    one(t.shape.clone(), ElemType::I64)
}

fn infer_layer_norm(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    require_float(x.elem, "layer_norm")?;
    let n = attr_i64(ic, "normalized_ndim")?;
    if n < 1 || n as usize > x.rank() {
        return Err(format!("'normalized_ndim' must be in [1, {}], got {n}", x.rank()));
    }
    let n = n as usize;
    let norm_shape = &x.shape[x.rank() - n..];
    match ic.operand_types.len() {
        1 => {}
        3 => {
            for (i, what) in [(1, "weight"), (2, "bias")] {
                let w = operand_tensor(ic, i)?;
                if w.elem != x.elem || w.shape[..] != *norm_shape {
                    return Err(format!(
                        "{what} must be a {} tensor of shape {}, got {}",
                        x.elem,
                        fmt_shape(norm_shape),
                        w
                    ));
                }
            }
        }
        k => return Err(format!("takes 1 or 3 operands (x, weight, bias), got {k}")),
    }
    let mut stat: Shape = x.shape[..x.rank() - n].iter().copied().collect();
    stat.extend(std::iter::repeat_n(1, n));
    Ok(smallvec::smallvec![
        TypeData::Tensor(x.clone()),
        TypeData::Tensor(TensorType::new(stat.clone(), x.elem)),
        TypeData::Tensor(TensorType::new(stat, x.elem)),
    ])
}

fn infer_mm(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    let a = operand_tensor(ic, 0)?;
    let b = operand_tensor(ic, 1)?;
    if a.rank() != 2 || b.rank() != 2 {
        return Err(format!("expects 2-D operands, got {a} and {b}"));
    }
    if a.shape[1] != b.shape[0] {
        return Err(format!("contraction dimensions differ: {a} and {b}"));
    }
    one([a.shape[0], b.shape[1]], e)
}

fn infer_bmm(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    let a = operand_tensor(ic, 0)?;
    let b = operand_tensor(ic, 1)?;
    if a.rank() != 3 || b.rank() != 3 {
        return Err(format!("expects 3-D operands, got {a} and {b}"));
    }
    if a.shape[0] != b.shape[0] || a.shape[2] != b.shape[1] {
        return Err(format!("batch or contraction dimensions differ: {a} and {b}"));
    }
    one([a.shape[0], a.shape[1], b.shape[2]], e)
}

/// `torch.matmul`'s shape rule.
pub fn matmul_shape(a: &[i64], b: &[i64]) -> Result<Shape, String> {
    if a.is_empty() || b.is_empty() {
        return Err("operands must be at least 1-D".into());
    }
    let (ka, kb) = (a[a.len() - 1], if b.len() == 1 { b[0] } else { b[b.len() - 2] });
    if ka != kb {
        return Err(format!("contraction dimensions differ: {} and {}", fmt_shape(a), fmt_shape(b)));
    }
    let batch_a = if a.len() > 2 { &a[..a.len() - 2] } else { &[][..] };
    let batch_b = if b.len() > 2 { &b[..b.len() - 2] } else { &[][..] };
    let mut out = broadcast(batch_a, batch_b)?;
    if a.len() >= 2 {
        out.push(a[a.len() - 2]);
    }
    if b.len() >= 2 {
        out.push(b[b.len() - 1]);
    }
    Ok(out)
}

fn infer_matmul(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    let a = operand_tensor(ic, 0)?;
    let b = operand_tensor(ic, 1)?;
    one(matmul_shape(&a.shape, &b.shape)?, e)
}

fn infer_linear(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    let x = operand_tensor(ic, 0)?;
    let w = operand_tensor(ic, 1)?;
    if x.rank() < 1 || w.rank() != 2 || x.shape[x.rank() - 1] != w.shape[1] {
        return Err(format!("expects x [..., in] and w [out, in], got {x} and {w}"));
    }
    if ic.operand_types.len() == 3 {
        let b = operand_tensor(ic, 2)?;
        if b.shape[..] != [w.shape[0]] {
            return Err(format!("bias must have shape [{}], got {b}", w.shape[0]));
        }
    }
    let mut s = x.shape.clone();
    *s.last_mut().expect("rank >= 1") = w.shape[0];
    one(s, e)
}

fn infer_embedding(ic: &InferCtx<'_>) -> InferResult {
    let w = operand_tensor(ic, 0)?;
    let idx = operand_tensor(ic, 1)?;
    if w.rank() != 2 {
        return Err(format!("weight must be 2-D, got {w}"));
    }
    if !idx.elem.is_int() || idx.elem.is_bool() {
        return Err(format!("indices must be an integer tensor, got {idx}"));
    }
    let mut s = idx.shape.clone();
    s.push(w.shape[1]);
    one(s, w.elem)
}

fn require_index(t: &TensorType, what: &str) -> Result<(), String> {
    if t.elem.is_int() && !t.elem.is_bool() {
        Ok(())
    } else {
        Err(format!("{what} must be an integer tensor, got {t}"))
    }
}

fn infer_gather(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    let idx = operand_tensor(ic, 1)?;
    require_index(idx, "index")?;
    let d = norm_dim(attr_i64(ic, "dim")?, x.rank(), 0)?;
    if idx.rank() != x.rank() {
        return Err(format!("index must have the same rank as the input, got {idx} for {x}"));
    }
    let fits = |a: i64, b: i64| ic.facts().known_le(a, b);
    for i in 0..x.rank() {
        if i != d && !fits(idx.shape[i], x.shape[i]) {
            return Err(format!(
                "index size {} exceeds input size {} in dimension {i}",
                aot_ir::sym::display(idx.shape[i]),
                aot_ir::sym::display(x.shape[i])
            ));
        }
    }
    one(idx.shape.clone(), x.elem)
}

fn infer_index_select(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    let idx = operand_tensor(ic, 1)?;
    require_index(idx, "index")?;
    if idx.rank() != 1 {
        return Err(format!("index must be 1-D, got {idx}"));
    }
    let d = norm_dim(attr_i64(ic, "dim")?, x.rank(), 0)?;
    let mut s = x.shape.clone();
    if !s.is_empty() {
        s[d] = idx.shape[0];
    }
    one(s, x.elem)
}

fn infer_scatter_add(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    let idx = operand_tensor(ic, 1)?;
    let src = operand_tensor(ic, 2)?;
    require_index(idx, "index")?;
    if src.elem != x.elem {
        return Err(format!("src must have element type {}, got {}", x.elem, src.elem));
    }
    let d = norm_dim(attr_i64(ic, "dim")?, x.rank(), 0)?;
    if idx.rank() != x.rank() || src.rank() != x.rank() {
        return Err("index and src must have the rank of the input".into());
    }
    let fits = |a: i64, b: i64| ic.facts().known_le(a, b);
    for i in 0..x.rank() {
        if !fits(idx.shape[i], src.shape[i]) || (i != d && !fits(idx.shape[i], x.shape[i])) {
            return Err(format!("index shape {} does not fit src {} and input {}", fmt_shape(&idx.shape), src, x));
        }
    }
    one(x.shape.clone(), x.elem)
}

/// The operand rules of `index_put` (shared by `mut.index_put_`): returns
/// the indexed tensor's type.
pub(crate) fn index_put_operands<'a>(ic: &'a InferCtx<'_>) -> Result<&'a TensorType, String> {
    let x = operand_tensor(ic, 0)?;
    let idx = operand_tensor(ic, 1)?;
    let vals = operand_tensor(ic, 2)?;
    if x.rank() < 1 {
        return Err("cannot index a 0-d tensor".into());
    }
    if idx.rank() != 1 || !idx.elem.is_int() || idx.elem.is_bool() {
        return Err(format!("index must be a 1-D integer tensor, got {idx}"));
    }
    if vals.elem != x.elem {
        return Err(format!("values must have element type {}, got {}", x.elem, vals.elem));
    }
    let mut target: Shape = smallvec::smallvec![idx.shape[0]];
    target.extend(x.shape[1..].iter().copied());
    if !broadcasts_to(&vals.shape, &target) {
        return Err(format!(
            "values of shape {} cannot be broadcast to the indexed shape {}",
            fmt_shape(&vals.shape),
            fmt_shape(&target)
        ));
    }
    Ok(x)
}

fn infer_index_put(ic: &InferCtx<'_>) -> InferResult {
    let x = index_put_operands(ic)?;
    one(x.shape.clone(), x.elem)
}

fn infer_cat(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    let first = operand_tensor(ic, 0)?;
    for i in 0..ic.operand_types.len() {
        if operand_tensor(ic, i)?.rank() == 0 {
            return Err(format!("zero-dimensional tensor (at position {i}) cannot be concatenated"));
        }
    }
    let d = norm_dim(attr_i64(ic, "dim")?, first.rank(), 0)?;
    let mut s = first.shape.clone();
    for i in 1..ic.operand_types.len() {
        let t = operand_tensor(ic, i)?;
        if t.rank() != first.rank() || (0..t.rank()).any(|j| j != d && t.shape[j] != first.shape[j]) {
            return Err(format!("operand #{i} ({t}) does not match {first} outside dimension {d}"));
        }
        // Symbolic sizes add as expressions (`s0 + 3`).
        s[d] = aot_ir::sym::add(s[d], t.shape[d])
            .map_err(|_| format!("concatenated size along dimension {d} overflows a 64-bit integer"))?;
    }
    one(s, e)
}

fn verify_result_only(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    if ctx.value_tensor(ctx.result(op, 0)).is_none() {
        return Err(Diagnostic::op_error(ctx, op, "result must be a tensor"));
    }
    Ok(())
}

/// `tensor.full` and `tensor.fill`: a tensor result, and a value its element
/// type holds (0 or 1 for a boolean).
fn verify_full(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_result_only(ctx, op)?;
    let r = ctx.value_tensor(ctx.result(op, 0)).expect("checked");
    let v = ctx.attr_f64(op, "value").unwrap_or(0.0);
    if r.elem.is_bool() && v != 0.0 && v != 1.0 {
        return Err(Diagnostic::op_error(ctx, op, format!("value {v} is not a boolean")));
    }
    Ok(())
}

fn verify_arange(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_result_only(ctx, op)?;
    let r = ctx.value_tensor(ctx.result(op, 0)).expect("checked");
    if r.rank() != 1 {
        return Err(Diagnostic::op_error(ctx, op, format!("result must be 1-D, got {r}")));
    }
    if ctx.attr_f64(op, "step") == Some(0.0) {
        return Err(Diagnostic::op_error(ctx, op, "step must be non-zero"));
    }
    if r.elem.is_bool() {
        return Err(Diagnostic::op_error(ctx, op, "result cannot be i1"));
    }
    // Integer results are computed in i64: every value must be a whole
    // number of the result's range (PyTorch: "value cannot be converted to
    // type int64_t without overflow").
    if r.elem.is_int() {
        let (start, step) = (ctx.attr_f64(op, "start").unwrap_or(0.0), ctx.attr_f64(op, "step").unwrap_or(1.0));
        // A symbolic length counts at the most its symbols' ranges allow,
        // and no more elements than a buffer may hold: a call whose sizes
        // make it longer is refused when its buffers are sized (a length
        // of `s1*s2` has no useful bound from the ranges alone).
        let n = if r.is_symbolic() {
            let facts = aot_ir::sym::Facts::enclosing(ctx, op).unwrap_or_default();
            let most = aot_ir::size::Limits::max_alloc_bytes() / r.elem.byte_size().max(1) as u64;
            facts.upper_bound(r.shape[0]).unwrap_or(i64::MAX).min(i64::try_from(most).unwrap_or(i64::MAX))
        } else {
            r.numel()
        };
        let last = (n - 1).max(0) as f64 * step + start;
        let fits = |v: f64| v.is_finite() && v.fract() == 0.0 && (-9.2e18..=9.2e18).contains(&v);
        if !fits(start) || !fits(step) || !fits(last) {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!("start {start:?} and step {step:?} do not give whole numbers within the range of {}", r.elem),
            ));
        }
    }
    Ok(())
}

fn infer_constant(ic: &InferCtx<'_>) -> InferResult {
    let a = find_attr(ic, "value").ok_or("requires attribute 'value'")?;
    match ic.ctx.attr_data(a) {
        AttrData::Dense { ty, .. } => Ok(smallvec::smallvec![ic.ctx.type_data(*ty).clone()]),
        _ => Err("attribute 'value' must be a dense elements attribute".into()),
    }
}

fn parse_constant(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let loc = p.current_loc();
    let a = p.parse_attribute()?;
    let AttrData::Dense { ty, .. } = p.ctx().attr_data(a).clone() else {
        return Err(Diagnostic::error(loc, "expected a dense elements attribute"));
    };
    let key = p.ctx().sym("value");
    st.add_attr(key, a);
    st.result_types.push(ty);
    Ok(())
}

fn print_constant(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.print_attr_dict(ctx.attrs(op), &["value"]);
    if let Some(a) = ctx.get_attr(op, "value") {
        p.w(" ");
        p.print_attr(a);
    }
}

// ----- definitions -----

const P: Traits = Traits::PURE;
const PD: Traits = traits(&[Traits::PURE, Traits::DIFFERENTIABLE]);
// Ops whose rules and kernels handle symbolic sizes (`aot_ir::sym`): the
// elementwise ones, and those marked `S` below.
const S: Traits = Traits::SYMBOLIC_SHAPES;
const PS: Traits = P.union(S);
const PDS: Traits = PD.union(S);
const EW: Traits = traits(&[Traits::PURE, Traits::ELEMENTWISE, Traits::DIFFERENTIABLE, S]);
const EWC: Traits = traits(&[Traits::PURE, Traits::ELEMENTWISE, Traits::DIFFERENTIABLE, Traits::COMMUTATIVE, S]);
const CMP: Traits = traits(&[Traits::PURE, Traits::ELEMENTWISE, S]);

const REDUCE_ATTRS: &[AttrSpec] =
    &[AttrSpec::optional("dims", AttrKind::I64List), AttrSpec::optional("keepdim", AttrKind::Flag)];
// `nan_selects`: a NaN result's gradient goes to the NaN elements (PyTorch's
// `max()`/`min()` without a dim); without it, to the elements equal to the
// result, which a NaN is not (PyTorch's `amax`/`amin`: NaN gradients).
const EXTREMUM_ATTRS: &[AttrSpec] = &[
    AttrSpec::optional("dims", AttrKind::I64List),
    AttrSpec::optional("keepdim", AttrKind::Flag),
    AttrSpec::optional("nan_selects", AttrKind::Flag),
];
const DIM: &[AttrSpec] = &[AttrSpec::required("dim", AttrKind::I64)];
const CUMSUM_ATTRS: &[AttrSpec] =
    &[AttrSpec::required("dim", AttrKind::I64), AttrSpec::optional("reverse", AttrKind::Flag)];
const ARGSORT_ATTRS: &[AttrSpec] =
    &[AttrSpec::required("dim", AttrKind::I64), AttrSpec::optional("descending", AttrKind::Flag)];
const CLAMP_ATTRS: &[AttrSpec] = &[AttrSpec::optional("min", AttrKind::F64), AttrSpec::optional("max", AttrKind::F64)];

// Typed handles of the ops other layers build or test for.
aot_ir::op_handle!(pub FullOp = "tensor.full");
aot_ir::op_handle!(pub FillOp = "tensor.fill");
aot_ir::op_handle!(pub OverwriteOp = "tensor.overwrite");
aot_ir::op_handle!(pub CloneOp = "tensor.clone");
aot_ir::op_handle!(pub CatOp = "tensor.cat");
aot_ir::op_handle!(pub AddOp = "tensor.add");
aot_ir::op_handle!(pub ConstantOp = "tensor.constant");
aot_ir::op_handle!(pub CastOp = "tensor.cast");
aot_ir::op_handle!(pub SubOp = "tensor.sub");
aot_ir::op_handle!(pub MulOp = "tensor.mul");
aot_ir::op_handle!(pub DivOp = "tensor.div");
aot_ir::op_handle!(pub NegOp = "tensor.neg");
aot_ir::op_handle!(pub ExpOp = "tensor.exp");
aot_ir::op_handle!(pub TanhOp = "tensor.tanh");
aot_ir::op_handle!(pub SigmoidOp = "tensor.sigmoid");
aot_ir::op_handle!(pub ReluOp = "tensor.relu");
aot_ir::op_handle!(pub ClampOp = "tensor.clamp");
aot_ir::op_handle!(pub IndexPutOp = "tensor.index_put");
aot_ir::op_handle!(pub WhereOp = "tensor.where");
aot_ir::op_handle!(pub SumOp = "tensor.sum");
aot_ir::op_handle!(pub MeanOp = "tensor.mean");
aot_ir::op_handle!(pub AmaxOp = "tensor.amax");
aot_ir::op_handle!(pub AminOp = "tensor.amin");
aot_ir::op_handle!(pub MmOp = "tensor.mm");
aot_ir::op_handle!(pub BmmOp = "tensor.bmm");
aot_ir::op_handle!(pub MatmulOp = "tensor.matmul");
aot_ir::op_handle!(pub LinearOp = "tensor.linear");

macro_rules! op {
    ($name:expr, $summary:literal, $traits:expr, $operands:expr, $results:expr, $attrs:expr, $infer:expr, $kernel:expr
     $(, vjp = $vjp:expr)? $(, class = $class:expr)? $(, export = $export:expr)?, lower = $lower:expr) => {
        inventory::submit! {
            OpDef {
                name: $name,
                summary: $summary,
                traits: $traits,
                operands: $operands,
                results: $results,
                attrs: $attrs,
                infer: $infer,
                syntax: Syntax::Functional,
                interfaces: &[&Kernel($kernel) $(, &Vjp($vjp))? $(, &Recompute($class))? $(, &$export)?, $lower],
                ..OpDef::DEFAULT
            }
        }
    };
}

const ONE: Arity = Arity::Exact(1);
const TWO: Arity = Arity::Exact(2);
const THREE: Arity = Arity::Exact(3);
const NONE: Arity = Arity::Exact(0);

op!(
    AddOp::NAME,
    "Elementwise sum (broadcasting)",
    EWC,
    TWO,
    ONE,
    &[],
    Some(infer_binary_no_bool),
    k::add,
    vjp = d::add,
    lower = &Pointwise(l::add)
);
op!(
    SubOp::NAME,
    "Elementwise difference (broadcasting)",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary_no_bool),
    k::sub,
    vjp = d::sub,
    lower = &Pointwise(l::sub)
);
op!(
    MulOp::NAME,
    "Elementwise product (broadcasting)",
    EWC,
    TWO,
    ONE,
    &[],
    Some(infer_binary),
    k::mul,
    vjp = d::mul,
    lower = &Pointwise(l::mul)
);
op!(
    DivOp::NAME,
    "Elementwise true division (broadcasting; floats)",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary_float),
    k::div,
    vjp = d::div,
    lower = &Pointwise(l::div)
);
op!(
    "tensor.fmod",
    "Elementwise a - b·trunc(a / b), the sign of a (C's fmod; broadcasting)",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary_float),
    k::fmod,
    vjp = d::fmod,
    lower = &Pointwise(l::fmod)
);
op!(
    "tensor.remainder",
    "Elementwise a - b·floor(a / b), the sign of b (Python's %; broadcasting)",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary_float),
    k::remainder,
    vjp = d::remainder,
    lower = &Pointwise(l::remainder)
);
op!(
    "tensor.floor_divide",
    "Elementwise floor(a / b) of integers (Python's //; broadcasting; a zero divisor is an error)",
    CMP,
    TWO,
    ONE,
    &[],
    Some(infer_binary_int),
    k::floor_divide,
    lower = &Pointwise(l::floor_divide)
);
op!(
    "tensor.pow",
    "Elementwise power (broadcasting)",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary_no_bool),
    k::pow,
    vjp = d::pow,
    lower = &Pointwise(l::pow)
);
op!(
    "tensor.maximum",
    "Elementwise maximum, NaN-propagating; of equal values (-0 and +0) the first, as PyTorch: not commutative",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary),
    k::maximum,
    vjp = d::maximum,
    lower = &Pointwise(l::maximum)
);
op!(
    "tensor.minimum",
    "Elementwise minimum, NaN-propagating; of equal values (-0 and +0) the first, as PyTorch: not commutative",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary),
    k::minimum,
    vjp = d::minimum,
    lower = &Pointwise(l::minimum)
);

op!(
    "tensor.eq",
    "Elementwise a == b",
    CMP.union(Traits::COMMUTATIVE),
    TWO,
    ONE,
    &[],
    Some(infer_compare),
    k::eq,
    lower = &Pointwise(l::eq)
);
op!(
    "tensor.ne",
    "Elementwise a != b",
    CMP.union(Traits::COMMUTATIVE),
    TWO,
    ONE,
    &[],
    Some(infer_compare),
    k::ne,
    lower = &Pointwise(l::ne)
);
op!("tensor.lt", "Elementwise a < b", CMP, TWO, ONE, &[], Some(infer_compare), k::lt, lower = &Pointwise(l::lt));
op!("tensor.le", "Elementwise a <= b", CMP, TWO, ONE, &[], Some(infer_compare), k::le, lower = &Pointwise(l::le));
op!("tensor.gt", "Elementwise a > b", CMP, TWO, ONE, &[], Some(infer_compare), k::gt, lower = &Pointwise(l::gt));
op!("tensor.ge", "Elementwise a >= b", CMP, TWO, ONE, &[], Some(infer_compare), k::ge, lower = &Pointwise(l::ge));
op!(
    WhereOp::NAME,
    "Selects a where cond holds, else b (broadcasting)",
    EW,
    THREE,
    ONE,
    &[],
    Some(infer_where),
    k::where_,
    vjp = d::where_,
    lower = &Pointwise(l::where_)
);

// PyTorch's CPU kernels compute `a + alpha·b`, `addcmul`, `lerp` and their
// in-place forms with one fused multiply-add per element (`vec::fmadd`), so
// a product then a sum, each rounded, differs from eager in the last place.
// ATen's `clamp.Tensor` with both bounds: its values are `minimum(maximum(x,
// lo), hi)`, but its derivative treats the three operands jointly (a tie
// splits the gradient between x and the bound it meets, a NaN bound gives
// none to either bound, a crossed pair `lo > hi` gives all to hi), which no
// composition of `maximum` and `minimum` reproduces.
op!(
    "tensor.clamp_tensor",
    "x clamped to [lo, hi], bounds as tensors (broadcasting), NaN-propagating",
    EW,
    THREE,
    ONE,
    &[],
    Some(infer_clamp_tensor),
    k::clamp_tensor,
    vjp = d::clamp_tensor,
    lower = &Pointwise(l::clamp_tensor)
);

// PyTorch's `lerp` computes from the nearer end with one fused
// multiply-add, and its derivatives are `g·(1 - w)`, `g·w` and
// `g·(end - self)`, with `1 - w` in double for a number: the chain rule
// through the multiply-add rounds otherwise.
op!(
    "tensor.lerp",
    "self + w·(end - self) as PyTorch's kernel: fma(w, end - self, self) where |w| < 0.5, else fma(w - 1, end - self, end), in f32 for halves; w a third operand or the 'weight' attribute (a number, rounded to the compute type); derivatives g·(1 - w), g·w and g·(end - self)",
    EW,
    Arity::Range(2, 3),
    ONE,
    &[AttrSpec::optional("weight", AttrKind::F64)],
    Some(infer_lerp),
    k::lerp,
    vjp = d::lerp,
    lower = &Pointwise(l::lerp)
);

op!(
    "tensor.fma",
    "a·b + c rounded once (broadcasting; f16 and bf16 compute in f32, then round)",
    EW,
    THREE,
    ONE,
    &[],
    Some(infer_fma),
    k::fma,
    vjp = d::fma,
    lower = &Pointwise(l::fma)
);

op!(
    NegOp::NAME,
    "Elementwise negation",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_signed),
    k::neg,
    vjp = d::neg,
    lower = &Pointwise(l::neg)
);
op!(
    "tensor.abs",
    "Elementwise absolute value",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_signed),
    k::abs,
    vjp = d::abs,
    lower = &Pointwise(l::abs)
);
op!(
    ExpOp::NAME,
    "Elementwise e^x",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::exp,
    vjp = d::exp,
    lower = &Pointwise(l::exp)
);
op!(
    "tensor.log",
    "Elementwise natural logarithm",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::log,
    vjp = d::log,
    lower = &Pointwise(l::log)
);
op!(
    "tensor.floor",
    "Elementwise largest integer not above x (gradient zero)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::floor,
    vjp = d::constant,
    lower = &Pointwise(l::floor)
);
op!(
    "tensor.ceil",
    "Elementwise smallest integer not below x (gradient zero)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::ceil,
    vjp = d::constant,
    lower = &Pointwise(l::ceil)
);
op!(
    "tensor.trunc",
    "Elementwise x rounded toward zero (gradient zero)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::trunc,
    vjp = d::constant,
    lower = &Pointwise(l::trunc)
);
op!(
    "tensor.round",
    "Elementwise x rounded to the nearest integer, ties to even (gradient zero)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::round,
    vjp = d::constant,
    lower = &Pointwise(l::round)
);
op!(
    "tensor.expm1",
    "Elementwise e^x - 1 (exact near 0)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::expm1,
    vjp = d::expm1,
    lower = &Pointwise(l::expm1)
);
op!(
    "tensor.log1p",
    "Elementwise log(1 + x)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::log1p,
    vjp = d::log1p,
    lower = &Pointwise(l::log1p)
);
op!(
    "tensor.sqrt",
    "Elementwise square root",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::sqrt,
    vjp = d::sqrt,
    lower = &Pointwise(l::sqrt)
);
op!(
    "tensor.rsqrt",
    "Elementwise 1 / sqrt(x)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::rsqrt,
    vjp = d::rsqrt,
    lower = &Pointwise(l::rsqrt)
);
op!(
    "tensor.reciprocal",
    "Elementwise 1 / x",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::reciprocal,
    vjp = d::reciprocal,
    lower = &Pointwise(l::reciprocal)
);
op!(
    "tensor.sin",
    "Elementwise sine",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::sin,
    vjp = d::sin,
    lower = &Pointwise(l::sin)
);
op!(
    "tensor.cos",
    "Elementwise cosine",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::cos,
    vjp = d::cos,
    lower = &Pointwise(l::cos)
);
op!(
    "tensor.tan",
    "Elementwise tangent",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::tan,
    vjp = d::tan,
    lower = &Pointwise(l::tan)
);
op!(
    TanhOp::NAME,
    "Elementwise hyperbolic tangent",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::tanh,
    vjp = d::tanh,
    lower = &Pointwise(l::tanh)
);
op!(
    SigmoidOp::NAME,
    "Elementwise logistic sigmoid",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::sigmoid,
    vjp = d::sigmoid,
    lower = &Pointwise(l::sigmoid)
);
// PyTorch's CPU SiLU divides by `1 + exp(-x)` (`x · sigmoid(x)` rounds
// the sigmoid first: a unit in the last place off in a quarter of the
// elements), and its backward has its own formula.
op!(
    "tensor.silu",
    "Elementwise SiLU x / (1 + e^-x), as PyTorch's CPU kernel computes it",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::silu,
    vjp = d::silu,
    lower = &Pointwise(l::silu)
);
// `x ** k` for a number `k` (ATen's `pow.Tensor_Scalar`): PyTorch's CPU
// kernel computes the exponents 2, 3, 0.5, -0.5, -1 and -2 as products,
// roots and quotients, and its derivative is `g · (k · x ** (k - 1))` with
// the same special cases, which the chain rule through `x·x·x` rounds
// otherwise.
op!(
    "tensor.pow_scalar",
    "Elementwise x ** exponent for a number, with PyTorch's special cases (x·x for 2, x·x·x for 3, sqrt, 1/sqrt, 1/x, 1/(x·x)) and derivative",
    EW,
    ONE,
    ONE,
    &[AttrSpec::required("exponent", AttrKind::F64)],
    Some(infer_unary_float),
    k::pow_scalar,
    vjp = d::pow_scalar,
    lower = &Pointwise(l::pow_scalar)
);
// PyTorch's log-sigmoid: `min(0, x) - log1p(exp(-|x|))` as its kernel
// computes it, and its backward formula `g·(m - s·z/(1 + z))` (`m`, `s`
// its branch constants, `z = exp(-|x|)`), which the chain rule through
// the forward's ops rounds otherwise.
op!(
    "tensor.log_sigmoid",
    "Elementwise log(sigmoid(x)) as min(0, x) - log1p(exp(-|x|)); derivative g·(m - s·(z/(1 + z))), z = exp(-|x|), (m, s) = (1, 1) for x < 0, else (0, -1)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::log_sigmoid,
    vjp = d::log_sigmoid,
    lower = &Pointwise(l::log_sigmoid)
);
// `binary_cross_entropy_with_logits` without a reduction: PyTorch's
// forward (`(1 - t)·x - log_sigmoid(x)`, each op rounded) and its backward
// formulas (`(sigmoid(x) - t)·g`, `(-x)·g`), where the chain rule through
// `log_sigmoid` cancels otherwise near `sigmoid(x) = t` (up to 1e-3
// relative from eager's).
op!(
    "tensor.bce_logits",
    "Elementwise binary cross-entropy of logits x against targets t (broadcasting): (1 - t)·x - log_sigmoid(x); derivatives (sigmoid(x) - t)·g and (-x)·g",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary_float),
    k::bce_logits,
    vjp = d::bce_logits,
    lower = &Pointwise(l::bce_logits)
);
// PyTorch's softplus: its kernel's values and its backward formula
// (`(g·z)/(z + 1)`, `z = exp(x·beta)`), which the chain rule through
// `log1p(exp(·))` rounds otherwise.
op!(
    "tensor.softplus",
    "Elementwise softplus: x where x·beta > threshold (beta default 1, threshold 20), else log1p(exp(x·beta))/beta, the coefficients rounded to the compute type; derivative g there, else (g·z)/(z + 1) with z = exp(x·beta)",
    EW,
    ONE,
    ONE,
    &[AttrSpec::optional("beta", AttrKind::F64), AttrSpec::optional("threshold", AttrKind::F64)],
    Some(infer_unary_float),
    k::softplus,
    vjp = d::softplus,
    lower = &Pointwise(l::softplus)
);
// Mish as PyTorch's kernel computes it (`x·tanh(log1p(exp(x)))`, without
// softplus's threshold) with its backward formula, which the chain rule
// through `tanh` and softplus rounds otherwise (up to 3e-3 relative where
// `1 - t²` cancels).
op!(
    "tensor.mish",
    "Elementwise Mish: x·tanh(log1p(exp(x))); derivative g·(t + (x·s)·(1 - t·t)) with t = tanh(log1p(exp(x))) and s = 1/(1 + exp(-x))",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::mish,
    vjp = d::mish,
    lower = &Pointwise(l::mish)
);
// `logit` and `glu` with PyTorch's backward formulas (`g / (x·(1 - x))`,
// NaN or 0 outside the range; `((1 - s)·s)·a·g`), which the chain rule
// through `log` of a quotient and through `sigmoid` rounds otherwise.
op!(
    "tensor.logit",
    "Elementwise logit: log(x/(1 - x)), x first clamped to [eps, 1 - eps] when eps is given (rounded to the compute type); derivative g/(x·(1 - x)) inside, outside NaN without eps and 0 with it",
    EW,
    ONE,
    ONE,
    &[AttrSpec::optional("eps", AttrKind::F64)],
    Some(infer_unary_float),
    k::logit,
    vjp = d::logit,
    lower = &Pointwise(l::logit)
);
op!(
    "tensor.glu",
    "Gated linear unit of its two halves: a·sigmoid(b) (broadcasting); derivatives sigmoid(b)·g and ((1 - s)·s)·a·g",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_binary_float),
    k::glu,
    vjp = d::glu,
    lower = &Pointwise(l::glu)
);
// The ELU family (`elu`, `selu`, `celu` are PyTorch's `elu` with other
// coefficients): values as its kernel computes them and its backward
// formula, which the chain rule through `expm1` rounds otherwise.
op!(
    "tensor.elu",
    "Elementwise ELU: expm1(x·input_scale)·(alpha·scale) for x <= 0, else x·scale (a NaN takes the second), the coefficients rounded to the compute type as PyTorch's kernel rounds them; derivative ((g·input_scale)·(alpha·scale))·exp(x·input_scale), else g·scale",
    EW,
    ONE,
    ONE,
    &[
        AttrSpec::optional("alpha", AttrKind::F64),
        AttrSpec::optional("scale", AttrKind::F64),
        AttrSpec::optional("input_scale", AttrKind::F64)
    ],
    Some(infer_unary_float),
    k::elu,
    vjp = d::elu,
    lower = &Pointwise(l::elu)
);
// PyTorch's hard activations: the values as its kernels compute them
// (`x · min(max(x + 3, 0), 6) / 6`), and its own backward formulas, which
// the chain rule through that expression rounds otherwise (and gives NaN
// where eager's comparisons send a NaN input to the linear branch).
op!(
    "tensor.hardswish",
    "Elementwise x · min(max(x + 3, 0), 6) / 6, with PyTorch's derivative",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::hardswish,
    vjp = d::hardswish,
    lower = &Pointwise(l::hardswish)
);
op!(
    "tensor.hardsigmoid",
    "Elementwise min(max(x + 3, 0), 6) / 6, with PyTorch's derivative",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::hardsigmoid,
    vjp = d::hardsigmoid,
    lower = &Pointwise(l::hardsigmoid)
);
op!(
    ReluOp::NAME,
    "Elementwise max(x, 0)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_signed),
    k::relu,
    vjp = d::relu,
    lower = &Pointwise(l::relu)
);
op!(
    "tensor.erf",
    "Elementwise error function",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_float),
    k::erf,
    vjp = d::erf,
    lower = &Pointwise(l::erf)
);
op!(
    "tensor.sign",
    "Elementwise sign (-1, 0, 1)",
    EW,
    ONE,
    ONE,
    &[],
    Some(infer_unary_signed),
    k::sign,
    vjp = d::constant,
    lower = &Pointwise(l::sign)
);
op!(
    "tensor.gelu",
    "Gaussian error linear unit (exact, or the tanh approximation); the exact one's underflowed negative tail is +0 in f32, bf16 and f16 unless `signed_zero`",
    EW,
    ONE,
    ONE,
    &[AttrSpec::optional("approximate", AttrKind::Str), AttrSpec::optional("signed_zero", AttrKind::Flag)],
    Some(infer_gelu),
    k::gelu,
    vjp = d::gelu,
    lower = &Pointwise(l::gelu)
);
op!(
    ClampOp::NAME,
    "Clamps to [min, max]",
    EW,
    ONE,
    ONE,
    CLAMP_ATTRS,
    Some(infer_clamp),
    k::clamp,
    vjp = d::clamp,
    lower = &Pointwise(l::clamp)
);

inventory::submit! {
    OpDef {
        name: CastOp::NAME,
        summary: "Converts to the result's element type (`x.to(dtype)`)",
        traits: traits(&[Traits::PURE, Traits::ELEMENTWISE, Traits::DIFFERENTIABLE, S]),
        operands: ONE,
        results: ONE,
        verify: Some(verify_cast),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(k::cast), &Vjp(d::cast), &Pointwise(l::cast), &aot_ir::fold::Fold(fold_cast)],
        ..OpDef::DEFAULT
    }
}

/// A cast to the operand's own type is the operand.
fn fold_cast(ctx: &Context, op: Op) -> Option<Value> {
    let x = ctx.operands(op).next()?;
    (ctx.num_results(op) == 1 && ctx.value_type(x) == ctx.result_type(op, 0)).then_some(x)
}

op!(
    SumOp::NAME,
    "Sum over dims (all when empty)",
    PDS,
    ONE,
    ONE,
    REDUCE_ATTRS,
    Some(infer_sum),
    k::sum,
    vjp = d::sum,
    class = OpClass::Reduction,
    export = TensorExport::Reduce(Reduction::Sum),
    lower = &LowerSymbolic(l::sum)
);
op!(
    MeanOp::NAME,
    "Mean over dims (all when empty)",
    PDS,
    ONE,
    ONE,
    REDUCE_ATTRS,
    Some(infer_mean),
    k::mean,
    vjp = d::mean,
    class = OpClass::Reduction,
    export = TensorExport::Reduce(Reduction::Mean),
    lower = &LowerSymbolic(l::mean)
);
op!(
    "tensor.prod",
    "Product over dims (all when empty); integers wrap, i1 and integers give i64",
    PDS,
    ONE,
    ONE,
    REDUCE_ATTRS,
    Some(infer_sum),
    k::prod,
    vjp = d::prod,
    class = OpClass::Reduction,
    lower = &LowerSymbolic(l::prod)
);
op!(
    AmaxOp::NAME,
    "Maximum over dims (all when empty); with `nan_selects`, a NaN result's gradient goes to the NaN elements",
    PDS,
    ONE,
    ONE,
    EXTREMUM_ATTRS,
    Some(infer_amax),
    k::amax,
    vjp = d::amax,
    class = OpClass::Reduction,
    export = TensorExport::Reduce(Reduction::Max),
    lower = &LowerSymbolic(l::amax)
);
op!(
    AminOp::NAME,
    "Minimum over dims (all when empty); with `nan_selects`, a NaN result's gradient goes to the NaN elements",
    PDS,
    ONE,
    ONE,
    EXTREMUM_ATTRS,
    Some(infer_amin),
    k::amin,
    vjp = d::amax,
    class = OpClass::Reduction,
    export = TensorExport::Reduce(Reduction::Min),
    lower = &LowerSymbolic(l::amin)
);
op!(
    "tensor.var",
    "Variance over dims with Bessel-style correction",
    PDS,
    ONE,
    ONE,
    &[
        AttrSpec::optional("dims", AttrKind::I64List),
        AttrSpec::optional("keepdim", AttrKind::Flag),
        AttrSpec::optional("correction", AttrKind::I64)
    ],
    Some(infer_var),
    k::var,
    vjp = d::var,
    class = OpClass::Reduction,
    lower = &LowerSymbolic(l::var)
);
op!(
    "tensor.argmax",
    "Index of the maximum along dim (of the flattened tensor without dim)",
    PS,
    ONE,
    ONE,
    &[AttrSpec::optional("dim", AttrKind::I64), AttrSpec::optional("keepdim", AttrKind::Flag)],
    Some(infer_argmax),
    k::argmax,
    lower = &LowerSymbolic(l::argmax)
);
op!(
    "tensor.cumsum",
    "Running sum along dim (`reverse`: from the end); integers and bools sum in i64",
    PDS,
    ONE,
    ONE,
    CUMSUM_ATTRS,
    Some(infer_cumsum),
    k::cumsum,
    vjp = d::cumsum,
    lower = &LowerSymbolic(l::cumsum)
);
op!(
    "tensor.argsort",
    "Positions that sort each lane along dim, ascending (`descending`: largest first); stable: equal elements keep their order, NaN sorts above every number",
    PS,
    ONE,
    ONE,
    ARGSORT_ATTRS,
    Some(infer_argsort),
    k::argsort,
    lower = &LowerSymbolic(l::argsort)
);
op!(
    "tensor.softmax",
    "Softmax along dim",
    PDS,
    ONE,
    ONE,
    DIM,
    Some(infer_softmax),
    k::softmax,
    vjp = d::softmax,
    export = TensorExport::Softmax { log: false },
    lower = &LowerSymbolic(l::softmax)
);
op!(
    "tensor.log_softmax",
    "Log-softmax along dim",
    PDS,
    ONE,
    ONE,
    DIM,
    Some(infer_softmax),
    k::log_softmax,
    vjp = d::log_softmax,
    export = TensorExport::Softmax { log: true },
    lower = &LowerSymbolic(l::log_softmax)
);
inventory::submit! {
    OpDef {
        name: "tensor.layer_norm",
        summary: "Layer normalization over the last normalized_ndim dims; also returns mean and rstd",
        traits: PDS,
        operands: Arity::Range(1, 3),
        results: THREE,
        attrs: &[AttrSpec::required("normalized_ndim", AttrKind::I64), AttrSpec::optional("eps", AttrKind::F64)],
        infer: Some(infer_layer_norm),
        syntax: Syntax::Functional,
        interfaces: &[
            &Kernel(k::layer_norm),
            &NonDifferentiableResults(&[1, 2]),
            &Vjp(d::layer_norm),
            &TensorExport::LayerNorm,
            &LowerSymbolic(l::layer_norm),
        ],
        ..OpDef::DEFAULT
    }
}
op!(
    MmOp::NAME,
    "2-D matrix product",
    PDS,
    TWO,
    ONE,
    &[],
    Some(infer_mm),
    k::matmul,
    vjp = d::mm,
    class = OpClass::Matmul,
    export = TensorExport::Matmul,
    lower = &LowerSymbolic(l::matmul)
);
op!(
    BmmOp::NAME,
    "Batched 3-D matrix product",
    PDS,
    TWO,
    ONE,
    &[],
    Some(infer_bmm),
    k::matmul,
    vjp = d::mm,
    class = OpClass::Matmul,
    export = TensorExport::Matmul,
    lower = &LowerSymbolic(l::matmul)
);
op!(
    MatmulOp::NAME,
    "torch.matmul (1-D operands, broadcast batch dims)",
    PDS,
    TWO,
    ONE,
    &[],
    Some(infer_matmul),
    k::matmul,
    vjp = d::matmul,
    class = OpClass::Matmul,
    export = TensorExport::Matmul,
    lower = &LowerSymbolic(l::matmul)
);
op!(
    LinearOp::NAME,
    "x @ w.T + b",
    PDS,
    Arity::Range(2, 3),
    ONE,
    &[],
    Some(infer_linear),
    k::linear,
    vjp = d::linear,
    class = OpClass::Matmul,
    export = TensorExport::Linear,
    lower = &LowerSymbolic(l::linear)
);
op!(
    conv::ConvOp::NAME,
    "Convolution with groups, stride, padding and dilation (aten.convolution, not transposed), plus an optional bias",
    PDS,
    Arity::Range(2, 3),
    ONE,
    conv::ATTRS,
    Some(conv::infer_conv),
    conv::kernel_conv,
    vjp = conv::vjp_conv,
    lower = &LowerSymbolic(conv::lower_conv)
);
op!(
    conv::ConvInputGradOp::NAME,
    "The gradient of tensor.conv with respect to its input (a transposed convolution of the output gradient)",
    PDS,
    TWO,
    ONE,
    conv::INPUT_GRAD_ATTRS,
    Some(conv::infer_input_grad),
    conv::kernel_input_grad,
    vjp = conv::vjp_input_grad,
    lower = &LowerSymbolic(conv::lower_input_grad)
);
op!(
    conv::ConvWeightGradOp::NAME,
    "The gradient of tensor.conv with respect to its weight",
    PDS,
    TWO,
    ONE,
    conv::WEIGHT_GRAD_ATTRS,
    Some(conv::infer_weight_grad),
    conv::kernel_weight_grad,
    vjp = conv::vjp_weight_grad,
    lower = &LowerSymbolic(conv::lower_weight_grad)
);
inventory::submit! {
    OpDef {
        name: attention::AttentionOp::NAME,
        summary: "Scaled dot-product attention (softmax(scale·q·kᵀ + mask)·v, optionally causal) and each row's log-sum-exp",
        traits: PDS,
        operands: Arity::Range(3, 4),
        results: TWO,
        attrs: attention::ATTRS,
        infer: Some(attention::infer_attention),
        syntax: Syntax::Functional,
        interfaces: &[
            &Kernel(attention::kernel_attention),
            &NonDifferentiableResults(&[1]),
            &Vjp(attention::vjp_attention),
            &LowerSymbolic(attention::lower_attention),
        ],
        ..OpDef::DEFAULT
    }
}
inventory::submit! {
    OpDef {
        name: attention::AttentionGradOp::NAME,
        summary: "The gradients of tensor.attention with respect to q, k and v, from the output gradient, the output and the log-sum-exp",
        traits: PS,
        operands: Arity::Range(6, 7),
        results: THREE,
        attrs: attention::ATTRS,
        infer: Some(attention::infer_attention_grad),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(attention::kernel_attention_grad), &LowerSymbolic(attention::lower_attention_grad)],
        ..OpDef::DEFAULT
    }
}
inventory::submit! {
    OpDef {
        name: pool::MaxPoolOp::NAME,
        summary: "Max pooling (aten.max_pool*d_with_indices): each window's largest element and its flat index in the input's plane",
        traits: PDS,
        operands: ONE,
        results: TWO,
        attrs: pool::MAX_ATTRS,
        infer: Some(pool::infer_max_pool),
        syntax: Syntax::Functional,
        interfaces: &[
            &Kernel(pool::kernel_max_pool),
            &NonDifferentiableResults(&[1]),
            &Vjp(pool::vjp_max_pool),
            &LowerSymbolic(pool::lower_max_pool),
        ],
        ..OpDef::DEFAULT
    }
}
op!(
    pool::MaxPoolGradOp::NAME,
    "The gradient of tensor.max_pool: the output gradient added at each window's index, per plane",
    PDS,
    TWO,
    ONE,
    pool::MAX_GRAD_ATTRS,
    Some(pool::infer_max_pool_grad),
    pool::kernel_max_pool_grad,
    vjp = pool::vjp_max_pool_grad,
    lower = &LowerSymbolic(pool::lower_max_pool_grad)
);
op!(
    pool::AvgPoolOp::NAME,
    "Average pooling (aten.avg_pool*d) with PyTorch's divisors",
    PDS,
    ONE,
    ONE,
    pool::AVG_ATTRS,
    Some(pool::infer_avg_pool),
    pool::kernel_avg_pool,
    vjp = pool::vjp_avg_pool,
    lower = &LowerSymbolic(pool::lower_avg_pool)
);
op!(
    pool::AvgPoolGradOp::NAME,
    "The gradient of tensor.avg_pool: each output's gradient shared over its window",
    PDS,
    ONE,
    ONE,
    pool::AVG_GRAD_ATTRS,
    Some(pool::infer_avg_pool_grad),
    pool::kernel_avg_pool_grad,
    vjp = pool::vjp_avg_pool_grad,
    lower = &LowerSymbolic(pool::lower_avg_pool_grad)
);
op!(
    "tensor.embedding",
    "Rows of weight selected by indices",
    PDS,
    TWO,
    ONE,
    &[],
    Some(infer_embedding),
    k::embedding,
    vjp = d::embedding,
    lower = &LowerSymbolic(l::embedding)
);
op!(
    "tensor.gather",
    "Gathers values along dim by index",
    PDS,
    TWO,
    ONE,
    DIM,
    Some(infer_gather),
    k::gather,
    vjp = d::gather,
    class = OpClass::Cheap,
    lower = &LowerSymbolic(l::gather)
);
op!(
    "tensor.index_select",
    "Selects entries along dim by a 1-D index",
    PDS,
    TWO,
    ONE,
    DIM,
    Some(infer_index_select),
    k::index_select,
    vjp = d::index_select,
    class = OpClass::Cheap,
    lower = &LowerSymbolic(l::index_select)
);
op!(
    "tensor.scatter_add",
    "Adds src into a copy of x at index along dim",
    PDS,
    THREE,
    ONE,
    DIM,
    Some(infer_scatter_add),
    k::scatter_add,
    vjp = d::scatter_add,
    lower = &LowerSymbolic(l::scatter_add)
);
op!(
    IndexPutOp::NAME,
    "x with rows at index replaced by values (or accumulated): the functional mut.index_put_",
    PDS,
    THREE,
    ONE,
    &[AttrSpec::optional("accumulate", AttrKind::Flag)],
    Some(infer_index_put),
    k::index_put,
    vjp = d::index_put,
    lower = &LowerSymbolic(l::index_put)
);
op!(
    CatOp::NAME,
    "Concatenates along dim",
    PDS,
    Arity::AtLeast(1),
    ONE,
    DIM,
    Some(infer_cat),
    k::cat,
    vjp = d::cat,
    export = TensorExport::Concat,
    lower = &LowerSymbolic(l::cat)
);
/// The name of `tensor.clone`, the op that snapshots a value (passes and
/// backends build it to materialize a view or protect a read).
pub const CLONE: &str = CloneOp::NAME;

op!(
    CloneOp::NAME,
    "A fresh contiguous copy",
    PDS,
    ONE,
    ONE,
    &[],
    Some(infer_unary),
    k::clone,
    vjp = d::clone,
    class = OpClass::Cheap,
    export = TensorExport::Identity,
    lower = &Pointwise(l::clone)
);

/// `overwrite(dst, src)` is `src` (of `dst`'s shape and type): the
/// functional form of a `copy_` that autograd records over a destination
/// whose history requires grad. That history keeps a zero gradient, as
/// eager's CopyBackwards gives it (`zeros_like(grad)`, a tensor its
/// derivatives then multiply: a NaN or an infinity there propagates),
/// where dropping the overwritten value would leave it none.
fn infer_overwrite(ic: &InferCtx<'_>) -> InferResult {
    let (d, s) = (operand_tensor(ic, 0)?, operand_tensor(ic, 1)?);
    if d != s {
        return Err(format!("the source ({s}) must have the destination's shape and type ({d})"));
    }
    one(d.shape.clone(), d.elem)
}

op!(
    OverwriteOp::NAME,
    "The second operand, with a zero gradient for the first: the functional copy_ autograd records over a history (eager's CopyBackwards)",
    EW,
    TWO,
    ONE,
    &[],
    Some(infer_overwrite),
    k::overwrite,
    vjp = d::overwrite,
    lower = &Pointwise(l::overwrite)
);

inventory::submit! {
    OpDef {
        name: FullOp::NAME,
        summary: "A tensor of the result type filled with value",
        traits: PS,
        results: ONE,
        attrs: &[AttrSpec::required("value", AttrKind::F64)],
        verify: Some(verify_full),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(k::full), &TensorExport::Splat, &LowerSymbolic(l::full)],
        ..OpDef::DEFAULT
    }
}

// A size as a value: what a derivative of a reduction over a symbolic
// dimension scales by (`mean`'s `1/n`), as a 0-d tensor the call computes.
// With a static size it is a constant, and folds to one.
aot_ir::op_handle!(pub SizeValueOp = "tensor.size_value");

fn verify_size_value(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_result_only(ctx, op)?;
    let r = ctx.value_tensor(ctx.result(op, 0)).expect("checked");
    if r.rank() != 0 || r.elem.is_bool() {
        return Err(Diagnostic::op_error(ctx, op, format!("the result must be a 0-d number, got {r}")));
    }
    let size = ctx.attr_i64_list(op, "size").unwrap_or_default();
    if size.len() != 1 {
        return Err(Diagnostic::op_error(ctx, op, "'size' must hold exactly one size"));
    }
    if size[0] < 0 && !aot_ir::sym::is_symbolic(size[0]) {
        return Err(Diagnostic::op_error(ctx, op, format!("size {} is negative", size[0])));
    }
    if ctx.get_attr(op, "numerator").is_some() && !r.elem.is_float() {
        return Err(Diagnostic::op_error(ctx, op, "a ratio ('numerator') needs a float result"));
    }
    Ok(())
}

inventory::submit! {
    OpDef {
        name: SizeValueOp::NAME,
        summary: "A 0-d tensor holding a size (symbolic sizes evaluated per call), or numerator / size",
        traits: PS,
        results: ONE,
        attrs: &[AttrSpec::required("size", AttrKind::I64List), AttrSpec::optional("numerator", AttrKind::F64)],
        verify: Some(verify_size_value),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(k::size_value), &LowerSymbolic(l::size_value)],
        ..OpDef::DEFAULT
    }
}

/// The value `tensor.size_value` holds for size `n` (the numerator, when
/// given, divided by `n` in f64, then rounded to the result type).
pub fn size_value_of(n: i64, numerator: Option<f64>) -> f64 {
    match numerator {
        Some(x) => x / n as f64,
        None => n as f64,
    }
}

// The functional form of `fill_`/`zero_` where autograd records them
// (PyTorch's `aten.fill`/`aten.zero`, which AOTAutograd's functionalization
// emits): the value is `tensor.full`'s, but the operand keeps the history,
// so a gradient reaches what the destination depended on, as zeros (eager's
// FillBackward/ZeroBackward), where `tensor.full` would leave it none.
inventory::submit! {
    OpDef {
        name: FillOp::NAME,
        summary: "The operand's shape and type, every element value; differentiable, with a zero gradient for the operand (a functional fill_/zero_ autograd records)",
        traits: PDS,
        operands: ONE,
        results: ONE,
        attrs: &[AttrSpec::required("value", AttrKind::F64)],
        infer: Some(infer_unary),
        verify: Some(verify_full),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(k::full), &Vjp(d::constant), &LowerSymbolic(l::full)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "tensor.arange",
        summary: "start, start + step, ... (as many as the 1-D result holds)",
        traits: PS,
        results: ONE,
        attrs: &[AttrSpec::optional("start", AttrKind::F64), AttrSpec::optional("step", AttrKind::F64)],
        verify: Some(verify_arange),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(k::arange), &LowerSymbolic(l::arange)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: ConstantOp::NAME,
        summary: "A tensor with the given dense contents",
        traits: PS,
        operands: NONE,
        results: ONE,
        attrs: &[AttrSpec::required("value", AttrKind::Dense)],
        infer: Some(infer_constant),
        syntax: Syntax::Custom { parse: parse_constant, print: print_constant },
        interfaces: &[&Kernel(k::constant), &TensorExport::Dense, &LowerSymbolic(l::constant)],
        ..OpDef::DEFAULT
    }
}
