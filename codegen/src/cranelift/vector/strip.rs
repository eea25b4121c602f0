//! Strip-mined math: a vectorized loop whose body computes the math
//! table's polynomials (`exp`, `tanh`, `erf`, `erfc`: GELU, sigmoid,
//! softmax) runs most of its iterations in strips of [`STRIP`], each in
//! stages. Stage `k` computes, for every iteration of the strip, the
//! argument of the body's `k`-th polynomial and stores it into a scratch
//! buffer on the stack; one call of the eight-lane helper
//! ([`crate::lanes8`]) replaces the buffer by the values; the last stage
//! runs the rest of the body (its stores and reductions) with the
//! polynomials' values loaded from the buffers. What a stage needs of the
//! body before its polynomial (loads, index arithmetic, cheap lane ops) it
//! computes again rather than keeping it.
//!
//! Invariants: the results are the same bits as the plain vector loop's.
//! The helpers compute each polynomial as the lanes do (`lanes8`'s
//! invariant), and the last stage runs two body copies per pair of vectors
//! with the two accumulators of the unrolled vector loop, in its order, so
//! every reduction adds the same values in the same sequence; the strips
//! start at the loop's lower bound and cover multiples of eight
//! iterations, where the unrolled loop then carries on. A loop qualifies
//! only without nested loops, asserts or random numbers, and with every
//! load before every store in its body (a stage's loads run before the
//! strip's stores: the iterations are independent, as the vector loop
//! already assumes, and no load may read what its own iteration stored).

use super::analysis::{Kind, Plan};
use super::{emit_ops, vflags, Vec4, LANES, V};
use crate::cranelift::kernel::Gen;
use crate::lanes8;
use crate::libcalls::Sig;
use aot_dialects::r#loop::math::{LaneImpl, Poly};
use aot_dialects::r#loop::{LoopOp, ScalarOp};
use aot_ir::{Context, Diagnostic, Op, Value};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self as cl, types, BlockArg, InstBuilder, StackSlotData, StackSlotKind};
use rustc_hash::{FxHashMap, FxHashSet};

/// Iterations per strip: sixteen vectors of four lanes, eight rounds of
/// the helpers' eight lanes. Long enough that a helper's call and the
/// recomputed loads are small beside the polynomial, short enough that a
/// stage's scratch stays in L1.
pub(super) const STRIP: i64 = 64;

/// A loop's stages.
pub(super) struct Strips {
    /// The polynomial ops the helpers compute, in body order.
    math: Vec<(Op, Poly)>,
    /// Per stage, the body ops it emits (stage `k < math.len()` computes
    /// `math[k]`'s argument; the last one the rest of the body), and which
    /// polynomials' values it loads.
    stages: Vec<(FxHashSet<Op>, Vec<usize>)>,
}

/// The stages of vectorized loop `op` (with lane plan `plan`), when it
/// qualifies.
pub(super) fn plan(ctx: &Context, op: Op, plan: &Plan) -> Option<Strips> {
    if let (Some(lo), Some(hi)) = (ctx.attr_i64(op, "lower"), ctx.attr_i64(op, "upper")) {
        if !aot_ir::sym::is_symbolic(hi) && hi.saturating_sub(lo) < STRIP {
            return None;
        }
    }
    let body = ctx.single_block(op, 0)?;
    let mut math: Vec<(Op, Poly)> = Vec::new();
    let mut stored = false;
    let mut outputs: Vec<Op> = Vec::new();
    for o in ctx.block_ops(body) {
        match LoopOp::of(ctx, o) {
            Some(LoopOp::Store) => {
                stored = true;
                outputs.push(o);
            }
            Some(LoopOp::Load) if stored => return None,
            Some(LoopOp::Load | LoopOp::Constant | LoopOp::Yield) => {}
            Some(LoopOp::Scalar(ScalarOp::Math(f))) => {
                if let (LaneImpl::Poly(p), Some(Kind::Lane)) = (f.fact().lanes, plan.kinds.get(&ctx.result(o, 0))) {
                    math.push((o, p));
                }
            }
            Some(LoopOp::Scalar(_)) => {}
            _ => return None,
        }
    }
    if math.is_empty() {
        return None;
    }
    outputs.extend(plan.reductions.iter().map(|&(_, u)| u));
    let index: FxHashMap<Op, usize> = math.iter().enumerate().map(|(k, &(o, _))| (o, k)).collect();
    let mut stages = Vec::new();
    for k in 0..=math.len() {
        let roots: Vec<Op> =
            if k < math.len() { vec![ctx.defining_op(ctx.operand(math[k].0, 0))?] } else { outputs.clone() };
        let (mut keep, mut loads) = (FxHashSet::default(), Vec::new());
        let mut work = roots;
        while let Some(o) = work.pop() {
            if ctx.op_block(o) != Some(body) || !keep.insert(o) {
                continue;
            }
            for v in ctx.operands(o) {
                let Some(d) = ctx.defining_op(v) else { continue };
                match index.get(&d) {
                    // A polynomial an earlier stage computed: loaded.
                    Some(&j) if j < k => {
                        if !loads.contains(&j) {
                            loads.push(j);
                        }
                    }
                    // (A later one cannot feed this stage: it comes after
                    // its output in the body.)
                    Some(_) => return None,
                    None => work.push(d),
                }
            }
        }
        stages.push((keep, loads));
    }
    Some(Strips { math, stages })
}

