//! The `dist` dialect's interpreter kernels and lowerings: each collective
//! copies its operand into a contiguous buffer and hands it, with a fresh
//! contiguous result, to the communicator of its group
//! (`aot_runtime::dist::run`); lowered, it is one `loop.collective` host
//! step over such buffers, which the native executor runs the same way.

use super::{group_of, reduce_of};
use crate::lowering::LowerCtx;
use aot_ir::{AttrView, Context, Op};
use aot_runtime::dist::{Collective, Data, DataMut};
use aot_runtime::{KernelCtx, KernelResult, Tensor};
use smallvec::smallvec;

/// The collective op `op` describes, from its name and attributes.
pub fn collective_of(ctx: &Context, op: Op) -> Result<Collective, String> {
    let a = AttrView::of_op(ctx, op);
    collective_from(ctx.op_name(op), &a)
}

/// The collective of op `name` (a `dist` op, or the `kind` of a
/// `loop.collective`) with attributes `a`.
pub fn collective_from(name: &str, a: &AttrView<'_>) -> Result<Collective, String> {
    Ok(match name.rsplit('.').next().unwrap_or(name) {
        "all_reduce" => Collective::AllReduce(reduce_of(a)?),
        "all_gather" => Collective::AllGather,
        "reduce_scatter" => Collective::ReduceScatter(reduce_of(a)?),
        "all_to_all" => Collective::AllToAll,
        "broadcast" => {
            let src = a.req_i64("src")?;
            Collective::Broadcast { src: usize::try_from(src).map_err(|_| format!("'src' must be a rank, got {src}"))? }
        }
        other => return Err(format!("'{other}' is not a collective")),
    })
}

/// The interpreter kernel of every collective.
pub fn collective(k: &mut KernelCtx<'_>) -> KernelResult {
    let a = k.attrs();
    let (group, size) = group_of(&a)?;
    let op = collective_of(k.ctx, k.op)?;
    let x = k.input(0);
    let rt = k.result_type(0)?;
    let phys = k.physical(rt.elem);
    // Contiguous copies in the interpreter's physical type (f64 where it
    // promotes floats): the communicator reads and writes whole buffers.
    let input = Tensor::zeros(x.dtype(), &x.sizes(), phys);
    input.copy_values_from(x);
    let out = Tensor::zeros(rt.elem, &rt.shape, phys);
    {
        let (si, so) = (input.storage(), out.storage());
        let mut bi = si.buf_mut();
        let mut bo = so.buf_mut();
        let (ni, no) = (bi.byte_len(), bo.byte_len());
        // SAFETY: each slice covers exactly its own buffer's bytes, and the
        // two buffers are distinct storages borrowed for this block.
        let (ib, ob) = unsafe {
            (std::slice::from_raw_parts(bi.as_mut_ptr(), ni), std::slice::from_raw_parts_mut(bo.as_mut_ptr(), no))
        };
        let shape_in = x.sizes();
        aot_runtime::dist::run(
            &group,
            size as usize,
            &op,
            Data { elem: phys, shape: &shape_in, bytes: ib },
            DataMut { elem: phys, shape: &rt.shape, bytes: ob },
        )?;
    }
    Ok(smallvec![out])
}

pub fn wait(k: &mut KernelCtx<'_>) -> KernelResult {
    Ok(smallvec![k.input(0).clone()])
}

/// A collective as `loop.collective` over a contiguous copy of its operand
/// (unless it is one already) into a fresh buffer.
pub fn lower_collective(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let x = lc.operand(0)?;
    let x = lc.contiguous(x)?;
    let out = lc.alloc(&rt.shape, rt.elem);
    let kind = lc.ctx().op_name(lc.op).rsplit('.').next().unwrap_or("").to_string();
    let mut attrs = vec![("kind", lc.rw.str_attr(&kind))];
    for name in ["group", "size", "reduce", "src"] {
        if let Some(a) = lc.attrs().get(name) {
            attrs.push((name, a));
        }
    }
    lc.rw.build_typed(crate::r#loop::COLLECTIVE, &[x, out], &attrs, &[]);
    lc.set_result(0, out);
    Ok(())
}

/// `dist.wait` lowers to its operand.
pub fn lower_wait(lc: &mut LowerCtx<'_, '_>) -> Result<(), String> {
    let x = lc.operand(0)?;
    lc.set_result(0, x);
    Ok(())
}
