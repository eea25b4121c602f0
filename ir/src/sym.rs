//! Symbolic sizes: a dimension that is an integer expression over the
//! symbols `s0`, `s1`, ... of a function's argument sizes.
//!
//! A size stays an `i64` everywhere a shape is (`Shape`, `array<i64: ...>`
//! attributes): a non-negative value is a constant, and a value in
//! `[SYM_BASE, SYM_BASE + 2³²)` (far below any negative size a user could
//! write, above [`crate::types::DYNAMIC`]) names an interned expression.
//! Expressions are kept in one canonical form (a polynomial with integer
//! coefficients whose atoms are symbols and `floordiv`/`mod` of a
//! polynomial by a positive constant), and the table interns each form
//! once, process-wide. So two sizes are equal as `i64` exactly when their
//! expressions are identical, and a shape rule that only copies sizes,
//! compares them with `==` or tests `== 1` is correct for symbolic sizes as
//! written; a rule that computes with sizes goes through [`add`], [`mul`],
//! [`floordiv`], [`numel`] and friends, which fold constants and keep the
//! canonical form. An expression's id is meaningful only in this process:
//! the text format spells expressions out (`s0`, `(s0*4 + 1)`), never ids.
//!
//! Symbols are at least 2 at run time (sizes 0 and 1 stay specialized, as
//! Dynamo does), so broadcasting and contiguity decide on a symbolic size
//! with no guard: it is never 1. Every operation is checked: a coefficient
//! that overflows is an error, never a wrapped value.
//!
//! [`Guard`]s are predicates over symbols (`(s0 mod 4) == 0`, `s1 <= s0`)
//! that a function carries in its `aot.guards` attribute: decisions its
//! shape rules made that the symbols' ranges alone do not prove. [`Facts`]
//! is what a shape rule may assume: the ranges and those guards.

use rustc_hash::FxHashMap;
use std::fmt::Write as _;
use std::sync::{OnceLock, RwLock};

/// The first symbolic size; `SYM_BASE + id` is expression `id`.
pub const SYM_BASE: i64 = i64::MIN + 1;
/// How many expressions the table can name.
const MAX_EXPRS: i64 = 1 << 32;
/// The symbols a function may have (`s0` .. `s65535`).
pub const MAX_SYMBOLS: u32 = 1 << 16;
/// The smallest value a symbol takes (0 and 1 are specialized).
pub const MIN_SYMBOL_VALUE: i64 = 2;
/// Atoms in one monomial and terms in one polynomial: far beyond any shape
/// arithmetic a model does, and a bound on hostile text.
const MAX_DEGREE: usize = 16;
const MAX_TERMS: usize = 64;

/// Why a symbolic computation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SymError {
    #[error("size arithmetic overflows a 64-bit integer")]
    Overflow,
    #[error("division of a size by {0}: the divisor must be a positive constant")]
    BadDivisor(i64),
    #[error("size expression too large (more than {MAX_TERMS} terms or degree {MAX_DEGREE})")]
    TooLarge,
    #[error("symbol s{0} has no value")]
    Unbound(u32),
    #[error("too many distinct size expressions in this process")]
    TableFull,
}

/// A factor of a monomial.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Atom {
    Sym(u32),
    /// `floor(expr / c)`, `c > 1`, expr an interned non-constant id.
    FloorDiv(u32, i64),
    /// `expr mod c` (in `[0, c)`), `c > 1`.
    Mod(u32, i64),
}

/// `Σ coefficient · Π atoms + constant`: terms sorted by monomial, no zero
/// coefficient, no repeated monomial, atoms of a monomial sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
struct Poly {
    terms: Vec<(Vec<Atom>, i64)>,
    constant: i64,
}

struct Table {
    polys: Vec<Poly>,
    index: FxHashMap<Poly, u32>,
}

fn table() -> &'static RwLock<Table> {
    static T: OnceLock<RwLock<Table>> = OnceLock::new();
    T.get_or_init(|| RwLock::new(Table { polys: Vec::new(), index: FxHashMap::default() }))
}

/// How many expressions the table holds: an id beyond it names nothing.
static INTERNED: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

/// Whether `d` is a symbolic size (not a constant, not `?`): an id of an
/// expression the table holds. Any other value of the reserved range (an
/// integer a user wrote, or a Rust caller made up) is just a negative
/// number, which every size check rejects.
pub fn is_symbolic(d: i64) -> bool {
    d >= SYM_BASE && d < SYM_BASE + INTERNED.load(std::sync::atomic::Ordering::Acquire)
}

/// Whether `v` lies in the range of values that name expressions (the
/// parser refuses such a number).
pub fn is_reserved(v: i64) -> bool {
    (SYM_BASE..SYM_BASE + MAX_EXPRS).contains(&v)
}

/// Whether a layout's sizes, strides and offset are all constants (a
/// compile-time layout of a symbolic function is not: its rules compute
/// with expressions, and analyses that visit elements decline it).
pub fn layout_is_static(sizes: &[i64], strides: &[i64], offset: i64) -> bool {
    is_static(sizes) && is_static(strides) && !is_symbolic(offset)
}

/// What a symbolic size counts as where a cost model needs a number (the
/// simplifier's extraction, the partitioner's memory model): their
/// choices compare costs, and one plausible size serves.
pub const SIZE_HINT: i64 = 64;

/// `d` with its symbols at [`SIZE_HINT`] (`None` on overflow).
pub fn at_hint(d: i64) -> Option<i64> {
    eval(d, &|_| Some(SIZE_HINT)).ok()
}

/// One past the last storage element a layout reaches, `offset + 1 + Σ
/// (size - 1)·stride`, as an expression: where the layout is not empty and
/// its strides are not negative (the caller's facts say so), the end of
/// the range of elements it addresses.
pub fn layout_end(sizes: &[i64], strides: &[i64], offset: i64) -> Result<i64, SymError> {
    let mut end = add(offset, 1)?;
    for (&n, &st) in sizes.iter().zip(strides) {
        end = add(end, mul(sub(n, 1)?, st)?)?;
    }
    Ok(end)
}

/// The order of the dimensions, outermost first, in which `strides` are
/// the row-major strides of `sizes`: a dense layout of a permutation of the
/// dimensions (a channels-last image batch, a transpose), with sizes and
/// strides compared as expressions (their canonical forms). Dimensions of
/// size 1 may have any stride and go outermost. `None` where no order
/// gives these strides.
pub fn dense_permutation(sizes: &[i64], strides: &[i64]) -> Option<Vec<usize>> {
    if sizes.len() != strides.len() {
        return None;
    }
    let mut left: Vec<usize> = (0..sizes.len()).filter(|&d| sizes[d] != 1).collect();
    let mut inner_first: Vec<usize> = Vec::with_capacity(sizes.len());
    let mut expected = 1i64;
    while !left.is_empty() {
        let k = left.iter().position(|&d| strides[d] == expected)?;
        let d = left.remove(k);
        inner_first.push(d);
        expected = mul(expected, sizes[d]).ok()?;
    }
    let mut order: Vec<usize> = (0..sizes.len()).filter(|&d| sizes[d] == 1).collect();
    order.extend(inner_first.into_iter().rev());
    Some(order)
}

/// The row-major strides of `sizes` taken in dimension order `order`
/// (outermost first): the strides of a dense permuted layout, as
/// expressions.
pub fn strides_in_order(sizes: &[i64], order: &[usize]) -> Result<Vec<i64>, SymError> {
    let mut strides = vec![1i64; sizes.len()];
    let mut acc = 1i64;
    for &d in order.iter().rev() {
        strides[d] = acc;
        acc = mul(acc, sizes[d])?;
    }
    Ok(strides)
}

/// Whether every size of `shape` is a constant.
pub fn is_static(shape: &[i64]) -> bool {
    !shape.iter().any(|&d| is_symbolic(d))
}

fn poly_of(d: i64) -> Poly {
    if is_symbolic(d) {
        let t = table().read().unwrap_or_else(|e| e.into_inner());
        t.polys[(d - SYM_BASE) as usize].clone()
    } else {
        Poly { terms: Vec::new(), constant: d }
    }
}

fn intern(p: Poly) -> Result<i64, SymError> {
    if p.terms.is_empty() {
        return Ok(p.constant);
    }
    if p.terms.len() > MAX_TERMS || p.terms.iter().any(|(m, _)| m.len() > MAX_DEGREE) {
        return Err(SymError::TooLarge);
    }
    {
        let t = table().read().unwrap_or_else(|e| e.into_inner());
        if let Some(&id) = t.index.get(&p) {
            return Ok(SYM_BASE + id as i64);
        }
    }
    let mut t = table().write().unwrap_or_else(|e| e.into_inner());
    if let Some(&id) = t.index.get(&p) {
        return Ok(SYM_BASE + id as i64);
    }
    let id = t.polys.len();
    if id as i64 >= MAX_EXPRS {
        return Err(SymError::TableFull);
    }
    t.polys.push(p.clone());
    t.index.insert(p, id as u32);
    INTERNED.store(t.polys.len() as i64, std::sync::atomic::Ordering::Release);
    Ok(SYM_BASE + id as i64)
}

/// The size that is symbol `s{k}`.
pub fn symbol(k: u32) -> i64 {
    intern(atom_poly(Atom::Sym(k), 1)).expect("a single symbol always fits the table")
}

