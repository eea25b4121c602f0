"""Symbolic sizes from PyTorch's `ShapeEnv` to aot IR.

A graph traced over fake tensors with symbolic sizes (`torch.export` with
`Dim`s, Dynamo's dynamic shapes) has sizes that are `SymInt`s over the
symbols of its inputs' sizes (`s77`). `SymbolTable` names those symbols
`s0`, `s1`, ... in the order the graph's inputs first have them as a whole
dimension, writes a size as the IR's expression text (`(s0*4 + 1)`,
`(s0 floordiv 2)`), and gives the function's `aot.symbols` (the ranges)
and `aot.guards`: every guard the `ShapeEnv` recorded, translated. A
decision the translation makes on a size (`d == 1`, `int(d)`) goes through
the `ShapeEnv`, which records it as a guard, so the IR function carries it
and its callers' sizes are checked against it: never a function silently
specialised to the example's sizes.

Only what the IR's size language says is taken: integer polynomials, and
`floordiv`/`mod` by a positive constant, over input symbols. Anything else
(an unbacked symbol from `.item()`, a division by a symbol, `Max`) raises
`Reject`: the caller then translates with static sizes.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import sympy
import torch

from . import ir_builder
from .ir_builder import Reject

# The IR's bounds on a symbol's value (`aot_ir::sym`).
MIN_SYMBOL_VALUE = 2
MAX_SYMBOL_VALUE = 1 << 40


@contextlib.contextmanager
def translating(table: "SymbolTable") -> Iterator["SymbolTable"]:
    """Makes `table` the one `ir_builder` writes sizes with
    (`ir_builder.SYMBOLS`)."""
    saved, ir_builder.SYMBOLS = ir_builder.SYMBOLS, table
    try:
        yield table
    finally:
        ir_builder.SYMBOLS = saved


def is_sym(x: Any) -> bool:
    return isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool))


def _plain(e: sympy.Expr) -> sympy.Expr:
    """`e` with PyTorch's `CleanDiv` (a `FloorDiv` its ShapeEnv knows to be
    exact, which it writes once a guard says so) as `FloorDiv`: one key for
    an expression simplified before and after that guard."""
    from torch.utils._sympy.functions import CleanDiv, FloorDiv

    if not e.has(CleanDiv):
        return e
    return e.replace(lambda x: isinstance(x, CleanDiv), lambda x: FloorDiv(*x.args))


# A size's text that needs no parentheses: a symbol or a number (what
# `_expr_text` gives for a quotient it writes as one).
_ATOM_TEXT = re.compile(r"s\d+|\d+")


class SymbolTable:
    """The symbols of one graph: their IR names, ranges and guards."""

    def __init__(self, shape_env, inputs: Sequence[Any]):
        self.shape_env = shape_env
        self.index: Dict[sympy.Symbol, int] = {}
        # Guards the translation assumed to give a size a form (`_expr_text`:
        # `c mod m` is `c` where `m > c`), added to the ShapeEnv's in
        # `guards`.
        self._assumed: List[str] = []
        # Expressions an `Eq` guard pins to a constant (`settled`), from
        # the first `_pinned_seen` guards.
        self._pinned: Dict[sympy.Expr, sympy.Integer] = {}
        self._pinned_seen = 0
        # Of those, the quotients and remainders by a size (`_pin`).
        self._by_size: Dict[sympy.Expr, sympy.Integer] = {}
        # Differences `lhs - rhs` (either sign) of the equalities the IR's
        # guards say (`_exact_quotient`), and the sides of those between two
        # expressions that stand for each other in sizes (`settled`).
        self._zeros: set = set()
        self._equated: Dict[sympy.Expr, sympy.Expr] = {}
        # (Only tensors' dimensions bind a symbol: a number input that is a
        # size is no argument of the IR function.)
        for x in inputs:
            dims = x.shape if isinstance(x, torch.Tensor) else []
            for d in dims:
                if isinstance(d, torch.SymInt):
                    e = self.expr(d)
                    if isinstance(e, sympy.Symbol) and e not in self.index:
                        self.index[e] = len(self.index)

    def expr(self, d: Any) -> sympy.Expr:
        """The simplified expression of size `d` (an int or a SymInt)."""
        if isinstance(d, int):
            return sympy.Integer(d)
        return self.shape_env.simplify(d.node.expr)

    @property
    def symbolic(self) -> bool:
        return bool(self.index)

    # -- text -----------------------------------------------------------
    def settled(self, e: sympy.Expr) -> sympy.Expr:
        """`e` as a constant where the symbols' ranges pin it to one
        (`(s1 + 31) // 32` with `s1` in `[2, 32]`, after a guard narrowed the
        range) or a guard says it equals one (`Eq((s1 // 2 - 1) // 2 + 1,
        1)`), as the IR's shape rules settle a size (`Facts::settled`):
        PyTorch writes some of a graph's sizes as the constant once it
        guarded on them and leaves others as the expression. Otherwise `e`
        with the quotients a guard makes exact multiplied out
        (`_exact_quotients`). Quotients by a size that a guard pins (`s //
        (s // 2)`, which the IR cannot write) are their constants first."""
        if isinstance(e, sympy.Integer) or not e.free_symbols:
            return e
        r = self.shape_env.bound_sympy(e)
        if r.lower == r.upper and r.lower.is_integer and r.lower.is_finite:
            return sympy.Integer(int(r.lower))
        e = sympy.expand(self._pin(e))
        if isinstance(e, sympy.Integer):
            return e
        pinned = self._pinned.get(e)
        if pinned is not None:
            return pinned
        # (A few steps along a chain of equalities, as `Facts::equated`.)
        for _ in range(8):
            to = self._equated.get(e)
            if to is None:
                break
            e = to
        return self._exact_quotients(self._equated_factors(e))

    def _equated_factors(self, e: sympy.Expr) -> sympy.Expr:
        """`e` with each quotient or remainder a guard equates to another
        expression (`Eq(s2 // 4, s1 // 4)`: a square map's height against
        its width) written as that expression where it is a factor of a
        term, as `Facts::equated_atoms` does: `2*(s1 // 4)` is `2*(s2 //
        4)`. Factors nested in a quotient's argument stay."""
        from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod

        rules = {k: v for k, v in self._equated.items() if isinstance(k, (FloorDiv, Mod, PythonMod))}
        if not rules:
            return e
        for _ in range(8):
            changed = False
            out = sympy.Integer(0)
            for term in sympy.Add.make_args(sympy.expand(e)):
                factors = []
                for f in sympy.Mul.make_args(term):
                    base, n = (f.base, f.exp) if isinstance(f, sympy.Pow) and isinstance(f.exp, sympy.Integer) \
                        and int(f.exp) > 0 else (f, 1)
                    to = rules.get(base)
                    if to is not None:
                        changed = True
                        f = to ** n
                    factors.append(f)
                out += sympy.Mul(*factors)
            if not changed:
                break
            e = sympy.expand(out)
        return e

    def _refresh(self):
        """Reads the guards the ShapeEnv added since the last call: the
        expressions an `Eq` guard pins to a constant (`_pinned`, with the
        quotients by a size among them in `_by_size`); then the equalities
        the IR's guards will say (`_ir_relations`), each one's difference
        `lhs - rhs` of either sign (`_zeros`), and which side of one
        between two expressions stands for the other in sizes (`_equated`,
        the first such guard winning, as `Facts::equated` decides)."""
        from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod

        guards = self.shape_env.guards
        if len(guards) == self._pinned_seen:
            return
        new, self._pinned_seen = guards[self._pinned_seen:], len(guards)
        exprs = [self.shape_env.simplify(g.expr) for g in new]
        pins = [(_plain(x), c) for expr in exprs if isinstance(expr, sympy.Eq)
                for x, c in ((expr.lhs, expr.rhs), (expr.rhs, expr.lhs))
                if isinstance(c, sympy.Integer) and x.free_symbols]
        for x, c in pins:
            if isinstance(x, (FloorDiv, Mod, PythonMod)) and not isinstance(x.args[1], sympy.Integer):
                self._by_size[x] = c
        # (Keyed as sizes are looked up: quotients by a size pinned, as
        # the IR's guard says it, `Eq(s * (h // (h // 2)), 6)` being `2·s
        # == 6`.)
        for x, c in pins:
            self._pinned[x] = c
            self._pinned[sympy.expand(self._pin(x))] = c
        for expr in exprs:
            try:
                rels = self._ir_relations(expr)
            except Reject:
                continue
            for lhs, rel, rhs in rels:
                if rel != "==":
                    continue
                lhs, rhs = sympy.expand(lhs), sympy.expand(rhs)
                d = sympy.expand(lhs - rhs)
                self._zeros |= {d, sympy.expand(-d)}
                if lhs.free_symbols and rhs.free_symbols and lhs != rhs:
                    lone = (isinstance(lhs, sympy.Symbol), isinstance(rhs, sympy.Symbol))
                    if lone != (True, True):
                        frm, to = (lhs, rhs) if lone == (False, True) else (rhs, lhs)
                        self._equated.setdefault(frm, to)

    def _ir_relations(self, e: sympy.Basic) -> List[Tuple[sympy.Expr, str, sympy.Expr]]:
        """The relations the IR's guards say for guard `e` (`guards`): a
        guard that pins a quotient or remainder by a size in the IR's
        words (`_pinning_relations`), else `e` itself, its quotients by a
        size pinned."""
        pinning = self._pinning_relations(e)
        if pinning is not None:
            return pinning
        ops = {sympy.Eq: "==", sympy.Ne: "!=", sympy.Le: "<=", sympy.Lt: "<", sympy.Ge: ">=", sympy.Gt: ">"}
        for cls, rel in ops.items():
            if isinstance(e, cls):
                return [(self._pin(e.lhs), rel, self._pin(e.rhs))]
        raise Reject("guard %s has no form in the IR's guard language" % e)

    def _pin(self, e: sympy.Expr) -> sympy.Expr:
        """`e` with each quotient or remainder by a size that a guard pins
        to a constant written as that constant (`_by_size`): the IR has no
        form for them, so no rule of its computes one, and the sizes it
        reads agree."""
        self._refresh()
        if not self._by_size:
            return e
        plain = _plain(e)
        pinned = plain.xreplace(self._by_size)
        return sympy.expand(pinned) if pinned is not plain else e

    def _exact_quotients(self, e: sympy.Expr) -> sympy.Expr:
        """`e` with the whole quotients a guard makes exact multiplied out,
        as `Facts::exact_quotients` does: in each term `c · Π factors`, the
        quotients `x // q` whose remainder a guard makes 0 (`Eq(x, q*(x //
        q))`, Dynamo's form, or `Eq(x % q, 0)`) are `x / q`; where the
        product of their divisors divides `c`, the term is multiplied out.
        `2*(s1 // 2)` (a map upsampled back from its half) is `s1` under
        Dynamo's guard that `s1` is even, as the IR's rules settle it."""
        from torch.utils._sympy.functions import FloorDiv

        if not e.has(FloorDiv):
            return e
        changed = False
        out = sympy.Integer(0)
        for term in sympy.Add.make_args(sympy.expand(e)):
            c, rest = term.as_coeff_Mul()
            if not isinstance(c, sympy.Integer):
                return e
            product, divisor, exact = sympy.Integer(1), 1, False
            for f in sympy.Mul.make_args(rest):
                base, n = (f.base, int(f.exp)) if isinstance(f, sympy.Pow) and isinstance(f.exp, sympy.Integer) \
                    and int(f.exp) > 0 else (f, 1)
                if isinstance(base, FloorDiv) and isinstance(base.args[1], sympy.Integer) \
                        and self._exact_quotient(base.args[0], int(base.args[1])):
                    product *= base.args[0] ** n
                    divisor *= int(base.args[1]) ** n
                    exact = True
                else:
                    product *= f
            if exact and int(c) % divisor == 0:
                changed = True
                out += sympy.expand(product * (int(c) // divisor))
            else:
                out += term
        return sympy.expand(out) if changed else e

    def _exact_ratios(self, e: sympy.Expr) -> sympy.Expr:
        """`e` with each quotient `x // q` a guard makes exact written `x / q`
        (a ratio, for `cancel`)."""
        from torch.utils._sympy.functions import FloorDiv

        return e.replace(lambda f: isinstance(f, FloorDiv) and isinstance(f.args[1], sympy.Integer)
                         and int(f.args[1]) > 0 and self._exact_quotient(f.args[0], int(f.args[1])),
                         lambda f: f.args[0] / f.args[1])

    def _exact_quotient(self, x: sympy.Expr, q: int) -> bool:
        """Whether a guard says `q` divides `x` (one the IR's guards say
        too: `guards` writes every one)."""
        from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod

        self._refresh()
        forms = (sympy.expand(x - q * FloorDiv(x, q)), Mod(x, q), PythonMod(x, q))
        return any(f in self._zeros for f in forms)

    def text(self, d: Any) -> str:
        """Size `d` as the IR writes a dimension (`settled`)."""
        return self._dim_text(self.settled(self.expr(d)))

    def text_of(self, e: sympy.Expr) -> str:
        """Expression `e` over the input sizes' symbols as the IR writes a
        dimension (Reject where it has no form)."""
        return self._dim_text(sympy.expand(e))

    def _dim_text(self, e: sympy.Expr) -> str:
        """`e` as a dimension is written: a number, a symbol, or an
        expression in parentheses."""
        if isinstance(e, sympy.Integer):
            return str(int(e))
        s = self._expr_text(e)
        return s if isinstance(e, sympy.Symbol) or s.startswith("(") or _ATOM_TEXT.fullmatch(s) else "(%s)" % s

    def _expr_text(self, e: sympy.Expr) -> str:
        from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod

        if isinstance(e, sympy.Integer):
            return str(int(e))
        if isinstance(e, sympy.Symbol):
            k = self.index.get(e)
            if k is None:
                raise Reject("size %s is over %s, which is not an input's size" % (e, e))
            return "s%d" % k
        if isinstance(e, FloorDiv) and not isinstance(e.args[1], sympy.Integer):
            # (A quotient by a size that the ranges or a guard pin to a
            # constant, `Eq(s // (s // 2), 2)`: PyTorch's stride of a split
            # dimension. Its constant, as `settled` writes a whole size.)
            c = self.settled(e)
            if isinstance(c, sympy.Integer):
                return str(int(c))
        if isinstance(e, sympy.Add):
            return "(%s)" % " + ".join(self._expr_text(a) for a in e.args)
        if isinstance(e, sympy.Mul):
            return "(%s)" % "*".join(self._expr_text(a) for a in e.args)
        if isinstance(e, sympy.Pow) and isinstance(e.exp, sympy.Integer) and 1 <= int(e.exp) <= 8:
            return "(%s)" % "*".join([self._expr_text(e.base)] * int(e.exp))
        if isinstance(e, FloorDiv) and isinstance(e.args[1], sympy.Integer) and int(e.args[1]) > 0:
            return "(%s floordiv %d)" % (self._expr_text(e.args[0]), int(e.args[1]))
        if isinstance(e, FloorDiv):
            # A division by a size that divides the numerator (a view's
            # `-1` over a product that has the size as a factor:
            # `((s//4)**2) // (s//4)` in ConvNeXt's stem): the quotient,
            # where the divisor is at least 1 at every size the ranges allow.
            # (Quotients a guard makes exact are divided out first:
            # `s // (s // 2)` is 2 where `s` is even.)
            num, den = sympy.fraction(sympy.cancel(self._exact_ratios(e.args[0]) / self._exact_ratios(e.args[1])))
            lower = self.shape_env.bound_sympy(e.args[1]).lower
            if isinstance(den, sympy.Integer) and int(den) >= 1 and isinstance(lower, sympy.Integer) \
                    and int(lower) >= 1:
                # (`p // q` with `p / q` = `num / den`, `den` a constant:
                # `((s//4)**2) // (2*(s//4))` is `(s//4) // 2`.)
                if int(den) == 1:
                    return self._expr_text(sympy.expand(num))
                return "(%s floordiv %d)" % (self._expr_text(sympy.expand(num)), int(den))
            q = self._quotient_by_size(e.args[0], e.args[1])
            if q is not None:
                return self._expr_text(q)
        if isinstance(e, (Mod, PythonMod)) and isinstance(e.args[1], sympy.Integer) and int(e.args[1]) > 0:
            return "(%s mod %d)" % (self._expr_text(e.args[0]), int(e.args[1]))
        if isinstance(e, (Mod, PythonMod)) and self._below(e.args[0], e.args[1]):
            # `a mod b` with `0 <= a < b` at every size the ranges allow is
            # `a` (PyTorch's contiguity checks write `A mod (s*A)` for a
            # plane of `A` elements in a batch of `s`: a pooled CNN).
            return self._expr_text(e.args[0])
        if isinstance(e, (Mod, PythonMod)) and isinstance(e.args[0], sympy.Integer) and int(e.args[0]) >= 0 \
                and e.args[1].free_symbols and self._hint(e.args[1]) > int(e.args[0]):
            # `c mod m` of a size `m` that may be as small as `c` (`roll`'s
            # shift of 2 over a length `T >= 2`), where the example's `m` is
            # larger: `c` where `m > c`, which becomes a guard of the
            # function's (a call with `m <= c` is refused and runs in
            # PyTorch).
            c = int(e.args[0])
            self._assumed.append("%s > %d" % (self._expr_text(e.args[1]), c))
            return str(c)
        if isinstance(e, (Mod, PythonMod)) and isinstance(e.args[0], sympy.Integer) and int(e.args[0]) < 0:
            # A negative index normalised by a size (`x[:, -1]`): `c mod m`
            # is `m + c` where the size is at least `-c`.
            c, m = int(e.args[0]), e.args[1]
            lower = self.shape_env.bound_sympy(m).lower
            if isinstance(lower, sympy.Integer) and int(lower) >= -c:
                return "(%s - %d)" % (self._expr_text(m), -c)
        raise Reject("size %s has no form in the IR's size language" % e)

    def _quotient_by_size(self, p: sympy.Expr, q: sympy.Expr) -> Optional[sympy.Expr]:
        """`p // q` for a size `q` where `p` is `Q·q + R` with `Q` a
        polynomial of integer coefficients and `0 <= R < q` at every size
        the ranges allow (also with `R + q` for a negative `R`): `Q`.
        `ceil(n·T / T)`, written `(T·n + T - 1) // T` (the bag count of
        `embedding_bag` over a `[n, T]` batch), is `n`."""
        gens = sorted(p.free_symbols | q.free_symbols, key=str)
        if not gens or not p.is_polynomial(*gens) or not q.is_polynomial(*gens):
            return None
        try:
            quo, rem = sympy.div(sympy.expand(p), sympy.expand(q), *gens)
            coeffs = sympy.Poly(quo, *gens).coeffs() if quo.free_symbols else [quo]
        except (sympy.PolynomialError, ValueError, TypeError):
            return None
        if not all(isinstance(c, sympy.Integer) for c in coeffs):
            return None
        for k in (0, 1):
            r = sympy.expand(rem + k * q)
            if self._below(r, q):
                return sympy.expand(quo - k)
        return None

    def _hint(self, e: sympy.Expr) -> int:
        """`e` at the example's sizes (-1 where that is not a number)."""
        env = self.shape_env
        try:
            # (PyTorch's hint that records no guard; `size_hint` where a
            # release lacks it.)
            hint = getattr(env, "optimization_hint", None)
            v = hint(e) if hint is not None else env.size_hint(e, allow_none=True)
        except Exception:  # (no hint: no assumption)
            return -1
        return int(v) if isinstance(v, (int, sympy.Integer)) else -1

    def _below(self, a: sympy.Expr, b: sympy.Expr) -> bool:
        """Whether `0 <= a < b` at every size the ranges allow: `a` is at
        least 0 and either `b - a` at least 1, or `b` is `a` times a factor
        of at least 2 (with `a` at least 1)."""
        def lower(x):
            lo = self.shape_env.bound_sympy(x).lower
            return int(lo) if isinstance(lo, sympy.Integer) else None

        lo_a = lower(a)
        if lo_a is None or lo_a < 0:
            return False
        gap = lower(sympy.factor(b - a))
        if gap is not None and gap >= 1:
            return True
        ratio = sympy.cancel(b / a)
        num, den = sympy.fraction(ratio)
        lo_r = lower(num) if den == 1 else None
        return lo_a >= 1 and lo_r is not None and lo_r >= 2

    def dim(self, d: Any) -> Any:
        """A dimension for the builder: an int where `d` is a constant,
        else `d` itself (a SymInt, checked to have an IR form)."""
        e = self.expr(d)
        if isinstance(e, sympy.Integer):
            return int(e)
        self.text(d)
        return d

    # -- attributes -------------------------------------------------------
    def ranges(self) -> Dict[int, Tuple[int, int]]:
        """Each symbol's range, where it is narrower than the IR's default."""
        out = {}
        for s, k in self.index.items():
            vr = self.shape_env.var_to_range.get(s)
            lo, hi = MIN_SYMBOL_VALUE, MAX_SYMBOL_VALUE
            if vr is not None:
                # (An unbounded end is PyTorch's `int_oo`, no sympy Integer.)
                if isinstance(vr.lower, sympy.Integer):
                    lo = max(lo, int(vr.lower))
                if isinstance(vr.upper, sympy.Integer):
                    hi = min(hi, int(vr.upper))
            if lo > hi:
                raise Reject("symbol %s has the empty range [%d, %d]" % (s, lo, hi))
            if (lo, hi) != (MIN_SYMBOL_VALUE, MAX_SYMBOL_VALUE):
                out[k] = (lo, hi)
        return out

    def guards(self) -> List[str]:
        """Every guard the ShapeEnv holds over the input symbols, as IR
        guard text; a guard the IR cannot say raises Reject."""
        out: List[str] = []
        for g in self.shape_env.guards:
            e = self.shape_env.simplify(g.expr)
            if e is sympy.true:
                continue
            if e is sympy.false:
                raise Reject("a guard on the sizes is false at the example: %s" % g.expr)
            free = e.free_symbols
            if not free & set(self.index):
                # (A guard over other graphs' sizes only: whoever shares
                # the ShapeEnv checks it, and this function's sizes do not
                # depend on it.)
                continue
            try:
                out.extend(self._guard_text(e))
            except Reject:
                # One the IR cannot say may still hold for every value in
                # the symbols' ranges (`Mod(x, s0*x) == x` with s0 >= 2),
                # which PyTorch's range analysis proves; else it stands.
                if self._always_true(e):
                    continue
                raise
        # (A symbol the trace replaced by a constant or another symbol is
        # a guard too: its input dimension must have that value.)
        for s, r in self.shape_env.replacements.items():
            if s in self.index and r != s:
                out.append("%s == %s" % (self._expr_text(s), self._expr_text(self.shape_env.simplify(r))))
        out.extend(self._assumed)
        return list(dict.fromkeys(out))

    def _pinning_relations(self, e: sympy.Basic) -> Optional[List[Tuple[sympy.Expr, str, sympy.Expr]]]:
        """A guard that pins a quotient or remainder by a size to a constant
        (`Eq(s // (s // 2), 2)`), which the sizes write as that constant
        (`_pin`), in the IR's words; None for any other guard. `x // y ==
        c` is `c·y <= x < (c + 1)·y` (y at least 1); `x mod y == c`, where
        a guard pins `x // y` to q too, is `x == q·y + c`. The guard stays
        a check of the compiled function's, not a tautology."""
        from torch.utils._sympy.functions import FloorDiv

        if not isinstance(e, sympy.Eq):
            return None
        self._refresh()
        for x, c in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            x = _plain(x)
            if not isinstance(c, sympy.Integer) or x not in self._by_size:
                continue
            num, den = x.args
            lower = self.shape_env.bound_sympy(den).lower
            if not (isinstance(lower, sympy.Integer) and int(lower) >= 1):
                raise Reject("guard %s divides by a size that may be 0" % e)
            n, d = self._pin(num), self._pin(den)
            if isinstance(x, FloorDiv):
                return [(c * d, "<=", n), (n, "<", (c + 1) * d)]
            q = self._by_size.get(FloorDiv(num, den))
            if q is None:
                raise Reject("guard %s has no form in the IR's guard language" % e)
            return [(n, "==", q * d + c)]
        return None

    def _always_true(self, e: sympy.Basic) -> bool:
        try:
            return self.shape_env._maybe_evaluate_static(e) is sympy.true
        except Exception:  # (PyTorch's analysis, internal API: no proof)
            return False

    def _guard_text(self, e: sympy.Basic) -> List[str]:
        """Guard `e` as IR guard text: one guard, or the relations that say
        a pinned quotient by a size (`_ir_relations`)."""
        return ["%s %s %s" % (self._expr_text(lhs), rel, self._expr_text(rhs)) for lhs, rel, rhs in self._ir_relations(e)]

    def attributes(self) -> str:
        """The function's attribute dictionary text (empty when none)."""
        parts = []
        ranges = self.ranges()
        if ranges:
            parts.append("aot.symbols = {%s}" % ", ".join(
                "s%d = array<i64: %d, %d>" % (k, lo, hi) for k, (lo, hi) in sorted(ranges.items())))
        guards = self.guards()
        if guards:
            parts.append("aot.guards = [%s]" % ", ".join('"%s"' % g for g in guards))
        return " attributes {%s}" % ", ".join(parts) if parts else ""


def trace(gm: torch.fx.GraphModule, fakes: Sequence[Any], fake_mode) -> torch.fx.GraphModule:
    """`gm` traced to ATen (`fx_ir.to_aten`'s decompositions) over `fakes`,
    fake tensors (and SymInts) of `fake_mode`, whose ShapeEnv keeps their
    sizes symbolic: the graph's sizes are SymInts, its size arithmetic
    nodes."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch.fx import traceback as fx_traceback
    from torch.fx.experimental.proxy_tensor import make_fx

    from . import fx_ir

    fx_ir.annotate_grad_mode(gm)

    def fn(*args):
        return torch.fx.Interpreter(gm).run(*args)

    # (Tensors the graph holds rather than takes, such as a constant Dynamo
    # kept as an attribute, are real: the trace records them as constants,
    # and the fake mode computes with fakes of them.)
    allowed = fake_mode.allow_non_fake_inputs
    fake_mode.allow_non_fake_inputs = True
    try:
        with torch.set_grad_enabled(torch.is_grad_enabled()), enable_python_dispatcher(), \
                fx_traceback.preserve_node_meta(), fake_mode:
            return make_fx(fn, decomposition_table=fx_ir.DECOMPOSITIONS,
                           tracing_mode="real")(*fakes)
    finally:
        fake_mode.allow_non_fake_inputs = allowed


def translate(gm: torch.fx.GraphModule, fakes: Sequence[Any], fake_mode, **kwargs):
    """`gm` over symbolic `fakes` as an IR function with symbolic sizes
    (`fx_ir.translate`'s keyword arguments; the examples are the fakes):
    the Translation and its table. Raises `fx_ir.Unsupported`/`Reject` (or
    PyTorch's errors) where the sizes have no IR form; None when no input
    has a symbolic size."""
    from . import fx_ir

    shape_env = fake_mode.shape_env
    if shape_env is None or not SymbolTable(shape_env, fakes).symbolic:
        return None
    aten = trace(gm, fakes, fake_mode)
    # (After the trace, which may have found sizes equal: the ShapeEnv then
    # names them by one symbol.)
    table = SymbolTable(shape_env, fakes)
    # (Under the fake mode: the translator's layout replays make meta
    # tensors of the trace's sizes, which outside it would be made concrete,
    # specialising every symbol to the example's value.)
    with translating(table), fake_mode:
        tr = fx_ir.translate(aten, fakes, **kwargs)
    for s, r in shape_env.replacements.items():
        if s in table.index and isinstance(shape_env.simplify(r), sympy.Integer):
            raise Reject("the translation specialised size %s to %s" % (s, r))
    return tr, table


class SizeBinder:
    """The sizes of one call: reads the symbols' values from its arguments
    (each symbol's first input dimension) and evaluates what a symbolic translation left as SymInts (its results'
    shapes, strides and offsets) with them."""

    def __init__(self, table: SymbolTable, fakes: Sequence[Any]):
        self.table = table
        self.symbols = sorted(table.index, key=table.index.get)
        where: Dict[sympy.Symbol, Tuple[int, Optional[int]]] = {}
        for i, f in enumerate(fakes):
            dims = list(enumerate(f.shape)) if isinstance(f, torch.Tensor) else []
            for d, n in dims:
                if isinstance(n, torch.SymInt):
                    e = table.expr(n)
                    if isinstance(e, sympy.Symbol):
                        where.setdefault(e, (i, d))
        self.where: List[Tuple[int, int]] = [where[s] for s in self.symbols]
        self._translations: Dict[Tuple[int, ...], Any] = {}

    def values(self, args: Sequence[Any]) -> Tuple[int, ...]:
        return tuple(int(args[i].shape[d]) for i, d in self.where)

    def concrete(self, x: Any, values: Tuple[int, ...]) -> Any:
        """`x` (a size, or a tuple or list of them, nested) with every SymInt
        evaluated at `values`."""
        if isinstance(x, (list, tuple)):
            return type(x)(self.concrete(y, values) for y in x)
        if isinstance(x, torch.SymInt):
            e = self.table.expr(x).xreplace({s: sympy.Integer(v) for s, v in zip(self.symbols, values)})
            if not isinstance(e, sympy.Integer):
                raise Reject("size %s does not evaluate at %s" % (x, values))
            return int(e)
        return x

    def translation(self, tr: Any, values: Tuple[int, ...]) -> Any:
        """Translation `tr` with its results' metadata evaluated at
        `values` (kept per set of values, at most 64)."""
        import dataclasses

        found = self._translations.get(values)
        if found is None:
            if len(self._translations) >= 64:
                self._translations.clear()
            found = dataclasses.replace(
                tr,
                result_meta=[(tuple(self.concrete(s, values)), d) for s, d in tr.result_meta],
                result_strides=[self.concrete(st, values) for st in tr.result_strides],
                result_offsets=[self.concrete(o, values) for o in tr.result_offsets],
                outputs=[(kind, self.concrete(v, values) if kind == "const" else v) for kind, v in tr.outputs],
            )
            self._translations[values] = found
        return found


def dynamic_mask(fakes: Sequence[Any], table: SymbolTable) -> List[List[bool]]:
    """Per argument, which of its dimensions are symbolic (a number that is
    a symbolic size: one entry), as `_native.convention_key` takes it."""
    out = []
    for f in fakes:
        if isinstance(f, torch.Tensor):
            out.append([isinstance(n, torch.SymInt) and not isinstance(table.expr(n), sympy.Integer)
                        for n in f.shape])
        elif isinstance(f, torch.SymInt):
            out.append([not isinstance(table.expr(f), sympy.Integer)])
        else:
            out.append([])
    return out
