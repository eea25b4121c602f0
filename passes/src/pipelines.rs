//! Named pipelines: names that stand for a sequence of passes.

use aot_ir::inventory;
use aot_ir::pass::PipelineDef;

inventory::submit! {
    PipelineDef { name: "cleanup", summary: "Remove redundant and dead pure ops", pipeline: "cse,dce" }
}
