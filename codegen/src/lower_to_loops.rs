//! `lower-to-loops`: rewrites a value-semantics function over tensors into
//! the same function over `memref` buffers, whose body allocates buffers,
//! takes views and runs `loop.kernel`s / `loop.matmul`s.
//!
//! Each op lowers through its own interface: [`Pointwise`] ops get a kernel
//! built around their scalar formula, every other op implements [`Lower`].
//! Arguments become buffers with the layout the calling convention gives
//! them in their storage (`aot.layout`, which the runtime's guards enforce),
//! contiguous otherwise; results may be views. The trailing metadata mutations a graph keeps on its
//! arguments (`set_`, `resize_`, `as_strided_`, found through
//! `MetadataMutationInterface`) become `loop.rebind` / `loop.resize`, and
//! a trailing `mut.copy_` a copy kernel into the argument's buffer.
//! Invariant: after the pass no value of the function has a tensor type.
//!
//! A function with symbolic sizes (`aot_ir::sym`) lowers as far as its ops
//! can keep sizes as expressions: elementwise ops (their kernels loop to
//! symbolic upper bounds over buffers with symbolic shapes and strides),
//! ops whose lowering is a `LowerSymbolic` (it refuses what it cannot
//! take itself), and any op whose own operands, results and attributes
//! are static. Every other op with a symbolic size is refused with its
//! name, so that no lowering computes with an expression's id as if it
//! were a number; the ops join as their lowerings learn symbolic sizes
//! (docs/dynamic-shapes.md).

