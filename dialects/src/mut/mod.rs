//! The `mut` dialect: in-place ops (reference semantics only).
//!
//! Data mutations have no result: they write into their first operand's
//! storage through its strides, so every alias sees the write. Metadata
//! mutations change their first operand's sizes/strides/offset (or storage,
//! for `set_`) and return the same object as a new SSA value; the operand
//! value is dead afterwards, which the verifier enforces. The metadata rules
//! are the `view` dialect's layout rules applied in place.
//!
//! [`InPlaceInterface`] names the pure op each data mutation computes, which
//! is what `functionalize` rewrites it to. An op whose inputs may not overlap
//! its destination at all (PyTorch's `assert_no_overlap`, as `index_put_`)
//! declares `AssertNoOverlap`; the others reject only a partial overlap.

pub mod kernels;
pub mod lowering;

use crate::lowering::LowerSymbolic;
use crate::shape::*;
use crate::view::{rules, Layout, LayoutFn};
use aot_ir::*;
use aot_runtime::interp::{AllowsInternalOverlap, AssertNoOverlap, RefusesRequiresGrad, ReplacesData};
use aot_runtime::Kernel;

/// Builds, in value semantics, the value a data mutation writes into its
/// first operand, from the current values of its operands.
pub type NewValueFn = fn(&mut Rewriter<'_>, Op, &[Value]) -> Result<Value, Diagnostic>;

/// For a data mutation: the `tensor` op computing the new value, when there
/// is one (`mut.add_(x, y)` writes `tensor.add(x, y)` into x), and how to
/// build the new value in general (`copy_` broadcasts and converts, `fill_`
/// builds a constant, ...). This is what `functionalize` rewrites it to.
pub struct InPlaceInterface {
    pub functional: Option<OpRef>,
    pub new_value: NewValueFn,
}

/// What a metadata mutation does to its operand.
#[derive(Copy, Clone)]
pub enum MetadataKind {
    /// Applies a view's layout rule in place (`t_` is `view.t` in place).
    Relayout { layout: LayoutFn, view: OpRef },
    /// `resize_`: contiguous with the new sizes (`resize_layout`); the
    /// storage grows if needed.
    Resize,
    /// `set_`: takes the second operand's storage and metadata.
    Set,
}

/// `resize_`'s layout rule: contiguous with the new sizes at the same
/// offset, except that resizing to the current sizes keeps the strides
/// (PyTorch returns early).
pub fn resize_layout(old: &Layout, size: &[i64]) -> Layout {
    if old.sizes[..] == size[..] {
        return old.clone();
    }
    Layout { sizes: size.into(), strides: crate::view::contiguous_strides(size), offset: old.offset }
}

pub struct MetadataMutationInterface {
    pub kind: MetadataKind,
}

/// `(name, attribute)` pairs of an op, for rebuilding it under another name.
fn attrs_of<'a>(rw: &'a Rewriter<'_>, op: Op) -> Vec<(&'a str, Attribute)> {
    rw.attrs(op).iter().map(|a| (rw.sym_str(a.name), a.value)).collect()
}

/// The functional op with the same operands and attributes.
fn functional_value(rw: &mut Rewriter<'_>, op: Op, vals: &[Value]) -> Result<Value, Diagnostic> {
    let name = rw
        .op_def(op)
        .and_then(|d| d.interface::<InPlaceInterface>())
        .and_then(|i| i.functional)
        .ok_or_else(|| Diagnostic::op_error(rw.ctx(), op, "has no functional counterpart"))?;
    let attrs: Vec<(String, Attribute)> = attrs_of(rw, op).into_iter().map(|(n, a)| (n.to_string(), a)).collect();
    let attrs: Vec<(&str, Attribute)> = attrs.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    name.build1(rw, vals, &attrs)
}

