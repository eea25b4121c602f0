//! The `view` dialect: ops whose results alias their operand, and the
//! scatter ops that invert them.
//!
//! Under reference semantics a view result shares its operand's storage; its
//! layout (sizes, strides, storage offset) is a function of the operand's
//! layout and the op's attributes. That function, [`ViewInterface::layout`],
//! is the single definition of each view: the interpreter kernels, shape
//! inference, the metadata mutations of the `mut` dialect, functionalization
//! (view replay) and codegen (index arithmetic) all call it.
//!
//! Scatter ops (`slice_scatter`, ...) are pure: a copy of `base` with the
//! region the matching view would select replaced by `src`.

pub mod derivatives;
mod folds;
pub mod kernels;
pub mod lowering;

use crate::autodiff::Vjp;
use crate::export::TensorExport;
use crate::lowering::LowerSymbolic;
use crate::shape::*;
use aot_ir::effects::MemoryEffects;
use aot_ir::fold::{Canonicalization, Fold};
use aot_ir::*;
use aot_runtime::interp::Detaches;
use aot_runtime::Kernel;
use smallvec::{smallvec, SmallVec};

/// A strided layout: what a view computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub sizes: Shape,
    pub strides: Shape,
    pub offset: i64,
}

impl Layout {
    /// Whether a size, stride or the offset is symbolic (`aot_ir::sym`): a
    /// compile-time layout, whose rules compute with expressions and which
    /// analyses that visit elements one by one decline.
    pub fn is_symbolic(&self) -> bool {
        !aot_ir::sym::layout_is_static(&self.sizes, &self.strides, self.offset)
    }

    /// The contiguous layout of `shape` at offset 0.
    pub fn contiguous(shape: &[i64]) -> Layout {
        Layout { sizes: shape.into(), strides: contiguous_strides(shape), offset: 0 }
    }
}

pub use aot_runtime::tensor::contiguous_strides;

