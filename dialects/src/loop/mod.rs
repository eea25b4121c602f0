//! The `loop` dialect: what codegen lowers pure tensor graphs to, and the
//! seam every backend (Cranelift, LLVM, PTX) starts from.
//!
//! Two levels, both over `memref` buffers:
//!
//! - host ops in the function body: `loop.alloc` (a fresh contiguous
//!   buffer; `offset` once `plan-memory` placed it in the arena),
//!   `loop.view` (the same allocation under another strided layout — views
//!   never copy), `loop.global` (read-only constant data), `loop.kernel` (a loop nest over buffers, isolated from
//!   above: its block arguments are the buffers it touches) and
//!   `loop.matmul` (batched GEMM, an external kernel: f32, f64, or bf16
//!   operands summed into an f32 result), `loop.attention` (scaled
//!   dot-product attention in one pass over the keys, an external kernel
//!   on f32: the scores never stored) and `loop.attention_grad` (its
//!   three gradients, likewise), and the trailing
//!   metadata mutations a graph may keep on its arguments: `loop.rebind`
//!   (`set_`, `as_strided_`) and `loop.resize` (`resize_`);
//! - kernel ops inside `loop.kernel`: `loop.for` (constant lower bound and step, optional
//!   `parallel`, loop-carried `iter_args` for reductions), `loop.load` /
//!   `loop.store` (multi-dimensional indices; the memref layout turns them
//!   into addresses), `loop.size` (a symbolic size as an `index` value),
//!   scalar arithmetic on `index`, integers and floats,
//!   `loop.philox` (one Philox4x32-10 block) and `loop.assert` (a runtime
//!   check that makes the call fail with its message). Math ops marked
//!   `exact` must be computed as `libm` computes them (random sampling
//!   formulas are bit-identical on every backend); the others may use
//!   faster approximations within a few ulps.
//!
//! Memref layouts are absolute: `strided<[s...], offset: o>` addresses
//! element `o + Σ iₖ·sₖ` of the underlying allocation, whatever chain of
//! views produced it. `f16`/`bf16` are storage types: loads yield them and
//! arithmetic first casts to `f32`.
//!
//! Symbolic sizes (`aot_ir::sym`): the buffer ops, `loop.kernel`,
//! `loop.load`/`loop.store` and a `loop.for`'s upper bound may carry them
//! (`memref<s0x8xf32, strided<[8, 1], offset: (s0*8)>>`, `loop.for %i = 0
//! to s0`); a symbolic stride or offset must be provably non-negative.
//! A loop's lower bound and step, an arena offset and a scalar constant
//! stay integers, and the ops without the `SYMBOLIC_SHAPES` trait refuse
//! symbolic sizes.

use aot_ir::effects::{Effect, EffectOn, MemoryEffects, On};
use aot_ir::lexer::TokenKind;
use aot_ir::*;
use smallvec::smallvec;

pub const KERNEL: &str = "loop.kernel";
pub const FOR: &str = <ForOp as OpKind>::NAME;
pub const YIELD: &str = "loop.yield";
pub const LOAD: &str = "loop.load";
pub const STORE: &str = "loop.store";
pub const ALLOC: &str = "loop.alloc";
pub const VIEW: &str = "loop.view";
pub const MATMUL: &str = "loop.matmul";
pub const COLLECTIVE: &str = "loop.collective";
pub const ATTENTION: &str = "loop.attention";
pub const ATTENTION_GRAD: &str = "loop.attention_grad";
/// The operands `loop.attention` writes (out, lse); its mask, when given,
/// comes right after them.
pub const ATTENTION_RESULTS: std::ops::Range<usize> = 3..5;
/// The operands `loop.attention_grad` writes (dq, dk, dv); its mask, when
/// given, comes right after them.
pub const ATTENTION_GRAD_RESULTS: std::ops::Range<usize> = 6..9;
pub const GLOBAL: &str = "loop.global";
pub const ASSERT: &str = "loop.assert";
pub const PHILOX: &str = "loop.philox";
pub const CONSTANT: &str = "loop.constant";
pub const SIZE: &str = "loop.size";
pub const REBIND: &str = "loop.rebind";
pub const RESIZE: &str = "loop.resize";
pub const SELECT: &str = "loop.select";
pub const FMA: &str = "loop.fma";
pub const CMP: &str = "loop.cmp";
pub const CAST: &str = "loop.cast";

pub mod analysis;
pub mod expand;
pub mod math;
pub mod range;
pub use analysis::{memref, ForOp};
pub use math::{MathFn, MATH};

/// Every loop op, as an enum: what backends `match` on (exhaustively, so a
/// backend that misses an op does not compile). An op's identity is
/// registered as its interface; [`LoopOp::of`] reads it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LoopOp {
    // host ops
    Alloc,
    View,
    Global,
    Kernel,
    Matmul,
    Attention,
    AttentionGrad,
    Rebind,
    Resize,
    /// A collective over a process group (`loop.collective`), run by the
    /// group's communicator.
    Collective,
    // kernel structure
    For,
    Yield,
    Load,
    Store,
    Assert,
    Philox,
    Constant,
    /// A symbolic size's value (`loop.size`), read from the call's size
    /// table.
    Size,
    /// Scalar computation: what backends emit as arithmetic.
    Scalar(ScalarOp),
}

/// The scalar ops of the loop dialect.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScalarOp {
    Binary(Binary),
    Unary(Unary),
    Cmp,
    Select,
    /// `a·b + c` rounded once: PyTorch's `vec::fmadd`, which its CPU kernels
    /// for `add` with `alpha`, `addcmul` and `lerp` use.
    Fma,
    Cast,
    Math(MathFn),
}

impl LoopOp {
    /// The loop op `op` is, if it is one.
    pub fn of(ctx: &Context, op: Op) -> Option<LoopOp> {
        ctx.op_def(op)?.interface::<LoopOp>().copied()
    }
}

/// Comparison predicates of `loop.cmp`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Predicate {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Predicate {
    pub const ALL: [Predicate; 6] =
        [Predicate::Eq, Predicate::Ne, Predicate::Lt, Predicate::Le, Predicate::Gt, Predicate::Ge];

    /// The spelling in the `predicate` attribute.
    pub const fn name(self) -> &'static str {
        match self {
            Predicate::Eq => "eq",
            Predicate::Ne => "ne",
            Predicate::Lt => "lt",
            Predicate::Le => "le",
            Predicate::Gt => "gt",
            Predicate::Ge => "ge",
        }
    }

    pub fn parse(s: &str) -> Option<Predicate> {
        Predicate::ALL.into_iter().find(|p| p.name() == s)
    }

    /// The predicate of a (verified) `loop.cmp`.
    pub fn of(ctx: &Context, op: Op) -> Option<Predicate> {
        ctx.attr_str(op, "predicate").and_then(Predicate::parse)
    }
}

/// One conversion of `loop.cast` between two types neither of which is a
/// half type (see [`CastPlan`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// The same type.
    Same,
    /// `f32` ↔ `f64`: widened exactly, or rounded to nearest.
    FloatResize,
    /// Float to `i1`: true unless zero (NaN is true).
    FloatToBool,
    /// Float to an integer: truncated toward zero, saturating at the
    /// type's range, NaN to 0.
    FloatToInt,
    /// Integer or `index` to float, rounded to nearest; `unsigned` for an
    /// `i1` (true is 1).
    IntToFloat { unsigned: bool },
    /// Integer to `i1`: true unless zero.
    IntToBool,
    /// Integer to another integer width: extended (sign-extended, or
    /// zero-extended from an `i1`) or truncated.
    IntResize { unsigned: bool },
}

