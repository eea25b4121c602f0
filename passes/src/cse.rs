//! `cse`: common subexpression elimination.
//!
//! Two ops are equivalent when they have the same name, operands (in order,
//! or as a multiset for commutative ops), attributes and result types, and
//! are side-effect free (the `Pure` trait) without regions. The pass walks
//! each block in order with a scoped hash table: an op is replaced by an
//! equivalent op that dominates it (earlier in the block or in an enclosing
//! block); the scope of a region of an `IsolatedFromAbove` op starts empty.
//! Linear in the number of ops.

use crate::purity::is_removable_pure;
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

#[derive(PartialEq, Eq, Hash)]
struct Key {
    name: OpName,
    operands: SmallVec<[Value; 4]>,
    attrs: SmallVec<[NamedAttr; 2]>,
    types: SmallVec<[Type; 2]>,
}

struct Cse;

fn key(ctx: &Context, op: Op) -> Key {
    let mut operands: SmallVec<[Value; 4]> = ctx.operands(op).collect();
    if ctx.has_trait(op, Traits::COMMUTATIVE) {
        operands.sort();
    }
    Key {
        name: ctx.op_name_of(op),
        operands,
        attrs: ctx.attrs(op).iter().copied().collect(),
        types: ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect(),
    }
}

fn simplify_region(rw: &mut Rewriter<'_>, region: Region, scopes: &mut Vec<FxHashMap<Key, Op>>, count: &mut u64) {
    for b in rw.region_blocks(region).to_vec() {
        scopes.push(FxHashMap::default());
        let ops: Vec<Op> = rw.block_ops(b).collect();
        for op in ops {
            let candidate = rw.regions(op).is_empty() && rw.num_results(op) > 0 && is_removable_pure(rw, op);
            if candidate {
                let k = key(rw, op);
                if let Some(&existing) = scopes.iter().rev().find_map(|s| s.get(&k)) {
                    let new: SmallVec<[Value; 2]> = rw.results(existing).iter().copied().collect();
                    rw.replace_op(op, &new);
                    *count += 1;
                    continue;
                }
                scopes.last_mut().expect("scope").insert(k, op);
            }
            let regions = rw.regions(op).to_vec();
            if regions.is_empty() {
                continue;
            }
            if rw.has_trait(op, Traits::ISOLATED_FROM_ABOVE) {
                let mut fresh = Vec::new();
                for r in regions {
                    simplify_region(rw, r, &mut fresh, count);
                }
            } else {
                for r in regions {
                    simplify_region(rw, r, scopes, count);
                }
            }
        }
        scopes.pop();
    }
}

/// Eliminates common subexpressions in the regions of `op`; returns how many.
pub fn eliminate_common_subexpressions(rw: &mut Rewriter<'_>, op: Op) -> u64 {
    let mut count = 0;
    let mut scopes = Vec::new();
    for r in rw.regions(op).to_vec() {
        simplify_region(rw, r, &mut scopes, &mut count);
    }
    count
}

impl Pass for Cse {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let mut rw = Rewriter::new(ctx);
        let count = eliminate_common_subexpressions(&mut rw, op);
        st.add_stat("num-cse'd", count);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "cse",
        name: "CSE",
        summary: "Eliminate common sub-expressions",
        description: "Replaces a side-effect-free op by an equivalent op that dominates it. Equivalent means same \
name, operands (as a multiset for commutative ops), attributes and result types. Runs on any op and on every \
region nested in it; regions of isolated ops start with an empty scope.",
        anchor: None,
        options: &[],
        statistics: &[StatisticSpec { name: "num-cse'd", description: "Number of operations CSE'd" }],
        create: |_: &PassOptions| Ok(Box::new(Cse)),
    }
}