/// How a view op maps its operand's layout to its results' layouts.
pub type LayoutFn = fn(&AttrView<'_>, &Layout) -> Result<SmallVec<[Layout; 1]>, String>;

/// How a write through a view goes back to its operand (in value
/// semantics): the new operand value given the old one and the view's new value.
#[derive(Copy, Clone)]
pub enum Inverse {
    /// The view selects a region: the scatter op with the same attributes.
    Scatter(OpRef),
    /// The view rearranges all elements in order (`view`, `reshape`,
    /// `squeeze`, `unsqueeze`): reshape back.
    Reshape,
    /// The view is its own inverse with the same attributes (`transpose`, `t`).
    SelfInverse,
    /// `permute`: the inverse permutation.
    Permute,
    /// `alias`, `detach`.
    Identity,
    /// Several elements of the view share one operand element (`expand`).
    ReadOnly,
}

/// A view op given by name and integer attributes.
pub type SingleView = (OpRef, Vec<(&'static str, i64)>);

/// For multi-result views: the single-result view that gives result `k`
/// (`unbind` → `select`, `split` → `slice`).
pub type SingleResultFn = fn(&AttrView<'_>, usize, &[i64]) -> Result<SingleView, String>;

/// The view interface.
pub struct ViewInterface {
    pub layout: LayoutFn,
    pub inverse: Inverse,
    pub single_result: Option<SingleResultFn>,
}

/// The layouts of `op`'s results given its operand's layout (symbolic
/// sizes kept as expressions).
pub fn view_layouts(ctx: &Context, op: Op, input: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let def = ctx.op_def(op).ok_or("unregistered op")?;
    let vi = def.interface::<ViewInterface>().ok_or_else(|| format!("'{}' is not a view op", def.name))?;
    (vi.layout)(&AttrView::of_op(ctx, op), input)
}

/// [`view_layouts`] in a call whose symbols have the values `syms`.
pub fn view_layouts_bound(
    ctx: &Context,
    op: Op,
    input: &Layout,
    syms: &aot_ir::sym::Bindings,
) -> Result<SmallVec<[Layout; 1]>, String> {
    let def = ctx.op_def(op).ok_or("unregistered op")?;
    let vi = def.interface::<ViewInterface>().ok_or_else(|| format!("'{}' is not a view op", def.name))?;
    (vi.layout)(&AttrView::of_op(ctx, op).bound(syms), input)
}

// ----- the layout rules, one per view op -----

/// ATen's `computeStride`: strides that let `new` view a tensor with layout
/// (`old`, `old_strides`), or `None` when no such strides exist.
pub fn compute_view_strides(old: &[i64], old_strides: &[i64], new: &[i64]) -> Option<Shape> {
    if old.is_empty() {
        return Some(Shape::from_elem(1, new.len()));
    }
    let numel: i64 = old.iter().product();
    if numel == 0 && old == new {
        return Some(old_strides.into());
    }
    let mut ns = Shape::from_elem(0, new.len());
    if numel == 0 {
        for d in (0..new.len()).rev() {
            ns[d] = if d == new.len() - 1 { 1 } else { new[d + 1].max(1).saturating_mul(ns[d + 1]) };
        }
        return Some(ns);
    }
    match_chunks(old, old_strides, new, &|a, b| Some(a.saturating_mul(b)), &|v, t| v < t, &|a, b| a == b)
}

/// The chunk matching of ATen's `computeStride`, from the last dimension:
/// each run of old dimensions contiguous with each other (a chunk) is
/// matched by new dimensions whose product is its size, which take strides
/// within it. `mul` multiplies sizes (`None`: no strides); `short(v, t)`
/// says the new dimensions so far (product `v`) do not yet cover the
/// chunk (size `t`); `eq` says two sizes or strides are equal.
fn match_chunks(
    old: &[i64],
    old_strides: &[i64],
    new: &[i64],
    mul: &dyn Fn(i64, i64) -> Option<i64>,
    short: &dyn Fn(i64, i64) -> bool,
    eq: &dyn Fn(i64, i64) -> bool,
) -> Option<Shape> {
    let mut ns = Shape::from_elem(0, new.len());
    let mut view_d = new.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last()?;
    let mut tensor_numel = 1i64;
    let mut view_numel = 1i64;
    for tensor_d in (0..old.len()).rev() {
        tensor_numel = mul(tensor_numel, old[tensor_d])?;
        let boundary = tensor_d == 0
            || (old[tensor_d - 1] != 1 && !eq(old_strides[tensor_d - 1], mul(tensor_numel, chunk_base_stride)?));
        if boundary {
            while view_d >= 0 && (short(view_numel, tensor_numel) || new[view_d as usize] == 1) {
                ns[view_d as usize] = mul(view_numel, chunk_base_stride)?;
                view_numel = mul(view_numel, new[view_d as usize])?;
                view_d -= 1;
            }
            if !eq(view_numel, tensor_numel) {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(ns)
}

/// A requested shape's `-1` (at most one) and the product of its other
/// sizes (`mul` multiplies; a negative size other than `-1` is an error,
/// a symbolic one is a size).
fn requested(shape: &[i64], mul: impl Fn(i64, i64) -> Result<i64, String>) -> Result<(Option<usize>, i64), String> {
    let mut infer = None;
    let mut known = 1i64;
    for (i, &d) in shape.iter().enumerate() {
        if d == -1 {
            if infer.is_some() {
                return Err("only one dimension can be inferred (-1)".into());
            }
            infer = Some(i);
        } else if d < 0 && !aot_ir::sym::is_symbolic(d) {
            return Err(format!("invalid shape dimension {d}"));
        } else {
            known = mul(known, d)?;
        }
    }
    Ok((infer, known))
}

/// Resolves one `-1` in a requested shape against `numel` elements.
pub fn resolve_shape(shape: &[i64], numel: i64) -> Result<Shape, String> {
    let mut out: Shape = shape.into();
    let (infer, known) = requested(shape, |a, d| Ok(a.saturating_mul(d)))?;
    if let Some(i) = infer {
        if known == 0 || numel % known != 0 {
            return Err(format!("shape {} is invalid for input of size {numel}", fmt_shape(shape)));
        }
        out[i] = numel / known;
    } else if known != numel {
        return Err(format!("shape {} is invalid for input of size {numel}", fmt_shape(shape)));
    }
    Ok(out)
}

/// [`resolve_shape`] over symbolic sizes: `-1` takes `numel` divided by
/// the other sizes when the division is exact by their forms (`s0*4` into
/// `[-1, 4]` is `[s0, 4]`); otherwise the product must be `numel` itself.
pub fn resolve_shape_sym(shape: &[i64], numel: i64, facts: &aot_ir::sym::Facts) -> Result<Shape, String> {
    let mut out: Shape = shape.into();
    let (infer, known) = requested(shape, |a, d| aot_ir::sym::mul(a, d).map_err(|e| e.to_string()))?;
    let invalid = || format!("shape {} is invalid for input of size {}", fmt_shape(shape), aot_ir::sym::display(numel));
    if let Some(i) = infer {
        // By the forms, or by a guard that says the division is exact
        // (`(s0 mod 4) == 0` lets `s0` reshape to `[-1, 4]`).
        let by_guard = || {
            (known > 0 && !aot_ir::sym::is_symbolic(known) && facts.divides(numel, known))
                .then(|| aot_ir::sym::floordiv(numel, known).ok())
                .flatten()
        };
        out[i] = aot_ir::sym::exact_div(numel, known)
            .filter(|&q| q >= 0 || aot_ir::sym::is_symbolic(q))
            .or_else(by_guard)
            .ok_or_else(|| format!("{}: {} does not evidently divide it", invalid(), aot_ir::sym::display(known)))?;
    } else if !facts.known_eq(known, numel) {
        return Err(invalid());
    }
    Ok(out)
}

/// [`compute_view_strides`] over symbolic sizes: a chunk of the old layout
/// (dimensions contiguous with each other) is matched by new dimensions
/// whose product is equal to its size for every value of the symbols: as
/// polynomials, or under the function's guards (`facts`: a stride-2 slice
/// of `s1` rows flattens with its batch where a guard says `s1` is even,
/// `(8*s1) == (16*((s1 + 1) floordiv 2))`). `None` where that is not
/// evident (the static rule might still find strides for some values: a
/// view is then refused, a reshape copies), or where a size is 0.
pub fn compute_view_strides_sym(
    old: &[i64],
    old_strides: &[i64],
    new: &[i64],
    facts: &aot_ir::sym::Facts,
) -> Option<Shape> {
    use aot_ir::sym::{mul, numel};
    if old.is_empty() {
        return Some(Shape::from_elem(1, new.len()));
    }
    if old.contains(&0) || new.contains(&0) {
        return None;
    }
    numel(old).ok()?;
    // (Identity of forms, not `<`: products of symbols are not ordered,
    // and a product that never becomes identical fails at the chunk's end.)
    let eq = |a: i64, b: i64| a == b || facts.known_eq(a, b);
    match_chunks(old, old_strides, new, &|a, b| mul(a, b).ok(), &|v, t| !eq(v, t), &eq)
}

/// `view` or `reshape` where a size is symbolic (at compile time; a call's
/// sizes are concrete): a contiguous operand gives a contiguous result;
/// another takes strides by [`compute_view_strides_sym`].
fn symbolic_reshape(
    shape: &[i64],
    x: &Layout,
    copy: bool,
    facts: &aot_ir::sym::Facts,
) -> Result<SmallVec<[Layout; 1]>, String> {
    let numel = aot_ir::sym::numel(&x.sizes).map_err(|e| e.to_string())?;
    let sizes = resolve_shape_sym(shape, numel, facts)?;
    if !aot_runtime::tensor::dense(&x.sizes, &x.strides) {
        return match compute_view_strides_sym(&x.sizes, &x.strides, &sizes, facts) {
            Some(strides) => Ok(smallvec![Layout { sizes, strides, offset: x.offset }]),
            // A reshape copies (as its static rule does when no strides
            // fit).
            None if copy => Err(RESHAPE_NEEDS_COPY.into()),
            None => Err(SYMBOLIC_VIEW_NEEDS_COPY.into()),
        };
    }
    let strides = Layout::contiguous(&sizes).strides;
    Ok(smallvec![Layout { sizes, strides, offset: x.offset }])
}

fn layout_view(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let want = a.req_list("shape")?;
    if !aot_ir::sym::is_static(&want) || !aot_ir::sym::is_static(&x.sizes) {
        return symbolic_reshape(&want, x, false, &a.facts());
    }
    let shape = resolve_shape(&want, x.sizes.iter().product())?;
    let strides = compute_view_strides(&x.sizes, &x.strides, &shape).ok_or(VIEW_NEEDS_COPY)?;
    Ok(smallvec![Layout { sizes: shape, strides, offset: x.offset }])
}

/// `reshape` when it can be a view; the kernel copies otherwise.
fn layout_reshape(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let want = a.req_list("shape")?;
    if !aot_ir::sym::is_static(&want) || !aot_ir::sym::is_static(&x.sizes) {
        return symbolic_reshape(&want, x, true, &a.facts());
    }
    let shape = resolve_shape(&want, x.sizes.iter().product())?;
    match compute_view_strides(&x.sizes, &x.strides, &shape) {
        Some(strides) => Ok(smallvec![Layout { sizes: shape, strides, offset: x.offset }]),
        None => Err(RESHAPE_NEEDS_COPY.into()),
    }
}

// Typed handles of the ops other layers build or test for.
aot_ir::op_handle!(pub AsStridedOp = "view.as_strided");
aot_ir::op_handle!(pub AsStridedScatterOp = "view.as_strided_scatter");
aot_ir::op_handle!(pub AliasOp = "view.alias");
aot_ir::op_handle!(pub ReshapeOp = "view.reshape");
aot_ir::op_handle!(pub SliceOp = "view.slice");
aot_ir::op_handle!(pub SliceScatterOp = "view.slice_scatter");
aot_ir::op_handle!(pub TransposeOp = "view.transpose");
aot_ir::op_handle!(pub TOp = "view.t");
aot_ir::op_handle!(pub UnbindOp = "view.unbind");
aot_ir::op_handle!(pub SplitOp = "view.split");
aot_ir::op_handle!(pub ViewOp = "view.view");
aot_ir::op_handle!(pub PermuteOp = "view.permute");
aot_ir::op_handle!(pub ExpandOp = "view.expand");
aot_ir::op_handle!(pub SelectOp = "view.select");
aot_ir::op_handle!(pub SelectScatterOp = "view.select_scatter");
aot_ir::op_handle!(pub SqueezeOp = "view.squeeze");
aot_ir::op_handle!(pub UnsqueezeOp = "view.unsqueeze");
aot_ir::op_handle!(pub DiagonalOp = "view.diagonal");
aot_ir::op_handle!(pub DiagonalScatterOp = "view.diagonal_scatter");
aot_ir::op_handle!(pub DetachOp = "view.detach");

/// Op attribute on a scatter: the write is invisible to autograd, which
/// must still see the base pass through it, so no fold removes the scatter.
pub const HIDDEN_WRITE: &str = "aot.hidden_write";

/// On an `as_strided_scatter` whose layout reaches a storage element more
/// than once: the source's cotangent for such an element is split evenly
/// among the positions that hold it, as PyTorch's `as_strided` backward
/// does for an input whose memory overlaps itself. Functionalize marks the
/// scatters that place a self-overlapping argument into its storage.
pub const SPLIT_GRAD: &str = "aot.split_grad";

/// The message `layout_reshape` returns when only a copy can reshape.
pub const RESHAPE_NEEDS_COPY: &str = "reshape needs a copy";

/// PyTorch's error for a `view` whose strides cannot express the new shape.
/// Under value semantics (after `functionalize`) layouts are the backend's
/// choice, so there the view is a copy, as `reshape` would be.
/// A view with symbolic sizes of a non-contiguous tensor whose strides are
/// not evidently expressible for every value of the symbols: refused at
/// the tensor level (eager may raise at some sizes); in a lowered function,
/// whose operand layouts are the backend's choice, it copies.
pub const SYMBOLIC_VIEW_NEEDS_COPY: &str = "a view with symbolic sizes of a non-contiguous tensor whose strides \
                                            cannot express it for every value of its symbols is not supported";
pub const VIEW_NEEDS_COPY: &str = "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.";

/// A view computes its result by value where values have value semantics,
/// so it has no effects there; under reference semantics its result is a
/// new tensor object aliasing the operand, whose identity matters.
fn effects(ctx: &Context, op: Op) -> Option<&'static [aot_ir::effects::EffectOn]> {
    in_value_semantics(ctx, op).then_some(&[])
}

/// Whether `op` sits in a function with value semantics, where a view that
/// the operand's layout cannot express may copy instead.
pub fn in_value_semantics(ctx: &Context, op: Op) -> bool {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if ctx.has_attr(p, aot_runtime::interp::VALUE_SEMANTICS) {
            return true;
        }
        cur = ctx.parent_op(p);
    }
    false
}

fn layout_permute(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let dims = a.req_list("dims")?;
    let r = x.sizes.len();
    if dims.len() != r {
        return Err(format!("'dims' must list {r} dimensions, got {}", dims.len()));
    }
    let mut seen = vec![false; r];
    let mut out = Layout { sizes: Shape::new(), strides: Shape::new(), offset: x.offset };
    for &d in &dims {
        let n = norm_dim(d, r, 0)?;
        if seen[n] {
            return Err(format!("'dims' is not a permutation: {} repeats", d));
        }
        seen[n] = true;
        out.sizes.push(x.sizes[n]);
        out.strides.push(x.strides[n]);
    }
    Ok(smallvec![out])
}

fn swap(x: &Layout, a: usize, b: usize) -> Layout {
    let mut l = x.clone();
    l.sizes.swap(a, b);
    l.strides.swap(a, b);
    l
}

pub fn layout_transpose(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let r = x.sizes.len();
    if r == 0 {
        norm_dim(a.req_i64("dim0")?, 0, 0)?;
        norm_dim(a.req_i64("dim1")?, 0, 0)?;
        return Ok(smallvec![x.clone()]);
    }
    let d0 = norm_dim(a.req_i64("dim0")?, r, 0)?;
    let d1 = norm_dim(a.req_i64("dim1")?, r, 0)?;
    Ok(smallvec![swap(x, d0, d1)])
}

pub fn layout_t(_: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    match x.sizes.len() {
        0 | 1 => Ok(smallvec![x.clone()]),
        2 => Ok(smallvec![swap(x, 0, 1)]),
        r => Err(format!("t() expects a tensor with <= 2 dimensions, but self is {r}D")),
    }
}

fn layout_expand(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let shape = a.req_list("shape")?;
    let (r, n) = (x.sizes.len(), shape.len());
    if n < r {
        return Err(format!(
            "the number of sizes provided ({n}) must be greater or equal to the number of dimensions in the tensor ({r})"
        ));
    }
    // PyTorch's `inferExpandGeometry`, from the last dim: a new leading dim
    // of size 1 gets the stride that keeps the layout contiguous-looking
    // (size × stride of the dim after it), an expanded dim stride 0, and a
    // 0-d operand all-zero strides.
    let mut sizes = Shape::from_elem(0, n);
    let mut strides = Shape::from_elem(0, n);
    for i in (0..n).rev() {
        let want = shape[i];
        let (have, stride) = match (i + r).checked_sub(n) {
            Some(j) => (x.sizes[j], x.strides[j]),
            None => {
                if want < 0 && !aot_ir::sym::is_symbolic(want) {
                    return Err(format!(
                        "the expanded size {want} is not allowed in a leading, non-existing dimension"
                    ));
                }
                let next = if r == 0 || i + 1 >= n {
                    0
                } else if aot_ir::sym::is_symbolic(sizes[i + 1]) || aot_ir::sym::is_symbolic(strides[i + 1]) {
                    aot_ir::sym::mul(sizes[i + 1], strides[i + 1]).map_err(|e| e.to_string())?
                } else {
                    sizes[i + 1].saturating_mul(strides[i + 1])
                };
                (1, next)
            }
        };
        let (size, stride) = if want == -1 || want == have {
            (have, stride)
        } else if have == 1 && (want >= 0 || aot_ir::sym::is_symbolic(want)) {
            (want, 0)
        } else {
            return Err(format!(
                "the expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton dimension {i}"
            ));
        };
        sizes[i] = size;
        strides[i] = stride;
    }
    let out = Layout { sizes, strides, offset: x.offset };
    Ok(smallvec![out])
}

/// Normalised (start, length) of a Python-style slice on a dim of `size`.
pub fn slice_bounds(size: i64, start: i64, end: i64, step: i64) -> Result<(i64, i64), String> {
    if step <= 0 {
        return Err(format!("slice step must be positive, got {step}"));
    }
    let norm = |v: i64| -> i64 {
        let v = if v < 0 { v.saturating_add(size) } else { v };
        v.clamp(0, size)
    };
    let (s, mut e) = (norm(start), norm(end));
    if e < s {
        e = s;
    }
    // Ceiling division without forming `e - s + step - 1`, which overflows
    // for huge steps.
    Ok((s, if e == s { 0 } else { (e - s - 1) / step + 1 }))
}

fn sym_err(e: aot_ir::sym::SymError) -> String {
    e.to_string()
}

/// `(start, length)` of a slice of a symbolic dimension `size`, where the
/// bounds decide without knowing it: a prefix or a suffix of constant
/// length no longer than the smallest `size` can be, the rest from a
/// constant start, or all but a constant tail. Other bounds would need a
/// guard (`min` is not a polynomial).
fn symbolic_slice_bounds(
    size: i64,
    start: i64,
    end: i64,
    step: i64,
    facts: &aot_ir::sym::Facts,
) -> Result<(i64, i64), String> {
    use aot_ir::sym;
    if step <= 0 {
        return Err(format!("slice step must be positive, got {step}"));
    }
    let unsupported = || {
        Err(format!(
            "slice [{}:{}:{step}] of a dimension of symbolic size {} is not supported yet: its length would need a guard",
            sym::display(start),
            if end == i64::MAX { String::new() } else { sym::display(end) },
            sym::display(size)
        ))
    };
    let le = |a: i64, b: i64| facts.known_le(a, b);
    // A bound in [0, size] without clamping: a non-negative one (constant
    // or symbolic) no larger than the size, or a constant counted from the
    // end no longer than the size.
    let bound = |v: i64| -> Option<i64> {
        let at = if v < 0 && !sym::is_symbolic(v) { sym::add(size, v).ok()? } else { v };
        (le(0, at) && le(at, size)).then_some(at)
    };
    let Some(first) = bound(start) else { return unsupported() };
    let last = if end == i64::MAX || end == size {
        size
    } else {
        match bound(end) {
            Some(l) => l,
            None => return unsupported(),
        }
    };
    if !le(first, last) {
        return unsupported();
    }
    let span = sym::sub(last, first).map_err(sym_err)?;
    if !sym::is_symbolic(span) {
        return Ok((first, if span <= 0 { 0 } else { (span - 1) / step + 1 }));
    }
    let len = sym::floordiv(sym::add(span, step - 1).map_err(sym_err)?, step).map_err(sym_err)?;
    Ok((first, len))
}

fn slice_of(
    x: &Layout,
    dim: usize,
    (start, end, step): (i64, i64, i64),
    facts: &aot_ir::sym::Facts,
) -> Result<Layout, String> {
    if x.is_symbolic() || aot_ir::sym::is_symbolic(start) || aot_ir::sym::is_symbolic(end) {
        use aot_ir::sym;
        let size = x.sizes[dim];
        let (s, len) = if sym::is_symbolic(size) || sym::is_symbolic(start) || sym::is_symbolic(end) {
            symbolic_slice_bounds(size, start, end, step, facts)?
        } else {
            slice_bounds(size, start, end, step)?
        };
        let mut l = x.clone();
        l.offset = sym::add(l.offset, sym::mul(s, x.strides[dim]).map_err(sym_err)?).map_err(sym_err)?;
        l.sizes[dim] = len;
        l.strides[dim] = sym::mul(l.strides[dim], step).map_err(sym_err)?;
        return Ok(l);
    }
    let (s, len) = slice_bounds(x.sizes[dim], start, end, step)?;
    let mut l = x.clone();
    // Both stay inside the operand's extent (which fits `i64`) except the
    // stride of a dim of size 0 or 1, which addresses nothing beyond the
    // first element: saturating is exact where it matters.
    l.offset = l.offset.saturating_add(s.saturating_mul(x.strides[dim]));
    l.sizes[dim] = len;
    l.strides[dim] = l.strides[dim].saturating_mul(step);
    Ok(l)
}

fn layout_slice(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    if x.sizes.is_empty() {
        return Err("slice() cannot be applied to a 0-dim tensor".into());
    }
    let dim = norm_dim(a.req_i64("dim")?, x.sizes.len(), 0)?;
    let start = a.i64("start").unwrap_or(0);
    let end = a.i64("end").unwrap_or(i64::MAX);
    let step = a.i64("step").unwrap_or(1);
    Ok(smallvec![slice_of(x, dim, (start, end, step), &a.facts())?])
}

fn select_of(x: &Layout, dim: usize, index: i64, facts: &aot_ir::sym::Facts) -> Result<Layout, String> {
    let size = x.sizes[dim];
    if x.is_symbolic() || aot_ir::sym::is_symbolic(index) {
        use aot_ir::sym;
        let i = if sym::is_symbolic(size) || sym::is_symbolic(index) {
            // In range for every value the size can take.
            let lo = facts.lower_bound(size).unwrap_or(0);
            match index {
                // A symbolic index in range by the facts (`s1 - 1` of
                // dimension `s1`: a negative index normalised).
                i if sym::is_symbolic(i) => (facts.lower_bound(i).is_some_and(|l| l >= 0)
                    && sym::add(i, 1).is_ok_and(|j| facts.known_le(j, size)))
                .then_some(i),
                i if i >= 0 => (i < lo).then_some(i),
                i => (i.checked_neg().is_some_and(|k| k <= lo)).then(|| sym::add(size, i).ok()).flatten(),
            }
            .ok_or_else(|| {
                format!(
                    "index {} of dimension {dim} of symbolic size {} is not supported yet: its range would need a guard",
                    sym::display(index),
                    sym::display(size)
                )
            })?
        } else {
            let i = if index < 0 { index + size } else { index };
            if i < 0 || i >= size {
                return Err(format!("index {index} is out of range for dimension {dim} of size {size}"));
            }
            i
        };
        let mut l = x.clone();
        l.offset = sym::add(l.offset, sym::mul(i, x.strides[dim]).map_err(sym_err)?).map_err(sym_err)?;
        l.sizes.remove(dim);
        l.strides.remove(dim);
        return Ok(l);
    }
    let i = if index < 0 { index + size } else { index };
    if i < 0 || i >= size {
        return Err(format!("index {index} is out of range for dimension {dim} of size {size}"));
    }
    let mut l = x.clone();
    l.offset = l.offset.saturating_add(i.saturating_mul(x.strides[dim]));
    l.sizes.remove(dim);
    l.strides.remove(dim);
    Ok(l)
}

fn layout_select(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    if x.sizes.is_empty() {
        return Err("select() cannot be applied to a 0-dim tensor".into());
    }
    let dim = norm_dim(a.req_i64("dim")?, x.sizes.len(), 0)?;
    Ok(smallvec![select_of(x, dim, a.req_i64("index")?, &a.facts())?])
}

pub fn layout_squeeze(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let mut l = x.clone();
    match a.i64("dim") {
        Some(d) => {
            if x.sizes.is_empty() {
                norm_dim(d, 0, 0)?;
                return Ok(smallvec![l]);
            }
            let dim = norm_dim(d, x.sizes.len(), 0)?;
            if x.sizes[dim] == 1 {
                l.sizes.remove(dim);
                l.strides.remove(dim);
            }
        }
        None => {
            let keep: Vec<usize> = (0..x.sizes.len()).filter(|&i| x.sizes[i] != 1).collect();
            l.sizes = keep.iter().map(|&i| x.sizes[i]).collect();
            l.strides = keep.iter().map(|&i| x.strides[i]).collect();
        }
    }
    Ok(smallvec![l])
}

pub fn layout_unsqueeze(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let r = x.sizes.len();
    let dim = norm_dim(a.req_i64("dim")?, r, 1)?;
    let stride = if dim >= r {
        1
    } else if aot_ir::sym::is_symbolic(x.sizes[dim]) || aot_ir::sym::is_symbolic(x.strides[dim]) {
        aot_ir::sym::mul(x.sizes[dim], x.strides[dim]).map_err(|e| e.to_string())?
    } else {
        x.sizes[dim].saturating_mul(x.strides[dim])
    };
    let mut l = x.clone();
    l.sizes.insert(dim, 1);
    l.strides.insert(dim, stride);
    Ok(smallvec![l])
}

/// (diagonal size, storage offset) of `torch.diagonal` on dims d1, d2.
fn diagonal_of(x: &Layout, offset: i64, d1: usize, d2: usize) -> Result<Layout, String> {
    if d1 == d2 {
        return Err(format!("diagonal dimensions cannot be identical {d1}, {d2}"));
    }
    let (s1, s2) = (x.sizes[d1], x.sizes[d2]);
    // The diagonal's size, its first element and its stride.
    let (diag, storage, stride) = if x.is_symbolic() {
        // The main diagonal of equal sizes; any other needs `min`.
        use aot_ir::sym;
        let diag = match (sym::is_symbolic(s1) || sym::is_symbolic(s2), offset) {
            (false, o) if o >= 0 => s1.min(s2.saturating_sub(o)).max(0),
            (false, o) => s1.saturating_add(o).min(s2).max(0),
            (true, 0) if s1 == s2 => s1,
            _ => {
                return Err(format!(
                    "diagonal {offset} of sizes {} and {} is not supported yet with symbolic sizes",
                    sym::display(s1),
                    sym::display(s2)
                ))
            }
        };
        let mut storage = x.offset;
        if diag != 0 && offset != 0 {
            let (k, st) = if offset > 0 { (offset, x.strides[d2]) } else { (-offset, x.strides[d1]) };
            storage = sym::add(storage, sym::mul(k, st).map_err(sym_err)?).map_err(sym_err)?;
        }
        (diag, storage, sym::add(x.strides[d1], x.strides[d2]).map_err(sym_err)?)
    } else {
        let mut storage = x.offset;
        let diag = if offset >= 0 {
            s1.min(s2.saturating_sub(offset)).max(0)
        } else {
            s1.saturating_add(offset).min(s2).max(0)
        };
        if diag > 0 {
            if offset >= 0 {
                storage = storage.saturating_add(offset.saturating_mul(x.strides[d2]));
            } else {
                storage = storage.saturating_sub(offset.saturating_mul(x.strides[d1]));
            }
        }
        (diag, storage, x.strides[d1].saturating_add(x.strides[d2]))
    };
    let mut l = Layout { sizes: Shape::new(), strides: Shape::new(), offset: storage };
    for i in 0..x.sizes.len() {
        if i != d1 && i != d2 {
            l.sizes.push(x.sizes[i]);
            l.strides.push(x.strides[i]);
        }
    }
    l.sizes.push(diag);
    l.strides.push(stride);
    Ok(l)
}

fn layout_diagonal(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let r = x.sizes.len();
    if r < 2 {
        return Err(format!("diagonal requires a tensor with at least 2 dimensions, got {r}"));
    }
    let d1 = norm_dim(a.i64("dim1").unwrap_or(0), r, 0)?;
    let d2 = norm_dim(a.i64("dim2").unwrap_or(1), r, 0)?;
    Ok(smallvec![diagonal_of(x, a.i64("offset").unwrap_or(0), d1, d2)?])
}

pub fn layout_as_strided(a: &AttrView<'_>, _x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    let sizes = a.req_list("size")?;
    let strides = a.req_list("stride")?;
    let offset = a.i64("offset").unwrap_or(0);
    if sizes.len() != strides.len() {
        return Err(format!("mismatch in length of strides and shape ({} vs {})", strides.len(), sizes.len()));
    }
    let negative = |v: i64| v < 0 && !aot_ir::sym::is_symbolic(v);
    if sizes.iter().any(|&s| negative(s)) || strides.iter().any(|&s| negative(s)) || negative(offset) {
        return Err("as_strided sizes, strides and offset must be non-negative".into());
    }
    let symbolic = !aot_ir::sym::layout_is_static(&sizes, &strides, offset);
    // A symbolic layout's extent is checked by each call, whose sizes are
    // concrete (the kernels read these attributes evaluated).
    if !symbolic && aot_ir::size::checked_extent(&sizes, &strides, offset).is_none() {
        return Err(format!(
            "a view with size {sizes:?}, stride {strides:?} and offset {offset} addresses elements beyond the 64-bit range"
        ));
    }
    Ok(smallvec![Layout { sizes: sizes.into_iter().collect(), strides: strides.into_iter().collect(), offset }])
}

fn layout_unbind(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    if x.sizes.is_empty() {
        return Err("unbind() cannot be applied to a 0-dim tensor".into());
    }
    let dim = norm_dim(a.i64("dim").unwrap_or(0), x.sizes.len(), 0)?;
    if aot_ir::sym::is_symbolic(x.sizes[dim]) {
        return Err(format!(
            "unbind of a dimension of symbolic size {} has no fixed number of results",
            aot_ir::sym::display(x.sizes[dim])
        ));
    }
    // One result per slice: the count comes from the shape, so it is an
    // allocation like any other (2^32 layouts for tensor<4294967296xf32>).
    aot_ir::size::check_alloc(
        x.sizes[dim].max(0) as u64,
        std::mem::size_of::<Layout>() as u64,
        "the results of unbind",
    )
    .map_err(|e| e.to_string())?;
    (0..x.sizes[dim]).map(|i| select_of(x, dim, i, &a.facts())).collect()
}

fn layout_split(a: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    if x.sizes.is_empty() {
        return Err("split() cannot be applied to a 0-dim tensor".into());
    }
    let dim = norm_dim(a.i64("dim").unwrap_or(0), x.sizes.len(), 0)?;
    let sizes = a.req_list("sizes")?;
    // Each piece a slice from the sum of those before it. The pieces must be
    // non-negative and add up to the dimension, for every value of the
    // symbols where some are symbolic (`chunk(2)` of `s1` is `(s1 + 1)
    // floordiv 2` and `s1 - (s1 + 1) floordiv 2`): the ranges and guards
    // decide, as plain arithmetic does for constants.
    use aot_ir::sym;
    let facts = a.facts();
    let refuse = || {
        let symbolic = sym::is_symbolic(x.sizes[dim]) || !sym::is_static(&sizes);
        format!(
            "split sizes {} must be non-negative and sum to the size of dimension {dim} ({}){}",
            fmt_shape(&sizes),
            sym::display(x.sizes[dim]),
            if symbolic { " for every value of the symbols" } else { "" }
        )
    };
    let mut total = 0i64;
    for &s in &sizes {
        if !facts.known_le(0, s) {
            return Err(refuse());
        }
        total = sym::add(total, s).map_err(|_| refuse())?;
    }
    if !facts.known_eq(total, x.sizes[dim]) {
        return Err(refuse());
    }
    let mut start = 0i64;
    let mut out = SmallVec::new();
    for s in sizes {
        let end = sym::add(start, s).map_err(sym_err)?;
        out.push(slice_of(x, dim, (start, end, 1), &facts)?);
        start = end;
    }
    Ok(out)
}

fn layout_identity(_: &AttrView<'_>, x: &Layout) -> Result<SmallVec<[Layout; 1]>, String> {
    Ok(smallvec![x.clone()])
}

fn single_unbind(a: &AttrView<'_>, k: usize, _shape: &[i64]) -> Result<SingleView, String> {
    Ok((OpRef::of::<SelectOp>(), vec![("dim", a.i64("dim").unwrap_or(0)), ("index", k as i64)]))
}

fn single_split(a: &AttrView<'_>, k: usize, _shape: &[i64]) -> Result<SingleView, String> {
    let sizes = a.req_list("sizes")?;
    // (Sizes may be symbolic: added as expressions.)
    let start = sizes.iter().take(k).try_fold(0i64, |acc, &s| aot_ir::sym::add(acc, s)).map_err(sym_err)?;
    let len = *sizes.get(k).ok_or("split result index out of range")?;
    let end = aot_ir::sym::add(start, len).map_err(sym_err)?;
    Ok((OpRef::of::<SliceOp>(), vec![("dim", a.i64("dim").unwrap_or(0)), ("start", start), ("end", end), ("step", 1)]))
}

/// The view op a scatter op inverts (`view.slice_scatter` → `view.slice`).
pub fn view_of_scatter(scatter: &str) -> Option<OpRef> {
    aot_ir::registry::lookup_op(scatter).and_then(|d| d.interface::<ScatterInterface>()).map(|s| s.view)
}

/// The view interface of a registered op, if it is a view.
pub fn view_interface(name: &str) -> Option<&'static ViewInterface> {
    aot_ir::registry::lookup_op(name).and_then(|d| d.interface::<ViewInterface>())
}

/// Builds, in value semantics, the new operand value of the view op `name`
/// (with attributes `attrs`) when its result becomes `new`; `base` is the
/// operand's current value.
pub fn build_inverse(
    rw: &mut Rewriter<'_>,
    name: &str,
    attrs: &[NamedAttr],
    base: Value,
    new: Value,
) -> Result<Value, Diagnostic> {
    let vi = aot_ir::registry::lookup_op(name)
        .and_then(|d| d.interface::<ViewInterface>())
        .ok_or_else(|| Diagnostic::error(rw.current_loc(), format!("'{name}' is not a view op")))?;
    match vi.inverse {
        Inverse::Scatter(scatter) => scatter.build_named1(rw, &[base, new], attrs),
        Inverse::Reshape => {
            let shape = rw.value_tensor(base).map(|t| t.shape.to_vec()).unwrap_or_default();
            let s = rw.i64_list_attr(&shape);
            ReshapeOp::build1(rw, &[new], &[("shape", s)])
        }
        Inverse::SelfInverse => rw.build_named1(name, &[new], attrs),
        Inverse::Permute => {
            let dims_sym = rw.sym("dims");
            let dims = attrs
                .iter()
                .find(|a| a.name == dims_sym)
                .and_then(|a| rw.attr_as_i64_list(a.value))
                .unwrap_or_default();
            let rank = dims.len() as i64;
            let mut inv = vec![0i64; dims.len()];
            for (i, &d) in dims.iter().enumerate() {
                let d = if d < 0 { d + rank } else { d };
                inv[d as usize] = i as i64;
            }
            let a = rw.i64_list_attr(&inv);
            PermuteOp::build1(rw, &[new], &[("dims", a)])
        }
        Inverse::Identity => Ok(new),
        Inverse::ReadOnly => Err(Diagnostic::error(
            rw.current_loc(),
            format!("cannot write through the result of '{name}': several of its elements share one memory location"),
        )),
    }
}

// ----- shape inference from the layout rules -----

/// Result shapes of a view op on a contiguous operand.
fn infer_via_layout(ic: &InferCtx<'_>, layout: LayoutFn) -> InferResult {
    let x = operand_tensor(ic, 0)?;
    let out = layout(&ic.attr_view(), &Layout::contiguous(&x.shape))?;
    Ok(out.into_iter().map(|l| TypeData::Tensor(TensorType::new(l.sizes, x.elem))).collect())
}

fn infer_view(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_view)
}
fn infer_reshape(ic: &InferCtx<'_>) -> InferResult {
    // On a contiguous operand reshape is always a view.
    infer_via_layout(ic, layout_reshape)
}
fn infer_permute(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_permute)
}
fn infer_transpose(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_transpose)
}
fn infer_t(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_t)
}
fn infer_expand(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_expand)
}
fn infer_slice(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_slice)
}
fn infer_select(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_select)
}
fn infer_squeeze(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_squeeze)
}
fn infer_unsqueeze(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_unsqueeze)
}
fn infer_diagonal(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_diagonal)
}
fn infer_as_strided(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_as_strided)
}
fn infer_unbind(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_unbind)
}
fn infer_split(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_split)
}
fn infer_identity(ic: &InferCtx<'_>) -> InferResult {
    infer_via_layout(ic, layout_identity)
}

