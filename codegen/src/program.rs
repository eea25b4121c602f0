//! The host program of a lowered function: what runs around the kernels.
//!
//! Backend-independent: [`build`] turns a lowered function's body into a
//! [`HostProgram`] — argument buffers, allocations (own storage for
//! results, the arena for planned temporaries), read-only globals, and the
//! steps (kernels, GEMMs with their plan, the trailing argument metadata
//! mutations) — and a backend compiles each `loop.kernel` to a
//! [`KernelFn`]. The executor (`crate::executor`) runs the steps.
//!
//! Every memref value of the function is a [`BufRef`]: the allocation it
//! lives in (an argument, an allocation, a global) and its absolute layout
//! in that allocation. Views cost nothing at run time.
//!
//! Invariants: `build` accepts only the host-level ops of the loop dialect
//! and rejects any step that writes a read-only global; the arena is checked
//! against the allocation limit as one allocation.

use crate::gemm;
use aot_dialects::func::{FuncView, ReturnOp};
use aot_dialects::r#loop::analysis::{kernel_cost, kernel_work, kernel_work_expr, memref, split_loop, KernelCost};
use aot_dialects::r#loop::{self, LoopOp};
use aot_ir::*;
use aot_runtime::buffer::Buffer;
use aot_runtime::tensor::{StorageRef, Tensor};
use rustc_hash::FxHashMap;

/// Where a buffer lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    Arg(usize),
    Alloc(usize),
    Global(usize),
}

/// A memref value: its allocation and its layout there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufRef {
    pub root: Root,
    pub ty: MemRefType,
}

impl BufRef {
    /// Whether its shape, strides or offset has a symbolic size.
    fn is_symbolic(&self) -> bool {
        let (s, o) = r#loop::layout(&self.ty);
        !aot_ir::sym::layout_is_static(&self.ty.shape, &s, o)
    }
}

/// A compiled kernel: `(base pointers, lo, hi) -> 0 | 1 + failed check`.
/// `lo..hi` is the range of the outermost parallel loop's induction
/// variable this call runs (ignored by kernels that cannot be split).
pub type KernelFn = unsafe extern "C" fn(*const *mut u8, i64, i64) -> i32;

#[derive(Clone, Debug)]
pub enum Step {
    Kernel {
        op: Op,
        name: String,
        /// The root of each kernel operand (the kernel applies the layouts).
        roots: Vec<Root>,
        /// `(lower, upper, step)` of the outermost loop when the kernel may
        /// be split across threads.
        split: Option<(i64, i64, i64)>,
        /// Rough count of element operations, for the threading decision.
        work: u64,
        /// Flops and bytes, for profiles.
        cost: KernelCost,
        /// Per operand: whether the kernel stores to it.
        writes: Vec<bool>,
    },
    Matmul(Box<Matmul>),
    Attention(Box<Attention>),
    /// A collective of a process group, by its communicator
    /// (`aot_runtime::dist`), from one contiguous buffer into another.
    Collective(Box<Collective>),
    Rebind {
        arg: usize,
        src: BufRef,
        /// The argument's exact strides, where they differ from the memref
        /// type's on size-1 dimensions.
        stride: Option<Vec<i64>>,
    },
    Resize {
        arg: usize,
        numel: i64,
        ty: MemRefType,
    },
}

/// `output = op(input)` over the process group `group` of `size` ranks.
#[derive(Clone, Debug)]
pub struct Collective {
    pub op: aot_runtime::dist::Collective,
    pub group: String,
    pub size: usize,
    pub input: BufRef,
    pub output: BufRef,
    /// The first later step that must not run before the collective
    /// completes (it reads or writes the output's bytes, writes the
    /// input's, or rebinds an argument); the number of steps when none
    /// does. The steps in between run while it is in flight
    /// ([`schedule_waits`]).
    pub wait_before: usize,
}

/// The buffers step `s` reads and writes, or `None` for a step that must
/// see every collective complete (a rebind or resize of an argument).
fn step_buffers(s: &Step) -> Option<(Vec<Root>, Vec<Root>)> {
    Some(match s {
        Step::Kernel { roots, writes, .. } => {
            let w = roots.iter().zip(writes).filter(|(_, &w)| w).map(|(&r, _)| r).collect();
            (roots.clone(), w)
        }
        Step::Matmul(m) => (vec![m.a.root, m.b.root, m.c.root], vec![m.c.root]),
        Step::Attention(a) => (
            a.bufs.iter().map(|b| b.root).collect(),
            a.written().filter_map(|i| a.bufs.get(i)).map(|b| b.root).collect(),
        ),
        Step::Collective(c) => (vec![c.input.root, c.output.root], vec![c.output.root]),
        Step::Rebind { .. } | Step::Resize { .. } => return None,
    })
}