use aot_dialects::func::{FuncOp, FuncView, ReturnOp, LAYOUT};
use aot_dialects::lowering::{
    lower_pointwise, memref, memref_type, row_major, Lower, LowerCtx, LowerSymbolic, Pointwise,
};
use aot_dialects::r#loop::analysis;
use aot_dialects::r#loop::{self, LoopOp};
use aot_dialects::r#mut::{MetadataKind, MetadataMutationInterface};
use aot_dialects::view::{Layout, RESHAPE_NEEDS_COPY};
use aot_ir::pass::{OptionKind, Pass, PassInfo, PassOptionSpec, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use rustc_hash::FxHashMap;

struct LowerToLoops {
    host_kernels: bool,
}

/// Lowers one function in place.
pub fn lower_function(ctx: &mut Context, func: Op) -> Result<u64, Diagnostic> {
    lower_function_for(ctx, func, true)
}

/// [`lower_function`] for a target that runs the host's library kernels
/// (`loop.attention`) or not (`host_kernels`: a device target lowers those
/// ops to kernels and GEMMs it runs itself).
pub fn lower_function_for(ctx: &mut Context, func: Op, host_kernels: bool) -> Result<u64, Diagnostic> {
    let f = FuncView { op: func };
    let Some(entry) = f.entry_block(ctx) else { return Ok(0) };
    // (The function's symbol facts, parsed once for every op's lowering.)
    let declared = aot_ir::sym::Facts::enclosing(ctx, func);
    let facts = declared.as_ref().unwrap_or(aot_ir::sym::Facts::defaults());
    let mut rw = Rewriter::new(ctx);
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    // Arguments: their layout in their storage when the calling convention
    // gives one (`aot.layout`; the runtime guards it), else contiguous.
    for (i, &a) in rw.block_args(entry).to_vec().iter().enumerate() {
        if let Some(t) = rw.value_tensor(a).cloned() {
            let (strides, offset) = match f.arg_attr(&rw, i, LAYOUT) {
                Some(l) => {
                    let offset = rw.attr_field(l, "offset").and_then(|x| rw.attr_as_i64(x)).unwrap_or(0);
                    let strides = rw.attr_field(l, "strides").and_then(|x| rw.attr_as_i64_list(x));
                    match strides {
                        Some(s) if s.len() == t.shape.len() => (s, offset),
                        _ => {
                            return Err(Diagnostic::op_error(
                                &rw,
                                func,
                                format!("argument {i}: malformed 'aot.layout'"),
                            ))
                        }
                    }
                }
                None => (row_major(&t.shape).to_vec(), 0),
            };
            let m = memref_type(&mut rw, &t.shape, t.elem, &strides, offset);
            rw.set_value_type(a, m);
        }
        map.insert(a, a);
    }
    let ops: Vec<Op> = rw.block_ops(entry).collect();
    // Where each value is last used, and then, per allocation, the last use
    // of any value lowered into it (a view shares its operand's buffer):
    // an operand whose allocation is not used after an op may take its
    // result in place.
    let mut last_use: FxHashMap<Value, usize> = FxHashMap::default();
    for (p, &op) in ops.iter().enumerate() {
        for v in rw.operands(op) {
            last_use.insert(v, p);
        }
    }
    let mut alloc_last_use: FxHashMap<Value, usize> = FxHashMap::default();
    let mut kernels = 0usize;
    let mut lowered = 0u64;
    for (p, &op) in ops.iter().enumerate() {
        let name = rw.op_name(op).to_string();
        let err = |rw: &Rewriter<'_>, m: String| Diagnostic::op_error(rw, op, m);
        if rw.isa::<ReturnOp>(op) {
            let vals: Vec<Value> = rw.operands(op).map(|v| map.get(&v).copied().unwrap_or(v)).collect();
            rw.set_operands(op, &vals);
            continue;
        }
        let operands: Vec<Value> = rw
            .operands(op)
            .map(|v| map.get(&v).copied().ok_or_else(|| err(&rw, "operand was not lowered".into())))
            .collect::<Result<_, _>>()?;
        let def = rw.op_def(op).ok_or_else(|| err(&rw, format!("'{name}' is not registered")))?;
        // (An op whose own sizes are static lowers as in a static
        // function, whatever the rest of the function's sizes.)
        let symbolic_ok = def.interface::<Pointwise>().is_some() || def.interface::<LowerSymbolic>().is_some();
        if !symbolic_ok && aot_ir::sym::first_symbolic_use(&rw, op).is_some() {
            return Err(err(
                &rw,
                "does not lower to loops with symbolic sizes yet (see docs/dynamic-shapes.md for the ops that \
do)"
                .to_string(),
            ));
        }
        rw.set_insertion_point(InsertPoint::Before(op));
        rw.set_loc(rw.op_loc(op));
        let results: Vec<Option<Value>> = if let Some(m) = def.interface::<MetadataMutationInterface>() {
            vec![Some(metadata_mutation(&mut rw, op, &m.kind, &operands).map_err(|m| err(&rw, m))?)]
        } else {
            let reusable = reusable_operands(&rw, &operands, &alloc_last_use, p);
            let mut lc = LowerCtx {
                rw: &mut rw,
                op,
                operands,
                results: Vec::new(),
                kernels: &mut kernels,
                reusable,
                host_kernels,
                facts,
            };
            let r = if let Some(p) = def.interface::<Pointwise>() {
                lower_pointwise(&mut lc, p)
            } else if let Some(l) = def.interface::<Lower>() {
                (l.0)(&mut lc)
            } else if let Some(l) = def.interface::<LowerSymbolic>() {
                (l.0)(&mut lc)
            } else {
                Err(format!("'{name}' cannot be lowered to loops (no lowering; is the graph functionalized?)"))
            };
            r.map_err(|m| err(lc.rw, m))?;
            lc.results
        };
        let num = rw.num_results(op);
        for i in 0..num {
            let r = rw.result(op, i);
            // (A lowering may skip a result nothing uses: `LowerCtx::result_used`.)
            let produced = results.get(i).copied().flatten();
            if produced.is_none() && rw.uses(r).next().is_none() {
                continue;
            }
            let v =
                produced.ok_or_else(|| err(&rw, format!("lowering of '{name}' produced no buffer for result {i}")))?;
            map.insert(r, v);
            let root = analysis::root_of(&rw, v);
            if rw.defining_op(root).is_some_and(|d| LoopOp::of(&rw, d) == Some(LoopOp::Alloc)) {
                let last = last_use.get(&r).copied().unwrap_or(p);
                let e = alloc_last_use.entry(root).or_insert(last);
                *e = (*e).max(last);
            }
        }
        lowered += 1;
    }
    // The tensor ops are dead now (their users were lowered too).
    for &op in ops.iter().rev() {
        if !rw.isa::<ReturnOp>(op) {
            rw.erase_op(op);
        }
    }
    f.sync_function_type(&mut rw);
    Ok(lowered)
}

/// Per operand of the op at position `pos`: whether its buffer is a whole
/// allocation (not a view of one) that no value used after `pos` lives in
/// and that no other operand reads.
fn reusable_operands(
    rw: &Rewriter<'_>,
    operands: &[Value],
    alloc_last_use: &FxHashMap<Value, usize>,
    pos: usize,
) -> Vec<bool> {
    let roots: Vec<Value> = operands.iter().map(|&b| analysis::root_of(rw, b)).collect();
    operands
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            roots[i] == b
                && alloc_last_use.get(&b).is_some_and(|&last| last <= pos)
                && roots.iter().enumerate().all(|(j, &r)| j == i || r != b)
        })
        .collect()
}

