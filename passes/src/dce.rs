//! `dce`: dead code elimination.
//!
//! Erases effect-free ops (`aot_ir::effects`; never terminators) whose
//! results are all unused. Blocks are walked backwards, so a whole chain of
//! dead ops goes in one sweep: by the time an op is visited, every later user
//! has already been removed. Nested regions are processed first.

use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;

struct Dce;

fn sweep_region(rw: &mut Rewriter<'_>, region: Region, count: &mut u64) {
    for b in rw.region_blocks(region).to_vec() {
        let mut cur = rw.block_last_op(b);
        while let Some(op) = cur {
            cur = rw.prev_op(op);
            for r in rw.regions(op).to_vec() {
                sweep_region(rw, r, count);
            }
            let dead = !rw.has_trait(op, Traits::TERMINATOR)
                && rw.results(op).iter().all(|&r| !rw.has_uses(r))
                && aot_ir::effects::is_effect_free(rw, op);
            if dead {
                rw.erase_op(op);
                *count += 1;
            }
        }
    }
}

impl Pass for Dce {
    fn run(&mut self, ctx: &mut Context, op: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let mut rw = Rewriter::new(ctx);
        let mut count = 0;
        for r in rw.regions(op).to_vec() {
            sweep_region(&mut rw, r, &mut count);
        }
        st.add_stat("num-dce'd", count);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "dce",
        name: "DCE",
        summary: "Remove side-effect-free operations whose results are unused",
        description: "Walks every block backwards and erases pure, non-terminator ops without uses, so chains of dead \
ops disappear in one sweep. Ops with side effects (mutations, random draws, calls) are kept.",
        anchor: None,
        options: &[],
        statistics: &[StatisticSpec { name: "num-dce'd", description: "Number of operations removed" }],
        create: |_: &PassOptions| Ok(Box::new(Dce)),
    }
}
