//! Lowering of the `view` dialect to loops: a view op is a `loop.view` of
//! its operand's buffer under the layout its rule computes (no copy); a
//! reshape that no strides can express copies first, as the interpreter
//! does; a scatter op copies `base` and writes `src` through the matching
//! view of the copy, or of `base` itself when nothing reads `base` later.

use super::{view_layouts, Layout, ScatterInterface, RESHAPE_NEEDS_COPY, SYMBOLIC_VIEW_NEEDS_COPY, VIEW_NEEDS_COPY};
use crate::lowering::*;
use crate::r#loop;
use aot_ir::*;

fn layout_of(m: &MemRefType) -> Layout {
    let (strides, offset) = r#loop::layout(m);
    Layout { sizes: m.shape.clone(), strides, offset }
}

/// Whether buffer `v` is a function argument's own buffer, following
/// argument rebinds back to a block argument. (A view of an argument, an
/// `expand` or a transpose, is a value whose elements are not in the
/// argument's storage order: `as_strided` of it addresses its own.)
fn rooted_at_argument(ctx: &Context, mut v: Value) -> bool {
    loop {
        match ctx.value_def(v) {
            ValueDef::BlockArg { .. } => return true,
            ValueDef::Result { op, .. } if [r#loop::REBIND, r#loop::RESIZE].contains(&ctx.op_name(op)) => {
                v = ctx.operand(op, 0);
            }
            _ => return false,
        }
    }
}

pub fn view(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let mut x = lc.operand(0)?;
    let mut m = lc.operand_type(0)?;
    let op = lc.op;
    // `as_strided` addresses its operand's storage. For an argument that is
    // the buffer it was bound to; for an intermediate value it is the
    // value's own contiguous storage (the base functionalize regenerates
    // views from), which a transposed view of a temporary is not.
    if lc.ctx().op_name(op) == "view.as_strided" && m.layout.is_some() && !rooted_at_argument(lc.ctx(), x) {
        x = lc.contiguous(x)?;
        m = memref(lc.ctx(), x).cloned().ok_or("not a buffer")?;
    }
    let layouts = match view_layouts(lc.ctx(), op, &layout_of(&m)) {
        Ok(l) => l,
        // Lowered functions have value semantics: a view the buffer's layout
        // cannot express (its operand's layout was the backend's choice)
        // copies, as a reshape does.
        Err(e) if e == RESHAPE_NEEDS_COPY || e == VIEW_NEEDS_COPY || e == SYMBOLIC_VIEW_NEEDS_COPY => {
            x = lc.contiguous(x)?;
            m = memref(lc.ctx(), x).cloned().ok_or("not a buffer")?;
            view_layouts(lc.ctx(), op, &layout_of(&m))?
        }
        Err(e) => return Err(e),
    };
    for (i, l) in layouts.iter().enumerate() {
        let v = lc.view(x, &l.sizes, &l.strides, l.offset)?;
        lc.set_result(i, v);
    }
    Ok(())
}

pub fn scatter(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let (base, src) = (lc.operand(0)?, lc.operand(1)?);
    let rt = lc.result_type(0)?;
    let si = lc.ctx().op_def(lc.op).and_then(|d| d.interface::<ScatterInterface>()).ok_or("not a scatter op")?;
    let l = (si.layout)(&AttrView::of_op(lc.ctx(), lc.op), &Layout::contiguous(&rt.shape))?;
    // A region covering the whole base is `src` itself, whatever autograd
    // saw of the write (the folds keep a hidden one for the gradient's
    // sake, which lowered code no longer has): no copy of the base and no
    // copy of `src`, so the kernel that made `src` fuses with its readers
    // (an in-place activation, `x.silu_()`, is such a scatter). Only a
    // temporary's dense buffer is taken: an argument's memory must not
    // become a fresh result.
    if l[0].sizes == rt.shape && super::folds::is_contiguous_layout(&l[0].sizes, &l[0].strides, l[0].offset) {
        let dense_temporary = memref(lc.ctx(), src)
            .is_some_and(|m| m.layout.is_none() && m.shape == rt.shape && m.elem == rt.elem)
            && lc
                .ctx()
                .defining_op(r#loop::analysis::root_of(lc.ctx(), src))
                .is_some_and(|d| r#loop::LoopOp::of(lc.ctx(), d) == Some(r#loop::LoopOp::Alloc));
        if dense_temporary {
            lc.set_result(0, src);
            return Ok(());
        }
    }
    // A base nothing reads afterwards takes the write in place: the
    // region alone is written (gradient accumulation into overlapping
    // windows is a chain of such scatters).
    let out = if lc.reusable(0) && memref(lc.ctx(), base).cloned().is_some_and(|m| m.layout.is_none()) {
        base
    } else {
        let out = lc.alloc(&rt.shape, rt.elem);
        lc.copy_into(base, out)?;
        out
    };
    let region = lc.view(out, &l[0].sizes, &l[0].strides, l[0].offset)?;
    lc.copy_into(src, region)?;
    lc.set_result(0, out);
    Ok(())
}
