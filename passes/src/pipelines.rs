//! Named pipelines: names that stand for a sequence of passes.

use aot_ir::inventory;
use aot_ir::pass::PipelineDef;

inventory::submit! {
    PipelineDef { name: "cleanup", summary: "Remove redundant and dead pure ops", pipeline: "cse,dce" }
}

inventory::submit! {
    PipelineDef {
        name: "aot-inference",
        summary: "AOTAutograd's inference compilation: a pure graph plus its calling convention",
        pipeline: "flatten-subclasses,functionalize,simplify,collect-metadata,dedupe,synthetic-base,rng-functionalize",
    }
}

inventory::submit! {
    PipelineDef {
        name: "aot-train",
        summary: "AOTAutograd's training compilation: forward and backward graphs plus the calling convention",
        pipeline: "flatten-subclasses,functionalize,simplify,collect-metadata,dedupe,synthetic-base{training=true},rng-functionalize,joint,simplify,partition",
    }
}