/// Copies the dialect-prefixed attributes of `from` (e.g. `aot.no_grad`)
/// onto the op defining `v`, when that op was just built.
fn inherit_discardable(rw: &mut Rewriter<'_>, from: Op, v: Value) {
    let Some(def) = rw.defining_op(v) else { return };
    let extra: Vec<NamedAttr> = rw.attrs(from).iter().copied().filter(|a| rw.sym_str(a.name).contains('.')).collect();
    for a in extra {
        let name = rw.sym_str(a.name).to_string();
        rw.set_attr(def, &name, a.value);
    }
}

/// `copy_`: the source broadcast to the destination's shape and converted to its type.
fn copy_value(rw: &mut Rewriter<'_>, op: Op, vals: &[Value]) -> Result<Value, Diagnostic> {
    let (dst_t, src_t) = (rw.value_type(vals[0]), rw.value_type(vals[1]));
    let dst = rw.as_tensor(dst_t).cloned().ok_or_else(|| Diagnostic::op_error(rw.ctx(), op, "needs tensors"))?;
    let src = rw.as_tensor(src_t).cloned().ok_or_else(|| Diagnostic::op_error(rw.ctx(), op, "needs tensors"))?;
    let mut v = vals[1];
    if src.shape != dst.shape {
        let s = rw.i64_list_attr(&dst.shape);
        v = crate::view::ExpandOp::build1(rw, &[v], &[("shape", s)])?;
        inherit_discardable(rw, op, v);
    }
    if src.elem != dst.elem {
        v = crate::tensor::CastOp::build_typed1(rw, &[v], &[], dst_t);
        inherit_discardable(rw, op, v);
    }
    Ok(v)
}

/// `fill_`/`zero_`: the value everywhere. Where autograd records the write
/// (no `aot.no_grad`), the new value keeps the destination as operand
/// (`tensor.fill`): eager's FillBackward/ZeroBackward keep its history, so
/// what it depended on gets a zero gradient, not none.
fn fill_value(rw: &mut Rewriter<'_>, op: Op, vals: &[Value]) -> Result<Value, Diagnostic> {
    let v = rw.attr_f64(op, "value").unwrap_or(0.0);
    let a = rw.f64_attr(v);
    let t = rw.value_type(vals[0]);
    let v = if rw.has_attr(op, aot_runtime::interp::NO_GRAD) {
        crate::tensor::FullOp::build_typed1(rw, &[], &[("value", a)], t)
    } else {
        crate::tensor::FillOp::build_typed1(rw, &[vals[0]], &[("value", a)], t)
    };
    inherit_discardable(rw, op, v);
    Ok(v)
}

fn index_put_value(rw: &mut Rewriter<'_>, op: Op, vals: &[Value]) -> Result<Value, Diagnostic> {
    let attrs: Vec<(String, Attribute)> = attrs_of(rw, op).into_iter().map(|(n, a)| (n.to_string(), a)).collect();
    let attrs: Vec<(&str, Attribute)> = attrs.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    crate::tensor::IndexPutOp::build1(rw, vals, &attrs)
}

fn no_results() -> InferResult {
    Ok(smallvec::SmallVec::new())
}

fn check_broadcasts_into(src: &TensorType, dst: &TensorType) -> Result<(), String> {
    if broadcasts_to(&src.shape, &dst.shape) {
        Ok(())
    } else {
        Err(format!("{src} cannot be broadcast to the destination's shape {}", fmt_shape(&dst.shape)))
    }
}

fn infer_copy(ic: &InferCtx<'_>) -> InferResult {
    let dst = operand_tensor(ic, 0)?;
    let src = operand_tensor(ic, 1)?;
    check_broadcasts_into(src, dst)?;
    no_results()
}

fn infer_binary_inplace(ic: &InferCtx<'_>) -> InferResult {
    let e = same_elem(ic)?;
    if e.is_bool() {
        return Err("does not support i1 operands".into());
    }
    check_broadcasts_into(operand_tensor(ic, 1)?, operand_tensor(ic, 0)?)?;
    no_results()
}