/// `(e, m)` when `d` is exactly `e mod m`.
fn as_mod(d: i64) -> Option<(i64, i64)> {
    if !is_symbolic(d) {
        return None;
    }
    let p = poly_of(d);
    match (&p.terms[..], p.constant) {
        ([(atoms, 1)], 0) => match &atoms[..] {
            [Atom::Mod(e, m)] => Some((SYM_BASE + *e as i64, *m)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether concrete sizes `got` can be an instance of `want`: the same
/// rank, and every constant size equal (symbolic ones are checked when a
/// call binds them: [`Bindings::bind`]).
pub fn fits(want: &[i64], got: &[i64]) -> bool {
    want.len() == got.len() && want.iter().zip(got).all(|(&w, &g)| is_symbolic(w) || w == g)
}

/// The symbol `d` is, when it is exactly one symbol.
pub fn as_symbol(d: i64) -> Option<u32> {
    if !is_symbolic(d) {
        return None;
    }
    let p = poly_of(d);
    match (&p.terms[..], p.constant) {
        ([(m, 1)], 0) => match &m[..] {
            [Atom::Sym(k)] => Some(*k),
            _ => None,
        },
        _ => None,
    }
}

fn normalize(mut terms: Vec<(Vec<Atom>, i64)>, constant: i64) -> Result<Poly, SymError> {
    for (m, _) in terms.iter_mut() {
        m.sort();
    }
    terms.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(Vec<Atom>, i64)> = Vec::with_capacity(terms.len());
    for (m, c) in terms {
        match out.last_mut() {
            Some((lm, lc)) if *lm == m => *lc = lc.checked_add(c).ok_or(SymError::Overflow)?,
            _ => out.push((m, c)),
        }
    }
    out.retain(|(_, c)| *c != 0);
    Ok(Poly { terms: out, constant })
}

fn add_polys(a: &Poly, b: &Poly, sign: i64) -> Result<Poly, SymError> {
    let mut terms = a.terms.clone();
    for (m, c) in &b.terms {
        terms.push((m.clone(), c.checked_mul(sign).ok_or(SymError::Overflow)?));
    }
    let k = b.constant.checked_mul(sign).ok_or(SymError::Overflow)?;
    normalize(terms, a.constant.checked_add(k).ok_or(SymError::Overflow)?)
}

/// `p`'s terms, its constant among them as the empty monomial (where it is
/// not 0).
fn terms_with_constant(p: &Poly) -> Vec<(Vec<Atom>, i64)> {
    let mut v = p.terms.clone();
    if p.constant != 0 {
        v.push((Vec::new(), p.constant));
    }
    v
}

/// `a + b`.
pub fn add(a: i64, b: i64) -> Result<i64, SymError> {
    if !is_symbolic(a) && !is_symbolic(b) {
        return a.checked_add(b).ok_or(SymError::Overflow);
    }
    intern(add_polys(&poly_of(a), &poly_of(b), 1)?)
}

/// `a - b`.
pub fn sub(a: i64, b: i64) -> Result<i64, SymError> {
    if !is_symbolic(a) && !is_symbolic(b) {
        return a.checked_sub(b).ok_or(SymError::Overflow);
    }
    intern(add_polys(&poly_of(a), &poly_of(b), -1)?)
}

/// `a · b`.
pub fn mul(a: i64, b: i64) -> Result<i64, SymError> {
    if !is_symbolic(a) && !is_symbolic(b) {
        return a.checked_mul(b).ok_or(SymError::Overflow);
    }
    let (pa, pb) = (poly_of(a), poly_of(b));
    let mut terms = Vec::new();
    // (Σ ma + ca)(Σ mb + cb) term by term.
    let mut constant = 0i64;
    let tb = terms_with_constant(&pb);
    for (ma, ca) in terms_with_constant(&pa) {
        for (mb, cb) in &tb {
            let c = ca.checked_mul(*cb).ok_or(SymError::Overflow)?;
            if ma.is_empty() && mb.is_empty() {
                constant = constant.checked_add(c).ok_or(SymError::Overflow)?;
            } else {
                let mut m = ma.clone();
                m.extend(mb.iter().cloned());
                if m.len() > MAX_DEGREE {
                    return Err(SymError::TooLarge);
                }
                terms.push((m, c));
            }
        }
    }
    intern(normalize(terms, constant)?)
}

/// Splits `p` into `c·q + r` where `q` takes every term (and the constant
/// part) divisible by `c`: `floor(p / c) = q + floor(r / c)` for integer
/// valued atoms.
fn split_by(p: &Poly, c: i64) -> (Poly, Poly) {
    let mut q = Poly::default();
    let mut r = Poly::default();
    for (m, k) in &p.terms {
        if k % c == 0 {
            q.terms.push((m.clone(), k / c));
        } else {
            r.terms.push((m.clone(), *k));
        }
    }
    q.constant = p.constant.div_euclid(c);
    r.constant = p.constant.rem_euclid(c);
    (q, r)
}

/// `floor(a / c)` for a positive constant `c`.
pub fn floordiv(a: i64, c: i64) -> Result<i64, SymError> {
    if c <= 0 || is_symbolic(c) {
        return Err(SymError::BadDivisor(c));
    }
    if !is_symbolic(a) {
        return Ok(a.div_euclid(c));
    }
    if c == 1 {
        return Ok(a);
    }
    match divide(a, c)? {
        // r is a constant in [0, c): floor(r / c) = 0.
        (q, Remainder::Constant(_)) => intern(q),
        // floor((c·q + g·r') / (g·c')) = q + floor(r' / c').
        (q, Remainder::Reduced { inner, c, .. }) => {
            // A remainder that is a quotient plus a rest (its common factor
            // divided out: `floor(2·(s floordiv 2) / 8)` is `(s floordiv
            // 8)`) is one quotient ([`flattened`]).
            let quotient = match flattened(SYM_BASE + inner as i64, c) {
                Some(d) => poly_of(d),
                None => atom_poly(Atom::FloorDiv(inner, c), 1),
            };
            intern(add_polys(&q, &quotient, 1)?)
        }
    }
}

/// `floor(a / c)` as one quotient where `a` is `floor(e / k) + y` (a term
/// `floor(e / k)` with coefficient 1, `y` the rest, integer valued):
/// `floor((e + k·y) / (k·c))`. Exact for every value (write `e = k·q + r`,
/// `q + y = c·t + m`: the numerator is `k·c·t + (k·m + r)`, and `0 <= k·m + r
/// < k·c`), so the two ways of writing a quotient of a quotient (a pooling
/// after a strided convolution: PyTorch's `(s + 3) floordiv 4`, the rules'
/// `((s + 1) floordiv 2 + 1) floordiv 2`) have one form. `None` where `a`
/// has no such term or the arithmetic overflows (the nested form is as
/// exact). Each step removes one `floordiv`, so the recursion ends.
fn flattened(a: i64, c: i64) -> Option<i64> {
    let (e, k) = nested_quotient(a)?;
    let kc = c.checked_mul(k)?;
    let y = sub(a, intern(atom_poly(Atom::FloorDiv(e, k), 1)).ok()?).ok()?;
    let n = add(SYM_BASE + e as i64, mul(y, k).ok()?).ok()?;
    floordiv(n, kc).ok()
}

/// `(e, k)` of the first term of `a` that is exactly `floor(e / k)` (a
/// coefficient of 1, no other factor).
fn nested_quotient(a: i64) -> Option<(u32, i64)> {
    poly_of(a).terms.iter().find_map(|(m, k)| match (&m[..], k) {
        ([Atom::FloorDiv(e, q)], 1) => Some((*e, *q)),
        _ => None,
    })
}

/// What is left of a symbolic `a` over a constant `c > 1` once the terms
/// `c` divides are taken out.
enum Remainder {
    /// In `[0, c)`.
    Constant(i64),
    /// `g·r'` with `r'` interned (`inner`) and `c = g·c'`: the common factor
    /// divided out, so that one quotient has one form.
    Reduced { inner: u32, c: i64, g: i64 },
}

/// `a = c·q + remainder` (see [`Remainder`]).
fn divide(a: i64, c: i64) -> Result<(Poly, Remainder), SymError> {
    let (q, r) = split_by(&poly_of(a), c);
    if r.terms.is_empty() {
        return Ok((q, Remainder::Constant(r.constant)));
    }
    let g = common_factor(&r, c);
    let inner = intern(scale_down(&r, g))?;
    Ok((q, Remainder::Reduced { inner: (inner - SYM_BASE) as u32, c: c / g, g }))
}

/// The polynomial `k·atom`.
fn atom_poly(atom: Atom, k: i64) -> Poly {
    Poly { terms: vec![(vec![atom], k)], constant: 0 }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// The largest factor of `c` that divides every coefficient of `p`.
fn common_factor(p: &Poly, c: i64) -> i64 {
    p.terms.iter().fold(gcd(p.constant, c), |g, (_, k)| gcd(g, *k)).max(1)
}

fn scale_down(p: &Poly, g: i64) -> Poly {
    Poly { terms: p.terms.iter().map(|(m, k)| (m.clone(), k / g)).collect(), constant: p.constant / g }
}

/// `a mod c` (in `[0, c)`) for a positive constant `c`.
pub fn modulo(a: i64, c: i64) -> Result<i64, SymError> {
    if c <= 0 || is_symbolic(c) {
        return Err(SymError::BadDivisor(c));
    }
    if !is_symbolic(a) {
        return Ok(a.rem_euclid(c));
    }
    if c == 1 {
        return Ok(0);
    }
    match divide(a, c)? {
        (_, Remainder::Constant(r)) => Ok(r),
        // (g·r') mod (g·c') = g·(r' mod c').
        (_, Remainder::Reduced { inner, c, g }) => intern(atom_poly(Atom::Mod(inner, c), g)),
    }
}

/// The product of `dims` (1 for none).
pub fn numel(dims: &[i64]) -> Result<i64, SymError> {
    dims.iter().try_fold(1i64, |n, &d| mul(n, d))
}

/// The symbols `d` mentions, sorted, without repeats.
pub fn symbols(d: i64) -> Vec<u32> {
    let mut out = Vec::new();
    collect_symbols(d, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

fn collect_symbols(d: i64, out: &mut Vec<u32>) {
    if !is_symbolic(d) {
        return;
    }
    for (m, _) in poly_of(d).terms {
        for a in m {
            match a {
                Atom::Sym(k) => out.push(k),
                Atom::FloorDiv(e, _) | Atom::Mod(e, _) => collect_symbols(SYM_BASE + e as i64, out),
            }
        }
    }
}

/// The value of `d` when each symbol `k` is `value(k)`.
pub fn eval(d: i64, value: &dyn Fn(u32) -> Option<i64>) -> Result<i64, SymError> {
    if !is_symbolic(d) {
        return Ok(d);
    }
    let p = poly_of(d);
    let mut acc = p.constant;
    for (m, c) in &p.terms {
        let mut t = *c;
        for a in m {
            let v = match *a {
                Atom::Sym(k) => value(k).ok_or(SymError::Unbound(k))?,
                Atom::FloorDiv(e, q) => eval(SYM_BASE + e as i64, value)?.div_euclid(q),
                Atom::Mod(e, q) => eval(SYM_BASE + e as i64, value)?.rem_euclid(q),
            };
            t = t.checked_mul(v).ok_or(SymError::Overflow)?;
        }
        acc = acc.checked_add(t).ok_or(SymError::Overflow)?;
    }
    Ok(acc)
}

/// `d` with the symbols `value` gives a number for replaced by it, the
/// others kept (a partial evaluation, in canonical form).
pub fn substitute(d: i64, value: &dyn Fn(u32) -> Option<i64>) -> Result<i64, SymError> {
    if !is_symbolic(d) {
        return Ok(d);
    }
    let p = poly_of(d);
    let mut acc = p.constant;
    for (m, c) in &p.terms {
        let mut t = *c;
        for a in m {
            let v = match *a {
                Atom::Sym(k) => value(k).map_or_else(|| intern(atom_poly(Atom::Sym(k), 1)), Ok)?,
                Atom::FloorDiv(e, q) => floordiv(substitute(SYM_BASE + e as i64, value)?, q)?,
                Atom::Mod(e, q) => modulo(substitute(SYM_BASE + e as i64, value)?, q)?,
            };
            t = mul(t, v)?;
        }
        acc = add(acc, t)?;
    }
    Ok(acc)
}

/// `shape` with every size evaluated.
pub fn eval_shape(shape: &[i64], value: &dyn Fn(u32) -> Option<i64>) -> Result<crate::Shape, SymError> {
    shape.iter().map(|&d| eval(d, value)).collect()
}

// ----- text -----

fn write_atom(a: &Atom, out: &mut String) {
    match *a {
        Atom::Sym(k) => {
            let _ = write!(out, "s{k}");
        }
        Atom::FloorDiv(e, c) => {
            out.push('(');
            write_dim(SYM_BASE + e as i64, out);
            let _ = write!(out, " floordiv {c})");
        }
        Atom::Mod(e, c) => {
            out.push('(');
            write_dim(SYM_BASE + e as i64, out);
            let _ = write!(out, " mod {c})");
        }
    }
}

fn write_poly(p: &Poly, out: &mut String) {
    for (i, (m, c)) in p.terms.iter().enumerate() {
        let mag = c.unsigned_abs();
        if i == 0 {
            if *c < 0 {
                out.push('-');
            }
        } else {
            out.push_str(if *c < 0 { " - " } else { " + " });
        }
        for (j, a) in m.iter().enumerate() {
            if j > 0 {
                out.push('*');
            }
            write_atom(a, out);
        }
        if mag != 1 {
            let _ = write!(out, "*{mag}");
        }
    }
    if p.constant != 0 || p.terms.is_empty() {
        if p.terms.is_empty() {
            let _ = write!(out, "{}", p.constant);
        } else {
            let _ = write!(out, " {} {}", if p.constant < 0 { '-' } else { '+' }, p.constant.unsigned_abs());
        }
    }
}

/// `d` as it is written in a shape: `4`, `s0`, `(s0*4 + 1)`.
pub fn display(d: i64) -> String {
    let mut out = String::new();
    write_dim(d, &mut out);
    out
}

/// Appends `d` as [`display`] writes it.
pub fn write_dim(d: i64, out: &mut String) {
    if !is_symbolic(d) {
        let _ = write!(out, "{d}");
        return;
    }
    let p = poly_of(d);
    // A symbol, or a floordiv or mod with its own parentheses.
    if let ([(m, 1)], 0) = (&p.terms[..], p.constant) {
        if let [a] = &m[..] {
            write_atom(a, out);
            return;
        }
    }
    out.push('(');
    write_poly(&p, out);
    out.push(')');
}

/// A recursive-descent reader of size expressions over bytes.
struct Reader<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

const MAX_NESTING: usize = 32;

impl Reader<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> u8 {
        self.s.get(self.pos).copied().unwrap_or(0)
    }

    fn keyword(&mut self, kw: &str) -> bool {
        let end = self.pos + kw.len();
        if self.s.get(self.pos..end) == Some(kw.as_bytes())
            && !self.s.get(end).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.pos = end;
            true
        } else {
            false
        }
    }

    fn integer(&mut self) -> Result<i64, String> {
        let start = self.pos;
        while self.peek().is_ascii_digit() {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        text.parse::<i64>().map_err(|_| format!("size '{text}' does not fit a 64-bit integer"))
    }

    fn symbol(&mut self) -> Result<i64, String> {
        self.pos += 1; // 's'
        if !self.peek().is_ascii_digit() {
            return Err("expected a symbol 's<N>'".into());
        }
        let k = self.integer()?;
        if !(0..MAX_SYMBOLS as i64).contains(&k) {
            return Err(format!("symbol s{k} is out of range (s0 .. s{})", MAX_SYMBOLS - 1));
        }
        Ok(symbol(k as u32))
    }

    /// A size at dimension position: an integer, a symbol or `( expr )`.
    fn dim(&mut self) -> Result<i64, String> {
        match self.peek() {
            b'0'..=b'9' => self.integer(),
            b's' => self.symbol(),
            b'(' => {
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return Err("size expression nested too deeply".into());
                }
                self.pos += 1;
                let v = self.expr()?;
                self.skip_ws();
                if self.peek() != b')' {
                    return Err("expected ')' to close a size expression".into());
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(v)
            }
            _ => Err("expected a size: an integer, a symbol 's<N>' or '(' expression ')'".into()),
        }
    }

    fn factor(&mut self) -> Result<i64, String> {
        self.skip_ws();
        if self.peek() == b'-' {
            self.pos += 1;
            let f = self.factor()?;
            return mul(-1, f).map_err(|e| e.to_string());
        }
        self.dim()
    }

    fn term(&mut self) -> Result<i64, String> {
        let mut v = self.factor()?;
        loop {
            self.skip_ws();
            if self.peek() == b'*' {
                self.pos += 1;
                let f = self.factor()?;
                v = mul(v, f).map_err(|e| e.to_string())?;
            } else if self.keyword("floordiv") {
                self.skip_ws();
                let c = self.integer()?;
                v = floordiv(v, c).map_err(|e| e.to_string())?;
            } else if self.keyword("mod") {
                self.skip_ws();
                let c = self.integer()?;
                v = modulo(v, c).map_err(|e| e.to_string())?;
            } else {
                return Ok(v);
            }
        }
    }

    fn expr(&mut self) -> Result<i64, String> {
        let mut v = self.term()?;
        loop {
            self.skip_ws();
            match self.peek() {
                b'+' => {
                    self.pos += 1;
                    let t = self.term()?;
                    v = add(v, t).map_err(|e| e.to_string())?;
                }
                b'-' => {
                    self.pos += 1;
                    let t = self.term()?;
                    v = sub(v, t).map_err(|e| e.to_string())?;
                }
                _ => return Ok(v),
            }
        }
    }
}

/// Reads one size at the start of `src` as a shape writes it (an integer,
/// `s<N>` or a parenthesized expression); returns it and the bytes read.
pub fn parse_dim(src: &[u8]) -> Result<(i64, usize), String> {
    let mut r = Reader { s: src, pos: 0, depth: 0 };
    let v = r.dim()?;
    Ok((v, r.pos))
}

/// Reads a whole size expression (`s0*4 + 1`, no parentheses needed).
pub fn parse_expr(src: &str) -> Result<i64, String> {
    let mut r = Reader { s: src.as_bytes(), pos: 0, depth: 0 };
    let v = r.expr()?;
    r.skip_ws();
    if r.pos != src.len() {
        return Err(format!("unexpected '{}' in size expression", &src[r.pos..]));
    }
    Ok(v)
}

// ----- guards and facts -----

/// A relation between two sizes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Rel {
    fn text(self) -> &'static str {
        match self {
            Rel::Eq => "==",
            Rel::Ne => "!=",
            Rel::Lt => "<",
            Rel::Le => "<=",
            Rel::Gt => ">",
            Rel::Ge => ">=",
        }
    }

    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Rel::Eq => a == b,
            Rel::Ne => a != b,
            Rel::Lt => a < b,
            Rel::Le => a <= b,
            Rel::Gt => a > b,
            Rel::Ge => a >= b,
        }
    }
}

/// A predicate `lhs rel rhs` over symbols that a compiled function assumes
/// and its callers' sizes must satisfy.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub lhs: i64,
    pub rel: Rel,
    pub rhs: i64,
}

impl Guard {
    pub fn new(lhs: i64, rel: Rel, rhs: i64) -> Guard {
        Guard { lhs, rel, rhs }
    }

    /// Whether the guard holds for the symbols' values.
    pub fn holds(&self, value: &dyn Fn(u32) -> Option<i64>) -> Result<bool, SymError> {
        Ok(self.rel.holds(eval(self.lhs, value)?, eval(self.rhs, value)?))
    }

    /// The symbols it mentions.
    pub fn symbols(&self) -> Vec<u32> {
        let mut s = symbols(self.lhs);
        s.extend(symbols(self.rhs));
        s.sort_unstable();
        s.dedup();
        s
    }

    /// Reads `lhs rel rhs` (`(s0 mod 4) == 0`, `s1 <= s0*2`).
    pub fn parse(text: &str) -> Result<Guard, String> {
        for (op, rel) in
            [("==", Rel::Eq), ("!=", Rel::Ne), ("<=", Rel::Le), (">=", Rel::Ge), ("<", Rel::Lt), (">", Rel::Gt)]
        {
            if let Some(at) = text.find(op) {
                let lhs = parse_expr(text[..at].trim())?;
                let rhs = parse_expr(text[at + op.len()..].trim())?;
                return Ok(Guard { lhs, rel, rhs });
            }
        }
        Err(format!("guard '{text}' has no relation (==, !=, <, <=, >, >=)"))
    }
}

impl std::fmt::Display for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", display(self.lhs), self.rel.text(), display(self.rhs))
    }
}