/// Scatter ops: `src` must have the shape the matching view selects from `base`.
fn infer_scatter(ic: &InferCtx<'_>, layout: LayoutFn) -> InferResult {
    let base = operand_tensor(ic, 0)?;
    let src = operand_tensor(ic, 1)?;
    if src.elem != base.elem {
        return Err(format!("src must have element type {}, got {}", base.elem, src.elem));
    }
    let out = layout(&ic.attr_view(), &Layout::contiguous(&base.shape))?;
    let want = &out[0].sizes;
    if src.shape[..] != want[..] {
        return Err(format!(
            "src shape {} does not match the viewed region's shape {}",
            fmt_shape(&src.shape),
            fmt_shape(want)
        ));
    }
    Ok(smallvec![TypeData::Tensor(base.clone())])
}

fn infer_slice_scatter(ic: &InferCtx<'_>) -> InferResult {
    infer_scatter(ic, layout_slice)
}
fn infer_select_scatter(ic: &InferCtx<'_>) -> InferResult {
    infer_scatter(ic, layout_select)
}
fn infer_diagonal_scatter(ic: &InferCtx<'_>) -> InferResult {
    infer_scatter(ic, layout_diagonal)
}
fn infer_as_strided_scatter(ic: &InferCtx<'_>) -> InferResult {
    let base = operand_tensor(ic, 0)?;
    let out = infer_scatter(ic, layout_as_strided)?;
    // The scattered region must fit in a contiguous copy of base.
    let l = layout_as_strided(&ic.attr_view(), &Layout::contiguous(&base.shape))?;
    let l = &l[0];
    if base.is_symbolic() || l.is_symbolic() {
        // Checked per call, as the view's extent is.
        return Ok(out);
    }
    let end = aot_ir::size::checked_extent(&l.sizes, &l.strides, l.offset).map_or(i64::MAX, |e| e.1);
    if end > l.offset {
        let last = end - 1;
        if last >= base.numel() {
            return Err(format!(
                "the strided region reaches element {last}, outside the {} elements of base",
                base.numel()
            ));
        }
    }
    Ok(out)
}

