//! The joint function as the partitioner sees it: ops in order, which of
//! them the forward needs, which depend on tangents, which the gradients
//! need, and the sizes of values. Invariants: `ops` is the function body in
//! program order without the return; per-op flags are indexed like `ops`.

use crate::joint::{JointInfo, TANGENT};
use aot_dialects::autodiff::{op_class, OpClass};
use aot_dialects::func::FuncView;
use aot_dialects::view::{view_layouts, Layout};
use aot_ir::*;
use rustc_hash::{FxHashMap, FxHashSet};

pub struct JointGraph {
    pub func: Op,
    pub ret: Op,
    pub ops: Vec<Op>,
    pub pos: FxHashMap<Op, usize>,
    pub args: Vec<Value>,
    /// Arguments that are tangents, and the others (primals and RNG state).
    pub tangents: Vec<Value>,
    pub primals: Vec<Value>,
    pub num_forward: usize,
    pub fw_outputs: Vec<Value>,
    pub grads: Vec<Value>,
    /// Needed by the forward outputs or a trailing mutation.
    pub fw_required: Vec<bool>,
    /// Depends on a tangent.
    pub tangent_dep: Vec<bool>,
    /// An ancestor of a gradient.
    pub for_grads: Vec<bool>,
    /// The ops using each value.
    pub users: FxHashMap<Value, Vec<usize>>,
    /// The value whose storage each view result shares (absent for values
    /// with a storage of their own). Layouts are followed from contiguous
    /// arguments, so a reshape that must copy owns its storage.
    pub storage_of: FxHashMap<Value, Value>,
}

/// Which values are views sharing another value's storage, following the
/// view layout rules from contiguous arguments and fresh op results.
fn storage_roots(ctx: &Context, args: &[Value], ops: &[Op]) -> FxHashMap<Value, Value> {
    let mut layout: FxHashMap<Value, Layout> = FxHashMap::default();
    let mut root: FxHashMap<Value, Value> = FxHashMap::default();
    let contiguous = |v: Value| ctx.value_tensor(v).map(|t| Layout::contiguous(&t.shape));
    for &a in args {
        if let Some(l) = contiguous(a) {
            layout.insert(a, l);
        }
    }
    for &op in ops {
        let aliases = match (op_class(ctx, op), ctx.operands(op).next()) {
            (OpClass::View, Some(x)) if ctx.op_def(op).is_some_and(|d| !d.has(Traits::INPLACE)) => {
                layout.get(&x).and_then(|l| view_layouts(ctx, op, l).ok()).map(|ls| (x, ls))
            }
            _ => None,
        };
        match aliases {
            Some((x, ls)) if ls.len() == ctx.num_results(op) => {
                let r0 = root.get(&x).copied().unwrap_or(x);
                for (&r, l) in ctx.results(op).iter().zip(ls) {
                    root.insert(r, r0);
                    layout.insert(r, l);
                }
            }
            _ => {
                for &r in ctx.results(op) {
                    if let Some(l) = contiguous(r) {
                        layout.insert(r, l);
                    }
                }
            }
        }
    }
    root
}

/// Bytes of a tensor value (symbolic sizes at `aot_ir::sym::SIZE_HINT`:
/// the memory model compares byte counts that are expressions there).
pub fn bytes(ctx: &Context, v: Value) -> u64 {
    ctx.value_tensor(v).map_or(0, |t| (t.numel_at_hint().max(0) as u64).saturating_mul(t.elem.byte_size() as u64))
}

