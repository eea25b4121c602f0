//! `collapse-loops`: fewer, longer innermost loops in a lowered function's
//! kernels, so that the small trailing dimensions of a tensor still run in
//! vector lanes.
//!
//! A kernel over `[8, 1152, 2, 2]` is a nest whose innermost loop has two
//! iterations: too few for the vectorizer's four lanes, so every element
//! ran scalar (a CNN's last stage at 2×2, a squeeze-and-excite scale over
//! 1×1). Where the addresses allow it, the innermost loop absorbs its parent
//! (PyTorch's `TensorIterator` coalesces dimensions the same way):
//!
//! - **Unit loops go.** A loop of one iteration (not a kernel's split loop,
//!   not carrying values) is replaced by its body with the induction
//!   variable at its lower bound.
//! - **Pairs collapse.** An innermost loop `I` (`n_I` iterations, no loop
//!   inside, `n_I` below [`COLLAPSE_BELOW`]) whose parent `O` (`n_O`
//!   iterations) holds nothing else but constants becomes one loop of
//!   `n_O·n_I` iterations, when every access in it addresses
//!   `c_O·i_O + c_I·i_I + rest` with `c_O = n_I·c_I` (contiguous across the
//!   two dimensions, for every buffer) and the two induction variables feed
//!   only address arithmetic. Each access then reads a one-dimensional view
//!   of its buffer at `c_I·k + rest`; the iterations run in the same order,
//!   so the kernel computes exactly what it did.
//!
//! A reduction nest (the inner loop carries the outer one's values on)
//! collapses the same way: one loop then adds the same terms in the same
//! order.
//!
//! Over symbolic sizes (or strides) no flat offset is a constant
//! combination; there each access must index `i_O` and `i_I` themselves
//! at adjacent dimensions `p`, `p + 1` of a buffer sized `n_O`, `n_I`
//! there, with `stride[p] = n_I·stride[p + 1]` as expressions, and reads a
//! view with the two dimensions merged (`[.., n_O·n_I, ..]`). A run-time
//! trip count is judged short at its size hint.
//!
//! Invariants: loops with a non-unit step or a non-zero lower bound, and a
//! kernel's outermost parallel loop (the one the runtime splits across
//! threads) are never changed, nor is a unit loop that carries values; the
//! merged loop is marked `parallel` (independent) only when both were.

use crate::affine::{flat_offset, Expr};
use crate::fuse::{index_value, kernel_arg_for, materialize, prune_kernel_args};
use aot_dialects::func::{FuncOp, FuncView};
use aot_dialects::lowering::memref_type;
use aot_dialects::r#loop::analysis::{memref, ForOp};
use aot_dialects::r#loop::{self, Binary, LoopOp, ScalarOp};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::sym;
use aot_ir::*;
use rustc_hash::FxHashSet;

/// Innermost loops with at least this many iterations are left alone: they
/// fill the vector lanes already, and their kernels keep their shape.
/// Shorter ones absorb their parents where the addresses allow: a 32×32
/// feature map's 32-iteration rows never reached the math strips (64
/// iterations, `cranelift::vector::strip`), so SiLU and sigmoid over a
/// CNN's activations ran on four lanes (`[8, 96, 32, 32]`: 0.95 → 0.70 ms).
pub const COLLAPSE_BELOW: i64 = 1024;

/// What the pass did.
#[derive(Default, Debug, Clone, Copy)]
pub struct Stats {
    pub unit_loops: u64,
    pub collapsed: u64,
}

/// `lower..upper` of a unit-step loop.
fn bounds(ctx: &Context, l: Op) -> Option<(i64, i64)> {
    let b = ForOp(l).bounds(ctx);
    (b.step == 1).then_some((b.lower, b.upper))
}

fn is_for(ctx: &Context, o: Op) -> bool {
    LoopOp::of(ctx, o) == Some(LoopOp::For)
}

/// A loop the pass may move: not `kernel`'s split loop (a loop directly in
/// the kernel's body).
fn movable(ctx: &Context, kernel: Op, l: Op) -> bool {
    is_for(ctx, l) && ctx.parent_op(l) != Some(kernel)
}

/// A loop the pass may replace by its body: movable, carrying no values.
fn changeable(ctx: &Context, kernel: Op, l: Op) -> bool {
    movable(ctx, kernel, l) && ctx.num_operands(l) == 0 && ctx.num_results(l) == 0
}