/// How `loop.cast` converts `from` to `to`, the rules every backend
/// implements: a half type (`f16`, `bf16`) goes to `f32` first
/// (`from_half`), the conversion runs between the others, and `f32` goes
/// to a half type last (`to_half`), rounding to nearest even.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CastPlan {
    pub from_half: Option<ElemType>,
    pub convert: Conversion,
    pub to_half: Option<ElemType>,
}

impl CastPlan {
    pub fn of(from: ElemType, to: ElemType) -> CastPlan {
        use ElemType::*;
        let half = |e: ElemType| matches!(e, F16 | BF16);
        if from == to {
            return CastPlan { from_half: None, convert: Conversion::Same, to_half: None };
        }
        let (f, t) = (if half(from) { F32 } else { from }, if half(to) { F32 } else { to });
        let float = |e: ElemType| matches!(e, F32 | F64);
        let convert = match (float(f), float(t)) {
            _ if f == t => Conversion::Same,
            (true, true) => Conversion::FloatResize,
            (true, false) if t == I1 => Conversion::FloatToBool,
            (true, false) => Conversion::FloatToInt,
            (false, true) => Conversion::IntToFloat { unsigned: f == I1 },
            (false, false) if t == I1 => Conversion::IntToBool,
            (false, false) => Conversion::IntResize { unsigned: f == I1 },
        };
        CastPlan { from_half: half(from).then_some(from), convert, to_half: half(to).then_some(to) }
    }

    /// The plan of a cast between two scalar types (`index` is `i64`).
    pub fn between(from: &TypeData, to: &TypeData) -> Option<CastPlan> {
        let e = |t: &TypeData| match t {
            TypeData::Index => Some(ElemType::I64),
            TypeData::Elem(e) => Some(*e),
            _ => None,
        };
        Some(CastPlan::of(e(from)?, e(to)?))
    }
}

fn err(ctx: &Context, op: Op, m: impl Into<String>) -> Diagnostic {
    Diagnostic::op_error(ctx, op, m.into())
}

/// Element strides and offset of a memref (row-major when not given).
pub fn layout(m: &MemRefType) -> (Shape, i64) {
    match &m.layout {
        Some((s, o)) => (s.clone(), *o),
        None => (crate::lowering::row_major(&m.shape), 0),
    }
}

/// One past the largest element index a memref addresses (0 when empty).
pub fn extent(m: &MemRefType) -> i64 {
    if m.shape.contains(&0) {
        return 0;
    }
    let (s, o) = layout(m);
    o + m.shape.iter().zip(&s).map(|(&n, &st)| (n - 1) * st).sum::<i64>() + 1
}

fn is_scalar(t: &TypeData) -> bool {
    matches!(t, TypeData::Elem(_) | TypeData::Index)
}

fn is_float(t: &TypeData) -> bool {
    matches!(t, TypeData::Elem(e) if e.is_float())
}

/// Integer-like: `index`, integers and `i1`.
fn is_int(t: &TypeData) -> bool {
    matches!(t, TypeData::Index) || matches!(t, TypeData::Elem(e) if !e.is_float())
}

/// Types arithmetic may use: not the storage-only half types.
fn is_arith(t: &TypeData) -> bool {
    is_scalar(t) && !matches!(t, TypeData::Elem(ElemType::F16 | ElemType::BF16))
}

// ----- host ops -----

fn verify_alloc(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let m = memref(ctx, ctx.result(op, 0)).ok_or_else(|| err(ctx, op, "result must be a memref"))?;
    if m.layout.is_some() {
        return Err(err(ctx, op, "allocates contiguous buffers: the result must have no layout"));
    }
    if ctx.attr_i64(op, "offset").is_some_and(|o| o < 0 || aot_ir::sym::is_symbolic(o)) {
        return Err(err(ctx, op, "arena offset must be a non-negative integer"));
    }
    let symbolic = m.shape.iter().any(|&d| aot_ir::sym::is_symbolic(d));
    if symbolic && ctx.has_attr(op, "offset") {
        return Err(err(
            ctx,
            op,
            "a buffer of symbolic size has no fixed arena offset (its lifetime, 'live', places it per call)",
        ));
    }
    if ctx.has_attr(op, "live") {
        let ok = ctx.attr_i64_list(op, "live").is_some_and(|l| l.len() == 2 && 0 <= l[0] && l[0] <= l[1]);
        if !ok {
            return Err(err(ctx, op, "'live' must be two host-op positions [first, last], 0 <= first <= last"));
        }
        if ctx.has_attr(op, "offset") {
            return Err(err(ctx, op, "a buffer is placed by an arena offset or by its lifetime ('live'), not both"));
        }
    }
    Ok(())
}

/// Whether size `d` (an integer or a symbolic expression) is at least 0
/// for every value of the symbols: a symbolic stride or offset must be
/// provably non-negative from the enclosing function's ranges.
fn non_negative(ctx: &Context, op: Op, d: i64) -> bool {
    if !aot_ir::sym::is_symbolic(d) {
        return d >= 0;
    }
    let facts = aot_ir::sym::Facts::enclosing(ctx, op);
    let facts = facts.as_ref().unwrap_or(aot_ir::sym::Facts::defaults());
    facts.lower_bound(d).is_some_and(|l| l >= 0)
}

fn verify_view(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = memref(ctx, ctx.operand(op, 0)).ok_or_else(|| err(ctx, op, "operand must be a memref"))?;
    let dst = memref(ctx, ctx.result(op, 0)).ok_or_else(|| err(ctx, op, "result must be a memref"))?;
    if src.elem != dst.elem {
        return Err(err(ctx, op, format!("changes the element type from {} to {}", src.elem, dst.elem)));
    }
    let (s, o) = layout(dst);
    if !non_negative(ctx, op, o) || s.iter().any(|&x| !non_negative(ctx, op, x)) {
        return Err(err(ctx, op, "a view needs a non-negative offset and strides"));
    }
    Ok(())
}

fn verify_matmul(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ms: Vec<&MemRefType> = (0..3)
        .map(|i| memref(ctx, ctx.operand(op, i)).ok_or_else(|| err(ctx, op, "operands must be memrefs")))
        .collect::<Result<_, _>>()?;
    let r = ms[0].shape.len();
    if r < 2 || ms.iter().any(|m| m.shape.len() != r) {
        return Err(err(ctx, op, "operands must have the same rank, at least 2"));
    }
    let same = ms.iter().all(|m| m.elem == ms[0].elem) && matches!(ms[0].elem, ElemType::F32 | ElemType::F64);
    let bf16 = ms[0].elem == ElemType::BF16 && ms[1].elem == ElemType::BF16 && ms[2].elem == ElemType::F32;
    if !same && !bf16 {
        return Err(err(ctx, op, "operands must all be f32, all be f64, or bf16 summed into f32"));
    }
    let (a, b, c) = (&ms[0].shape, &ms[1].shape, &ms[2].shape);
    let batch_ok = a[..r - 2] == c[..r - 2] && b[..r - 2] == c[..r - 2];
    if !batch_ok || a[r - 1] != b[r - 2] || c[r - 2] != a[r - 2] || c[r - 1] != b[r - 1] {
        return Err(err(
            ctx,
            op,
            format!(
                "shapes {:?} x {:?} -> {:?} do not form a batched matrix product",
                a.to_vec(),
                b.to_vec(),
                c.to_vec()
            ),
        ));
    }
    Ok(())
}