/// A symbol's inclusive value range.
pub type Range = (i64, i64);

/// The largest value a symbol may take by default: a size whose element
/// count still fits any sane allocation.
pub const MAX_SYMBOL_VALUE: i64 = 1 << 40;

/// What shape rules may assume about a function's symbols: their ranges
/// and the guards the function carries.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub ranges: FxHashMap<u32, Range>,
    pub guards: Vec<Guard>,
}

/// Which side of `lhs == rhs` stands for the other in sizes
/// ([`Facts::equated`]): `(from, to)`, or `None` when a side is a constant
/// (settled elsewhere) or both are lone symbols (each binds an argument).
fn equated_direction(lhs: i64, rhs: i64) -> Option<(i64, i64)> {
    if !is_symbolic(lhs) || !is_symbolic(rhs) || lhs == rhs {
        return None;
    }
    match (as_symbol(lhs).is_some(), as_symbol(rhs).is_some()) {
        (true, true) => None,
        (true, false) => Some((rhs, lhs)),
        (false, true) => Some((lhs, rhs)),
        (false, false) => Some((rhs, lhs)),
    }
}

/// `d` with every monomial factor equal to a rule's atom multiplied in as
/// the rule's expression instead (the first rule for an atom wins);
/// `None` on overflow or when no factor matched.
fn replace_atoms(d: i64, rules: &[(Atom, i64)]) -> Option<i64> {
    let p = poly_of(d);
    let mut changed = false;
    let mut acc = p.constant;
    for (m, c) in &p.terms {
        let mut term = *c;
        for atom in m {
            let with = match rules.iter().find(|(a, _)| a == atom) {
                Some((_, to)) => {
                    changed = true;
                    *to
                }
                None => intern(atom_poly(atom.clone(), 1)).ok()?,
            };
            term = mul(term, with).ok()?;
        }
        acc = add(acc, term).ok()?;
    }
    changed.then_some(acc)
}