/// Whether buffers `a` and `b` of `p` may share bytes: the same
/// allocation, or two temporaries at overlapping ranges of the arena.
/// (Distinct arguments never overlap in a program specialised for its
/// calling convention; globals are only read.)
fn may_overlap(p: &HostProgram, a: Root, b: Root) -> bool {
    if a == b {
        return true;
    }
    let (Root::Alloc(i), Root::Alloc(j)) = (a, b) else { return false };
    let range = |k: usize| {
        let (m, off) = &p.allocs[k];
        off.map(|o| (o, o.saturating_add(crate::plan_memory::bytes(m))))
    };
    match (range(i), range(j)) {
        (Some((s1, e1)), Some((s2, e2))) => s1 < e2 && s2 < e1,
        _ => false,
    }
}

/// Moves each collective up to just after the last earlier step it
/// depends on or must stay behind: one that writes bytes of its input,
/// reads or writes bytes of its output, rebinds or resizes an argument,
/// or is a collective itself (every rank issues a group's collectives in
/// one order). The steps it passes then run while it is in flight
/// ([`schedule_waits`]), where in the graph's order they ran before it
/// started: a gradient's all-reduce starts as soon as the gradient is
/// made, not after the independent work written after it. Kernels keep
/// their order (they are numbered by it). Buffers are compared as in
/// [`schedule_waits`], so the arena's temporaries must be placed: run on
/// a program with static sizes, or one evaluated for its sizes.
pub fn hoist_collectives(p: &mut HostProgram) {
    for i in 0..p.steps.len() {
        let Step::Collective(c) = &p.steps[i] else { continue };
        let (input, output) = (c.input.root, c.output.root);
        let mut to = i;
        while to > 0 {
            let blocks = match (&p.steps[to - 1], step_buffers(&p.steps[to - 1])) {
                (Step::Collective(_), _) | (_, None) => true,
                (_, Some((reads, writes))) => {
                    writes.iter().any(|&r| may_overlap(p, input, r))
                        || reads.iter().chain(&writes).any(|&r| may_overlap(p, output, r))
                }
            };
            if blocks {
                break;
            }
            to -= 1;
        }
        if to < i {
            let step = p.steps.remove(i);
            p.steps.insert(to, step);
        }
    }
}

/// Sets each collective's [`Collective::wait_before`]: the steps after it
/// that touch neither its output nor write its input (their buffers
/// compared by allocation, and by arena range for planned temporaries)
/// run while it is in flight.
pub fn schedule_waits(p: &mut HostProgram) {
    let n = p.steps.len();
    for i in 0..n {
        let Step::Collective(c) = &p.steps[i] else { continue };
        let (input, output) = (c.input.root, c.output.root);
        let mut wait = n;
        for j in i + 1..n {
            let conflict = match step_buffers(&p.steps[j]) {
                None => true,
                Some((reads, writes)) => {
                    reads.iter().chain(&writes).any(|&r| may_overlap(p, output, r))
                        || writes.iter().any(|&r| may_overlap(p, input, r))
                }
            };
            if conflict {
                wait = j;
                break;
            }
        }
        if let Step::Collective(c) = &mut p.steps[i] {
            c.wait_before = wait;
        }
    }
}

/// `c = a·b` (`c += a·b`).
#[derive(Clone, Debug)]
pub struct Matmul {
    pub a: BufRef,
    pub b: BufRef,
    pub c: BufRef,
    pub accumulate: bool,
    /// How the GEMM runs (batch simplified), made once when the program is
    /// built; `None` in a symbolic program, whose GEMMs are planned per
    /// size by [`HostProgram::evaluate`].
    pub plan: Option<gemm::Plan>,
}

/// `loop.attention` or `loop.attention_grad`, by the fused host kernels
/// (`crate::attention`).
#[derive(Clone, Debug)]
pub struct Attention {
    /// The op's operands, in its order.
    pub bufs: Vec<BufRef>,
    /// Whether it is `loop.attention_grad`.
    pub grad: bool,
    pub scale: f64,
    pub causal: bool,
    /// Shapes and layouts, made once when the program is built; `None` in
    /// a symbolic program (made per size by [`HostProgram::evaluate`]).
    pub plan: Option<AttentionPlan>,
}

#[derive(Clone, Debug)]
pub enum AttentionPlan {
    Forward(crate::attention::Plan),
    Backward(crate::attention::GradPlan),
}