/// Replaces unit loops of `kernel` by their bodies; returns how many.
fn remove_unit_loops(rw: &mut Rewriter<'_>, kernel: Op) -> u64 {
    let mut loops = Vec::new();
    rw.ctx().walk_pre(kernel, &mut |o| loops.push(o));
    let mut n = 0;
    for l in loops {
        if !changeable(rw.ctx(), kernel, l) {
            continue;
        }
        let Some((lo, hi)) = bounds(rw.ctx(), l) else { continue };
        if hi.checked_sub(lo) != Some(1) {
            continue;
        }
        let Some(body) = rw.single_block(l, 0) else { continue };
        let iv = rw.block_args(body)[0];
        rw.set_insertion_point(InsertPoint::Before(l));
        let c = index_value(rw, lo);
        rw.replace_all_uses(iv, c);
        let ops: Vec<Op> = rw.block_ops(body).collect();
        for o in ops {
            if LoopOp::of(rw.ctx(), o) == Some(LoopOp::Yield) {
                continue;
            }
            rw.move_before(o, l);
        }
        rw.erase_op(l);
        n += 1;
    }
    n
}

/// The values derived from `ivs` by index arithmetic inside `body`, in
/// program order, when every use of them is address arithmetic or an
/// access's index; `None` otherwise.
fn address_only(ctx: &Context, body: Block, ivs: &[Value]) -> Option<Vec<Op>> {
    let mut derived: FxHashSet<Value> = ivs.iter().copied().collect();
    let mut arith = Vec::new();
    for o in ctx.block_ops(body) {
        if !ctx.operands(o).any(|v| derived.contains(&v)) {
            continue;
        }
        match LoopOp::of(ctx, o) {
            Some(LoopOp::Load) if ctx.operands(o).take(1).all(|v| !derived.contains(&v)) => {}
            Some(LoopOp::Store) if ctx.operands(o).take(2).all(|v| !derived.contains(&v)) => {}
            Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Add | Binary::Sub | Binary::Mul)))
                if matches!(ctx.type_data(ctx.result_type(o, 0)), TypeData::Index) =>
            {
                derived.insert(ctx.result(o, 0));
                arith.push(o);
            }
            _ => return None,
        }
    }
    Some(arith)
}

/// An access of `inner`'s body rewritten: its new flat index expression.
struct Access {
    op: Op,
    /// Operand position of the buffer (0 for loads, 1 for stores).
    buf: usize,
    flat: Expr,
}