fn infer_div_inplace(ic: &InferCtx<'_>) -> InferResult {
    require_float(same_elem(ic)?, "div_")?;
    infer_binary_inplace(ic)
}

fn infer_mul_inplace(ic: &InferCtx<'_>) -> InferResult {
    same_elem(ic)?;
    check_broadcasts_into(operand_tensor(ic, 1)?, operand_tensor(ic, 0)?)?;
    no_results()
}

fn infer_fill(ic: &InferCtx<'_>) -> InferResult {
    operand_tensor(ic, 0)?;
    no_results()
}

fn infer_unary_inplace(ic: &InferCtx<'_>) -> InferResult {
    let t = operand_tensor(ic, 0)?;
    if t.elem.is_bool() {
        return Err("does not support i1 operands".into());
    }
    no_results()
}

fn infer_unary_float_inplace(ic: &InferCtx<'_>) -> InferResult {
    require_float(operand_tensor(ic, 0)?.elem, "this op")?;
    no_results()
}

fn infer_clamp_inplace(ic: &InferCtx<'_>) -> InferResult {
    if attr_f64_opt(ic, "min")?.is_none() && attr_f64_opt(ic, "max")?.is_none() {
        return Err("requires at least one of 'min' and 'max'".into());
    }
    infer_unary_inplace(ic)
}

fn infer_index_put(ic: &InferCtx<'_>) -> InferResult {
    crate::tensor::index_put_operands(ic)?;
    no_results()
}

fn infer_meta(ic: &InferCtx<'_>, layout: LayoutFn) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    let l = layout(&ic.attr_view(), &crate::view::Layout::contiguous(&x.shape))?;
    one(&l[0].sizes, x.elem)
}

fn infer_t(ic: &InferCtx<'_>) -> InferResult {
    infer_meta(ic, rules::t)
}
fn infer_transpose(ic: &InferCtx<'_>) -> InferResult {
    infer_meta(ic, rules::transpose)
}
fn infer_squeeze(ic: &InferCtx<'_>) -> InferResult {
    infer_meta(ic, rules::squeeze)
}
fn infer_unsqueeze(ic: &InferCtx<'_>) -> InferResult {
    infer_meta(ic, rules::unsqueeze)
}
fn infer_as_strided(ic: &InferCtx<'_>) -> InferResult {
    infer_meta(ic, rules::as_strided)
}

fn infer_resize(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    let size = attr_list(ic, "size")?;
    if size.iter().any(|&s| s < 0) {
        return Err(format!("sizes must be non-negative, got {}", fmt_shape(&size)));
    }
    one(size, x.elem)
}

fn infer_set(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    let src = operand_tensor(ic, 1)?;
    if x.elem != src.elem {
        return Err(format!("set_ requires the same element type, got {} and {}", x.elem, src.elem));
    }
    one(src.shape.clone(), src.elem)
}

/// After a metadata mutation the operand value denotes a stale view of the
/// object: no op after this one may use it.
fn verify_operand_dead_after(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let v = ctx.operand(op, 0);
    let Some(block) = ctx.op_block(op) else { return Ok(()) };
    let mut later = std::collections::HashSet::new();
    let mut cur = ctx.next_op(op);
    while let Some(o) = cur {
        ctx.walk_pre(o, &mut |x| {
            later.insert(x);
        });
        cur = ctx.next_op(o);
    }
    let _ = block;
    for u in ctx.uses(v) {
        if later.contains(&u.op) {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                "changes the metadata of its operand, which is used afterwards; later ops must use the result",
            )
            .with_note(ctx.op_loc(u.op), "later use here"));
        }
    }
    Ok(())
}