impl AttentionPlan {
    /// The operands its step writes (see [`Attention::written`]).
    pub fn written(&self) -> std::ops::Range<usize> {
        match self {
            AttentionPlan::Forward(_) => r#loop::ATTENTION_RESULTS,
            AttentionPlan::Backward(_) => r#loop::ATTENTION_GRAD_RESULTS,
        }
    }
}

impl Attention {
    /// The operands the step writes: out and lse, or dq, dk and dv.
    pub fn written(&self) -> std::ops::Range<usize> {
        if self.grad {
            r#loop::ATTENTION_GRAD_RESULTS
        } else {
            r#loop::ATTENTION_RESULTS
        }
    }

    /// The plan of the kernel for the buffers' (static) types.
    fn plan_for(bufs: &[BufRef], grad: bool, scale: f64, causal: bool) -> AttentionPlan {
        let ty = |i: usize| &bufs[i].ty;
        if !grad {
            let mask = bufs.get(r#loop::ATTENTION_RESULTS.end).map(|b| &b.ty);
            AttentionPlan::Forward(crate::attention::Plan::new(ty(0), ty(1), ty(2), ty(3), ty(4), mask, scale, causal))
        } else {
            let mask = bufs.get(r#loop::ATTENTION_GRAD_RESULTS.end).map(|b| &b.ty);
            AttentionPlan::Backward(crate::attention::GradPlan::new(
                ty(0),
                ty(1),
                ty(2),
                ty(3),
                ty(4),
                ty(5),
                [ty(6), ty(7), ty(8)],
                mask,
                scale,
                causal,
            ))
        }
    }
}

impl Step {
    /// The step's flops and bytes moved (see [`KernelCost`]); a GEMM does
    /// `2·M·N·K` flops per batch and moves its three operands once (the
    /// result twice when it accumulates). Zero for rebinding and resizing.
    pub fn cost(&self) -> KernelCost {
        let bytes = |t: &MemRefType| {
            let n = aot_ir::size::checked_numel(&t.shape).map_or(u64::MAX, |n| n.max(0) as u64);
            n.saturating_mul(t.elem.byte_size() as u64)
        };
        match self {
            Step::Kernel { cost, .. } => *cost,
            Step::Matmul(m) => {
                let depth = m.a.ty.shape.last().copied().unwrap_or(1).max(0) as u64;
                let c_elems = bytes(&m.c.ty) / m.c.ty.elem.byte_size().max(1) as u64;
                KernelCost {
                    flops: c_elems.saturating_mul(depth).saturating_mul(2),
                    bytes: bytes(&m.a.ty)
                        .saturating_add(bytes(&m.b.ty))
                        .saturating_add(bytes(&m.c.ty).saturating_mul(if m.accumulate { 2 } else { 1 })),
                }
            }
            Step::Collective(c) => {
                KernelCost { flops: 0, bytes: bytes(&c.input.ty).saturating_add(bytes(&c.output.ty)) }
            }
            Step::Attention(a) => {
                let moved = a.bufs.iter().fold(0u64, |n, b| n.saturating_add(bytes(&b.ty)));
                let mads = match &a.plan {
                    Some(AttentionPlan::Forward(p)) => p.multiply_adds(),
                    Some(AttentionPlan::Backward(p)) => p.multiply_adds(),
                    None => 0,
                };
                KernelCost { flops: mads.saturating_mul(2), bytes: moved }
            }
            Step::Rebind { .. } | Step::Resize { .. } => KernelCost::default(),
        }
    }
}

/// A lowered function as the runtime executes it.
#[derive(Clone, Debug)]
pub struct HostProgram {
    pub args: Vec<MemRefType>,
    /// Per `loop.alloc`: its type and arena byte offset (planned temporaries).
    pub allocs: Vec<(MemRefType, Option<u64>)>,
    /// Bytes of the arena `plan-memory` laid the temporaries out in.
    pub arena_bytes: u64,
    /// In a symbolic program, the temporaries `plan-memory` gave a
    /// lifetime (`live`) rather than an offset: each alloc's index and
    /// its first and last host op. [`HostProgram::evaluate`] places them
    /// in the arena at each set of symbol values.
    pub per_call: Vec<(usize, (usize, usize))>,
    pub globals: Vec<(MemRefType, Attribute)>,
    pub steps: Vec<Step>,
    pub outputs: Vec<BufRef>,
    /// Arguments some step writes (kernels storing to them, resizes).
    pub written_args: Vec<bool>,
    /// Whether some size of the program is symbolic ([`build_symbolic`]):
    /// it then runs only through [`HostProgram::evaluate`], once per set
    /// of symbol values.
    pub symbolic: bool,
    /// The symbolic sizes the kernels read at run time (strides, offsets,
    /// loop bounds), in the order of the size table each call passes
    /// them in: after a kernel's own operands, its base-pointer table
    /// holds the table's address.
    pub sizes: Vec<i64>,
    /// Per kernel step, in order, its work as a size expression (a
    /// symbolic program's `Step::Kernel::work` is evaluated from it).
    pub kernel_work: Vec<i64>,
}

impl HostProgram {
    /// The static program of a symbolic one for the symbol values
    /// `b`, and the size table its kernels read (the values of
    /// [`HostProgram::sizes`]): every type evaluated, each kernel's
    /// split bound and work too, and each kernel given the table as an
    /// extra operand, the global `table_global` (the globals the
    /// caller passes, the table last).
    pub fn evaluate(&self, b: &aot_ir::sym::Bindings, table_global: usize) -> Result<(HostProgram, Vec<i64>), String> {
        let e = |d: i64| b.eval(d).map_err(|e| e.to_string());
        let ty = |m: &MemRefType| -> Result<MemRefType, String> {
            let shape = b.eval_shape(&m.shape).map_err(|e| e.to_string())?;
            if shape.iter().any(|&d| d < 0) {
                return Err(format!("a buffer of type {m} has a negative size here ({:?})", shape.to_vec()));
            }
            // A size that is 1 at these values (an expression such as
            // `(s0 floordiv 4)` may be) gets the row-major stride there, as
            // a static layout does: the strides results show are those of
            // code compiled for these sizes.
            let layout = match &m.layout {
                Some((s, o)) => {
                    let st = b.eval_shape(s).map_err(|e| e.to_string())?;
                    aot_dialects::lowering::normal_layout(&shape, &st, e(*o)?)
                }
                None => None,
            };
            let bytes = aot_ir::size::checked_numel(&shape)
                .and_then(|n| u64::try_from(n).ok())
                .and_then(|n| n.checked_mul(m.elem.byte_size() as u64));
            let bytes = bytes.ok_or_else(|| format!("a buffer of type {m} overflows at these sizes"))?;
            aot_ir::size::check_alloc(bytes, 1, "a buffer of the compiled function").map_err(|e| e.to_string())?;
            Ok(MemRefType { shape, elem: m.elem, layout })
        };
        let buf = |r: &BufRef| -> Result<BufRef, String> { Ok(BufRef { root: r.root, ty: ty(&r.ty)? }) };
        let mut kernel = 0;
        let mut steps = Vec::with_capacity(self.steps.len());
        for s in &self.steps {
            steps.push(match s {
                Step::Kernel { op, name, roots, split, work: _, cost, writes } => {
                    let work = self.kernel_work.get(kernel).map(|&w| e(w)).transpose()?.unwrap_or(0);
                    kernel += 1;
                    let mut roots = roots.clone();
                    let mut writes = writes.clone();
                    roots.push(Root::Global(table_global));
                    writes.push(false);
                    Step::Kernel {
                        op: *op,
                        name: name.clone(),
                        roots,
                        split: split.map(|(l, h, st)| e(h).map(|h| (l, h, st))).transpose()?,
                        work: work.max(0) as u64,
                        cost: *cost,
                        writes,
                    }
                }
                Step::Matmul(m) => {
                    let (a, b, c) = (buf(&m.a)?, buf(&m.b)?, buf(&m.c)?);
                    let plan = Some(gemm::Plan::new(&a.ty, &b.ty, &c.ty));
                    Step::Matmul(Box::new(Matmul { a, b, c, accumulate: m.accumulate, plan }))
                }
                Step::Attention(at) => {
                    let bufs: Vec<BufRef> = at.bufs.iter().map(buf).collect::<Result<_, _>>()?;
                    let plan = Some(Attention::plan_for(&bufs, at.grad, at.scale, at.causal));
                    Step::Attention(Box::new(Attention { bufs, plan, ..(**at).clone() }))
                }
                other => other.clone(),
            });
        }
        let mut allocs: Vec<(MemRefType, Option<u64>)> =
            self.allocs.iter().map(|(m, off)| Ok((ty(m)?, *off))).collect::<Result<_, String>>()?;
        let mut arena_bytes = self.arena_bytes;
        if !self.per_call.is_empty() {
            // plan-memory's placement, on this call's byte counts.
            let buffers: Vec<(u64, (usize, usize))> =
                self.per_call.iter().map(|&(k, l)| (crate::plan_memory::bytes(&allocs[k].0), l)).collect();
            let (offsets, arena) = crate::plan_memory::place(&buffers)
                .ok_or_else(|| "the arena of the temporaries overflows at these sizes".to_string())?;
            for (&(k, _), off) in self.per_call.iter().zip(offsets) {
                allocs[k].1 = Some(off);
            }
            arena_bytes = arena_bytes.max(arena);
            aot_ir::size::check_alloc(arena_bytes, 1, "the arena of the compiled temporaries")
                .map_err(|e| e.to_string())?;
        }
        let program = HostProgram {
            args: self.args.iter().map(ty).collect::<Result<_, _>>()?,
            allocs,
            arena_bytes,
            per_call: Vec::new(),
            globals: self.globals.clone(),
            steps,
            outputs: self.outputs.iter().map(buf).collect::<Result<_, _>>()?,
            written_args: self.written_args.clone(),
            symbolic: false,
            sizes: Vec::new(),
            kernel_work: Vec::new(),
        };
        // (The temporaries were placed for these sizes.)
        let mut program = program;
        hoist_collectives(&mut program);
        schedule_waits(&mut program);
        let table = self.sizes.iter().map(|&d| e(d)).collect::<Result<_, _>>()?;
        Ok((program, table))
    }
}

/// The error for argument `i` of a compiled call that is not the
/// `elem` tensor of `shape` the function was compiled for.
pub(crate) fn argument_mismatch(i: usize, t: &Tensor, elem: ElemType, shape: &[i64]) -> String {
    format!(
        "argument {i}: expected a {elem} tensor of shape {:?}, got {} {:?}",
        shape.to_vec(),
        t.dtype(),
        t.sizes().to_vec()
    )
}

/// Adds to `sizes` the symbolic sizes kernel `op` reads: its operands'
/// strides and offsets, its loops' upper bounds and its `loop.size`s
/// (each once).
pub(crate) fn table_sizes(ctx: &Context, op: Op, sizes: &mut Vec<i64>) {
    let mut add = |d: i64| {
        if aot_ir::sym::is_symbolic(d) && !sizes.contains(&d) {
            sizes.push(d);
        }
    };
    if let Some(body) = ctx.single_block(op, 0) {
        for &a in ctx.block_args(body) {
            if let Some(m) = memref(ctx, a) {
                let (strides, offset) = r#loop::layout(m);
                strides.iter().for_each(|&s| add(s));
                add(offset);
            }
        }
    }
    ctx.walk_pre(op, &mut |o| {
        if let Some(l) = ctx.dyn_cast::<aot_dialects::r#loop::ForOp>(o) {
            add(l.bounds(ctx).upper);
        } else if LoopOp::of(ctx, o) == Some(LoopOp::Size) {
            add(ctx.attr_i64(o, "size").unwrap_or(0));
        }
    });
}

/// Builds the host program of a lowered function with static sizes.
pub fn build(ctx: &Context, func: Op) -> Result<HostProgram, Diagnostic> {
    build_with(ctx, func, false)
}

/// [`build`] for a code generator whose kernels read symbolic sizes from
/// the size table ([`HostProgram::sizes`]): a function with symbolic
/// sizes gives a symbolic program.
pub fn build_symbolic(ctx: &Context, func: Op) -> Result<HostProgram, Diagnostic> {
    build_with(ctx, func, true)
}

fn build_with(ctx: &Context, func: Op, symbolic_ok: bool) -> Result<HostProgram, Diagnostic> {
    let f = FuncView { op: func };
    let entry = f.entry_block(ctx).ok_or_else(|| Diagnostic::op_error(ctx, func, "a declaration has no body"))?;
    let err = |op: Op, m: String| Diagnostic::op_error(ctx, op, m);
    // The loop dialect takes symbolic sizes; a code generator whose
    // kernels do not read them at run time gets the function per size
    // (`crate::by_size`), so none may reach a number there.
    let symbolic = aot_ir::sym::first_symbolic_op(ctx, func);
    if let (Some((op, what)), false) = (&symbolic, symbolic_ok) {
        return Err(err(
            *op,
            format!("native code with symbolic sizes is not supported by this code generator: {what}"),
        ));
    }
    let mut refs: FxHashMap<Value, BufRef> = FxHashMap::default();
    let mut args = Vec::new();
    for (i, &a) in ctx.block_args(entry).iter().enumerate() {
        let m = memref(ctx, a).cloned().ok_or_else(|| {
            err(func, format!("argument {i} is not a buffer: run lower-to-loops before compiling to native code"))
        })?;
        refs.insert(a, BufRef { root: Root::Arg(i), ty: m.clone() });
        args.push(m);
    }
    let mut p = HostProgram {
        written_args: vec![false; args.len()],
        args,
        allocs: Vec::new(),
        arena_bytes: 0,
        per_call: Vec::new(),
        globals: Vec::new(),
        steps: Vec::new(),
        outputs: Vec::new(),
        symbolic: symbolic.is_some(),
        sizes: Vec::new(),
        kernel_work: Vec::new(),
    };
    let get = |refs: &FxHashMap<Value, BufRef>, op: Op, v: Value| -> Result<BufRef, Diagnostic> {
        refs.get(&v).cloned().ok_or_else(|| err(op, "operand is not a buffer of this function".into()))
    };
    for op in ctx.block_ops(entry) {
        match LoopOp::of(ctx, op) {
            Some(LoopOp::Alloc) => {
                let m = memref(ctx, ctx.result(op, 0)).cloned().expect("verified");
                let off = ctx.attr_i64(op, "offset").map(|o| o as u64);
                if let Some(l) = ctx.attr_i64_list(op, "live") {
                    // (The verifier checked two positions, in order.)
                    p.per_call.push((p.allocs.len(), (l[0] as usize, l[1] as usize)));
                }
                refs.insert(ctx.result(op, 0), BufRef { root: Root::Alloc(p.allocs.len()), ty: m.clone() });
                p.allocs.push((m, off));
            }
            Some(LoopOp::Global) => {
                let m = memref(ctx, ctx.result(op, 0)).cloned().expect("verified");
                let a = ctx.get_attr(op, "value").expect("verified");
                refs.insert(ctx.result(op, 0), BufRef { root: Root::Global(p.globals.len()), ty: m.clone() });
                p.globals.push((m, a));
            }
            Some(LoopOp::View) => {
                let src = get(&refs, op, ctx.operand(op, 0))?;
                let m = memref(ctx, ctx.result(op, 0)).cloned().expect("verified");
                refs.insert(ctx.result(op, 0), BufRef { root: src.root, ty: m });
            }
            Some(LoopOp::Kernel) => {
                let mut roots = Vec::new();
                for v in ctx.operands(op) {
                    roots.push(get(&refs, op, v)?.root);
                }
                let body = ctx.single_block(op, 0).expect("verified");
                // Which operands the kernel stores to.
                let args_of_body = ctx.block_args(body).to_vec();
                let mut writes = vec![false; roots.len()];
                ctx.walk_pre(op, &mut |o| {
                    if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
                        if let Some(k) = args_of_body.iter().position(|&a| a == ctx.operand(o, 1)) {
                            if let Some(w) = writes.get_mut(k) {
                                *w = true;
                            }
                            if let Root::Arg(i) = roots[k] {
                                p.written_args[i] = true;
                            }
                        }
                    }
                });
                if roots.iter().any(|r| matches!(r, Root::Global(_))) {
                    let writes_global = {
                        let mut w = false;
                        ctx.walk_pre(op, &mut |o| {
                            if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
                                if let Some(k) = args_of_body.iter().position(|&a| a == ctx.operand(o, 1)) {
                                    w |= matches!(roots[k], Root::Global(_));
                                }
                            }
                        });
                        w
                    };
                    if writes_global {
                        return Err(err(op, "a kernel writes a read-only global buffer".into()));
                    }
                }
                let split = split_loop(ctx, op).map(|l| {
                    let b = l.bounds(ctx);
                    (b.lower, b.upper, b.step)
                });
                if p.symbolic {
                    table_sizes(ctx, op, &mut p.sizes);
                    p.kernel_work
                        .push(kernel_work_expr(ctx, op).ok_or_else(|| err(op, "the kernel's work overflows".into()))?);
                }
                p.steps.push(Step::Kernel {
                    op,
                    name: ctx.attr_str(op, "name").unwrap_or("kernel").to_string(),
                    roots,
                    split,
                    work: kernel_work(ctx, op),
                    cost: kernel_cost(ctx, op),
                    writes,
                });
            }
            Some(LoopOp::Matmul) => {
                let (a, b, c) = (
                    get(&refs, op, ctx.operand(op, 0))?,
                    get(&refs, op, ctx.operand(op, 1))?,
                    get(&refs, op, ctx.operand(op, 2))?,
                );
                if matches!(c.root, Root::Global(_)) {
                    return Err(err(op, "a matmul writes a read-only global buffer".into()));
                }
                if let Root::Arg(i) = c.root {
                    p.written_args[i] = true;
                }
                let symbolic = [&a, &b, &c].iter().any(|r| r.is_symbolic());
                let plan = (!symbolic).then(|| gemm::Plan::new(&a.ty, &b.ty, &c.ty));
                p.steps.push(Step::Matmul(Box::new(Matmul {
                    a,
                    b,
                    c,
                    accumulate: ctx.has_attr(op, "accumulate"),
                    plan,
                })));
            }
            Some(LoopOp::Collective) => {
                let (input, output) = (get(&refs, op, ctx.operand(op, 0))?, get(&refs, op, ctx.operand(op, 1))?);
                match output.root {
                    Root::Global(_) => return Err(err(op, "a collective writes a read-only global buffer".into())),
                    Root::Arg(i) => p.written_args[i] = true,
                    Root::Alloc(_) => {}
                }
                if input.root == output.root {
                    return Err(err(op, "a collective's output must not share its input's buffer".into()));
                }
                let a = AttrView::of_op(ctx, op);
                let kind = a.str("kind").unwrap_or_default();
                let cop = aot_dialects::dist::kernels::collective_from(kind, &a).map_err(|m| err(op, m))?;
                let (group, size) = aot_dialects::dist::group_of(&a).map_err(|m| err(op, m))?;
                p.steps.push(Step::Collective(Box::new(Collective {
                    op: cop,
                    group,
                    size: size as usize,
                    input,
                    output,
                    wait_before: usize::MAX,
                })));
            }
            Some(kind @ (LoopOp::Attention | LoopOp::AttentionGrad)) => {
                let mut bufs = Vec::with_capacity(10);
                for v in ctx.operands(op) {
                    bufs.push(get(&refs, op, v)?);
                }
                let (scale, causal) = (ctx.attr_f64(op, "scale").unwrap_or(1.0), ctx.has_attr(op, "causal"));
                let grad = kind == LoopOp::AttentionGrad;
                let symbolic = bufs.iter().any(BufRef::is_symbolic);
                let plan = (!symbolic).then(|| Attention::plan_for(&bufs, grad, scale, causal));
                let a = Attention { bufs, grad, scale, causal, plan };
                // The kernel reads its operands while it writes its results
                // (tiles of them, in blocks): a result in an operand's
                // buffer would read values it already wrote.
                let written = a.written();
                let shares = a.bufs[written.clone()]
                    .iter()
                    .enumerate()
                    .any(|(i, w)| a.bufs.iter().enumerate().any(|(j, r)| j != written.start + i && r.root == w.root));
                if shares {
                    return Err(err(op, "an attention's results must have buffers of their own".into()));
                }
                for r in &a.bufs[a.written()] {
                    match r.root {
                        Root::Global(_) => return Err(err(op, "an attention writes a read-only global buffer".into())),
                        Root::Arg(i) => p.written_args[i] = true,
                        Root::Alloc(_) => {}
                    }
                }
                p.steps.push(Step::Attention(Box::new(a)));
            }
            Some(LoopOp::Rebind) => {
                let arg = match get(&refs, op, ctx.operand(op, 0))?.root {
                    Root::Arg(i) => i,
                    _ => return Err(err(op, "rebinds something that is not an argument".into())),
                };
                let src = get(&refs, op, ctx.operand(op, 1))?;
                let m = memref(ctx, ctx.result(op, 0)).cloned().expect("verified");
                let r = BufRef { root: src.root, ty: m };
                if matches!(r.root, Root::Global(_)) {
                    return Err(err(op, "an argument cannot be rebound to a read-only global buffer".into()));
                }
                refs.insert(ctx.result(op, 0), r.clone());
                let stride = ctx.attr_i64_list(op, "stride").filter(|s| s.len() == r.ty.shape.len());
                p.steps.push(Step::Rebind { arg, src: r, stride });
            }
            Some(LoopOp::Resize) => {
                let arg = match get(&refs, op, ctx.operand(op, 0))?.root {
                    Root::Arg(i) => i,
                    _ => return Err(err(op, "resizes something that is not an argument".into())),
                };
                let m = memref(ctx, ctx.result(op, 0)).cloned().expect("verified");
                let numel = ctx.attr_i64(op, "numel").unwrap_or(0);
                refs.insert(ctx.result(op, 0), BufRef { root: Root::Arg(arg), ty: m.clone() });
                p.written_args[arg] = true;
                p.steps.push(Step::Resize { arg, numel, ty: m });
            }
            None if ctx.isa::<ReturnOp>(op) => {
                for v in ctx.operands(op) {
                    p.outputs.push(get(&refs, op, v)?);
                }
            }
            _ => {
                return Err(err(
                    op,
                    format!(
                        "'{}' is not a host-level op of a lowered function (run lower-to-loops first)",
                        ctx.op_name(op)
                    ),
                ))
            }
        }
    }
    check_memory_plan(ctx, func)?;
    // (A symbolic program's temporaries are placed per size: its
    // evaluation moves its collectives.)
    if !p.symbolic {
        hoist_collectives(&mut p);
    }
    schedule_waits(&mut p);
    p.arena_bytes = p
        .allocs
        .iter()
        .filter_map(|(m, off)| off.map(|o| crate::plan_memory::bytes(m).saturating_add(o)))
        .max()
        .unwrap_or(0);
    // Each temporary was checked against the allocation limit; the arena
    // holds several at once, so it is checked as one allocation too.
    aot_ir::size::check_alloc(p.arena_bytes, 1, "the arena of the compiled temporaries")
        .map_err(|e| err(func, e.to_string()))?;
    Ok(p)
}

