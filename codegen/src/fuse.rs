//! `fuse`: fewer kernels and buffers in a lowered function.
//!
//! Two rewrites, repeated until nothing changes, then a third:
//!
//! - **Producer inlining.** A kernel that computes one fresh buffer
//!   elementwise (one store `O[i₀..iᵣ]` in loops covering `O`'s shape) and
//!   whose buffer only kernels read is folded into its readers: each
//!   `loop.load` of `O` — directly or through any view — becomes the
//!   producer's formula at the producer indices the load's address maps
//!   to. Views turn into index arithmetic (transposes, slices, broadcasts
//!   simplify to affine indices; reshapes keep a division), the buffer and
//!   the producer disappear. A producer read in several places is
//!   recomputed in each when that is cheap.
//! - **Loop fusion.** Two kernels over the same outermost parallel loop,
//!   where the second reads what the first wrote only at the element the
//!   first stored in the same iteration (a row's max, sum, mean, ...),
//!   become one kernel; those loads take the stored value directly and the
//!   buffer disappears when nothing else reads it. A reduction and its
//!   elementwise consumers thus run as one pass per row.
//!
//! - **Sibling fusion.** Two independent kernels over the same outermost
//!   parallel loop that read a buffer in common become one kernel; then,
//!   inside every kernel, sibling reduction loops with the same bounds
//!   merge into one loop carrying all their values, so reductions of one
//!   input (a batch norm backward's sums for bias, weight and input) take
//!   one pass over it, and CSE shares their loads.
//!
//! Legality: the graph has value semantics, so a buffer is written by one
//! kernel; a rewrite never moves a read past a write of the same allocation
//! (trailing argument updates) and keeps buffers that leave the function.

use crate::affine::{coarse_floordiv, flat_offset, floordiv, modulo, Expr};
use crate::target::Target;
use aot_dialects::func::{FuncOp, FuncView};
use aot_dialects::r#loop::analysis::{alias_class, memref, outer_parallel_loop, root_of, ForOp};
use aot_dialects::r#loop::{self, Binary, LoopOp};
use aot_ir::pass::{OptionKind, Pass, PassInfo, PassOptionSpec, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

/// What fusion did.
#[derive(Default, Debug, Clone, Copy)]
pub struct Stats {
    pub inlined: u64,
    pub fused: u64,
    pub kernels: u64,
    /// Independent kernels over one loop merged (sibling fusion).
    pub siblings: u64,
    /// Sibling reduction loops merged inside kernels.
    pub merged_loops: u64,
    /// Duplicate computations removed inside kernels.
    pub cse: u64,
}

pub(crate) fn index_value(rw: &mut Rewriter<'_>, k: i64) -> Value {
    let ty = rw.index_type();
    let a = rw.attr(AttrData::Int { value: k, ty });
    rw.build_typed1(r#loop::CONSTANT, &[], &[("value", a)], ty)
}

pub(crate) fn materialize(rw: &mut Rewriter<'_>, e: &Expr) -> Value {
    let ty = rw.index_type();
    let mut acc: Option<Value> = None;
    for &(v, k) in &e.terms {
        let t = if k == 1 {
            v
        } else {
            let c = index_value(rw, k);
            rw.build_typed1(Binary::Mul.name(), &[v, c], &[], ty)
        };
        acc = Some(match acc {
            None => t,
            Some(a) => rw.build_typed1(Binary::Add.name(), &[a, t], &[], ty),
        });
    }
    match acc {
        None => index_value(rw, e.c),
        Some(a) if e.c == 0 => a,
        Some(a) => {
            let c = index_value(rw, e.c);
            rw.build_typed1(Binary::Add.name(), &[a, c], &[], ty)
        }
    }
}

/// Index `e div d mod n` as a value: simplified when provable, else with
/// division ops.
fn div_mod(rw: &mut Rewriter<'_>, e: &Expr, d: i64, n: Option<i64>) -> Value {
    let ty = rw.index_type();
    // A divisor of 0 comes from a zero-size dimension: the access is never
    // executed, and a division instruction by 0 would trap.
    if d <= 0 || n.is_some_and(|n| n <= 0) {
        return index_value(rw, 0);
    }
    let q = match floordiv(rw, e, d).or_else(|| coarse_quotient(rw, e, d)) {
        Some(q) => q,
        None => divided(rw, e, d),
    };
    let Some(n) = n else { return materialize(rw, &q) };
    match modulo(rw, &q, n) {
        Some(r) => materialize(rw, &r),
        None => {
            let v = materialize(rw, &q);
            let nv = index_value(rw, n);
            rw.build_typed1(Binary::Rem.name(), &[v, nv], &[], ty)
        }
    }
}

/// `e div d` as an expression over a new division op.
fn divided(rw: &mut Rewriter<'_>, e: &Expr, d: i64) -> Expr {
    let ty = rw.index_type();
    let v = materialize(rw, e);
    let dv = index_value(rw, d);
    let q = rw.build_typed1(Binary::Div.name(), &[v, dv], &[], ty);
    Expr { terms: vec![(q, 1)], c: 0 }
}

/// `e div d` through [`coarse_floordiv`]: the quotient of a coarser
/// expression, simplified or divided.
fn coarse_quotient(rw: &mut Rewriter<'_>, e: &Expr, d: i64) -> Option<Expr> {
    let (outer, d) = coarse_floordiv(rw, e, d)?;
    Some(floordiv(rw, &outer, d).unwrap_or_else(|| divided(rw, &outer, d)))
}

// ----- producers -----

/// A kernel that writes one buffer elementwise.
struct Producer {
    kernel: Op,
    /// The buffer it writes (an allocation) and the block argument for it.
    out: Value,
    out_arg: Value,
    /// The stored value and the induction variables indexing the store.
    value: Value,
    ivs: Vec<Value>,
    shape: Vec<i64>,
    /// Ops the stored value depends on (its cost).
    cost: usize,
}

/// The operand index of block argument `a` of kernel `k`.
fn arg_index(ctx: &Context, k: Op, a: Value) -> Option<usize> {
    let body = ctx.single_block(k, 0)?;
    ctx.block_args(body).iter().position(|&b| b == a)
}

fn as_producer(ctx: &Context, k: Op) -> Option<Producer> {
    let body = ctx.single_block(k, 0)?;
    let mut stores = Vec::new();
    let mut bad = false;
    ctx.walk_pre(k, &mut |o| match LoopOp::of(ctx, o) {
        Some(LoopOp::Store) => stores.push(o),
        Some(LoopOp::Assert | LoopOp::Philox) => bad = true,
        Some(LoopOp::For) if ctx.num_operands(o) > 0 => bad = true,
        _ => {}
    });
    if bad || stores.len() != 1 {
        return None;
    }
    let store = stores[0];
    let out_arg = ctx.operand(store, 1);
    let out = ctx.operand(k, arg_index(ctx, k, out_arg)?);
    let m = memref(ctx, out).cloned()?;
    // A fresh contiguous allocation, written through itself.
    let alloc = ctx.defining_op(out)?;
    if LoopOp::of(ctx, alloc) != Some(LoopOp::Alloc) || m.layout.is_some() {
        return None;
    }
    let idx: Vec<Value> = ctx.operands(store).skip(2).collect();
    // The store's indices are the induction variables of the loops around
    // it, in order, each covering its dimension exactly.
    let mut loops = Vec::new();
    let mut cur = ctx.parent_op(store)?;
    while cur != k {
        if LoopOp::of(ctx, cur) != Some(LoopOp::For) {
            return None;
        }
        loops.push(cur);
        cur = ctx.parent_op(cur)?;
    }
    loops.reverse();
    if loops.len() != m.shape.len() || idx.len() != loops.len() {
        return None;
    }
    for (d, &l) in loops.iter().enumerate() {
        let b = ctx.single_block(l, 0)?;
        let iv = ctx.block_args(b)[0];
        let ok = idx[d] == iv
            && ctx.attr_i64(l, "lower") == Some(0)
            && ctx.attr_i64(l, "upper") == Some(m.shape[d])
            && ctx.attr_i64(l, "step").unwrap_or(1) == 1;
        if !ok {
            return None;
        }
    }
    // Nothing but the nest: every op outside the innermost loop body is a
    // loop of the nest, a constant or a terminator.
    let inner = loops.last().copied();
    let mut other_effects = false;
    ctx.walk_pre(k, &mut |o| {
        if o == k || Some(o) == inner || loops.contains(&o) {
            return;
        }
        let in_inner = inner.is_some_and(|l| is_inside(ctx, o, l));
        if !in_inner && !matches!(LoopOp::of(ctx, o), Some(LoopOp::Constant | LoopOp::Yield)) {
            other_effects = true;
        }
    });
    if other_effects || inner.is_none() {
        return None;
    }
    let _ = body;
    let value = ctx.operand(store, 0);
    let mut seen = FxHashSet::default();
    let cost = dag_size(ctx, value, &mut seen);
    let ivs = idx;
    Some(Producer { kernel: k, out, out_arg, value, ivs, shape: m.shape.to_vec(), cost })
}

fn is_inside(ctx: &Context, mut o: Op, anc: Op) -> bool {
    while let Some(p) = ctx.parent_op(o) {
        if p == anc {
            return true;
        }
        o = p;
    }
    false
}

/// Values defined by ops that `v` depends on (each counted once). An
/// explicit stack: a fused chain of 100,000 scalar ops is that deep.
fn dag_size(ctx: &Context, v: Value, seen: &mut FxHashSet<Value>) -> usize {
    let mut n = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        if let Some(op) = ctx.defining_op(v) {
            n += match LoopOp::of(ctx, op) {
                Some(LoopOp::Scalar(r#loop::ScalarOp::Math(_))) => MATH_COST,
                _ => 1,
            };
            stack.extend(ctx.operands(op));
        }
    }
    n
}

/// What a math function (`exp`, `erf`, `tanh`, ...) counts for in a
/// producer's cost: a polynomial of some thirty vector operations, where
/// writing its result once and reading it back moves eight bytes per
/// element. EfficientNet's batch norm and SiLU were computed twice per
/// element, once for the squeeze-and-excite mean and once for its gate.
const MATH_COST: usize = 24;

/// Host ops of the function body, with their positions.
fn positions(ctx: &Context, entry: Block) -> FxHashMap<Op, usize> {
    ctx.block_ops(entry).enumerate().map(|(i, o)| (o, i)).collect()
}

/// Roots a host op writes.
fn writes(ctx: &Context, op: Op) -> Vec<Value> {
    match LoopOp::of(ctx, op) {
        Some(LoopOp::Kernel) => {
            let mut out = Vec::new();
            ctx.walk_pre(op, &mut |o| {
                if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
                    if let Some(i) = arg_index(ctx, op, ctx.operand(o, 1)) {
                        out.push(root_of(ctx, ctx.operand(op, i)));
                    }
                }
            });
            out
        }
        Some(LoopOp::Matmul) => vec![root_of(ctx, ctx.operand(op, 2))],
        Some(LoopOp::Attention) => r#loop::ATTENTION_RESULTS.map(|i| root_of(ctx, ctx.operand(op, i))).collect(),
        Some(LoopOp::AttentionGrad) => {
            r#loop::ATTENTION_GRAD_RESULTS.map(|i| root_of(ctx, ctx.operand(op, i))).collect()
        }
        Some(LoopOp::Rebind | LoopOp::Resize) => vec![ctx.operand(op, 0)],
        Some(LoopOp::Collective) => vec![root_of(ctx, ctx.operand(op, 1))],
        _ => Vec::new(),
    }
}

/// Every host-level use of `root` (through views): `(op, value used)`.
/// `None` when a use is something fusion cannot see through.
fn uses_of_root(ctx: &Context, root: Value) -> Option<Vec<(Op, Value)>> {
    uses_of_root_within(ctx, root, usize::MAX)
}

/// [`uses_of_root`], or `None` once more than `most` kernel uses are seen
/// (without reading the rest of a long use list).
fn uses_of_root_within(ctx: &Context, root: Value, most: usize) -> Option<Vec<(Op, Value)>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        for u in ctx.uses(v) {
            match LoopOp::of(ctx, u.op) {
                Some(LoopOp::View) => stack.push(ctx.result(u.op, 0)),
                Some(LoopOp::Kernel) if out.len() < most => out.push((u.op, v)),
                _ => return None,
            }
        }
    }
    Some(out)
}

