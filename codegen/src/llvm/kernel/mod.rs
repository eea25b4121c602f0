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
//!
//! This file is the emitter both flavors share (ops, loops, addresses,
//! casts, alias scopes); `host` holds what only the CPU does (the jammed
//! loops), `gpu` what only PTX does (grid-stride splits, rows shared by
//! a warp or a block and their shuffles and barriers), and `primitives`
//! the LLVM side of the formulas written once elsewhere (lane polynomials,
//! Philox, floor division, bf16 rounding).

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

mod gpu;
mod host;
mod primitives;

pub(super) use gpu::BLOCK_THREADS;
use gpu::{row_plan, RowPlan};
use host::jam_lanes;
use primitives::{LlvmPrimitives, LlvmWords, ScalarLanes};

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
    /// The position of each symbolic size in the program's size table,
    /// whose address follows a kernel's operands in its table of base
    /// pointers (`HostProgram::sizes`); empty for a static program.
    pub table: &'t FxHashMap<i64, usize>,
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
    /// The symbolic sizes the kernel reads, each loaded once from the
    /// call's size table at entry.
    sizes: FxHashMap<i64, IntValue<'ll>>,
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
    let mut used = Vec::new();
    crate::program::table_sizes(ctx, op, &mut used);
    let mut sizes = FxHashMap::default();
    if !used.is_empty() {
        let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
        let n = ctx.block_args(body).len() as u64;
        // SAFETY (of the GEPs): the runtime passes the size table's
        // address after the operands' base pointers, and the table holds
        // every size of `HostProgram::sizes`.
        let slot =
            unsafe { b.build_in_bounds_gep(ptr, buffers, &[i64t.const_int(n, false)], "sizes.slot") }.map_err(fail)?;
        let mut table = b.build_load(ptr, slot, "sizes").map_err(fail)?.into_pointer_value();
        if target.flavor == Flavor::Ptx {
            // The table is a buffer of the call like the operands (a
            // read-only global the device holds): global memory.
            let global = ll.ptr_type(AddressSpace::from(1u16));
            table = b.build_address_space_cast(table, global, "sizes.global").map_err(fail)?;
        }
        for d in used {
            let k = *target.table.get(&d).ok_or_else(|| err(ctx, op, "a symbolic size missing from the size table"))?;
            let at = unsafe { b.build_in_bounds_gep(i64t, table, &[i64t.const_int(k as u64, false)], "size.at") }
                .map_err(fail)?;
            let v = b.build_load(i64t, at, "size").map_err(fail)?;
            if let Some(i) = v.as_instruction_value() {
                // The table is read-only for the whole call: LLVM may
                // hoist and merge its loads.
                let empty = ll.metadata_node(&[]);
                i.set_metadata(empty, ll.get_kind_id("invariant.load")).map_err(|e| err(ctx, op, bug(e)))?;
            }
            sizes.insert(d, v.into_int_value());
        }
    }
    // The division analysis reasons from static loop bounds.
    let symbolic = !sizes.is_empty();
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
        unsigned: if symbolic { FxHashSet::default() } else { r#loop::range::unsigned_divisions(ctx, op) },
        flavor: target.flavor,
        status: (target.flavor == Flavor::Ptx).then(|| params[3].into_pointer_value()),
        row: None,
        threads: 1,
        sizes,
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

    /// Size `d` as an i64: a constant, or a symbolic size's value loaded
    /// from the size table at entry.
    fn size(&self, d: i64) -> IntValue<'ll> {
        match self.sizes.get(&d) {
            Some(&v) => v,
            None => self.ll.i64_type().const_int(d as u64, true),
        }
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
            LoopOp::Size => {
                let d = ctx.attr_i64(op, "size").ok_or_else(|| self.err(op, "loop.size without a size"))?;
                let v = self.size(d);
                self.vals.insert(ctx.result(op, 0), v.into());
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
            | LoopOp::Attention
            | LoopOp::AttentionGrad
            | LoopOp::Rebind
            | LoopOp::Resize
            | LoopOp::Collective => return Err(self.err(op, "a host op inside a kernel")),
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
        let fail = |e: inkwell::builder::BuilderError| err(ctx, op, bug(e));
        let mut acc = self.size(offset);
        for (&i, &s) in idx.iter().zip(strides.iter()) {
            let t = match self.sizes.get(&s) {
                Some(&v) => self.b.build_int_mul(i, v, "").map_err(fail)?,
                None if s == 0 => continue,
                None if s == 1 => i,
                None => self.b.build_int_mul(i, self.size(s), "").map_err(fail)?,
            };
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
        let c = |k: &str| self.size(self.ctx.attr_i64(op, k).unwrap_or(0));
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
                    // (LLVM's own vectors are as wide as the CPU's: its
                    // kernels never call the eight-lane helpers.)
                    Sig::Lanes8 => return Err(format!("{name} is a helper of the Cranelift backend's strips")),
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
            ScalarOp::Fma => self.intrinsic(
                "llvm.fma",
                &[ty0.ok_or("fma without operands")?],
                &[ops[0].into(), ops[1].into(), ops[2].into()],
            )?,
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