/// Checks the memory plan the allocs of `func` carry against the
/// lifetimes of its temporaries (`plan_memory`'s rule): two temporaries
/// alive at one host op never share a byte of the arena, a lifetime
/// (`live`) is the one the function has, and a buffer that leaves the
/// function is not placed. Plans come from `plan-memory`; hand-written or
/// stale ones are refused here rather than run.
fn check_memory_plan(ctx: &Context, func: Op) -> Result<(), Diagnostic> {
    let planned = |o: Op| ctx.has_attr(o, "offset") || ctx.has_attr(o, "live");
    let f = FuncView { op: func };
    let Some(entry) = f.entry_block(ctx) else { return Ok(()) };
    if !ctx.block_ops(entry).any(|o| LoopOp::of(ctx, o) == Some(LoopOp::Alloc) && planned(o)) {
        return Ok(());
    }
    let (temps, results) = crate::plan_memory::temporaries(ctx, func);
    if let Some(&o) = results.iter().find(|&&o| planned(o)) {
        return Err(Diagnostic::op_error(ctx, o, "a buffer that leaves the function cannot be placed in the arena"));
    }
    let mut placed: Vec<(Op, u64, u64, (usize, usize))> = Vec::new();
    for &(o, life) in &temps {
        if let Some(l) = ctx.attr_i64_list(o, "live") {
            if (l[0] as usize, l[1] as usize) != life {
                return Err(Diagnostic::op_error(
                    ctx,
                    o,
                    format!(
                        "'live' says host ops {} to {}, but the buffer is used from {} to {}",
                        l[0], l[1], life.0, life.1
                    ),
                ));
            }
        }
        if let (Some(off), Some(m)) = (ctx.attr_i64(o, "offset"), memref(ctx, ctx.result(o, 0))) {
            placed.push((o, off as u64, (off as u64).saturating_add(crate::plan_memory::bytes(m)), life));
        }
    }
    for (i, &(o, s, e, (a, b))) in placed.iter().enumerate() {
        for &(_, s2, e2, (c, d)) in &placed[..i] {
            if c <= b && a <= d && s < e2 && s2 < e {
                return Err(Diagnostic::op_error(
                    ctx,
                    o,
                    format!("arena bytes {s}..{e} overlap bytes {s2}..{e2} of a buffer alive at the same time"),
                ));
            }
        }
    }
    Ok(())
}