/// The kernels that use each buffer root, by block position, for the
/// fusion scans: a kernel's partners are looked up among the users of its
/// buffers, not found by walking every use of a buffer that thousands of
/// kernels write (N writes into one argument made fusion quadratic: 4,000
/// took 30 s). An entry is made on first lookup ([`uses_of_root`]; a root
/// with a use other than a view or a kernel has none and fuses with
/// nothing) and kept up to date as kernels merge. Positions are the block's
/// when the scan began; a merged kernel keeps its place.
struct KernelUsers<'p> {
    pos: &'p FxHashMap<Op, usize>,
    by_root: FxHashMap<Value, Option<BTreeSet<(usize, Op)>>>,
}

impl<'p> KernelUsers<'p> {
    fn new(pos: &'p FxHashMap<Op, usize>) -> Self {
        KernelUsers { pos, by_root: FxHashMap::default() }
    }

    /// The kernels using `root`, or `None` where it cannot fuse.
    fn of(&mut self, ctx: &Context, root: Value) -> Option<&BTreeSet<(usize, Op)>> {
        let pos = self.pos;
        self.by_root
            .entry(root)
            .or_insert_with(|| {
                uses_of_root(ctx, root)
                    .map(|uses| uses.into_iter().filter_map(|(o, _)| pos.get(&o).map(|&p| (p, o))).collect())
            })
            .as_ref()
    }

    /// The roots kernel `k` reads or writes.
    fn roots(ctx: &Context, k: Op) -> Vec<Value> {
        ctx.operands(k).map(|o| root_of(ctx, o)).collect()
    }

    /// Kernel `k1` went into `k2`; `before` are the roots both used before.
    fn merged(&mut self, ctx: &Context, k1: Op, k2: Op, before: &[Value]) {
        let now: FxHashSet<Value> = Self::roots(ctx, k2).into_iter().collect();
        let (p1, p2) = (self.pos.get(&k1).copied(), self.pos.get(&k2).copied());
        for r in before {
            if let Some(Some(set)) = self.by_root.get_mut(r) {
                if let Some(p1) = p1 {
                    set.remove(&(p1, k1));
                }
                if let Some(p2) = p2 {
                    if now.contains(r) {
                        set.insert((p2, k2));
                    } else {
                        set.remove(&(p2, k2));
                    }
                }
            }
        }
    }
}

/// The block argument of kernel `k` bound to host value `v`, adding an
/// operand when `k` does not take it yet.
pub(crate) fn kernel_arg_for(rw: &mut Rewriter<'_>, k: Op, v: Value) -> Value {
    let body = rw.single_block(k, 0).expect("kernel body");
    if let Some(i) = rw.operands(k).position(|o| o == v) {
        return rw.block_args(body)[i];
    }
    let mut ops: Vec<Value> = rw.operands(k).collect();
    ops.push(v);
    rw.set_operands(k, &ops);
    let t = rw.value_type(v);
    rw.add_block_arg(body, t)
}

/// Drops kernel operands whose block arguments are unused.
pub(crate) fn prune_kernel_args(rw: &mut Rewriter<'_>, k: Op) {
    let body = rw.single_block(k, 0).expect("kernel body");
    let keep: Vec<bool> = rw.block_args(body).iter().map(|&a| rw.has_uses(a)).collect();
    if keep.iter().all(|&x| x) {
        return;
    }
    let ops: Vec<Value> = rw.operands(k).zip(&keep).filter(|(_, &k)| k).map(|(v, _)| v).collect();
    rw.set_operands(k, &ops);
    rw.retain_block_args(body, &keep);
}

