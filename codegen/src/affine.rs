//! Affine index expressions over `index` values inside kernels: the
//! analysis fusion uses to turn views into index arithmetic (and prove
//! divisions away) and the vectorizer uses to find unit-stride accesses.
//! An expression is `Σ coef·atom + c`; an atom is any index value that is
//! not itself an affine combination (an induction variable, a loaded
//! index, a division). Ranges come from the bounds of induction variables.

use aot_dialects::r#loop::{self, Binary, LoopOp, ScalarOp};
use aot_ir::*;

/// `Σ coef·atom + c` over index values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub terms: Vec<(Value, i64)>,
    pub c: i64,
}

impl Expr {
    pub fn constant(c: i64) -> Expr {
        Expr { terms: Vec::new(), c }
    }

    pub fn plus(mut self, o: &Expr) -> Expr {
        for &(v, k) in &o.terms {
            match self.terms.iter_mut().find(|t| t.0 == v) {
                Some(t) => t.1 += k,
                None => self.terms.push((v, k)),
            }
        }
        self.c += o.c;
        self.terms.retain(|t| t.1 != 0);
        self.terms.sort_by_key(|t| t.0.as_u32());
        self
    }

    pub fn scale(mut self, k: i64) -> Expr {
        self.terms.iter_mut().for_each(|t| t.1 *= k);
        self.c *= k;
        self.terms.retain(|t| t.1 != 0);
        self
    }
}

pub fn index_const(ctx: &Context, v: Value) -> Option<i64> {
    let op = ctx.defining_op(v)?;
    if LoopOp::of(ctx, op) != Some(LoopOp::Constant) {
        return None;
    }
    ctx.get_attr(op, "value").and_then(|a| ctx.attr_as_i64(a))
}

/// The affine form of an index value (atoms where it is not affine).
pub fn expr_of(ctx: &Context, v: Value) -> Expr {
    let atom = Expr { terms: vec![(v, 1)], c: 0 };
    if !matches!(ctx.type_data(ctx.value_type(v)), TypeData::Index) {
        return atom;
    }
    if let Some(c) = index_const(ctx, v) {
        return Expr::constant(c);
    }
    let Some(op) = ctx.defining_op(v) else { return atom };
    let (a, b) = match ctx.num_operands(op) {
        2 => (ctx.operand(op, 0), ctx.operand(op, 1)),
        _ => return atom,
    };
    match LoopOp::of(ctx, op) {
        Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Add))) => expr_of(ctx, a).plus(&expr_of(ctx, b)),
        Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Sub))) => expr_of(ctx, a).plus(&expr_of(ctx, b).scale(-1)),
        Some(LoopOp::Scalar(ScalarOp::Binary(Binary::Mul))) => match (index_const(ctx, a), index_const(ctx, b)) {
            (_, Some(k)) => expr_of(ctx, a).scale(k),
            (Some(k), _) => expr_of(ctx, b).scale(k),
            _ => atom,
        },
        _ => atom,
    }
}

/// The values a loop's induction variable takes, as an inclusive range.
pub fn iv_range(ctx: &Context, v: Value) -> Option<(i64, i64)> {
    let ValueDef::BlockArg { block, index: 0 } = ctx.value_def(v) else { return None };
    let op = ctx.block_parent_op(block)?;
    if LoopOp::of(ctx, op) != Some(LoopOp::For) {
        return None;
    }
    let (lo, hi, st) =
        (ctx.attr_i64(op, "lower")?, ctx.attr_i64(op, "upper")?, ctx.attr_i64(op, "step").unwrap_or(1).max(1));
    // A run-time trip count bounds nothing here.
    if aot_ir::sym::is_symbolic(hi) {
        return None;
    }
    if hi <= lo {
        return Some((lo, lo));
    }
    let span = hi.checked_sub(1)?.checked_sub(lo)?;
    Some((lo, lo.checked_add(span / st * st)?))
}

/// The inclusive range `e` takes; `None` where an atom is unbounded or the
/// bounds do not fit `i64` (no simplification is then attempted).
pub fn range(ctx: &Context, e: &Expr) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = (e.c, e.c);
    for &(v, k) in &e.terms {
        let (a, b) = iv_range(ctx, v)?;
        let (x, y) = (a.checked_mul(k)?, b.checked_mul(k)?);
        lo = lo.checked_add(x.min(y))?;
        hi = hi.checked_add(x.max(y))?;
    }
    Some((lo, hi))
}

/// `e div d` when the remainder is provably in `[0, d)`.
pub fn floordiv(ctx: &Context, e: &Expr, d: i64) -> Option<Expr> {
    if d == 1 {
        return Some(e.clone());
    }
    // A zero-size dimension makes a divisor of 0 (nothing is addressed);
    // such an access is left as it is.
    if d <= 0 {
        return None;
    }
    let (q, r) = split(e, d);
    let (lo, hi) = range(ctx, &r)?;
    (lo >= 0 && hi < d).then_some(q)
}

