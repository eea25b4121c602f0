//! Analyses of lowered (loop-dialect) functions that more than one client
//! needs: the codegen passes (`fuse`, `plan-memory`, `lower-to-loops`), the
//! host program every native backend runs, and the kernel emitters.
//!
//! They live with the dialect, not with any one client, so that a pass and
//! the runtime never import each other, and every backend draws the same
//! conclusion from the same IR: which buffer a value lives in
//! ([`root_of`]), what a store to it may clobber ([`alias_class`]), which
//! loop of a kernel may be split across threads ([`split_loop`]) or merged
//! by fusion ([`outer_parallel_loop`]), how many iterations a loop runs
//! ([`Bounds::trips`], saturating), how much work a kernel does
//! ([`kernel_work`]) and what it costs in flops and bytes ([`kernel_cost`]).
//!
//! Invariants: every function here reads the IR and never changes it; on IR
//! the verifier accepted none panics, and on hostile bounds (the whole i64
//! range) the counts saturate instead of overflowing.

use super::{LoopOp, ScalarOp};
use crate::func::{FuncOp, FuncView, LAYOUT};
use aot_ir::*;

aot_ir::op_handle!(
    /// `loop.for`: a counted loop with static bounds.
    pub ForOp = "loop.for"
);

/// The static bounds of a `loop.for`: `lower..upper` by `step`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bounds {
    pub lower: i64,
    pub upper: i64,
    pub step: i64,
}

impl Bounds {
    /// Iterations of the loop (saturating: bounds may span the whole i64
    /// range).
    pub fn trips(&self) -> i64 {
        trips(self.lower, self.upper, self.step)
    }
}

impl ForOp {
    /// The loop's bounds. The verifier requires `lower` and `upper` and a
    /// positive `step`; an absent step is 1.
    pub fn bounds(self, ctx: &Context) -> Bounds {
        Bounds {
            lower: ctx.attr_i64(self.0, "lower").unwrap_or(0),
            upper: ctx.attr_i64(self.0, "upper").unwrap_or(0),
            step: ctx.attr_i64(self.0, "step").unwrap_or(1),
        }
    }

    /// Whether the loop's iterations are independent (`parallel`).
    pub fn is_parallel(self, ctx: &Context) -> bool {
        ctx.has_attr(self.0, "parallel")
    }
}

/// Iterations of `for lo to hi step st` (saturating: bounds may span the
/// whole i64 range; a non-positive step counts as 1).
pub fn trips(lo: i64, hi: i64, st: i64) -> i64 {
    let st = st.max(1) as i128;
    let t = ((hi as i128 - lo as i128).max(0) + st - 1) / st;
    i64::try_from(t).unwrap_or(i64::MAX)
}

/// The memref type of `v`, if it is a buffer.
pub fn memref(ctx: &Context, v: Value) -> Option<&MemRefType> {
    match ctx.type_data(ctx.value_type(v)) {
        TypeData::MemRef(m) => Some(m),
        _ => None,
    }
}

/// The allocation (or argument, or global) a buffer value lives in.
pub fn root_of(ctx: &Context, mut v: Value) -> Value {
    while let Some(op) = ctx.defining_op(v) {
        match LoopOp::of(ctx, op) {
            Some(LoopOp::View) => v = ctx.operand(op, 0),
            Some(LoopOp::Rebind) => v = ctx.operand(op, 1),
            _ => break,
        }
    }
    v
}

/// What a write to `root` may clobber. Arguments laid out in one declared
/// storage (`aot.layout` with the same `storage`) can overlap, so they are
/// one class, named by the first of them. Any other argument, like any
/// allocation, is its own: the runtime's guards reject a call in which an
/// argument the function writes overlaps an argument it was compiled as
/// independent of, and arguments nothing writes cannot clobber anything.
pub fn alias_class(ctx: &Context, root: Value) -> Value {
    if let ValueDef::BlockArg { block, index } = ctx.value_def(root) {
        if let Some(func) = ctx.block_parent_op(block).filter(|&o| ctx.isa::<FuncOp>(o)) {
            let f = FuncView { op: func };
            let storage = |i: usize| {
                f.arg_attr(ctx, i, LAYOUT).and_then(|l| ctx.attr_field(l, "storage")).and_then(|s| ctx.attr_as_i64(s))
            };
            let Some(s) = storage(index as usize) else { return root };
            let first = (0..ctx.block_args(block).len()).find(|&i| storage(i) == Some(s));
            return first.map_or(root, |i| ctx.block_args(block)[i]);
        }
    }
    root
}