/// Clones the ops `v` depends on inside producer `p` into the insertion
/// point (a consumer kernel), mapping the producer's block arguments to the
/// consumer's. Returns the clone of `v`.
fn clone_dag(
    rw: &mut Rewriter<'_>,
    p: Op,
    consumer: Op,
    v: Value,
    map: &mut FxHashMap<Value, Value>,
) -> Result<Value, String> {
    if let Some(&m) = map.get(&v) {
        return Ok(m);
    }
    match rw.value_def(v) {
        ValueDef::BlockArg { block, .. } => {
            // A buffer of the producer: the consumer's argument for the same host value.
            if rw.block_parent_op(block) == Some(p) {
                let i = arg_index(rw, p, v).ok_or("producer argument")?;
                let host = rw.operand(p, i);
                let a = kernel_arg_for(rw, consumer, host);
                map.insert(v, a);
                return Ok(a);
            }
            Err("the producer's value depends on a loop-carried value".into())
        }
        ValueDef::Result { op, .. } => {
            for o in rw.operands(op).collect::<Vec<_>>() {
                clone_dag(rw, p, consumer, o, map)?;
            }
            rw.clone_deep(op, map);
            map.get(&v).copied().ok_or_else(|| "clone lost a value".to_string())
        }
    }
}

fn kernel_ops(ctx: &Context, entry: Block) -> Vec<Op> {
    ctx.block_ops(entry).filter(|&o| LoopOp::of(ctx, o) == Some(LoopOp::Kernel)).collect()
}

/// Most scalar ops inlining may grow one kernel to. A chain of `n`
/// elementwise kernels otherwise becomes one kernel of `n` formulas, and
/// Cranelift's register allocator is super-linear in the size of one
/// function (a 20,000-op kernel took over 15 s); kernels of this size
/// compile at a steady rate, and a chain is cut into kernels of about this
/// many ops (each boundary costs one buffer round trip per element).
pub const MAX_KERNEL_OPS: usize = 400;

/// Inlines producers, last kernel first, in one sweep over the body;
/// returns how many it inlined.
///
/// One sweep does what restarting from the last kernel after each inlining
/// would (and did, quadratically on long chains): inlining producer `p`
/// only erases `p` and grows its consumers (which come after `p` and were
/// already refused: a grown kernel is no cheaper to inline, reads no less
/// and writes the same buffers), so no kernel after `p` becomes inlinable.
/// Host ops are only erased, never added, so the positions taken at the
/// start keep their order. Dead buffers are erased once at the end.
fn inline_sweep(rw: &mut Rewriter<'_>, entry: Block) -> Result<u64, String> {
    let mut sweep = Sweep::new(rw, entry);
    let mut inlined = 0;
    for k in kernel_ops(rw, entry).into_iter().rev() {
        if !rw.is_erased(k) && inline_producer(rw, k, &mut sweep)? {
            inlined += 1;
        }
    }
    if inlined > 0 {
        erase_dead_buffers(rw, entry);
    }
    Ok(inlined)
}

/// What one inlining sweep knows of the host ops.
struct Sweep {
    pos: FxHashMap<Op, usize>,
    /// The alias classes each host op writes (fixed: inlining adds loads,
    /// never stores).
    writes: Vec<Vec<Value>>,
    /// `next[i]`: a position `>= i` no later than the first live writing op
    /// at or after `i` (path-compressed skip pointers, so the ops between a
    /// producer and its consumer that inlining erased are skipped once).
    next: Vec<usize>,
    /// Scalar ops per kernel, counted on first use and then kept up to date.
    sizes: FxHashMap<Op, usize>,
}

impl Sweep {
    fn new(rw: &Rewriter<'_>, entry: Block) -> Sweep {
        let order: Vec<Op> = rw.block_ops(entry).collect();
        let pos = order.iter().enumerate().map(|(i, &o)| (o, i)).collect();
        let writes: Vec<Vec<Value>> =
            order.iter().map(|&o| writes(rw, o).into_iter().map(|w| alias_class(rw, w)).collect()).collect();
        let next = (0..=order.len()).map(|i| if i < order.len() && writes[i].is_empty() { i + 1 } else { i }).collect();
        Sweep { pos, writes, next, sizes: FxHashMap::default() }
    }

    /// The first live writing op at or after position `i` (or the end).
    fn find(&mut self, i: usize) -> usize {
        let mut r = i;
        while self.next[r] != r {
            r = self.next[r];
        }
        let mut j = i;
        while self.next[j] != r {
            let n = self.next[j];
            self.next[j] = r;
            j = n;
        }
        r
    }

    /// Does a live op strictly between positions `a` and `b` write one of `classes`?
    fn writes_between(&mut self, a: usize, b: usize, classes: &FxHashSet<Value>) -> bool {
        let mut i = self.find(a + 1);
        while i < b {
            if self.writes[i].iter().any(|w| classes.contains(w)) {
                return true;
            }
            i = self.find(i + 1);
        }
        false
    }

    fn erased(&mut self, k: Op) {
        if let Some(&i) = self.pos.get(&k) {
            self.next[i] = i + 1;
        }
        self.sizes.remove(&k);
    }

    fn size(&mut self, rw: &Rewriter<'_>, k: Op) -> usize {
        *self.sizes.entry(k).or_insert_with(|| op_count(rw, k))
    }
}

fn op_count(ctx: &Context, k: Op) -> usize {
    let mut n = 0;
    ctx.walk_pre(k, &mut |_| n += 1);
    n
}

/// Kernel uses of a producer's output beyond which it is not inlined
/// (without counting its load sites): each reader loads it at least once,
/// and more than eight sites are never cheap (below). Reading the whole use
/// list of a buffer that thousands of kernels write, for each of them, made
/// inlining quadratic.
const INLINE_USERS: usize = 64;

/// How many load sites a load of a producer's buffer counts for: one,
/// unless a reduction loop (one carrying values) encloses it and it runs
/// more often than the buffer has elements. Then each element is read
/// that many times over (a convolution's weight gradient reads the output
/// gradient once per kernel tap, a matrix product each row once per
/// column), and an inlined producer would be computed as many times.
fn reuse(ctx: &Context, load: Op, kernel: Op, shape: &[i64]) -> usize {
    let (mut runs, mut in_reduction, mut symbolic) = (1i64, false, false);
    let mut at = ctx.parent_op(load);
    while let Some(o) = at {
        if o == kernel {
            break;
        }
        if let Some(f) = ctx.dyn_cast::<ForOp>(o) {
            let b = f.bounds(ctx);
            symbolic |= aot_ir::sym::is_symbolic(b.upper);
            runs = runs.saturating_mul(b.trips());
            in_reduction |= ctx.num_results(o) > 0;
        }
        at = ctx.parent_op(o);
    }
    if !in_reduction {
        return 1;
    }
    // (With run-time sizes the reuse is unknown here: counted as never
    // cheap.)
    if symbolic || !aot_ir::sym::is_static(shape) {
        return usize::MAX;
    }
    let elems = shape.iter().fold(1i64, |a, &d| a.saturating_mul(d)).max(1);
    if runs > elems {
        usize::try_from(runs / elems).unwrap_or(usize::MAX)
    } else {
        1
    }
}