// Every data mutation handles symbolic sizes (`aot_ir::sym`): their rules
// only broadcast; metadata mutations say so one by one (`META_S`).
const INPLACE: Traits = Traits::INPLACE.union(Traits::SYMBOLIC_SHAPES);
const META: Traits = Traits::METADATA_MUTATION;
const META_S: Traits = META.union(Traits::SYMBOLIC_SHAPES);
const ONE: Arity = Arity::Exact(1);
const TWO: Arity = Arity::Exact(2);
const NONE: Arity = Arity::Exact(0);
const CLAMP: &[AttrSpec] = &[AttrSpec::optional("min", AttrKind::F64), AttrSpec::optional("max", AttrKind::F64)];

// Typed handles of the ops other layers build or test for.
aot_ir::op_handle!(pub CopyOp = "mut.copy_");
aot_ir::op_handle!(pub SetOp = "mut.set_");
aot_ir::op_handle!(pub ResizeOp = "mut.resize_");
aot_ir::op_handle!(pub AsStridedOp = "mut.as_strided_");

macro_rules! data_op {
    ($name:expr, $summary:literal, $operands:expr, $attrs:expr, $infer:expr, $functional:expr, $new_value:expr, $kernel:expr $(, $extra:expr)*) => {
        inventory::submit! {
            OpDef {
                name: $name,
                summary: $summary,
                traits: INPLACE,
                operands: $operands,
                results: NONE,
                attrs: $attrs,
                infer: Some($infer),
                syntax: Syntax::Functional,
                interfaces: &[&InPlaceInterface { functional: $functional, new_value: $new_value }, &Kernel($kernel) $(, $extra)*],
                ..OpDef::DEFAULT
            }
        }
    };
}