// ----- definitions -----

const VIEW: Traits = traits(&[Traits::VIEW, Traits::DIFFERENTIABLE]);
/// Views whose rules handle symbolic sizes (`aot_ir::sym`).
const VIEW_S: Traits = VIEW.union(Traits::SYMBOLIC_SHAPES);
const SCATTER: Traits = traits(&[Traits::PURE, Traits::DIFFERENTIABLE]);
const ONE: Arity = Arity::Exact(1);
const TWO: Arity = Arity::Exact(2);

macro_rules! view_op {
    // `view.detach` is the one view autograd does not see through: it has no
    // derivative rule, and joint stops at it.
    (no_vjp $name:expr, $summary:literal, $traits:expr, $results:expr, $attrs:expr, $infer:expr, $layout:expr, $inverse:expr, $single:expr, $kernel:expr $(, $extra:expr)*) => {
        view_op!(@def $name, $summary, $traits, $results, $attrs, $infer, [
            &ViewInterface { layout: $layout, inverse: $inverse, single_result: $single },
            &Kernel($kernel),
            &LowerSymbolic(lowering::view)
            $(, $extra)*
        ]);
    };
    ($name:expr, $summary:literal, $traits:expr, $results:expr, $attrs:expr, $infer:expr, $layout:expr, $inverse:expr, $single:expr, $kernel:expr $(, $extra:expr)*) => {
        view_op!(@def $name, $summary, $traits, $results, $attrs, $infer, [
            &ViewInterface { layout: $layout, inverse: $inverse, single_result: $single },
            &Kernel($kernel),
            &Vjp(derivatives::view),
            &LowerSymbolic(lowering::view)
            $(, $extra)*
        ]);
    };
    (@def $name:expr, $summary:literal, $traits:expr, $results:expr, $attrs:expr, $infer:expr, [$($iface:expr),*]) => {
        inventory::submit! {
            OpDef {
                name: $name,
                summary: $summary,
                traits: $traits,
                operands: ONE,
                results: $results,
                attrs: $attrs,
                infer: Some($infer),
                syntax: Syntax::Functional,
                interfaces: &[$($iface,)* &MemoryEffects::Computed(effects)],
                ..OpDef::DEFAULT
            }
        }
    };
}