/// Inlines kernel `k` into its readers if it is an elementwise producer
/// worth inlining; returns whether it did.
fn inline_producer(rw: &mut Rewriter<'_>, k: Op, sweep: &mut Sweep) -> Result<bool, String> {
    let Some(p) = as_producer(rw, k) else { return Ok(false) };
    let Some(uses) = uses_of_root_within(rw, p.out, INLINE_USERS) else { return Ok(false) };
    let consumers: Vec<(Op, Value)> = uses.into_iter().filter(|&(o, _)| o != p.kernel).collect();
    if consumers.is_empty() {
        return Ok(false);
    }
    // Consumers only load from the buffer.
    let mut sites: usize = 0;
    let mut ok = true;
    for &(c, v) in &consumers {
        let body = rw.single_block(c, 0).expect("kernel body");
        for (i, o) in rw.operands(c).enumerate() {
            if o != v {
                continue;
            }
            let a = rw.block_args(body)[i];
            for u in rw.uses(a) {
                if LoopOp::of(rw, u.op) == Some(LoopOp::Load) && u.index == 0 {
                    sites = sites.saturating_add(reuse(rw, u.op, c, &p.shape));
                } else {
                    ok = false;
                }
            }
        }
    }
    let cheap = sites == 1 || (p.cost <= 24 && sites <= 8);
    if !ok || !cheap {
        return Ok(false);
    }
    // Over a symbolic producer, a reader's view maps to the producer's
    // indices only when each of its dimensions is one of the producer's:
    // dividing an offset by the producer's strides (expressions) is index
    // arithmetic on a run-time size.
    let out_rs = memref(rw, p.out).map(|m| aot_dialects::lowering::row_major(&m.shape)).ok_or("producer output")?;
    let direct = !aot_ir::sym::is_static(&p.shape);
    for &(_, v) in &consumers {
        let m = memref(rw, v).cloned().ok_or("consumer buffer")?;
        let (strides, offset) = r#loop::layout(&m);
        let symbolic_view = aot_ir::sym::is_symbolic(offset) || !aot_ir::sym::is_static(&strides);
        if (direct || symbolic_view) && direct_indices(&m, &vec![p.out; m.shape.len()], &p.shape, &out_rs).is_none() {
            return Ok(false);
        }
    }
    // No write between the producer and a consumer to what it reads.
    let reads: FxHashSet<Value> =
        rw.operands(p.kernel).filter(|&o| root_of(rw, o) != p.out).map(|o| alias_class(rw, root_of(rw, o))).collect();
    let last = consumers.iter().map(|&(c, _)| sweep.pos[&c]).max().unwrap_or(0);
    if sweep.writes_between(sweep.pos[&p.kernel], last, &reads) {
        return Ok(false);
    }
    // Nor into a consumer that writes what the producer reads (an epilogue
    // update), unless every such read is of the element the consumer
    // writes in the same iteration.
    for &(c, v) in &consumers {
        let written: FxHashSet<Value> = writes(rw, c).into_iter().map(|w| alias_class(rw, w)).collect();
        if !reads.is_disjoint(&written) && !same_element_update(rw, &p, c, v, &written) {
            return Ok(false);
        }
    }
    // Each load site gets a copy of the producer: keep kernels a size
    // Cranelift compiles quickly.
    let own = sweep.size(rw, p.kernel);
    let mut grown: Vec<(Op, usize)> = Vec::new();
    for &(c, _) in &consumers {
        if grown.iter().any(|g| g.0 == c) {
            continue;
        }
        let loads = load_sites(rw, c, p.out);
        let size = sweep.size(rw, c).saturating_add(own.saturating_mul(loads));
        if size > MAX_KERNEL_OPS {
            return Ok(false);
        }
        grown.push((c, size));
    }
    let out_ty = memref(rw, p.out).cloned().ok_or("producer output")?;
    let rs = aot_dialects::lowering::row_major(&out_ty.shape);
    let mut done: FxHashSet<Op> = FxHashSet::default();
    for &(c, _) in &consumers {
        if !done.insert(c) {
            continue;
        }
        let body = rw.single_block(c, 0).expect("kernel body");
        let args: Vec<(Value, Value)> =
            rw.operands(c).zip(rw.block_args(body).iter().copied()).filter(|&(o, _)| root_of(rw, o) == p.out).collect();
        for (host, a) in args {
            let m = memref(rw, host).cloned().ok_or("consumer buffer")?;
            let loads: Vec<Op> = rw.uses(a).map(|u| u.op).collect();
            for l in loads {
                let idx: Vec<Value> = rw.operands(l).skip(1).collect();
                rw.set_insertion_point(InsertPoint::Before(l));
                let mut map: FxHashMap<Value, Value> = FxHashMap::default();
                match flat_offset(rw, &m, &idx).filter(|_| !direct) {
                    Some(flat) => {
                        for (d, &iv) in p.ivs.iter().enumerate() {
                            let n = if d == 0 { None } else { Some(p.shape[d]) };
                            let v = div_mod(rw, &flat, rs[d], n);
                            map.insert(iv, v);
                        }
                    }
                    None => {
                        let direct = direct_indices(&m, &idx, &p.shape, &rs).ok_or("a symbolic view checked above")?;
                        for (&iv, at) in p.ivs.iter().zip(direct) {
                            let v = match at {
                                Some(v) => v,
                                None => index_value(rw, 0),
                            };
                            map.insert(iv, v);
                        }
                    }
                }
                let nv = clone_dag(rw, p.kernel, c, p.value, &mut map)?;
                let old = rw.result(l, 0);
                rw.replace_all_uses(old, nv);
                rw.erase_op(l);
            }
        }
        prune_kernel_args(rw, c);
    }
    let _ = p.out_arg;
    rw.erase_op(p.kernel);
    sweep.erased(p.kernel);
    for (c, size) in grown {
        sweep.sizes.insert(c, size);
    }
    Ok(true)
}

/// The producer's indices a load at `idx` through layout `m` reads, when
/// each dimension of the producer's buffer (of `shape`, row-major strides
/// `rs`) of more than one element is one of the load's, of the same size
/// and stride, and the layout starts at 0: the buffer itself, a broadcast
/// or a transpose of it. `None` at a dimension of one element (index 0).
/// No arithmetic on sizes: what a symbolic layout allows.
fn direct_indices(m: &MemRefType, idx: &[Value], shape: &[i64], rs: &[i64]) -> Option<Vec<Option<Value>>> {
    let (strides, offset) = r#loop::layout(m);
    if offset != 0 || idx.len() != m.shape.len() {
        return None;
    }
    let mut out: Vec<Option<Value>> = vec![None; shape.len()];
    for (d, (&n, &s)) in m.shape.iter().zip(strides.iter()).enumerate() {
        if s == 0 || n == 1 {
            continue;
        }
        let e = (0..shape.len()).find(|&e| out[e].is_none() && shape[e] != 1 && rs[e] == s && shape[e] == n)?;
        out[e] = Some(idx[d]);
    }
    if (0..shape.len()).any(|e| shape[e] != 1 && out[e].is_none()) {
        return None;
    }
    Some(out)
}

/// Whether inlining producer `p` into consumer `c` (which reads it through
/// host value `v`) keeps every read of the `written` alias classes before
/// the write of the same element: `c` reads the producer's buffer itself
/// (no view), stores into those classes once, through one view, and loads
/// the producer at that store's indices; the producer loads them only
/// through that same view, at its own induction variables.
fn same_element_update(ctx: &Context, p: &Producer, c: Op, v: Value, written: &FxHashSet<Value>) -> bool {
    // Through a view (a broadcast, a slice) the same indices are other
    // elements.
    if v != p.out {
        return false;
    }
    let host = |k: Op, a: Value| arg_index(ctx, k, a).map(|i| ctx.operand(k, i));
    let class = |h: Value| alias_class(ctx, root_of(ctx, h));
    let mut stores = Vec::new();
    let mut loads = Vec::new();
    ctx.walk_pre(c, &mut |o| match LoopOp::of(ctx, o) {
        Some(LoopOp::Store) => stores.push(o),
        Some(LoopOp::Load) => loads.push(o),
        _ => {}
    });
    let stores: Vec<Op> = stores
        .into_iter()
        .filter(|&s| host(c, ctx.operand(s, 1)).is_some_and(|h| written.contains(&class(h))))
        .collect();
    let [store] = stores[..] else { return false };
    let Some(target) = host(c, ctx.operand(store, 1)) else { return false };
    let store_idx: Vec<Value> = ctx.operands(store).skip(2).collect();
    for l in loads {
        if host(c, ctx.operand(l, 0)) == Some(v) && ctx.operands(l).skip(1).collect::<Vec<_>>() != store_idx {
            return false;
        }
    }
    let mut ok = true;
    ctx.walk_pre(p.kernel, &mut |o| {
        if LoopOp::of(ctx, o) != Some(LoopOp::Load) {
            return;
        }
        let Some(h) = host(p.kernel, ctx.operand(o, 0)) else { return };
        if written.contains(&class(h)) && (h != target || ctx.operands(o).skip(1).collect::<Vec<_>>() != p.ivs) {
            ok = false;
        }
    });
    ok
}

/// Loads kernel `c` makes of buffer `root` (through any view).
fn load_sites(ctx: &Context, c: Op, root: Value) -> usize {
    let Some(body) = ctx.single_block(c, 0) else { return 0 };
    ctx.operands(c)
        .zip(ctx.block_args(body).iter().copied())
        .filter(|&(o, _)| root_of(ctx, o) == root)
        .map(|(_, a)| ctx.uses(a).count())
        .sum()
}