/// `loop.attention`: `q [*B, L, E]`, `k [*B, S, E]`, `v [*B, S, Ev]`,
/// then the results `out [*B, L, Ev]` and `lse [*B, L]`, and an optional
/// mask `[*B, L, S]` (i1, or f32 added to the scores), all f32 otherwise.
fn verify_attention(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_attention_operands(ctx, op, 0, ATTENTION_RESULTS.end)
}

/// `loop.attention_grad`: the output gradient `g [*B, L, Ev]`, then
/// `loop.attention`'s q, k, v, out and lse, the results `dq`, `dk`, `dv`
/// (shaped as q, k, v), and the optional mask.
fn verify_attention_grad(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_attention_operands(ctx, op, 1, ATTENTION_GRAD_RESULTS.end)?;
    let ty = |i: usize| memref(ctx, ctx.operand(op, i)).map(|m| (&m.shape, m.elem));
    let (g, out) = (ty(0), ty(4));
    let grads_ok = g.is_some() && g == out && (0..3).all(|i| ty(6 + i).is_some() && ty(6 + i) == ty(1 + i));
    if !grads_ok {
        return Err(err(ctx, op, "the output gradient must be shaped as the output, dq, dk and dv as q, k and v"));
    }
    Ok(())
}

/// The checks shared by the attention ops: q, k, v, out, lse from operand
/// `at`, the mask (if any) at `mask_at`, last.
fn verify_attention_operands(ctx: &Context, op: Op, at: usize, mask_at: usize) -> Result<(), Diagnostic> {
    let n = ctx.num_operands(op);
    let ms: Vec<&MemRefType> = (0..n)
        .map(|i| memref(ctx, ctx.operand(op, i)).ok_or_else(|| err(ctx, op, "operands must be memrefs")))
        .collect::<Result<_, _>>()?;
    let core: Vec<&MemRefType> = ms[at..at + 5].to_vec();
    let mask = ms.get(mask_at).copied();
    let r = core[0].shape.len();
    if r < 2 {
        return Err(err(ctx, op, "the query must have rank at least 2"));
    }
    let ranks_ok = core.iter().enumerate().all(|(i, m)| m.shape.len() == if i == 4 { r - 1 } else { r })
        && mask.is_none_or(|m| m.shape.len() == r);
    if !ranks_ok {
        return Err(err(ctx, op, "q, k, v, out and the mask must have one rank, lse one less"));
    }
    let f32s = ms.iter().enumerate().all(|(i, m)| m.elem == ElemType::F32 || (i == mask_at && m.elem == ElemType::I1));
    if !f32s {
        return Err(err(ctx, op, "operands must be f32 (the mask f32 or i1)"));
    }
    let (q, k, v, out, lse) = (&core[0].shape, &core[1].shape, &core[2].shape, &core[3].shape, &core[4].shape);
    let b = &q[..r - 2];
    let (l, s, e, ev) = (q[r - 2], k[r - 2], q[r - 1], v[r - 1]);
    let shapes_ok = k[..r - 2] == *b
        && v[..r - 2] == *b
        && out[..r - 2] == *b
        && lse[..r - 2] == *b
        && k[r - 1] == e
        && v[r - 2] == s
        && out[r - 2] == l
        && out[r - 1] == ev
        && lse[r - 2] == l
        && mask.is_none_or(|m| m.shape[..r - 2] == *b && m.shape[r - 2] == l && m.shape[r - 1] == s);
    if !shapes_ok {
        return Err(err(
            ctx,
            op,
            format!(
                "shapes {:?}, {:?}, {:?} -> {:?}, {:?} do not form an attention",
                q.to_vec(),
                k.to_vec(),
                v.to_vec(),
                out.to_vec(),
                lse.to_vec()
            ),
        ));
    }
    Ok(())
}

fn verify_kernel(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let body = ctx.single_block(op, 0).ok_or_else(|| err(ctx, op, "needs a body with one block"))?;
    let args = ctx.block_args(body);
    if args.len() != ctx.num_operands(op) {
        return Err(err(ctx, op, "needs one block argument per operand"));
    }
    for (i, (&a, v)) in args.iter().zip(ctx.operands(op)).enumerate() {
        if memref(ctx, v).is_none() {
            return Err(err(ctx, op, format!("operand {i} must be a memref")));
        }
        if ctx.value_type(a) != ctx.value_type(v) {
            return Err(err(ctx, op, format!("block argument {i} must have its operand's type")));
        }
    }
    if ctx.attr_str(op, "name").is_none_or(str::is_empty) {
        return Err(err(ctx, op, "needs a non-empty 'name'"));
    }
    // Isolated from above: a kernel sees buffers only through its block
    // arguments, so it can be compiled on its own. (Not the trait, so that
    // printed names keep counting across kernels.)
    let mut inside: rustc_hash::FxHashSet<Value> = ctx.block_args(body).iter().copied().collect();
    let mut bad = None;
    ctx.walk_pre(op, &mut |o| {
        if o == op || bad.is_some() {
            return;
        }
        for v in ctx.operands(o) {
            if !inside.contains(&v) {
                bad = Some(o);
            }
        }
        inside.extend(ctx.results(o).iter().copied());
        for &r in ctx.regions(o) {
            for &b in ctx.region_blocks(r) {
                inside.extend(ctx.block_args(b).iter().copied());
            }
        }
    });
    if let Some(o) = bad {
        return Err(err(ctx, o, "uses a value defined outside its loop.kernel (pass buffers as kernel operands)"));
    }
    Ok(())
}

/// `loop.kernel "name" (%a = %x : memref<..>, ...) {attrs} { body }`.
fn parse_kernel(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let name = p.parse_string()?;
    let k = p.ctx().sym("name");
    let v = p.ctx().str_attr(&name);
    st.add_attr(k, v);
    p.expect(TokenKind::LParen, "'(' before the kernel's buffers")?;
    let mut args = Vec::new();
    p.parse_list_until(TokenKind::RParen, "')' after the kernel's buffers", |p| {
        let inner = p.parse_operand()?;
        p.expect(TokenKind::Equal, "'=' between a block argument and its operand")?;
        let outer = p.parse_operand()?;
        p.expect(TokenKind::Colon, "':' before the buffer type")?;
        let ty = p.parse_type()?;
        let v = p.resolve_operand(outer, ty)?;
        st.operands.push(v);
        args.push(Argument { name: inner.name, ty, attrs: Vec::new(), loc: inner.loc });
        Ok(())
    })?;
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let region = p.parse_region_implicit_terminator(&args, YIELD)?;
    st.regions.push(region);
    Ok(())
}