/// Collapses innermost loop `inner` into its parent if the rules allow it;
/// returns whether it did.
fn collapse_pair(rw: &mut Rewriter<'_>, kernel: Op, inner: Op) -> bool {
    let ctx = rw.ctx();
    let Some(outer) = ctx.parent_op(inner) else { return false };
    if !movable(ctx, kernel, inner) || !movable(ctx, kernel, outer) {
        return false;
    }
    let (Some((0, n_i)), Some((0, n_o))) = (bounds(ctx, inner), bounds(ctx, outer)) else { return false };
    let symbolic_trips = sym::is_symbolic(n_i) || sym::is_symbolic(n_o);
    if !symbolic_trips && (n_i <= 0 || n_o <= 0) {
        return false;
    }
    // A run-time trip count is judged short at its hint.
    if sym::at_hint(n_i).is_none_or(|n| n >= COLLAPSE_BELOW) {
        return false;
    }
    let Ok(trips) = sym::mul(n_o, n_i) else { return false };
    let (Some(ib), Some(ob)) = (ctx.single_block(inner, 0), ctx.single_block(outer, 0)) else { return false };
    if ctx.block_ops(ib).any(|o| is_for(ctx, o)) {
        return false;
    }
    // The parent holds the loop, constants and its terminator only. A
    // reduction nest qualifies when the inner loop carries exactly the
    // parent's values on (its inits are the parent's carried arguments, the
    // parent yields its results): one loop then adds in the same order.
    let carried = ctx.num_results(outer);
    let chained = ctx.num_results(inner) == carried
        && ctx.operands(inner).eq(ctx.block_args(ob)[1..].iter().copied())
        && ctx.block_args(ob)[1..].iter().all(|&a| ctx.uses(a).count() == 1)
        && ctx.block_ops(ob).last().is_some_and(|y| ctx.operands(y).eq(ctx.results(inner).iter().copied()));
    let parent_ok = ctx.block_ops(ob).all(|o| {
        o == inner
            || match LoopOp::of(ctx, o) {
                Some(LoopOp::Constant) => true,
                Some(LoopOp::Yield) => ctx.num_operands(o) == carried,
                _ => false,
            }
    });
    if !parent_ok || !chained {
        return false;
    }
    let (iv_i, iv_o) = (ctx.block_args(ib)[0], ctx.block_args(ob)[0]);
    if symbolic_trips || symbolic_accesses(ctx, ib) {
        return collapse_dims(rw, kernel, inner, trips);
    }
    let Some(arith) = address_only(ctx, ib, &[iv_i, iv_o]) else { return false };
    let derived: FxHashSet<Value> = arith.iter().map(|&o| ctx.result(o, 0)).collect();
    let mut accesses = Vec::new();
    for o in ctx.block_ops(ib) {
        let (buf, first) = match LoopOp::of(ctx, o) {
            Some(LoopOp::Load) => (0, 1),
            Some(LoopOp::Store) => (1, 2),
            _ => continue,
        };
        let Some(m) = memref(ctx, ctx.operand(o, buf)) else { return false };
        let (strides, _) = r#loop::layout(m);
        if strides.iter().any(|&s| s < 0) || m.shape.contains(&0) {
            return false;
        }
        let idx: Vec<Value> = ctx.operands(o).skip(first).collect();
        let Some(e) = flat_offset(ctx, m, &idx) else { return false };
        // The two induction variables appear as themselves only.
        if e.terms.iter().any(|t| derived.contains(&t.0)) {
            return false;
        }
        let (c_o, c_i) = (e.coef(iv_o), e.coef(iv_i));
        let k = if n_i == 1 {
            c_o
        } else if n_o == 1 || n_i.checked_mul(c_i) == Some(c_o) {
            c_i
        } else {
            return false;
        };
        let mut flat = Expr { terms: e.terms.iter().copied().filter(|t| t.0 != iv_o && t.0 != iv_i).collect(), c: e.c };
        flat = flat.plus(&Expr { terms: vec![(iv_i, k)], c: 0 });
        accesses.push(Access { op: o, buf, flat });
    }
    // Every access through a one-dimensional view of its buffer.
    let kbody = rw.single_block(kernel, 0).expect("kernel body");
    // (Checked before anything changes: a buffer made inside the kernel
    // has no host value to view.)
    if !accesses.iter().all(|a| rw.block_args(kbody).contains(&rw.operand(a.op, a.buf))) {
        return false;
    }
    for a in accesses {
        let arg = rw.operand(a.op, a.buf);
        let i = rw.block_args(kbody).iter().position(|&b| b == arg).expect("checked above");
        let host = rw.operand(kernel, i);
        let m = memref(rw.ctx(), host).cloned().expect("checked above");
        let extent = r#loop::extent(&m);
        let flat_arg = flat_view_arg(rw, kernel, host, m.elem, extent);
        rw.set_insertion_point(InsertPoint::Before(a.op));
        let idx = materialize(rw, &a.flat);
        let mut ops: Vec<Value> = rw.operands(a.op).take(a.buf).collect();
        ops.push(flat_arg);
        ops.push(idx);
        rw.set_operands(a.op, &ops);
    }
    for &o in arith.iter().rev() {
        if !rw.has_uses(rw.result(o, 0)) {
            rw.erase_op(o);
        }
    }
    take_parents_place(rw, kernel, inner, trips);
    true
}

/// Whether an access in `body` has a symbolic layout.
fn symbolic_accesses(ctx: &Context, body: Block) -> bool {
    ctx.block_ops(body).any(|o| {
        let buf = match LoopOp::of(ctx, o) {
            Some(LoopOp::Load) => 0,
            Some(LoopOp::Store) => 1,
            _ => return false,
        };
        memref(ctx, ctx.operand(o, buf)).is_none_or(|m| {
            let (st, off) = r#loop::layout(m);
            !sym::layout_is_static(&m.shape, &st, off)
        })
    })
}