const SHAPE: &[AttrSpec] = &[AttrSpec::required("shape", AttrKind::I64List)];
const SLICE: &[AttrSpec] = &[
    AttrSpec::required("dim", AttrKind::I64),
    AttrSpec::optional("start", AttrKind::I64),
    AttrSpec::optional("end", AttrKind::I64),
    AttrSpec::optional("step", AttrKind::I64),
];
const SELECT: &[AttrSpec] = &[AttrSpec::required("dim", AttrKind::I64), AttrSpec::required("index", AttrKind::I64)];
const DIAGONAL: &[AttrSpec] = &[
    AttrSpec::optional("offset", AttrKind::I64),
    AttrSpec::optional("dim1", AttrKind::I64),
    AttrSpec::optional("dim2", AttrKind::I64),
];
const AS_STRIDED: &[AttrSpec] = &[
    AttrSpec::required("size", AttrKind::I64List),
    AttrSpec::required("stride", AttrKind::I64List),
    AttrSpec::optional("offset", AttrKind::I64),
];
const TRANSPOSE: &[AttrSpec] = &[AttrSpec::required("dim0", AttrKind::I64), AttrSpec::required("dim1", AttrKind::I64)];

view_op!(
    ViewOp::NAME,
    "A view with a new shape (error when the strides do not allow it)",
    VIEW_S,
    ONE,
    SHAPE,
    infer_view,
    layout_view,
    Inverse::Reshape,
    None,
    kernels::view,
    &Fold(folds::same_shape),
    &Canonicalization(&[folds::collapse_reshapes]),
    &TensorExport::Reshape
);
view_op!(
    ReshapeOp::NAME,
    "A view with a new shape when possible, else a copy",
    VIEW_S,
    ONE,
    SHAPE,
    infer_reshape,
    layout_reshape,
    Inverse::Reshape,
    None,
    kernels::reshape,
    &Fold(folds::same_shape),
    &Canonicalization(&[folds::collapse_reshapes]),
    &TensorExport::Reshape
);
view_op!(
    PermuteOp::NAME,
    "Permutes the dimensions",
    VIEW_S,
    ONE,
    &[AttrSpec::required("dims", AttrKind::I64List)],
    infer_permute,
    layout_permute,
    Inverse::Permute,
    None,
    kernels::view,
    &Fold(folds::permute),
    &TensorExport::Permute
);
view_op!(
    TransposeOp::NAME,
    "Swaps two dimensions",
    VIEW_S,
    ONE,
    TRANSPOSE,
    infer_transpose,
    layout_transpose,
    Inverse::SelfInverse,
    None,
    kernels::view,
    &Fold(folds::transpose),
    &TensorExport::Permute
);
view_op!(
    TOp::NAME,
    "Transposes a tensor of rank <= 2",
    VIEW_S,
    ONE,
    &[],
    infer_t,
    layout_t,
    Inverse::SelfInverse,
    None,
    kernels::view,
    &Fold(folds::t),
    &TensorExport::Permute
);
view_op!(
    ExpandOp::NAME,
    "Broadcasts size-1 dimensions (stride 0)",
    VIEW_S,
    ONE,
    SHAPE,
    infer_expand,
    layout_expand,
    Inverse::ReadOnly,
    None,
    kernels::view,
    &Fold(folds::same_shape),
    &TensorExport::Broadcast
);
view_op!(
    SliceOp::NAME,
    "A strided range along one dimension",
    VIEW_S,
    ONE,
    SLICE,
    infer_slice,
    layout_slice,
    Inverse::Scatter(OpRef::of::<SliceScatterOp>()),
    None,
    kernels::view,
    &Fold(folds::slice),
    &TensorExport::ExtractSlice
);
view_op!(
    SelectOp::NAME,
    "One index along a dimension (removes it)",
    VIEW_S,
    ONE,
    SELECT,
    infer_select,
    layout_select,
    Inverse::Scatter(OpRef::of::<SelectScatterOp>()),
    None,
    kernels::view,
    &Fold(folds::view),
    &TensorExport::ExtractSlice
);
view_op!(
    SqueezeOp::NAME,
    "Removes size-1 dimensions (one, or all)",
    VIEW_S,
    ONE,
    &[AttrSpec::optional("dim", AttrKind::I64)],
    infer_squeeze,
    layout_squeeze,
    Inverse::Reshape,
    None,
    kernels::view,
    &Fold(folds::same_shape),
    &Canonicalization(&[folds::collapse_reshapes]),
    &TensorExport::Reshape
);
view_op!(
    UnsqueezeOp::NAME,
    "Inserts a size-1 dimension",
    VIEW_S,
    ONE,
    &[AttrSpec::required("dim", AttrKind::I64)],
    infer_unsqueeze,
    layout_unsqueeze,
    Inverse::Reshape,
    None,
    kernels::view,
    &Fold(folds::same_shape),
    &Canonicalization(&[folds::collapse_reshapes]),
    &TensorExport::Reshape
);
view_op!(
    DiagonalOp::NAME,
    "A diagonal over two dimensions",
    VIEW_S,
    ONE,
    DIAGONAL,
    infer_diagonal,
    layout_diagonal,
    Inverse::Scatter(OpRef::of::<DiagonalScatterOp>()),
    None,
    kernels::view,
    &Fold(folds::view)
);
view_op!(
    AsStridedOp::NAME,
    "An arbitrary strided view of the storage",
    VIEW_S,
    ONE,
    AS_STRIDED,
    infer_as_strided,
    layout_as_strided,
    Inverse::Scatter(OpRef::of::<AsStridedScatterOp>()),
    None,
    kernels::view,
    &Fold(folds::as_strided),
    &TensorExport::AsStrided
);
view_op!(
    UnbindOp::NAME,
    "Every index along a dimension, as separate views",
    VIEW_S,
    Arity::AtLeast(0),
    &[AttrSpec::optional("dim", AttrKind::I64)],
    infer_unbind,
    layout_unbind,
    Inverse::ReadOnly,
    Some(single_unbind),
    kernels::view
);
view_op!(
    SplitOp::NAME,
    "Consecutive ranges along a dimension, as separate views",
    VIEW_S,
    Arity::AtLeast(0),
    &[AttrSpec::optional("dim", AttrKind::I64), AttrSpec::required("sizes", AttrKind::I64List)],
    infer_split,
    layout_split,
    Inverse::ReadOnly,
    Some(single_split),
    kernels::view
);
view_op!(
    AliasOp::NAME,
    "The same data as a new tensor object",
    VIEW_S,
    ONE,
    &[],
    infer_identity,
    layout_identity,
    Inverse::Identity,
    None,
    kernels::view,
    &Fold(folds::alias),
    &TensorExport::Identity
);
view_op!(
    no_vjp DetachOp::NAME,
    "An alias that does not require grad",
    Traits::VIEW.union(Traits::SYMBOLIC_SHAPES),
    ONE,
    &[],
    infer_identity,
    layout_identity,
    Inverse::Identity,
    None,
    kernels::view,
    &Detaches,
    &TensorExport::Identity
);