fn print_kernel(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.w(" ");
    p.print_attr(ctx.get_attr(op, "name").expect("verified"));
    p.w(" (");
    let body = ctx.single_block(op, 0).expect("verified");
    for (i, (&a, v)) in ctx.block_args(body).iter().zip(ctx.operands(op)).enumerate() {
        if i > 0 {
            p.w(", ");
        }
        p.print_operand(a);
        p.w(" = ");
        p.print_operand(v);
        p.w(" : ");
        p.print_type(ctx.value_type(v));
    }
    p.w(")");
    p.print_attr_dict_with_keyword(ctx.attrs(op), &["name"]);
    p.w(" ");
    p.print_region_elide_terminator(ctx.regions(op)[0], false);
}

// ----- loops -----

fn verify_for(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (lo, hi, step) = (ctx.attr_i64(op, "lower"), ctx.attr_i64(op, "upper"), ctx.attr_i64(op, "step"));
    let (Some(lo), Some(_)) = (lo, hi) else {
        return Err(err(ctx, op, "needs 'lower' and 'upper' bounds"));
    };
    // Only the trip count may be a run-time size: a loop starts at and
    // steps by constants (vectorization and splitting decide on them).
    if aot_ir::sym::is_symbolic(lo) || step.is_some_and(aot_ir::sym::is_symbolic) {
        return Err(err(ctx, op, "'lower' and 'step' must be integers (only 'upper' may be a symbolic size)"));
    }
    if step.is_some_and(|s| s <= 0) {
        return Err(err(ctx, op, "step must be positive"));
    }
    let body = ctx.single_block(op, 0).ok_or_else(|| err(ctx, op, "needs a body with one block"))?;
    let args = ctx.block_args(body);
    let n = ctx.num_operands(op);
    if args.len() != n + 1 || !matches!(ctx.type_data(ctx.value_type(args[0])), TypeData::Index) {
        return Err(err(ctx, op, "body must take the induction variable (index) and one value per iter_arg"));
    }
    for i in 0..n {
        let t = ctx.value_type(ctx.operand(op, i));
        if ctx.value_type(args[i + 1]) != t || ctx.value_type(ctx.result(op, i)) != t {
            return Err(err(ctx, op, format!("iter_arg {i}: init, block argument and result must share a type")));
        }
    }
    let term = ctx.block_ops(body).last().ok_or_else(|| err(ctx, op, "body needs a terminator"))?;
    if ctx.op_name(term) != YIELD {
        return Err(err(ctx, op, "body must end with loop.yield"));
    }
    let yielded: Vec<Type> = ctx.operands(term).map(|v| ctx.value_type(v)).collect();
    let expected: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    if yielded != expected {
        return Err(err(ctx, op, "loop.yield must yield one value per iter_arg, of its type"));
    }
    Ok(())
}

/// `%r = loop.for %i = 0 to 8 step 2 parallel iter_args(%a = %x) -> (f32) { ... }`.
fn parse_for(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let iv = p.parse_operand()?;
    p.expect(TokenKind::Equal, "'=' after the induction variable")?;
    let lo = p.parse_integer()?;
    p.parse_keyword("to")?;
    let hi = p.parse_size()?;
    let step = if p.parse_optional_keyword("step") { p.parse_integer()? } else { 1 };
    for (k, v) in [("lower", lo), ("upper", hi), ("step", step)] {
        let k = p.ctx().sym(k);
        let v = p.ctx().i64_attr(v);
        st.add_attr(k, v);
    }
    if p.parse_optional_keyword("parallel") {
        let k = p.ctx().sym("parallel");
        let v = p.ctx().unit_attr();
        st.add_attr(k, v);
    }
    let index = p.ctx().index_type();
    let mut args = vec![Argument { name: iv.name, ty: index, attrs: Vec::new(), loc: iv.loc }];
    if p.parse_optional_keyword("iter_args") {
        p.expect(TokenKind::LParen, "'(' after iter_args")?;
        let mut pairs = Vec::new();
        p.parse_comma_separated(|p| {
            let inner = p.parse_operand()?;
            p.expect(TokenKind::Equal, "'=' in iter_args")?;
            let init = p.parse_operand()?;
            pairs.push((inner, init));
            Ok(())
        })?;
        p.expect(TokenKind::RParen, "')' after iter_args")?;
        p.expect(TokenKind::Arrow, "'->' and the iter_args types")?;
        let types = p.parse_function_result_types()?;
        if types.len() != pairs.len() {
            return Err(p.error_here(format!("{} iter_args but {} types", pairs.len(), types.len())));
        }
        for ((inner, init), &t) in pairs.into_iter().zip(&types) {
            let v = p.resolve_operand(init, t)?;
            st.operands.push(v);
            st.result_types.push(t);
            args.push(Argument { name: inner.name, ty: t, attrs: Vec::new(), loc: inner.loc });
        }
    }
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let region = p.parse_region_implicit_terminator(&args, YIELD)?;
    st.regions.push(region);
    Ok(())
}

fn print_for(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    let body = ctx.single_block(op, 0).expect("verified");
    let args = ctx.block_args(body).to_vec();
    p.w(" ");
    p.print_operand(args[0]);
    let (lo, hi, step) =
        (ctx.attr_i64(op, "lower").unwrap_or(0), ctx.attr_i64(op, "upper").unwrap_or(0), ctx.attr_i64(op, "step"));
    p.w(&format!(" = {lo} to {}", aot_ir::sym::display(hi)));
    if let Some(s) = step.filter(|&s| s != 1) {
        p.w(&format!(" step {s}"));
    }
    if ctx.has_attr(op, "parallel") {
        p.w(" parallel");
    }
    if ctx.num_operands(op) > 0 {
        p.w(" iter_args(");
        for (i, v) in ctx.operands(op).enumerate() {
            if i > 0 {
                p.w(", ");
            }
            p.print_operand(args[i + 1]);
            p.w(" = ");
            p.print_operand(v);
        }
        p.w(") -> (");
        p.print_types(ctx.results(op).iter().map(|&r| ctx.value_type(r)));
        p.w(")");
    }
    p.print_attr_dict_with_keyword(ctx.attrs(op), &["lower", "upper", "step", "parallel"]);
    p.w(" ");
    p.print_region_elide_terminator(ctx.regions(op)[0], false);
}

// ----- memory access -----

fn check_indices(ctx: &Context, op: Op, m: &MemRefType, first: usize) -> Result<(), Diagnostic> {
    let n = ctx.num_operands(op) - first;
    if n != m.shape.len() {
        return Err(err(
            ctx,
            op,
            format!("needs {} indices for a rank-{} memref, got {n}", m.shape.len(), m.shape.len()),
        ));
    }
    for i in first..ctx.num_operands(op) {
        if !matches!(ctx.type_data(ctx.value_type(ctx.operand(op, i))), TypeData::Index) {
            return Err(err(ctx, op, "indices must be of type index"));
        }
    }
    Ok(())
}

fn verify_load(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let m = memref(ctx, ctx.operand(op, 0)).ok_or_else(|| err(ctx, op, "first operand must be a memref"))?;
    check_indices(ctx, op, m, 1)?;
    if *ctx.type_data(ctx.value_type(ctx.result(op, 0))) != TypeData::Elem(m.elem) {
        return Err(err(ctx, op, format!("result must be the element type {}", m.elem)));
    }
    Ok(())
}

fn verify_store(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let m = memref(ctx, ctx.operand(op, 1)).ok_or_else(|| err(ctx, op, "second operand must be a memref"))?;
    check_indices(ctx, op, m, 2)?;
    if *ctx.type_data(ctx.value_type(ctx.operand(op, 0))) != TypeData::Elem(m.elem) {
        return Err(err(ctx, op, format!("stored value must be of the element type {}", m.elem)));
    }
    Ok(())
}