impl Facts {
    /// No declared ranges or guards.
    pub fn defaults() -> &'static Facts {
        static D: OnceLock<Facts> = OnceLock::new();
        D.get_or_init(Facts::default)
    }

    /// The facts of the function enclosing `op` (the nearest ancestor, or
    /// `op` itself, that declares ranges or guards), when `op` has a
    /// symbolic size; `None` otherwise or when they do not parse (the
    /// function's verifier reports that).
    pub fn enclosing(ctx: &crate::Context, op: crate::Op) -> Option<Facts> {
        let mut at = Some(op);
        while let Some(o) = at {
            if ctx.get_attr(o, RANGES_ATTR).is_some() || ctx.get_attr(o, GUARDS_ATTR).is_some() {
                return Facts::of_func(ctx, o).ok();
            }
            at = ctx.parent_op(o);
        }
        None
    }

    /// The range of symbol `k` (default `[2, MAX_SYMBOL_VALUE]`).
    pub fn range(&self, k: u32) -> Range {
        self.ranges.get(&k).copied().unwrap_or((MIN_SYMBOL_VALUE, MAX_SYMBOL_VALUE))
    }

    /// Whether `a == b` is known: identical, or a guard says so, also once
    /// each `c·(e floordiv q)` with `q` dividing `c` is written as
    /// `(c/q)·(e - (e mod q))` and the remainders guards make 0 are dropped
    /// (`(s0 floordiv 3)*3 == s0` under `(s0 mod 3) == 0`).
    ///
    /// A symbol a guard pins (`(4*s1) == 12`: Dynamo keeps a channel count
    /// symbolic and guards it where a weight fixes it) is its value here.
    pub fn known_eq(&self, a: i64, b: i64) -> bool {
        if self.known_eq_by_forms(a, b) {
            return true;
        }
        let Ok(diff) = sub(a, b) else { return false };
        let pinned = self.pinned_symbols();
        !pinned.is_empty()
            && substitute(diff, &|k| pinned.iter().find(|p| p.0 == k).map(|p| p.1))
                .is_ok_and(|d| d == 0 || self.without_divisions(d) == Some(0))
    }

    /// [`Facts::known_eq`] without pinned symbols: what `settled` decides
    /// by, as the translation does (a size it writes whole is a constant
    /// only where a guard says so of that size).
    fn known_eq_by_forms(&self, a: i64, b: i64) -> bool {
        if a == b {
            return true;
        }
        if is_symbolic(a) && is_symbolic(b) && self.equated_atoms(a) == self.equated_atoms(b) {
            return true;
        }
        let Ok(diff) = sub(a, b) else { return false };
        if self.guarded_zero(diff) {
            return true;
        }
        if self.without_divisions(diff).is_some_and(|d| d == 0 || self.guarded_zero(d)) {
            return true;
        }
        // A symbol a guard defines as an expression of others (`s4 ==
        // ((s2 + 1) floordiv 2)*((s3 + 1) floordiv 2)`: a tensor's length
        // that broadcasts against unfolded blocks) is that expression,
        // also where it is a factor (`s0*s4*9` against the blocks' count).
        let defs = self.symbol_definitions();
        if !defs.is_empty()
            && substitute(diff, &|k| defs.iter().find(|d| d.0 == k).map(|d| d.1))
                .is_ok_and(|d| d == 0 || self.without_divisions(d) == Some(0))
        {
            return true;
        }
        // A multiple of a guard's two sides' difference: the guard equates
        // a product of sizes (`((s1 - 1) floordiv 2 + 1)*((s2 - 1) floordiv
        // 2 + 1)*4 == s1*s2`, an upsampled map cropped back) and a size
        // has it as a factor (a group norm's `[s0, 2, 4, h·w]` view of the
        // `s0x8xs1xs2` map).
        let d = poly_of(diff);
        self.guards
            .iter()
            .filter(|g| g.rel == Rel::Eq)
            .any(|g| sub(g.lhs, g.rhs).is_ok_and(|x| is_symbolic(x) && multiple_of(&d, &poly_of(x))))
    }

    /// The symbols an `==` guard gives as an expression of other symbols
    /// (one side the lone symbol, the other symbolic and free of it), and
    /// those expressions; the first guard for a symbol wins.
    fn symbol_definitions(&self) -> Vec<(u32, i64)> {
        let mut defs: Vec<(u32, i64)> = Vec::new();
        for g in self.guards.iter().filter(|g| g.rel == Rel::Eq) {
            for (lone, other) in [(g.lhs, g.rhs), (g.rhs, g.lhs)] {
                let Some(k) = as_symbol(lone) else { continue };
                if !is_symbolic(other) || as_symbol(other).is_some() || symbols(other).contains(&k) {
                    continue;
                }
                if !defs.iter().any(|d| d.0 == k) {
                    defs.push((k, other));
                }
            }
        }
        defs
    }

    /// The symbols an `==` guard linear in one of them pins to a whole
    /// number (`a·s + b == c`, with `a` dividing `c - b`), and their values.
    fn pinned_symbols(&self) -> Vec<(u32, i64)> {
        self.guards
            .iter()
            .filter(|g| g.rel == Rel::Eq)
            .filter_map(|g| {
                let p = poly_of(sub(g.lhs, g.rhs).ok()?);
                let [(m, a)] = &p.terms[..] else { return None };
                let [Atom::Sym(k)] = m[..] else { return None };
                let b = p.constant;
                (b.checked_rem(*a)? == 0).then(|| (k, -(b / a)))
            })
            .collect()
    }

    /// Whether a guard says `d == 0` (as `lhs == rhs` with `lhs - rhs` equal
    /// to `d` or `-d`).
    fn guarded_zero(&self, d: i64) -> bool {
        self.guards
            .iter()
            .any(|g| g.rel == Rel::Eq && sub(g.lhs, g.rhs).is_ok_and(|x| x == d || mul(x, -1).is_ok_and(|n| n == d)))
    }

    /// `d` with its multiples of whole `floordiv`s rewritten by
    /// `q·(e floordiv q) = e - (e mod q)` (true for every `e` with `q > 0`),
    /// dropping a remainder a guard makes 0; `None` on overflow.
    fn without_divisions(&self, d: i64) -> Option<i64> {
        let p = poly_of(d);
        let mut acc = p.constant;
        for (m, c) in &p.terms {
            let term = match m[..] {
                [Atom::FloorDiv(e, q)] if c % q == 0 => {
                    let e = SYM_BASE + e as i64;
                    let r = modulo(e, q).ok()?;
                    let r = if self.guarded_zero(r) { 0 } else { r };
                    mul(c / q, sub(e, r).ok()?).ok()?
                }
                _ => intern(Poly { terms: vec![(m.clone(), *c)], constant: 0 }).ok()?,
            };
            acc = add(acc, term).ok()?;
        }
        Some(acc)
    }

    /// `d` as a constant where the ranges or a guard pin it to one
    /// (`(s1 + 31) floordiv 32` with `s1` in `[2, 32]`, or under the guard
    /// `((s1 + 31) floordiv 32) == 1`: the size is 1 at every size the
    /// function accepts), else `d`. PyTorch's `ShapeEnv` writes such a size
    /// as its constant once a guard decided it (resnet18 first called at
    /// 32x32 has layer4's map at 1x1), and so do the translated graph's
    /// types; shape rules settle their results the same way, so the two
    /// agree. Otherwise `d` with the quotients a guard makes exact
    /// multiplied out ([`Facts::exact_quotients`]).
    pub fn settled(&self, d: i64) -> i64 {
        if !is_symbolic(d) {
            return d;
        }
        if let Some((lo, hi)) = self.bounds(d) {
            if lo == hi {
                return lo;
            }
        }
        for g in &self.guards {
            if g.rel != Rel::Eq {
                continue;
            }
            for c in [g.lhs, g.rhs] {
                if !is_symbolic(c) && self.known_eq_by_forms(d, c) {
                    return c;
                }
            }
        }
        let d = self.equated(d);
        self.exact_quotients(d).unwrap_or(d)
    }

    /// `d` as the other side of an `==` guard between two expressions
    /// (`(s0*s1) == (s3*s2)`: a loss's targets flattened against its
    /// logits' rows, traced with symbols of their own): a compound side is
    /// the lone symbol on the other, and of two compound sides the right
    /// is the left. Whole sizes only, a few steps along a chain. The
    /// translation (`SymbolTable.settled` in aot_torch) writes sizes the
    /// same way, so a broadcast or a concatenation of the two agrees.
    fn equated(&self, mut d: i64) -> i64 {
        for _ in 0..8 {
            let next = self.guards.iter().filter(|g| g.rel == Rel::Eq).find_map(|g| {
                let (from, to) = equated_direction(g.lhs, g.rhs)?;
                (from == d).then_some(to)
            });
            match next {
                Some(to) => d = to,
                None => break,
            }
        }
        self.equated_atoms(d)
    }

    /// `d` with each quotient or remainder that an `==` guard equates to
    /// another expression (`(s2 floordiv 4) == (s1 floordiv 4)`: a square
    /// map's height against its width) written as that expression, where
    /// it is a factor of a monomial: `2·(s1 floordiv 4)`, two such rows
    /// concatenated, is `2·(s2 floordiv 4)`. Atoms nested in another
    /// atom's argument are left as they are (`SymbolTable.settled` in
    /// aot_torch rewrites the same factors).
    fn equated_atoms(&self, mut d: i64) -> i64 {
        let rules: Vec<(Atom, i64)> = self
            .guards
            .iter()
            .filter(|g| g.rel == Rel::Eq)
            .filter_map(|g| {
                let (from, to) = equated_direction(g.lhs, g.rhs)?;
                let p = poly_of(from);
                match (&p.terms[..], p.constant) {
                    ([(m, 1)], 0) if m.len() == 1 && !matches!(m[0], Atom::Sym(_)) => Some((m[0].clone(), to)),
                    _ => None,
                }
            })
            .collect();
        if rules.is_empty() || !is_symbolic(d) {
            return d;
        }
        for _ in 0..8 {
            match replace_atoms(d, &rules) {
                Some(next) if next != d => d = next,
                _ => break,
            }
        }
        d
    }

    /// `d` with the whole quotients a guard makes exact multiplied out, or
    /// `None` when there are none. In each monomial `c · Π atoms`, the
    /// quotients `e floordiv q` whose remainder a guard makes 0 (`(e mod q)
    /// == 0`, or `e == q·(e floordiv q)` as PyTorch writes it) are `e / q`;
    /// where the product `Q` of their divisors divides `c`, the monomial is
    /// `(c / Q) · Π e · Π other atoms`. A map upsampled back from its half,
    /// `2·(s1 floordiv 2)`, is `s1` under Dynamo's guard that `s1` is even,
    /// and concatenates with the map it was pooled from. The translation
    /// (`SymbolTable.settled` in aot_torch) writes sizes the same way.
    fn exact_quotients(&self, d: i64) -> Option<i64> {
        let p = poly_of(d);
        if !p.terms.iter().any(|(m, _)| m.iter().any(|a| matches!(a, Atom::FloorDiv(..)))) {
            return None;
        }
        let mut changed = false;
        let mut acc = p.constant;
        for (m, c) in &p.terms {
            let (mut product, mut divisor, mut exact) = (1i64, 1i64, false);
            for atom in m {
                match *atom {
                    Atom::FloorDiv(e, q) if self.exact_quotient(SYM_BASE + e as i64, q) => {
                        product = mul(product, SYM_BASE + e as i64).ok()?;
                        divisor = divisor.checked_mul(q)?;
                        exact = true;
                    }
                    ref other => product = mul(product, intern(atom_poly(other.clone(), 1)).ok()?).ok()?,
                }
            }
            let term = if exact && c % divisor == 0 {
                changed = true;
                mul(product, c / divisor).ok()?
            } else {
                intern(Poly { terms: vec![(m.clone(), *c)], constant: 0 }).ok()?
            };
            acc = add(acc, term).ok()?;
        }
        changed.then_some(acc)
    }

    /// Whether a guard says `q` divides `e`.
    fn exact_quotient(&self, e: i64, q: i64) -> bool {
        modulo(e, q).is_ok_and(|r| self.guarded_zero(r))
            || floordiv(e, q).and_then(|f| mul(f, q)).and_then(|m| sub(e, m)).is_ok_and(|r| self.guarded_zero(r))
    }

    /// Whether `a <= b` for every value of the symbols in their ranges (or
    /// a guard says they are equal).
    pub fn known_le(&self, a: i64, b: i64) -> bool {
        if !is_symbolic(a) && !is_symbolic(b) {
            return a <= b;
        }
        sub(b, a).ok().and_then(|d| self.lower_bound(d)).is_some_and(|l| l >= 0) || self.known_eq(a, b)
    }

    /// Whether `c` is known to divide `a`: by the forms, by a guard on
    /// `a mod c` itself, or by a guard `(e mod m) == 0` where `a` is `k·e`
    /// and `c` divides `k·m` (`(s0 mod 4) == 0` makes `s0*6` a multiple of
    /// 24).
    pub fn divides(&self, a: i64, c: i64) -> bool {
        if c <= 0 {
            return false;
        }
        if modulo(a, c).is_ok_and(|m| self.known_eq(m, 0)) {
            return true;
        }
        self.guards.iter().any(|g| {
            let (e, m) = match (g.rel, as_mod(g.lhs), as_mod(g.rhs)) {
                (Rel::Eq, Some(em), _) if g.rhs == 0 => em,
                (Rel::Eq, _, Some(em)) if g.lhs == 0 => em,
                _ => return false,
            };
            exact_div(a, e).is_some_and(|k| !is_symbolic(k) && k.checked_mul(m).is_some_and(|km| km % c == 0))
        })
    }

    /// The smallest value `d` can take, when its form says (a polynomial
    /// with non-negative coefficients over symbols bounded below).
    pub fn lower_bound(&self, d: i64) -> Option<i64> {
        self.bounds(d).map(|b| b.0)
    }

    /// The largest value `d` can take, when its form says.
    pub fn upper_bound(&self, d: i64) -> Option<i64> {
        self.bounds(d).map(|b| b.1)
    }

    /// `[lo, hi]` that `d` lies in for every value of the symbols in their
    /// ranges, from the ranges of its atoms (a symbol's declared range, a
    /// quotient's from its expression's bounds, a remainder's `[0, q)`),
    /// taken as independent: the box they span holds every value the
    /// atoms take together, so its bounds are bounds of `d`. Two ways,
    /// the tighter side of each kept:
    ///
    /// - interval arithmetic over the canonical form (a monomial of
    ///   non-negative factors spans the products of their bounds,
    ///   saturated at i64's limits), where no atom may be negative;
    /// - where every monomial has distinct atoms (the polynomial is
    ///   affine in each atom) and the atoms are few, the extremes over the
    ///   box's corners, which are its extremes over the box. That knows
    ///   `(a - 1)·(b - 1) = ab - a - b + 1` is at least 0 for `a, b >= 1`
    ///   (a stride of a convolution's output), where each monomial's
    ///   interval does not.
    ///
    /// A polynomial whose monomials share a factor of non-negative range is
    /// bounded as that factor times the rest, each bounded so (plus the
    /// constant): `s0·s1·s1 − s1·s1 = s1·s1·(s0 − 1) >= 0` (two strides of
    /// a permuted image compared), which neither way above knows.
    ///
    /// `None` when none applies.
    pub fn bounds(&self, d: i64) -> Option<(i64, i64)> {
        if !is_symbolic(d) {
            return Some((d, d));
        }
        self.poly_bounds(&poly_of(d))
    }

    fn poly_bounds(&self, p: &Poly) -> Option<(i64, i64)> {
        if p.terms.is_empty() {
            return Some((p.constant, p.constant));
        }
        let mut atoms: Vec<(Atom, (i64, i64))> = Vec::new();
        for (m, _) in &p.terms {
            for a in m {
                if !atoms.iter().any(|(b, _)| b == a) {
                    let r = match *a {
                        Atom::Sym(k) => self.range(k),
                        Atom::FloorDiv(e, q) => {
                            let (elo, ehi) = self.bounds(SYM_BASE + e as i64)?;
                            (elo.div_euclid(q), ehi.div_euclid(q))
                        }
                        Atom::Mod(_, q) => (0, q - 1),
                    };
                    atoms.push((a.clone(), r));
                }
            }
        }
        let range_of = |a: &Atom| atoms.iter().find(|(b, _)| b == a).map(|(_, r)| *r).unwrap_or((0, 0));
        let interval = (!atoms.iter().any(|(_, (lo, _))| *lo < 0)).then(|| {
            let (mut lo, mut hi) = (p.constant, p.constant);
            for (m, c) in &p.terms {
                let (mut mlo, mut mhi) = (1i64, 1i64);
                for a in m {
                    let (alo, ahi) = range_of(a);
                    // Saturating: a bound past i64 (a product of two
                    // symbols at their default maxima) stays a bound, only
                    // a looser one, so the other side is still known
                    // (`s0*s1 >= 0`).
                    mlo = mlo.saturating_mul(alo);
                    mhi = mhi.saturating_mul(ahi);
                }
                let (tlo, thi) = if *c >= 0 {
                    (c.saturating_mul(mlo), c.saturating_mul(mhi))
                } else {
                    (c.saturating_mul(mhi), c.saturating_mul(mlo))
                };
                lo = lo.saturating_add(tlo);
                hi = hi.saturating_add(thi);
            }
            (lo, hi)
        });
        let affine = p.terms.iter().all(|(m, _)| m.windows(2).all(|w| w[0] != w[1]));
        // (In i128, and given up on overflow: a saturated term could
        // cancel against another.)
        let corners = || -> Option<(i64, i64)> {
            let (mut lo, mut hi) = (i128::MAX, i128::MIN);
            for corner in 0u32..(1 << atoms.len()) {
                let mut v = p.constant as i128;
                for (m, c) in &p.terms {
                    let mut t = *c as i128;
                    for a in m {
                        let k = atoms.iter().position(|(b, _)| b == a)?;
                        let (alo, ahi) = atoms[k].1;
                        t = t.checked_mul(if corner >> k & 1 == 0 { alo } else { ahi } as i128)?;
                    }
                    v = v.checked_add(t)?;
                }
                lo = lo.min(v);
                hi = hi.max(v);
            }
            let clamp = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            Some((clamp(lo), clamp(hi)))
        };
        let corners = if affine && atoms.len() <= MAX_CORNER_ATOMS { corners() } else { None };
        let factored = || -> Option<(i64, i64)> {
            let (common, (alo, ahi)) =
                atoms.iter().find(|(a, (lo, _))| *lo >= 0 && p.terms.iter().all(|(m, _)| m.contains(a)))?.clone();
            // (The constant stays out of the product.)
            let mut rest = Poly { terms: Vec::with_capacity(p.terms.len()), constant: 0 };
            for (m, c) in &p.terms {
                let mut m = m.clone();
                let at = m.iter().position(|a| *a == common)?;
                m.remove(at);
                if m.is_empty() {
                    rest.constant = *c;
                } else {
                    rest.terms.push((m, *c));
                }
            }
            let (qlo, qhi) = self.poly_bounds(&rest)?;
            let ends =
                [alo.saturating_mul(qlo), alo.saturating_mul(qhi), ahi.saturating_mul(qlo), ahi.saturating_mul(qhi)];
            let (lo, hi) = (ends.iter().copied().min()?, ends.iter().copied().max()?);
            Some((lo.saturating_add(p.constant), hi.saturating_add(p.constant)))
        };
        let factored = factored();
        let remainders = self.quotients_as_remainders(p).and_then(|(r, scale)| {
            // (A saturated bound of the scaled form is no bound of `p`
            // once divided: it stays at the limit.)
            let (lo, hi) = self.poly_bounds(&r)?;
            let lo = if lo == i64::MIN { lo } else { lo.div_euclid(scale) + i64::from(lo.rem_euclid(scale) != 0) };
            let hi = if hi == i64::MAX { hi } else { hi.div_euclid(scale) };
            Some((lo, hi))
        });
        [interval, corners, factored, remainders].into_iter().flatten().reduce(|(a, b), (c, d)| (a.max(c), b.min(d)))
    }

    /// `s·p`, with each term `k·floor(e / c)` written `(s·k / c)·(e − (e
    /// mod c))` (an identity), for the smallest `s` that lets every such
    /// term's divisor divide its scaled coefficient; and `s`. The atoms are
    /// bounded as independent, and a quotient is not independent of its
    /// dividend: `2·((s1 + 1) floordiv 2) − s1` (an upsampled odd length
    /// cropped back to `s1`) spans `[1 − s1max, …]` as two atoms, but is
    /// `1 − ((s1 + 1) mod 2)`, in `[0, 1]`, as one remainder; `s1 − (s1
    /// floordiv 2)` (`topk` of half a length) is at least 1, as half of
    /// `s1 + (s1 mod 2)`. Each rewrite takes one level of quotient out (a
    /// dividend's own quotients are deeper), so the recursion through
    /// [`Facts::poly_bounds`] ends. `None` where no term has that form, or
    /// the scale grows past 2^16.
    fn quotients_as_remainders(&self, p: &Poly) -> Option<(Poly, i64)> {
        let mut scale = 1i64;
        for (m, k) in &p.terms {
            if let [Atom::FloorDiv(_, c)] = m[..] {
                let need = c / gcd(*k, c);
                scale = scale.checked_mul(need / gcd(scale, need))?;
            }
        }
        if scale > 1 << 16 {
            return None;
        }
        let mut terms = Vec::with_capacity(p.terms.len() + 2);
        let mut constant = p.constant.checked_mul(scale)?;
        let mut rewrote = false;
        for (m, k) in &p.terms {
            let k = k.checked_mul(scale)?;
            match m[..] {
                [Atom::FloorDiv(e, c)] => {
                    let f = k / c;
                    let dividend = poly_of(SYM_BASE + e as i64);
                    for (dm, dk) in &dividend.terms {
                        terms.push((dm.clone(), dk.checked_mul(f)?));
                    }
                    constant = constant.checked_add(dividend.constant.checked_mul(f)?)?;
                    terms.push((vec![Atom::Mod(e, c)], f.checked_neg()?));
                    rewrote = true;
                }
                _ => terms.push((m.clone(), k)),
            }
        }
        if !rewrote {
            return None;
        }
        Some((normalize(terms, constant).ok()?, scale))
    }
}

