//! The `rng` dialect: random tensors from the Philox4x32-10 generator.
//!
//! Stateful ops (`uniform`, `normal`, `bernoulli`, `dropout`) draw from the
//! global generator and advance it; their `philox_*` twins are pure functions
//! of explicit `seed` and `offset` operands (`tensor<i64>`), which is what
//! `rng-functionalize` rewrites the stateful ones to. Both compute every
//! value with the same formula from the same 32-bit words (see
//! `docs/dialects.md`), in the result's float type, with `libm`'s functions,
//! so every backend can reproduce them bit for bit.

pub mod derivatives;
pub mod kernels;
pub mod lowering;

use crate::autodiff::Vjp;
use crate::lowering::{Lower, LowerSymbolic};
use crate::shape::*;
use aot_ir::*;
use aot_runtime::Kernel;

aot_ir::op_handle!(pub PhiloxUniformOp = "rng.philox_uniform");
aot_ir::op_handle!(pub PhiloxNormalOp = "rng.philox_normal");
aot_ir::op_handle!(pub PhiloxBernoulliOp = "rng.philox_bernoulli");
aot_ir::op_handle!(pub PhiloxDropoutOp = "rng.philox_dropout");

/// For a stateful random op: its functional twin, and how many 32-bit words
/// it draws for `n` results given its attributes (the generator then
/// advances by that count rounded up to a multiple of 4). `n` may be a
/// symbolic size (`aot_ir::sym`): the count is then an expression.
pub struct RandomInterface {
    pub functional: OpRef,
    pub words: fn(&AttrView<'_>, i64) -> Result<i64, aot_ir::sym::SymError>,
}

/// `ceil(n / per) * 4`: the words a draw of `n` values takes at `per`
/// values per Philox block of four words (the runtime's
/// `philox::words_for_uniform` and `words_for_normal`, as an expression).
fn words_per_block(n: i64, per: i64) -> Result<i64, aot_ir::sym::SymError> {
    use aot_ir::sym::{add, floordiv, mul};
    mul(floordiv(add(n, per - 1)?, per)?, 4)
}

fn verify_float_result(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    match ctx.value_tensor(ctx.result(op, 0)) {
        Some(t) if t.elem.is_float() => Ok(()),
        _ => Err(Diagnostic::op_error(ctx, op, "result must be a floating point tensor")),
    }
}

fn check_state(ic: &InferCtx<'_>) -> Result<(), String> {
    for (i, what) in [(0, "seed"), (1, "offset")] {
        let t = operand_tensor(ic, i)?;
        if t.elem != ElemType::I64 || t.rank() != 0 {
            return Err(format!("{what} must be a tensor<i64>, got {t}"));
        }
    }
    Ok(())
}

/// `philox_uniform`/`philox_normal`: the state operands and a float result.
fn verify_philox_nullary(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    for (i, what) in [(0, "seed"), (1, "offset")] {
        match ctx.value_tensor(ctx.operand(op, i)) {
            Some(t) if t.elem == ElemType::I64 && t.rank() == 0 => {}
            _ => return Err(Diagnostic::op_error(ctx, op, format!("{what} must be a tensor<i64>"))),
        }
    }
    verify_nullary(ctx, op)
}

fn infer_bernoulli(ic: &InferCtx<'_>) -> InferResult {
    let p = operand_tensor(ic, 0)?;
    require_float(p.elem, "bernoulli")?;
    one(p.shape.clone(), p.elem)
}

fn infer_philox_bernoulli(ic: &InferCtx<'_>) -> InferResult {
    check_state(ic)?;
    let p = operand_tensor(ic, 2)?;
    require_float(p.elem, "bernoulli")?;
    one(p.shape.clone(), p.elem)
}

fn dropout_types(ic: &InferCtx<'_>, x: &TensorType) -> InferResult {
    require_float(x.elem, "dropout")?;
    let p = attr_f64_opt(ic, "p")?.unwrap_or(0.5);
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("dropout probability has to be between 0 and 1, but got {p}"));
    }
    Ok(smallvec::smallvec![TypeData::Tensor(x.clone()), TypeData::Tensor(x.with_elem(ElemType::I1))])
}

fn infer_dropout(ic: &InferCtx<'_>) -> InferResult {
    let x = operand_tensor(ic, 0)?.clone();
    dropout_types(ic, &x)
}

fn infer_philox_dropout(ic: &InferCtx<'_>) -> InferResult {
    check_state(ic)?;
    let x = operand_tensor(ic, 2)?.clone();
    dropout_types(ic, &x)
}

/// Check of attributes shared by the nullary ops: results are inferred from
/// the declared type, so only the state operands (if any) are checked.
fn verify_nullary(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_float_result(ctx, op)?;
    if let (Some(lo), Some(hi)) = (ctx.attr_f64(op, "low"), ctx.attr_f64(op, "high")) {
        if lo > hi {
            return Err(Diagnostic::op_error(ctx, op, format!("low ({lo}) must not exceed high ({hi})")));
        }
    }
    if ctx.attr_f64(op, "std").is_some_and(|s| s < 0.0) {
        return Err(Diagnostic::op_error(ctx, op, "std must be non-negative"));
    }
    Ok(())
}

fn words_uniform(_: &AttrView<'_>, n: i64) -> Result<i64, aot_ir::sym::SymError> {
    words_per_block(n, 4)
}