impl JointGraph {
    pub fn new(ctx: &Context, func: Op, info: &JointInfo) -> Result<JointGraph, String> {
        let f = FuncView::new(ctx, func).ok_or("not a function")?;
        let entry = f.entry_block(ctx).ok_or("a declaration")?;
        let ret = f.return_op(ctx).ok_or("no return")?;
        let ops: Vec<Op> = ctx.block_ops(entry).filter(|&o| o != ret).collect();
        if let Some(&o) = ops.iter().find(|&&o| !ctx.regions(o).is_empty()) {
            return Err(format!("'{}' has regions; the partitioner handles straight-line functions", ctx.op_name(o)));
        }
        let pos: FxHashMap<Op, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
        let args: Vec<Value> = f.args(ctx).to_vec();
        let (mut tangents, mut primals) = (Vec::new(), Vec::new());
        for (i, &a) in args.iter().enumerate() {
            if f.arg_attr(ctx, i, TANGENT).is_some() {
                tangents.push(a);
            } else {
                primals.push(a);
            }
        }
        let returns: Vec<Value> = ctx.operands(ret).collect();
        if returns.len() != info.num_forward + info.grads.len() {
            return Err(format!(
                "returns {} values, but aot.joint describes {} forward returns and {} gradients",
                returns.len(),
                info.num_forward,
                info.grads.len()
            ));
        }
        let fw_outputs = returns[..info.num_forward].to_vec();
        let grads = returns[info.num_forward..].to_vec();
        let mut users: FxHashMap<Value, Vec<usize>> = FxHashMap::default();
        for (i, &o) in ops.iter().enumerate() {
            for v in ctx.operands(o) {
                let u = users.entry(v).or_default();
                if u.last() != Some(&i) {
                    u.push(i);
                }
            }
        }
        let def = |v: Value| ctx.defining_op(v).and_then(|o| pos.get(&o).copied());
        // Backward reachability over operands.
        let ancestors = |roots: &mut Vec<usize>| {
            let mut seen = vec![false; ops.len()];
            while let Some(i) = roots.pop() {
                if std::mem::replace(&mut seen[i], true) {
                    continue;
                }
                roots.extend(ctx.operands(ops[i]).filter_map(def));
            }
            seen
        };
        let mut roots: Vec<usize> = fw_outputs.iter().filter_map(|&v| def(v)).collect();
        // In-graph input mutations are the forward's side effects.
        roots.extend((0..ops.len()).filter(|&i| {
            ctx.op_def(ops[i]).is_some_and(|d| d.has(Traits::INPLACE) || d.has(Traits::METADATA_MUTATION))
                || ctx.num_results(ops[i]) == 0
        }));
        let fw_required = ancestors(&mut roots);
        let mut roots: Vec<usize> = grads.iter().filter_map(|&v| def(v)).collect();
        let for_grads = ancestors(&mut roots);
        let tset: FxHashSet<Value> = tangents.iter().copied().collect();
        let mut tangent_dep = vec![false; ops.len()];
        for (i, &o) in ops.iter().enumerate() {
            tangent_dep[i] = ctx.operands(o).any(|v| tset.contains(&v) || def(v).is_some_and(|j| tangent_dep[j]));
        }
        let storage_of = storage_roots(ctx, &args, &ops);
        Ok(JointGraph {
            func,
            ret,
            ops,
            pos,
            args,
            tangents,
            primals,
            num_forward: info.num_forward,
            fw_outputs,
            grads,
            fw_required,
            tangent_dep,
            for_grads,
            users,
            storage_of,
        })
    }

    /// The value owning `v`'s storage (`v` itself unless it is a view).
    pub fn storage(&self, v: Value) -> Value {
        self.storage_of.get(&v).copied().unwrap_or(v)
    }

    /// The op defining `v` (None for arguments).
    pub fn def(&self, ctx: &Context, v: Value) -> Option<usize> {
        ctx.defining_op(v).and_then(|o| self.pos.get(&o).copied())
    }

    pub fn is_tangent(&self, v: Value) -> bool {
        self.tangents.contains(&v)
    }

    /// The ops the backward computes when `saved` (and the tangents) are
    /// its inputs: every ancestor of a gradient not cut off by them. A
    /// primal reached this way was not saved: an error.
    pub fn backward_ops(&self, ctx: &Context, saved: &FxHashSet<Value>) -> Result<Vec<bool>, String> {
        let mut in_bw = vec![false; self.ops.len()];
        let mut stack: Vec<Value> = self.grads.clone();
        let mut seen: FxHashSet<Value> = FxHashSet::default();
        while let Some(v) = stack.pop() {
            if !seen.insert(v) || saved.contains(&v) || self.is_tangent(v) {
                continue;
            }
            match self.def(ctx, v) {
                Some(i) => {
                    if !std::mem::replace(&mut in_bw[i], true) {
                        stack.extend(ctx.operands(self.ops[i]));
                    }
                }
                None => return Err("the backward needs a primal that is not saved".into()),
            }
        }
        Ok(in_bw)
    }

    /// The values the forward must compute and hand over under `saved`.
    pub fn forward_ops(&self, ctx: &Context, saved: &[Value]) -> Vec<bool> {
        let mut need = self.fw_required.clone();
        let mut stack: Vec<usize> = saved.iter().filter_map(|&v| self.def(ctx, v)).collect();
        while let Some(i) = stack.pop() {
            if !need[i] {
                need[i] = true;
            }
            for v in ctx.operands(self.ops[i]) {
                if let Some(j) = self.def(ctx, v) {
                    if !need[j] {
                        need[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        need
    }
}