/// Graded lexicographic order of monomials (total degree, then the
/// exponent of the greatest atom, and so on down): a monomial order, so
/// multiplying keeps it, which polynomial division needs.
fn monomial_order(a: &[Atom], b: &[Atom]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| {
        let mut atoms: Vec<&Atom> = a.iter().chain(b).collect();
        atoms.sort();
        atoms.dedup();
        for x in atoms.into_iter().rev() {
            let (na, nb) = (a.iter().filter(|y| *y == x).count(), b.iter().filter(|y| *y == x).count());
            if na != nb {
                return na.cmp(&nb);
            }
        }
        std::cmp::Ordering::Equal
    })
}

/// `m / by` as a monomial (the atoms of `m` less those of `by`), where `by`
/// divides `m`.
fn monomial_quotient(m: &[Atom], by: &[Atom]) -> Option<Vec<Atom>> {
    let mut rest = m.to_vec();
    for a in by {
        let at = rest.iter().position(|x| x == a)?;
        rest.remove(at);
    }
    Some(rest)
}

/// Whether `d = q·g` for a polynomial `q` with integer coefficients, by
/// long division in [`monomial_order`] (each step cancels the remainder's
/// leading term with one of `g`'s, so the remainder only falls in the
/// order). Exact, not complete: `false` where a leading term or
/// coefficient does not divide, or past a bound of steps.
fn multiple_of(d: &Poly, g: &Poly) -> bool {
    let g = terms_with_constant(g);
    let Some((gm, gc)) = g.iter().max_by(|x, y| monomial_order(&x.0, &y.0)).cloned() else { return false };
    let mut r = terms_with_constant(d);
    for _ in 0..4 * MAX_TERMS {
        let Some((rm, rc)) = r.iter().max_by(|x, y| monomial_order(&x.0, &y.0)).cloned() else { return true };
        let Some(qm) = monomial_quotient(&rm, &gm) else { return false };
        if rc % gc != 0 {
            return false;
        }
        let qc = rc / gc;
        for (m, c) in &g {
            let mut mm = m.clone();
            mm.extend(qm.iter().cloned());
            let Some(t) = c.checked_mul(qc).and_then(|t| t.checked_neg()) else { return false };
            r.push((mm, t));
        }
        // (Sorts each monomial's atoms, merges equal ones, drops zeros.)
        let Ok(p) = normalize(r, 0) else { return false };
        r = p.terms;
    }
    false
}

