//! Memory effects: what an op does to memory, declared on the op (MLIR's
//! `MemoryEffectOpInterface`), so that generic transforms (CSE, dead-code
//! removal) can decide what they may merge or remove without knowing op
//! names.
//!
//! An op's effects are, in order of precedence: none when it has the `Pure`
//! trait; what its [`MemoryEffects`] interface says; otherwise unknown
//! (`None`), which every client treats as "may read and write anything".
//! The list names only the op's own effects: ops nested in its regions
//! declare theirs, and a client that cares walks them.

use crate::{Context, Op, Traits, Value};

/// What an effect does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Reads the memory the value refers to.
    Read,
    /// Writes the memory the value refers to.
    Write,
    /// The value is fresh memory, distinct from any memory that existed
    /// before the op (and so from the arguments of the enclosing region).
    Allocate,
    /// May end the call with an error (an assertion): never removed or
    /// merged, though it touches no memory.
    Trap,
}

/// The value an effect applies to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum On {
    Operand(usize),
    Result(usize),
    /// The call as a whole (for [`Effect::Trap`]).
    Call,
}

/// One effect of an op.
pub type EffectOn = (Effect, On);

/// An op's declared effects: fixed, computed from the op in its context (a
/// view is effect-free only where values have value semantics), or none of
/// its own beyond those of the ops in its regions (a loop).
pub enum MemoryEffects {
    Fixed(&'static [EffectOn]),
    Computed(fn(&Context, Op) -> Option<&'static [EffectOn]>),
    Recursive,
}

/// No effects at all.
pub const NONE: MemoryEffects = MemoryEffects::Fixed(&[]);

/// `op`'s own memory effects; `None` when unknown.
pub fn memory_effects(ctx: &Context, op: Op) -> Option<&'static [EffectOn]> {
    let def = ctx.op_def(op)?;
    if def.has(Traits::PURE) {
        return Some(&[]);
    }
    match def.interface::<MemoryEffects>()? {
        MemoryEffects::Fixed(e) => Some(e),
        MemoryEffects::Computed(f) => f(ctx, op),
        MemoryEffects::Recursive => Some(&[]),
    }
}

/// Whether `op` is known to have no effects, its regions' ops included: it
/// may be erased when unused and merged with an equivalent op.
pub fn is_effect_free(ctx: &Context, op: Op) -> bool {
    if !memory_effects(ctx, op).is_some_and(|e| e.is_empty()) {
        return false;
    }
    let recursive = ctx.op_def(op).and_then(|d| d.interface::<MemoryEffects>());
    if !matches!(recursive, Some(MemoryEffects::Recursive)) {
        return true;
    }
    let mut free = true;
    ctx.walk_pre(op, &mut |o| free &= o == op || memory_effects(ctx, o).is_some_and(|e| e.is_empty()));
    free
}

/// The value an effect applies to, if the op has it.
pub fn target(ctx: &Context, op: Op, on: On) -> Option<Value> {
    match on {
        On::Operand(i) => (i < ctx.num_operands(op)).then(|| ctx.operand(op, i)),
        On::Result(i) => (i < ctx.num_results(op)).then(|| ctx.result(op, i)),
        On::Call => None,
    }
}

/// Whether `v` is fresh memory: a result an op declares it allocates.
pub fn is_allocation(ctx: &Context, v: Value) -> bool {
    let Some(op) = ctx.defining_op(v) else { return false };
    memory_effects(ctx, op)
        .is_some_and(|es| es.iter().any(|&(e, on)| e == Effect::Allocate && target(ctx, op, on) == Some(v)))
}
