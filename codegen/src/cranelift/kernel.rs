//! One `loop.kernel` to one Cranelift function.
//!
//! Loops become header/body/exit blocks with the induction variable and
//! iter_args as block parameters; the outermost parallel loop runs the
//! `lo..hi` the caller passes (so the runtime can split it across threads).
//! Scalars map to Cranelift types (`index` and `i64` to I64, `i1` to I8
//! holding 0 or 1, `f16`/`bf16` to I16 bit patterns); a load or store
//! computes `base + (offset + Σ iₖ·strideₖ) · size` from the memref layout.
//! Innermost loops whose accesses are unit-stride or invariant run four
//! f32 lanes at a time (see [`super::vector`]).

use super::Options;
use crate::libcalls::{self, Sig};
use aot_dialects::r#loop::analysis;
use aot_dialects::r#loop::expand::{self, IntCmp, IntOp};
use aot_dialects::r#loop::math::LaneImpl;
use aot_dialects::r#loop::{self, Binary, CastPlan, Conversion, LoopOp, MathFn, Predicate, ScalarOp, Unary};
use aot_ir::{AttrData, Context, Diagnostic, ElemType, MemRefType, Op, TypeData, Value};
use aot_runtime::philox;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self as cl, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, Type};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};
use rustc_hash::{FxHashMap, FxHashSet};

pub(super) fn cl_type(t: &TypeData) -> Option<Type> {
    Some(match t {
        TypeData::Index => types::I64,
        TypeData::Elem(e) => elem_type(*e),
        _ => return None,
    })
}

pub(super) fn elem_type(e: ElemType) -> Type {
    match e {
        ElemType::F32 => types::F32,
        ElemType::F64 => types::F64,
        ElemType::I64 => types::I64,
        ElemType::I32 => types::I32,
        ElemType::I8 | ElemType::I1 => types::I8,
        ElemType::F16 | ElemType::BF16 => types::I16,
    }
}

pub(super) fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Loads of memory nothing writes while the kernel runs: free of memory
/// dependencies, so Cranelift places each at its use (or hoists it out of a
/// loop) like arithmetic. Loads it must keep in program order stay ahead
/// of the arithmetic its e-graph sinks to the stores: a depthwise 7×7
/// kernel's 196 vector loads then all came first and spilled.
pub(super) fn readonly_flags() -> MemFlagsData {
    flags().with_readonly().with_can_move()
}

/// The block arguments of kernel `op` whose memory the kernel never
/// writes: no store targets an argument that may share its memory (the
/// same allocation, or arguments declared in one storage). Other kernels
/// and GEMMs run before or after it, never during; its own threads write
/// only what it stores.
fn readonly_args(ctx: &Context, op: Op, body: aot_ir::Block) -> FxHashSet<Value> {
    let args = ctx.block_args(body);
    let class = |i: usize| analysis::alias_class(ctx, analysis::root_of(ctx, ctx.operand(op, i)));
    // (A store to anything but a block argument is refused when emitted.)
    let mut written = FxHashSet::default();
    ctx.walk_pre(op, &mut |o| {
        if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
            if let Some(i) = args.iter().position(|&a| a == ctx.operand(o, 1)) {
                written.insert(class(i));
            }
        }
    });
    (0..args.len()).filter(|&i| !written.contains(&class(i))).map(|i| args[i]).collect()
}

pub(super) struct Gen<'a, 'f> {
    pub ctx: &'a Context,
    pub b: FunctionBuilder<'f>,
    pub module: &'a mut JITModule,
    pub vals: FxHashMap<Value, cl::Value>,
    /// Known integer constants (for division guards).
    pub consts: FxHashMap<Value, i64>,
    pub bufs: FxHashMap<Value, (cl::Value, MemRefType)>,
    pub funcs: FxHashMap<&'static str, cl::FuncRef>,
    pub messages: &'a mut Vec<String>,
    /// The loop that runs `lo..hi`, with those values.
    pub split: Option<(Op, cl::Value, cl::Value)>,
    /// Integer divisions that are unsigned (`r#loop::range`).
    pub unsigned: FxHashSet<Op>,
    pub opts: Options,
    /// Buffers the kernel only reads ([`readonly_args`]).
    pub readonly: FxHashSet<Value>,
    /// The symbolic sizes the kernel reads, each loaded once from the
    /// call's size table at entry.
    pub sizes: FxHashMap<i64, cl::Value>,
}