macro_rules! scatter_op {
    ($handle:ty, $view:ty, $summary:literal, $attrs:expr, $infer:expr, $layout:expr, $fold:expr $(, $extra:expr)*) => {
        scatter_op!(@traits SCATTER, $handle, $view, $summary, $attrs, $infer, $layout, $fold $(, $extra)*);
    };
    (@traits $traits:expr, $handle:ty, $view:ty, $summary:literal, $attrs:expr, $infer:expr, $layout:expr, $fold:expr $(, $extra:expr)*) => {
        inventory::submit! {
            OpDef {
                name: <$handle>::NAME,
                summary: $summary,
                traits: $traits,
                operands: TWO,
                results: ONE,
                attrs: $attrs,
                infer: Some($infer),
                syntax: Syntax::Functional,
                interfaces: &[
                    &ScatterInterface { layout: $layout, view: OpRef::of::<$view>() },
                    &Kernel(kernels::scatter),
                    &Vjp(derivatives::scatter),
                    &LowerSymbolic(lowering::scatter),
                    &Fold($fold),
                    &Canonicalization(&[folds::merge_scatters]),
                    $($extra,)*
                ],
                ..OpDef::DEFAULT
            }
        }
    };
}

/// The scatter interface: which region of `base` is replaced, and the view
/// op that selects that region (the scatter's inverse).
pub struct ScatterInterface {
    pub layout: LayoutFn,
    pub view: OpRef,
}