fn words_normal(_: &AttrView<'_>, n: i64) -> Result<i64, aot_ir::sym::SymError> {
    words_per_block(n, 2)
}

fn words_dropout(a: &AttrView<'_>, n: i64) -> Result<i64, aot_ir::sym::SymError> {
    match kernels::dropout_draws(a) {
        true => words_per_block(n, 4),
        false => Ok(0),
    }
}

const UNIFORM: &[AttrSpec] = &[AttrSpec::optional("low", AttrKind::F64), AttrSpec::optional("high", AttrKind::F64)];
const NORMAL: &[AttrSpec] = &[AttrSpec::optional("mean", AttrKind::F64), AttrSpec::optional("std", AttrKind::F64)];
const DROPOUT: &[AttrSpec] = &[AttrSpec::optional("p", AttrKind::F64), AttrSpec::optional("train", AttrKind::Flag)];

inventory::submit! {
    OpDef {
        name: "rng.uniform",
        summary: "Uniform samples in [low, high) from the global generator",
        traits: Traits::RANDOM.union(Traits::SYMBOLIC_SHAPES),
        results: Arity::Exact(1),
        attrs: UNIFORM,
        verify: Some(verify_nullary),
        syntax: Syntax::Functional,
        interfaces: &[&RandomInterface { functional: OpRef::of::<PhiloxUniformOp>(), words: words_uniform }, &Kernel(kernels::uniform), &Lower(lowering::stateful)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "rng.normal",
        summary: "Normal samples (Box-Muller) from the global generator",
        traits: Traits::RANDOM.union(Traits::SYMBOLIC_SHAPES),
        results: Arity::Exact(1),
        attrs: NORMAL,
        verify: Some(verify_nullary),
        syntax: Syntax::Functional,
        interfaces: &[&RandomInterface { functional: OpRef::of::<PhiloxNormalOp>(), words: words_normal }, &Kernel(kernels::normal), &Lower(lowering::stateful)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "rng.bernoulli",
        summary: "1 with probability p, else 0, from the global generator",
        traits: Traits::RANDOM.union(Traits::SYMBOLIC_SHAPES),
        operands: Arity::Exact(1),
        results: Arity::Exact(1),
        infer: Some(infer_bernoulli),
        syntax: Syntax::Functional,
        interfaces: &[&RandomInterface { functional: OpRef::of::<PhiloxBernoulliOp>(), words: words_uniform }, &Kernel(kernels::bernoulli), &Lower(lowering::stateful)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "rng.dropout",
        summary: "Zeroes elements with probability p and scales the rest by 1/(1-p); returns the keep mask",
        traits: Traits::RANDOM.union(Traits::DIFFERENTIABLE).union(Traits::SYMBOLIC_SHAPES),
        operands: Arity::Exact(1),
        results: Arity::Exact(2),
        attrs: DROPOUT,
        infer: Some(infer_dropout),
        syntax: Syntax::Functional,
        interfaces: &[&RandomInterface { functional: OpRef::of::<PhiloxDropoutOp>(), words: words_dropout }, &Kernel(kernels::dropout), &Vjp(derivatives::dropout), &Lower(lowering::stateful)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: PhiloxUniformOp::NAME,
        summary: "Uniform samples from an explicit Philox state (seed, offset)",
        traits: Traits::PURE.union(Traits::SYMBOLIC_SHAPES),
        operands: Arity::Exact(2),
        results: Arity::Exact(1),
        attrs: UNIFORM,
        verify: Some(verify_philox_nullary),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(kernels::philox_uniform), &LowerSymbolic(lowering::philox_uniform), &lowering::UNIFORM_DRAWS],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: PhiloxNormalOp::NAME,
        summary: "Normal samples from an explicit Philox state (seed, offset)",
        traits: Traits::PURE.union(Traits::SYMBOLIC_SHAPES),
        operands: Arity::Exact(2),
        results: Arity::Exact(1),
        attrs: NORMAL,
        verify: Some(verify_philox_nullary),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(kernels::philox_normal), &LowerSymbolic(lowering::philox_normal), &lowering::NORMAL_DRAWS],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: PhiloxBernoulliOp::NAME,
        summary: "Bernoulli samples from an explicit Philox state (seed, offset)",
        traits: Traits::PURE.union(Traits::SYMBOLIC_SHAPES),
        operands: Arity::Exact(3),
        results: Arity::Exact(1),
        infer: Some(infer_philox_bernoulli),
        syntax: Syntax::Functional,
        interfaces: &[&Kernel(kernels::philox_bernoulli), &LowerSymbolic(lowering::philox_bernoulli), &lowering::BERNOULLI_DRAWS],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: PhiloxDropoutOp::NAME,
        summary: "Dropout from an explicit Philox state (seed, offset)",
        traits: Traits::PURE.union(Traits::DIFFERENTIABLE).union(Traits::SYMBOLIC_SHAPES),
        operands: Arity::Exact(3),
        results: Arity::Exact(2),
        attrs: DROPOUT,
        infer: Some(infer_philox_dropout),
        syntax: Syntax::Functional,
        interfaces: &[
            &Kernel(kernels::philox_dropout),
            &Vjp(derivatives::dropout),
            &LowerSymbolic(lowering::philox_dropout),
            &lowering::DROPOUT_DRAWS,
        ],
        ..OpDef::DEFAULT
    }
}