/// Most distinct atoms whose box corners [`Facts::bounds`] visits (2^n
/// evaluations of the polynomial).
const MAX_CORNER_ATOMS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An expression and, per assignment of s0..s2 in `VALUES`, its value,
    /// built by the operations under test from small random pieces.
    #[derive(Clone, Debug)]
    enum E {
        Const(i64),
        Sym(u32),
        Add(Box<E>, Box<E>),
        Sub(Box<E>, Box<E>),
        Mul(Box<E>, Box<E>),
        FloorDiv(Box<E>, i64),
        Mod(Box<E>, i64),
    }

    const VALUES: [[i64; 3]; 4] = [[2, 2, 2], [3, 7, 5], [16, 9, 4], [37, 2, 11]];

    fn expr() -> impl Strategy<Value = E> {
        let leaf = prop_oneof![(-6i64..20).prop_map(E::Const), (0u32..3).prop_map(E::Sym)];
        leaf.prop_recursive(4, 24, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(Box::new(a), Box::new(b))),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Sub(Box::new(a), Box::new(b))),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Mul(Box::new(a), Box::new(b))),
                (inner.clone(), 1i64..12).prop_map(|(a, c)| E::FloorDiv(Box::new(a), c)),
                (inner, 1i64..12).prop_map(|(a, c)| E::Mod(Box::new(a), c)),
            ]
        })
    }

    /// The symbolic size and its direct value at `v`.
    fn build(e: &E, v: &[i64; 3]) -> (i64, i64) {
        match e {
            E::Const(c) => (*c, *c),
            E::Sym(k) => (symbol(*k), v[*k as usize]),
            E::Add(a, b) => {
                let ((x, xv), (y, yv)) = (build(a, v), build(b, v));
                (add(x, y).unwrap(), xv + yv)
            }
            E::Sub(a, b) => {
                let ((x, xv), (y, yv)) = (build(a, v), build(b, v));
                (sub(x, y).unwrap(), xv - yv)
            }
            E::Mul(a, b) => {
                let ((x, xv), (y, yv)) = (build(a, v), build(b, v));
                (mul(x, y).unwrap(), xv * yv)
            }
            E::FloorDiv(a, c) => {
                let (x, xv) = build(a, v);
                (floordiv(x, *c).unwrap(), xv.div_euclid(*c))
            }
            E::Mod(a, c) => {
                let (x, xv) = build(a, v);
                (modulo(x, *c).unwrap(), xv.rem_euclid(*c))
            }
        }
    }

    proptest! {
        /// Canonical forms keep values: every operation evaluates to the
        /// same number as the arithmetic it stands for, and the printed
        /// form reads back as the same size.
        #[test]
        fn forms_keep_values_and_round_trip(e in expr()) {
            let (d, _) = build(&e, &VALUES[0]);
            for v in &VALUES {
                let (d2, want) = build(&e, v);
                prop_assert_eq!(d2, d, "one form whatever the values");
                prop_assert_eq!(eval(d, &|k| Some(v[k as usize])).unwrap(), want);
            }
            // A constant prints as an integer (a negative one is no size).
            prop_assume!(is_symbolic(d));
            let shown = display(d);
            let (back, n) = parse_dim(shown.as_bytes()).unwrap();
            prop_assert_eq!(n, shown.len());
            prop_assert_eq!(back, d, "{} reads back", shown);
        }

        /// Bounds are bounds: every value the expression takes with its
        /// symbols in their ranges lies within them.
        #[test]
        fn bounds_hold_at_every_value_in_the_ranges(e in expr()) {
            let (d, _) = build(&e, &VALUES[0]);
            let facts = Facts { ranges: [(0, (2, 37)), (1, (2, 9)), (2, (2, 11))].into_iter().collect(), ..Facts::default() };
            if let Some((lo, hi)) = facts.bounds(d) {
                for v in VALUES.iter().chain(&[[2, 9, 11], [37, 9, 2], [5, 5, 5]]) {
                    let x = eval(d, &|k| Some(v[k as usize])).unwrap();
                    prop_assert!(lo <= x && x <= hi, "{} = {} at {:?} outside [{}, {}]", display(d), x, v, lo, hi);
                }
            }
        }
    }

    #[test]
    fn bounds_of_products_of_differences_come_from_the_corners() {
        // A convolution's output size `(s0 - 3) floordiv 2 + 1` is written
        // `((s0 + 1) floordiv 2) - 1`; the stride of its rows in a
        // two-dimensional output is the product of two such sizes.
        let facts = Facts { ranges: [(0, (8, 64)), (1, (8, 64))].into_iter().collect(), ..Facts::default() };
        let out = |k| sub(floordiv(add(symbol(k), 1).unwrap(), 2).unwrap(), 1).unwrap();
        let plane = mul(out(0), out(1)).unwrap();
        assert_eq!(facts.bounds(plane), Some((9, 961)));
        assert!(facts.lower_bound(mul(plane, symbol(0)).unwrap()).is_some_and(|l| l >= 0));
        // A square is not affine in its atom: per monomial (`s0*s0 - s0*20
        // + 100` in [64 - 1280 + 100, 4096 - 160 + 100]) and factored
        // (`s0*(s0 - 20) + 100`, [64*(-12) + 100, 64*44 + 100]), the
        // tighter side of each.
        let d = sub(symbol(0), 10).unwrap();
        assert_eq!(facts.bounds(mul(d, d).unwrap()), Some((-668, 2916)));
        // A shared factor: `s1·s1·(s0 − 1)`, at least 1·64·7.
        let s11 = mul(symbol(1), symbol(1)).unwrap();
        let diff = sub(mul(symbol(0), s11).unwrap(), s11).unwrap();
        assert_eq!(facts.lower_bound(diff), Some(7 * 64));
        assert!(facts.known_le(add(s11, 1).unwrap(), mul(symbol(0), s11).unwrap()));
    }

    #[test]
    fn canonical_forms_intern_once() {
        let s0 = symbol(0);
        let s1 = symbol(1);
        let a = add(mul(s0, 4).unwrap(), s1).unwrap();
        let b = add(s1, mul(4, s0).unwrap()).unwrap();
        assert_eq!(a, b);
        assert!(is_symbolic(a));
        assert_eq!(sub(a, a).unwrap(), 0);
        assert_eq!(sub(add(s0, 3).unwrap(), s0).unwrap(), 3);
        assert_eq!(mul(s0, s1).unwrap(), mul(s1, s0).unwrap());
        assert_eq!(as_symbol(s0), Some(0));
        assert_eq!(as_symbol(a), None);
        assert_eq!(symbols(a), vec![0, 1]);
    }

    #[test]
    fn division_folds_divisible_terms() {
        let s0 = symbol(0);
        let x = mul(s0, 8).unwrap();
        assert_eq!(floordiv(x, 4).unwrap(), mul(s0, 2).unwrap());
        assert_eq!(modulo(x, 4).unwrap(), 0);
        let y = add(x, 3).unwrap();
        assert_eq!(floordiv(y, 4).unwrap(), mul(s0, 2).unwrap());
        assert_eq!(modulo(y, 4).unwrap(), 3);
        let q = floordiv(s0, 4).unwrap();
        assert_eq!(display(q), "(s0 floordiv 4)");
        assert_eq!(eval(q, &|_| Some(11)).unwrap(), 2);
        assert_eq!(eval(modulo(s0, 4).unwrap(), &|_| Some(11)).unwrap(), 3);
        // One form per quotient: floor(6·s0 / 24) is floor(s0 / 4).
        assert_eq!(floordiv(mul(s0, 6).unwrap(), 24).unwrap(), q);
        assert_eq!(display(modulo(mul(s0, 6).unwrap(), 24).unwrap()), "((s0 mod 4)*6)");
        for v in 2..40 {
            let at = |_| Some(v);
            assert_eq!(eval(modulo(mul(s0, 6).unwrap(), 24).unwrap(), &at).unwrap(), (6 * v) % 24);
            assert_eq!(eval(floordiv(add(mul(s0, 6).unwrap(), 3).unwrap(), 9).unwrap(), &at).unwrap(), (6 * v + 3) / 9);
        }
        assert!(floordiv(s0, 0).is_err());
        assert!(floordiv(s0, -2).is_err());
    }

    #[test]
    fn a_quotient_of_a_quotient_has_one_form() {
        // A stride-2 convolution then a stride-2 pooling: the rules compose
        // ((s + 1) floordiv 2 + 1) floordiv 2, PyTorch writes (s + 3) floordiv 4.
        let s0 = symbol(0);
        let conv = floordiv(add(s0, 1).unwrap(), 2).unwrap();
        let pool = floordiv(add(conv, 1).unwrap(), 2).unwrap();
        assert_eq!(pool, floordiv(add(s0, 3).unwrap(), 4).unwrap());
        assert_eq!(display(pool), "((s0 + 3) floordiv 4)");
        // With a symbolic addend and a coefficient on the inner quotient.
        let s1 = symbol(1);
        let x = floordiv(add(floordiv(mul(s0, 3).unwrap(), 5).unwrap(), s1).unwrap(), 7).unwrap();
        let y = floordiv(add(mul(s0, 3).unwrap(), mul(s1, 5).unwrap()).unwrap(), 35).unwrap();
        assert_eq!(x, y);
        for (a, b) in [(2, 2), (3, 9), (17, 4), (40, 41)] {
            let at = |k| Some(if k == 0 { a } else { b });
            assert_eq!(eval(x, &at).unwrap(), ((3 * a).div_euclid(5) + b).div_euclid(7));
        }
        // Twice the inner quotient is not a quotient of the sum: kept nested.
        let twice = floordiv(mul(floordiv(s0, 3).unwrap(), 2).unwrap(), 5).unwrap();
        assert_eq!(display(twice), "(((s0 floordiv 3)*2) floordiv 5)");
    }

    #[test]
    fn text_round_trips() {
        for text in
            ["s0", "(s0*4 + 1)", "(s0*s1 - s2*3 + 7)", "(s0 floordiv 2)", "((s0 - 3) floordiv 2 + 1)", "(s3 mod 8)"]
        {
            let (d, n) = parse_dim(text.as_bytes()).unwrap();
            assert_eq!(n, text.len(), "{text}");
            let shown = display(d);
            let (again, _) = parse_dim(shown.as_bytes()).unwrap();
            assert_eq!(again, d, "{text} -> {shown}");
        }
        assert_eq!(display(parse_expr("2*s0 + s0").unwrap()), "(s0*3)");
        assert_eq!(parse_expr("4*3").unwrap(), 12);
        assert!(parse_dim(b"s").is_err());
        assert!(parse_dim(b"(s0").is_err());
        assert!(parse_dim(b"s99999999999").is_err());
        assert!(parse_expr("s0 floordiv 0").is_err());
        let deep = "(".repeat(100) + "s0" + &")".repeat(100);
        assert!(parse_dim(deep.as_bytes()).is_err());
    }

    #[test]
    fn a_made_up_id_is_a_negative_number() {
        let _ = symbol(0);
        let unused = SYM_BASE + MAX_EXPRS - 1;
        assert!(!is_symbolic(unused));
        assert!(is_symbolic(symbol(0)));
        assert_eq!(display(unused), unused.to_string());
        assert_eq!(eval(unused, &|_| Some(3)), Ok(unused));
    }

    #[test]
    fn arithmetic_is_checked() {
        let s0 = symbol(0);
        assert_eq!(mul(mul(s0, i64::MAX).unwrap(), 2), Err(SymError::Overflow));
        assert_eq!(add(i64::MAX, 1), Err(SymError::Overflow));
        let big = mul(s0, 1 << 62).unwrap();
        assert_eq!(eval(big, &|_| Some(4)), Err(SymError::Overflow));
        assert_eq!(eval(s0, &|_| None), Err(SymError::Unbound(0)));
    }

    #[test]
    fn guards_parse_print_and_decide() {
        let g = Guard::parse("(s0 mod 4) == 0").unwrap();
        assert_eq!(g.to_string(), "(s0 mod 4) == 0");
        assert!(g.holds(&|_| Some(8)).unwrap());
        assert!(!g.holds(&|_| Some(9)).unwrap());
        let facts = Facts { guards: vec![g], ..Facts::default() };
        assert!(facts.divides(symbol(0), 4));
        assert!(facts.divides(symbol(0), 1));
        assert!(!facts.divides(symbol(0), 8));
        assert!(facts.divides(mul(symbol(0), 6).unwrap(), 24));
        assert!(!facts.divides(mul(symbol(0), 6).unwrap(), 48));
        let q = floordiv(symbol(0), 3).unwrap();
        assert!(!facts.known_eq(mul(q, 3).unwrap(), symbol(0)), "needs (s0 mod 3) == 0");
        let thirds = guarded(&["(s0 mod 3) == 0"]);
        assert!(thirds.known_eq(mul(q, 3).unwrap(), symbol(0)));
        assert!(thirds.known_eq(add(mul(q, 6).unwrap(), 1).unwrap(), add(mul(symbol(0), 2).unwrap(), 1).unwrap()));
        assert!(!thirds.known_eq(mul(q, 3).unwrap(), add(symbol(0), 1).unwrap()));
        let (ab, cd) = (mul(symbol(0), symbol(1)).unwrap(), mul(symbol(2), symbol(3)).unwrap());
        assert!(!thirds.known_le(cd, ab), "distinct products are not ordered by their ranges");
        let same = guarded(&["(s0*s1) == (s2*s3)"]);
        assert!(same.known_le(cd, ab) && same.known_le(ab, cd));
        let le = Guard::parse("s1 <= s0*2").unwrap();
        assert_eq!(le.to_string(), "s1 <= (s0*2)");
        assert!(Guard::parse("s0").is_err());
        assert_eq!(facts.lower_bound(add(mul(symbol(0), 3).unwrap(), 1).unwrap()), Some(7));
        assert_eq!(facts.lower_bound(sub(symbol(0), 5).unwrap()), Some(-3));
        assert_eq!(facts.lower_bound(sub(5, symbol(0)).unwrap()), Some(5 - MAX_SYMBOL_VALUE));
        let small = Facts { ranges: [(0, (3, 8))].into_iter().collect(), ..Facts::default() };
        assert_eq!(small.bounds(sub(mul(symbol(0), 2).unwrap(), 1).unwrap()), Some((5, 15)));
        assert_eq!(small.bounds(floordiv(symbol(0), 2).unwrap()), Some((1, 4)));
        assert_eq!(small.bounds(sub(10, symbol(0)).unwrap()), Some((2, 7)));
        // A product of symbols at their default maxima passes i64: the
        // upper bound saturates, the lower one is still known.
        let prod = mul(mul(symbol(0), symbol(1)).unwrap(), symbol(2)).unwrap();
        assert_eq!(facts.bounds(prod).map(|b| b.1), Some(i64::MAX));
        assert!(facts.lower_bound(prod).is_some_and(|l| l >= 0));
        assert_eq!(facts.lower_bound(sub(0, prod).unwrap()), Some(-i64::MAX));
    }

    /// Size `t` parsed.
    fn e(t: &str) -> i64 {
        parse_expr(t).unwrap()
    }

    /// No ranges, and the guards `texts`.
    fn guarded(texts: &[&str]) -> Facts {
        Facts { guards: texts.iter().map(|t| Guard::parse(t).unwrap()).collect(), ..Facts::default() }
    }

    #[test]
    fn quotients_a_guard_makes_exact_settle_multiplied_out() {
        // Dynamo's form of "s1 and s2 are even", and the `mod` form.
        let even = guarded(&["s1 == (2*(s1 floordiv 2))", "((s2 + 1) mod 2) == 0"]);
        assert_eq!(even.settled(e("(2*(s1 floordiv 2))")), e("s1"));
        assert_eq!(even.settled(e("(4*(s1 floordiv 2)*((s2 + 1) floordiv 2))")), e("(s1*s2 + s1)"));
        assert_eq!(even.settled(e("((s1 floordiv 2)*6 + s0)")), e("(3*s1 + s0)"));
        // A coefficient the divisors do not divide, a quotient no guard
        // makes exact, and no quotient at all: as they are.
        for kept in ["(s1 floordiv 2)", "(2*(s0 floordiv 2))", "(2*(s1 floordiv 4))", "(s0*s1 + 3)"] {
            assert_eq!(even.settled(e(kept)), e(kept), "{kept}");
        }
        assert_eq!(Facts::default().settled(e("(2*(s1 floordiv 2))")), e("(2*(s1 floordiv 2))"));
    }

    #[test]
    fn quotients_a_guard_equates_are_rewritten_as_factors() {
        // A map's height and width, one quarter of a square image's.
        let square = guarded(&["(s2 floordiv 4) == (s1 floordiv 4)"]);
        assert_eq!(square.settled(e("(s1 floordiv 4)")), e("(s2 floordiv 4)"));
        assert_eq!(square.settled(e("(2*(s1 floordiv 4))")), e("(2*(s2 floordiv 4))"));
        assert_eq!(
            square.settled(e("((s1 floordiv 4)*(s1 floordiv 4)*s0 + 1)")),
            e("((s2 floordiv 4)*(s2 floordiv 4)*s0 + 1)")
        );
        assert!(square.known_eq(e("(2*(s1 floordiv 4))"), e("(2*(s2 floordiv 4))")));
        // Nested in another quotient, and without the guard: as they are.
        assert_eq!(square.settled(e("(((s1 floordiv 4) + 1) floordiv 2)")), e("(((s1 floordiv 4) + 1) floordiv 2)"));
        assert!(!guarded(&[]).known_eq(e("(2*(s1 floordiv 4))"), e("(2*(s2 floordiv 4))")));
        // A compound side that is no single quotient is equated as a whole
        // size only.
        let product = guarded(&["(s0*s1) == (s2*s3)"]);
        assert_eq!(product.settled(e("(s2*s3)")), e("(s0*s1)"));
        assert_eq!(product.settled(e("(s2*s3*2)")), e("(s2*s3*2)"));
    }

    #[test]
    fn a_quotient_times_its_divisor_is_bounded_against_its_dividend() {
        // An odd length halved (rounded up) and doubled is at least the
        // length and at most one more: a crop back to `s1` is in bounds.
        let f = guarded(&[]);
        let up = e("(((s1 + 1) floordiv 2)*2)");
        assert!(f.known_le(e("s1"), up));
        assert!(f.known_le(up, e("(s1 + 1)")));
        assert!(!f.known_le(up, e("s1")));
        assert_eq!(f.bounds(e("(((s1 + 1) floordiv 2)*2 - s1)")), Some((0, 1)));
        // Floor, not ceiling: `4·(s0 floordiv 4)` is at most `s0`, never
        // known to reach it; a coefficient the divisor does not divide is
        // left as it was.
        assert!(f.known_le(e("((s0 floordiv 4)*4)"), e("s0")));
        assert!(!f.known_le(e("s0"), e("((s0 floordiv 4)*4)")));
        assert!(!f.known_le(e("s0"), e("((s0 floordiv 4)*6)")));
        // A coefficient the divisor does not divide: the form scaled.
        assert!(f.known_le(e("(s1 floordiv 2)"), e("s1")));
        assert_eq!(f.lower_bound(e("(s1 - (s1 floordiv 2))")), Some(1));
        assert!(f.known_le(e("((s0 floordiv 2)*3)"), e("((s0*3) floordiv 2)")));
        assert!(!f.known_le(e("s1"), e("(s1 floordiv 2)")));
    }

    #[test]
    fn a_multiple_of_a_guards_difference_is_equal() {
        // An upsampled map cropped back equates its area to the input's;
        // a group norm's view of the input has that area as a factor.
        let up = "(((s1 - 1) floordiv 2 + 1)*((s2 - 1) floordiv 2 + 1)*4)";
        let f = guarded(&[&format!("{up} == (s1*s2)")]);
        let view = e(&format!("(s0*8*{up})"));
        assert!(f.known_eq(view, e("(s0*8*s1*s2)")));
        assert!(f.known_eq(e(&format!("({up}*s0 + 3)")), e("(s1*s2*s0 + 3)")));
        // Not a multiple: one more element, or another factor's guard.
        assert!(!f.known_eq(view, e("(s0*8*s1*s2 + 1)")));
        assert!(!guarded(&[]).known_eq(view, e("(s0*8*s1*s2)")));
        assert!(!guarded(&[&format!("{up} == (s1*s0)")]).known_eq(view, e("(s0*8*s1*s2)")));
    }

    #[test]
    fn a_symbol_a_guard_defines_is_its_expression_in_equalities() {
        let blocks = guarded(&["s4 == (((s2 + 1) floordiv 2)*((s3 + 1) floordiv 2))"]);
        // A view of `[s0, s1*9, s4]` over the unfolded blocks' elements.
        assert!(blocks.known_eq(e("(s0*s1*s4*9)"), e("(s0*s1*((s2 + 1) floordiv 2)*((s3 + 1) floordiv 2)*9)")));
        assert!(!blocks.known_eq(e("(s0*s4)"), e("(s0*((s2 + 1) floordiv 2))")));
        assert!(!guarded(&[]).known_eq(e("(s0*s4)"), e("(s0*((s2 + 1) floordiv 2)*((s3 + 1) floordiv 2))")));
        // A guard that mentions the symbol on both sides defines nothing.
        assert!(!guarded(&["s4 == (s4*s1 - s1 + 1)"]).known_eq(e("(s4*2)"), e("2")));
    }

    #[test]
    fn a_symbol_a_guard_pins_is_its_value_in_equalities() {
        let facts = guarded(&["(4*s1) == 12"]);
        // A pixel unshuffle's 4·s1 channels viewed as the 12 a weight has.
        assert!(facts.known_eq(e("(s0*s1*4*(s2 floordiv 2))"), e("(s0*12*(s2 floordiv 2))")));
        assert!(facts.known_eq(e("(s1 + 1)"), 4));
        // Sizes settle to a constant only where a guard says so of them, as
        // the translation writes them.
        assert_eq!(facts.settled(e("(4*s1)")), 12);
        assert_eq!(facts.settled(e("(s1 + 9)")), e("(s1 + 9)"));
        assert!(!facts.known_eq(e("(s0*s1)"), e("(s0*4)")));
        let odd = guarded(&["(4*s1) == 10"]);
        assert!(!odd.known_eq(e("s1"), 2), "no whole value");
        assert_eq!(substitute(e("((s1*s0 + s1) floordiv 2)"), &|k| (k == 1).then_some(4)).unwrap(), e("(2*s0 + 2)"));
    }

    #[test]
    fn sizes_an_equality_guard_relates_settle_to_one_side() {
        let facts = guarded(&["(s0*s1) == (s3*s2)", "(s4 + 1) == s5", "s6 == s7", "(s4*s5) == (s1*s6)"]);
        // The right compound side is the left one, in any order of its
        // factors; a compound side is the lone symbol.
        assert_eq!(facts.settled(e("(s2*s3)")), e("(s0*s1)"));
        assert_eq!(facts.settled(e("(s4 + 1)")), e("s5"));
        // Lone symbols bind arguments: kept. So are parts of a size.
        assert_eq!(facts.settled(e("s7")), e("s7"));
        assert_eq!(facts.settled(e("(s2*s3 + 1)")), e("(s2*s3 + 1)"));
        assert_eq!(facts.settled(e("(s1*s6)")), e("(s4*s5)"));
    }
}

