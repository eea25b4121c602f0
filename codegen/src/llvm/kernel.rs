//! One `loop.kernel` to one LLVM function, `i32 (ptr buffers, i64 lo,
//! i64 hi)`, the signature every native kernel has (see `program::KernelFn`).
//!
//! Loops become header/body/exit blocks with phis for the induction
//! variable and the iter_args; the outermost parallel loop runs the caller's
//! `lo..hi`. Scalars map to LLVM types (`index` and `i64` to i64, `i1` to
//! i1 — stored as a byte —, `f16`/`bf16` to i16 bit patterns); a load or
//! store addresses `base + (offset + Σ iₖ·strideₖ) · size` from the memref
//! layout. The code is scalar: LLVM's loop vectorizer widens it to the
//! host's vector width after O3. It does not widen an outer loop, so a
//! parallel loop whose body holds a reduction loop (a column sum) is
//! emitted 16 iterations at a time, op by op (`jammed_loop`), for the SLP
//! vectorizer to pack; the remainder runs as the scalar loop. The split
//! loop's slice is clamped into its bounds, which the division analysis
//! (`r#loop::range`) relies on. A buffer that no other operand of the
//! kernel may share memory with (its host allocation is its own: not a view
//! of another operand, not a function argument, which may be views of one
//! storage) gets an alias scope of its own, and every other access is
//! marked as not touching it, so the vectorizer needs no run-time overlap
//! checks for it. Math functions with a lane polynomial
//! compute with it (the same operations as the Cranelift lanes, so the same
//! bits), inline, where the vectorizer can widen them; the others, and
//! `exact` ones, call the math table's libm wrappers.

use crate::libcalls::{self, Sig};
use aot_dialects::r#loop::analysis;
use aot_dialects::r#loop::analysis::{alias_class, root_of, ForOp};
use aot_dialects::r#loop::expand::{self, IntCmp, IntOp};
use aot_dialects::r#loop::math::{LaneImpl, Lanes};
use aot_dialects::r#loop::{self, Binary, CastPlan, Conversion, LoopOp, MathFn, Predicate, ScalarOp, Unary};
use aot_ir::{AttrData, Context, Diagnostic, ElemType, MemRefType, Op, TypeData, Value};
use aot_runtime::philox;
use inkwell::builder::Builder;
use inkwell::context::Context as LlContext;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, FloatType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FloatValue, FunctionValue, InstructionValue, IntValue,
    MetadataValue, PointerValue,
};
use inkwell::{AddressSpace, FloatPredicate, IntPredicate};
use rustc_hash::{FxHashMap, FxHashSet};

type V<'ll> = BasicValueEnum<'ll>;

/// The machine a kernel runs on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Flavor {
    /// The host CPU: `i32 (ptr buffers, i64 lo, i64 hi)`, returning the
    /// failed check's code (0: none).
    Host,
    /// An NVIDIA GPU: `void (ptr buffers, i64 lo, i64 hi, ptr status)`, a
    /// PTX entry. The split loop becomes a grid-stride loop over the
    /// threads of the launch; a kernel without one runs on global thread
    /// 0 alone. A failed check writes its code to `*status`.
    Ptx,
}

/// What a kernel is compiled against.
pub(super) struct Target<'t> {
    pub cpu: &'t str,
    pub features: &'t str,
    pub flavor: Flavor,
}

pub(super) struct Gen<'a, 'll> {
    ctx: &'a Context,
    ll: &'ll LlContext,
    module: &'a Module<'ll>,
    b: Builder<'ll>,
    func: FunctionValue<'ll>,
    vals: FxHashMap<Value, V<'ll>>,
    /// Known integer constants (for division guards).
    consts: FxHashMap<Value, i64>,
    bufs: FxHashMap<Value, (PointerValue<'ll>, MemRefType)>,
    /// Per kernel argument with an alias scope of its own: the `!alias.scope`
    /// and `!noalias` lists of its accesses. Arguments without one get only
    /// the `!noalias` list of every scoped argument.
    scopes: FxHashMap<Value, (MetadataValue<'ll>, MetadataValue<'ll>)>,
    /// `!noalias` for accesses to arguments without a scope.
    others: Option<MetadataValue<'ll>>,
    messages: &'a mut Vec<String>,
    /// The loop that runs `lo..hi`, with those values.
    split: Option<(Op, IntValue<'ll>, IntValue<'ll>)>,
    /// Integer divisions that are unsigned (`r#loop::range`).
    unsigned: FxHashSet<Op>,
    flavor: Flavor,
    /// Where a GPU kernel reports a failed check.
    status: Option<PointerValue<'ll>>,
    /// Inside a row shared by a group of threads (`row_plan`): the plan
    /// and this thread's lane in the group.
    row: Option<(RowPlan, IntValue<'ll>)>,
    /// Threads that share one iteration of the split loop (or, without
    /// one, the kernel's whole body): 1 when the kernel is not row-mapped.
    threads: u64,
}

fn err(ctx: &Context, op: Op, m: impl Into<String>) -> Diagnostic {
    Diagnostic::op_error(ctx, op, m.into())
}

/// LLVM's builder fails only on misuse (a value of the wrong kind, no
/// insertion point): an internal error, reported on the kernel.
fn bug(e: impl std::fmt::Display) -> String {
    format!("LLVM code generation failed: {e}")
}

/// Emits kernel `op` as function `name` of `module`; returns how many
/// threads share one iteration of its split loop, or its whole body when
/// it has none (GPU kernels, `row_plan`; 1 when unmapped).
pub(super) fn emit<'ll>(
    ctx: &Context,
    op: Op,
    ll: &'ll LlContext,
    module: &Module<'ll>,
    name: &str,
    target: &Target<'_>,
    messages: &mut Vec<String>,
) -> Result<u64, Diagnostic> {
    let ptr = ll.ptr_type(AddressSpace::default());
    let i64t = ll.i64_type();
    let fn_type = match target.flavor {
        Flavor::Host => ll.i32_type().fn_type(&[ptr.into(), i64t.into(), i64t.into()], false),
        Flavor::Ptx => ll.void_type().fn_type(&[ptr.into(), i64t.into(), i64t.into(), ptr.into()], false),
    };
    let func = module.add_function(name, fn_type, None);
    match target.flavor {
        Flavor::Host => {
            for (k, v) in [("target-cpu", target.cpu), ("target-features", target.features)] {
                func.add_attribute(inkwell::attributes::AttributeLoc::Function, ll.create_string_attribute(k, v));
            }
        }
        Flavor::Ptx => {
            // LLVM 19 marks PTX entries by annotation.
            let one = ll.i32_type().const_int(1, false);
            let entry = func.as_global_value().as_pointer_value();
            let note = ll.metadata_node(&[entry.into(), ll.metadata_string("kernel").into(), one.into()]);
            module.add_global_metadata("nvvm.annotations", &note).map_err(|e| err(ctx, op, bug(e)))?;
        }
    }
    let b = ll.create_builder();
    let entry = ll.append_basic_block(func, "entry");
    b.position_at_end(entry);
    let body = ctx.single_block(op, 0).ok_or_else(|| err(ctx, op, "a kernel needs a body"))?;
    let params = func.get_params();
    let buffers = params[0].into_pointer_value();
    let mut bufs = FxHashMap::default();
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let m = analysis::memref(ctx, a).cloned().ok_or_else(|| err(ctx, op, "kernel arguments must be buffers"))?;
        let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
        // SAFETY (of the GEP): `buffers` holds one pointer per kernel
        // argument, as the runtime passes it.
        let slot =
            unsafe { b.build_in_bounds_gep(ptr, buffers, &[i64t.const_int(i as u64, false)], "slot") }.map_err(fail)?;
        let mut base = b.build_load(ptr, slot, "buf").map_err(fail)?.into_pointer_value();
        if target.flavor == Flavor::Ptx {
            // Every buffer is device global memory (the runtime allocates
            // it): said to LLVM, loads and stores are `ld.global` and
            // `st.global` rather than generic accesses the hardware must
            // resolve.
            let global = ll.ptr_type(AddressSpace::from(1u16));
            base = b.build_address_space_cast(base, global, "global").map_err(fail)?;
        }
        bufs.insert(a, (base, m));
    }
    let (scopes, others) = alias_scopes(ctx, op, ll);
    let split = analysis::split_loop(ctx, op).map(|l| (l.0, params[1].into_int_value(), params[2].into_int_value()));
    let mut g = Gen {
        ctx,
        ll,
        module,
        b,
        func,
        vals: FxHashMap::default(),
        consts: FxHashMap::default(),
        bufs,
        scopes,
        others,
        messages,
        split,
        unsigned: r#loop::range::unsigned_divisions(ctx, op),
        flavor: target.flavor,
        status: (target.flavor == Flavor::Ptx).then(|| params[3].into_pointer_value()),
        row: None,
        threads: 1,
    };
    let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
    let whole = if target.flavor == Flavor::Ptx && g.split.is_none() { row_plan(ctx, body, None) } else { None };
    if let Some(plan) = whole {
        // No parallel loop, but a reduction: one group (a block) shares
        // the whole body, as one row.
        let lane = g.sreg("tid.x").map_err(|m| err(ctx, op, m))?;
        g.threads = plan.threads;
        g.row = Some((plan, lane));
    } else if target.flavor == Flavor::Ptx && g.split.is_none() {
        // No parallel loop: one thread does the work, the others leave.
        let (id, _) = g.gpu_thread().map_err(|m| err(ctx, op, m))?;
        let first = g.b.build_int_compare(IntPredicate::EQ, id, i64t.const_zero(), "first").map_err(fail)?;
        let work = ll.append_basic_block(func, "work");
        let idle = ll.append_basic_block(func, "idle");
        g.b.build_conditional_branch(first, work, idle).map_err(fail)?;
        g.b.position_at_end(idle);
        g.b.build_return(None).map_err(fail)?;
        g.b.position_at_end(work);
    }
    g.region_ops(body)?;
    match target.flavor {
        Flavor::Host => g.b.build_return(Some(&ll.i32_type().const_zero())).map_err(fail)?,
        Flavor::Ptx => g.b.build_return(None).map_err(fail)?,
    };
    Ok(g.threads)
}