fn err(ctx: &Context, op: Op, m: impl Into<String>) -> Diagnostic {
    Diagnostic::op_error(ctx, op, m.into())
}

/// What the kernels of one program share while they are emitted.
pub(super) struct Shared<'a> {
    /// The messages of failed checks (code k is `messages[k - 1]`).
    pub messages: &'a mut Vec<String>,
    /// The position of each symbolic size in the program's size table
    /// (whose address follows a kernel's operands in its table of base
    /// pointers); empty for a static program.
    pub table: &'a FxHashMap<i64, usize>,
}

/// Emits kernel `op` into `func` (whose signature is set).
pub(super) fn emit(
    ctx: &Context,
    op: Op,
    module: &mut JITModule,
    func: &mut cl::Function,
    fbc: &mut FunctionBuilderContext,
    shared: Shared<'_>,
    opts: Options,
) -> Result<(), Diagnostic> {
    let Shared { messages, table } = shared;
    let mut b = FunctionBuilder::new(func, fbc);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let body = ctx.single_block(op, 0).ok_or_else(|| err(ctx, op, "a kernel needs a body"))?;
    let mut bufs = FxHashMap::default();
    let ptr = module.target_config().pointer_type();
    let readonly = readonly_args(ctx, op, body);
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let m = analysis::memref(ctx, a).cloned().ok_or_else(|| err(ctx, op, "kernel arguments must be buffers"))?;
        // (The table of base pointers is the caller's, read-only.)
        let base = b.ins().load(ptr, readonly_flags(), params[0], (i * ptr.bytes() as usize) as i32);
        bufs.insert(a, (base, m));
    }
    let mut used = Vec::new();
    crate::program::table_sizes(ctx, op, &mut used);
    let mut sizes = FxHashMap::default();
    if !used.is_empty() {
        let at = (ctx.block_args(body).len() * ptr.bytes() as usize) as i32;
        let base = b.ins().load(ptr, readonly_flags(), params[0], at);
        for d in used {
            let k = *table.get(&d).ok_or_else(|| err(ctx, op, "a symbolic size missing from the size table"))?;
            let off = i32::try_from(k * 8).map_err(|_| err(ctx, op, "the size table is too large"))?;
            sizes.insert(d, b.ins().load(types::I64, readonly_flags(), base, off));
        }
    }
    // The division analysis reasons from static loop bounds.
    let symbolic = !sizes.is_empty();
    let split = analysis::split_loop(ctx, op).map(|l| (l.0, params[1], params[2]));
    let mut g = Gen {
        ctx,
        b,
        module,
        vals: FxHashMap::default(),
        consts: FxHashMap::default(),
        bufs,
        funcs: FxHashMap::default(),
        messages,
        split,
        unsigned: if symbolic { FxHashSet::default() } else { r#loop::range::unsigned_divisions(ctx, op) },
        opts,
        readonly,
        sizes,
    };
    g.region_ops(body)?;
    let zero = g.b.ins().iconst(types::I32, 0);
    g.b.ins().return_(&[zero]);
    g.b.seal_all_blocks();
    let cfg = g.module.target_config();
    g.b.finalize(cfg);
    Ok(())
}

impl<'a, 'f> Gen<'a, 'f> {
    pub fn err(&self, op: Op, m: impl Into<String>) -> Diagnostic {
        err(self.ctx, op, m)
    }

    /// The flags of a load from buffer `buf`.
    pub fn load_flags(&self, buf: Value) -> MemFlagsData {
        if self.readonly.contains(&buf) {
            readonly_flags()
        } else {
            flags()
        }
    }

    pub fn val(&self, op: Op, v: Value) -> Result<cl::Value, Diagnostic> {
        self.vals.get(&v).copied().ok_or_else(|| self.err(op, "operand has no compiled value"))
    }