/// Work estimate of a kernel: element operations executed (`u64::MAX`
/// when that overflows, or when a loop runs to a symbolic bound).
pub fn kernel_work(ctx: &Context, kernel: Op) -> u64 {
    kernel_work_expr(ctx, kernel).filter(|&w| !sym::is_symbolic(w)).map_or(u64::MAX, |w| w.max(0) as u64)
}

/// [`kernel_work`] as a size expression (per loop, its trip count times its
/// body's work, at least 1; summed over the kernel), to evaluate per call
/// where loops run to symbolic bounds; `None` on overflow.
pub fn kernel_work_expr(ctx: &Context, kernel: Op) -> Option<i64> {
    fn region_work(ctx: &Context, r: Region) -> Option<i64> {
        let mut w = 0i64;
        for &b in ctx.region_blocks(r) {
            for o in ctx.block_ops(b) {
                w = sym::add(w, op_work(ctx, o)?).ok()?;
            }
        }
        Some(w)
    }
    fn op_work(ctx: &Context, o: Op) -> Option<i64> {
        let Some(l) = ctx.dyn_cast::<ForOp>(o) else { return Some(1) };
        let b = l.bounds(ctx);
        // (Over a symbolic bound, ceil((upper - lower) / step) as an
        // expression.)
        let trips = if sym::is_symbolic(b.upper) {
            // (Checked: the lower bound and step are the user's, and may
            // be at i64's ends.)
            let pad = b.step.checked_sub(1)?.checked_sub(b.lower)?;
            sym::floordiv(sym::add(b.upper, pad).ok()?, b.step.max(1)).ok()?
        } else {
            b.trips()
        };
        let mut inner = 0i64;
        for &r in ctx.regions(o) {
            inner = sym::add(inner, region_work(ctx, r)?).ok()?;
        }
        let inner = if sym::is_symbolic(inner) { inner } else { inner.max(1) };
        sym::mul(trips, inner).ok()
    }
    let mut w = 0i64;
    for &r in ctx.regions(kernel) {
        w = sym::add(w, region_work(ctx, r)?).ok()?;
    }
    Some(w)
}

/// The static cost of a kernel, for profiles and rooflines.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelCost {
    /// Floating-point operations executed: one per float arithmetic or math
    /// op (compares, selects and casts move values, they are not counted).
    pub flops: u64,
    /// Bytes moved between memory and the core, under the model that a
    /// kernel reads (and writes) each element of an operand at most once:
    /// per buffer, `min(accesses, elements)` times the element size, reads
    /// and writes apart. Repeated reads of a broadcast or a window count
    /// once per element, as caches serve them.
    pub bytes: u64,
}

/// The [`KernelCost`] of a `loop.kernel` (saturating on hostile bounds).
pub fn kernel_cost(ctx: &Context, kernel: Op) -> KernelCost {
    // Per buffer value: (reads, writes) executed.
    fn walk(ctx: &Context, r: Region, mult: u64, flops: &mut u64, access: &mut Vec<(Value, u64, u64)>) {
        for &b in ctx.region_blocks(r) {
            for o in ctx.block_ops(b) {
                let inner = match ctx.dyn_cast::<ForOp>(o) {
                    Some(l) => mult.saturating_mul(l.bounds(ctx).trips().max(0) as u64),
                    None => mult,
                };
                match LoopOp::of(ctx, o) {
                    Some(LoopOp::Scalar(s)) => {
                        let float = ctx.num_results(o) == 1
                            && matches!(ctx.type_data(ctx.value_type(ctx.result(o, 0))), TypeData::Elem(e) if e.is_float());
                        let counted = matches!(s, ScalarOp::Binary(_) | ScalarOp::Unary(_) | ScalarOp::Math(_));
                        if float && counted {
                            *flops = flops.saturating_add(mult);
                        } else if float && s == ScalarOp::Fma {
                            *flops = flops.saturating_add(mult.saturating_mul(2));
                        }
                    }
                    Some(kind @ (LoopOp::Load | LoopOp::Store)) => {
                        let buf = ctx.operand(o, if kind == LoopOp::Load { 0 } else { 1 });
                        let at = match access.iter().position(|a| a.0 == buf) {
                            Some(i) => i,
                            None => {
                                access.push((buf, 0, 0));
                                access.len() - 1
                            }
                        };
                        let slot = if kind == LoopOp::Load { &mut access[at].1 } else { &mut access[at].2 };
                        *slot = slot.saturating_add(mult);
                    }
                    _ => {}
                }
                for &inner_region in ctx.regions(o) {
                    walk(ctx, inner_region, inner, flops, access);
                }
            }
        }
    }
    let (mut flops, mut access) = (0u64, Vec::new());
    for &r in ctx.regions(kernel) {
        walk(ctx, r, 1, &mut flops, &mut access);
    }
    let mut bytes = 0u64;
    for (buf, reads, writes) in access {
        let Some(m) = memref(ctx, buf) else { continue };
        let numel = aot_ir::size::checked_numel(&m.shape).map_or(u64::MAX, |n| n.max(0) as u64);
        let size = m.elem.byte_size() as u64;
        bytes = bytes
            .saturating_add(reads.min(numel).saturating_mul(size))
            .saturating_add(writes.min(numel).saturating_mul(size));
    }
    KernelCost { flops, bytes }
}