scatter_op!(
    @traits SCATTER.union(Traits::SYMBOLIC_SHAPES),
    SliceScatterOp,
    SliceOp,
    "base with a slice replaced by src",
    SLICE,
    infer_slice_scatter,
    layout_slice,
    folds::slice_scatter,
    &TensorExport::InsertSlice
);
scatter_op!(
    @traits SCATTER.union(Traits::SYMBOLIC_SHAPES),
    SelectScatterOp,
    SelectOp,
    "base with one index replaced by src",
    SELECT,
    infer_select_scatter,
    layout_select,
    folds::scatter,
    &TensorExport::InsertSlice
);
scatter_op!(
    @traits SCATTER.union(Traits::SYMBOLIC_SHAPES),
    DiagonalScatterOp,
    DiagonalOp,
    "base with a diagonal replaced by src",
    DIAGONAL,
    infer_diagonal_scatter,
    layout_diagonal,
    folds::scatter
);
scatter_op!(
    @traits SCATTER.union(Traits::SYMBOLIC_SHAPES),
    AsStridedScatterOp,
    AsStridedOp,
    "base with a strided region replaced by src",
    AS_STRIDED,
    infer_as_strided_scatter,
    layout_as_strided,
    folds::as_strided_scatter,
    &TensorExport::AsStridedScatter
);

/// Layout rules for the `mut` dialect's metadata mutations, which reuse the
/// view ops' definitions.
pub mod rules {
    pub use super::{
        layout_as_strided as as_strided, layout_squeeze as squeeze, layout_t as t, layout_transpose as transpose,
        layout_unsqueeze as unsqueeze,
    };
}