impl<'a, 'll> Gen<'a, 'll> {
    fn err(&self, op: Op, m: impl Into<String>) -> Diagnostic {
        err(self.ctx, op, m)
    }

    fn val(&self, op: Op, v: Value) -> Result<V<'ll>, Diagnostic> {
        self.vals.get(&v).copied().ok_or_else(|| self.err(op, "operand has no compiled value"))
    }

    fn ty(&self, v: Value) -> &'a TypeData {
        self.ctx.type_data(self.ctx.value_type(v))
    }

    /// The LLVM type of a scalar.
    fn scalar_type(&self, t: &TypeData) -> Option<BasicTypeEnum<'ll>> {
        Some(match t {
            TypeData::Index => self.ll.i64_type().into(),
            TypeData::Elem(e) => self.elem_type(*e, false),
            _ => return None,
        })
    }

    /// The LLVM type of an element: in a register, or (`memory`) in a
    /// buffer, where an `i1` takes a byte.
    fn elem_type(&self, e: ElemType, memory: bool) -> BasicTypeEnum<'ll> {
        match e {
            ElemType::F32 => self.ll.f32_type().into(),
            ElemType::F64 => self.ll.f64_type().into(),
            ElemType::I64 => self.ll.i64_type().into(),
            ElemType::I32 => self.ll.i32_type().into(),
            ElemType::I8 => self.ll.i8_type().into(),
            ElemType::I1 if memory => self.ll.i8_type().into(),
            ElemType::I1 => self.ll.bool_type().into(),
            ElemType::F16 | ElemType::BF16 => self.ll.i16_type().into(),
        }
    }

    /// Emits the ops of a block; returns the operands of its `loop.yield`.
    fn region_ops(&mut self, block: aot_ir::Block) -> Result<Vec<V<'ll>>, Diagnostic> {
        for op in self.ctx.block_ops(block) {
            if LoopOp::of(self.ctx, op) == Some(LoopOp::Yield) {
                return self.ctx.operands(op).map(|v| self.val(op, v)).collect();
            }
            self.op(op)?;
        }
        Ok(Vec::new())
    }

    fn op(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let kind = LoopOp::of(ctx, op)
            .ok_or_else(|| self.err(op, format!("'{}' is not a loop-dialect op", ctx.op_name(op))))?;
        match kind {
            LoopOp::For => self.for_loop(op)?,
            LoopOp::Constant => {
                let a = ctx.get_attr(op, "value").ok_or_else(|| self.err(op, "constant without value"))?;
                let r = ctx.result(op, 0);
                let t = self.scalar_type(self.ty(r)).ok_or_else(|| self.err(op, "constant of a non-scalar"))?;
                let v: V<'ll> = match (ctx.attr_data(a), t) {
                    (AttrData::Int { value, .. }, BasicTypeEnum::IntType(it)) => {
                        self.consts.insert(r, *value);
                        it.const_int(*value as u64, true).into()
                    }
                    (AttrData::Float { bits, .. }, BasicTypeEnum::FloatType(ft)) => {
                        ft.const_float(f64::from_bits(*bits)).into()
                    }
                    _ => return Err(self.err(op, "constant must be an integer or float of its type")),
                };
                self.vals.insert(r, v);
            }
            LoopOp::Load => {
                let (addr, m) = self.address(op, 0, 1)?;
                let t = self.elem_type(m.elem, true);
                let v = self.b.build_load(t, addr, "ld").map_err(|e| self.err(op, bug(e)))?;
                if let Some(i) = v.as_instruction_value() {
                    self.mark(op, ctx.operand(op, 0), i)?;
                }
                let v = if m.elem == ElemType::I1 { self.to_bool(v.into_int_value()).map(Into::into) } else { Ok(v) };
                let v = v.map_err(|e| self.err(op, e))?;
                self.vals.insert(ctx.result(op, 0), v);
            }
            LoopOp::Store => {
                let (addr, m) = self.address(op, 1, 2)?;
                let mut v = self.val(op, ctx.operand(op, 0))?;
                if m.elem == ElemType::I1 {
                    v = self
                        .b
                        .build_int_z_extend(v.into_int_value(), self.ll.i8_type(), "byte")
                        .map_err(|e| self.err(op, bug(e)))?
                        .into();
                }
                let i = self.b.build_store(addr, v).map_err(|e| self.err(op, bug(e)))?;
                self.mark(op, ctx.operand(op, 1), i)?;
            }
            LoopOp::Assert => {
                let c = self.val(op, ctx.operand(op, 0))?.into_int_value();
                self.messages.push(analysis::assert_message(ctx, op));
                let code = self.messages.len() as u64;
                let fail = self.ll.append_basic_block(self.func, "fail");
                let cont = self.ll.append_basic_block(self.func, "ok");
                let e = |g: &Self, x: inkwell::builder::BuilderError| g.err(op, bug(x));
                self.b.build_conditional_branch(c, cont, fail).map_err(|x| e(self, x))?;
                self.b.position_at_end(fail);
                let code = self.ll.i32_type().const_int(code, false);
                match self.status {
                    Some(status) => {
                        // Any failing thread's code will do: which iteration
                        // fails first has no order on a GPU.
                        self.b.build_store(status, code).map_err(|x| e(self, x))?;
                        self.b.build_return(None).map_err(|x| e(self, x))?;
                    }
                    None => {
                        self.b.build_return(Some(&code)).map_err(|x| e(self, x))?;
                    }
                }
                self.b.position_at_end(cont);
            }
            LoopOp::Philox => {
                let seed = self.val(op, ctx.operand(op, 0))?.into_int_value();
                let ctr = self.val(op, ctx.operand(op, 1))?.into_int_value();
                let out = self.philox(seed, ctr).map_err(|m| self.err(op, m))?;
                for (i, v) in out.into_iter().enumerate() {
                    self.vals.insert(ctx.result(op, i), v.into());
                }
            }
            LoopOp::Scalar(s) => {
                let v = self.scalar(op, s).map_err(|m| self.err(op, m))?;
                self.vals.insert(ctx.result(op, 0), v);
            }
            LoopOp::Yield => return Err(self.err(op, "loop.yield outside a loop body")),
            LoopOp::Alloc
            | LoopOp::View
            | LoopOp::Global
            | LoopOp::Kernel
            | LoopOp::Matmul
            | LoopOp::Rebind
            | LoopOp::Resize => return Err(self.err(op, "a host op inside a kernel")),
        }
        Ok(())
    }

    /// Attaches the alias metadata of buffer `buf` to access `i`.
    fn mark(&self, op: Op, buf: Value, i: InstructionValue<'ll>) -> Result<(), Diagnostic> {
        let fail = |e: inkwell::values::InstructionValueError| self.err(op, bug(e));
        let (scope, noalias) = match self.scopes.get(&buf) {
            Some(&(s, n)) => (Some(s), Some(n)),
            None => (None, self.others),
        };
        if let Some(s) = scope {
            i.set_metadata(s, self.ll.get_kind_id("alias.scope")).map_err(fail)?;
        }
        if let Some(n) = noalias {
            i.set_metadata(n, self.ll.get_kind_id("noalias")).map_err(fail)?;
        }
        Ok(())
    }

    /// The address a load (buffer operand `buf`, indices from `first`) or
    /// store accesses, with the buffer's type.
    fn address(&mut self, op: Op, buf: usize, first: usize) -> Result<(PointerValue<'ll>, MemRefType), Diagnostic> {
        let ctx = self.ctx;
        let (base, m) =
            self.bufs.get(&ctx.operand(op, buf)).cloned().ok_or_else(|| self.err(op, "access to an unknown buffer"))?;
        let idx: Vec<IntValue<'ll>> = ctx
            .operands(op)
            .skip(first)
            .map(|v| self.val(op, v).map(|x| x.into_int_value()))
            .collect::<Result<_, _>>()?;
        let (strides, offset) = r#loop::layout(&m);
        let i64t = self.ll.i64_type();
        let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
        let mut acc = i64t.const_int(offset as u64, true);
        for (&i, &s) in idx.iter().zip(strides.iter()) {
            if s == 0 {
                continue;
            }
            let t =
                if s == 1 { i } else { self.b.build_int_mul(i, i64t.const_int(s as u64, true), "").map_err(fail)? };
            acc = self.b.build_int_add(acc, t, "").map_err(fail)?;
        }
        let t = self.elem_type(m.elem, true);
        // SAFETY (of the GEP): the lowering bounds every index by the
        // memref's shape, so the element lies in the buffer.
        let p = unsafe { self.b.build_gep(t, base, &[acc], "at") }.map_err(fail)?;
        Ok((p, m))
    }

    /// The bounds a loop runs: the caller's slice for the split loop,
    /// clamped to the loop's own bounds. The runtime only passes slices
    /// inside them, so the clamp changes nothing but what LLVM can prove:
    /// with the induction variable known non-negative, the signed div/rem
    /// of flat indices fold away and the loop vectorizes (a Philox mask
    /// kernel ran 5x slower with the bare parameters as bounds).
    fn bounds(&self, op: Op) -> Result<(IntValue<'ll>, IntValue<'ll>), Diagnostic> {
        let i64t = self.ll.i64_type();
        let c = |k: &str| i64t.const_int(self.ctx.attr_i64(op, k).unwrap_or(0) as u64, true);
        let (lower, upper) = (c("lower"), c("upper"));
        match self.split {
            Some((l, lo, hi)) if l == op => {
                let fail = |e: inkwell::builder::BuilderError| err(self.ctx, op, bug(e));
                let b = &self.b;
                let above = b.build_int_compare(IntPredicate::SGT, lo, lower, "lo.in").map_err(fail)?;
                let lo = b.build_select(above, lo, lower, "lo").map_err(fail)?.into_int_value();
                let below = b.build_int_compare(IntPredicate::SLT, hi, upper, "hi.in").map_err(fail)?;
                let hi = b.build_select(below, hi, upper, "hi").map_err(fail)?.into_int_value();
                Ok((lo, hi))
            }
            _ => Ok((lower, upper)),
        }
    }

    fn for_loop(&mut self, op: Op) -> Result<(), Diagnostic> {
        let (lo, hi) = self.bounds(op)?;
        let step = self.ll.i64_type().const_int(self.ctx.attr_i64(op, "step").unwrap_or(1) as u64, true);
        let split = matches!(self.split, Some((l, _, _)) if l == op);
        if let Some((plan, lane)) = &self.row {
            let lane = *lane;
            if let Some((combiners, sliced)) = plan.reductions.get(&op).cloned() {
                return self.group_reduction(op, (lo, hi, step), lane, &combiners, sliced);
            }
            if plan.sliced.contains(&op) {
                let inits: Vec<V<'ll>> = self.ctx.operands(op).map(|v| self.val(op, v)).collect::<Result<_, _>>()?;
                let results = self.lane_loop(op, (lo, hi, step), lane, &inits)?;
                for (&r, v) in self.ctx.results(op).iter().zip(results) {
                    self.vals.insert(r, v);
                }
                return Ok(());
            }
            if plan.stores.contains(&op) {
                return self.group_store_loop(op, (lo, hi, step), lane);
            }
        }
        if self.flavor == Flavor::Ptx && split {
            let plan = self.ctx.single_block(op, 0).and_then(|body| row_plan(self.ctx, body, Some(op)));
            if let Some(plan) = plan {
                return self.row_loop(op, (lo, hi, step), plan);
            }
        }
        match (self.flavor, jam_lanes(self.ctx, op)) {
            // Each thread starts at its index and strides over the grid.
            (Flavor::Ptx, _) if split => {
                let fail = |e: inkwell::builder::BuilderError| self.err(op, bug(e));
                let (id, threads) = self.gpu_thread().map_err(|m| self.err(op, m))?;
                let offset = self.b.build_int_mul(id, step, "offset").map_err(fail)?;
                let start = self.b.build_int_add(lo, offset, "start").map_err(fail)?;
                let stride = self.b.build_int_mul(threads, step, "stride").map_err(fail)?;
                self.plain_loop(op, start, hi, stride)
            }
            (Flavor::Host, Some(lanes)) => {
                let rest = self.jammed_loop(op, lo, hi, lanes)?;
                self.plain_loop(op, rest, hi, step)
            }
            _ => self.plain_loop(op, lo, hi, step),
        }
    }

    /// This thread's index in the whole launch and the launch's thread
    /// count, as i64 (PTX special registers).
    fn gpu_thread(&self) -> Result<(IntValue<'ll>, IntValue<'ll>), String> {
        let reg = |r| self.sreg(r);
        let (tid, ntid, ctaid, nctaid) = (reg("tid.x")?, reg("ntid.x")?, reg("ctaid.x")?, reg("nctaid.x")?);
        let base = self.b.build_int_mul(ctaid, ntid, "").map_err(bug)?;
        let id = self.b.build_int_add(base, tid, "thread").map_err(bug)?;
        let threads = self.b.build_int_mul(nctaid, ntid, "threads").map_err(bug)?;
        Ok((id, threads))
    }

    /// PTX special register `r` (`tid.x`, `ctaid.x`, ...) as an i64.
    fn sreg(&self, r: &str) -> Result<IntValue<'ll>, String> {
        let v = self.intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{r}"), &[], &[])?.into_int_value();
        self.b.build_int_z_extend(v, self.ll.i64_type(), r).map_err(bug)
    }

    /// The split loop of a row-mapped kernel (`row_plan`): group `g` of the
    /// launch (a warp, or a block) runs iterations `lo + g·step`, striding
    /// over the groups; its lanes share the planned nested loops. A block
    /// group is the launch's block, so every thread of a block runs the
    /// same iterations and reaches the same barriers.
    fn row_loop(
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
    fn group_reduction(
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
    fn group_combine(&mut self, op: Op, c: Op, mut v: V<'ll>, lane: IntValue<'ll>) -> Result<V<'ll>, Diagnostic> {
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
    fn group_threads(&self) -> u64 {
        self.row.as_ref().map_or(1, |(p, _)| p.threads)
    }

    /// A loop that stores each element once, its iterations split across
    /// the group's lanes; the group then synchronizes (`bar.warp.sync` or
    /// `bar.sync`, which order the lanes' memory accesses) so the next
    /// loop may read any lane's stores.
    fn group_store_loop(
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
    fn lane_slice(
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
    fn lane_loop(
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
    fn warp_sync(&self) -> Result<(), String> {
        let name = "llvm.nvvm.bar.warp.sync";
        let i = Intrinsic::find(name).ok_or_else(|| format!("LLVM has no intrinsic {name}"))?;
        let f = i.get_declaration(self.module, &[]).ok_or_else(|| format!("{name} has no such overload"))?;
        let all = self.ll.i32_type().const_all_ones();
        self.b.build_call(f, &[all.into()], "").map_err(bug)?;
        Ok(())
    }

    /// `bar.sync 0` over the whole block (orders its threads' shared and
    /// global memory accesses).
    fn block_barrier(&self) -> Result<(), String> {
        let name = "llvm.nvvm.barrier0";
        let i = Intrinsic::find(name).ok_or_else(|| format!("LLVM has no intrinsic {name}"))?;
        let f = i.get_declaration(self.module, &[]).ok_or_else(|| format!("{name} has no such overload"))?;
        self.b.build_call(f, &[], "").map_err(bug)?;
        Ok(())
    }

    /// The value of lane `lane ^ mask` (`shfl.sync.bfly` over the whole
    /// warp; an f64 as two 32-bit halves).
    fn shuffle_xor(&self, v: V<'ll>, mask: u64) -> Result<V<'ll>, String> {
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
    fn combine(&mut self, c: Op, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, Diagnostic> {
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
    fn jammed_loop(
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
    fn jammed_block(
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
    fn jammed_nested(&mut self, op: Op, lanes: &mut [FxHashMap<Value, V<'ll>>]) -> Result<(), Diagnostic> {
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

    /// A loop as header/body/exit blocks, running `lo..hi` by `step`.
    fn plain_loop(
        &mut self,
        op: Op,
        lo: IntValue<'ll>,
        hi: IntValue<'ll>,
        step: IntValue<'ll>,
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let inits: Vec<V<'ll>> = ctx.operands(op).map(|v| self.val(op, v)).collect::<Result<_, _>>()?;
        let results = self.body_loop(op, (lo, hi, step), &inits)?;
        for (&r, v) in ctx.results(op).iter().zip(results) {
            self.vals.insert(r, v);
        }
        Ok(())
    }

    /// Loop `op`'s body run over `lo..hi` by `step` with its carried values
    /// starting at `inits`; returns them after the loop.
    fn body_loop(
        &mut self,
        op: Op,
        (lo, hi, step): (IntValue<'ll>, IntValue<'ll>, IntValue<'ll>),
        inits: &[V<'ll>],
    ) -> Result<Vec<V<'ll>>, Diagnostic> {
        let ctx = self.ctx;
        let body_ir = ctx.single_block(op, 0).ok_or_else(|| self.err(op, "a loop needs a body"))?;
        let args = ctx.block_args(body_ir).to_vec();
        self.counted_loop(op, (lo, hi, step), inits, |g, i, carried| {
            g.vals.insert(args[0], i.into());
            for (k, &phi) in carried.iter().enumerate() {
                g.vals.insert(args[k + 1], phi);
            }
            g.region_ops(body_ir)
        })
    }

    /// The blocks of loop `op` running `lo..hi` by `step`: a header with
    /// the induction variable and one phi per `inits` value, the body that
    /// `body` emits (given both, it returns the carried values' next
    /// values), and the exit, where the builder is left. Returns the phis:
    /// the carried values after the loop.
    fn counted_loop(
        &mut self,
        op: Op,
        (lo, hi, step): (IntValue<'ll>, IntValue<'ll>, IntValue<'ll>),
        inits: &[V<'ll>],
        body: impl FnOnce(&mut Self, IntValue<'ll>, &[V<'ll>]) -> Result<Vec<V<'ll>>, Diagnostic>,
    ) -> Result<Vec<V<'ll>>, Diagnostic> {
        let ctx = self.ctx;
        let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
        let pre = self.b.get_insert_block().ok_or_else(|| self.err(op, bug("no insertion block")))?;
        let header = self.ll.append_basic_block(self.func, "header");
        let body_bb = self.ll.append_basic_block(self.func, "body");
        let exit = self.ll.append_basic_block(self.func, "exit");
        self.b.build_unconditional_branch(header).map_err(fail)?;
        self.b.position_at_end(header);
        let iv = self.b.build_phi(self.ll.i64_type(), "iv").map_err(fail)?;
        iv.add_incoming(&[(&lo, pre)]);
        let mut phis = Vec::with_capacity(inits.len());
        for init in inits {
            let phi = self.b.build_phi(init.get_type(), "carried").map_err(fail)?;
            phi.add_incoming(&[(init as &dyn BasicValue, pre)]);
            phis.push(phi);
        }
        let carried: Vec<V<'ll>> = phis.iter().map(|p| p.as_basic_value()).collect();
        let i = iv.as_basic_value().into_int_value();
        let cond = self.b.build_int_compare(IntPredicate::SLT, i, hi, "more").map_err(fail)?;
        self.b.build_conditional_branch(cond, body_bb, exit).map_err(fail)?;
        self.b.position_at_end(body_bb);
        let next = body(self, i, &carried)?;
        let i_next = self.b.build_int_add(i, step, "next").map_err(fail)?;
        let latch = self.b.get_insert_block().ok_or_else(|| self.err(op, bug("no insertion block")))?;
        self.b.build_unconditional_branch(header).map_err(fail)?;
        iv.add_incoming(&[(&i_next, latch)]);
        for (phi, v) in phis.iter().zip(&next) {
            phi.add_incoming(&[(v as &dyn BasicValue, latch)]);
        }
        self.b.position_at_end(exit);
        Ok(carried)
    }

    /// One Philox4x32-10 block from an i64 seed and counter; four i64 words
    /// (the rounds are the runtime's, emitted through [`LlvmWords`]).
    fn philox(&mut self, seed: IntValue<'ll>, ctr: IntValue<'ll>) -> Result<[IntValue<'ll>; 4], String> {
        let b = &self.b;
        let t = self.ll.i64_type();
        let k = |x: u64| t.const_int(x, false);
        let mask = k(0xffff_ffff);
        let c = [
            b.build_and(ctr, mask, "").map_err(bug)?,
            b.build_right_shift(ctr, k(32), false, "").map_err(bug)?,
            k(0),
            k(0),
        ];
        let key =
            [b.build_and(seed, mask, "").map_err(bug)?, b.build_right_shift(seed, k(32), false, "").map_err(bug)?];
        philox::rounds(&mut LlvmWords { b, t }, c, key)
    }

    /// Calls LLVM intrinsic `name` overloaded on `types`.
    fn intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ll>],
        args: &[BasicMetadataValueEnum<'ll>],
    ) -> Result<V<'ll>, String> {
        let i = Intrinsic::find(name).ok_or_else(|| format!("LLVM has no intrinsic {name}"))?;
        let f = i.get_declaration(self.module, types).ok_or_else(|| format!("{name} has no such overload"))?;
        let call = self.b.build_call(f, args, "").map_err(bug)?;
        call.try_as_basic_value().basic().ok_or_else(|| format!("{name} returned nothing"))
    }

    /// Calls a libcall of the runtime (`libcalls::all`).
    fn libcall(&self, name: &str, sig: Sig, args: &[BasicMetadataValueEnum<'ll>]) -> Result<V<'ll>, String> {
        let gpu_name;
        let name = match self.flavor {
            Flavor::Host => name,
            Flavor::Ptx => {
                gpu_name = libcalls::libdevice_name(name).ok_or_else(|| format!("{name} has no libdevice function"))?;
                gpu_name.as_str()
            }
        };
        let f = match self.module.get_function(name) {
            Some(f) => f,
            None => {
                let (f32t, f64t, i16t) = (self.ll.f32_type(), self.ll.f64_type(), self.ll.i16_type());
                let (params, ret): (Vec<BasicMetadataTypeEnum<'ll>>, BasicTypeEnum<'ll>) = match sig {
                    Sig::F32 => (vec![f32t.into()], f32t.into()),
                    Sig::F64 => (vec![f64t.into()], f64t.into()),
                    Sig::F32x2 => (vec![f32t.into(), f32t.into()], f32t.into()),
                    Sig::F64x2 => (vec![f64t.into(), f64t.into()], f64t.into()),
                    Sig::HalfToF32 => (vec![i16t.into()], f32t.into()),
                    Sig::F32ToHalf => (vec![f32t.into()], i16t.into()),
                };
                self.module.add_function(name, ret.fn_type(&params, false), None)
            }
        };
        let call = self.b.build_call(f, args, "").map_err(bug)?;
        call.try_as_basic_value().basic().ok_or_else(|| format!("{name} returned nothing"))
    }

    fn to_bool(&self, byte: IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_int_compare(IntPredicate::NE, byte, byte.get_type().const_zero(), "").map_err(bug)
    }

    fn scalar(&mut self, op: Op, kind: ScalarOp) -> Result<V<'ll>, String> {
        let ctx = self.ctx;
        let ops: Vec<V<'ll>> =
            ctx.operands(op).map(|v| self.val(op, v).map_err(|d| d.message)).collect::<Result<_, _>>()?;
        let t0 = ctx.operands(op).next().map(|v| self.ty(v).clone());
        let is_float = matches!(t0, Some(TypeData::Elem(e)) if e.is_float());
        let is_f64 = matches!(t0, Some(TypeData::Elem(ElemType::F64)));
        let f = |i: usize| ops[i].into_float_value();
        let n = |i: usize| ops[i].into_int_value();
        let ty0 = ops.first().map(|v| v.get_type());
        let b = &self.b;
        Ok(match kind {
            ScalarOp::Binary(bin) => match bin {
                Binary::Add if is_float => b.build_float_add(f(0), f(1), "").map_err(bug)?.into(),
                Binary::Add => b.build_int_add(n(0), n(1), "").map_err(bug)?.into(),
                Binary::Sub if is_float => b.build_float_sub(f(0), f(1), "").map_err(bug)?.into(),
                Binary::Sub => b.build_int_sub(n(0), n(1), "").map_err(bug)?.into(),
                Binary::Mul if is_float => b.build_float_mul(f(0), f(1), "").map_err(bug)?.into(),
                Binary::Mul => b.build_int_mul(n(0), n(1), "").map_err(bug)?.into(),
                Binary::Div if is_float => b.build_float_div(f(0), f(1), "").map_err(bug)?.into(),
                Binary::Div if self.unsigned.contains(&op) => {
                    b.build_int_unsigned_div(n(0), n(1), "").map_err(bug)?.into()
                }
                Binary::Rem if self.unsigned.contains(&op) => {
                    b.build_int_unsigned_rem(n(0), n(1), "").map_err(bug)?.into()
                }
                Binary::Div | Binary::Rem => {
                    let d = self.safe_divisor(ctx.operand(op, 1), n(1))?;
                    self.floor_divrem(bin == Binary::Div, n(0), d)?.into()
                }
                // NaN-propagating, -0 < +0: what Cranelift's fmin/fmax and
                // the interpreter compute.
                Binary::Max if is_float => {
                    self.intrinsic("llvm.maximum", &[ty0.ok_or("no operand")?], &[ops[0].into(), ops[1].into()])?
                }
                Binary::Max => {
                    self.intrinsic("llvm.smax", &[ty0.ok_or("no operand")?], &[ops[0].into(), ops[1].into()])?
                }
                Binary::Min if is_float => {
                    self.intrinsic("llvm.minimum", &[ty0.ok_or("no operand")?], &[ops[0].into(), ops[1].into()])?
                }
                Binary::Min => {
                    self.intrinsic("llvm.smin", &[ty0.ok_or("no operand")?], &[ops[0].into(), ops[1].into()])?
                }
                Binary::And => b.build_and(n(0), n(1), "").map_err(bug)?.into(),
                Binary::Or => b.build_or(n(0), n(1), "").map_err(bug)?.into(),
                Binary::Xor => b.build_xor(n(0), n(1), "").map_err(bug)?.into(),
                Binary::Shr => b.build_right_shift(n(0), n(1), false, "").map_err(bug)?.into(),
            },
            ScalarOp::Unary(u) => {
                let t = ty0.ok_or("no operand")?;
                match u {
                    Unary::Neg if is_float => b.build_float_neg(f(0), "").map_err(bug)?.into(),
                    Unary::Neg => b.build_int_neg(n(0), "").map_err(bug)?.into(),
                    Unary::Abs if is_float => self.intrinsic("llvm.fabs", &[t], &[ops[0].into()])?,
                    Unary::Abs => {
                        let poison = self.ll.bool_type().const_zero();
                        self.intrinsic("llvm.abs", &[t], &[ops[0].into(), poison.into()])?
                    }
                    Unary::Sqrt => self.intrinsic("llvm.sqrt", &[t], &[ops[0].into()])?,
                    Unary::Rsqrt => {
                        let s = self.intrinsic("llvm.sqrt", &[t], &[ops[0].into()])?.into_float_value();
                        let one = s.get_type().const_float(1.0);
                        self.b.build_float_div(one, s, "").map_err(bug)?.into()
                    }
                    Unary::Floor => self.intrinsic("llvm.floor", &[t], &[ops[0].into()])?,
                    Unary::Ceil => self.intrinsic("llvm.ceil", &[t], &[ops[0].into()])?,
                    Unary::Trunc => self.intrinsic("llvm.trunc", &[t], &[ops[0].into()])?,
                    Unary::Round => self.intrinsic("llvm.roundeven", &[t], &[ops[0].into()])?,
                }
            }
            ScalarOp::Math(m) => match m.fact().lanes {
                LaneImpl::Poly(p) if !is_f64 && !ctx.has_attr(op, "exact") => {
                    let mut lanes = ScalarLanes { g: self, error: None };
                    let v = p.emit(&mut lanes, f(0));
                    if let Some(e) = lanes.error {
                        return Err(e);
                    }
                    v.into()
                }
                _ => self.call_math(m, is_f64, &ops)?,
            },
            ScalarOp::Select => b.build_select(n(0), ops[1], ops[2], "").map_err(bug)?,
            ScalarOp::Cmp => {
                let p = Predicate::of(ctx, op).ok_or("cmp without a valid predicate")?;
                if is_float {
                    b.build_float_compare(float_predicate(p), f(0), f(1), "").map_err(bug)?.into()
                } else {
                    let ip = match p {
                        Predicate::Eq => IntPredicate::EQ,
                        Predicate::Ne => IntPredicate::NE,
                        Predicate::Lt => IntPredicate::SLT,
                        Predicate::Le => IntPredicate::SLE,
                        Predicate::Gt => IntPredicate::SGT,
                        Predicate::Ge => IntPredicate::SGE,
                    };
                    b.build_int_compare(ip, n(0), n(1), "").map_err(bug)?.into()
                }
            }
            ScalarOp::Cast => {
                let from = t0.ok_or("cast without operand")?;
                let to = self.ty(ctx.result(op, 0)).clone();
                self.cast(ops[0], &from, &to)?
            }
        })
    }

    fn call_math(&self, m: MathFn, f64: bool, ops: &[V<'ll>]) -> Result<V<'ll>, String> {
        let fact = m.fact();
        let args: Vec<BasicMetadataValueEnum<'ll>> = ops.iter().map(|&v| v.into()).collect();
        self.libcall(fact.symbol(f64), libcalls::math_sig(fact, f64), &args)
    }

    /// A divisor that cannot trap: constants as they are, others with 0 and
    /// -1 replaced by 1 ([`expand::safe_divisor`]).
    fn safe_divisor(&self, v: Value, d: IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        if matches!(self.consts.get(&v), Some(&k) if k != 0 && k != -1) {
            return Ok(d);
        }
        Ok(expand::safe_divisor(&mut self.primitives(), d.into())?.into_int_value())
    }

    /// Floor division or modulo (the sign of the divisor).
    fn floor_divrem(&self, div: bool, a: IntValue<'ll>, d: IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        Ok(expand::floor_divrem(&mut self.primitives(), div, a.into(), d.into())?.into_int_value())
    }

    /// f32 → bf16 bits, round to nearest even (NaN stays NaN, quieted).
    fn f32_to_bf16(&self, x: FloatValue<'ll>) -> Result<IntValue<'ll>, String> {
        Ok(expand::f32_to_bf16(&mut self.primitives(), x.into())?.into_int_value())
    }

    /// The loop dialect's compound scalar ops on this builder.
    fn primitives(&self) -> LlvmPrimitives<'_, 'll> {
        LlvmPrimitives { b: &self.b, ll: self.ll }
    }

    fn bf16_to_f32(&self, h: IntValue<'ll>) -> Result<FloatValue<'ll>, String> {
        let b = &self.b;
        let i32t = self.ll.i32_type();
        let w = b.build_int_z_extend(h, i32t, "").map_err(bug)?;
        let s = b.build_left_shift(w, i32t.const_int(16, false), "").map_err(bug)?;
        Ok(b.build_bit_cast(s, self.ll.f32_type(), "").map_err(bug)?.into_float_value())
    }

    /// Converts between scalar types with `loop.cast`'s rules
    /// ([`CastPlan`]).
    fn cast(&self, v: V<'ll>, from: &TypeData, to: &TypeData) -> Result<V<'ll>, String> {
        let plan = CastPlan::between(from, to).ok_or("cast of a non-scalar")?;
        let mut v = v;
        if let Some(h) = plan.from_half {
            v = if h == ElemType::BF16 {
                self.bf16_to_f32(v.into_int_value())?.into()
            } else {
                self.libcall(libcalls::F16_TO_F32, Sig::HalfToF32, &[v.into()])?
            };
        }
        let te = match (plan.to_half, to) {
            (Some(_), _) => ElemType::F32,
            (None, TypeData::Elem(e)) => *e,
            (None, _) => ElemType::I64,
        };
        let target = self.elem_type(te, false);
        let b = &self.b;
        v = match plan.convert {
            Conversion::Same => v,
            Conversion::FloatResize => {
                let (x, t) = (v.into_float_value(), target.into_float_type());
                if te == ElemType::F64 {
                    b.build_float_ext(x, t, "").map_err(bug)?.into()
                } else {
                    b.build_float_trunc(x, t, "").map_err(bug)?.into()
                }
            }
            Conversion::FloatToBool => {
                let x = v.into_float_value();
                b.build_float_compare(FloatPredicate::UNE, x, x.get_type().const_zero(), "").map_err(bug)?.into()
            }
            Conversion::FloatToInt => {
                let x = v.into_float_value();
                self.intrinsic("llvm.fptosi.sat", &[target, x.get_type().into()], &[x.into()])?
            }
            Conversion::IntToFloat { unsigned } => {
                let (x, t) = (v.into_int_value(), target.into_float_type());
                if unsigned {
                    b.build_unsigned_int_to_float(x, t, "").map_err(bug)?.into()
                } else {
                    b.build_signed_int_to_float(x, t, "").map_err(bug)?.into()
                }
            }
            Conversion::IntToBool => self.to_bool(v.into_int_value())?.into(),
            Conversion::IntResize { unsigned } => {
                let (x, t) = (v.into_int_value(), target.into_int_type());
                let (fb, tb) = (x.get_type().get_bit_width(), t.get_bit_width());
                if tb > fb && unsigned {
                    b.build_int_z_extend(x, t, "").map_err(bug)?.into()
                } else if tb > fb {
                    b.build_int_s_extend(x, t, "").map_err(bug)?.into()
                } else if tb < fb {
                    b.build_int_truncate(x, t, "").map_err(bug)?.into()
                } else {
                    v
                }
            }
        };
        match plan.to_half {
            Some(ElemType::BF16) => Ok(self.f32_to_bf16(v.into_float_value())?.into()),
            Some(_) => self.libcall(libcalls::F32_TO_F16, Sig::F32ToHalf, &[v.into()]),
            None => Ok(v),
        }
    }
}

/// The math table's polynomials on one `f32` at a time: the same operations
/// as the Cranelift lanes, so the same bits; LLVM's vectorizer widens them.
struct ScalarLanes<'g, 'a, 'll> {
    g: &'g Gen<'a, 'll>,
    /// The first builder failure (an internal error), reported after.
    error: Option<String>,
}

impl<'ll> ScalarLanes<'_, '_, 'll> {
    fn keep<T>(&mut self, r: Result<T, String>, fallback: impl FnOnce() -> T) -> T {
        match r {
            Ok(v) => v,
            Err(e) => {
                self.error.get_or_insert(e);
                fallback()
            }
        }
    }

    fn f32(&self) -> FloatType<'ll> {
        self.g.ll.f32_type()
    }

    fn float(&mut self, r: Result<V<'ll>, String>) -> FloatValue<'ll> {
        let zero = self.f32().const_zero();
        self.keep(r.map(|v| v.into_float_value()), || zero)
    }
}

impl<'ll> Lanes for ScalarLanes<'_, '_, 'll> {
    type F = FloatValue<'ll>;
    type M = IntValue<'ll>;

    fn splat(&mut self, c: f32) -> Self::F {
        self.f32().const_float(f64::from(c))
    }
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_add(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_sub(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_mul(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_float_div(a, b, "").map(Into::into).map_err(bug);
        self.float(r)
    }
    fn min(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.minimum", &[self.f32().into()], &[a.into(), b.into()]);
        self.float(r)
    }
    fn max(&mut self, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.maximum", &[self.f32().into()], &[a.into(), b.into()]);
        self.float(r)
    }
    fn floor(&mut self, a: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.floor", &[self.f32().into()], &[a.into()]);
        self.float(r)
    }
    fn abs(&mut self, a: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.fabs", &[self.f32().into()], &[a.into()]);
        self.float(r)
    }
    fn lt(&mut self, a: Self::F, b: Self::F) -> Self::M {
        let r = self.g.b.build_float_compare(FloatPredicate::OLT, a, b, "").map_err(bug);
        let f = self.g.ll.bool_type().const_zero();
        self.keep(r, || f)
    }
    fn gt(&mut self, a: Self::F, b: Self::F) -> Self::M {
        let r = self.g.b.build_float_compare(FloatPredicate::OGT, a, b, "").map_err(bug);
        let f = self.g.ll.bool_type().const_zero();
        self.keep(r, || f)
    }
    fn select(&mut self, m: Self::M, a: Self::F, b: Self::F) -> Self::F {
        let r = self.g.b.build_select(m, a, b, "").map_err(bug);
        self.float(r)
    }
    fn with_sign_of(&mut self, mag: Self::F, x: Self::F) -> Self::F {
        let r = self.g.intrinsic("llvm.copysign", &[self.f32().into()], &[mag.into(), x.into()]);
        self.float(r)
    }
    fn exp2i(&mut self, n: Self::F) -> Self::F {
        // (n + 127) << 23 as the bits of an f32: exact for n in -126..=127.
        let g = self.g;
        let i32t = g.ll.i32_type();
        let r = (|| -> Result<V<'ll>, String> {
            let i = g.b.build_float_to_signed_int(n, i32t, "").map_err(bug)?;
            let e = g.b.build_int_add(i, i32t.const_int(127, false), "").map_err(bug)?;
            let s = g.b.build_left_shift(e, i32t.const_int(23, false), "").map_err(bug)?;
            g.b.build_bit_cast(s, g.ll.f32_type(), "").map_err(bug)
        })();
        self.float(r)
    }
}

/// Most ops in a loop body that is unrolled and jammed (each is emitted once
/// per lane, so this bounds the code LLVM has to optimize).
const JAM_MAX_OPS: usize = 48;

/// How many iterations of loop `op` to jam (see `Gen::jammed_loop`): for a
/// parallel loop of step 1 with no results whose body holds a nested loop
/// carrying only floats, and no check (a failing check must report the
/// first failing iteration's message, as the scalar loop does); 16 lanes
/// of f32 (a 512-bit vector), 8 when some carried value is f64.
fn jam_lanes(ctx: &Context, op: Op) -> Option<usize> {
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

/// Lanes of a warp.
const WARP: u64 = 32;
/// Threads of every GPU block, and of a group that shares one row when it
/// is a whole block (`RowPlan::threads`).
pub(super) const BLOCK_THREADS: u64 = 256;
/// Rows whose reductions run at least this many iterations are shared by
/// a block rather than a warp (PyTorch's softmax switches at the same
/// length).
const BLOCK_ROW_MIN: i64 = 1024;

/// How the threads of a group (a warp, or a whole block) share one row of
/// a GPU kernel: the body of its split loop, or the whole body of a kernel
/// without one (a full reduction). The group's lanes split the planned
/// loops' iterations between them and combine reductions (see
/// `Gen::group_reduction`, `Gen::group_store_loop`).
#[derive(Clone, Debug, Default)]
struct RowPlan {
    /// Reduction loops whose carried values the group combines when they
    /// end, with the combiner op of each carried value, and whether the
    /// loop's own iterations are split across the lanes (a flat loop)
    /// rather than those of its innermost loop (a nest, `reduction_nest`).
    reductions: FxHashMap<Op, (Vec<Op>, bool)>,
    /// Innermost loops of reduction nests: split across the lanes, their
    /// partial values combined by the nest's outermost loop.
    sliced: FxHashSet<Op>,
    /// Loops without results that store each element once.
    stores: FxHashSet<Op>,
    /// Threads in the group: `WARP` or `BLOCK_THREADS`.
    threads: u64,
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
fn row_plan(ctx: &Context, body: aot_ir::Block, split: Option<Op>) -> Option<RowPlan> {
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
fn trips(ctx: &Context, l: Op) -> i64 {
    ForOp(l).bounds(ctx).trips()
}

/// Loop `l` as the outermost loop of a reduction nest, if it is one: it
/// carries values only into one nested loop (its only loop, no check,
/// draw or store beside it), whose results it yields as they are, and so
/// on down to a flat reduction loop (`reduction_combiners`). Returns that
/// loop's combiners and the loop itself. The lanes split the innermost
/// loop's iterations and carry their partial values through the whole
/// nest: a sum over every element of a matrix is a nest of two loops.
fn reduction_nest(ctx: &Context, l: Op) -> Option<(Vec<Op>, Op)> {
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
fn chunk_width(ctx: &Context, l: Op) -> Option<(i64, Vec<Value>)> {
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
fn flat_body(ctx: &Context, l: Op) -> Option<aot_ir::Block> {
    let body = ctx.single_block(l, 0)?;
    let flat = ctx
        .block_ops(body)
        .all(|o| !matches!(LoopOp::of(ctx, o), None | Some(LoopOp::For) | Some(LoopOp::Assert) | Some(LoopOp::Philox)));
    flat.then_some(body)
}

/// The combiner of each carried value of reduction loop `l` (see
/// `warp_plan`), if it is one.
fn reduction_combiners(ctx: &Context, l: Op) -> Option<Vec<Op>> {
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
fn store_loop_splits(ctx: &Context, l: Op) -> bool {
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

/// What kernel buffer `b` may share memory with: its operand's alias class
/// (`fuse::alias_class`), the same for buffers that may overlap.
fn buffer_class(ctx: &Context, b: Value) -> Value {
    let operand = match ctx.value_def(b) {
        aot_ir::ValueDef::BlockArg { block, index } => ctx
            .block_parent_op(block)
            .filter(|&k| LoopOp::of(ctx, k) == Some(LoopOp::Kernel))
            .map(|k| ctx.operand(k, index as usize)),
        _ => None,
    };
    operand.map_or(b, |o| alias_class(ctx, root_of(ctx, o)))
}

/// The binary scalar op `op` is, if it is one.
fn binary_of(ctx: &Context, op: Op) -> Option<Binary> {
    match LoopOp::of(ctx, op) {
        Some(LoopOp::Scalar(ScalarOp::Binary(b))) => Some(b),
        _ => None,
    }
}

/// Alias scopes for the arguments of kernel `op` whose host allocation no
/// other operand shares (see the module comment), and the `!noalias` list
/// for the other arguments' accesses.
#[allow(clippy::type_complexity)]
fn alias_scopes<'ll>(
    ctx: &Context,
    op: Op,
    ll: &'ll LlContext,
) -> (FxHashMap<Value, (MetadataValue<'ll>, MetadataValue<'ll>)>, Option<MetadataValue<'ll>>) {
    let Some(body) = ctx.single_block(op, 0) else { return (FxHashMap::default(), None) };
    let class = |v: Value| alias_class(ctx, root_of(ctx, v));
    let classes: Vec<Value> = ctx.operands(op).map(class).collect();
    let own: Vec<(usize, Value)> = ctx
        .block_args(body)
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            let Some(&c) = classes.get(i) else { return false };
            let is_arg = matches!(ctx.value_def(c), aot_ir::ValueDef::BlockArg { .. });
            !is_arg && classes.iter().filter(|&&d| d == c).count() == 1
        })
        .map(|(i, &a)| (i, a))
        .collect();
    if own.is_empty() {
        return (FxHashMap::default(), None);
    }
    // String-named scopes are uniqued by name, so no self-reference is needed.
    let domain = ll.metadata_node(&[ll.metadata_string("aot.kernel").into()]);
    let scope: Vec<MetadataValue<'ll>> = own
        .iter()
        .map(|(i, _)| ll.metadata_node(&[ll.metadata_string(&format!("aot.buffer{i}")).into(), domain.into()]))
        .collect();
    let list = |skip: Option<usize>| {
        let items: Vec<BasicMetadataValueEnum<'ll>> =
            scope.iter().enumerate().filter(|&(k, _)| Some(k) != skip).map(|(_, &s)| s.into()).collect();
        ll.metadata_node(&items)
    };
    let scopes =
        own.iter().enumerate().map(|(k, &(_, a))| (a, (ll.metadata_node(&[scope[k].into()]), list(Some(k))))).collect();
    (scopes, Some(list(None)))
}

/// The float predicate of a `loop.cmp` (ordered: false on NaN, except `ne`).
fn float_predicate(p: Predicate) -> FloatPredicate {
    match p {
        Predicate::Eq => FloatPredicate::OEQ,
        Predicate::Ne => FloatPredicate::UNE,
        Predicate::Lt => FloatPredicate::OLT,
        Predicate::Le => FloatPredicate::OLE,
        Predicate::Gt => FloatPredicate::OGT,
        Predicate::Ge => FloatPredicate::OGE,
    }
}

/// Philox's word operations on LLVM `i64` values holding 32 bits.
struct LlvmWords<'a, 'll> {
    b: &'a Builder<'ll>,
    t: inkwell::types::IntType<'ll>,
}

impl<'ll> philox::Words for LlvmWords<'_, 'll> {
    type Word = IntValue<'ll>;
    type Error = String;
    type Product = IntValue<'ll>;

    fn mul(&mut self, m: u32, x: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_int_mul(*x, self.t.const_int(m as u64, false), "").map_err(bug)
    }

    fn hi(&mut self, p: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_right_shift(*p, self.t.const_int(32, false), false, "").map_err(bug)
    }

    fn lo(&mut self, p: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_and(*p, self.t.const_int(0xffff_ffff, false), "").map_err(bug)
    }

    fn add(&mut self, k: &IntValue<'ll>, step: u32) -> Result<IntValue<'ll>, String> {
        let sum = self.b.build_int_add(*k, self.t.const_int(step as u64, false), "").map_err(bug)?;
        self.b.build_and(sum, self.t.const_int(0xffff_ffff, false), "").map_err(bug)
    }

    fn xor(&mut self, a: &IntValue<'ll>, b: &IntValue<'ll>) -> Result<IntValue<'ll>, String> {
        self.b.build_xor(*a, *b, "").map_err(bug)
    }
}

/// The loop dialect's compound scalar ops ([`expand`]) on LLVM values.
struct LlvmPrimitives<'a, 'll> {
    b: &'a Builder<'ll>,
    ll: &'ll LlContext,
}

impl<'ll> expand::Primitives for LlvmPrimitives<'_, 'll> {
    type Value = V<'ll>;
    type Error = String;

    fn int(&mut self, like: V<'ll>, k: i64) -> Result<V<'ll>, String> {
        Ok(like.into_int_value().get_type().const_int(k as u64, true).into())
    }

    fn binary(&mut self, op: IntOp, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        let (a, b, bd) = (a.into_int_value(), b.into_int_value(), self.b);
        let v = match op {
            IntOp::Add => bd.build_int_add(a, b, ""),
            IntOp::Sub => bd.build_int_sub(a, b, ""),
            IntOp::And => bd.build_and(a, b, ""),
            IntOp::Or => bd.build_or(a, b, ""),
            IntOp::Xor => bd.build_xor(a, b, ""),
            IntOp::SDiv => bd.build_int_signed_div(a, b, ""),
            IntOp::SRem => bd.build_int_signed_rem(a, b, ""),
            IntOp::ShrU => bd.build_right_shift(a, b, false, ""),
        };
        Ok(v.map_err(bug)?.into())
    }

    fn binary_imm(&mut self, op: IntOp, a: V<'ll>, k: i64) -> Result<V<'ll>, String> {
        let b = self.int(a, k)?;
        self.binary(op, a, b)
    }

    fn cmp(&mut self, p: IntCmp, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        let p = match p {
            IntCmp::Eq => IntPredicate::EQ,
            IntCmp::Ne => IntPredicate::NE,
            IntCmp::Slt => IntPredicate::SLT,
        };
        Ok(self.b.build_int_compare(p, a.into_int_value(), b.into_int_value(), "").map_err(bug)?.into())
    }

    fn cond(&mut self, op: IntOp, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        self.binary(op, a, b)
    }

    fn select(&mut self, c: V<'ll>, a: V<'ll>, b: V<'ll>) -> Result<V<'ll>, String> {
        self.b.build_select(c.into_int_value(), a, b, "").map_err(bug)
    }

    fn zext_cond(&mut self, c: V<'ll>, like: V<'ll>) -> Result<V<'ll>, String> {
        let t = like.into_int_value().get_type();
        Ok(self.b.build_int_z_extend(c.into_int_value(), t, "").map_err(bug)?.into())
    }

    fn f32_bits(&mut self, x: V<'ll>) -> Result<V<'ll>, String> {
        self.b.build_bit_cast(x, self.ll.i32_type(), "").map_err(bug)
    }

    fn is_nan(&mut self, x: V<'ll>) -> Result<V<'ll>, String> {
        let x = x.into_float_value();
        Ok(self.b.build_float_compare(FloatPredicate::UNO, x, x, "").map_err(bug)?.into())
    }

    fn low_i16(&mut self, v: V<'ll>) -> Result<V<'ll>, String> {
        Ok(self.b.build_int_truncate(v.into_int_value(), self.ll.i16_type(), "").map_err(bug)?.into())
    }
}