/// Removes allocations and views nothing uses.
fn erase_dead_buffers(rw: &mut Rewriter<'_>, entry: Block) {
    loop {
        let dead: Vec<Op> = rw
            .block_ops(entry)
            .filter(|&o| {
                matches!(LoopOp::of(rw, o), Some(LoopOp::Alloc | LoopOp::View | LoopOp::Global))
                    && rw.results(o).iter().all(|&r| !rw.has_uses(r))
            })
            .collect();
        if dead.is_empty() {
            return;
        }
        for o in dead {
            rw.erase_op(o);
        }
    }
}

// ----- loop fusion -----

/// Stores of kernel `k` at the top level of its outer loop body:
/// `(root, offset expression over k's outer IV, stored value)`. `None`
/// when some store to a root is elsewhere (inside an inner loop) or
/// through a symbolic layout.
fn row_stores(ctx: &Context, k: Op, outer: Op) -> Option<Vec<(Value, Expr, Value)>> {
    let body = ctx.single_block(outer, 0)?;
    let mut out = Vec::new();
    let mut deep = Vec::new();
    let mut symbolic = false;
    ctx.walk_pre(k, &mut |o| {
        if LoopOp::of(ctx, o) != Some(LoopOp::Store) {
            return;
        }
        let buf = ctx.operand(o, 1);
        let Some(i) = arg_index(ctx, k, buf) else { return };
        let root = root_of(ctx, ctx.operand(k, i));
        if ctx.op_block(o) == Some(body) {
            let m = memref(ctx, buf).cloned().expect("buffer");
            let idx: Vec<Value> = ctx.operands(o).skip(2).collect();
            match flat_offset(ctx, &m, &idx) {
                Some(e) => out.push((root, e, ctx.operand(o, 0))),
                // (A symbolic layout: no offset to compare a load's with.)
                None => symbolic = true,
            }
        } else {
            deep.push(root);
        }
    });
    if symbolic || out.iter().any(|(r, _, _)| deep.contains(r)) {
        return None;
    }
    Some(out)
}

/// Substitutes `to` for atom `from` in an expression.
fn rename(e: &Expr, from: Value, to: Value) -> Expr {
    let mut t = e.clone();
    for term in t.terms.iter_mut() {
        if term.0 == from {
            term.0 = to;
        }
    }
    t.terms.sort_by_key(|t| t.0.as_u32());
    t
}

/// Loop fusion over the whole block: each kernel in order is fused with
/// the first later kernel it can be, as long as it can be. Returns the
/// number of fusions.
///
/// The scan resumes where it stopped after each fusion instead of starting
/// over, and a kernel is only paired with the kernels that read what it
/// writes, so a block of `k` kernels costs about `k` scans, not `k^3` pair
/// tests (a chain of 800 in-place writes through a detached alias took
/// minutes).
fn fuse_all(
    rw: &mut Rewriter<'_>,
    entry: Block,
    ret_roots: &FxHashSet<Value>,
    target: &dyn Target,
) -> Result<u64, String> {
    let mut fused = 0;
    let mut i = 0;
    // The block's order only changes when a fusion happens.
    let mut kernels = kernel_ops(rw, entry);
    let pos = positions(rw, entry);
    let order: Vec<Op> = rw.block_ops(entry).collect();
    let mut users = KernelUsers::new(&pos);
    loop {
        let Some(&k1) = kernels.get(i) else { return Ok(fused) };
        if fuse_from(rw, k1, ret_roots, &mut users, &order, target)? {
            // k1 went into a later kernel, which keeps its place: the block's
            // relative order holds (erased ops are skipped), and the kernel
            // now at position i is the next one to try. Re-walking the block
            // after every fusion would make a long chain quadratic.
            fused += 1;
            kernels.remove(i);
        } else {
            i += 1;
        }
        if i >= kernels.len() {
            erase_dead_buffers(rw, entry);
            return Ok(fused);
        }
    }
}

/// Tries to fuse kernel `k1` with the first later kernel that reads what it
/// writes; returns whether it did (then `k1` is merged into that kernel).
/// `pos` and `order` describe the block as it is.
fn fuse_from(
    rw: &mut Rewriter<'_>,
    k1: Op,
    ret_roots: &FxHashSet<Value>,
    users: &mut KernelUsers<'_>,
    order: &[Op],
    target: &dyn Target,
) -> Result<bool, String> {
    let pos = users.pos;
    let Some(&p1) = pos.get(&k1) else { return Ok(false) };
    let Some(ForOp(l1)) = outer_parallel_loop(rw, k1) else { return Ok(false) };
    let Some(stores) = row_stores(rw, k1, l1) else { return Ok(false) };
    let written: FxHashSet<Value> = writes(rw, k1).into_iter().collect();
    let bounds = |o: Op| (rw.attr_i64(o, "lower"), rw.attr_i64(o, "upper"), rw.attr_i64(o, "step").unwrap_or(1));
    // Only kernels reading a buffer k1 writes can fuse with it, and only
    // the first of them: every later one has it in between, and it uses a
    // buffer k1 writes, which blocks (below).
    let mut first: Option<(usize, Op)> = None;
    for &root in &written {
        if let Some(set) = users.of(rw, root) {
            if let Some(&c) = set.range((p1 + 1, Op::from_u32(0))..).next() {
                first = Some(first.map_or(c, |f| f.min(c)));
            }
        }
    }
    let Some((_, k2)) = first else { return Ok(false) };
    let Some(ForOp(l2)) = outer_parallel_loop(rw, k2) else { return Ok(false) };
    // (A kernel whose outer loop runs in lanes keeps them only when
    // its sibling's does too.)
    if bounds(l1) != bounds(l2) || target.vectorizes(rw, l1) != target.vectorizes(rw, l2) {
        return Ok(false);
    }
    let reads2: FxHashSet<Value> = rw.operands(k2).map(|o| root_of(rw, o)).collect();
    if written.is_disjoint(&reads2) {
        return Ok(false);
    }
    // k2 must not write what k1 reads, nor anything between them
    // touch k1's buffers.
    let reads1: FxHashSet<Value> = rw.operands(k1).map(|o| alias_class(rw, root_of(rw, o))).collect();
    let written_class: FxHashSet<Value> = written.iter().map(|&w| alias_class(rw, w)).collect();
    if writes(rw, k2).iter().any(|&w| reads1.contains(&alias_class(rw, w))) {
        return Ok(false);
    }
    // (Views and allocations between them are only layouts.)
    let between = &order[pos[&k1] + 1..pos[&k2]];
    let blocked = between.iter().filter(|&&o| !rw.is_erased(o)).any(|&o| {
        let layout_only = matches!(LoopOp::of(rw, o), Some(LoopOp::View | LoopOp::Alloc | LoopOp::Global));
        let w: Vec<Value> = writes(rw, o).into_iter().map(|r| alias_class(rw, r)).collect();
        !layout_only
            && (w.iter().any(|r| reads1.contains(r) || written_class.contains(r))
                || rw.operands(o).any(|v| written_class.contains(&alias_class(rw, root_of(rw, v)))))
    });
    if blocked {
        return Ok(false);
    }
    // Every load k2 makes of a buffer k1 writes must hit the element
    // k1 stored in the same iteration.
    let iv1 = rw.block_args(rw.single_block(l1, 0).expect("body"))[0];
    let iv2 = rw.block_args(rw.single_block(l2, 0).expect("body"))[0];
    let mut forward: Vec<(Op, Value)> = Vec::new();
    let mut ok = true;
    rw.walk_pre(k2, &mut |o| {
        if !ok || LoopOp::of(rw, o) != Some(LoopOp::Load) {
            return;
        }
        let buf = rw.operand(o, 0);
        let Some(j) = arg_index(rw, k2, buf) else { return };
        let root = root_of(rw, rw.operand(k2, j));
        if !written.contains(&root) {
            return;
        }
        let m = memref(rw, buf).cloned().expect("buffer");
        let idx: Vec<Value> = rw.operands(o).skip(1).collect();
        let Some(e) = flat_offset(rw, &m, &idx).map(|e| rename(&e, iv2, iv1)) else {
            ok = false;
            return;
        };
        match stores.iter().find(|(r, se, _)| *r == root && *se == e) {
            Some(&(_, _, v)) => forward.push((o, v)),
            None => ok = false,
        }
    });
    if !ok {
        return Ok(false);
    }
    // Keep kernels a size Cranelift compiles quickly (see MAX_KERNEL_OPS).
    if op_count(rw, k1).saturating_add(op_count(rw, k2)) > MAX_KERNEL_OPS {
        return Ok(false);
    }
    let before: Vec<Value> = KernelUsers::roots(rw, k1).into_iter().chain(KernelUsers::roots(rw, k2)).collect();
    merge(rw, k1, k2, l1, l2, &forward)?;
    // Buffers only the fused kernel used, and not returned, go.
    for (root, _, _) in &stores {
        let is_alloc = rw.defining_op(*root).is_some_and(|o| LoopOp::of(rw, o) == Some(LoopOp::Alloc));
        if ret_roots.contains(root) || !is_alloc {
            return Ok(false);
        }
        if let Some(uses) = uses_of_root(rw, *root) {
            let only_stores = uses.iter().all(|&(o, v)| {
                o == k2 && {
                    let body = rw.single_block(o, 0).expect("body");
                    rw.operands(o)
                        .zip(rw.block_args(body).iter())
                        .filter(|&(h, _)| h == v)
                        .all(|(_, &a)| rw.uses(a).all(|u| LoopOp::of(rw, u.op) == Some(LoopOp::Store)))
                }
            });
            if only_stores {
                drop_stores(rw, k2, *root);
            }
        }
    }
    prune_kernel_args(rw, k2);
    users.merged(rw, k1, k2, &before);
    Ok(true)
}