fn layout_of(m: &MemRefType) -> Layout {
    let (strides, offset) = r#loop::layout(m);
    Layout { sizes: m.shape.clone(), strides, offset }
}

/// The function argument a value stands for (through earlier rebinds).
fn argument_of(rw: &Rewriter<'_>, v: Value) -> Option<Value> {
    match rw.value_def(v) {
        ValueDef::BlockArg { .. } => Some(v),
        ValueDef::Result { op, .. } if [r#loop::REBIND, r#loop::RESIZE].contains(&rw.op_name(op)) => {
            Some(rw.operand(op, 0))
        }
        _ => None,
    }
}

fn metadata_mutation(rw: &mut Rewriter<'_>, op: Op, kind: &MetadataKind, operands: &[Value]) -> Result<Value, String> {
    let cur = operands[0];
    let arg =
        argument_of(rw, cur).ok_or("a metadata mutation of a value that is not an argument cannot be compiled")?;
    let m = memref(rw, cur).cloned().ok_or("not a buffer")?;
    match kind {
        MetadataKind::Set => {
            let src = operands[1];
            let t = rw.value_type(src);
            Ok(rw.build_typed1(r#loop::REBIND, &[arg, src], &[], t))
        }
        MetadataKind::Relayout { layout, .. } => {
            let ls = layout(&AttrView::of_op(rw, op), &layout_of(&m)).map_err(|e| {
                if e == RESHAPE_NEEDS_COPY {
                    "an in-place reshape that needs a copy".to_string()
                } else {
                    e
                }
            })?;
            let l = ls.into_iter().next().ok_or("layout rule returned nothing")?;
            let t = memref_type(rw, &l.sizes, m.elem, &l.strides, l.offset);
            let stride = rw.i64_list_attr(&l.strides);
            Ok(rw.build_typed1(r#loop::REBIND, &[arg, cur], &[("stride", stride)], t))
        }
        MetadataKind::Resize => {
            let size = rw.attr_i64_list(op, "size").ok_or("resize_ needs 'size'")?;
            let (_, offset) = r#loop::layout(&m);
            let numel = offset + size.iter().product::<i64>();
            let t = memref_type(rw, &size, m.elem, &row_major(&size), offset);
            let n = rw.i64_attr(numel);
            Ok(rw.build_typed1(r#loop::RESIZE, &[arg], &[("numel", n)], t))
        }
    }
}

impl Pass for LowerToLoops {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let host_kernels = self.host_kernels;
        let f = FuncView { op };
        // Private functions are helpers functionalize inlined.
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        // Sizes are bounded before any constant or loop bound is emitted.
        aot_ir::size::check_value_sizes(ctx, op)?;
        let n = lower_function_for(ctx, op, host_kernels)?;
        st.add_stat("num-lowered", n);
        let mut k = 0;
        ctx.walk_pre(op, &mut |o| {
            if LoopOp::of(ctx, o) == Some(LoopOp::Kernel) {
                k += 1;
            }
        });
        st.add_stat("num-kernels", k);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "lower-to-loops",
        name: "LowerToLoops",
        summary: "Lower a pure tensor graph to loop kernels over buffers",
        description: "Rewrites a value-semantics function over tensors into the same function over memref buffers: \
every pure tensor, view, scatter and rng.philox_* op lowers through its own interface (a scalar formula for \
elementwise ops, a kernel builder otherwise) into loop.alloc, loop.view (views and broadcasts are strided \
layouts, never copies), loop.kernel, loop.matmul (f32/f64 matrix products go to an external GEMM) and, unless host-kernels=false, \
loop.attention and loop.attention_grad (f32 attention as the host's fused kernels). \
Trailing in-graph mutations of arguments become copy kernels, loop.rebind and loop.resize.",
        anchor: Some(FuncOp::NAME),
        options: &[PassOptionSpec {
            name: "host-kernels",
            kind: OptionKind::Bool,
            default: "true",
            description: "Lower ops the host runs as library kernels (scaled dot-product attention) to them; \
false lowers them to loop kernels and GEMMs (for a device target)",
        }],
        statistics: &[
            StatisticSpec { name: "num-lowered", description: "Tensor-level ops lowered" },
            StatisticSpec { name: "num-kernels", description: "Kernels in the lowered function" },
        ],
        create: |o: &PassOptions| Ok(Box::new(LowerToLoops { host_kernels: o.get_bool("host-kernels") })),
    }
}