    pub fn ty(&self, v: Value) -> &'a TypeData {
        self.ctx.type_data(self.ctx.value_type(v))
    }

    /// Emits the ops of a block; returns the operands of its `loop.yield`.
    pub fn region_ops(&mut self, block: aot_ir::Block) -> Result<Vec<cl::Value>, Diagnostic> {
        for op in self.ctx.block_ops(block) {
            if LoopOp::of(self.ctx, op) == Some(LoopOp::Yield) {
                return self.ctx.operands(op).map(|v| self.val(op, v)).collect();
            }
            self.op(op)?;
        }
        Ok(Vec::new())
    }

    pub fn libcall(&mut self, name: &'static str, sig: Sig) -> Result<cl::FuncRef, String> {
        if let Some(&f) = self.funcs.get(name) {
            return Ok(f);
        }
        let mut s = self.module.make_signature();
        let (params, ret): (&[Type], Option<Type>) = match sig {
            Sig::F32 => (&[types::F32], Some(types::F32)),
            Sig::F64 => (&[types::F64], Some(types::F64)),
            Sig::F32x2 => (&[types::F32, types::F32], Some(types::F32)),
            Sig::F64x2 => (&[types::F64, types::F64], Some(types::F64)),
            Sig::HalfToF32 => (&[types::I16], Some(types::F32)),
            Sig::F32ToHalf => (&[types::F32], Some(types::I16)),
            Sig::Lanes8 => (&[types::I64, types::I64], None),
        };
        s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        s.returns.extend(ret.map(AbiParam::new));
        let id = self.module.declare_function(name, Linkage::Import, &s).map_err(|e| e.to_string())?;
        let f = self.module.declare_func_in_func(id, self.b.func);
        self.funcs.insert(name, f);
        Ok(f)
    }

    pub fn call1(&mut self, name: &'static str, sig: Sig, args: &[cl::Value]) -> Result<cl::Value, String> {
        let f = self.libcall(name, sig)?;
        let inst = self.b.ins().call(f, args);
        Ok(self.b.inst_results(inst)[0])
    }

    /// A call of math function `f`'s libm wrapper.
    pub fn call_math(&mut self, f: MathFn, f64: bool, args: &[cl::Value]) -> Result<cl::Value, String> {
        let fact = f.fact();
        self.call1(fact.symbol(f64), libcalls::math_sig(fact, f64), args)
    }

    /// Element offset of `idx` in memref `m`, as an I64.
    pub fn element_offset(&mut self, m: &MemRefType, idx: &[cl::Value]) -> cl::Value {
        let (strides, offset) = r#loop::layout(m);
        let mut acc = self.size(offset);
        for (&i, &s) in idx.iter().zip(strides.iter()) {
            let t = match self.sizes.get(&s) {
                Some(&v) => self.b.ins().imul(i, v),
                None if s == 0 => continue,
                None if s == 1 => i,
                None => self.b.ins().imul_imm_s(i, s),
            };
            acc = self.b.ins().iadd(acc, t);
        }
        acc
    }

    /// Size `d` as an I64: a constant, or a symbolic size's value loaded
    /// from the size table at entry.
    pub fn size(&mut self, d: i64) -> cl::Value {
        match self.sizes.get(&d) {
            Some(&v) => v,
            None => self.b.ins().iconst(types::I64, d),
        }
    }

    pub fn address(&mut self, base: cl::Value, m: &MemRefType, idx: &[cl::Value]) -> cl::Value {
        let off = self.element_offset(m, idx);
        let bytes = self.b.ins().imul_imm_s(off, m.elem.byte_size() as i64);
        self.b.ins().iadd(base, bytes)
    }

    /// Emits one op with scalar code.
    pub fn op_scalar(&mut self, op: Op) -> Result<(), Diagnostic> {
        self.op(op)
    }

    fn op(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let kind = LoopOp::of(ctx, op)
            .ok_or_else(|| self.err(op, format!("'{}' is not a loop-dialect op", ctx.op_name(op))))?;
        let res = |_: &Gen<'_, '_>, i: usize| ctx.result(op, i);
        match kind {
            LoopOp::For => return self.for_loop(op),
            LoopOp::Size => {
                let d = ctx.attr_i64(op, "size").ok_or_else(|| self.err(op, "loop.size without a size"))?;
                let v = self.size(d);
                self.vals.insert(res(self, 0), v);
            }
            LoopOp::Constant => {
                let a = ctx.get_attr(op, "value").ok_or_else(|| self.err(op, "constant without value"))?;
                let t = cl_type(self.ty(ctx.result(op, 0))).ok_or_else(|| self.err(op, "constant of a non-scalar"))?;
                let v = match ctx.attr_data(a) {
                    AttrData::Int { value, .. } => {
                        self.consts.insert(ctx.result(op, 0), *value);
                        self.b.ins().iconst(t, *value)
                    }
                    AttrData::Float { bits, .. } if t == types::F32 => {
                        self.b.ins().f32const(f64::from_bits(*bits) as f32)
                    }
                    AttrData::Float { bits, .. } => self.b.ins().f64const(f64::from_bits(*bits)),
                    _ => return Err(self.err(op, "constant must be an integer or float")),
                };
                self.vals.insert(res(self, 0), v);
            }
            LoopOp::Load => {
                let buf = ctx.operand(op, 0);
                let (base, m) =
                    self.bufs.get(&buf).cloned().ok_or_else(|| self.err(op, "load from an unknown buffer"))?;
                let idx: Vec<cl::Value> =
                    ctx.operands(op).skip(1).map(|v| self.val(op, v)).collect::<Result<_, _>>()?;
                let addr = self.address(base, &m, &idx);
                let fl = self.load_flags(buf);
                let v = self.b.ins().load(elem_type(m.elem), fl, addr, 0);
                self.vals.insert(res(self, 0), v);
            }
            LoopOp::Store => {
                let buf = ctx.operand(op, 1);
                let (base, m) =
                    self.bufs.get(&buf).cloned().ok_or_else(|| self.err(op, "store to an unknown buffer"))?;
                let v = self.val(op, ctx.operand(op, 0))?;
                let idx: Vec<cl::Value> =
                    ctx.operands(op).skip(2).map(|v| self.val(op, v)).collect::<Result<_, _>>()?;
                let addr = self.address(base, &m, &idx);
                self.b.ins().store(flags(), v, addr, 0);
            }
            LoopOp::Assert => {
                let c = self.val(op, ctx.operand(op, 0))?;
                self.messages.push(analysis::assert_message(ctx, op));
                let code = self.messages.len() as i64;
                let fail = self.b.create_block();
                let cont = self.b.create_block();
                // (The continuation is the else-target: see `scalar_for`.)
                let failed = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
                self.b.ins().brif(failed, fail, &[], cont, &[]);
                self.b.switch_to_block(fail);
                let k = self.b.ins().iconst(types::I32, code);
                self.b.ins().return_(&[k]);
                self.b.switch_to_block(cont);
            }
            LoopOp::Philox => {
                let seed = self.val(op, ctx.operand(op, 0))?;
                let ctr = self.val(op, ctx.operand(op, 1))?;
                let out = self.philox(seed, ctr);
                for (i, v) in out.into_iter().enumerate() {
                    self.vals.insert(res(self, i), v);
                }
            }
            LoopOp::Scalar(s) => {
                let v = self.scalar(op, s).map_err(|m| self.err(op, m))?;
                self.vals.insert(res(self, 0), v);
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

    /// The bounds a loop runs: the caller's slice for the split loop,
    /// clamped to the loop's own bounds (which the division analysis,
    /// `r#loop::range`, takes as the induction variable's range).
    pub fn bounds(&mut self, op: Op) -> (cl::Value, cl::Value) {
        let lower = self.b.ins().iconst(types::I64, self.ctx.attr_i64(op, "lower").unwrap_or(0));
        let upper = self.size(self.ctx.attr_i64(op, "upper").unwrap_or(0));
        match self.split {
            Some((l, lo, hi)) if l == op => (self.b.ins().smax(lo, lower), self.b.ins().smin(hi, upper)),
            _ => (lower, upper),
        }
    }

    fn for_loop(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        if self.opts.vectorize && super::vector::try_vectorize(self, op)? {
            return Ok(());
        }
        let (lo, hi) = self.bounds(op);
        let inits: Vec<cl::Value> = ctx.operands(op).map(|v| self.val(op, v)).collect::<Result<_, _>>()?;
        let results = self.scalar_for(op, lo, hi, &inits)?;
        for (i, &r) in ctx.results(op).iter().enumerate() {
            self.vals.insert(r, results[i]);
        }
        Ok(())
    }

    /// Emits loop `op` running `lo..hi` (its own step) from `inits`;
    /// returns the final carried values.
    pub fn scalar_for(
        &mut self,
        op: Op,
        lo: cl::Value,
        hi: cl::Value,
        inits: &[cl::Value],
    ) -> Result<Vec<cl::Value>, Diagnostic> {
        let ctx = self.ctx;
        let step = ctx.attr_i64(op, "step").unwrap_or(1);
        let body_ir = ctx.single_block(op, 0).ok_or_else(|| self.err(op, "a loop needs a body"))?;
        let carried_types: Vec<Type> = inits.iter().map(|&v| self.b.func.dfg.value_type(v)).collect();
        let header = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        for &t in &carried_types {
            self.b.append_block_param(header, t);
            self.b.append_block_param(exit, t);
        }
        let mut args: Vec<BlockArg> = vec![lo.into()];
        args.extend(inits.iter().map(|&v| BlockArg::from(v)));
        self.b.ins().jump(header, &args);
        self.b.switch_to_block(header);
        let hp = self.b.block_params(header).to_vec();
        // The body is the branch's else-target. Cranelift's elaboration
        // walks the dominator tree's children else-target first, and drops
        // the loops it is in on entering a block outside them; with the
        // exit first, the body's loop-invariant arithmetic and loads were
        // never hoisted (a max pool's flat index division and base-pointer
        // loads ran in its innermost loop).
        let done = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, hp[0], hi);
        let carried: Vec<BlockArg> = hp[1..].iter().map(|&v| v.into()).collect();
        self.b.ins().brif(done, exit, &carried, body, &[]);
        self.b.switch_to_block(body);
        let ir_args = ctx.block_args(body_ir).to_vec();
        for (i, &a) in ir_args.iter().enumerate() {
            self.vals.insert(a, hp[i]);
        }
        let next = self.region_ops(body_ir)?;
        let iv_next = self.b.ins().iadd_imm_s(hp[0], step);
        let mut back: Vec<BlockArg> = vec![iv_next.into()];
        back.extend(next.iter().map(|&v| BlockArg::from(v)));
        self.b.ins().jump(header, &back);
        self.b.switch_to_block(exit);
        Ok(self.b.block_params(exit).to_vec())
    }

    /// One Philox4x32-10 block from I64 seed and counter; four I64 words
    /// (the rounds are the runtime's, emitted through [`ClifWords`]).
    pub fn philox(&mut self, seed: cl::Value, ctr: cl::Value) -> [cl::Value; 4] {
        let b = &mut self.b;
        let c = [
            b.ins().band_imm_u(ctr, WORD_MASK),
            b.ins().ushr_imm_u(ctr, 32),
            b.ins().iconst(types::I64, 0),
            b.ins().iconst(types::I64, 0),
        ];
        let k = [b.ins().band_imm_u(seed, WORD_MASK), b.ins().ushr_imm_u(seed, 32)];
        infallible(philox::rounds(&mut ClifWords(b), c, k))
    }

    fn scalar(&mut self, op: Op, kind: ScalarOp) -> Result<cl::Value, String> {
        let ctx = self.ctx;
        let ops: Vec<cl::Value> =
            ctx.operands(op).map(|v| self.val(op, v).map_err(|d| d.message)).collect::<Result<_, _>>()?;
        let t0 = ctx.operands(op).next().map(|v| self.ty(v).clone());
        let is_float = matches!(t0, Some(TypeData::Elem(e)) if e.is_float());
        let is_f64 = matches!(t0, Some(TypeData::Elem(ElemType::F64)));
        let b = &mut self.b;
        Ok(match kind {
            ScalarOp::Binary(bin) => match bin {
                Binary::Add if is_float => b.ins().fadd(ops[0], ops[1]),
                Binary::Add => b.ins().iadd(ops[0], ops[1]),
                Binary::Sub if is_float => b.ins().fsub(ops[0], ops[1]),
                Binary::Sub => b.ins().isub(ops[0], ops[1]),
                Binary::Mul if is_float => b.ins().fmul(ops[0], ops[1]),
                Binary::Mul => b.ins().imul(ops[0], ops[1]),
                Binary::Div if is_float => b.ins().fdiv(ops[0], ops[1]),
                Binary::Div if self.unsigned.contains(&op) => b.ins().udiv(ops[0], ops[1]),
                Binary::Rem if self.unsigned.contains(&op) => b.ins().urem(ops[0], ops[1]),
                Binary::Div | Binary::Rem => {
                    let divisor = self.safe_divisor(ctx.operand(op, 1), ops[1]);
                    self.floor_divrem(bin == Binary::Div, ops[0], divisor)
                }
                Binary::Max if is_float => b.ins().fmax(ops[0], ops[1]),
                Binary::Max => b.ins().smax(ops[0], ops[1]),
                Binary::Min if is_float => b.ins().fmin(ops[0], ops[1]),
                Binary::Min => b.ins().smin(ops[0], ops[1]),
                Binary::And => b.ins().band(ops[0], ops[1]),
                Binary::Or => b.ins().bor(ops[0], ops[1]),
                Binary::Xor => b.ins().bxor(ops[0], ops[1]),
                Binary::Shr => b.ins().ushr(ops[0], ops[1]),
            },
            ScalarOp::Unary(u) => match u {
                Unary::Neg if is_float => b.ins().fneg(ops[0]),
                Unary::Neg => b.ins().ineg(ops[0]),
                Unary::Abs if is_float => b.ins().fabs(ops[0]),
                Unary::Abs => b.ins().iabs(ops[0]),
                Unary::Sqrt => b.ins().sqrt(ops[0]),
                Unary::Rsqrt => {
                    let s = b.ins().sqrt(ops[0]);
                    let one = if is_f64 { b.ins().f64const(1.0) } else { b.ins().f32const(1.0) };
                    b.ins().fdiv(one, s)
                }
                Unary::Floor => b.ins().floor(ops[0]),
                Unary::Ceil => b.ins().ceil(ops[0]),
                Unary::Trunc => b.ins().trunc(ops[0]),
                Unary::Round => b.ins().nearest(ops[0]),
            },
            ScalarOp::Math(f) => {
                // A non-exact f32 function with a lane polynomial computes
                // as the lanes do (see `vector::scalar_poly`).
                match f.fact().lanes {
                    LaneImpl::Poly(p) if !is_f64 && !ctx.has_attr(op, "exact") => {
                        super::vector::scalar_poly(self, p, ops[0])
                    }
                    _ => self.call_math(f, is_f64, &ops)?,
                }
            }
            // Cranelift selects a float with a branch on x86 (`XmmCmove`),
            // which mispredicts on data-dependent choices (a max pool's or
            // a ReLU gradient's on random data: 4x slower). Selecting the
            // bits in integer registers is a `cmov`.
            ScalarOp::Select if b.func.dfg.value_type(ops[1]).is_float() => {
                let ft = b.func.dfg.value_type(ops[1]);
                let it = ft.as_int();
                let x = b.ins().bitcast(it, MemFlagsData::new(), ops[1]);
                let y = b.ins().bitcast(it, MemFlagsData::new(), ops[2]);
                let r = b.ins().select(ops[0], x, y);
                b.ins().bitcast(ft, MemFlagsData::new(), r)
            }
            ScalarOp::Select => b.ins().select(ops[0], ops[1], ops[2]),
            // One `vfmadd` where the ISA has FMA; else Cranelift calls
            // `fmaf`/`fma`, which round once too.
            ScalarOp::Fma => b.ins().fma(ops[0], ops[1], ops[2]),
            ScalarOp::Cmp => {
                let p = Predicate::of(ctx, op).ok_or("cmp without a valid predicate")?;
                if is_float {
                    b.ins().fcmp(float_cc(p), ops[0], ops[1])
                } else {
                    b.ins().icmp(int_cc(p), ops[0], ops[1])
                }
            }
            ScalarOp::Cast => {
                let from = t0.ok_or("cast without operand")?;
                let to = self.ty(ctx.result(op, 0)).clone();
                self.cast(ops[0], &from, &to)?
            }
        })
    }

    /// A divisor that cannot trap: constants as they are, others with 0
    /// and -1 replaced by 1 ([`expand::safe_divisor`]).
    fn safe_divisor(&mut self, v: Value, c: cl::Value) -> cl::Value {
        match self.consts.get(&v) {
            Some(&k) if k != 0 && k != -1 => c,
            _ => infallible(expand::safe_divisor(&mut ClifPrimitives(&mut self.b), c)),
        }
    }

    /// Floor division or modulo (the sign of the divisor).
    pub fn floor_divrem(&mut self, div: bool, a: cl::Value, d: cl::Value) -> cl::Value {
        infallible(expand::floor_divrem(&mut ClifPrimitives(&mut self.b), div, a, d))
    }

    /// f32 → bf16 bits, round to nearest even (NaN stays NaN).
    fn f32_to_bf16(&mut self, x: cl::Value) -> cl::Value {
        infallible(expand::f32_to_bf16(&mut ClifPrimitives(&mut self.b), x))
    }

    fn bf16_to_f32(&mut self, h: cl::Value) -> cl::Value {
        let b = &mut self.b;
        let w = b.ins().uextend(types::I32, h);
        let s = b.ins().ishl_imm_u(w, 16);
        b.ins().bitcast(types::F32, MemFlagsData::new(), s)
    }

    /// Converts between scalar types with `loop.cast`'s rules
    /// ([`CastPlan`]).
    pub fn cast(&mut self, v: cl::Value, from: &TypeData, to: &TypeData) -> Result<cl::Value, String> {
        let plan = CastPlan::between(from, to).ok_or("cast of a non-scalar")?;
        let mut v = v;
        let mut fe = match from {
            TypeData::Elem(e) => *e,
            _ => ElemType::I64,
        };
        if let Some(h) = plan.from_half {
            v = if h == ElemType::BF16 {
                self.bf16_to_f32(v)
            } else {
                self.call1(libcalls::F16_TO_F32, Sig::HalfToF32, &[v])?
            };
            fe = ElemType::F32;
        }
        let te = match (plan.to_half, to) {
            (Some(_), _) => ElemType::F32,
            (None, TypeData::Elem(e)) => *e,
            (None, _) => ElemType::I64,
        };
        let b = &mut self.b;
        v = match plan.convert {
            Conversion::Same => v,
            Conversion::FloatResize if te == ElemType::F64 => b.ins().fpromote(types::F64, v),
            Conversion::FloatResize => b.ins().fdemote(types::F32, v),
            Conversion::FloatToBool => {
                let z = if fe == ElemType::F64 { b.ins().f64const(0.0) } else { b.ins().f32const(0.0) };
                b.ins().fcmp(FloatCC::NotEqual, v, z)
            }
            // Cranelift saturates to 32 bits at least: clamp to i8's range.
            Conversion::FloatToInt if te == ElemType::I8 => {
                let w = b.ins().fcvt_to_sint_sat(types::I32, v);
                let lo = b.ins().iconst(types::I32, -128);
                let hi = b.ins().iconst(types::I32, 127);
                let c = b.ins().smax(w, lo);
                let c = b.ins().smin(c, hi);
                b.ins().ireduce(types::I8, c)
            }
            Conversion::FloatToInt => b.ins().fcvt_to_sint_sat(elem_type(te), v),
            // An i1 is a byte holding 0 or 1 here, so extending it either
            // way gives the same value.
            Conversion::IntToFloat { .. } => {
                let w = if b.func.dfg.value_type(v).bits() < 32 { b.ins().sextend(types::I32, v) } else { v };
                b.ins().fcvt_from_sint(elem_type(te), w)
            }
            Conversion::IntToBool => {
                let z = b.ins().iconst(elem_type(fe), 0);
                b.ins().icmp(IntCC::NotEqual, v, z)
            }
            Conversion::IntResize { .. } => {
                let (fb, tb) = (elem_type(fe).bits(), elem_type(te).bits());
                if tb > fb {
                    b.ins().sextend(elem_type(te), v)
                } else if tb < fb {
                    b.ins().ireduce(elem_type(te), v)
                } else {
                    v
                }
            }
        };
        Ok(match plan.to_half {
            Some(ElemType::BF16) => self.f32_to_bf16(v),
            Some(_) => self.call1(libcalls::F32_TO_F16, Sig::F32ToHalf, &[v])?,
            None => v,
        })
    }
}

/// The signed integer condition of a `loop.cmp` predicate, shared by the
/// scalar and the lane code.
pub(super) fn int_cc(predicate: Predicate) -> IntCC {
    match predicate {
        Predicate::Eq => IntCC::Equal,
        Predicate::Ne => IntCC::NotEqual,
        Predicate::Lt => IntCC::SignedLessThan,
        Predicate::Le => IntCC::SignedLessThanOrEqual,
        Predicate::Gt => IntCC::SignedGreaterThan,
        Predicate::Ge => IntCC::SignedGreaterThanOrEqual,
    }
}

/// The float condition of a `loop.cmp` predicate (ordered: false on NaN,
/// except `ne`), shared by the scalar and the lane code.
pub(super) fn float_cc(predicate: Predicate) -> FloatCC {
    match predicate {
        Predicate::Eq => FloatCC::Equal,
        Predicate::Ne => FloatCC::NotEqual,
        Predicate::Lt => FloatCC::LessThan,
        Predicate::Le => FloatCC::LessThanOrEqual,
        Predicate::Gt => FloatCC::GreaterThan,
        Predicate::Ge => FloatCC::GreaterThanOrEqual,
    }
}

/// The low 32 bits of an `i64`: a Philox word.
const WORD_MASK: i64 = 0xffff_ffff;

/// Philox's word operations on Cranelift `i64` values holding 32 bits.
struct ClifWords<'a, 'b>(&'a mut FunctionBuilder<'b>);

impl philox::Words for ClifWords<'_, '_> {
    type Word = cl::Value;
    type Error = std::convert::Infallible;
    type Product = cl::Value;

    fn mul(&mut self, m: u32, x: &cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().imul_imm_s(*x, m as i64))
    }

    fn hi(&mut self, p: &cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().ushr_imm_u(*p, 32))
    }

    fn lo(&mut self, p: &cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().band_imm_u(*p, WORD_MASK))
    }

    fn add(&mut self, k: &cl::Value, step: u32) -> Result<cl::Value, Self::Error> {
        let t = self.0.ins().iadd_imm_s(*k, step as i64);
        Ok(self.0.ins().band_imm_u(t, WORD_MASK))
    }

    fn xor(&mut self, a: &cl::Value, b: &cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().bxor(*a, *b))
    }
}