/// Removes the stores of kernel `k` into `root`.
fn drop_stores(rw: &mut Rewriter<'_>, k: Op, root: Value) {
    let mut dead = Vec::new();
    rw.walk_pre(k, &mut |o| {
        if LoopOp::of(rw, o) == Some(LoopOp::Store) {
            if let Some(i) = arg_index(rw, k, rw.operand(o, 1)) {
                if root_of(rw, rw.operand(k, i)) == root {
                    dead.push(o);
                }
            }
        }
    });
    for o in dead {
        rw.erase_op(o);
    }
}

/// Moves k1's outer-loop body to the front of k2's, maps buffers and
/// forwards the loads that read what k1 stored; erases k1.
fn merge(rw: &mut Rewriter<'_>, k1: Op, k2: Op, l1: Op, l2: Op, forward: &[(Op, Value)]) -> Result<(), String> {
    let body1 = rw.single_block(k1, 0).ok_or("kernel body")?;
    let b1 = rw.single_block(l1, 0).ok_or("loop body")?;
    let b2 = rw.single_block(l2, 0).ok_or("loop body")?;
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    // Buffers.
    for (i, &a) in rw.block_args(body1).to_vec().iter().enumerate() {
        let host = rw.operand(k1, i);
        let na = kernel_arg_for(rw, k2, host);
        map.insert(a, na);
    }
    // Constants before k1's loop go before k2's.
    for o in rw.block_ops(body1).collect::<Vec<_>>() {
        if o == l1 || LoopOp::of(rw, o) == Some(LoopOp::Yield) {
            continue;
        }
        rw.set_insertion_point(InsertPoint::Before(l2));
        rw.clone_deep(o, &mut map);
    }
    map.insert(rw.block_args(b1)[0], rw.block_args(b2)[0]);
    let first = rw.block_first_op(b2).ok_or("empty loop body")?;
    for o in rw.block_ops(b1).collect::<Vec<_>>() {
        if LoopOp::of(rw, o) == Some(LoopOp::Yield) {
            continue;
        }
        rw.set_insertion_point(InsertPoint::Before(first));
        rw.clone_deep(o, &mut map);
    }
    for &(load, v) in forward {
        let nv = *map.get(&v).ok_or("forwarded value was not cloned")?;
        let old = rw.result(load, 0);
        rw.replace_all_uses(old, nv);
        rw.erase_op(load);
    }
    rw.erase_op(k1);
    Ok(())
}

// ----- sibling fusion -----

/// Kernels after `k1` tried as its sibling (the nearest ones reading a
/// buffer it reads, at most `SIBLING_WINDOW` ops away): bounds the scan
/// where one input feeds many kernels, and the legality check of the ops
/// in between, so a long program costs linear time.
const SIBLING_CANDIDATES: usize = 4;
const SIBLING_WINDOW: usize = 64;

/// Sibling fusion over the whole block: a kernel is merged into the next
/// kernel over the same outermost parallel loop that reads a buffer it
/// reads, when the two are independent (neither reads nor writes what the
/// other writes, and nothing between them touches what `k1` writes or
/// writes what it reads). Its loop body goes to the front of the other's,
/// so that their reductions over the shared input can become one pass
/// ([`merge_sibling_loops`]): a batch norm's backward sums the same
/// gradient for the bias, the weight and the input. Returns the number of
/// fusions.
fn fuse_siblings(rw: &mut Rewriter<'_>, entry: Block) -> Result<u64, String> {
    let mut fused = 0;
    let mut kernels = kernel_ops(rw, entry);
    let pos = positions(rw, entry);
    let order: Vec<Op> = rw.block_ops(entry).collect();
    let mut users = KernelUsers::new(&pos);
    let mut i = 0;
    while let Some(&k1) = kernels.get(i) {
        if sibling_from(rw, k1, &mut users, &order)? {
            fused += 1;
            kernels.remove(i);
        } else {
            i += 1;
        }
    }
    Ok(fused)
}

/// Tries to merge `k1` into a later sibling; returns whether it did.
fn sibling_from(rw: &mut Rewriter<'_>, k1: Op, users: &mut KernelUsers<'_>, order: &[Op]) -> Result<bool, String> {
    let pos = users.pos;
    let Some(&p1) = pos.get(&k1) else { return Ok(false) };
    let Some(ForOp(l1)) = outer_parallel_loop(rw, k1) else { return Ok(false) };
    let bounds = |o: Op| (rw.attr_i64(o, "lower"), rw.attr_i64(o, "upper"), rw.attr_i64(o, "step").unwrap_or(1));
    let class = |rw: &Rewriter<'_>, v: Value| alias_class(rw, root_of(rw, v));
    let reads1: FxHashSet<Value> = rw.operands(k1).map(|o| class(rw, o)).collect();
    let written1: FxHashSet<Value> = writes(rw, k1).into_iter().map(|w| alias_class(rw, w)).collect();
    let roots1: FxHashSet<Value> = rw.operands(k1).map(|o| root_of(rw, o)).collect();
    let mut candidates: Vec<Op> = Vec::new();
    for &root in &roots1 {
        if let Some(set) = users.of(rw, root) {
            let window = (p1 + 1, Op::from_u32(0))..(p1 + SIBLING_WINDOW + 1, Op::from_u32(0));
            candidates.extend(
                set.range(window)
                    .map(|&(_, o)| o)
                    .filter(|&o| !rw.is_erased(o) && LoopOp::of(rw, o) == Some(LoopOp::Kernel)),
            );
        }
    }
    candidates.sort_by_key(|o| pos[o]);
    candidates.dedup();
    for k2 in candidates.into_iter().take(SIBLING_CANDIDATES) {
        let Some(ForOp(l2)) = outer_parallel_loop(rw, k2) else { continue };
        if bounds(l1) != bounds(l2) {
            continue;
        }
        let reads2: FxHashSet<Value> = rw.operands(k2).map(|o| class(rw, o)).collect();
        let written2: Vec<Value> = writes(rw, k2).into_iter().map(|w| alias_class(rw, w)).collect();
        if !written1.is_disjoint(&reads2) || written2.iter().any(|w| reads1.contains(w) || written1.contains(w)) {
            continue;
        }
        let between = &order[pos[&k1] + 1..pos[&k2]];
        let blocked = between.iter().filter(|&&o| !rw.is_erased(o)).any(|&o| {
            let layout_only = matches!(LoopOp::of(rw, o), Some(LoopOp::View | LoopOp::Alloc | LoopOp::Global));
            !layout_only
                && (writes(rw, o).into_iter().any(|w| {
                    let w = alias_class(rw, w);
                    reads1.contains(&w) || written1.contains(&w)
                }) || rw.operands(o).any(|v| written1.contains(&class(rw, v))))
        });
        if blocked || op_count(rw, k1).saturating_add(op_count(rw, k2)) > MAX_KERNEL_OPS {
            continue;
        }
        let before: Vec<Value> = KernelUsers::roots(rw, k1).into_iter().chain(KernelUsers::roots(rw, k2)).collect();
        merge(rw, k1, k2, l1, l2, &[])?;
        prune_kernel_args(rw, k2);
        users.merged(rw, k1, k2, &before);
        return Ok(true);
    }
    Ok(false)
}