/// Runs strips of [`STRIP`] iterations from `lo` while they fit below
/// `hi`, carrying the unrolled vector loop's two sets of accumulators
/// `accs`; returns where the strips stopped and the accumulators.
pub(super) fn strip_loop(
    g: &mut Gen<'_, '_>,
    plan: &Plan,
    strips: &Strips,
    op: Op,
    lo: cl::Value,
    hi: cl::Value,
    accs: &[Vec<cl::Value>],
) -> Result<(cl::Value, Vec<Vec<cl::Value>>), Diagnostic> {
    let per = plan.reductions.len();
    let n = strips.math.len();
    let bytes = u32::try_from(n as i64 * STRIP * 4).map_err(|_| g.err(op, "strip scratch too large"))?;
    let slot = g.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 5));
    let (header, body, exit) = (g.b.create_block(), g.b.create_block(), g.b.create_block());
    for blk in [header, exit] {
        g.b.append_block_param(blk, types::I64);
        for _ in 0..2 * per {
            g.b.append_block_param(blk, types::F32X4);
        }
    }
    let mut init: Vec<BlockArg> = vec![lo.into()];
    init.extend(accs.iter().flatten().map(|&v| BlockArg::from(v)));
    g.b.ins().jump(header, &init);
    g.b.switch_to_block(header);
    let hp = g.b.block_params(header).to_vec();
    let next = g.b.ins().iadd_imm_s(hp[0], STRIP);
    let over = g.b.ins().icmp(IntCC::SignedGreaterThan, next, hi);
    let out: Vec<BlockArg> = hp.iter().map(|&v| v.into()).collect();
    // (The body is the else-target, for Cranelift's hoisting.)
    g.b.ins().brif(over, exit, &out, body, &[]);
    g.b.switch_to_block(body);
    let iv = hp[0];
    let scratch = g.b.ins().stack_addr(types::I64, slot, 0);
    for k in 0..n {
        pairs(g, &[], |g, j, _| {
            for u in 0..2 {
                stage(g, plan, strips, op, k, iv, scratch, j, u, &mut [])?;
            }
            Ok(Vec::new())
        })?;
        let helper = g.libcall(lanes8::symbol(strips.math[k].1), Sig::Lanes8).map_err(|m| g.err(op, m))?;
        let at = g.b.ins().iadd_imm_s(scratch, k as i64 * STRIP * 4);
        let count = g.b.ins().iconst(types::I64, STRIP);
        g.b.ins().call(helper, &[at, count]);
    }
    let carried: Vec<cl::Value> = hp[1..].to_vec();
    let new = pairs(g, &carried, |g, j, carried| {
        let mut all = Vec::with_capacity(2 * per);
        for u in 0..2 {
            let mut mine = carried[u * per..(u + 1) * per].to_vec();
            stage(g, plan, strips, op, n, iv, scratch, j, u, &mut mine)?;
            all.extend(mine);
        }
        Ok(all)
    })?;
    let mut back: Vec<BlockArg> = vec![next.into()];
    back.extend(new.into_iter().map(BlockArg::from));
    g.b.ins().jump(header, &back);
    g.b.switch_to_block(exit);
    let ep = g.b.block_params(exit).to_vec();
    let accs_out = (0..2).map(|u| ep[1 + u * per..1 + (u + 1) * per].to_vec()).collect();
    Ok((ep[0], accs_out))
}