/// The outermost loop a kernel may be split along: the body is one parallel
/// `loop.for` after a scalar prologue that each chunk runs again: constants,
/// arithmetic, checks, and loads of buffers the kernel never writes (so a
/// chunk cannot see another's stores). The Philox seed and offset loads and
/// their check are such a prologue.
pub fn split_loop(ctx: &Context, kernel: Op) -> Option<ForOp> {
    let body = ctx.single_block(kernel, 0)?;
    let mut found = None;
    let mut loads = Vec::new();
    for o in ctx.block_ops(body) {
        match LoopOp::of(ctx, o) {
            Some(LoopOp::For) if ctx.has_attr(o, "parallel") && ctx.num_results(o) == 0 && found.is_none() => {
                found = Some(ForOp(o))
            }
            Some(LoopOp::Yield | LoopOp::Constant) => {}
            Some(LoopOp::Scalar(_) | LoopOp::Assert) if found.is_none() => {}
            Some(LoopOp::Load) if found.is_none() => loads.push(o),
            _ => return None,
        }
    }
    if !loads.is_empty() {
        // Buffers are compared by what a write may clobber (arguments
        // declared in one storage are one class).
        let class = |buf: Value| {
            let i = ctx.block_args(body).iter().position(|&b| b == buf)?;
            Some(alias_class(ctx, root_of(ctx, ctx.operand(kernel, i))))
        };
        let mut written = Vec::new();
        let mut unknown = false;
        ctx.walk_pre(kernel, &mut |o| {
            if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
                match class(ctx.operand(o, 1)) {
                    Some(c) => written.push(c),
                    None => unknown = true,
                }
            }
        });
        if unknown || loads.iter().any(|&l| class(ctx.operand(l, 0)).is_none_or(|c| written.contains(&c))) {
            return None;
        }
    }
    found
}

/// The outermost parallel loop of a kernel when nothing but constants
/// precedes it (what loop fusion may merge).
pub fn outer_parallel_loop(ctx: &Context, kernel: Op) -> Option<ForOp> {
    let body = ctx.single_block(kernel, 0)?;
    let first = ctx.block_ops(body).find(|&o| LoopOp::of(ctx, o) != Some(LoopOp::Constant));
    split_loop(ctx, kernel).filter(|l| first == Some(l.0))
}

/// The message of `loop.assert` `op` as a located error (`FILE:LINE:COL:
/// error: MSG`), the form eager mode prints, where the op has a file
/// location; every native backend reports a failed check with it.
pub fn assert_message(ctx: &Context, op: Op) -> String {
    let msg = ctx.attr_str(op, "msg").unwrap_or("a check failed");
    match ctx.loc_file_line_col(ctx.op_loc(op)) {
        Some((file, line, col)) => format!("{file}:{line}:{col}: error: {msg}"),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trips_saturate_and_round_up() {
        assert_eq!(trips(0, 10, 3), 4);
        assert_eq!(trips(5, 5, 1), 0);
        assert_eq!(trips(7, 3, 1), 0);
        assert_eq!(trips(i64::MIN, i64::MAX, 1), i64::MAX);
        assert_eq!(trips(0, 4, 0), 4);
        let b = Bounds { lower: -2, upper: 2, step: 2 };
        assert_eq!(b.trips(), 2);
    }
}