/// Whether `op` computes without side effects (loads, arithmetic, loops
/// of them).
fn is_pure(ctx: &Context, op: Op) -> bool {
    let mut pure = true;
    ctx.walk_pre(op, &mut |o| {
        pure &= matches!(
            LoopOp::of(ctx, o),
            Some(LoopOp::For | LoopOp::Yield | LoopOp::Load | LoopOp::Constant | LoopOp::Size | LoopOp::Scalar(_))
        );
    });
    pure
}

/// A sequential loop that carries values and stores nothing.
fn is_reduction_loop(ctx: &Context, op: Op) -> bool {
    LoopOp::of(ctx, op) == Some(LoopOp::For)
        && !ctx.has_attr(op, "parallel")
        && ctx.num_results(op) > 0
        && is_pure(ctx, op)
}

/// The allocation classes of the buffers that the loads (`stores`: the
/// stores) inside `op`, an op of kernel `k`, access.
fn accessed_classes(ctx: &Context, k: Op, op: Op, stores: bool) -> FxHashSet<Value> {
    let mut out = FxHashSet::default();
    ctx.walk_pre(op, &mut |o| {
        let buf = match LoopOp::of(ctx, o) {
            Some(LoopOp::Load) if !stores => ctx.operand(o, 0),
            Some(LoopOp::Store) if stores => ctx.operand(o, 1),
            _ => return,
        };
        // A buffer not among the kernel's arguments is unknown: every class.
        let class = arg_index(ctx, k, buf).map(|i| alias_class(ctx, root_of(ctx, ctx.operand(k, i))));
        out.insert(class.unwrap_or(buf));
    });
    out
}

/// Merges sibling reduction loops in `block` of kernel `k`, and then in the
/// bodies of its loops: two pure loops with the same bounds, the second not
/// using what the first computes, become one loop carrying both sets of
/// values, the first's body then the second's in each iteration (each
/// reduction keeps its order, so its result is the same to the bit). Their
/// nested loops become siblings in turn; CSE then shares their loads.
///
/// Between the two may stand scalar ops and stores into buffers neither
/// loop reads; those computed from the first loop's results move after
/// the merged loop. A merge is skipped where it would cost an innermost
/// loop its vector form on `target` (one of the two vectorizes,
/// the other not). Returns the number of merges.
fn merge_sibling_loops(rw: &mut Rewriter<'_>, k: Op, block: Block, target: &dyn Target) -> Result<u64, String> {
    let mut merged = 0;
    'again: loop {
        let ops: Vec<Op> = rw.block_ops(block).collect();
        for (i, &a) in ops.iter().enumerate() {
            if !is_reduction_loop(rw, a) {
                continue;
            }
            let loaded_a = accessed_classes(rw, k, a, false);
            // Values that depend on `a` (its results, and what the ops
            // between the loops compute from them), and those ops.
            let mut after_a: FxHashSet<Value> = rw.results(a).iter().copied().collect();
            let mut dependent: Vec<Op> = Vec::new();
            let mut stored: FxHashSet<Value> = FxHashSet::default();
            for &b in &ops[i + 1..] {
                if is_reduction_loop(rw, b)
                    && sibling_loops(rw, a, b, &after_a, target)
                    && accessed_classes(rw, k, b, false).is_disjoint(&stored)
                {
                    merge_loops(rw, a, b, &dependent)?;
                    merged += 1;
                    continue 'again;
                }
                let is_store = LoopOp::of(rw, b) == Some(LoopOp::Store);
                if LoopOp::of(rw, b) == Some(LoopOp::For) || !(is_pure(rw, b) || is_store) {
                    break;
                }
                // Stores may move after loads of `a` and `b` and past the
                // ops between: those must not read or write what they store.
                if is_store {
                    let classes = accessed_classes(rw, k, b, true);
                    if !classes.is_disjoint(&loaded_a) || !classes.is_disjoint(&stored) {
                        break;
                    }
                    stored.extend(classes);
                } else if !accessed_classes(rw, k, b, false).is_disjoint(&stored) {
                    break;
                }
                if rw.operands(b).any(|v| after_a.contains(&v)) {
                    after_a.extend(rw.results(b).iter().copied());
                    dependent.push(b);
                }
            }
        }
        break;
    }
    for o in rw.block_ops(block).collect::<Vec<_>>() {
        if LoopOp::of(rw, o) == Some(LoopOp::For) {
            if let Some(body) = rw.single_block(o, 0) {
                merged += merge_sibling_loops(rw, k, body, target)?;
            }
        }
    }
    Ok(merged)
}

/// Whether loops `a` and `b` (after it in one block) can merge: the same
/// bounds, `b` (its operands and everything inside it) using nothing of
/// `after_a`, and innermost loops agreeing on lanes.
fn sibling_loops(ctx: &Context, a: Op, b: Op, after_a: &FxHashSet<Value>, target: &dyn Target) -> bool {
    let bounds = |o: Op| (ctx.attr_i64(o, "lower"), ctx.attr_i64(o, "upper"), ctx.attr_i64(o, "step").unwrap_or(1));
    if bounds(a) != bounds(b) {
        return false;
    }
    let mut independent = true;
    ctx.walk_pre(b, &mut |o| independent &= !ctx.operands(o).any(|v| after_a.contains(&v)));
    if !independent {
        return false;
    }
    let innermost = |o: Op| {
        ctx.single_block(o, 0).is_some_and(|bb| ctx.block_ops(bb).all(|x| LoopOp::of(ctx, x) != Some(LoopOp::For)))
    };
    !(innermost(a) && innermost(b)) || target.vectorizes(ctx, a) == target.vectorizes(ctx, b)
}

/// Replaces loops `a` and `b` by one loop at `b`'s place carrying `a`'s
/// values then `b`'s; the ops in `dependent` (between the two, computed
/// from `a`'s results) move after it.
fn merge_loops(rw: &mut Rewriter<'_>, a: Op, b: Op, dependent: &[Op]) -> Result<(), String> {
    let (ba, bb) = (rw.single_block(a, 0).ok_or("loop body")?, rw.single_block(b, 0).ok_or("loop body")?);
    let inits: Vec<Value> = rw.operands(a).chain(rw.operands(b)).collect();
    let attr = |k: &str| rw.attr_i64(b, k).ok_or_else(|| format!("loop without '{k}'"));
    let (lo, hi, step) = (attr("lower")?, attr("upper")?, rw.attr_i64(b, "step").unwrap_or(1));
    let na = rw.num_results(a);
    rw.set_insertion_point(InsertPoint::Before(b));
    // The merged loop's body takes the two bodies' ops, in order.
    let results = aot_dialects::lowering::Scalars { rw: &mut *rw }.for_loop(
        lo,
        hi,
        step,
        false,
        &inits,
        &mut |s, iv, carried| {
            let ValueDef::BlockArg { block: body, .. } = s.rw.value_def(iv) else { return Err("loop body".into()) };
            let mut yielded = Vec::with_capacity(carried.len());
            for (old, at) in [(ba, 0usize), (bb, na)] {
                let olds = s.rw.block_args(old).to_vec();
                s.rw.replace_all_uses(olds[0], iv);
                for (k, &v) in olds[1..].iter().enumerate() {
                    s.rw.replace_all_uses(v, carried[at + k]);
                }
                for o in s.rw.block_ops(old).collect::<Vec<_>>() {
                    if LoopOp::of(s.rw, o) == Some(LoopOp::Yield) {
                        yielded.extend(s.rw.operands(o));
                        s.rw.erase_op(o);
                    } else {
                        s.rw.move_to_end(o, body);
                    }
                }
            }
            Ok(yielded)
        },
    )?;
    let m = rw.defining_op(results[0]).ok_or("merged loop")?;
    for (k, &r) in rw.results(a).to_vec().iter().enumerate() {
        rw.replace_all_uses(r, results[k]);
    }
    for (k, &r) in rw.results(b).to_vec().iter().enumerate() {
        rw.replace_all_uses(r, results[na + k]);
    }
    let mut at = m;
    for &o in dependent {
        rw.move_after(o, at);
        at = o;
    }
    rw.erase_op(a);
    rw.erase_op(b);
    Ok(())
}