/// [`collapse_pair`] where sizes or strides are symbolic, so that no flat
/// offset is a constant combination: every access must index with the
/// parent's and the inner loop's induction variables as themselves, at
/// adjacent positions `p` and `p + 1` of a buffer whose sizes there are
/// the two trip counts and whose strides are contiguous across them
/// (`stride[p] = n_I·stride[p + 1]`, as expressions). Each access then
/// reads a view of its buffer with the two dimensions merged; the
/// iterations run in the same order.
fn collapse_dims(rw: &mut Rewriter<'_>, kernel: Op, inner: Op, trips: i64) -> bool {
    let ctx = rw.ctx();
    let Some(outer) = ctx.parent_op(inner) else { return false };
    let (Some((_, n_i)), Some((_, n_o))) = (bounds(ctx, inner), bounds(ctx, outer)) else { return false };
    let (Some(ib), Some(ob)) = (ctx.single_block(inner, 0), ctx.single_block(outer, 0)) else { return false };
    let (iv_i, iv_o) = (ctx.block_args(ib)[0], ctx.block_args(ob)[0]);
    let facts = sym::Facts::enclosing(ctx, kernel);
    let facts = facts.as_ref().unwrap_or(sym::Facts::defaults());
    let kbody = ctx.single_block(kernel, 0).expect("kernel body");
    // (access, buffer operand, position p, merged type)
    let mut rewrites = Vec::new();
    for o in ctx.block_ops(ib) {
        let uses = |v: Value| ctx.operands(o).any(|x| x == v);
        let (buf, first) = match LoopOp::of(ctx, o) {
            Some(LoopOp::Load) => (0, 1),
            Some(LoopOp::Store) => (1, 2),
            _ if uses(iv_i) || uses(iv_o) => return false,
            _ => continue,
        };
        let idx: Vec<Value> = ctx.operands(o).skip(first).collect();
        let Some(p) = idx.iter().position(|&v| v == iv_o) else { return false };
        if idx.get(p + 1) != Some(&iv_i)
            || ctx
                .operands(o)
                .enumerate()
                .any(|(k, v)| (v == iv_o && k != first + p) || (v == iv_i && k != first + p + 1))
        {
            return false;
        }
        let arg = ctx.operand(o, buf);
        if !ctx.block_args(kbody).contains(&arg) {
            return false;
        }
        let Some(m) = memref(ctx, arg) else { return false };
        let (st, off) = r#loop::layout(m);
        let contiguous = sym::mul(n_i, st[p + 1]).is_ok_and(|x| facts.known_eq(st[p], x));
        if !facts.known_eq(m.shape[p], n_o) || !facts.known_eq(m.shape[p + 1], n_i) || !contiguous {
            return false;
        }
        let mut shape: Vec<i64> = m.shape.to_vec();
        shape[p] = trips;
        shape.remove(p + 1);
        let mut strides = st.to_vec();
        strides.remove(p);
        rewrites.push((o, buf, first + p, (shape, m.elem, strides, off)));
    }
    for (o, buf, at, (shape, elem, strides, off)) in rewrites {
        let arg = rw.operand(o, buf);
        let i = rw.block_args(kbody).iter().position(|&b| b == arg).expect("checked above");
        let host = rw.operand(kernel, i);
        let t = memref_type(rw, &shape, elem, &strides, off);
        let merged = view_arg(rw, kernel, host, t);
        let mut ops: Vec<Value> = rw.operands(o).collect();
        ops[buf] = merged;
        ops[at] = iv_i;
        ops.remove(at + 1);
        rw.set_operands(o, &ops);
    }
    take_parents_place(rw, kernel, inner, trips);
    true
}

/// Moves innermost loop `inner` to its parent's place with `trips`
/// iterations (the parent's carried values now its own), once its
/// accesses no longer read the parent's induction variable.
fn take_parents_place(rw: &mut Rewriter<'_>, kernel: Op, inner: Op, trips: i64) {
    let outer = rw.parent_op(inner).expect("a nested loop");
    let ob = rw.single_block(outer, 0).expect("loop body");
    let iv_o = rw.block_args(ob)[0];
    let iv_i = rw.block_args(rw.single_block(inner, 0).expect("loop body"))[0];
    // The inner loop takes the parent's place and both ranges.
    let consts: Vec<Op> =
        rw.block_ops(ob).filter(|&o| o != inner && LoopOp::of(rw.ctx(), o) == Some(LoopOp::Constant)).collect();
    for c in consts {
        rw.move_before(c, outer);
    }
    rw.move_before(inner, outer);
    let inits: Vec<Value> = rw.operands(outer).collect();
    rw.set_operands(inner, &inits);
    for (i, r) in rw.results(inner).to_vec().into_iter().enumerate() {
        let old = rw.result(outer, i);
        rw.replace_all_uses(old, r);
    }
    let parallel = rw.has_attr(inner, "parallel") && rw.has_attr(outer, "parallel");
    if !parallel {
        rw.remove_attr(inner, "parallel");
    }
    let upper = rw.i64_attr(trips);
    rw.set_attr(inner, "upper", upper);
    rw.replace_all_uses(iv_o, iv_i);
    rw.erase_op(outer);
    prune_kernel_args(rw, kernel);
}