fn parse_index_list<'s>(p: &mut Parser<'_, 's>) -> ParseResult<Vec<UnresolvedOperand<'s>>> {
    p.expect(TokenKind::LSquare, "'[' before the indices")?;
    let mut v = Vec::new();
    p.parse_list_until(TokenKind::RSquare, "']' after the indices", |p| {
        v.push(p.parse_operand()?);
        Ok(())
    })?;
    Ok(v)
}

/// `%v = loop.load %buf[%i, %j] : memref<...>`.
fn parse_load(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let buf = p.parse_operand()?;
    let idx = parse_index_list(p)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.expect(TokenKind::Colon, "':' before the memref type")?;
    let loc = p.current_loc();
    let ty = p.parse_type()?;
    let TypeData::MemRef(m) = p.ctx().type_data(ty).clone() else {
        return Err(Diagnostic::error(loc, "expected a memref type"));
    };
    st.operands.push(p.resolve_operand(buf, ty)?);
    let index = p.ctx().index_type();
    for i in idx {
        st.operands.push(p.resolve_operand(i, index)?);
    }
    let e = p.ctx().elem_type(m.elem);
    st.result_types.push(e);
    Ok(())
}

fn print_indices(p: &mut OpPrinter<'_>, op: Op, first: usize) {
    let ctx = p.ctx();
    p.w("[");
    p.print_operands(ctx.operands(op).skip(first));
    p.w("]");
}

fn print_load(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.w(" ");
    p.print_operand(ctx.operand(op, 0));
    print_indices(p, op, 1);
    p.print_attr_dict(ctx.attrs(op), &[]);
    p.w(" : ");
    p.print_type(ctx.value_type(ctx.operand(op, 0)));
}

/// `loop.store %v, %buf[%i, %j] : memref<...>`.
fn parse_store(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let val = p.parse_operand()?;
    p.expect(TokenKind::Comma, "',' after the stored value")?;
    let buf = p.parse_operand()?;
    let idx = parse_index_list(p)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.expect(TokenKind::Colon, "':' before the memref type")?;
    let loc = p.current_loc();
    let ty = p.parse_type()?;
    let TypeData::MemRef(m) = p.ctx().type_data(ty).clone() else {
        return Err(Diagnostic::error(loc, "expected a memref type"));
    };
    let e = p.ctx().elem_type(m.elem);
    st.operands.push(p.resolve_operand(val, e)?);
    st.operands.push(p.resolve_operand(buf, ty)?);
    let index = p.ctx().index_type();
    for i in idx {
        st.operands.push(p.resolve_operand(i, index)?);
    }
    Ok(())
}

fn print_store(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.w(" ");
    p.print_operand(ctx.operand(op, 0));
    p.w(", ");
    p.print_operand(ctx.operand(op, 1));
    print_indices(p, op, 2);
    p.print_attr_dict(ctx.attrs(op), &[]);
    p.w(" : ");
    p.print_type(ctx.value_type(ctx.operand(op, 1)));
}

// ----- scalars -----

fn scalar_operands(ic: &InferCtx<'_>, n: usize) -> Result<Vec<TypeData>, String> {
    if ic.operand_types.len() != n {
        return Err(format!("expects {n} operands"));
    }
    Ok(ic.operand_types.iter().map(|&t| ic.ctx.type_data(t).clone()).collect())
}

/// Same-typed arithmetic operands; `pred` restricts the type.
fn infer_same(ic: &InferCtx<'_>, n: usize, pred: fn(&TypeData) -> bool, what: &str) -> InferResult {
    let ts = scalar_operands(ic, n)?;
    if ts.iter().any(|t| *t != ts[0]) {
        return Err("operands must have the same type".into());
    }
    if !is_arith(&ts[0]) || !pred(&ts[0]) {
        return Err(format!("operands must be {what}"));
    }
    Ok(smallvec![ts[0].clone()])
}

type InferResult = Result<smallvec::SmallVec<[TypeData; 1]>, String>;

fn numeric(t: &TypeData) -> bool {
    !matches!(t, TypeData::Elem(ElemType::I1))
}

fn infer_binary(ic: &InferCtx<'_>) -> InferResult {
    infer_same(ic, 2, numeric, "numbers (index, integers or f32/f64)")
}

fn infer_rem(ic: &InferCtx<'_>) -> InferResult {
    infer_same(ic, 2, |t| is_int(t) && numeric(t), "integers or index")
}

fn infer_float_unary(ic: &InferCtx<'_>) -> InferResult {
    infer_same(ic, 1, is_float, "f32 or f64")
}

/// A math function of the table: one or two same-typed floats.
fn infer_float_math(ic: &InferCtx<'_>) -> InferResult {
    let n = ic.operand_types.len();
    if !(1..=2).contains(&n) {
        return Err("expects one or two operands".into());
    }
    infer_same(ic, n, is_float, "f32 or f64")
}

fn infer_numeric_unary(ic: &InferCtx<'_>) -> InferResult {
    infer_same(ic, 1, numeric, "numbers (index, integers or f32/f64)")
}

fn infer_logic(ic: &InferCtx<'_>) -> InferResult {
    infer_same(ic, 2, |t| is_int(t) && !matches!(t, TypeData::Index), "integers or i1")
}

fn infer_shift(ic: &InferCtx<'_>) -> InferResult {
    infer_same(ic, 2, |t| matches!(t, TypeData::Elem(ElemType::I64 | ElemType::I32)), "i32 or i64")
}

fn infer_cmp(ic: &InferCtx<'_>) -> InferResult {
    let ts = scalar_operands(ic, 2)?;
    if ts[0] != ts[1] || !is_arith(&ts[0]) {
        return Err("operands must be two arithmetic scalars of one type".into());
    }
    match ic.attr_view().str("predicate") {
        Some(p) if Predicate::parse(p).is_some() => Ok(smallvec![TypeData::Elem(ElemType::I1)]),
        Some(p) => {
            let all: Vec<&str> = Predicate::ALL.iter().map(|p| p.name()).collect();
            Err(format!("unknown predicate '{p}' (expected one of {all:?})"))
        }
        None => Err("needs a 'predicate'".into()),
    }
}

fn infer_select(ic: &InferCtx<'_>) -> InferResult {
    let ts = scalar_operands(ic, 3)?;
    if ts[0] != TypeData::Elem(ElemType::I1) {
        return Err("the condition must be i1".into());
    }
    if ts[1] != ts[2] || !is_scalar(&ts[1]) {
        return Err("both choices must be scalars of one type".into());
    }
    Ok(smallvec![ts[1].clone()])
}

fn infer_fma(ic: &InferCtx<'_>) -> InferResult {
    infer_same(ic, 3, is_float, "f32 or f64")
}

fn infer_philox(ic: &InferCtx<'_>) -> InferResult {
    let ts = scalar_operands(ic, 2)?;
    if ts.iter().any(|t| *t != TypeData::Elem(ElemType::I64)) {
        return Err("seed and counter must be i64".into());
    }
    let w = TypeData::Elem(ElemType::I64);
    Ok(smallvec![w.clone(), w.clone(), w.clone(), w])
}

