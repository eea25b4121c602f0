//! Common subexpression elimination over any op's regions, the transform
//! behind the `cse` pass (and reused by codegen inside kernels).
//!
//! Two ops are equivalent when they have the same name, operands (in order,
//! or as a multiset for commutative ops), attributes and result types. An op
//! without regions is merged into an equivalent op that dominates it
//! (earlier in its block or in an enclosing block) when it is
//! - effect-free (see [`crate::effects`]), or
//! - a pure reader: its only effects are reads of memory that no op of the
//!   enclosing isolated scope writes, as far as an [`AliasOracle`] can tell
//!   (a scope holding an op with unknown effects merges no readers).
//!
//! The walk keeps a stack of hash tables, one per block; the regions of an
//! `IsolatedFromAbove` op start with an empty stack and their own writes.
//! Linear in the number of ops.

use crate::effects::{self, Effect};
use crate::{Context, NamedAttr, Op, OpName, Region, Rewriter, Traits, Type, Value, ValueDef};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Which memory values may share: asked only about values some op reads
/// and some op writes in one scope.
pub trait AliasOracle {
    /// Whether `a` and `b` may refer to overlapping memory.
    fn may_alias(&self, ctx: &Context, a: Value, b: Value) -> bool {
        default_may_alias(ctx, a, b)
    }
}

/// What the IR alone shows: equal values alias; an allocation is distinct
/// from any other allocation and from the arguments of an isolated region;
/// anything else may alias.
pub fn default_may_alias(ctx: &Context, a: Value, b: Value) -> bool {
    if a == b {
        return true;
    }
    let fresh = |v| effects::is_allocation(ctx, v);
    let isolated_arg = |v| match ctx.value_def(v) {
        ValueDef::BlockArg { block, .. } => {
            ctx.block_parent_op(block).is_some_and(|o| ctx.has_trait(o, Traits::ISOLATED_FROM_ABOVE))
        }
        _ => false,
    };
    !((fresh(a) && (fresh(b) || isolated_arg(b))) || (fresh(b) && isolated_arg(a)))
}

/// The oracle that knows nothing beyond the IR.
pub struct Conservative;

impl AliasOracle for Conservative {}

#[derive(PartialEq, Eq, Hash)]
struct Key {
    name: OpName,
    operands: SmallVec<[Value; 4]>,
    attrs: SmallVec<[NamedAttr; 2]>,
    types: SmallVec<[Type; 2]>,
}

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

/// The memory written inside one isolated scope.
struct Writes {
    values: Vec<Value>,
    /// An op with unknown effects: it may write anything.
    unknown: bool,
}

impl Writes {
    fn of(ctx: &Context, regions: &[Region]) -> Writes {
        let mut w = Writes { values: Vec::new(), unknown: false };
        let mut stack: Vec<Region> = regions.to_vec();
        while let Some(r) = stack.pop() {
            for &b in ctx.region_blocks(r) {
                for op in ctx.block_ops(b) {
                    match effects::memory_effects(ctx, op) {
                        None => w.unknown = true,
                        Some(es) => w.values.extend(
                            es.iter()
                                .filter(|(e, _)| *e == Effect::Write)
                                .filter_map(|&(_, on)| effects::target(ctx, op, on)),
                        ),
                    }
                    // A nested isolated op's writes show through its own
                    // effects; its body is a scope of its own.
                    if !ctx.has_trait(op, Traits::ISOLATED_FROM_ABOVE) {
                        stack.extend(ctx.regions(op).iter().copied());
                    }
                }
            }
        }
        w
    }
}

struct Walk<'o> {
    aliases: &'o dyn AliasOracle,
    count: u64,
}

impl Walk<'_> {
    fn mergeable(&self, ctx: &Context, op: Op, writes: &Writes) -> bool {
        if !ctx.regions(op).is_empty() || ctx.num_results(op) == 0 {
            return false;
        }
        let Some(es) = effects::memory_effects(ctx, op) else { return false };
        es.iter().all(|&(e, on)| {
            e == Effect::Read
                && !writes.unknown
                && effects::target(ctx, op, on)
                    .is_some_and(|r| !writes.values.iter().any(|&w| self.aliases.may_alias(ctx, r, w)))
        })
    }

    fn region(&mut self, rw: &mut Rewriter<'_>, region: Region, scopes: &mut Vec<FxHashMap<Key, Op>>, writes: &Writes) {
        for b in rw.region_blocks(region).to_vec() {
            scopes.push(FxHashMap::default());
            let ops: Vec<Op> = rw.block_ops(b).collect();
            for op in ops {
                if self.mergeable(rw, op, writes) {
                    let k = key(rw, op);
                    if let Some(&existing) = scopes.iter().rev().find_map(|s| s.get(&k)) {
                        let new: SmallVec<[Value; 2]> = rw.results(existing).iter().copied().collect();
                        rw.replace_op(op, &new);
                        self.count += 1;
                        continue;
                    }
                    if let Some(s) = scopes.last_mut() {
                        s.insert(k, op);
                    }
                }
                let regions = rw.regions(op).to_vec();
                if regions.is_empty() {
                    continue;
                }
                if rw.has_trait(op, Traits::ISOLATED_FROM_ABOVE) {
                    self.scope(rw, &regions);
                } else {
                    for r in regions {
                        self.region(rw, r, scopes, writes);
                    }
                }
            }
            scopes.pop();
        }
    }

    fn scope(&mut self, rw: &mut Rewriter<'_>, regions: &[Region]) {
        let writes = Writes::of(rw, regions);
        let mut scopes = Vec::new();
        for &r in regions {
            self.region(rw, r, &mut scopes, &writes);
        }
    }
}

/// Eliminates common subexpressions in the regions of `op`, which start a
/// scope of their own; returns how many ops were merged.
pub fn eliminate_common_subexpressions(rw: &mut Rewriter<'_>, op: Op, aliases: &dyn AliasOracle) -> u64 {
    let mut walk = Walk { aliases, count: 0 };
    let regions = rw.regions(op).to_vec();
    walk.scope(rw, &regions);
    walk.count
}