/// The block argument of `kernel` for a one-dimensional view of `host`
/// covering its `extent` elements (from the start of its storage, where
/// its layout's offsets count from), added when the kernel lacks it.
fn flat_view_arg(rw: &mut Rewriter<'_>, kernel: Op, host: Value, elem: ElemType, extent: i64) -> Value {
    let t = memref_type(rw, &[extent], elem, &[1], 0);
    view_arg(rw, kernel, host, t)
}

/// The block argument of `kernel` for a view of `host` of type `t` (its
/// layout's offset counting from the start of `host`'s storage), added
/// when the kernel lacks it.
fn view_arg(rw: &mut Rewriter<'_>, kernel: Op, host: Value, t: Type) -> Value {
    let body = rw.single_block(kernel, 0).expect("kernel body");
    // One view per buffer and kernel.
    for (i, o) in rw.operands(kernel).enumerate() {
        if rw.value_type(o) == t {
            if let Some(d) = rw.defining_op(o) {
                if LoopOp::of(rw.ctx(), d) == Some(LoopOp::View) && rw.operand(d, 0) == host {
                    return rw.block_args(body)[i];
                }
            }
        }
    }
    rw.set_insertion_point(InsertPoint::Before(kernel));
    let v = if rw.value_type(host) == t { host } else { rw.build_typed1(r#loop::VIEW, &[host], &[], t) };
    kernel_arg_for(rw, kernel, v)
}

/// The innermost loops of `kernel`.
fn innermost_loops(ctx: &Context, kernel: Op) -> Vec<Op> {
    let mut loops = Vec::new();
    ctx.walk_pre(kernel, &mut |o| {
        if is_for(ctx, o) {
            let nested = ctx.single_block(o, 0).is_some_and(|b| ctx.block_ops(b).any(|x| is_for(ctx, x)));
            if !nested {
                loops.push(o);
            }
        }
    });
    loops
}

/// Collapses the loops of every kernel of lowered function `func`.
pub fn collapse_function(ctx: &mut Context, func: Op) -> Stats {
    let f = FuncView { op: func };
    let mut stats = Stats::default();
    let Some(entry) = f.entry_block(ctx) else { return stats };
    let mut rw = Rewriter::new(ctx);
    let kernels: Vec<Op> = rw.block_ops(entry).filter(|&o| LoopOp::of(rw.ctx(), o) == Some(LoopOp::Kernel)).collect();
    for k in kernels {
        stats.unit_loops += remove_unit_loops(&mut rw, k);
        for l in innermost_loops(rw.ctx(), k) {
            // The loop itself survives each collapse, one level up.
            while collapse_pair(&mut rw, k, l) {
                stats.collapsed += 1;
            }
        }
    }
    stats
}

struct CollapseLoops;

impl Pass for CollapseLoops {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        if !(FuncView { op }).is_public_definition(ctx) {
            return Ok(());
        }
        let s = collapse_function(ctx, op);
        st.add_stat("num-unit-loops", s.unit_loops);
        st.add_stat("num-collapsed", s.collapsed);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "collapse-loops",
        name: "CollapseLoops",
        summary: "Merge a kernel's short innermost loop into its parent where addresses are contiguous across both",
        description: "On a lowered function (after fuse): loops of one iteration are replaced by their bodies; an \
innermost loop of fewer than 1024 iterations (a symbolic count at its size hint) whose parent holds nothing else \
becomes one loop over both ranges when every load and store addresses the two dimensions contiguously (outer \
stride = inner trips × inner stride) and the induction variables feed addresses only; accesses then read \
one-dimensional views of their buffers. Over symbolic sizes or strides, every access must index the two \
variables directly at adjacent dimensions sized by the trip counts, contiguous as expressions, and reads a view \
with the two merged. The iteration order is unchanged. Non-unit steps and a kernel's split loop are left alone.",
        anchor: Some(FuncOp::NAME),
        options: &[],
        statistics: &[
            StatisticSpec { name: "num-unit-loops", description: "Loops of one iteration removed" },
            StatisticSpec { name: "num-collapsed", description: "Innermost loops merged into their parent" },
        ],
        create: |_: &PassOptions| Ok(Box::new(CollapseLoops)),
    }
}
