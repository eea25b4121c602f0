//! `cse`: common subexpression elimination, as a pass.
//!
//! The transform is [`aot_ir::cse`]: an op is merged into an equivalent op
//! that dominates it (same name, operands — as a multiset for commutative
//! ops —, attributes and result types) when it is effect-free or only reads
//! memory nothing in its isolated scope writes; regions of isolated ops
//! start with an empty scope. The pass knows no more about aliasing than
//! the IR shows ([`aot_ir::cse::Conservative`]).

use aot_ir::cse::{eliminate_common_subexpressions, Conservative};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;

struct Cse;

impl Pass for Cse {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let mut rw = Rewriter::new(ctx);
        let count = eliminate_common_subexpressions(&mut rw, op, &Conservative);
        st.add_stat("num-cse'd", count);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "cse",
        name: "CSE",
        summary: "Eliminate common sub-expressions",
        description: "Replaces an effect-free op, or one that only reads memory nothing in its isolated scope writes, \
by an equivalent op that dominates it. Equivalent means same name, operands (as a multiset for commutative ops), \
attributes and result types. Runs on any op and on every region nested in it; regions of isolated ops start with an \
empty scope.",
        anchor: None,
        options: &[],
        statistics: &[StatisticSpec { name: "num-cse'd", description: "Number of operations CSE'd" }],
        create: |_: &PassOptions| Ok(Box::new(Cse)),
    }
}