// ----- in the IR -----
/// Calls `f` on every size type `t` holds (shapes, a memref's strides and
/// offset, nested function types) until it returns true; whether it did.
fn any_size_in_type(ctx: &crate::Context, t: crate::Type, f: &mut dyn FnMut(i64) -> bool) -> bool {
    use crate::TypeData;
    match ctx.type_data(t) {
        TypeData::Tensor(tt) => tt.shape.iter().any(|&d| f(d)),
        TypeData::Subclass(sc) => sc.tensor.shape.iter().any(|&d| f(d)),
        TypeData::MemRef(m) => {
            m.shape.iter().any(|&d| f(d))
                || m.layout.as_ref().is_some_and(|(st, off)| st.iter().any(|&d| f(d)) || f(*off))
        }
        TypeData::Function { inputs, results } => {
            inputs.iter().chain(results.iter()).any(|&x| any_size_in_type(ctx, x, f))
        }
        _ => false,
    }
}

/// [`any_size_in_type`] for an attribute: `array<i64: ...>`, integers,
/// types, and arrays and dictionaries of them.
fn any_size_in_attr(ctx: &crate::Context, a: crate::Attribute, f: &mut dyn FnMut(i64) -> bool) -> bool {
    use crate::AttrData;
    match ctx.attr_data(a) {
        AttrData::I64Array(v) => v.iter().any(|&d| f(d)),
        AttrData::Int { value, .. } => f(*value),
        AttrData::Type(t) => any_size_in_type(ctx, *t, f),
        AttrData::Array(v) => v.iter().any(|&x| any_size_in_attr(ctx, x, f)),
        AttrData::Dict(v) => v.iter().any(|n| any_size_in_attr(ctx, n.value, f)),
        // (A splat of a symbolic shape: `dense<-100> : tensor<s0x1xi64>`.)
        AttrData::Dense { ty, .. } => any_size_in_type(ctx, *ty, f),
        // (A record's fields: an argument's `#aot.layout` strides, a
        // storage's `#aot.storage` length.)
        AttrData::Dialect { params, .. } => params.iter().any(|n| any_size_in_attr(ctx, n.value, f)),
        _ => false,
    }
}

/// Appends the symbols the sizes of type `t` mention.
pub fn type_symbols(ctx: &crate::Context, t: crate::Type, out: &mut Vec<u32>) {
    any_size_in_type(ctx, t, &mut |d| {
        collect_symbols(d, out);
        false
    });
}

/// Appends the symbols an attribute's sizes mention.
pub fn attr_symbols(ctx: &crate::Context, a: crate::Attribute, out: &mut Vec<u32>) {
    any_size_in_attr(ctx, a, &mut |d| {
        collect_symbols(d, out);
        false
    });
}

/// Whether type `t` has a symbolic size (without collecting them: the
/// verifier asks this of every op).
pub fn type_is_symbolic(ctx: &crate::Context, t: crate::Type) -> bool {
    any_size_in_type(ctx, t, &mut is_symbolic)
}

/// Whether attribute `a` has a symbolic size.
pub fn attr_is_symbolic(ctx: &crate::Context, a: crate::Attribute) -> bool {
    any_size_in_attr(ctx, a, &mut is_symbolic)
}

/// Where op `op` has a symbolic size, for a diagnostic: `result #0 has
/// type tensor<s0xf32>`; `None` when it has none (its regions aside).
pub fn first_symbolic_use(ctx: &crate::Context, op: crate::Op) -> Option<String> {
    for (i, v) in ctx.operands(op).enumerate() {
        if type_is_symbolic(ctx, ctx.value_type(v)) {
            return Some(format!("operand #{i} has type {}", crate::printer::type_to_string(ctx, ctx.value_type(v))));
        }
    }
    for (i, &v) in ctx.results(op).iter().enumerate() {
        if type_is_symbolic(ctx, ctx.value_type(v)) {
            return Some(format!("result #{i} has type {}", crate::printer::type_to_string(ctx, ctx.value_type(v))));
        }
    }
    for a in ctx.attrs(op) {
        if attr_is_symbolic(ctx, a.value) {
            return Some(format!("attribute '{}' has a symbolic size", ctx.sym_str(a.name)));
        }
    }
    None
}

/// The first op under `op` (itself included) with a symbolic size, and
/// where; a block argument's type counts for the op that owns the block.
pub fn first_symbolic_op(ctx: &crate::Context, op: crate::Op) -> Option<(crate::Op, String)> {
    let mut found = None;
    ctx.walk_pre(op, &mut |o| {
        if found.is_some() {
            return;
        }
        if let Some(w) = first_symbolic_use(ctx, o) {
            found = Some((o, format!("'{}' {w}", ctx.op_name(o))));
            return;
        }
        for &r in ctx.regions(o) {
            for &b in ctx.region_blocks(r) {
                for (i, &a) in ctx.block_args(b).iter().enumerate() {
                    if found.is_none() && type_is_symbolic(ctx, ctx.value_type(a)) {
                        let t = crate::printer::type_to_string(ctx, ctx.value_type(a));
                        found = Some((o, format!("argument #{i} of '{}' has type {t}", ctx.op_name(o))));
                    }
                }
            }
        }
    });
    found
}

/// The argument attribute of a 0-d integer argument that holds a symbol's
/// value (`{aot.symbol = 0}`): how a backward function receives the sizes
/// of its forward's call when no tensor it takes has them.
pub const SYMBOL_ARG_ATTR: &str = "aot.symbol";

/// The arguments of `func` that hold a symbol's value: `(argument, k)`,
/// read from its `arg_attrs`.
pub fn symbol_args(ctx: &crate::Context, func: crate::Op) -> Vec<(usize, u32)> {
    use crate::AttrData;
    let Some(a) = ctx.get_attr(func, "arg_attrs") else { return Vec::new() };
    let AttrData::Array(dicts) = ctx.attr_data(a) else { return Vec::new() };
    let mut out = Vec::new();
    for (i, &d) in dicts.iter().enumerate() {
        let AttrData::Dict(entries) = ctx.attr_data(d) else { continue };
        for e in entries {
            if ctx.sym_str(e.name) == SYMBOL_ARG_ATTR {
                if let Some(k) = ctx.attr_as_i64(e.value).filter(|k| (0..MAX_SYMBOLS as i64).contains(k)) {
                    out.push((i, k as u32));
                }
            }
        }
    }
    out
}

/// The function attribute with the symbols' ranges:
/// `aot.symbols = {s0 = array<i64: 2, 4096>}`.
pub const RANGES_ATTR: &str = "aot.symbols";
/// The function attribute with its guards: `aot.guards = ["(s0 mod 4) == 0"]`.
pub const GUARDS_ATTR: &str = "aot.guards";

impl Facts {
    /// The ranges and guards function `func` declares, checked: a range
    /// is `[lo, hi]` with `2 <= lo <= hi`, a guard parses.
    pub fn of_func(ctx: &crate::Context, func: crate::Op) -> Result<Facts, String> {
        use crate::AttrData;
        let mut facts = Facts::default();
        if let Some(a) = ctx.get_attr(func, RANGES_ATTR) {
            let AttrData::Dict(entries) = ctx.attr_data(a) else {
                return Err(format!("'{RANGES_ATTR}' must be a dictionary {{s0 = array<i64: lo, hi>, ...}}"));
            };
            for e in entries {
                let name = ctx.sym_str(e.name);
                let k = name
                    .strip_prefix('s')
                    .and_then(|r| r.parse::<u32>().ok())
                    .filter(|&k| k < MAX_SYMBOLS)
                    .ok_or_else(|| format!("'{RANGES_ATTR}': '{name}' is not a symbol 's<N>'"))?;
                let r = ctx.attr_as_i64_list(e.value).unwrap_or_default();
                match r[..] {
                    [lo, hi] if (MIN_SYMBOL_VALUE..=hi).contains(&lo) && !is_symbolic(hi) => {
                        facts.ranges.insert(k, (lo, hi));
                    }
                    _ => {
                        return Err(format!(
                            "'{RANGES_ATTR}': the range of {name} must be array<i64: lo, hi> with \
                             {MIN_SYMBOL_VALUE} <= lo <= hi (sizes 0 and 1 are never symbolic)"
                        ))
                    }
                }
            }
        }
        if let Some(a) = ctx.get_attr(func, GUARDS_ATTR) {
            let AttrData::Array(items) = ctx.attr_data(a) else {
                return Err(format!("'{GUARDS_ATTR}' must be an array of strings"));
            };
            for &g in items {
                let text = ctx.attr_as_str(g).ok_or_else(|| format!("'{GUARDS_ATTR}' must be an array of strings"))?;
                facts.guards.push(Guard::parse(text).map_err(|m| format!("'{GUARDS_ATTR}': {m}"))?);
            }
        }
        Ok(facts)
    }
}

impl Facts {
    /// Only the ranges and guards over symbols in `bound` (what a function
    /// that binds only those can carry).
    pub fn restricted_to(&self, bound: &[u32]) -> Facts {
        Facts {
            ranges: self.ranges.iter().filter(|(k, _)| bound.contains(k)).map(|(&k, &r)| (k, r)).collect(),
            guards: self.guards.iter().filter(|g| g.symbols().iter().all(|k| bound.contains(k))).copied().collect(),
        }
    }

    /// Writes the facts as `func`'s [`RANGES_ATTR`] and [`GUARDS_ATTR`]
    /// (none written when empty), in the text [`Facts::of_func`] reads.
    pub fn set_on(&self, rw: &mut crate::Rewriter<'_>, func: crate::Op) {
        if !self.ranges.is_empty() {
            let mut entries = Vec::with_capacity(self.ranges.len());
            for (&k, &(lo, hi)) in &self.ranges {
                let name = rw.sym(&format!("s{k}"));
                let value = rw.i64_list_attr(&[lo, hi]);
                entries.push(crate::NamedAttr { name, value });
            }
            let d = rw.dict_attr(entries);
            rw.set_attr(func, RANGES_ATTR, d);
        }
        if !self.guards.is_empty() {
            let items: Vec<crate::Attribute> = self.guards.iter().map(|g| rw.str_attr(&g.to_string())).collect();
            let a = rw.array_attr(items);
            rw.set_attr(func, GUARDS_ATTR, a);
        }
    }
}

/// The symbols function `func` binds: for each, the first argument
/// dimension that is exactly that symbol (`(argument, dim)`), of a tensor
/// or, once lowered to loops, of a buffer.
pub fn bindings(ctx: &crate::Context, arg_types: &[crate::Type]) -> Vec<(u32, usize, usize)> {
    let mut out: Vec<(u32, usize, usize)> = Vec::new();
    for (i, &t) in arg_types.iter().enumerate() {
        let shape = match ctx.type_data(t) {
            crate::TypeData::MemRef(m) => &m.shape,
            d => match d.as_tensor() {
                Some(tt) => &tt.shape,
                None => continue,
            },
        };
        for (d, &size) in shape.iter().enumerate() {
            if let Some(k) = as_symbol(size) {
                if !out.iter().any(|b| b.0 == k) {
                    out.push((k, i, d));
                }
            }
        }
    }
    out
}

/// Checks a function's symbols: every symbol its types and attributes
/// mention is bound by an argument dimension that is exactly that symbol,
/// and its ranges and guards are well formed and mention only bound symbols.
pub fn verify_function(ctx: &crate::Context, func: crate::Op, arg_types: &[crate::Type]) -> Result<Facts, String> {
    let facts = Facts::of_func(ctx, func)?;
    let mut bound: Vec<u32> = bindings(ctx, arg_types).iter().map(|b| b.0).collect();
    for (i, k) in symbol_args(ctx, func) {
        // (A lowered function's symbol argument is a 0-d buffer.)
        let int = |e: crate::ElemType| matches!(e, crate::ElemType::I64 | crate::ElemType::I32);
        let ok = arg_types.get(i).is_some_and(|&t| match ctx.type_data(t) {
            crate::TypeData::Tensor(t) => t.rank() == 0 && int(t.elem),
            crate::TypeData::MemRef(m) => m.shape.is_empty() && int(m.elem),
            _ => false,
        });
        if !ok {
            return Err(format!(
                "argument {i} holds symbol s{k} ('{SYMBOL_ARG_ATTR}'), so it must be a 0-d integer tensor"
            ));
        }
        bound.push(k);
    }
    let mut used = Vec::new();
    ctx.walk_pre(func, &mut |op| {
        for &v in ctx.results(op) {
            type_symbols(ctx, ctx.value_type(v), &mut used);
        }
        for a in ctx.attrs(op) {
            attr_symbols(ctx, a.value, &mut used);
        }
        for &r in ctx.regions(op) {
            for &b in ctx.region_blocks(r) {
                for &a in ctx.block_args(b) {
                    type_symbols(ctx, ctx.value_type(a), &mut used);
                }
            }
        }
    });
    used.extend(facts.ranges.keys().copied());
    for g in &facts.guards {
        used.extend(g.symbols());
    }
    used.sort_unstable();
    used.dedup();
    if let Some(k) = used.iter().find(|k| !bound.contains(k)) {
        return Err(format!(
            "symbol s{k} is not bound: a symbol must be the whole size of some argument dimension \
             (write it as an argument's size, e.g. tensor<s{k}x...>)"
        ));
    }
    Ok(facts)
}