fn verify_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (a, r) = (ctx.type_data(ctx.value_type(ctx.operand(op, 0))), ctx.type_data(ctx.value_type(ctx.result(op, 0))));
    if !is_scalar(a) || !is_scalar(r) {
        return Err(err(ctx, op, "casts between scalar types"));
    }
    Ok(())
}

fn verify_assert(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    if *ctx.type_data(ctx.value_type(ctx.operand(op, 0))) != TypeData::Elem(ElemType::I1) {
        return Err(err(ctx, op, "the condition must be i1"));
    }
    if ctx.attr_str(op, "msg").is_none() {
        return Err(err(ctx, op, "needs a 'msg'"));
    }
    Ok(())
}

fn verify_constant(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let a = ctx.get_attr(op, "value").ok_or_else(|| err(ctx, op, "needs a 'value'"))?;
    let rt = ctx.value_type(ctx.result(op, 0));
    let ok = match ctx.attr_data(a) {
        AttrData::Int { ty, .. } => *ty == rt && is_int(ctx.type_data(rt)),
        AttrData::Float { ty, .. } => *ty == rt && is_float(ctx.type_data(rt)),
        _ => false,
    };
    if !ok {
        return Err(err(ctx, op, "value must be an integer or float attribute of the result type"));
    }
    Ok(())
}

/// `%c = loop.constant 1.5 : f32`; an i1 is `true` or `false`, as MLIR
/// prints it (`1 : i1` is accepted too). Every form is stored as an
/// integer attribute of the result type.
fn parse_constant(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let loc = p.current_loc();
    let mut a = p.parse_attribute()?;
    if let AttrData::Bool(b) = *p.ctx().attr_data(a) {
        let ty = p.ctx().elem_type(ElemType::I1);
        a = p.ctx().attr(AttrData::Int { value: i64::from(b), ty });
    }
    let ty = match p.ctx().attr_data(a) {
        AttrData::Int { ty, .. } | AttrData::Float { ty, .. } => *ty,
        _ => {
            return Err(Diagnostic::error(
                loc,
                "expected a typed integer or float (`1.0 : f32`, `4 : index`) or `true`/`false`",
            ))
        }
    };
    let k = p.ctx().sym("value");
    st.add_attr(k, a);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types.push(ty);
    Ok(())
}

fn print_constant(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.w(" ");
    let value = ctx.get_attr(op, "value").expect("verified");
    match ctx.attr_data(value) {
        AttrData::Int { value: v, ty } if *ty == ctx.elem_type(ElemType::I1) => {
            p.w(if *v != 0 { "true" } else { "false" })
        }
        _ => p.print_attr(value),
    }
    p.print_attr_dict(ctx.attrs(op), &["value"]);
}

// ----- definitions -----

const PURE: Traits = Traits::PURE;
/// The ops that take symbolic sizes (buffer shapes, layouts, a loop's
/// upper bound, a GEMM's or an attention's dimensions, planned per size);
/// the others (globals, argument metadata) are refused one by the
/// verifier.
const SYM: Traits = Traits::SYMBOLIC_SHAPES;
/// `c = a·b` reads `a` and `b`, and `c` too when it accumulates.
const MATMUL_EFFECTS: &[EffectOn] = &[
    (Effect::Read, On::Operand(0)),
    (Effect::Read, On::Operand(1)),
    (Effect::Read, On::Operand(2)),
    (Effect::Write, On::Operand(2)),
];
const ONE: Arity = Arity::Exact(1);

inventory::submit! {
    OpDef {
        name: ALLOC,
        summary: "A fresh contiguous buffer (at `offset` bytes into the arena once memory is planned; with symbolic sizes, `live` = its first and last host op, placed per call)",
        traits: SYM,
        results: ONE,
        attrs: &[AttrSpec::optional("offset", AttrKind::I64), AttrSpec::optional("live", AttrKind::I64List)],
        verify: Some(verify_alloc),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Alloc, &MemoryEffects::Fixed(&[(Effect::Allocate, On::Result(0))])],
        ..OpDef::DEFAULT
    }
}

fn verify_global(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let m = memref(ctx, ctx.result(op, 0)).ok_or_else(|| err(ctx, op, "result must be a memref"))?;
    let a = ctx.get_attr(op, "value").ok_or_else(|| err(ctx, op, "needs a 'value'"))?;
    let AttrData::Dense { ty, .. } = ctx.attr_data(a) else {
        return Err(err(ctx, op, "value must be a dense elements attribute"));
    };
    match ctx.type_data(*ty) {
        TypeData::Tensor(t) if t.shape == m.shape && t.elem == m.elem && m.layout.is_none() => Ok(()),
        _ => Err(err(ctx, op, "value must have the result's shape and element type (contiguous)")),
    }
}

inventory::submit! {
    OpDef {
        name: GLOBAL,
        summary: "A read-only buffer holding `value`, shared by every call",
        traits: PURE,
        results: ONE,
        attrs: &[AttrSpec::required("value", AttrKind::Dense)],
        verify: Some(verify_global),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Global],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: VIEW,
        summary: "The same allocation under another strided layout (no copy)",
        traits: PURE.union(SYM),
        operands: ONE,
        results: ONE,
        verify: Some(verify_view),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::View],
        ..OpDef::DEFAULT
    }
}

fn verify_rebind(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let n = ctx.num_operands(op);
    for i in 0..n {
        if memref(ctx, ctx.operand(op, i)).is_none() {
            return Err(err(ctx, op, "operands must be memrefs"));
        }
    }
    let arg = ctx.operand(op, 0);
    let is_func_arg = matches!(ctx.value_def(arg), ValueDef::BlockArg { block, .. }
        if ctx.block_parent_op(block).is_some_and(|o| ctx.op_name(o) == "func.func"));
    if !is_func_arg {
        return Err(err(ctx, op, "first operand must be an argument of the enclosing function"));
    }
    let r = memref(ctx, ctx.result(op, 0)).ok_or_else(|| err(ctx, op, "result must be a memref"))?;
    let src = memref(ctx, ctx.operand(op, n - 1)).expect("checked");
    if r.elem != src.elem {
        return Err(err(ctx, op, "result must have the source's element type"));
    }
    if ctx.op_name(op) == RESIZE && ctx.attr_i64(op, "numel").is_none_or(|n| n < 0) {
        return Err(err(ctx, op, "needs a non-negative 'numel'"));
    }
    Ok(())
}

inventory::submit! {
    OpDef {
        name: REBIND,
        summary: "After the call, function argument %arg is a tensor over %src's allocation with the result's layout (set_); `stride`, when given, is the argument's exact strides (a memref type does not keep the strides of size-1 dimensions, PyTorch does)",
        operands: Arity::Exact(2),
        results: ONE,
        attrs: &[AttrSpec::optional("stride", AttrKind::I64List)],
        verify: Some(verify_rebind),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Rebind],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: RESIZE,
        summary: "Grows function argument %arg's storage to `numel` elements from its offset; the result is %arg under the result's layout (resize_)",
        operands: ONE,
        results: ONE,
        attrs: &[AttrSpec::required("numel", AttrKind::I64)],
        verify: Some(verify_rebind),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Resize],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: KERNEL,
        summary: "A loop nest over buffers; its block arguments are the buffers it reads and writes",
        traits: SYM,
        operands: Arity::AtLeast(0),
        regions: 1,
        attrs: &[AttrSpec::required("name", AttrKind::Str)],
        verify: Some(verify_kernel),
        syntax: Syntax::Custom { parse: parse_kernel, print: print_kernel },
        interfaces: &[&LoopOp::Kernel, &MemoryEffects::Recursive],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: MATMUL,
        summary: "c = a·b (or c += a·b with `accumulate`) over leading batch dims, by an external GEMM (f32, f64, or bf16 a and b into f32 c)",
        traits: SYM,
        operands: Arity::Exact(3),
        attrs: &[AttrSpec::optional("accumulate", AttrKind::Flag)],
        verify: Some(verify_matmul),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Matmul, &MemoryEffects::Fixed(MATMUL_EFFECTS)],
        ..OpDef::DEFAULT
    }
}

