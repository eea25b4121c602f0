//! Interpreter kernels of the `view` dialect. View kernels apply the op's
//! layout rule to the operand's layout and return aliases of its storage;
//! scatter kernels copy `base` and write `src` through the matching view of
//! the copy.

use super::{in_value_semantics, view_layouts_bound, Layout, ScatterInterface, RESHAPE_NEEDS_COPY, VIEW_NEEDS_COPY};
use aot_runtime::{KernelCtx, KernelResult, Tensor};
use smallvec::smallvec;

/// The layout of a runtime tensor.
pub fn layout_of(t: &Tensor) -> Layout {
    Layout { sizes: t.sizes(), strides: t.strides(), offset: t.offset() }
}

/// Aliases `t` with each layout.
fn aliases(t: &Tensor, layouts: smallvec::SmallVec<[Layout; 1]>) -> KernelResult {
    layouts.into_iter().map(|l| t.alias_with(l.sizes, l.strides, l.offset)).collect()
}

pub fn view(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    match view_layouts_bound(k.ctx, k.op, &layout_of(x), k.syms) {
        Ok(layouts) => aliases(x, layouts),
        // Under value semantics the operand's layout is an implementation
        // choice; eager programs keep PyTorch's error.
        Err(m) if m == VIEW_NEEDS_COPY && in_value_semantics(k.ctx, k.op) => {
            let copy = x.deep_clone();
            let layouts = view_layouts_bound(k.ctx, k.op, &layout_of(&copy), k.syms)?;
            aliases(&copy, layouts)
        }
        Err(m) => Err(m),
    }
}

pub fn reshape(k: &mut KernelCtx<'_>) -> KernelResult {
    let x = k.input(0);
    match view_layouts_bound(k.ctx, k.op, &layout_of(x), k.syms) {
        Ok(layouts) => aliases(x, layouts),
        Err(m) if m == RESHAPE_NEEDS_COPY => {
            let rt = k.result_type(0)?;
            let copy = x.deep_clone();
            let l = Layout::contiguous(&rt.shape);
            Ok(smallvec![copy.alias_with(l.sizes, l.strides, 0)?])
        }
        Err(m) => Err(m),
    }
}

pub fn scatter(k: &mut KernelCtx<'_>) -> KernelResult {
    let (base, src) = (k.input(0), k.input(1));
    let def = k.ctx.op_def(k.op).ok_or("unregistered op")?;
    let si = def.interface::<ScatterInterface>().ok_or("not a scatter op")?;
    let out = Tensor::zeros(base.dtype(), &base.sizes(), k.physical(base.dtype()));
    out.copy_values_from(base);
    let l = (si.layout)(&k.attrs(), &layout_of(&out))?;
    let region = out.alias_with(l[0].sizes.clone(), l[0].strides.clone(), l[0].offset)?;
    region.copy_values_from(src);
    Ok(smallvec![out])
}