/// The value of an emission that cannot fail (Cranelift's builder does not).
fn infallible<T>(r: Result<T, std::convert::Infallible>) -> T {
    match r {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// The loop dialect's compound scalar ops ([`expand`]) on Cranelift values.
struct ClifPrimitives<'a, 'b>(&'a mut FunctionBuilder<'b>);

impl expand::Primitives for ClifPrimitives<'_, '_> {
    type Value = cl::Value;
    type Error = std::convert::Infallible;

    fn int(&mut self, like: cl::Value, k: i64) -> Result<cl::Value, Self::Error> {
        let t = self.0.func.dfg.value_type(like);
        Ok(self.0.ins().iconst(t, k))
    }

    fn binary(&mut self, op: IntOp, a: cl::Value, b: cl::Value) -> Result<cl::Value, Self::Error> {
        let i = self.0.ins();
        Ok(match op {
            IntOp::Add => i.iadd(a, b),
            IntOp::Sub => i.isub(a, b),
            IntOp::And => i.band(a, b),
            IntOp::Or => i.bor(a, b),
            IntOp::Xor => i.bxor(a, b),
            IntOp::SDiv => i.sdiv(a, b),
            IntOp::SRem => i.srem(a, b),
            IntOp::ShrU => i.ushr(a, b),
        })
    }

    fn binary_imm(&mut self, op: IntOp, a: cl::Value, k: i64) -> Result<cl::Value, Self::Error> {
        Ok(match op {
            IntOp::Add => self.0.ins().iadd_imm_s(a, k),
            IntOp::And => self.0.ins().band_imm_u(a, k),
            IntOp::Or => self.0.ins().bor_imm_u(a, k),
            IntOp::ShrU => self.0.ins().ushr_imm_u(a, k),
            _ => {
                let b = self.int(a, k)?;
                self.binary(op, a, b)?
            }
        })
    }

    fn cmp(&mut self, p: IntCmp, a: cl::Value, b: cl::Value) -> Result<cl::Value, Self::Error> {
        let cc = match p {
            IntCmp::Eq => IntCC::Equal,
            IntCmp::Ne => IntCC::NotEqual,
            IntCmp::Slt => IntCC::SignedLessThan,
        };
        Ok(self.0.ins().icmp(cc, a, b))
    }

    fn cond(&mut self, op: IntOp, a: cl::Value, b: cl::Value) -> Result<cl::Value, Self::Error> {
        self.binary(op, a, b)
    }

    fn select(&mut self, c: cl::Value, a: cl::Value, b: cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().select(c, a, b))
    }

    fn zext_cond(&mut self, c: cl::Value, like: cl::Value) -> Result<cl::Value, Self::Error> {
        let t = self.0.func.dfg.value_type(like);
        Ok(self.0.ins().uextend(t, c))
    }

    fn f32_bits(&mut self, x: cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().bitcast(types::I32, MemFlagsData::new(), x))
    }

    fn is_nan(&mut self, x: cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().fcmp(FloatCC::Unordered, x, x))
    }

    fn low_i16(&mut self, v: cl::Value) -> Result<cl::Value, Self::Error> {
        Ok(self.0.ins().ireduce(types::I16, v))
    }
}