fn verify_collective(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ms: Vec<&MemRefType> = (0..2)
        .map(|i| memref(ctx, ctx.operand(op, i)).ok_or_else(|| err(ctx, op, "operands must be memrefs")))
        .collect::<Result<_, _>>()?;
    if ms.iter().any(|m| m.layout.is_some()) {
        return Err(err(ctx, op, "a collective reads and writes contiguous buffers (no layout)"));
    }
    if ms[0].elem != ms[1].elem {
        return Err(err(ctx, op, "the input and output buffers must have one element type"));
    }
    let a = AttrView::of_op(ctx, op);
    let kind = a.str("kind").ok_or_else(|| err(ctx, op, "missing 'kind'"))?;
    crate::dist::kernels::collective_from(kind, &a).map_err(|m| err(ctx, op, m))?;
    crate::dist::group_of(&a).map_err(|m| err(ctx, op, m))?;
    Ok(())
}

/// `loop.collective` reads its input and writes its output.
const COLLECTIVE_EFFECTS: &[EffectOn] = &[(Effect::Read, On::Operand(0)), (Effect::Write, On::Operand(1))];

inventory::submit! {
    OpDef {
        name: COLLECTIVE,
        summary: "A collective (`kind`: all_reduce, all_gather, reduce_scatter, all_to_all, broadcast) of the process group `group` of `size` ranks, from a contiguous input into a contiguous output, run by the group's communicator",
        operands: Arity::Exact(2),
        attrs: &[
            AttrSpec::required("kind", AttrKind::Str),
            AttrSpec::required("group", AttrKind::Str),
            AttrSpec::required("size", AttrKind::I64),
            AttrSpec::optional("reduce", AttrKind::Str),
            AttrSpec::optional("src", AttrKind::I64),
        ],
        verify: Some(verify_collective),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Collective, &MemoryEffects::Fixed(COLLECTIVE_EFFECTS)],
        ..OpDef::DEFAULT
    }
}

/// `loop.attention` reads q, k, v and the mask, writes out and lse.
const ATTENTION_EFFECTS: &[EffectOn] = &[
    (Effect::Read, On::Operand(0)),
    (Effect::Read, On::Operand(1)),
    (Effect::Read, On::Operand(2)),
    (Effect::Write, On::Operand(3)),
    (Effect::Write, On::Operand(4)),
    (Effect::Read, On::Operand(5)),
];

inventory::submit! {
    OpDef {
        name: ATTENTION,
        summary: "out, lse = softmax(scale·q·kᵀ + mask)·v and each row's log-sum-exp, by an external kernel that never stores the scores (f32)",
        traits: SYM,
        operands: Arity::Range(5, 6),
        attrs: &[AttrSpec::required("scale", AttrKind::F64), AttrSpec::optional("causal", AttrKind::Flag)],
        verify: Some(verify_attention),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Attention, &MemoryEffects::Fixed(ATTENTION_EFFECTS)],
        ..OpDef::DEFAULT
    }
}

/// `loop.attention_grad` reads g, q, k, v, out, lse and the mask, writes
/// dq, dk and dv.
const ATTENTION_GRAD_EFFECTS: &[EffectOn] = &[
    (Effect::Read, On::Operand(0)),
    (Effect::Read, On::Operand(1)),
    (Effect::Read, On::Operand(2)),
    (Effect::Read, On::Operand(3)),
    (Effect::Read, On::Operand(4)),
    (Effect::Read, On::Operand(5)),
    (Effect::Write, On::Operand(6)),
    (Effect::Write, On::Operand(7)),
    (Effect::Write, On::Operand(8)),
    (Effect::Read, On::Operand(9)),
];

inventory::submit! {
    OpDef {
        name: ATTENTION_GRAD,
        summary: "dq, dk, dv of loop.attention from the output gradient, the output and the log-sum-exp, by an external kernel that recomputes the probabilities per block of keys (f32)",
        traits: SYM,
        operands: Arity::Range(9, 10),
        attrs: &[AttrSpec::required("scale", AttrKind::F64), AttrSpec::optional("causal", AttrKind::Flag)],
        verify: Some(verify_attention_grad),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::AttentionGrad, &MemoryEffects::Fixed(ATTENTION_GRAD_EFFECTS)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: FOR,
        summary: "A counted loop from a constant to a constant or symbolic upper bound by a constant step; `iter_args` carry values between iterations",
        traits: SYM,
        operands: Arity::AtLeast(0),
        results: Arity::AtLeast(0),
        regions: 1,
        attrs: &[
            AttrSpec::required("lower", AttrKind::I64),
            AttrSpec::required("upper", AttrKind::I64),
            AttrSpec::optional("step", AttrKind::I64),
            AttrSpec::optional("parallel", AttrKind::Flag),
        ],
        verify: Some(verify_for),
        syntax: Syntax::Custom { parse: parse_for, print: print_for },
        interfaces: &[&LoopOp::For, &MemoryEffects::Recursive],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: YIELD,
        summary: "Ends a loop body or kernel, yielding the next iter_args",
        traits: Traits::TERMINATOR,
        operands: Arity::AtLeast(0),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Yield, &aot_ir::effects::NONE],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: LOAD,
        summary: "Reads one element",
        traits: SYM,
        operands: Arity::AtLeast(1),
        results: ONE,
        verify: Some(verify_load),
        syntax: Syntax::Custom { parse: parse_load, print: print_load },
        interfaces: &[&LoopOp::Load, &MemoryEffects::Fixed(&[(Effect::Read, On::Operand(0))])],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: STORE,
        summary: "Writes one element",
        traits: SYM,
        operands: Arity::AtLeast(2),
        verify: Some(verify_store),
        syntax: Syntax::Custom { parse: parse_store, print: print_store },
        interfaces: &[&LoopOp::Store, &MemoryEffects::Fixed(&[(Effect::Write, On::Operand(1))])],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: ASSERT,
        summary: "Fails the call with `msg` when the condition is false",
        operands: ONE,
        attrs: &[AttrSpec::required("msg", AttrKind::Str)],
        verify: Some(verify_assert),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Assert, &MemoryEffects::Fixed(&[(Effect::Trap, On::Call)])],
        ..OpDef::DEFAULT
    }
}

fn verify_size(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let d = ctx.attr_i64(op, "size").ok_or_else(|| err(ctx, op, "needs a 'size'"))?;
    if !aot_ir::sym::is_symbolic(d) {
        return Err(err(ctx, op, "the size must be symbolic (a static one is a loop.constant)"));
    }
    if !matches!(ctx.type_data(ctx.value_type(ctx.result(op, 0))), TypeData::Index) {
        return Err(err(ctx, op, "the result must be an index"));
    }
    Ok(())
}