/// Type `t` with every size evaluated by `b` (the same type when it has
/// no symbolic size).
pub fn specialise_type(ctx: &mut crate::Context, t: crate::Type, b: &Bindings) -> Result<crate::Type, SymError> {
    use crate::TypeData;
    if !type_is_symbolic(ctx, t) {
        return Ok(t);
    }
    let data = match ctx.type_data(t).clone() {
        TypeData::Tensor(mut tt) => {
            tt.shape = b.eval_shape(&tt.shape)?;
            TypeData::Tensor(tt)
        }
        TypeData::Subclass(mut sc) => {
            sc.tensor.shape = b.eval_shape(&sc.tensor.shape)?;
            TypeData::Subclass(sc)
        }
        TypeData::MemRef(mut m) => {
            m.shape = b.eval_shape(&m.shape)?;
            if let Some((st, off)) = m.layout.take() {
                m.layout = Some((b.eval_shape(&st)?, b.eval(off)?));
            }
            TypeData::MemRef(m)
        }
        TypeData::Function { inputs, results } => {
            let inputs = inputs.iter().map(|&x| specialise_type(ctx, x, b)).collect::<Result<_, _>>()?;
            let results = results.iter().map(|&x| specialise_type(ctx, x, b)).collect::<Result<_, _>>()?;
            TypeData::Function { inputs, results }
        }
        other => other,
    };
    Ok(ctx.intern_type(data))
}

/// Attribute `a` with every size evaluated by `b` (the attributes
/// [`attr_symbols`] reads sizes from).
pub fn specialise_attr(
    ctx: &mut crate::Context,
    a: crate::Attribute,
    b: &Bindings,
) -> Result<crate::Attribute, SymError> {
    use crate::AttrData;
    if !attr_is_symbolic(ctx, a) {
        return Ok(a);
    }
    let data = match ctx.attr_data(a).clone() {
        AttrData::I64Array(v) => AttrData::I64Array(b.eval_shape(&v)?.to_vec()),
        AttrData::Int { value, ty } => AttrData::Int { value: b.eval(value)?, ty },
        AttrData::Type(t) => AttrData::Type(specialise_type(ctx, t, b)?),
        AttrData::Dense { ty, data } => AttrData::Dense { ty: specialise_type(ctx, ty, b)?, data },
        AttrData::Array(v) => AttrData::Array(v.iter().map(|&x| specialise_attr(ctx, x, b)).collect::<Result<_, _>>()?),
        AttrData::Dict(v) => {
            let mut out = Vec::with_capacity(v.len());
            for n in v {
                out.push(crate::NamedAttr { name: n.name, value: specialise_attr(ctx, n.value, b)? });
            }
            AttrData::Dict(out)
        }
        AttrData::Dialect { name, params } => {
            let mut out = Vec::with_capacity(params.len());
            for n in params {
                out.push(crate::NamedAttr { name: n.name, value: specialise_attr(ctx, n.value, b)? });
            }
            AttrData::Dialect { name, params: out }
        }
        other => other,
    };
    Ok(ctx.attr(data))
}

/// Rewrites function `func` for one set of symbol values: every type and
/// attribute of it and of the ops it holds gets its sizes evaluated, and
/// its ranges and guards (which `b` is taken to satisfy: the caller bound
/// it with [`Bindings::bind_with`]) are dropped. What is left has static
/// sizes only, for the code generators that need them; the arguments
/// marked [`SYMBOL_ARG_ATTR`] stay (a call still passes them), unread.
pub fn specialise_function(ctx: &mut crate::Context, func: crate::Op, b: &Bindings) -> Result<(), SymError> {
    let mut ops = Vec::new();
    ctx.walk_pre(func, &mut |op| ops.push(op));
    for op in ops {
        let results = ctx.results(op).to_vec();
        let attrs = ctx.attrs(op).to_vec();
        let mut args = Vec::new();
        for &r in ctx.regions(op) {
            for &blk in ctx.region_blocks(r) {
                args.extend_from_slice(ctx.block_args(blk));
            }
        }
        let mut new_types = Vec::with_capacity(results.len() + args.len());
        for &v in results.iter().chain(&args) {
            let t = ctx.value_type(v);
            new_types.push((v, specialise_type(ctx, t, b)?));
        }
        let mut new_attrs = Vec::with_capacity(attrs.len());
        for n in &attrs {
            new_attrs.push((n.name, specialise_attr(ctx, n.value, b)?));
        }
        let mut rw = crate::Rewriter::new(ctx);
        for (v, t) in new_types {
            rw.set_value_type(v, t);
        }
        for (name, value) in new_attrs {
            let name = rw.ctx().sym_str(name).to_string();
            rw.set_attr(op, &name, value);
        }
    }
    // The symbol arguments stay (a call still passes them) but hold no
    // symbol any more: a verifier would want them 0-d integer tensors,
    // which lowering makes buffers.
    let arg_attrs = ctx.get_attr(func, "arg_attrs").map(|a| ctx.attr_data(a).clone());
    let symbol_arg = ctx.lookup_sym(SYMBOL_ARG_ATTR);
    let mut rw = crate::Rewriter::new(ctx);
    if let (Some(crate::AttrData::Array(dicts)), Some(marker)) = (arg_attrs, symbol_arg) {
        let mut out = Vec::with_capacity(dicts.len());
        for d in dicts {
            match rw.ctx().attr_data(d).clone() {
                crate::AttrData::Dict(entries) => {
                    let kept: Vec<crate::NamedAttr> = entries.into_iter().filter(|e| e.name != marker).collect();
                    out.push(rw.dict_attr(kept));
                }
                _ => out.push(d),
            }
        }
        let a = rw.array_attr(out);
        rw.set_attr(func, "arg_attrs", a);
    }
    rw.remove_attr(func, RANGES_ATTR);
    rw.remove_attr(func, GUARDS_ATTR);
    Ok(())
}

/// The values of a function's symbols for one call, read from its
/// arguments' sizes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    values: Vec<(u32, i64)>,
}

impl Bindings {
    /// No symbols (a function with static sizes).
    pub fn none() -> Bindings {
        Bindings::default()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Given values (`s0 = 8`), the last of repeated symbols winning.
    pub fn from_pairs(pairs: &[(u32, i64)]) -> Bindings {
        let mut b = Bindings::default();
        for &(k, v) in pairs {
            b.values.retain(|(s, _)| *s != k);
            b.values.push((k, v));
        }
        b
    }

    /// Reads `s0=8,s1=16`.
    pub fn parse(text: &str) -> Result<Bindings, String> {
        let mut pairs = Vec::new();
        for item in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (name, value) =
                item.split_once('=').ok_or_else(|| format!("'{item}' is not SYMBOL=SIZE (e.g. s0=8)"))?;
            let k = name
                .trim()
                .strip_prefix('s')
                .and_then(|r| r.parse::<u32>().ok())
                .filter(|&k| k < MAX_SYMBOLS)
                .ok_or_else(|| format!("'{}' is not a symbol s<N>", name.trim()))?;
            let v = value.trim().parse::<i64>().map_err(|_| format!("'{}' is not a size", value.trim()))?;
            if v < MIN_SYMBOL_VALUE {
                return Err(format!("s{k} = {v}: a symbolic size is at least {MIN_SYMBOL_VALUE}"));
            }
            pairs.push((k, v));
        }
        Ok(Bindings::from_pairs(&pairs))
    }

    /// The value of symbol `k`.
    pub fn get(&self, k: u32) -> Option<i64> {
        self.values.iter().find(|(s, _)| *s == k).map(|&(_, v)| v)
    }

    /// `(symbol, value)` pairs in binding order.
    pub fn pairs(&self) -> &[(u32, i64)] {
        &self.values
    }

    /// The value of size `d`.
    pub fn eval(&self, d: i64) -> Result<i64, SymError> {
        eval(d, &|k| self.get(k))
    }

    /// `shape` with every size evaluated.
    pub fn eval_shape(&self, shape: &[i64]) -> Result<crate::Shape, SymError> {
        eval_shape(shape, &|k| self.get(k))
    }

    /// A layout (sizes, strides, offset) with every size evaluated.
    pub fn eval_layout(
        &self,
        sizes: &[i64],
        strides: &[i64],
        offset: i64,
    ) -> Result<(crate::Shape, crate::Shape, i64), SymError> {
        Ok((self.eval_shape(sizes)?, self.eval_shape(strides)?, self.eval(offset)?))
    }

    /// Binds the symbols of a function whose arguments have types
    /// `arg_types` (`None` for a non-tensor argument) from the actual
    /// sizes `sizes`, and checks the call: every argument dimension equals
    /// its declared size, every symbol lies in its range (so is at least
    /// 2), and every guard holds. The error names the argument and
    /// dimension, or the guard, that failed.
    pub fn bind(arg_types: &[Option<&crate::TensorType>], sizes: &[&[i64]], facts: &Facts) -> Result<Bindings, String> {
        Bindings::bind_with(&[], arg_types, sizes, facts)
    }

    /// [`Bindings::bind`] with symbols whose values the call passes as
    /// values (`given`, from arguments marked [`SYMBOL_ARG_ATTR`]).
    pub fn bind_with(
        given: &[(u32, i64)],
        arg_types: &[Option<&crate::TensorType>],
        sizes: &[&[i64]],
        facts: &Facts,
    ) -> Result<Bindings, String> {
        let mut b = Bindings::default();
        for &(k, v) in given {
            let (lo, hi) = facts.range(k);
            if v < lo || v > hi {
                return Err(format!("symbol s{k} is passed as {v}, outside its range [{lo}, {hi}]"));
            }
            if b.get(k).is_none() {
                b.values.push((k, v));
            }
        }
        for (i, (t, s)) in arg_types.iter().zip(sizes).enumerate() {
            let Some(t) = t else { continue };
            if t.shape.len() != s.len() {
                continue; // the caller's rank check reports it
            }
            for (d, (&want, &got)) in t.shape.iter().zip(s.iter()).enumerate() {
                let Some(k) = as_symbol(want) else { continue };
                if b.get(k).is_some() {
                    continue;
                }
                let (lo, hi) = facts.range(k);
                if got < lo || got > hi {
                    let why = if got < MIN_SYMBOL_VALUE {
                        " (sizes 0 and 1 are specialized: they are never symbolic)".to_string()
                    } else {
                        String::new()
                    };
                    return Err(format!(
                        "argument {i} has size {got} at dimension {d}, outside the range [{lo}, {hi}] of symbol s{k}{why}"
                    ));
                }
                b.values.push((k, got));
            }
        }
        for (i, (t, s)) in arg_types.iter().zip(sizes).enumerate() {
            let Some(t) = t else { continue };
            if t.shape.len() != s.len() {
                return Err(format!("argument {i} has rank {}, but the function expects {t}", s.len()));
            }
            for (d, (&want, &got)) in t.shape.iter().zip(s.iter()).enumerate() {
                let w = b.eval(want).map_err(|e| format!("argument {i}, dimension {d}: {e}"))?;
                if w != got {
                    let sym = if is_symbolic(want) { format!(" ({} = {w})", display(want)) } else { String::new() };
                    return Err(format!(
                        "argument {i} has size {got} at dimension {d}, but the function expects {t}{sym}"
                    ));
                }
            }
        }
        for g in &facts.guards {
            match g.holds(&|k| b.get(k)) {
                Ok(true) => {}
                Ok(false) => {
                    let vals: Vec<String> =
                        g.symbols().iter().filter_map(|&k| b.get(k).map(|v| format!("s{k} = {v}"))).collect();
                    return Err(format!("guard {g} fails with {}", vals.join(", ")));
                }
                Err(e) => return Err(format!("guard {g}: {e}")),
            }
        }
        Ok(b)
    }
}

/// `a / b` when `b` divides `a` exactly as polynomials (a constant
/// divisor dividing every coefficient, or one monomial dividing every
/// term); `None` when that is not evident from the forms.
pub fn exact_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    if !is_symbolic(b) {
        if !is_symbolic(a) {
            return (a % b == 0).then(|| a / b);
        }
        return modulo(a, b.abs()).ok().filter(|&m| m == 0).and_then(|_| floordiv(a, b).ok()).filter(|_| b > 0);
    }
    let pb = poly_of(b);
    let ([(mb, cb)], 0) = (&pb.terms[..], pb.constant) else { return None };
    let pa = poly_of(a);
    if pa.constant != 0 {
        return None;
    }
    let mut terms = Vec::with_capacity(pa.terms.len());
    for (m, c) in &pa.terms {
        if c % cb != 0 {
            return None;
        }
        let mut rest = m.clone();
        for atom in mb {
            let at = rest.iter().position(|x| x == atom)?;
            rest.remove(at);
        }
        terms.push((rest, c / cb));
    }
    let (constant_terms, terms): (Vec<_>, Vec<_>) = terms.into_iter().partition(|(m, _)| m.is_empty());
    let constant = constant_terms.iter().try_fold(0i64, |acc, (_, c)| acc.checked_add(*c))?;
    intern(normalize(terms, constant).ok()?).ok()
}
