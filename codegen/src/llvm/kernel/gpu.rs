//! The GPU half of the kernel emitter (`Flavor::Ptx`): the grid-stride
//! split loop, rows shared by a warp or a block of threads (their
//! reductions combined through shuffles and shared memory), lanes that
//! interleave a row's loops, and the analyses that plan them.
//!
//! Invariant: every thread of a group runs the same iterations and reaches
//! the same barriers (a group is a warp, or the whole block).

use super::*;

impl<'a, 'll> Gen<'a, 'll> {
    /// This thread's index in the whole launch and the launch's thread
    /// count, as i64 (PTX special registers).
    pub(super) fn gpu_thread(&self) -> Result<(IntValue<'ll>, IntValue<'ll>), String> {
        let reg = |r| self.sreg(r);
        let (tid, ntid, ctaid, nctaid) = (reg("tid.x")?, reg("ntid.x")?, reg("ctaid.x")?, reg("nctaid.x")?);
        let base = self.b.build_int_mul(ctaid, ntid, "").map_err(bug)?;
        let id = self.b.build_int_add(base, tid, "thread").map_err(bug)?;
        let threads = self.b.build_int_mul(nctaid, ntid, "threads").map_err(bug)?;
        Ok((id, threads))
    }

    /// PTX special register `r` (`tid.x`, `ctaid.x`, ...) as an i64.
    pub(super) fn sreg(&self, r: &str) -> Result<IntValue<'ll>, String> {
        let v = self.intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{r}"), &[], &[])?.into_int_value();
        self.b.build_int_z_extend(v, self.ll.i64_type(), r).map_err(bug)
    }

    /// The split loop of a row-mapped kernel (`row_plan`): group `g` of the
    /// launch (a warp, or a block) runs iterations `lo + g·step`, striding
    /// over the groups; its lanes share the planned nested loops. A block
    /// group is the launch's block, so every thread of a block runs the
    /// same iterations and reaches the same barriers.
    pub(super) fn row_loop(
        &mut self,
        op: Op,
        (lo, hi, step): (IntValue<'ll>, IntValue<'ll>, IntValue<'ll>),
        plan: RowPlan,
    ) -> Result<(), Diagnostic> {
        let fail = |e: inkwell::builder::BuilderError| self.err(op, bug(e));
        let i64t = self.ll.i64_type();
        let (group, lane, groups) = if plan.threads == BLOCK_THREADS {
            let reg = |r| self.sreg(r).map_err(|m| self.err(op, m));
            (reg("ctaid.x")?, reg("tid.x")?, reg("nctaid.x")?)
        } else {
            let (id, threads) = self.gpu_thread().map_err(|m| self.err(op, m))?;
            let width = i64t.const_int(plan.threads, false);
            let group = self.b.build_int_unsigned_div(id, width, "warp").map_err(fail)?;
            let lane = self.b.build_int_unsigned_rem(id, width, "lane").map_err(fail)?;
            let groups = self.b.build_int_unsigned_div(threads, width, "warps").map_err(fail)?;
            (group, lane, groups)
        };
        let offset = self.b.build_int_mul(group, step, "offset").map_err(fail)?;
        let start = self.b.build_int_add(lo, offset, "start").map_err(fail)?;
        let stride = self.b.build_int_mul(groups, step, "stride").map_err(fail)?;
        self.threads = plan.threads;
        self.row = Some((plan, lane));
        let r = self.plain_loop(op, start, hi, stride);
        self.row = None;
        r
    }

    /// A reduction loop shared by a group's lanes: each lane accumulates
    /// its share of the iterations (lane `l` takes iterations `lo + l·step`
    /// striding by the group's width; for a nest, those of the innermost
    /// loop, `sliced` false) from the combiners' identities, the lanes'
    /// partial values are combined (`group_combine`, every lane getting
    /// the result), then the loop's initial values are combined in. The
    /// combiners are the kernel's own ops, so float semantics (NaN-
    /// propagating max and min) are the scalar loop's; only the order of
    /// the additions differs.
    pub(super) fn group_reduction(
        &mut self,
        op: Op,
        (lo, hi, step): (IntValue<'ll>, IntValue<'ll>, IntValue<'ll>),
        lane: IntValue<'ll>,
        combiners: &[Op],
        sliced: bool,
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let inits: Vec<V<'ll>> = ctx.operands(op).map(|v| self.val(op, v)).collect::<Result<_, _>>()?;
        let identities: Vec<V<'ll>> = inits
            .iter()
            .zip(combiners)
            .map(|(init, &c)| {
                let ft = init.into_float_value().get_type();
                let id = match binary_of(ctx, c) {
                    Some(Binary::Max) => f64::NEG_INFINITY,
                    Some(Binary::Min) => f64::INFINITY,
                    // -0.0, not 0.0: x + -0.0 is x for every x, -0.0 included.
                    _ => -0.0,
                };
                ft.const_float(id).into()
            })
            .collect();
        let partial = if sliced {
            self.lane_loop(op, (lo, hi, step), lane, &identities)?
        } else {
            self.body_loop(op, (lo, hi, step), &identities)?
        };
        for (k, (&r, v)) in ctx.results(op).iter().zip(partial).enumerate() {
            let c = combiners[k];
            let v = self.group_combine(op, c, v, lane)?;
            let v = self.combine(c, inits[k], v)?;
            self.vals.insert(r, v);
        }
        Ok(())
    }

    /// The lanes' values `v` combined with `c`, the same bits on every
    /// lane: a butterfly of shuffles within each warp, then, in a block,
    /// the warps' values through shared memory, combined by every thread
    /// in warp order. The barriers around the exchange keep a later
    /// exchange (the next value, the next row) from overwriting values
    /// still being read.
    pub(super) fn group_combine(
        &mut self,
        op: Op,
        c: Op,
        mut v: V<'ll>,
        lane: IntValue<'ll>,
    ) -> Result<V<'ll>, Diagnostic> {
        for mask in [16u64, 8, 4, 2, 1] {
            let other = self.shuffle_xor(v, mask).map_err(|m| self.err(op, m))?;
            v = self.combine(c, v, other)?;
        }
        if self.group_threads() != BLOCK_THREADS {
            return Ok(v);
        }
        let fail = |e: inkwell::builder::BuilderError| self.err(op, bug(e));
        let i64t = self.ll.i64_type();
        let ft = v.into_float_value().get_type();
        let warps = (BLOCK_THREADS / WARP) as u32;
        let slots = ft.array_type(warps);
        let name = if ft == self.ll.f32_type() { "aot.rows.f32" } else { "aot.rows.f64" };
        let shared = match self.module.get_global(name) {
            Some(g) => g,
            None => {
                let g = self.module.add_global(slots, Some(AddressSpace::from(3u16)), name);
                g.set_linkage(inkwell::module::Linkage::Internal);
                g.set_initializer(&slots.get_undef());
                g
            }
        };
        let base = shared.as_pointer_value();
        let slot = |g: &Self, w: IntValue<'ll>| -> Result<PointerValue<'ll>, Diagnostic> {
            // SAFETY (of the GEP): `w` is a warp of the block, below `warps`.
            unsafe { g.b.build_in_bounds_gep(slots, base, &[i64t.const_zero(), w], "slot") }
                .map_err(|e| g.err(op, bug(e)))
        };
        let width = i64t.const_int(WARP, false);
        let warp = self.b.build_int_unsigned_div(lane, width, "warp").map_err(fail)?;
        let first = self.b.build_int_unsigned_rem(lane, width, "lane.in.warp").map_err(fail)?;
        let first = self.b.build_int_compare(IntPredicate::EQ, first, i64t.const_zero(), "first").map_err(fail)?;
        let write = self.ll.append_basic_block(self.func, "exchange.write");
        let joined = self.ll.append_basic_block(self.func, "exchange");
        self.b.build_conditional_branch(first, write, joined).map_err(fail)?;
        self.b.position_at_end(write);
        let p = slot(self, warp)?;
        self.b.build_store(p, v).map_err(fail)?;
        self.b.build_unconditional_branch(joined).map_err(fail)?;
        self.b.position_at_end(joined);
        self.block_barrier().map_err(|m| self.err(op, m))?;
        let mut acc: Option<V<'ll>> = None;
        for w in 0..u64::from(warps) {
            let p = slot(self, i64t.const_int(w, false))?;
            let x = self.b.build_load(ft, p, "warp.value").map_err(|e| self.err(op, bug(e)))?;
            acc = Some(match acc {
                None => x,
                Some(a) => self.combine(c, a, x)?,
            });
        }
        self.block_barrier().map_err(|m| self.err(op, m))?;
        acc.ok_or_else(|| self.err(op, bug("a block without warps")))
    }

    /// Threads in the current row's group (1 outside one).
    pub(super) fn group_threads(&self) -> u64 {
        self.row.as_ref().map_or(1, |(p, _)| p.threads)
    }

    /// A loop that stores each element once, its iterations split across
    /// the group's lanes; the group then synchronizes (`bar.warp.sync` or
    /// `bar.sync`, which order the lanes' memory accesses) so the next
    /// loop may read any lane's stores.
    pub(super) fn group_store_loop(
        &mut self,
        op: Op,
        (lo, hi, step): (IntValue<'ll>, IntValue<'ll>, IntValue<'ll>),
        lane: IntValue<'ll>,
    ) -> Result<(), Diagnostic> {
        self.lane_loop(op, (lo, hi, step), lane, &[])?;
        let sync = if self.group_threads() == BLOCK_THREADS { self.block_barrier() } else { self.warp_sync() };
        sync.map_err(|m| self.err(op, m))
    }

    /// Where lane `lane` starts a loop from `lo` by `step`, and its stride
    /// (the group's lanes interleave).
    pub(super) fn lane_slice(
        &self,
        op: Op,
        lo: IntValue<'ll>,
        step: IntValue<'ll>,
        lane: IntValue<'ll>,
    ) -> Result<(IntValue<'ll>, IntValue<'ll>), Diagnostic> {
        let fail = |e: inkwell::builder::BuilderError| self.err(op, bug(e));
        let offset = self.b.build_int_mul(lane, step, "lane.offset").map_err(fail)?;
        let start = self.b.build_int_add(lo, offset, "lane.start").map_err(fail)?;
        let width = self.ll.i64_type().const_int(self.group_threads(), false);
        let stride = self.b.build_int_mul(step, width, "lane.stride").map_err(fail)?;
        Ok((start, stride))
    }

    /// Loop `op`'s iterations `lo..hi` by `step` shared by the group's
    /// lanes, each lane carrying its own values from `inits`; returns them
    /// after the loop. Where every access of the loop runs along it
    /// contiguously (`chunk_width`: V elements make 16 bytes) and the
    /// loop's buffers are 16-byte aligned at run time, each lane takes V
    /// consecutive iterations at a time: their accesses lie in one aligned
    /// 16 bytes, which LLVM's load/store vectorizer merges into 128-bit
    /// loads and stores (`ld.global.v4.f32`). The iterations left over, and
    /// every iteration when a buffer is not aligned, go one at a time.
    pub(super) fn lane_loop(
        &mut self,
        op: Op,
        (lo, hi, step): (IntValue<'ll>, IntValue<'ll>, IntValue<'ll>),
        lane: IntValue<'ll>,
        inits: &[V<'ll>],
    ) -> Result<Vec<V<'ll>>, Diagnostic> {
        let ctx = self.ctx;
        let (start, stride) = self.lane_slice(op, lo, step, lane)?;
        let Some((width, buffers)) = chunk_width(ctx, op) else {
            return self.body_loop(op, (start, hi, stride), inits);
        };
        let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
        let i64t = self.ll.i64_type();
        let lower = ctx.attr_i64(op, "lower").unwrap_or(0);
        let upper = ctx.attr_i64(op, "upper").unwrap_or(0);
        let chunks_end = i64t.const_int((lower + (upper - lower) / width * width) as u64, true);
        let mut aligned = self.ll.bool_type().const_all_ones();
        let mut masked = Vec::with_capacity(buffers.len());
        for &b in &buffers {
            let (p, m) = self.bufs.get(&b).cloned().ok_or_else(|| self.err(op, "access to an unknown buffer"))?;
            let addr = self.b.build_ptr_to_int(p, i64t, "addr").map_err(fail)?;
            let low = self.b.build_and(addr, i64t.const_int(15, false), "addr.low").map_err(fail)?;
            let ok =
                self.b.build_int_compare(IntPredicate::EQ, low, i64t.const_zero(), "addr.aligned").map_err(fail)?;
            aligned = self.b.build_and(aligned, ok, "aligned").map_err(fail)?;
            masked.push((b, p, m));
        }
        let vector = self.ll.append_basic_block(self.func, "chunks");
        let scalar = self.ll.append_basic_block(self.func, "one.by.one");
        let joined = self.ll.append_basic_block(self.func, "chunks.done");
        self.b.build_conditional_branch(aligned, vector, scalar).map_err(fail)?;

        self.b.position_at_end(vector);
        // Known aligned now: the masked pointer is the same address, and
        // tells LLVM so.
        let ptr_t = masked.first().map(|(_, p, _)| p.get_type()).ok_or_else(|| self.err(op, bug("no buffer")))?;
        let ptrmask =
            Intrinsic::find("llvm.ptrmask").ok_or_else(|| self.err(op, "LLVM has no intrinsic llvm.ptrmask"))?;
        let ptrmask = ptrmask
            .get_declaration(self.module, &[ptr_t.into(), i64t.into()])
            .ok_or_else(|| self.err(op, "llvm.ptrmask has no such overload"))?;
        for (b, p, m) in &masked {
            let mask = i64t.const_int((-16i64) as u64, true);
            let call = self.b.build_call(ptrmask, &[(*p).into(), mask.into()], "aligned.buf").map_err(fail)?;
            let q = call.try_as_basic_value().basic().ok_or_else(|| self.err(op, bug("ptrmask returned nothing")))?;
            self.bufs.insert(*b, (q.into_pointer_value(), m.clone()));
        }
        let w = i64t.const_int(width as u64, false);
        let chunk_start = self.b.build_int_mul(lane, w, "chunk.offset").map_err(fail)?;
        let chunk_start = self.b.build_int_add(lo, chunk_start, "chunk.start").map_err(fail)?;
        let chunk_stride = self.b.build_int_mul(stride, w, "chunk.stride").map_err(fail)?;
        let body_ir = ctx.single_block(op, 0).ok_or_else(|| self.err(op, "a loop needs a body"))?;
        let args = ctx.block_args(body_ir).to_vec();
        let chunked = self.counted_loop(op, (chunk_start, chunks_end, chunk_stride), inits, |g, i, carried| {
            let mut carried = carried.to_vec();
            for k in 0..width {
                let iv =
                    g.b.build_int_add(i, i64t.const_int(k as u64, false), "iv.k").map_err(|e| g.err(op, bug(e)))?;
                g.vals.insert(args[0], iv.into());
                for (j, &c) in carried.iter().enumerate() {
                    g.vals.insert(args[j + 1], c);
                }
                carried = g.region_ops(body_ir)?;
            }
            Ok(carried)
        });
        for (b, p, m) in masked {
            self.bufs.insert(b, (p, m));
        }
        let chunked = chunked?;
        let rest = self
            .b
            .build_int_add(chunks_end, self.b.build_int_mul(lane, step, "").map_err(fail)?, "rest")
            .map_err(fail)?;
        let vector_out = self.body_loop(op, (rest, hi, stride), &chunked)?;
        let vector_end = self.b.get_insert_block().ok_or_else(|| self.err(op, bug("no insertion block")))?;
        self.b.build_unconditional_branch(joined).map_err(fail)?;

        self.b.position_at_end(scalar);
        let scalar_out = self.body_loop(op, (start, hi, stride), inits)?;
        let scalar_end = self.b.get_insert_block().ok_or_else(|| self.err(op, bug("no insertion block")))?;
        self.b.build_unconditional_branch(joined).map_err(fail)?;

        self.b.position_at_end(joined);
        let mut out = Vec::with_capacity(inits.len());
        for (v, s) in vector_out.iter().zip(&scalar_out) {
            let phi = self.b.build_phi(v.get_type(), "carried").map_err(fail)?;
            phi.add_incoming(&[(v, vector_end), (s, scalar_end)]);
            out.push(phi.as_basic_value());
        }
        Ok(out)
    }

    /// `bar.warp.sync` over the whole warp.
    pub(super) fn warp_sync(&self) -> Result<(), String> {
        let name = "llvm.nvvm.bar.warp.sync";
        let i = Intrinsic::find(name).ok_or_else(|| format!("LLVM has no intrinsic {name}"))?;
        let f = i.get_declaration(self.module, &[]).ok_or_else(|| format!("{name} has no such overload"))?;
        let all = self.ll.i32_type().const_all_ones();
        self.b.build_call(f, &[all.into()], "").map_err(bug)?;
        Ok(())
    }

    /// `bar.sync 0` over the whole block (orders its threads' shared and
    /// global memory accesses).
    pub(super) fn block_barrier(&self) -> Result<(), String> {
        let name = "llvm.nvvm.barrier0";
        let i = Intrinsic::find(name).ok_or_else(|| format!("LLVM has no intrinsic {name}"))?;
        let f = i.get_declaration(self.module, &[]).ok_or_else(|| format!("{name} has no such overload"))?;
        self.b.build_call(f, &[], "").map_err(bug)?;
        Ok(())
    }

    /// The value of lane `lane ^ mask` (`shfl.sync.bfly` over the whole
    /// warp; an f64 as two 32-bit halves).
    pub(super) fn shuffle_xor(&self, v: V<'ll>, mask: u64) -> Result<V<'ll>, String> {
        let i32t = self.ll.i32_type();
        let all = i32t.const_all_ones();
        let m = i32t.const_int(mask, false);
        let clamp = i32t.const_int(WARP - 1, false);
        let fv = v.into_float_value();
        if fv.get_type() == self.ll.f32_type() {
            return self.intrinsic(
                "llvm.nvvm.shfl.sync.bfly.f32",
                &[],
                &[all.into(), fv.into(), m.into(), clamp.into()],
            );
        }
        let b = &self.b;
        let i64t = self.ll.i64_type();
        let bits = b.build_bit_cast(fv, i64t, "bits").map_err(bug)?.into_int_value();
        let lo = b.build_int_truncate(bits, i32t, "lo").map_err(bug)?;
        let hi = b.build_right_shift(bits, i64t.const_int(32, false), false, "").map_err(bug)?;
        let hi = b.build_int_truncate(hi, i32t, "hi").map_err(bug)?;
        let shfl = |x: IntValue<'ll>| -> Result<IntValue<'ll>, String> {
            Ok(self
                .intrinsic("llvm.nvvm.shfl.sync.bfly.i32", &[], &[all.into(), x.into(), m.into(), clamp.into()])?
                .into_int_value())
        };
        let (lo, hi) = (shfl(lo)?, shfl(hi)?);
        let lo = b.build_int_z_extend(lo, i64t, "").map_err(bug)?;
        let hi = b.build_int_z_extend(hi, i64t, "").map_err(bug)?;
        let hi = b.build_left_shift(hi, i64t.const_int(32, false), "").map_err(bug)?;
        let joined = b.build_or(hi, lo, "").map_err(bug)?;
        b.build_bit_cast(joined, fv.get_type(), "").map_err(bug)
    }

    /// `a ⊕ b` with combiner op `c` (the loop body's own op): its operands
    /// are bound to `a` and `b` for the emission, then restored.
    pub(super) fn combine(&mut self, c: Op, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, Diagnostic> {
        let ctx = self.ctx;
        let (x, y) = (ctx.operand(c, 0), ctx.operand(c, 1));
        let saved = (self.vals.get(&x).copied(), self.vals.get(&y).copied());
        self.vals.insert(x, a);
        self.vals.insert(y, b);
        self.op(c)?;
        let r = self.val(c, ctx.result(c, 0))?;
        for (k, old) in [(x, saved.0), (y, saved.1)] {
            match old {
                Some(v) => self.vals.insert(k, v),
                None => self.vals.remove(&k),
            };
        }
        Ok(r)
    }
}

/// Lanes of a warp.
pub(super) const WARP: u64 = 32;
/// Threads of every GPU block, and of a group that shares one row when it
/// is a whole block (`RowPlan::threads`).
pub(in crate::llvm) const BLOCK_THREADS: u64 = 256;
/// Rows whose reductions run at least this many iterations are shared by
/// a block rather than a warp (PyTorch's softmax switches at the same
/// length).
pub(super) const BLOCK_ROW_MIN: i64 = 1024;

/// How the threads of a group (a warp, or a whole block) share one row of
/// a GPU kernel: the body of its split loop, or the whole body of a kernel
/// without one (a full reduction). The group's lanes split the planned
/// loops' iterations between them and combine reductions (see
/// `Gen::group_reduction`, `Gen::group_store_loop`).
#[derive(Clone, Debug, Default)]
pub(super) struct RowPlan {
    /// Reduction loops whose carried values the group combines when they
    /// end, with the combiner op of each carried value, and whether the
    /// loop's own iterations are split across the lanes (a flat loop)
    /// rather than those of its innermost loop (a nest, `reduction_nest`).
    pub(super) reductions: FxHashMap<Op, (Vec<Op>, bool)>,
    /// Innermost loops of reduction nests: split across the lanes, their
    /// partial values combined by the nest's outermost loop.
    pub(super) sliced: FxHashSet<Op>,
    /// Loops without results that store each element once.
    pub(super) stores: FxHashSet<Op>,
    /// Threads in the group: `WARP` or `BLOCK_THREADS`.
    pub(super) threads: u64,
}

/// The row plan of `body` (the body of split loop `split`, or of a kernel
/// without one), if it has one: every loop directly in it is a reduction
/// (each carried value, an f32 or f64, updated only as `acc = acc ⊕ x`
/// with ⊕ a float `add`, `max` or `min`, `x` not depending on a carried
/// value, and nothing stored), a nest of loops around one
/// (`reduction_nest`), or a store loop (`store_loop_splits`); at least
/// one is a reduction, or a store loop of at least a warp's width of
/// iterations (an elementwise row); and the body has no check (a lane
/// leaving early would break the group's shuffles and barriers) and no
/// random draw.
/// Everything else in the body runs on every lane with the same values,
/// so its stores write the same value to the same element. Rows are then
/// read by the lanes side by side (coalesced) instead of one thread each.
///
/// The group's lanes meet after each planned loop (the shuffles and
/// barriers of a reduction, the barrier after a store loop) and nowhere
/// else, so a lane may run ahead of another between two meetings: no
/// store there (by the body itself or by a store loop) may reach a buffer
/// the body loaded since the last meeting, which a lane behind would
/// then read already written, or one the body stored since then, which a
/// lane behind would then overwrite with the earlier value.
///
/// A row of a split loop is shared by a warp, or by a block when one of
/// its split loops runs `BLOCK_ROW_MIN` iterations or more; a kernel
/// without a split loop runs on one block. `AOT_CUDA_ROW_THREADS` (1, 32
/// or 256) forces one thread per row (no plan), a warp or a block, for
/// measuring and for testing both paths on any shapes.
pub(super) fn row_plan(ctx: &Context, body: aot_ir::Block, split: Option<Op>) -> Option<RowPlan> {
    let forced = std::env::var("AOT_CUDA_ROW_THREADS").ok().and_then(|v| v.trim().parse::<u64>().ok());
    if forced == Some(1) {
        return None;
    }
    let mut plan = RowPlan::default();
    let mut longest = 0i64;
    // Buffers loaded and stored by the body itself since the lanes last met.
    let mut loaded: FxHashSet<Value> = FxHashSet::default();
    let mut stored: FxHashSet<Value> = FxHashSet::default();
    for o in ctx.block_ops(body) {
        match LoopOp::of(ctx, o) {
            None | Some(LoopOp::Assert) | Some(LoopOp::Philox) => return None,
            Some(LoopOp::Load) => {
                loaded.insert(buffer_class(ctx, ctx.operand(o, 0)));
            }
            Some(LoopOp::Store) => {
                let class = buffer_class(ctx, ctx.operand(o, 1));
                if loaded.contains(&class) || !stored.insert(class) {
                    return None;
                }
            }
            Some(LoopOp::For) => {
                let touched = |c: &Value| loaded.contains(c) || stored.contains(c);
                let stores_touched = ctx.single_block(o, 0).is_some_and(|b| {
                    ctx.block_ops(b).any(|s| {
                        LoopOp::of(ctx, s) == Some(LoopOp::Store) && touched(&buffer_class(ctx, ctx.operand(s, 1)))
                    })
                });
                if stores_touched {
                    return None;
                }
                loaded.clear();
                stored.clear();
                if let Some(c) = reduction_combiners(ctx, o) {
                    longest = longest.max(trips(ctx, o));
                    plan.reductions.insert(o, (c, true));
                } else if let Some((c, inner)) = reduction_nest(ctx, o) {
                    longest = longest.max(trips(ctx, inner));
                    plan.reductions.insert(o, (c, false));
                    plan.sliced.insert(inner);
                } else if store_loop_splits(ctx, o) {
                    longest = longest.max(trips(ctx, o));
                    plan.stores.insert(o);
                } else {
                    return None;
                }
            }
            _ => {}
        }
    }
    // Rows that only store (elementwise ops) are worth a group when a lane
    // gets at least one element: the group then reads and writes a row
    // side by side, coalesced, instead of one thread walking it.
    if plan.reductions.is_empty() && (plan.stores.is_empty() || longest < WARP as i64) {
        return None;
    }
    plan.threads = match forced {
        Some(t) if t == WARP || t == BLOCK_THREADS => t,
        _ if split.is_none() || longest >= BLOCK_ROW_MIN => BLOCK_THREADS,
        _ => WARP,
    };
    Some(plan)
}

/// The iterations loop `l` runs.
/// A symbolic bound counts at its hint: the plan it feeds (threads per
/// row) is a choice of speed, and every plan computes any trip count.
pub(super) fn trips(ctx: &Context, l: Op) -> i64 {
    let b = ForOp(l).bounds(ctx);
    let hint = |d: i64| if aot_ir::sym::is_symbolic(d) { aot_ir::sym::at_hint(d).unwrap_or(i64::MAX) } else { d };
    r#loop::analysis::trips(hint(b.lower), hint(b.upper), b.step)
}

/// Loop `l` as the outermost loop of a reduction nest, if it is one: it
/// carries values only into one nested loop (its only loop, no check,
/// draw or store beside it), whose results it yields as they are, and so
/// on down to a flat reduction loop (`reduction_combiners`). Returns that
/// loop's combiners and the loop itself. The lanes split the innermost
/// loop's iterations and carry their partial values through the whole
/// nest: a sum over every element of a matrix is a nest of two loops.
pub(super) fn reduction_nest(ctx: &Context, l: Op) -> Option<(Vec<Op>, Op)> {
    let mut cur = l;
    loop {
        if ctx.num_results(cur) == 0 {
            return None;
        }
        let body = ctx.single_block(cur, 0)?;
        let carried = &ctx.block_args(body)[1..];
        let mut inner = None;
        for o in ctx.block_ops(body) {
            match LoopOp::of(ctx, o) {
                None | Some(LoopOp::Assert) | Some(LoopOp::Philox) | Some(LoopOp::Store) => return None,
                Some(LoopOp::For) if inner.is_some() => return None,
                Some(LoopOp::For) => inner = Some(o),
                _ => {}
            }
        }
        let inner = inner?;
        let yield_op = ctx.block_last_op(body).filter(|&y| LoopOp::of(ctx, y) == Some(LoopOp::Yield))?;
        let threads_through = ctx.operands(inner).eq(carried.iter().copied())
            && carried.iter().all(|&a| ctx.num_uses(a) == 1)
            && ctx.operands(yield_op).eq(ctx.results(inner).iter().copied())
            && ctx.results(inner).iter().all(|&r| ctx.num_uses(r) == 1);
        if !threads_through {
            return None;
        }
        if let Some(c) = reduction_combiners(ctx, inner) {
            return Some((c, inner));
        }
        cur = inner;
    }
}

/// How many consecutive iterations of loop `l` one lane may take at a
/// time so that their accesses fill aligned 16-byte pieces (`Gen::
/// lane_loop`), and the buffers those accesses need aligned: `l` steps
/// by 1 from a multiple of the width, its body is flat, and every load
/// and store indexes one dimension by the induction variable itself
/// (stride 1: contiguous, or stride 0: the same element every time) and
/// the others by values from outside the loop, with the offset and the
/// other dimensions' strides multiples of the width. The width is 16
/// bytes of the smallest element accessed contiguously (2 to 8).
pub(super) fn chunk_width(ctx: &Context, l: Op) -> Option<(i64, Vec<Value>)> {
    if ctx.attr_i64(l, "step").unwrap_or(1) != 1 {
        return None;
    }
    let body = flat_body(ctx, l)?;
    let iv = ctx.block_args(body)[0];
    let outside = |v: Value| match ctx.defining_op(v) {
        Some(d) => !ctx.is_ancestor(l, d),
        None => ctx.value_block(v).and_then(|b| ctx.block_parent_op(b)).is_some_and(|p| !ctx.is_ancestor(l, p)),
    };
    // Per contiguous access: its buffer, the other dimensions' strides and
    // the offset.
    let mut contiguous: Vec<(Value, Vec<i64>, i64)> = Vec::new();
    let mut smallest = 16i64;
    for o in ctx.block_ops(body) {
        let (buf, first) = match LoopOp::of(ctx, o) {
            Some(LoopOp::Load) => (ctx.operand(o, 0), 1),
            Some(LoopOp::Store) => (ctx.operand(o, 1), 2),
            _ => continue,
        };
        let m = analysis::memref(ctx, buf)?;
        let idx: Vec<Value> = ctx.operands(o).skip(first).collect();
        let (strides, offset) = r#loop::layout(m);
        let mut along = None;
        for (d, &v) in idx.iter().enumerate() {
            if v == iv {
                if along.replace(d).is_some() {
                    return None;
                }
            } else if !outside(v) {
                return None;
            }
        }
        let Some(d) = along else { continue };
        match strides.get(d).copied() {
            Some(0) => {}
            Some(1) => {
                let others = strides.iter().enumerate().filter(|&(e, _)| e != d).map(|(_, &s)| s).collect();
                smallest = smallest.min(m.elem.byte_size() as i64);
                contiguous.push((buf, others, offset));
            }
            _ => return None,
        }
    }
    if contiguous.is_empty() {
        return None;
    }
    let width = (16 / smallest.max(1)).clamp(2, 8);
    let lower = ctx.attr_i64(l, "lower").unwrap_or(0);
    let upper = ctx.attr_i64(l, "upper").unwrap_or(0);
    // The chunked loop's end and its alignment are decided here, from
    // constants: a symbolic bound, stride or offset keeps the loop whole.
    let symbolic = |d: &i64| aot_ir::sym::is_symbolic(*d);
    if symbolic(&lower)
        || symbolic(&upper)
        || contiguous.iter().any(|(_, others, offset)| symbolic(offset) || others.iter().any(symbolic))
    {
        return None;
    }
    let fits = lower % width == 0
        && upper - lower >= width
        && contiguous.iter().all(|(_, others, offset)| offset % width == 0 && others.iter().all(|s| s % width == 0));
    if !fits {
        return None;
    }
    let mut seen = FxHashSet::default();
    let buffers: Vec<Value> = contiguous.into_iter().map(|(b, _, _)| b).filter(|&b| seen.insert(b)).collect();
    Some((width, buffers))
}

/// The body of loop `l` without nested loops, checks or draws.
pub(super) fn flat_body(ctx: &Context, l: Op) -> Option<aot_ir::Block> {
    let body = ctx.single_block(l, 0)?;
    let flat = ctx
        .block_ops(body)
        .all(|o| !matches!(LoopOp::of(ctx, o), None | Some(LoopOp::For) | Some(LoopOp::Assert) | Some(LoopOp::Philox)));
    flat.then_some(body)
}

/// The combiner of each carried value of reduction loop `l` (see
/// `warp_plan`), if it is one.
pub(super) fn reduction_combiners(ctx: &Context, l: Op) -> Option<Vec<Op>> {
    if ctx.num_results(l) == 0 {
        return None;
    }
    let body = flat_body(ctx, l)?;
    if ctx.block_ops(body).any(|o| LoopOp::of(ctx, o) == Some(LoopOp::Store)) {
        return None;
    }
    let args = ctx.block_args(body);
    let yield_op = ctx.block_last_op(body).filter(|&y| LoopOp::of(ctx, y) == Some(LoopOp::Yield))?;
    let mut combiners = Vec::new();
    for (k, &acc) in args[1..].iter().enumerate() {
        if !matches!(ctx.type_data(ctx.value_type(acc)), TypeData::Elem(ElemType::F32 | ElemType::F64)) {
            return None;
        }
        let c = ctx.defining_op(ctx.operand(yield_op, k))?;
        if !matches!(binary_of(ctx, c), Some(Binary::Add | Binary::Max | Binary::Min)) {
            return None;
        }
        let (x, y) = (ctx.operand(c, 0), ctx.operand(c, 1));
        let other = if x == acc {
            y
        } else if y == acc {
            x
        } else {
            return None;
        };
        // `acc` feeds only its combiner, which feeds only the yield, so no
        // other value of the body depends on a carried value.
        if args[1..].contains(&other) || ctx.num_uses(acc) != 1 || ctx.num_uses(ctx.result(c, 0)) != 1 {
            return None;
        }
        combiners.push(c);
    }
    Some(combiners)
}

/// Whether loop `l` (no results) stores each element once, so its
/// iterations may run on different lanes: every store indexes one
/// dimension of non-zero stride by the induction variable itself and the
/// others by values defined outside the loop; a load of a buffer the loop
/// stores reads an element the same iteration stores.
pub(super) fn store_loop_splits(ctx: &Context, l: Op) -> bool {
    if ctx.num_results(l) > 0 {
        return false;
    }
    let Some(body) = flat_body(ctx, l) else { return false };
    let iv = ctx.block_args(body)[0];
    let outside = |v: Value| match ctx.defining_op(v) {
        Some(d) => !ctx.is_ancestor(l, d),
        None => ctx.value_block(v).and_then(|b| ctx.block_parent_op(b)).is_some_and(|p| !ctx.is_ancestor(l, p)),
    };
    let mut stored: Vec<(Value, Vec<Value>)> = Vec::new();
    for o in ctx.block_ops(body) {
        if LoopOp::of(ctx, o) != Some(LoopOp::Store) {
            continue;
        }
        let buf = ctx.operand(o, 1);
        let idx: Vec<Value> = ctx.operands(o).skip(2).collect();
        let Some(m) = analysis::memref(ctx, buf) else { return false };
        let at: Vec<usize> = (0..idx.len()).filter(|&d| idx[d] == iv).collect();
        let [d] = at[..] else { return false };
        let stride = m.layout.as_ref().map_or(1, |(s, _)| s.get(d).copied().unwrap_or(0));
        if stride == 0 || idx.iter().enumerate().any(|(e, &v)| e != d && !outside(v)) {
            return false;
        }
        stored.push((buf, idx));
    }
    if stored.is_empty() {
        return false;
    }
    ctx.block_ops(body).filter(|&o| LoopOp::of(ctx, o) == Some(LoopOp::Load)).all(|o| {
        let buf = ctx.operand(o, 0);
        let idx: Vec<Value> = ctx.operands(o).skip(1).collect();
        stored.iter().all(|(s, sidx)| buffer_class(ctx, *s) != buffer_class(ctx, buf) || *sidx == idx)
    })
}

/// The binary scalar op `op` is, if it is one.
pub(super) fn binary_of(ctx: &Context, op: Op) -> Option<Binary> {
    match LoopOp::of(ctx, op) {
        Some(LoopOp::Scalar(ScalarOp::Binary(b))) => Some(b),
        _ => None,
    }
}