/// `%n = loop.size (s0*4)`.
fn parse_size_op(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let d = p.parse_size()?;
    let k = p.ctx().sym("size");
    let v = p.ctx().i64_attr(d);
    st.add_attr(k, v);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let index = p.ctx().index_type();
    st.result_types.push(index);
    Ok(())
}

fn print_size_op(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.w(&format!(" {}", aot_ir::sym::display(ctx.attr_i64(op, "size").unwrap_or(0))));
    p.print_attr_dict(ctx.attrs(op), &["size"]);
}

inventory::submit! {
    OpDef {
        name: SIZE,
        summary: "The value of a symbolic size, as an index (read from the call's size table)",
        traits: PURE.union(SYM),
        results: ONE,
        attrs: &[AttrSpec::required("size", AttrKind::I64)],
        verify: Some(verify_size),
        syntax: Syntax::Custom { parse: parse_size_op, print: print_size_op },
        interfaces: &[&LoopOp::Size],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: CONSTANT,
        summary: "A scalar constant",
        traits: PURE,
        results: ONE,
        attrs: &[AttrSpec::required("value", AttrKind::Any)],
        verify: Some(verify_constant),
        syntax: Syntax::Custom { parse: parse_constant, print: print_constant },
        interfaces: &[&LoopOp::Constant],
        ..OpDef::DEFAULT
    }
}

/// Declares scalar ops: an enum of them (matched exhaustively by every
/// backend) and one registered op per variant, whose [`LoopOp`] identity
/// is its interface.
macro_rules! scalar_ops {
    ($(#[$m:meta])* $enum:ident { $($v:ident = $name:literal, $summary:literal, $n:expr, $infer:expr;)* }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $enum { $($v),* }

        impl $enum {
            /// The op's full name.
            pub const fn name(self) -> &'static str {
                match self { $($enum::$v => $name),* }
            }
        }

        $(
            inventory::submit! {
                OpDef {
                    name: $name,
                    summary: $summary,
                    traits: PURE,
                    operands: Arity::Exact($n),
                    results: ONE,
                    infer: Some($infer),
                    syntax: Syntax::Functional,
                    interfaces: &[&LoopOp::Scalar(ScalarOp::$enum($enum::$v))],
                    ..OpDef::DEFAULT
                }
            }
        )*
    };
}

scalar_ops! {
    /// Two-operand arithmetic on integers, `index` and floats.
    Binary {
        Add = "loop.add", "a + b (integers wrap)", 2, infer_binary;
        Sub = "loop.sub", "a - b (integers wrap)", 2, infer_binary;
        Mul = "loop.mul", "a · b (integers wrap)", 2, infer_binary;
        Div = "loop.div", "a / b (integers and index: floor division)", 2, infer_binary;
        Rem = "loop.rem", "a mod b with the divisor's sign (integers and index)", 2, infer_rem;
        Max = "loop.max", "The larger of a and b (NaN if either is NaN)", 2, infer_binary;
        Min = "loop.min", "The smaller of a and b (NaN if either is NaN)", 2, infer_binary;
        And = "loop.and", "Bitwise and", 2, infer_logic;
        Or = "loop.or", "Bitwise or", 2, infer_logic;
        Xor = "loop.xor", "Bitwise exclusive or", 2, infer_logic;
        Shr = "loop.shr", "Logical shift right", 2, infer_shift;
    }
}

scalar_ops! {
    /// One-operand arithmetic every backend has an instruction for (math
    /// functions that need a library are in [`math`]).
    Unary {
        Neg = "loop.neg", "-a (integers wrap)", 1, infer_numeric_unary;
        Abs = "loop.abs", "|a| (integers wrap)", 1, infer_numeric_unary;
        Sqrt = "loop.sqrt", "Square root (correctly rounded)", 1, infer_float_unary;
        Rsqrt = "loop.rsqrt", "1 / sqrt(a)", 1, infer_float_unary;
        Floor = "loop.floor", "Largest integer not above a", 1, infer_float_unary;
        Ceil = "loop.ceil", "Smallest integer not below a", 1, infer_float_unary;
        Trunc = "loop.trunc", "a rounded toward zero", 1, infer_float_unary;
        Round = "loop.round", "a rounded to the nearest integer, ties to even", 1, infer_float_unary;
    }
}

inventory::submit! {
    OpDef {
        name: SELECT,
        summary: "c ? a : b",
        traits: PURE,
        operands: Arity::Exact(3),
        results: ONE,
        infer: Some(infer_select),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Scalar(ScalarOp::Select)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: FMA,
        summary: "a·b + c rounded once (f32 or f64)",
        traits: PURE,
        operands: Arity::Exact(3),
        results: ONE,
        infer: Some(infer_fma),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Scalar(ScalarOp::Fma)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: PHILOX,
        summary: "Philox4x32-10 block (seed, counter): four 32-bit words, zero-extended",
        traits: PURE,
        operands: Arity::Exact(2),
        results: Arity::Exact(4),
        infer: Some(infer_philox),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Philox],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: CMP,
        summary: "Compares two scalars (`predicate`: eq, ne, lt, le, gt, ge; false on NaN except ne)",
        traits: PURE,
        operands: Arity::Exact(2),
        results: ONE,
        attrs: &[AttrSpec::required("predicate", AttrKind::Str)],
        infer: Some(infer_cmp),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Scalar(ScalarOp::Cmp)],
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: CAST,
        summary: "Converts a scalar (floats round to nearest, float to integer truncates, to i1 tests != 0)",
        traits: PURE,
        operands: ONE,
        results: ONE,
        verify: Some(verify_cast),
        syntax: Syntax::Functional,
        interfaces: &[&LoopOp::Scalar(ScalarOp::Cast)],
        ..OpDef::DEFAULT
    }
}

#[cfg(test)]
mod cast_tests {
    use super::*;
    use ElemType::*;

    #[test]
    fn cast_plans_route_halves_through_f32_and_name_each_conversion() {
        let plan = |f, t| CastPlan::of(f, t);
        assert_eq!(plan(F32, F32), CastPlan { from_half: None, convert: Conversion::Same, to_half: None });
        assert_eq!(plan(F16, BF16), CastPlan { from_half: Some(F16), convert: Conversion::Same, to_half: Some(BF16) });
        assert_eq!(plan(BF16, I1), CastPlan { from_half: Some(BF16), convert: Conversion::FloatToBool, to_half: None });
        assert_eq!(
            plan(I8, F16),
            CastPlan { from_half: None, convert: Conversion::IntToFloat { unsigned: false }, to_half: Some(F16) }
        );
        assert_eq!(plan(I1, F64).convert, Conversion::IntToFloat { unsigned: true });
        assert_eq!(plan(F64, I8).convert, Conversion::FloatToInt);
        assert_eq!(plan(F32, F64).convert, Conversion::FloatResize);
        assert_eq!(plan(I64, I1).convert, Conversion::IntToBool);
        assert_eq!(plan(I1, I32).convert, Conversion::IntResize { unsigned: true });
        assert_eq!(plan(I64, I8).convert, Conversion::IntResize { unsigned: false });
        assert_eq!(
            CastPlan::between(&TypeData::Index, &TypeData::Elem(I64)).map(|p| p.convert),
            Some(Conversion::Same)
        );
    }
}