/// `value` (a dense attribute) as a buffer of `e`.
pub fn dense_buffer(ctx: &Context, value: Attribute, e: ElemType, n: usize) -> Result<Buffer, String> {
    let AttrData::Dense { data, .. } = ctx.attr_data(value) else {
        return Err("a global needs a dense value".into());
    };
    let count_ok = match data {
        DenseData::SplatInt(_) | DenseData::SplatFloat(_) => true,
        DenseData::Ints(v) => v.len() == n,
        DenseData::Floats(v) => v.len() == n,
    };
    if !count_ok {
        return Err(format!("a dense constant does not have the {n} elements of its type"));
    }
    let mut b = Buffer::zeros(e, n);
    for i in 0..n {
        match data {
            DenseData::SplatInt(v) => b.set_i64(i, *v),
            DenseData::Ints(v) => b.set_i64(i, v[i]),
            DenseData::SplatFloat(_) | DenseData::Floats(_) => b.set_f64(i, data.get_f64(i)),
        }
    }
    Ok(b)
}

/// The storages of the program's read-only globals, in order.
pub fn globals(ctx: &Context, program: &HostProgram) -> Result<Vec<StorageRef>, String> {
    let mut globals = Vec::new();
    for (m, value) in &program.globals {
        let n: i64 = m.shape.iter().product();
        let b = dense_buffer(ctx, *value, m.elem, n.max(0) as usize)?;
        globals.push(aot_runtime::tensor::Storage::new(b));
    }
    Ok(globals)
}