/// What the host knows about a kernel's buffers: each block argument's
/// host allocation class. Two arguments may alias exactly when they are
/// bound to one class; the rest is what the IR shows.
struct KernelAliases {
    class: FxHashMap<Value, Value>,
}

impl KernelAliases {
    fn of(ctx: &Context, k: Op) -> Option<KernelAliases> {
        let body = ctx.single_block(k, 0)?;
        let class = ctx
            .block_args(body)
            .iter()
            .zip(ctx.operands(k))
            .map(|(&a, h)| (a, alias_class(ctx, root_of(ctx, h))))
            .collect();
        Some(KernelAliases { class })
    }
}

impl aot_ir::cse::AliasOracle for KernelAliases {
    fn may_alias(&self, ctx: &Context, a: Value, b: Value) -> bool {
        match (self.class.get(&a), self.class.get(&b)) {
            (Some(x), Some(y)) => x == y,
            _ => aot_ir::cse::default_may_alias(ctx, a, b),
        }
    }
}

/// Common subexpressions inside a kernel (fusion duplicates producers per
/// load site), through the CSE transform: scalar ops, and loads of buffers
/// the kernel does not write (as the host's allocation classes tell).
fn cse_kernel(rw: &mut Rewriter<'_>, k: Op) -> u64 {
    match KernelAliases::of(rw, k) {
        Some(aliases) => aot_ir::cse::eliminate_common_subexpressions(rw, k, &aliases),
        None => 0,
    }
}

/// Fuses the kernels of lowered function `func` for `target`.
pub fn fuse_function(ctx: &mut Context, func: Op, target: &dyn Target) -> Result<Stats, Diagnostic> {
    let f = FuncView { op: func };
    let Some(entry) = f.entry_block(ctx) else { return Ok(Stats::default()) };
    let mut rw = Rewriter::new(ctx);
    let mut stats = Stats::default();
    let err = |rw: &Rewriter<'_>, m: String| Diagnostic::op_error(rw, func, format!("fuse: {m}"));
    loop {
        let n = inline_sweep(&mut rw, entry).map_err(|m| err(&rw, m))?;
        stats.inlined += n;
        let ret_roots: FxHashSet<Value> = match f.return_op(&rw) {
            Some(r) => rw.operands(r).map(|v| root_of(&rw, v)).collect(),
            None => FxHashSet::default(),
        };
        let fused = fuse_all(&mut rw, entry, &ret_roots, target).map_err(|m| err(&rw, m))?;
        stats.fused += fused;
        // Fusion may expose new producers to inline, and inlining new pairs
        // to fuse; stop when neither changes anything.
        if n == 0 && fused == 0 {
            break;
        }
    }
    stats.siblings = fuse_siblings(&mut rw, entry).map_err(|m| err(&rw, m))?;
    let kernels = kernel_ops(&rw, entry);
    stats.kernels = kernels.len() as u64;
    for k in kernels {
        if let Some(body) = rw.single_block(k, 0) {
            stats.merged_loops += merge_sibling_loops(&mut rw, k, body, target).map_err(|m| err(&rw, m))?;
        }
        stats.cse += cse_kernel(&mut rw, k);
    }
    Ok(stats)
}

/// `fuse{target=NAME}`: fusion for the code generator `NAME`.
struct FusePass {
    target: &'static dyn Target,
}

impl Pass for FusePass {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let f = FuncView { op };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        let s = fuse_function(ctx, op, self.target)?;
        st.add_stat("num-inlined", s.inlined);
        st.add_stat("num-fused", s.fused);
        st.add_stat("num-siblings", s.siblings);
        st.add_stat("num-merged-loops", s.merged_loops);
        st.add_stat("num-kernels", s.kernels);
        st.add_stat("num-cse", s.cse);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "fuse",
        name: "Fuse",
        summary: "Fuse loop kernels: elementwise producers into their readers, same-loop kernels into one",
        description: "On a lowered function (after lower-to-loops): a kernel computing a fresh buffer elementwise \
is inlined into the kernels that read it (views become index arithmetic, the buffer disappears; cheap producers \
are recomputed per reader); two kernels over the same outermost parallel loop, where the second only reads what \
the first stored in the same iteration (row reductions feeding elementwise consumers), become one kernel with \
those loads forwarded; independent kernels over the same loop that read a common buffer become one, and their \
sibling reduction loops one loop carrying all their values (one pass over the shared input). Never moves a read \
past a write of the same buffer; keeps buffers that are returned.",
        anchor: Some(FuncOp::NAME),
        options: &[PassOptionSpec {
            name: "target",
            kind: OptionKind::Str,
            default: "cranelift",
            description: "The code generator fused for: merges never cost a loop the vector form this target gives it",
        }],
        statistics: &[
            StatisticSpec { name: "num-inlined", description: "Producer kernels inlined into their readers" },
            StatisticSpec { name: "num-fused", description: "Kernel pairs fused over a shared loop" },
            StatisticSpec { name: "num-siblings", description: "Independent kernels over one loop merged" },
            StatisticSpec { name: "num-merged-loops", description: "Sibling reduction loops merged inside kernels" },
            StatisticSpec { name: "num-kernels", description: "Kernels left" },
            StatisticSpec { name: "num-cse", description: "Duplicate computations removed inside kernels" },
        ],
        create: |o: &PassOptions| {
            let name = o.get_str("target");
            let r = crate::target::lookup(&name).ok_or_else(|| {
                let names: Vec<&str> = crate::target::all().iter().map(|r| r.name).collect();
                format!("unknown target '{name}' (available: {})", names.join(", "))
            })?;
            let target = r.target.ok_or_else(|| r.missing(&format!("fuse{{target={name}}}"), "aot"))?;
            Ok(Box::new(FusePass { target }))
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep over host ops whose writes are `w` (alias classes by number),
    /// each op at its index.
    fn sweep(w: &[&[u32]]) -> Sweep {
        let writes: Vec<Vec<Value>> = w.iter().map(|c| c.iter().map(|&v| Value::from_u32(v)).collect()).collect();
        let next =
            (0..=writes.len()).map(|i| if i < writes.len() && writes[i].is_empty() { i + 1 } else { i }).collect();
        let pos = (0..writes.len()).map(|i| (Op::from_u32(i as u32), i)).collect();
        Sweep { pos, writes, next, sizes: FxHashMap::default() }
    }

    fn classes(c: &[u32]) -> FxHashSet<Value> {
        c.iter().map(|&v| Value::from_u32(v)).collect()
    }

    #[test]
    fn writes_between_skips_non_writers_and_erased_ops() {
        let mut s = sweep(&[&[1], &[], &[2], &[], &[3], &[]]);
        assert!(s.writes_between(0, 5, &classes(&[2])));
        assert!(!s.writes_between(0, 2, &classes(&[2])), "the end is exclusive");
        assert!(!s.writes_between(2, 5, &classes(&[2])), "the start is exclusive");
        assert!(!s.writes_between(0, 5, &classes(&[1])));
        s.erased(Op::from_u32(2));
        assert!(!s.writes_between(0, 5, &classes(&[2])), "an erased kernel writes nothing");
        assert!(s.writes_between(0, 5, &classes(&[3])));
        assert_eq!(s.find(1), 4);
        s.erased(Op::from_u32(4));
        assert_eq!(s.find(0), 0);
        assert_eq!(s.find(1), 6, "past every live writer: the end");
    }

    #[test]
    fn long_erased_runs_are_skipped_once() {
        let n = 100_000;
        let w: Vec<&[u32]> = (0..n).map(|_| &[7u32][..]).collect();
        let mut s = sweep(&w);
        for i in 1..n - 1 {
            s.erased(Op::from_u32(i as u32));
        }
        assert!(!s.writes_between(0, n - 1, &classes(&[7])));
        assert_eq!(s.find(1), n - 1);
    }
}