/// `e` as `g·outer + rest`: `outer` from the terms whose coefficients `g`
/// divides (and the constant's quotient), `rest` the other terms and the
/// constant's remainder.
fn split(e: &Expr, g: i64) -> (Expr, Expr) {
    let mut outer = Expr::constant(e.c.div_euclid(g));
    let mut rest = Expr::constant(e.c.rem_euclid(g));
    for &(v, k) in &e.terms {
        if k % g == 0 {
            outer.terms.push((v, k / g));
        } else {
            rest.terms.push((v, k));
        }
    }
    (outer, rest)
}

/// `e div d` as `outer div (d / g)`, returned as `(outer, d / g)`, where
/// `e = g·outer + rest`, `g` divides `d` and `rest` is provably in
/// `[0, g)` (writing `outer` as `(d/g)·q + s` with `0 ≤ s < d/g`, the
/// remainder `g·s + rest` stays below `d`). A reshape copy fused into a
/// row kernel reads row `r`, column `j` of a slice at `(r·n + j) div
/// (m·n)`: that is `r div m`, which the row's inner loop does not depend
/// on, where the whole quotient made every element divide (and kept the
/// loop out of vector lanes). The largest such `g` (a coefficient of `e`)
/// is taken.
pub fn coarse_floordiv(ctx: &Context, e: &Expr, d: i64) -> Option<(Expr, i64)> {
    let mut gs: Vec<i64> = e.terms.iter().map(|&(_, k)| k).filter(|&k| k > 1 && d % k == 0).collect();
    gs.sort_unstable_by(|a, b| b.cmp(a));
    gs.dedup();
    gs.into_iter().find_map(|g| {
        let (outer, rest) = split(e, g);
        let (lo, hi) = range(ctx, &rest)?;
        (lo >= 0 && hi < g).then_some((outer, d / g))
    })
}

/// `e mod n` when it simplifies: terms that are multiples of `n` vanish and
/// the rest must be provably in `[0, n)`.
pub fn modulo(ctx: &Context, e: &Expr, n: i64) -> Option<Expr> {
    if n <= 0 {
        return None;
    }
    let mut r = Expr::constant(e.c.rem_euclid(n));
    for &(v, k) in &e.terms {
        if k % n != 0 {
            r.terms.push((v, k));
        }
    }
    let (lo, hi) = range(ctx, &r)?;
    if lo >= 0 && hi < n {
        return Some(r);
    }
    None
}

/// The element offset a load/store addresses, as an expression; `None`
/// when the layout has a symbolic stride or offset (a run-time size,
/// which an expression's integer coefficients cannot hold).
pub fn flat_offset(ctx: &Context, m: &MemRefType, idx: &[Value]) -> Option<Expr> {
    let (strides, off) = r#loop::layout(m);
    if aot_ir::sym::is_symbolic(off) || strides.iter().any(|&s| aot_ir::sym::is_symbolic(s)) {
        return None;
    }
    let mut e = Expr::constant(off);
    for (&i, &s) in idx.iter().zip(strides.iter()) {
        if s != 0 {
            e = e.plus(&expr_of(ctx, i).scale(s));
        }
    }
    Some(e)
}

impl Expr {
    /// The coefficient of atom `v`.
    pub fn coef(&self, v: Value) -> i64 {
        self.terms.iter().find(|t| t.0 == v).map_or(0, |t| t.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The induction variables of the loops of the first kernel of `text`.
    fn ivs(text: &str) -> (Context, Vec<Value>) {
        let (ctx, func) = aot_dialects::func::parse_function(text, "affine.mlir").expect("parses");
        let mut out = Vec::new();
        ctx.walk_pre(func, &mut |o| {
            if LoopOp::of(&ctx, o) == Some(LoopOp::For) {
                let b = ctx.single_block(o, 0).expect("body");
                out.push(ctx.block_args(b)[0]);
            }
        });
        (ctx, out)
    }

    #[test]
    fn a_run_time_trip_count_bounds_nothing() {
        let text = r#"func.func @f(%x: memref<s0x8xf32>) {
  loop.kernel "k" (%a = %x : memref<s0x8xf32>) {
    loop.for %i = 0 to s0 {
      loop.for %j = 0 to 8 {
        %v = loop.load %a[%i, %j] : memref<s0x8xf32>
        loop.store %v, %a[%i, %j] : memref<s0x8xf32>
      }
    }
  }
  return
}"#;
        let (ctx, ivs) = ivs(text);
        // (Read as a number, the symbol's id is below 0: the loop would
        // have looked empty, its variable always 0.)
        assert_eq!(iv_range(&ctx, ivs[0]), None);
        assert_eq!(iv_range(&ctx, ivs[1]), Some((0, 7)));
        // So no division of i by a constant is folded away.
        let e = Expr { terms: vec![(ivs[0], 1)], c: 0 };
        assert_eq!(range(&ctx, &e), None);
    }
}
