//! Shape rules shared by the tensor-level dialects: broadcasting,
//! dimension normalisation, and the small checks every verifier repeats.
//! Errors are plain strings; the caller turns them into located diagnostics.

use aot_ir::{ElemType, InferCtx, NamedAttr, TensorType, TypeData};
use smallvec::SmallVec;

pub type InferResult = Result<SmallVec<[TypeData; 1]>, String>;

pub use aot_runtime::kernel_util::{broadcast_shapes as broadcast, fmt_shape};

/// Can `from` broadcast to exactly `to`?
pub fn broadcasts_to(from: &[i64], to: &[i64]) -> bool {
    from.len() <= to.len() && broadcast(from, to).is_ok_and(|s| s[..] == to[..])
}

/// Normalises a possibly negative `dim` for a tensor of rank `rank`
/// (`rank_extra` widens the range, e.g. 1 for `unsqueeze`).
pub fn norm_dim(dim: i64, rank: usize, rank_extra: usize) -> Result<usize, String> {
    let r = (rank + rank_extra) as i64;
    let lo = -(r.max(1));
    let hi = r.max(1) - 1;
    if dim < lo || dim > hi {
        return Err(format!("dimension {dim} is out of range for a tensor of rank {rank} (expected [{lo}, {hi}])"));
    }
    Ok(if dim < 0 { (dim + r.max(1)) as usize } else { dim as usize })
}

/// The tensor type of operand `i`.
pub fn operand_tensor<'a>(ic: &'a InferCtx<'_>, i: usize) -> Result<&'a TensorType, String> {
    let t = *ic.operand_types.get(i).ok_or_else(|| format!("missing operand #{i}"))?;
    ic.ctx.as_tensor(t).ok_or_else(|| format!("operand #{i} must be a tensor"))
}

/// Looks up attribute `name` in an (unsorted or sorted) attribute list.
pub fn find_attr(ic: &InferCtx<'_>, name: &str) -> Option<aot_ir::Attribute> {
    let s = ic.ctx.lookup_sym(name)?;
    ic.attrs.iter().find(|a: &&NamedAttr| a.name == s).map(|a| a.value)
}

pub fn attr_i64(ic: &InferCtx<'_>, name: &str) -> Result<i64, String> {
    find_attr(ic, name)
        .and_then(|a| ic.ctx.attr_as_i64(a))
        .ok_or_else(|| format!("requires integer attribute '{name}'"))
}

pub fn attr_i64_or(ic: &InferCtx<'_>, name: &str, default: i64) -> Result<i64, String> {
    match find_attr(ic, name) {
        None => Ok(default),
        Some(a) => ic.ctx.attr_as_i64(a).ok_or_else(|| format!("attribute '{name}' must be an integer")),
    }
}

pub fn attr_f64_opt(ic: &InferCtx<'_>, name: &str) -> Result<Option<f64>, String> {
    match find_attr(ic, name) {
        None => Ok(None),
        Some(a) => ic.ctx.attr_as_f64(a).map(Some).ok_or_else(|| format!("attribute '{name}' must be a number")),
    }
}

pub fn attr_list(ic: &InferCtx<'_>, name: &str) -> Result<Vec<i64>, String> {
    find_attr(ic, name)
        .and_then(|a| ic.ctx.attr_as_i64_list(a))
        .ok_or_else(|| format!("requires integer list attribute '{name}'"))
}

pub fn attr_list_or_empty(ic: &InferCtx<'_>, name: &str) -> Result<Vec<i64>, String> {
    match find_attr(ic, name) {
        None => Ok(Vec::new()),
        Some(a) => ic.ctx.attr_as_i64_list(a).ok_or_else(|| format!("attribute '{name}' must be a list of integers")),
    }
}

pub fn attr_flag(ic: &InferCtx<'_>, name: &str) -> bool {
    find_attr(ic, name).and_then(|a| ic.ctx.attr_as_flag(a)).unwrap_or(false)
}

pub fn attr_str<'a>(ic: &'a InferCtx<'_>, name: &str) -> Option<&'a str> {
    find_attr(ic, name).and_then(|a| ic.ctx.attr_as_str(a))
}

/// One tensor result.
pub fn one(shape: impl AsRef<[i64]>, elem: ElemType) -> InferResult {
    Ok(smallvec::smallvec![TypeData::Tensor(TensorType::new(shape.as_ref(), elem))])
}

/// Every operand is a tensor of the same element type; returns it.
pub fn same_elem(ic: &InferCtx<'_>) -> Result<ElemType, String> {
    let mut elem = None;
    for i in 0..ic.operand_types.len() {
        let t = operand_tensor(ic, i)?;
        match elem {
            None => elem = Some(t.elem),
            Some(e) if e != t.elem => {
                return Err(format!("requires the same element type for all operands, got {e} and {}", t.elem))
            }
            _ => {}
        }
    }
    elem.ok_or_else(|| "requires at least one operand".to_string())
}

pub fn require_float(e: ElemType, what: &str) -> Result<(), String> {
    if e.is_float() {
        Ok(())
    } else {
        Err(format!("{what} requires a floating point element type, got {e}"))
    }
}

pub fn numel(shape: &[i64]) -> i64 {
    shape.iter().product()
}
