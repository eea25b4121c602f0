//! The host half of the kernel emitter (`Flavor::Host`): a parallel loop
//! whose body holds a reduction loop (a column sum) is emitted several
//! iterations at a time, op by op ("jammed"), for LLVM's SLP vectorizer to
//! pack, since its loop vectorizer does not widen an outer loop.
//!
//! Invariant: each jammed lane reduces in the original order, so the
//! results are the scalar loop's bits.

use super::*;

impl<'a, 'll> Gen<'a, 'll> {
    /// The main part of a parallel loop with a nested loop in its body,
    /// `lanes` iterations at a time, op by op (unroll and jam): each op of
    /// the body is emitted once per lane, a nested loop once for all lanes
    /// with every lane's carried values. The lanes' loads, arithmetic and
    /// accumulators are then isomorphic straight-line code that LLVM's SLP
    /// vectorizer packs into vectors, which its loop vectorizer cannot do
    /// for an outer loop: a column sum (`sum` over dim 0) reduces 16
    /// columns per vector instead of one. Each lane reduces in the original
    /// order, so the results are the scalar loop's bits. Returns where the
    /// remainder starts.
    pub(super) fn jammed_loop(
        &mut self,
        op: Op,
        lo: IntValue<'ll>,
        hi: IntValue<'ll>,
        lanes: usize,
    ) -> Result<IntValue<'ll>, Diagnostic> {
        let ctx = self.ctx;
        let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
        let body_ir = ctx.single_block(op, 0).ok_or_else(|| self.err(op, "a loop needs a body"))?;
        let i64t = self.ll.i64_type();
        let width = i64t.const_int(lanes as u64, false);
        // j runs while j + lanes <= hi. Bounds are loop attributes (far
        // from overflow) clamped by `bounds`, so nothing here wraps. The
        // index is also carried, so the loop's result is where it stopped.
        let last = self.b.build_int_sub(hi, i64t.const_int(lanes as u64 - 1, false), "jam.last").map_err(fail)?;
        let rest = self.counted_loop(op, (lo, last, width), &[lo.into()], |g, j, _| {
            let mut lane_vals = Vec::with_capacity(lanes);
            for k in 0..lanes {
                let ik = g.b.build_int_add(j, i64t.const_int(k as u64, false), "lane").map_err(fail)?;
                let mut m = FxHashMap::default();
                m.insert(ctx.block_args(body_ir)[0], ik.into());
                lane_vals.push(m);
            }
            g.jammed_block(body_ir, &mut lane_vals)?;
            Ok(vec![g.b.build_int_add(j, width, "jam.next").map_err(fail)?.into()])
        })?;
        Ok(rest[0].into_int_value())
    }

    /// Emits `block` once per lane, op by op, with each lane's own values
    /// of what the jammed region defines; returns each lane's yield.
    pub(super) fn jammed_block(
        &mut self,
        block: aot_ir::Block,
        lanes: &mut [FxHashMap<Value, V<'ll>>],
    ) -> Result<Vec<Vec<V<'ll>>>, Diagnostic> {
        let ctx = self.ctx;
        for op in ctx.block_ops(block) {
            match LoopOp::of(ctx, op) {
                Some(LoopOp::Yield) => {
                    return lanes
                        .iter()
                        .map(|m| {
                            ctx.operands(op).map(|v| m.get(&v).copied().map_or_else(|| self.val(op, v), Ok)).collect()
                        })
                        .collect();
                }
                Some(LoopOp::For) => self.jammed_nested(op, lanes)?,
                _ => {
                    for m in lanes.iter_mut() {
                        for v in ctx.operands(op) {
                            if let Some(&x) = m.get(&v) {
                                self.vals.insert(v, x);
                            }
                        }
                        self.op(op)?;
                        for &r in ctx.results(op) {
                            let x = self.val(op, r)?;
                            m.insert(r, x);
                        }
                    }
                }
            }
        }
        Ok(vec![Vec::new(); lanes.len()])
    }

    /// A loop nested in a jammed region: one loop for all lanes, shared
    /// induction variable, every lane's carried values side by side.
    pub(super) fn jammed_nested(&mut self, op: Op, lanes: &mut [FxHashMap<Value, V<'ll>>]) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (lo, hi) = self.bounds(op)?;
        let body_ir = ctx.single_block(op, 0).ok_or_else(|| self.err(op, "a loop needs a body"))?;
        let args = ctx.block_args(body_ir).to_vec();
        let width = ctx.num_operands(op);
        let mut inits = Vec::with_capacity(lanes.len() * width);
        for m in lanes.iter() {
            for v in ctx.operands(op) {
                inits.push(m.get(&v).copied().map_or_else(|| self.val(op, v), Ok)?);
            }
        }
        let step = self.ll.i64_type().const_int(ctx.attr_i64(op, "step").unwrap_or(1) as u64, true);
        let results = self.counted_loop(op, (lo, hi, step), &inits, |g, i, carried| {
            for (m, phis) in lanes.iter_mut().zip(carried.chunks(width.max(1))) {
                m.insert(args[0], i.into());
                for (k, &phi) in phis.iter().enumerate() {
                    m.insert(args[k + 1], phi);
                }
            }
            Ok(g.jammed_block(body_ir, lanes)?.concat())
        })?;
        for (m, rs) in lanes.iter_mut().zip(results.chunks(width.max(1))) {
            for (&r, &v) in ctx.results(op).iter().zip(rs) {
                m.insert(r, v);
            }
        }
        Ok(())
    }
}

/// Most ops in a loop body that is unrolled and jammed (each is emitted once
/// per lane, so this bounds the code LLVM has to optimize).
pub(super) const JAM_MAX_OPS: usize = 48;

/// How many iterations of loop `op` to jam (see `Gen::jammed_loop`): for a
/// parallel loop of step 1 with no results whose body holds a nested loop
/// carrying only floats, and no check (a failing check must report the
/// first failing iteration's message, as the scalar loop does); 16 lanes
/// of f32 (a 512-bit vector), 8 when some carried value is f64.
pub(super) fn jam_lanes(ctx: &Context, op: Op) -> Option<usize> {
    if !ctx.has_attr(op, "parallel") || ctx.attr_i64(op, "step") != Some(1) || ctx.num_results(op) > 0 {
        return None;
    }
    let (mut ops, mut nested, mut ok, mut wide) = (0usize, false, true, false);
    let body = ctx.single_block(op, 0)?;
    for o in ctx.block_ops(body) {
        ctx.walk_pre(o, &mut |x| {
            ops += 1;
            match LoopOp::of(ctx, x) {
                Some(LoopOp::Assert) | None => ok = false,
                Some(LoopOp::For) => {
                    nested = true;
                    for &r in ctx.results(x) {
                        match ctx.type_data(ctx.value_type(r)) {
                            TypeData::Elem(ElemType::F32) => {}
                            TypeData::Elem(ElemType::F64) => wide = true,
                            _ => ok = false,
                        }
                    }
                    if ctx.num_results(x) == 0 {
                        ok = false;
                    }
                }
                _ => {}
            }
        });
    }
    (ok && nested && ops <= JAM_MAX_OPS).then_some(if wide { 8 } else { 16 })
}