/// A loop over the strip's pairs of vectors, `j` = 0, 8, …, STRIP - 8
/// (iterations from the strip's start), carrying `carried` (F32X4 values)
/// through `each`.
fn pairs(
    g: &mut Gen<'_, '_>,
    carried: &[cl::Value],
    mut each: impl FnMut(&mut Gen<'_, '_>, cl::Value, &[cl::Value]) -> Result<Vec<cl::Value>, Diagnostic>,
) -> Result<Vec<cl::Value>, Diagnostic> {
    let (header, body, exit) = (g.b.create_block(), g.b.create_block(), g.b.create_block());
    g.b.append_block_param(header, types::I64);
    for _ in carried {
        g.b.append_block_param(header, types::F32X4);
        g.b.append_block_param(exit, types::F32X4);
    }
    let mut init: Vec<BlockArg> = vec![g.b.ins().iconst(types::I64, 0).into()];
    init.extend(carried.iter().map(|&v| BlockArg::from(v)));
    g.b.ins().jump(header, &init);
    g.b.switch_to_block(header);
    let hp = g.b.block_params(header).to_vec();
    let done = g.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, hp[0], STRIP);
    let out: Vec<BlockArg> = hp[1..].iter().map(|&v| v.into()).collect();
    g.b.ins().brif(done, exit, &out, body, &[]);
    g.b.switch_to_block(body);
    let new = each(g, hp[0], &hp[1..])?;
    let mut back: Vec<BlockArg> = vec![g.b.ins().iadd_imm_s(hp[0], 2 * LANES).into()];
    back.extend(new.into_iter().map(BlockArg::from));
    g.b.ins().jump(header, &back);
    g.b.switch_to_block(exit);
    Ok(g.b.block_params(exit).to_vec())
}

/// Emits stage `k` for the vector of iterations `iv + j + 4u`: the
/// polynomials it uses loaded from their scratch, its ops, and (before the
/// last stage) its polynomial's argument stored into its scratch.
#[allow(clippy::too_many_arguments)]
fn stage(
    g: &mut Gen<'_, '_>,
    plan: &Plan,
    strips: &Strips,
    op: Op,
    k: usize,
    iv: cl::Value,
    scratch: cl::Value,
    j: cl::Value,
    u: usize,
    accs: &mut [cl::Value],
) -> Result<(), Diagnostic> {
    let ctx = g.ctx;
    let body = ctx.single_block(op, 0).ok_or_else(|| g.err(op, "a loop needs a body"))?;
    let args: Vec<Value> = ctx.block_args(body).to_vec();
    let (keep, loads) = &strips.stages[k];
    let first = g.b.ins().iadd(iv, j);
    let at = if u == 0 { first } else { g.b.ins().iadd_imm_s(first, LANES * u as i64) };
    // Byte offset of this vector within a scratch buffer.
    let lane_bytes = g.b.ins().imul_imm_s(j, 4);
    let lane_bytes = g.b.ins().iadd_imm_s(lane_bytes, LANES * 4 * u as i64);
    let within = g.b.ins().iadd(scratch, lane_bytes);
    let mut vs = Vec4 { g, vals: FxHashMap::default() };
    vs.g.vals.insert(args[0], at);
    for (c, &a) in args[1..].iter().zip(accs.iter()) {
        vs.vals.insert(*c, V::L(a));
    }
    for &m in loads {
        let off = i32::try_from(m as i64 * STRIP * 4).map_err(|_| vs.g.err(op, "strip scratch too large"))?;
        let v = vs.ins().load(types::F32X4, vflags(), within, off);
        vs.vals.insert(ctx.result(strips.math[m].0, 0), V::L(v));
    }
    emit_ops(&mut vs, plan, body, accs, Some(keep))?;
    if let Some(&(m, _)) = strips.math.get(k) {
        let x = vs.get(m, ctx.operand(m, 0))?;
        let x = vs.lane(x, false);
        let off = i32::try_from(k as i64 * STRIP * 4).map_err(|_| vs.g.err(op, "strip scratch too large"))?;
        vs.ins().store(vflags(), x, within, off);
    }
    Ok(())
}