data_op!(
    CopyOp::NAME,
    "Copies src (broadcast, converted) into dst",
    TWO,
    &[],
    infer_copy,
    None,
    copy_value,
    kernels::copy_,
    &LowerSymbolic(lowering::copy_)
);
data_op!(
    "mut.add_",
    "x += y",
    TWO,
    &[],
    infer_binary_inplace,
    Some(OpRef::of::<crate::tensor::AddOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.sub_",
    "x -= y",
    TWO,
    &[],
    infer_binary_inplace,
    Some(OpRef::of::<crate::tensor::SubOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.mul_",
    "x *= y",
    TWO,
    &[],
    infer_mul_inplace,
    Some(OpRef::of::<crate::tensor::MulOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.div_",
    "x /= y",
    TWO,
    &[],
    infer_div_inplace,
    Some(OpRef::of::<crate::tensor::DivOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.fill_",
    "Sets every element to value",
    ONE,
    &[AttrSpec::required("value", AttrKind::F64)],
    infer_fill,
    None,
    fill_value,
    kernels::fill_,
    &AllowsInternalOverlap
);
data_op!(
    "mut.zero_",
    "Sets every element to zero",
    ONE,
    &[],
    infer_fill,
    None,
    fill_value,
    kernels::zero_,
    &AllowsInternalOverlap
);
data_op!(
    "mut.relu_",
    "x = relu(x)",
    ONE,
    &[],
    infer_unary_inplace,
    Some(OpRef::of::<crate::tensor::ReluOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.neg_",
    "x = -x",
    ONE,
    &[],
    infer_unary_inplace,
    Some(OpRef::of::<crate::tensor::NegOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.exp_",
    "x = exp(x)",
    ONE,
    &[],
    infer_unary_float_inplace,
    Some(OpRef::of::<crate::tensor::ExpOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.sigmoid_",
    "x = sigmoid(x)",
    ONE,
    &[],
    infer_unary_float_inplace,
    Some(OpRef::of::<crate::tensor::SigmoidOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.tanh_",
    "x = tanh(x)",
    ONE,
    &[],
    infer_unary_float_inplace,
    Some(OpRef::of::<crate::tensor::TanhOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.clamp_",
    "x = clamp(x, min, max)",
    ONE,
    CLAMP,
    infer_clamp_inplace,
    Some(OpRef::of::<crate::tensor::ClampOp>()),
    functional_value,
    kernels::via_functional
);
data_op!(
    "mut.index_put_",
    "x[index] = values (or += with accumulate)",
    Arity::Exact(3),
    &[AttrSpec::optional("accumulate", AttrKind::Flag)],
    infer_index_put,
    Some(OpRef::of::<crate::tensor::IndexPutOp>()),
    index_put_value,
    kernels::index_put_,
    // PyTorch's `index_put_` checks its values with `assert_no_overlap`:
    // values that are the destination itself are an error too.
    &AssertNoOverlap
);

macro_rules! meta_op {
    ($name:expr, $summary:literal, $traits:expr, $operands:expr, $attrs:expr, $infer:expr, $kind:expr, $kernel:expr $(, $extra:expr)*) => {
        inventory::submit! {
            OpDef {
                name: $name,
                summary: $summary,
                traits: $traits,
                operands: $operands,
                results: ONE,
                attrs: $attrs,
                infer: Some($infer),
                verify: Some(verify_operand_dead_after),
                syntax: Syntax::Functional,
                interfaces: &[&MetadataMutationInterface { kind: $kind }, &Kernel($kernel) $(, $extra)*],
                ..OpDef::DEFAULT
            }
        }
    };
}

meta_op!(
    "mut.t_",
    "Transposes in place (rank <= 2)",
    META_S,
    ONE,
    &[],
    infer_t,
    MetadataKind::Relayout { layout: rules::t, view: OpRef::of::<crate::view::TOp>() },
    kernels::relayout_
);
meta_op!(
    "mut.transpose_",
    "Swaps two dimensions in place",
    META_S,
    ONE,
    &[AttrSpec::required("dim0", AttrKind::I64), AttrSpec::required("dim1", AttrKind::I64)],
    infer_transpose,
    MetadataKind::Relayout { layout: rules::transpose, view: OpRef::of::<crate::view::TransposeOp>() },
    kernels::relayout_
);
meta_op!(
    "mut.squeeze_",
    "Removes size-1 dimensions in place",
    META_S,
    ONE,
    &[AttrSpec::optional("dim", AttrKind::I64)],
    infer_squeeze,
    MetadataKind::Relayout { layout: rules::squeeze, view: OpRef::of::<crate::view::SqueezeOp>() },
    kernels::relayout_
);
meta_op!(
    "mut.unsqueeze_",
    "Inserts a size-1 dimension in place",
    META_S,
    ONE,
    &[AttrSpec::required("dim", AttrKind::I64)],
    infer_unsqueeze,
    MetadataKind::Relayout { layout: rules::unsqueeze, view: OpRef::of::<crate::view::UnsqueezeOp>() },
    kernels::relayout_
);
meta_op!(
    AsStridedOp::NAME,
    "Sets sizes, strides and storage offset in place",
    META_S,
    ONE,
    &[
        AttrSpec::required("size", AttrKind::I64List),
        AttrSpec::required("stride", AttrKind::I64List),
        AttrSpec::optional("offset", AttrKind::I64)
    ],
    infer_as_strided,
    MetadataKind::Relayout { layout: rules::as_strided, view: OpRef::of::<crate::view::AsStridedOp>() },
    kernels::relayout_
);
meta_op!(
    ResizeOp::NAME,
    "Resizes in place (contiguous; the storage grows when needed)",
    META,
    ONE,
    &[AttrSpec::required("size", AttrKind::I64List)],
    infer_resize,
    MetadataKind::Resize,
    kernels::resize_,
    &RefusesRequiresGrad("cannot resize variables that require grad")
);
meta_op!(
    SetOp::NAME,
    "Makes x use src's storage and metadata",
    META_S,
    TWO,
    &[],
    infer_set,
    MetadataKind::Set,
    kernels::set_,
    // x takes other data: autograd counts it as a data mutation.
    &ReplacesData
);
