"""The ATen op table of the FX -> IR translator (`ATEN_TO_IR`).

Each entry maps an OpOverload to `fn(b, node, a) -> value(s)`: `b` the
`ir_builder.Builder`, `node` the FX node, `a` its arguments by schema name. A
translation raises `Reject(reason)` for a form it does not support; it never
emits IR that computes something else than PyTorch.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable, Dict, List, Optional

import torch
import torch.fx

from . import conv
from .ir_builder import FLAG, FLOAT_DTYPES, Builder, Reject, Value, out_meta, out_metas

aten = torch.ops.aten
Node = torch.fx.Node

ATEN_TO_IR: Dict[Any, Callable] = {}

# The IR op names the table's entry factories (`_unary`, `_view_op`, ...)
# were made for; with the literals of the modules, what the op registry
# must know (checked by the tests).
NAMED_OPS: set = set()


def _reg(*ops):
    def deco(fn):
        for op in ops:
            ATEN_TO_IR[op] = fn
        return fn

    return deco


def _is_float(dtype) -> bool:
    return dtype in FLOAT_DTYPES


def _dummy(b: Builder, x):
    if isinstance(x, (Node, Value)):
        v = b.value(x)
        return torch.empty(() if v.rank == 0 else (1,), dtype=v.dtype)
    if isinstance(x, (bool, int, float)):
        return x
    # (A size as a number promotes as a Python number does.)
    if isinstance(x, torch.SymInt):
        return 1
    if isinstance(x, torch.SymFloat):
        return 1.0
    raise Reject("unsupported operand %r" % (x,))


def result_type(b: Builder, *xs) -> torch.dtype:
    """PyTorch's promoted dtype of the operands (tensors and scalars)."""
    from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

    ds = [_dummy(b, x) for x in xs if x is not None]
    _, rt = elementwise_dtypes(*ds, type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)
    return rt


def _norm_dim(d: int, rank: int) -> int:
    r = max(rank, 1)
    if not -r <= d < r:
        raise Reject("dim %d out of range for rank %d" % (d, rank))
    return d % r


def _flag(x) -> Any:
    return FLAG if x else None


def _no_generator(a):
    if a.get("generator") is not None:
        raise Reject("explicit torch.Generator (the IR has one global Philox generator)")


# ---------------------------------------------------------------------------
# Elementwise


def _unary(irname: str, float_only: bool = False):
    NAMED_OPS.add(irname)

    def fn(b: Builder, node: Node, a):
        shape, dtype = out_meta(node)
        if float_only and not _is_float(dtype):
            raise Reject("%s of integer dtype %s" % (irname, dtype))
        x = b.cast(b.value(a["self"]), dtype)
        return b.op1(irname, [x], None, shape, dtype)

    return fn


for _name, _float_only in [
    ("neg", False), ("abs", False), ("relu", False), ("sign", False),
    ("exp", True), ("expm1", True), ("log", True), ("log1p", True), ("sqrt", True), ("rsqrt", True),
    ("reciprocal", True), ("sin", True), ("cos", True), ("tan", True), ("tanh", True),
    ("sigmoid", True), ("erf", True),
]:
    ATEN_TO_IR[getattr(aten, _name).default] = _unary("tensor." + _name, _float_only)


def _rounding(irname: str):
    """floor, ceil, trunc, round: on integers PyTorch returns a copy."""
    NAMED_OPS.add(irname)

    def fn(b: Builder, node: Node, a):
        shape, dtype = out_meta(node)
        decimals = a.get("decimals", 0)
        x = b.value(a["self"])
        if not _is_float(dtype):
            return b.op1("tensor.clone", [x], None, shape, dtype)
        if decimals == 0:
            return b.op1(irname, [x], None, shape, dtype)
        if dtype not in (torch.float32, torch.float64):
            # (PyTorch rounds a half-precision product once, in float.)
            raise Reject("round with decimals of %s" % dtype)
        # PyTorch's kernel: nearbyint(x * 10^d) / 10^d, and for d < 0
        # nearbyint(x / 10^-d) * 10^-d, the power rounded to the dtype.
        scale = b.full(10.0 ** abs(decimals), dtype)
        into, back = ("tensor.mul", "tensor.div") if decimals > 0 else ("tensor.div", "tensor.mul")
        scaled = b.op1(into, [x, scale], None, shape, dtype)
        rounded = b.op1(irname, [scaled], None, shape, dtype)
        return b.op1(back, [rounded, scale], None, shape, dtype)

    return fn


for _name in ("floor", "ceil", "trunc", "round"):
    ATEN_TO_IR[getattr(aten, _name).default] = _rounding("tensor." + _name)
ATEN_TO_IR[aten.round.decimals] = _rounding("tensor.round")


@functools.lru_cache(maxsize=None)
def _eager_gelu_signed_zero(dtype):
    """Whether eager's exact GELU gives -0 where it underflows (x far below
    zero) for `dtype`, where the IR's gives +0 unless told `signed_zero`.
    PyTorch's kernels differ here by machine (oneDNN's f32 GELU gives +0 on
    AVX2 cores, -0 on AVX-512 ones) and by dtype, so the answer is eager's
    own, asked once per process (outside every tracing mode: translations
    run under fake and proxy modes)."""
    from torch.utils._python_dispatch import _disable_current_modes
    with _disable_current_modes(), torch.no_grad():
        y = torch.nn.functional.gelu(torch.full((64,), -20.0, dtype=dtype))
        return bool(torch.signbit(y).all())


@_reg(aten.gelu.default)
def _gelu(b, node, a):
    shape, dtype = out_meta(node)
    approx = a.get("approximate") or "none"
    if approx not in ("none", "tanh"):
        raise Reject("gelu approximate=%r" % approx)
    x = b.value(a["self"])
    attrs = {"approximate": approx}
    if approx == "none" and _eager_gelu_signed_zero(dtype):
        attrs["signed_zero"] = FLAG
    return b.op1("tensor.gelu", [x], attrs, shape, dtype)


def _activation_operand(b: Builder, node: Node, a):
    """The operand of an activation upstream decomposes with
    `pw_cast_for_opmath`: in `float` for half inputs; with the result's
    shape and dtype."""
    shape, dtype = out_meta(node)
    if not _is_float(dtype):
        raise Reject("%s of integer dtype %s" % (node.target, dtype))
    calc = _calc_dtype(dtype)
    return b.cast(b.value(a["self"]), calc), shape, dtype, calc


# The activations below are written here, with the ops of upstream's
# decompositions in their order, rather than decomposed in the trace: each
# traced op costs a first call about a millisecond of fake-tensor dispatch,
# and a CNN has one activation per layer.
@_reg(aten.silu.default)
def _silu(b, node, a):
    # (`x / (1 + exp(-x))`, as eager's kernel: `tensor.silu`.)
    x, shape, dtype, calc = _activation_operand(b, node, a)
    return b.cast(b.op1("tensor.silu", [x], None, shape, calc), dtype)


@_reg(aten.log_sigmoid_forward.default)
def _log_sigmoid_forward(b, node, a):
    """`tensor.log_sigmoid` (eager's kernel and its backward formula), and
    the buffer eager's CPU kernel returns beside it, `exp(-|x|)`."""
    (shape, dtype), (bshape, bdtype) = out_metas(node)
    x = b.value(a["self"])
    if not _is_float(x.dtype):
        raise Reject("log_sigmoid of %s" % x.dtype)
    calc = _calc_dtype(dtype)
    xc = b.cast(x, calc)
    out = b.cast(b.op1("tensor.log_sigmoid", [xc], None, shape, calc), dtype)
    if list(bshape) != list(shape):
        raise Reject("log_sigmoid with a buffer of shape %s" % (list(bshape),))
    z = b.op1("tensor.exp", [b.op1("tensor.neg", [b.op1("tensor.abs", [x], None, shape, x.dtype)], None, shape,
                                   x.dtype)], None, shape, x.dtype)
    return [out, b.cast(z, bdtype)]


@_reg(aten.softplus.default)
def _softplus(b, node, a):
    # (`tensor.softplus`: eager's kernel and its backward formula.)
    x, shape, dtype, calc = _activation_operand(b, node, a)
    attrs = {"beta": float(a.get("beta", 1.0)), "threshold": float(a.get("threshold", 20.0))}
    return b.cast(b.op1("tensor.softplus", [x], attrs, shape, calc), dtype)


@_reg(aten.mish.default)
def _mish(b, node, a):
    # (`tensor.mish`: eager's kernel and its backward formula.)
    x, shape, dtype, calc = _activation_operand(b, node, a)
    return b.cast(b.op1("tensor.mish", [x], None, shape, calc), dtype)


@_reg(aten.logit.default)
def _logit(b, node, a):
    # (`tensor.logit`: eager's kernel and its backward formula, NaN outside
    # [0, 1] without eps, 0 outside [eps, 1 - eps] with it.)
    x, shape, dtype, calc = _activation_operand(b, node, a)
    eps = a.get("eps")
    attrs = {"eps": float(eps)} if eps is not None else None
    return b.cast(b.op1("tensor.logit", [x], attrs, shape, calc), dtype)


@_reg(aten.binary_cross_entropy_with_logits.default)
def _bce_with_logits(b, node, a):
    # (Unreduced, no weights, no pos_weight, f32 or f64: `fx_ir._bce_with_logits`
    # keeps only that form; the rest is decomposed around it.)
    shape, dtype = out_meta(node)
    if (a.get("weight") is not None or a.get("pos_weight") is not None or a.get("reduction", 1) != 0
            or dtype not in (torch.float32, torch.float64)):
        raise Reject("binary_cross_entropy_with_logits other than unreduced and unweighted")
    x, t = b.operand(a["self"], dtype), b.operand(a["target"], dtype)
    return b.op1("tensor.bce_logits", [x, t], None, shape, dtype)


@_reg(aten.glu.default)
def _glu(b, node, a):
    # (`tensor.glu` of the two halves: eager's backward formula.)
    x, shape, dtype, calc = _activation_operand(b, node, a)
    d = _norm_dim(a.get("dim", -1), x.rank)
    half = x.shape[d] // 2
    halves = []
    for start in (0, half):
        halves.append(b.op1("view.slice", [x], {"dim": d, "start": start, "end": start + half, "step": 1}, shape, calc,
                            roots=x.roots))
    return b.cast(b.op1("tensor.glu", halves, None, shape, calc), dtype)


@_reg(aten.elu.default)
def _elu(b, node, a):
    # (`tensor.elu`: eager's kernel and its backward formula; `selu` is
    # this op with its constants.)
    x, shape, dtype, calc = _activation_operand(b, node, a)
    attrs = {k: float(a.get(k, 1.0)) for k in ("alpha", "scale", "input_scale")}
    return b.cast(b.op1("tensor.elu", [x], attrs, shape, calc), dtype)


@_reg(aten.celu.default)
def _celu(b, node, a):
    # (Eager's `celu` is `elu(x, alpha, 1, 1/alpha)`.)
    alpha = float(a.get("alpha", 1.0))
    if alpha == 0.0:
        raise Reject("celu with alpha 0 (eager raises)")
    x, shape, dtype, calc = _activation_operand(b, node, a)
    attrs = {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha}
    return b.cast(b.op1("tensor.elu", [x], attrs, shape, calc), dtype)


@_reg(aten.hardswish.default)
def _hardswish(b, node, a):
    # (`tensor.hardswish`: eager's values and its own derivative.)
    x, shape, dtype, calc = _activation_operand(b, node, a)
    return b.cast(b.op1("tensor.hardswish", [x], None, shape, calc), dtype)


@_reg(aten.hardsigmoid.default)
def _hardsigmoid(b, node, a):
    x, shape, dtype, calc = _activation_operand(b, node, a)
    return b.cast(b.op1("tensor.hardsigmoid", [x], None, shape, calc), dtype)


def _binary(irname: str, other: str = "other", swap: bool = False, rounding_mode=None):
    NAMED_OPS.add(irname)

    def fn(b: Builder, node: Node, a):
        shape, dtype = out_meta(node)
        mode = a.get("rounding_mode", rounding_mode) if irname == "tensor.div" else None
        if mode == "floor" and not _is_float(dtype) and dtype != torch.bool:
            # Integer floor division (`lengths // stride` in a model's
            # length arithmetic).
            x = b.operand(a["self"], dtype)
            y = b.operand(a[other], dtype)
            return b.op1("tensor.floor_divide", [x, y], None, shape, dtype)
        if mode == "floor" and _is_float(dtype):
            return _floor_divide_float(b, node, b.operand(a["self"], dtype), b.operand(a[other], dtype), shape, dtype)
        if mode is not None and (mode != "trunc" or not _is_float(dtype)):
            # (PyTorch's floor division of floats corrects floor(a / b)
            # with fmod; integers divide only by floor.)
            raise Reject("div with rounding_mode=%r of %s" % (mode, dtype))
        if irname == "tensor.remainder" and not _is_float(dtype) and dtype != torch.bool:
            # Integer remainder takes the divisor's sign, as Python's `%`:
            # x - floor(x / y) * y, with floor division's ZeroDivisionError.
            x = b.operand(a["self"], dtype)
            y = b.operand(a[other], dtype)
            if swap:
                x, y = y, x
            q = b.op1("tensor.floor_divide", [x, y], None, shape, dtype)
            return b.op1("tensor.sub", [x, b.op1("tensor.mul", [q, y], None, shape, dtype)], None, shape, dtype)
        if irname in ("tensor.pow", "tensor.fmod", "tensor.remainder") and not _is_float(dtype):
            raise Reject("%s of integer dtype %s" % (irname[7:], dtype))
        if dtype == torch.bool and irname in ("tensor.add", "tensor.sub", "tensor.mul"):
            raise Reject("%s of booleans" % irname)
        x = b.operand(a["self"], dtype)
        y = b.operand(a[other], dtype)
        if swap:
            x, y = y, x
        alpha = a.get("alpha", 1)
        if alpha is not None and alpha != 1 and irname in ("tensor.add", "tensor.sub"):
            # (`rsub(self, other, alpha)` is `other - alpha·self`: alpha
            # scales the operand that is subtracted, after the swap.)
            return _add_scaled(b, x, y, -alpha if irname == "tensor.sub" else alpha, shape, dtype)
        r = b.op1(irname, [x, y], None, shape, dtype)
        if mode == "trunc":
            r = b.op1("tensor.trunc", [r], None, shape, dtype)
        return r

    return fn


def _broadcast(*shapes):
    """The broadcast of shapes whose sizes may be symbols (equal symbols
    broadcast; anything else that is not 1 must match)."""
    out = []
    for dims in zip(*[(1,) * (max(map(len, shapes)) - len(sh)) + tuple(sh) for sh in shapes]):
        big = [d for d in dims if not (isinstance(d, int) and d == 1)]
        if any(d != big[0] for d in big[1:]):
            raise Reject("shapes %s do not broadcast" % (shapes,))
        out.append(big[0] if big else 1)
    return tuple(out)


def _calc_dtype(dtype):
    """PyTorch's `opmath` type: float for the half types."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _add_scaled(b: Builder, x: Value, y: Value, alpha, shape, dtype) -> Value:
    """`x + alpha·y` as PyTorch's CPU kernel computes it: for floats one
    fused multiply-add with alpha in `dtype` (`vec::fmadd(y, alpha, x)`;
    `tensor.fma` computes the half types in float and rounds once), for
    integers a wrapping product and sum."""
    a = b.full(alpha, dtype)
    if _is_float(dtype):
        return b.op1("tensor.fma", [y, a, x], None, shape, dtype)
    y = b.op1("tensor.mul", [y, a], None, y.shape, dtype)
    return b.op1("tensor.add", [x, y], None, shape, dtype)


def _addcmul(b: Builder, node: Node, a) -> Value:
    """`self + value·t1·t2` as PyTorch's CPU kernel computes it: in `opmath`
    (float for halves), `fma(value·t1, t2, self)`, rounded to the result
    once (`vec::fmadd`); integers wrap."""
    shape, dtype = out_meta(node)
    if dtype == torch.bool:
        raise Reject("addcmul of booleans")
    calc = _calc_dtype(dtype)
    s, t1, t2 = (b.operand(a[k], calc) for k in ("self", "tensor1", "tensor2"))
    p = b.op1("tensor.mul", [b.operand(a.get("value", 1), calc), t1], None, t1.shape, calc)
    if not _is_float(dtype):
        p = b.op1("tensor.mul", [p, t2], None, _broadcast(p.shape, t2.shape), dtype)
        return b.op1("tensor.add", [s, p], None, shape, dtype)
    return b.cast(b.op1("tensor.fma", [p, t2, s], None, shape, calc), dtype)


def _addcdiv(b: Builder, node: Node, a) -> Value:
    """`self + (value·t1)/t2` in `opmath`, unfused, as PyTorch's CPU kernel
    computes it (integer `addcdiv` raises in eager)."""
    shape, dtype = out_meta(node)
    if not _is_float(dtype):
        raise Reject("addcdiv of %s" % dtype)
    calc = _calc_dtype(dtype)
    s, t1, t2 = (b.operand(a[k], calc) for k in ("self", "tensor1", "tensor2"))
    p = b.op1("tensor.mul", [b.operand(a.get("value", 1), calc), t1], None, t1.shape, calc)
    q = b.op1("tensor.div", [p, t2], None, _broadcast(p.shape, t2.shape), calc)
    return b.cast(b.op1("tensor.add", [s, q], None, shape, calc), dtype)


def _lerp(b: Builder, node: Node, a) -> Value:
    """`tensor.lerp`: `lerp` as PyTorch's CPU kernel (`lerp_vec`) computes
    it, in `opmath` (one fused multiply-add from the nearer end), with
    eager's derivatives (`g·(1 - w)` with `1 - w` in double for a number)."""
    shape, dtype = out_meta(node)
    if not _is_float(dtype):
        raise Reject("lerp of %s" % dtype)
    s, e = b.operand(a["self"], dtype), b.operand(a["end"], dtype)
    weight = a["weight"]
    if isinstance(weight, (int, float)) and not isinstance(weight, bool):
        return b.op1("tensor.lerp", [s, e], {"weight": float(weight)}, shape, dtype)
    return b.op1("tensor.lerp", [s, e, b.operand(weight, dtype)], None, shape, dtype)


# (Their in-place forms, `_inplace_via_copy`, are registered with the
# other in-place ops below.)
for _name, _fn in (("addcmul", _addcmul), ("addcdiv", _addcdiv)):
    ATEN_TO_IR[getattr(aten, _name).default] = _fn
for _ov in ("Scalar", "Tensor"):
    ATEN_TO_IR[getattr(aten.lerp, _ov)] = _lerp


def _prims_fma(b: Builder, node: Node, a):
    """Inductor's `prims.fma(a, b, c)`, `a·b + c` rounded once, which Dynamo
    writes for `add_(x, alpha=tensor)` (eager's fused `x + alpha·other`),
    and for `addcmul_`/`addcdiv_` with a `value` as `fma(t1 * t2, value,
    self)` and `fma(t1 / t2, value, self)`: those two are translated as
    eager's `addcmul_`/`addcdiv_` compute (`_addcmul`, `_addcdiv`), which the
    rewrite does not (it rounds `t1·t2` first)."""
    args = list(node.args) + [None] * (3 - len(node.args))
    first = args[0]
    if (isinstance(first, Node) and len(first.users) == 1 and len(first.args) == 2
            and first.target in (aten.mul.Tensor, aten.div.Tensor)
            and all(isinstance(t, Node) and t in b.env for t in first.args)):
        # (The factors are in the translation unless the product's operands
        # are outside the region being translated: then the rewrite's own
        # fused form is what there is.)
        eager = _addcmul if first.target == aten.mul.Tensor else _addcdiv
        t1, t2 = first.args
        return eager(b, node, {"self": args[2], "tensor1": t1, "tensor2": t2, "value": args[1]})
    shape, dtype = out_meta(node)
    if not _is_float(dtype):
        raise Reject("fma of %s" % dtype)
    xs = [b.operand(x, dtype) for x in args]
    return b.op1("tensor.fma", xs, None, shape, dtype)


def _floor_divide_float(b: Builder, node: Node, x: Value, y: Value, shape, dtype) -> Value:
    """PyTorch's floor division of floats (`div_floor_floating`): the
    quotient of x - fmod(x, y), corrected by one where fmod's sign is not
    y's, floored and rounded up past .5; a zero takes the sign of x / y; a
    zero divisor gives x / y. Its derivative is zero, where the expansion's
    is not (at a zero divisor; and PyTorch gives zeros, not no gradient):
    an operand that may require grad is left to PyTorch."""
    if any(arg in b.grad_nodes for arg in node.args[:2] if isinstance(arg, Node)):
        raise Reject("floor division of %s that requires grad" % dtype)
    if dtype not in (torch.float32, torch.float64):
        # (PyTorch computes a half's quotient in float, rounding once; the
        # expansion's steps would each round to the half type.)
        raise Reject("floor division of %s" % dtype)
    B = torch.bool

    def op(name, xs, sh=shape, dt=dtype):
        return b.op1(name, xs, None, sh, dt)

    def where(c, t, f):
        return op("tensor.where", [c, t, f])

    zero, one, half = b.full(0, dtype), b.full(1, dtype), b.full(0.5, dtype)
    false = b.full(False, B)
    q = op("tensor.div", [x, y])
    mod = op("tensor.fmod", [x, y])
    div = op("tensor.div", [op("tensor.sub", [x, mod]), y])
    signs_differ = op("tensor.ne", [op("tensor.lt", [y, zero], y.shape, B), op("tensor.lt", [mod, zero], dt=B)], dt=B)
    fix = op("tensor.where", [op("tensor.ne", [mod, zero], dt=B), signs_differ, false], dt=B)
    div = where(fix, op("tensor.sub", [div, one]), div)
    floor = op("tensor.floor", [div])
    up = op("tensor.gt", [op("tensor.sub", [div, floor]), half], dt=B)
    floor = where(up, op("tensor.add", [floor, one]), floor)
    # (1 / -0.0 is -inf: the sign of a zero quotient.)
    q_zero_neg = op("tensor.lt", [op("tensor.div", [one, q]), zero], dt=B)
    q_neg = op("tensor.where", [op("tensor.eq", [q, zero], dt=B), q_zero_neg, op("tensor.lt", [q, zero], dt=B)], dt=B)
    signed_zero = where(q_neg, op("tensor.neg", [zero], ()), zero)
    r = where(op("tensor.ne", [div, zero], dt=B), floor, signed_zero)
    return where(op("tensor.eq", [y, zero], y.shape, B), q, r)


for _name, _ir in [("add", "tensor.add"), ("sub", "tensor.sub"), ("mul", "tensor.mul"), ("div", "tensor.div")]:
    for _ov in ("Tensor", "Scalar"):
        ATEN_TO_IR[getattr(getattr(aten, _name), _ov)] = _binary(_ir)
ATEN_TO_IR[aten.div.Tensor_mode] = _binary("tensor.div")
ATEN_TO_IR[aten.div.Scalar_mode] = _binary("tensor.div")
ATEN_TO_IR[aten.rsub.Tensor] = _binary("tensor.sub", swap=True)
ATEN_TO_IR[aten.rsub.Scalar] = _binary("tensor.sub", swap=True)


# (`a // b`: floor division, of integers and of floats.)
ATEN_TO_IR[aten.floor_divide.default] = _binary("tensor.div", rounding_mode="floor")


for _name in ("fmod", "remainder"):
    for _ov in ("Tensor", "Scalar"):
        ATEN_TO_IR[getattr(getattr(aten, _name), _ov)] = _binary("tensor." + _name)
ATEN_TO_IR[aten.remainder.Scalar_Tensor] = _binary("tensor.remainder")
ATEN_TO_IR[aten.pow.Tensor_Tensor] = _binary("tensor.pow", other="exponent")
_pow_tensor_scalar = _binary("tensor.pow", other="exponent")


@_reg(aten.pow.Tensor_Scalar)
def _pow_by_scalar(b, node, a):
    """`x ** c` as PyTorch's CPU kernel computes it for a float `x` of
    its own dtype: `x * x` for 2, `x * x * x` for 3, `sqrt`, `1 / sqrt`,
    `1 / x`, `1 / (x * x)` for 0.5, -0.5, -1, -2 (`pow_tensor_scalar`'s
    special cases), else `pow`. The products are also what makes GPT-2's
    `gelu_new` (`x + 0.044715 * x ** 3`) cost a multiplication, not a
    `powf` call per element. bf16 takes the same special cases, each
    product rounded to bf16 as eager's `BFloat16` arithmetic rounds it
    (f16 computes `pow` in float: no special case)."""
    shape, dtype = out_meta(node)
    e = a.get("exponent")
    x_node = a.get("self")
    x_val = x_node.meta.get("val") if isinstance(x_node, Node) else None
    special = (isinstance(e, (int, float)) and not isinstance(e, bool) and float(e) in (2.0, 3.0, 0.5, -0.5, -1.0, -2.0)
               and dtype in (torch.float32, torch.float64, torch.bfloat16) and isinstance(x_val, torch.Tensor)
               and x_val.dtype == dtype)
    if not special:
        return _pow_tensor_scalar(b, node, a)
    x = b.operand(x_node, dtype)
    e = float(e)
    if dtype != torch.bfloat16:
        # (One op: its derivative is eager's `g · (k · x ** (k - 1))`.)
        return b.op1("tensor.pow_scalar", [x], {"exponent": e}, shape, dtype)
    if e in (2.0, 3.0, -2.0):
        sq = b.op1("tensor.mul", [x, x], None, shape, dtype)
        if e == 3.0:
            return b.op1("tensor.mul", [sq, x], None, shape, dtype)
        return sq if e == 2.0 else b.op1("tensor.reciprocal", [sq], None, shape, dtype)
    name = {0.5: "tensor.sqrt", -0.5: "tensor.rsqrt", -1.0: "tensor.reciprocal"}[e]
    return b.op1(name, [x], None, shape, dtype)
ATEN_TO_IR[aten.maximum.default] = _binary("tensor.maximum")
ATEN_TO_IR[aten.minimum.default] = _binary("tensor.minimum")
ATEN_TO_IR[aten.max.other] = _binary("tensor.maximum")
ATEN_TO_IR[aten.min.other] = _binary("tensor.minimum")


@_reg(aten.pow.Scalar)
def _pow_scalar(b, node, a):
    shape, dtype = out_meta(node)
    if not _is_float(dtype):
        raise Reject("pow of integer dtype %s" % dtype)
    base = b.operand(a["self"], dtype)
    e = b.operand(a["exponent"], dtype)
    return b.op1("tensor.pow", [base, e], None, shape, dtype)


def _compare(irname: str):
    NAMED_OPS.add(irname)

    def fn(b: Builder, node: Node, a):
        shape, _ = out_meta(node)
        ct = result_type(b, a["self"], a["other"])
        x = b.operand(a["self"], ct)
        y = b.operand(a["other"], ct)
        return b.op1(irname, [x, y], None, shape, torch.bool)

    return fn


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    for _ov in ("Tensor", "Scalar"):
        ATEN_TO_IR[getattr(getattr(aten, _name), _ov)] = _compare("tensor." + _name)


def _where_fn(b, node, cond, x, y):
    shape, dtype = out_meta(node)
    c = b.value(cond)
    if c.dtype != torch.bool:
        raise Reject("where with a %s condition" % c.dtype)
    return b.op1("tensor.where", [c, b.operand(x, dtype), b.operand(y, dtype)], None, shape, dtype)


@_reg(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def _where(b, node, a):
    return _where_fn(b, node, a["condition"], a["self"], a["other"])


@_reg(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def _masked_fill(b, node, a):
    return _where_fn(b, node, a["mask"], a["value"], a["self"])


def _bool_of(b: Builder, arg) -> Value:
    v = b.value(arg)
    if v.dtype == torch.bool:
        return v
    return b.op1("tensor.ne", [v, b.full(0, v.dtype)], None, v.shape, torch.bool)


@_reg(aten.logical_not.default)
def _logical_not(b, node, a):
    shape, _ = out_meta(node)
    x = _bool_of(b, a["self"])
    return b.op1("tensor.eq", [x, b.full(False, torch.bool)], None, shape, torch.bool)


@_reg(aten.bitwise_not.default)
def _bitwise_not(b, node, a):
    if b.value(a["self"]).dtype != torch.bool:
        raise Reject("bitwise_not of integers (no bitwise ops in the catalogue)")
    return _logical_not(b, node, a)


def _logical(kind: str, bitwise: bool = False):
    def fn(b, node, a):
        shape, dtype = out_meta(node)
        if bitwise and (b.value(a["self"]).dtype != torch.bool or b.value(a["other"]).dtype != torch.bool):
            raise Reject("bitwise_%s of integers (no bitwise ops in the catalogue)" % kind)
        if dtype != torch.bool:
            raise Reject("logical_%s with a %s result" % (kind, dtype))
        x = _bool_of(b, a["self"])
        y = _bool_of(b, a["other"])
        if kind == "and":
            return b.op1("tensor.where", [x, y, b.full(False, torch.bool)], None, shape, torch.bool)
        if kind == "or":
            return b.op1("tensor.where", [x, b.full(True, torch.bool), y], None, shape, torch.bool)
        return b.op1("tensor.ne", [x, y], None, shape, torch.bool)

    return fn


for _k in ("and", "or", "xor"):
    ATEN_TO_IR[getattr(aten, "logical_" + _k).default] = _logical(_k)
    ATEN_TO_IR[getattr(aten, "bitwise_" + _k).Tensor] = _logical(_k, bitwise=True)


@_reg(aten.isnan.default)
def _isnan(b, node, a):
    shape, _ = out_meta(node)
    x = b.value(a["self"])
    if not _is_float(x.dtype):
        return b.full(False, torch.bool, shape)
    return b.op1("tensor.ne", [x, x], None, shape, torch.bool)


@_reg(aten.isinf.default)
def _isinf(b, node, a):
    shape, _ = out_meta(node)
    x = b.value(a["self"])
    if not _is_float(x.dtype):
        return b.full(False, torch.bool, shape)
    ax = b.op1("tensor.abs", [x], None, x.shape, x.dtype)
    return b.op1("tensor.eq", [ax, b.full(math.inf, x.dtype)], None, shape, torch.bool)


@_reg(aten.isfinite.default)
def _isfinite(b, node, a):
    shape, _ = out_meta(node)
    x = b.value(a["self"])
    if not _is_float(x.dtype):
        return b.full(True, torch.bool, shape)
    d = b.op1("tensor.sub", [x, x], None, x.shape, x.dtype)
    return b.op1("tensor.eq", [d, b.full(0.0, x.dtype)], None, shape, torch.bool)


def _clamp_scalars(b, node, x_arg, lo, hi):
    shape, dtype = out_meta(node)
    if lo is None and hi is None:
        raise Reject("clamp without bounds")
    if any(isinstance(v, (torch.SymInt, torch.SymFloat)) for v in (lo, hi)):
        # A bound computed from sizes (`interpolate`'s last source index):
        # a value the call computes. Eager's clamp passes the gradient where
        # the bounds hold, ties included, as `clamp_tensor` does (a float
        # tensor's missing bound is infinite; an integer one has none).
        if _is_float(dtype):
            inf = math.inf
            return _clamp_tensors(b, node, x_arg, -inf if lo is None else lo, inf if hi is None else hi)
        return _clamp_tensors(b, node, x_arg, lo, hi)
    for v in (lo, hi):
        if v is not None and not isinstance(v, (int, float)):
            raise Reject("clamp bound %r" % (v,))
    x = b.cast(b.value(x_arg), dtype)
    attrs = {}
    if lo is not None:
        attrs["min"] = float(lo)
    if hi is not None:
        attrs["max"] = float(hi)
    return b.op1("tensor.clamp", [x], attrs, shape, dtype)


def _clamp_tensors(b, node, x_arg, lo, hi):
    shape, dtype = out_meta(node)
    if lo is None and hi is None:
        raise Reject("clamp without bounds")
    x = b.cast(b.value(x_arg), dtype)
    if lo is not None and hi is not None:
        # (Both bounds: eager's derivative is a joint rule of its own; one
        # bound's is `maximum`'s or `minimum`'s, ties split in two.)
        return b.op1("tensor.clamp_tensor", [x, b.operand(lo, dtype), b.operand(hi, dtype)], None, shape, dtype)
    if lo is not None:
        x = b.op1("tensor.maximum", [x, b.operand(lo, dtype)], None, shape, dtype)
    if hi is not None:
        x = b.op1("tensor.minimum", [x, b.operand(hi, dtype)], None, shape, dtype)
    return x


@_reg(aten.clamp.default)
def _clamp(b, node, a):
    return _clamp_scalars(b, node, a["self"], a["min"], a["max"])


@_reg(aten.clamp.Tensor)
def _clamp_t(b, node, a):
    return _clamp_tensors(b, node, a["self"], a["min"], a["max"])


@_reg(aten.clamp_min.default)
def _clamp_min(b, node, a):
    return _clamp_scalars(b, node, a["self"], a["min"], None)


@_reg(aten.clamp_max.default)
def _clamp_max(b, node, a):
    return _clamp_scalars(b, node, a["self"], None, a["max"])


@_reg(aten.clamp_min.Tensor)
def _clamp_min_t(b, node, a):
    return _clamp_tensors(b, node, a["self"], a["min"], None)


@_reg(aten.clamp_max.Tensor)
def _clamp_max_t(b, node, a):
    return _clamp_tensors(b, node, a["self"], None, a["max"])


@_reg(aten.hardtanh.default)
def _hardtanh(b, node, a):
    """`x <= min ? min : x >= max ? max : x`, as eager's kernel and its
    derivative decide: the same values as a clamp, but a NaN passes its
    gradient (eager's `hardtanh_backward` zeroes it only at and beyond the
    bounds), where `clamp`'s derivative zeroes it."""
    shape, dtype = out_meta(node)
    lo, hi = a.get("min_val", -1.0), a.get("max_val", 1.0)
    if not all(isinstance(v, (int, float)) for v in (lo, hi)) or not _is_float(dtype):
        return _clamp_scalars(b, node, a["self"], lo, hi)
    x = b.cast(b.value(a["self"]), dtype)
    below = b.op1("tensor.le", [x, b.full(lo, dtype)], None, shape, torch.bool)
    above = b.op1("tensor.ge", [x, b.full(hi, dtype)], None, shape, torch.bool)
    r = b.op1("tensor.where", [above, b.full(hi, dtype), x], None, shape, dtype)
    return b.op1("tensor.where", [below, b.full(lo, dtype), r], None, shape, dtype)


# ---------------------------------------------------------------------------
# Casts, copies, creation


@_reg(aten._to_copy.default)
def _to_copy(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    if a.get("layout") not in (None, torch.strided):
        raise Reject("_to_copy to layout %s" % a["layout"])
    dev = a.get("device")
    src_dev = a["self"].meta["val"].device if isinstance(a["self"], Node) and "val" in a["self"].meta else None
    if dev is not None and src_dev is not None and torch.device(dev) != src_dev:
        raise Reject("device transfer %s -> %s" % (src_dev, dev))
    if dtype == x.dtype:
        return b.op1("tensor.clone", [x], None, shape, dtype)
    return b.op1("tensor.cast", [x], None, shape, dtype)


@_reg(aten.clone.default, aten.lift_fresh_copy.default)
def _clone(b, node, a):
    shape, dtype = out_meta(node)
    return b.op1("tensor.clone", [b.value(a["self"])], None, shape, dtype)


def _full_like_result(b, node, value):
    shape, dtype = out_meta(node)
    return b.full(value, dtype, shape)


@_reg(aten.full.default, aten.new_full.default, aten.full_like.default)
def _full(b, node, a):
    return _full_like_result(b, node, a["fill_value"])


@_reg(aten.zeros.default, aten.new_zeros.default, aten.zeros_like.default,
      aten.empty.memory_format, aten.empty_strided.default, aten.new_empty.default,
      aten.new_empty_strided.default, aten.empty_like.default)
def _zeros(b, node, a):
    # empty: the values are unobservable until written; zeros are as good.
    return _full_like_result(b, node, 0)


@_reg(aten.ones.default, aten.new_ones.default, aten.ones_like.default)
def _ones(b, node, a):
    return _full_like_result(b, node, 1)


@_reg(aten.scalar_tensor.default)
def _scalar_tensor(b, node, a):
    return _full_like_result(b, node, a["s"])


@_reg(aten.fill.Scalar)
def _fill(b, node, a):
    return _full_like_result(b, node, a["value"])


@_reg(aten.fill.Tensor)
def _fill_t(b, node, a):
    shape, dtype = out_meta(node)
    v = b.cast(b.value(a["value"]), dtype)
    return b.op1("view.expand", [v], {"shape": list(shape)}, shape, dtype) if shape != v.shape else \
        b.op1("tensor.clone", [v], None, shape, dtype)


@_reg(aten.arange.default, aten.arange.start, aten.arange.start_step)
def _arange(b, node, a):
    shape, dtype = out_meta(node)
    start = a.get("start", 0) or 0
    step = a.get("step", 1)
    if step is None:
        step = 1
    if isinstance(start, (int, float)) and isinstance(step, (int, float)):
        return b.op1("tensor.arange", [], {"start": float(start), "step": float(step)}, shape, dtype)
    if dtype in (torch.int64, torch.int32) and all(isinstance(v, (int, torch.SymInt)) for v in (start, step)):
        # A size as the start or the step (`arange(0, n*T, T)`, the bag
        # starts of `embedding_bag` over a `[n, T]` batch): the positions
        # times the step, plus the start, computed by the call.
        r = b.op1("tensor.arange", [], {"start": 0.0, "step": 1.0}, shape, dtype)
        if not (isinstance(step, int) and step == 1):
            r = b.op1("tensor.mul", [r, b.operand(step, dtype)], None, shape, dtype)
        if not (isinstance(start, int) and start == 0):
            r = b.op1("tensor.add", [r, b.operand(start, dtype)], None, shape, dtype)
        return r
    raise Reject("arange with non-constant bounds")


@_reg(aten.cat.default)
def _cat(b, node, a):
    shape, dtype = out_meta(node)
    dim = _norm_dim(a["dim"], len(shape))
    xs = []
    for t in a["tensors"]:
        v = b.value(t)
        if v.rank == 1 and v.shape == (0,) and len(shape) != 1:
            continue  # PyTorch skips legacy empty 1-D tensors
        xs.append(b.cast(v, dtype))
    if not xs:
        return b.full(0, dtype, shape)
    return b.op1("tensor.cat", xs, {"dim": dim}, shape, dtype)


# ---------------------------------------------------------------------------
# Reductions


def _dims(a, key="dim"):
    d = a.get(key)
    if d is None:
        return []
    if isinstance(d, int):
        return [d]
    return list(d)


def _reduce(irname: str, nan_selects: bool = False):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        shape, dtype = out_meta(node)
        x = b.value(a["self"])
        if a.get("dtype") is not None:
            x = b.cast(x, a["dtype"])
        if irname == "tensor.mean" and not _is_float(x.dtype):
            raise Reject("mean of integer dtype %s" % x.dtype)
        if x.dtype == torch.bool and irname in ("tensor.sum", "tensor.prod"):
            x = b.cast(x, torch.int64)
        dims = [_norm_dim(d, x.rank) for d in _dims(a)]
        attrs = {"dims": dims, "keepdim": _flag(a.get("keepdim", False))}
        if nan_selects:
            attrs["nan_selects"] = FLAG
        return b.op1(irname, [x], attrs, shape, dtype)

    return fn


ATEN_TO_IR[aten.sum.default] = _reduce("tensor.sum")
ATEN_TO_IR[aten.sum.dim_IntList] = _reduce("tensor.sum")
ATEN_TO_IR[aten.prod.default] = _reduce("tensor.prod")
ATEN_TO_IR[aten.prod.dim_int] = _reduce("tensor.prod")
ATEN_TO_IR[aten.mean.default] = _reduce("tensor.mean")
ATEN_TO_IR[aten.mean.dim] = _reduce("tensor.mean")
ATEN_TO_IR[aten.amax.default] = _reduce("tensor.amax")
ATEN_TO_IR[aten.amin.default] = _reduce("tensor.amin")
# (Eager's `max()`/`min()` give a NaN result's gradient to the NaN elements,
# `evenly_distribute_backward`; `amax`/`amin` to the equal ones: none.)
ATEN_TO_IR[aten.max.default] = _reduce("tensor.amax", nan_selects=True)
ATEN_TO_IR[aten.min.default] = _reduce("tensor.amin", nan_selects=True)


def _correction(a) -> int:
    if "correction" in a:
        c = a["correction"]
        if c is None:
            return 1
    else:
        c = 1 if a.get("unbiased", True) else 0
    if isinstance(c, float):
        if not c.is_integer():
            raise Reject("non-integral correction %r" % c)
        c = int(c)
    return int(c)


def _var_value(b, x: Value, a, shape):
    if not _is_float(x.dtype):
        raise Reject("var of integer dtype %s" % x.dtype)
    dims = [_norm_dim(d, x.rank) for d in _dims(a)]
    attrs = {"dims": dims, "keepdim": _flag(a.get("keepdim", False)), "correction": _correction(a)}
    return b.op1("tensor.var", [x], attrs, shape, x.dtype)


@_reg(aten.var.default, aten.var.dim, aten.var.correction)
def _var(b, node, a):
    shape, dtype = out_meta(node)
    return _var_value(b, b.value(a["self"]), a, shape)


@_reg(aten.std.default, aten.std.dim, aten.std.correction)
def _std(b, node, a):
    shape, dtype = out_meta(node)
    return _std_of(b, _var_value(b, b.value(a["self"]), a, shape))


def _std_of(b, v: Value) -> Value:
    """The square root of a variance `v`, with eager's derivative: none
    where the variance is 0 (a constant lane), where the root's own
    derivative would give 0 times infinity. The root is taken of 1 there
    (and the result set to 0) so that no infinity is formed at all."""
    zero = b.op1("tensor.eq", [v, b.full(0.0, v.dtype)], None, v.shape, torch.bool)
    safe = b.op1("tensor.where", [zero, b.full(1.0, v.dtype), v], None, v.shape, v.dtype)
    root = b.op1("tensor.sqrt", [safe], None, v.shape, v.dtype)
    return b.op1("tensor.where", [zero, b.full(0.0, v.dtype), root], None, v.shape, v.dtype)


@_reg(aten.var_mean.correction, aten.var_mean.dim, aten.var_mean.default)
def _var_mean(b, node, a):
    (vs, dt), (ms, _) = out_metas(node)
    x = b.value(a["self"])
    v = _var_value(b, x, a, vs)
    dims = [_norm_dim(d, x.rank) for d in _dims(a)]
    m = b.op1("tensor.mean", [x], {"dims": dims, "keepdim": _flag(a.get("keepdim", False))}, ms, dt)
    return [v, m]


@_reg(aten.std_mean.correction, aten.std_mean.dim, aten.std_mean.default)
def _std_mean(b, node, a):
    (ss, dt), (ms, _) = out_metas(node)
    x = b.value(a["self"])
    s = _std_of(b, _var_value(b, x, a, ss))
    dims = [_norm_dim(d, x.rank) for d in _dims(a)]
    m = b.op1("tensor.mean", [x], {"dims": dims, "keepdim": _flag(a.get("keepdim", False))}, ms, dt)
    return [s, m]


@_reg(aten.cumsum.default)
def _cumsum(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    if a.get("dtype") is not None:
        x = b.cast(x, a["dtype"])
    # The IR's running sum of integers is i64, as PyTorch accumulates them;
    # PyTorch then stores each sum in the requested dtype (`dtype=int32`:
    # transformers' expert offsets), which a cast of the i64 sums is.
    summed = dtype if _is_float(dtype) else torch.int64
    r = b.op1("tensor.cumsum", [x], {"dim": _norm_dim(a["dim"], x.rank)}, shape, summed)
    return r if summed == dtype else b.cast(r, dtype)


@_reg(aten.argmax.default)
def _argmax(b, node, a):
    shape, _ = out_meta(node)
    x = b.value(a["self"])
    attrs = {}
    if a.get("dim") is not None:
        attrs["dim"] = _norm_dim(a["dim"], x.rank)
    attrs["keepdim"] = _flag(a.get("keepdim", False))
    return b.op1("tensor.argmax", [x], attrs, shape, torch.int64)


def _neg_float(b, x: Value, what: str) -> Value:
    if not _is_float(x.dtype):
        raise Reject("%s of integer dtype %s (argmax of the negation would overflow)" % (what, x.dtype))
    return b.op1("tensor.neg", [x], None, x.shape, x.dtype)


@_reg(aten.argmin.default)
def _argmin(b, node, a):
    shape, _ = out_meta(node)
    x = _neg_float(b, b.value(a["self"]), "argmin")
    attrs = {}
    if a.get("dim") is not None:
        attrs["dim"] = _norm_dim(a["dim"], x.rank)
    attrs["keepdim"] = _flag(a.get("keepdim", False))
    return b.op1("tensor.argmax", [x], attrs, shape, torch.int64)


def _max_min_dim(is_max: bool):
    def fn(b, node, a):
        (vs, dt), (is_, _) = out_metas(node)
        x = b.value(a["self"])
        dim = _norm_dim(a["dim"], x.rank)
        kd = _flag(a.get("keepdim", False))
        src = x if is_max else _neg_float(b, x, "min.dim")
        if x.rank == 0:
            # (A 0-d tensor's only element, at index 0.)
            idx = b.op1("tensor.argmax", [src], {"keepdim": kd}, is_, torch.int64)
            return [b.op1("tensor.clone", [x], None, vs, dt), idx]
        # The values are the elements at the indices, as eager's derivative
        # sees them: a tie's whole gradient goes to the index returned
        # (`amax`'s derivative would share it between the tied elements).
        kept = tuple(1 if d == dim else n for d, n in enumerate(x.shape))
        at = b.op1("tensor.argmax", [src], {"dim": dim, "keepdim": True}, kept, torch.int64)
        vals = b.op1("tensor.gather", [x, at], {"dim": dim}, kept, dt)
        if kd:
            return [vals, at]
        squeeze = lambda v, e: b.op1("view.reshape", [v], {"shape": list(vs)}, tuple(vs), e)
        return [squeeze(vals, dt), squeeze(at, torch.int64)]

    return fn


ATEN_TO_IR[aten.max.dim] = _max_min_dim(True)
ATEN_TO_IR[aten.min.dim] = _max_min_dim(False)

# The IR's sort compares every pair of a lane's elements: a longer lane
# runs in PyTorch.
SORT_MAX_LANE = 4096


def _sorted_positions(b, x: Value, dim: int, descending: bool, k=None) -> Value:
    """`tensor.argsort` of x along dim (its first k positions, as a fresh
    tensor). The order of equal elements is the stable one: PyTorch leaves
    it unspecified for `sort(stable=False)` and `topk` (and its CPU kernels
    do not keep it), and gives it for `stable=True`."""
    if x.dtype == torch.bool:
        raise Reject("sort of booleans")
    lane = x.shape[dim] if x.rank else 1
    if lane > SORT_MAX_LANE:
        raise Reject("sort of a lane of %d elements (aot sorts lanes of up to %d)" % (lane, SORT_MAX_LANE))
    idx = b.op1("tensor.argsort", [x], {"dim": dim, "descending": _flag(descending)}, x.shape, torch.int64)
    if k is None or (isinstance(k, int) and isinstance(lane, int) and k == lane):
        return idx
    shape = list(x.shape)
    shape[dim] = k
    head = b.op1("view.slice", [idx], {"dim": dim, "start": 0, "end": k, "step": 1}, shape, torch.int64)
    return b.op1("tensor.clone", [head], None, shape, torch.int64)


def _gathered(b, x: Value, dim: int, idx: Value) -> Value:
    if x.rank == 0:
        return b.op1("tensor.clone", [x], None, x.shape, x.dtype)
    return b.op1("tensor.gather", [x, idx], {"dim": dim}, idx.shape, x.dtype)


@_reg(aten.sort.default, aten.sort.stable)
def _sort(b, node, a):
    x = b.value(a["self"])
    dim = _norm_dim(a.get("dim", -1), max(x.rank, 1)) if x.rank else 0
    idx = _sorted_positions(b, x, dim, bool(a.get("descending", False)))
    return [_gathered(b, x, dim, idx), idx]


@_reg(aten.topk.default)
def _topk(b, node, a):
    x = b.value(a["self"])
    dim = _norm_dim(a.get("dim", -1), max(x.rank, 1)) if x.rank else 0
    k = a["k"]
    if isinstance(k, bool) or not isinstance(k, (int, torch.SymInt)):
        raise Reject("topk with k %r" % (k,))
    # (A symbolic k, `T // 2` say, is the end of the sorted positions'
    # slice: the IR's rule checks it lies within the lane, from the
    # symbols' ranges and the graph's guards.)
    # (`sorted=False` leaves the order to the kernel: sorted is one.)
    idx = _sorted_positions(b, x, dim, bool(a.get("largest", True)), k)
    return [_gathered(b, x, dim, idx), idx]


def _any_all(is_any: bool):
    def fn(b, node, a):
        shape, _ = out_meta(node)
        x = _bool_of(b, a["self"])
        if not is_any:
            x = b.op1("tensor.eq", [x, b.full(False, torch.bool)], None, x.shape, torch.bool)
        dims = [_norm_dim(d, x.rank) for d in _dims(a)]
        s = b.op1("tensor.sum", [x], {"dims": dims, "keepdim": _flag(a.get("keepdim", False))}, shape, torch.int64)
        return b.op1("tensor.ne" if is_any else "tensor.eq", [s, b.full(0, torch.int64)], None, shape, torch.bool)

    return fn


for _ov in ("default", "dim", "dims"):
    ATEN_TO_IR[getattr(aten.any, _ov)] = _any_all(True)
    ATEN_TO_IR[getattr(aten.all, _ov)] = _any_all(False)


def _softmax(irname: str):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        shape, dtype = out_meta(node)
        x = b.cast(b.value(a["self"]), dtype)
        return b.op1(irname, [x], {"dim": _norm_dim(a["dim"], x.rank)}, shape, dtype)

    return fn


ATEN_TO_IR[aten._softmax.default] = _softmax("tensor.softmax")
ATEN_TO_IR[aten._log_softmax.default] = _softmax("tensor.log_softmax")
ATEN_TO_IR[aten.softmax.int] = _softmax("tensor.softmax")
ATEN_TO_IR[aten.log_softmax.int] = _softmax("tensor.log_softmax")


@_reg(aten._safe_softmax.default)
def _safe_softmax(b, node, a):
    """softmax, with rows that are entirely -inf giving 0 (their max is
    -inf exactly when every element is)."""
    shape, dtype = out_meta(node)
    x = b.cast(b.value(a["self"]), dtype)
    dim = _norm_dim(a["dim"], x.rank)
    s = b.op1("tensor.softmax", [x], {"dim": dim}, shape, dtype)
    mshape = tuple(1 if i == dim else d for i, d in enumerate(shape))
    m = b.op1("tensor.amax", [x], {"dims": [dim], "keepdim": FLAG}, mshape, dtype)
    masked = b.op1("tensor.eq", [m, b.full(-math.inf, dtype)], None, mshape, torch.bool)
    return b.op1("tensor.where", [masked, b.full(0.0, dtype), s], None, shape, dtype)


# ---------------------------------------------------------------------------
# Linear algebra


def _matmul(irname: str, x="self", y="mat2"):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        shape, dtype = out_meta(node)
        return b.op1(irname, [b.value(a[x]), b.value(a[y])], None, shape, dtype)

    return fn


def _mm(b, node, a):
    r = _as_linear(b, node, a["self"], a["mat2"])
    if r is not None:
        return r
    shape, dtype = out_meta(node)
    return b.op1("tensor.mm", [b.value(a["self"]), b.value(a["mat2"])], None, shape, dtype)


ATEN_TO_IR[aten.mm.default] = _mm
ATEN_TO_IR[aten.bmm.default] = _matmul("tensor.bmm")
ATEN_TO_IR[aten.matmul.default] = _matmul("tensor.matmul", "self", "other")
ATEN_TO_IR[aten.mv.default] = _matmul("tensor.matmul", "self", "vec")
ATEN_TO_IR[aten.dot.default] = _matmul("tensor.matmul", "self", "tensor")


def _transposed_weight(arg):
    """The 2-d tensor `arg` transposes (`aten.t`, `transpose(0, 1)`,
    `permute([1, 0])`: how make_fx writes F.linear's weight), if it does."""
    if not isinstance(arg, torch.fx.Node) or arg.op != "call_function":
        return None
    src = arg.args[0] if arg.args else None
    val = src.meta.get("val") if isinstance(src, torch.fx.Node) else None
    if not isinstance(val, torch.Tensor) or val.dim() != 2:
        return None
    t = arg.target
    if t is aten.t.default:
        return src
    if t is aten.transpose.int and sorted(d % 2 for d in arg.args[1:3]) == [0, 1]:
        return src
    if t is aten.permute.default and [d % 2 for d in arg.args[1]] == [1, 0]:
        return src
    return None


def _as_linear(b, node, x, y, bias=None):
    """`x @ t(w) (+ bias)` as `tensor.linear(x, w, bias)`, when `y` is a
    transposed 2-d weight: F.linear, which make_fx writes as t + addmm (or
    mm). The linear op's derivative computes the weight's gradient in the
    weight's own layout (dyᵀ·x), where the mm's gives it transposed and the
    result needs a copy."""
    w = _transposed_weight(y)
    # (A node checked alone has only its own operands bound.)
    if w is None or not isinstance(b.env.get(w), Value):
        return None
    shape, dtype = out_meta(node)
    ops = [b.value(x), b.value(w)]
    if bias is not None:
        bv = b.value(bias)
        if bv.shape != (shape[-1],) or bv.dtype != dtype:
            return None
        ops.append(bv)
    return b.op1("tensor.linear", ops, None, shape, dtype)


def _addmm(irname: str):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        shape, dtype = out_meta(node)
        x, y = (a["mat1"], a["mat2"]) if "mat1" in a else (a["batch1"], a["batch2"])
        if irname == "tensor.mm" and a.get("alpha", 1) == 1 and a.get("beta", 1) == 1:
            r = _as_linear(b, node, x, y, a["self"])
            if r is not None:
                return r
        r = b.op1(irname, [b.value(x), b.value(y)], None, shape, dtype)
        alpha, beta = a.get("alpha", 1), a.get("beta", 1)
        if alpha != 1:
            r = b.op1("tensor.mul", [r, b.full(alpha, dtype)], None, shape, dtype)
        if beta == 0:
            return r  # PyTorch ignores self (even NaN) when beta is 0
        s = b.value(a["self"])
        if beta != 1:
            s = b.op1("tensor.mul", [s, b.full(beta, dtype)], None, s.shape, dtype)
        return b.op1("tensor.add", [s, r], None, shape, dtype)

    return fn


ATEN_TO_IR[aten.addmm.default] = _addmm("tensor.mm")
ATEN_TO_IR[aten.baddbmm.default] = _addmm("tensor.bmm")


@_reg(aten.linear.default)
def _linear(b, node, a):
    shape, dtype = out_meta(node)
    ops = [b.value(a["input"]), b.value(a["weight"])]
    if a.get("bias") is not None:
        ops.append(b.value(a["bias"]))
    return b.op1("tensor.linear", ops, None, shape, dtype)


@_reg(aten.convolution.default)
def _convolution(b, node, a):
    """`tensor.conv` (`conv.convolution` leaves every non-transposed
    convolution in the graph, and makes a transposed one a convolution)."""
    if a.get("transposed"):
        raise Reject("transposed convolution")
    shape, dtype = out_meta(node)
    x, w = b.value(a["input"]), b.value(a["weight"])
    if not _is_float(dtype) or x.dtype != dtype or w.dtype != dtype:
        raise Reject("convolution of %s and %s" % (x.dtype, w.dtype))
    k = len(w.shape) - 2
    if k < 1 or len(x.shape) != len(w.shape):
        raise Reject("convolution of a rank-%d input and a rank-%d weight" % (len(x.shape), len(w.shape)))

    attrs = {"stride": conv.expand(a["stride"], k), "padding": conv.expand(a["padding"], k),
             "dilation": conv.expand(a["dilation"], k), "groups": int(a["groups"])}
    ops = [x, w]
    if a.get("bias") is not None:
        bias = b.value(a["bias"])
        if bias.dtype != dtype:
            raise Reject("convolution with a %s bias" % bias.dtype)
        ops.append(bias)
    return b.op1("tensor.conv", ops, attrs, shape, dtype)


def _pool_input(b, node, a, what):
    """The pooled input and its number of spatial dimensions: a float
    [N, C, *spatial] tensor (`conv` adds the batch of an unbatched one)."""
    x = b.value(a["self"])
    if not _is_float(x.dtype):
        raise Reject("%s of %s" % (what, x.dtype))
    if x.rank < 3:
        raise Reject("%s of a rank-%d input" % (what, x.rank))
    return x, x.rank - 2


def _pool_window(a, k):
    kernel = conv.expand(a["kernel_size"], k)
    stride = a.get("stride")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else conv.expand(stride, k)
    return {"kernel_size": kernel, "stride": stride, "padding": conv.expand(a.get("padding", 0), k)}


@_reg(*[getattr(aten, "max_pool%dd_with_indices" % k).default for k in (1, 2, 3)
        if hasattr(aten, "max_pool%dd_with_indices" % k)])
def _max_pool(b, node, a):
    """`tensor.max_pool`: the values and PyTorch's indices; its derivative
    adds the gradient at the indices."""
    x, k = _pool_input(b, node, a, "max pooling")
    attrs = _pool_window(a, k)
    attrs["dilation"] = conv.expand(a.get("dilation", 1), k)
    if a.get("ceil_mode"):
        attrs["ceil_mode"] = FLAG
    return b.op("tensor.max_pool", [x], attrs, out_metas(node))


@_reg(*[getattr(aten, "avg_pool%dd" % k).default for k in (1, 2, 3) if hasattr(aten, "avg_pool%dd" % k)])
def _avg_pool(b, node, a):
    """`tensor.avg_pool` with PyTorch's divisors."""
    x, k = _pool_input(b, node, a, "average pooling")
    shape, dtype = out_meta(node)
    attrs = _pool_window(a, k)
    if a.get("ceil_mode"):
        attrs["ceil_mode"] = FLAG
    if not a.get("count_include_pad", True):
        attrs["count_include_pad"] = False
    if a.get("divisor_override") is not None:
        attrs["divisor_override"] = int(a["divisor_override"])
    return b.op1("tensor.avg_pool", [x], attrs, shape, dtype)


@_reg(aten._scaled_dot_product_flash_attention_for_cpu.default)
def _attention(b, node, a):
    """`tensor.attention`: the output and each row's log-sum-exp (eager's
    fused kernel's two results; the second carries no gradient)."""
    q, k, v = b.value(a["query"]), b.value(a["key"]), b.value(a["value"])
    if not _is_float(q.dtype) or not q.dtype == k.dtype == v.dtype:
        raise Reject("attention of %s, %s and %s" % (q.dtype, k.dtype, v.dtype))
    if a.get("dropout_p", 0.0) != 0.0:
        raise Reject("attention with dropout")
    ops = [q, k, v]
    attrs = _attention_mask_and_attrs(b, a, q, ops, "attention")
    return b.op("tensor.attention", ops, attrs, out_metas(node))


def _attention_mask_and_attrs(b, a, q: Value, ops: List[Value], what: str) -> Dict[str, Any]:
    """Appends the mask of an attention or its gradient to `ops` (boolean,
    or of q's type) and returns its attributes (scale, causal)."""
    if a.get("attn_mask") is not None:
        m = b.value(a["attn_mask"])
        if m.dtype not in (torch.bool, q.dtype):
            raise Reject("%s with a %s mask" % (what, m.dtype))
        ops.append(m)
    attrs = {}
    if a.get("scale") is not None:
        attrs["scale"] = float(a["scale"])
    if a.get("is_causal"):
        attrs["causal"] = FLAG
    return attrs


@_reg(aten._scaled_dot_product_flash_attention_for_cpu_backward.default)
def _attention_backward(b, node, a):
    """`tensor.attention_grad`: eager's fused kernel's backward, which a
    backward PyTorch's autograd traced calls (a DTensor program's): the
    gradients of q, k and v from the output's gradient, the output and the
    log-sum-exp."""
    g, q, k, v = (b.value(a[n]) for n in ("grad_out", "query", "key", "value"))
    out, lse = b.value(a["out"]), b.value(a["logsumexp"])
    if not _is_float(q.dtype) or not q.dtype == k.dtype == v.dtype == g.dtype == out.dtype:
        raise Reject("attention's gradient of %s, %s and %s" % (q.dtype, k.dtype, v.dtype))
    if a.get("dropout_p", 0.0) != 0.0:
        raise Reject("attention's gradient with dropout")
    ops = [g, q, k, v, out, lse]
    attrs = _attention_mask_and_attrs(b, a, q, ops, "attention's gradient")
    return b.op("tensor.attention_grad", ops, attrs, out_metas(node))


# ---------------------------------------------------------------------------
# Indexing


def _int_index(b, arg, what) -> Value:
    v = b.value(arg)
    if v.dtype not in (torch.int64, torch.int32):
        raise Reject("%s with a %s index%s" % (what, v.dtype,
                                              " (boolean mask: data-dependent shape)" if v.dtype == torch.bool else ""))
    return v


@_reg(aten.embedding.default)
def _embedding(b, node, a):
    shape, dtype = out_meta(node)
    if a.get("scale_grad_by_freq"):
        raise Reject("embedding with scale_grad_by_freq")
    if a.get("sparse"):
        raise Reject("embedding with sparse gradients")
    w = b.value(a["weight"])
    idx = _int_index(b, a["indices"], "embedding")
    e = b.op1("tensor.embedding", [w, idx], None, shape, dtype)
    pad = a.get("padding_idx", -1)
    if pad is None or pad < 0:
        return e
    # padding_idx only stops the gradient of that row: same forward values,
    # gradient only where the index is not padding_idx.
    wd = b.op1("view.detach", [w], None, w.shape, w.dtype, roots=w.roots)
    ed = b.op1("tensor.embedding", [wd, idx], None, shape, dtype)
    keep = b.op1("tensor.ne", [idx, b.full(pad, idx.dtype)], None, idx.shape, torch.bool)
    keep = b.op1("view.unsqueeze", [keep], {"dim": idx.rank}, idx.shape + (1,), torch.bool, roots=keep.roots)
    return b.op1("tensor.where", [keep, e, ed], None, shape, dtype)


@_reg(aten.index_select.default)
def _index_select(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    idx = _int_index(b, a["index"], "index_select")
    if idx.rank != 1:
        raise Reject("index_select with a %d-D index (the IR takes 1-D)" % idx.rank)
    return b.op1("tensor.index_select", [x, idx], {"dim": _norm_dim(a["dim"], x.rank)}, shape, dtype)


@_reg(aten.gather.default)
def _gather(b, node, a):
    shape, dtype = out_meta(node)
    if a.get("sparse_grad"):
        raise Reject("gather with sparse_grad")
    x = b.value(a["self"])
    idx = _int_index(b, a["index"], "gather")
    if idx.rank != x.rank:
        raise Reject("gather with an index of another rank")
    return b.op1("tensor.gather", [x, idx], {"dim": _norm_dim(a["dim"], x.rank)}, shape, dtype)


@_reg(aten.scatter_add.default)
def _scatter_add(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    idx = _int_index(b, a["index"], "scatter_add")
    src = b.cast(b.value(a["src"]), dtype)
    return b.op1("tensor.scatter_add", [x, idx, src], {"dim": _norm_dim(a["dim"], x.rank)}, shape, dtype)


def _iota(b, n) -> Value:
    """`0, 1, ..., n - 1` (int64): the positions along a dimension, which an
    index goes through to be checked against it."""
    return b.op1("tensor.arange", [], {"start": 0.0, "step": 1.0}, (n,), torch.int64)


def _checked_linear_index(b, sizes, idx: List[Value], bshape) -> Value:
    """The row-major position among dimensions of `sizes` that the index
    tensors `idx` (one per dimension, broadcast to `bshape`) name together,
    as a 1-D int64 of `bshape`'s element count. Each index is counted from
    the end where negative and taken through `index_select` of
    `0..size-1`, which checks it against its own dimension: one out of
    range raises, as eager's does, instead of landing in another row."""
    n = math.prod(bshape)
    lin = None
    for size, i in zip(sizes, idx):
        if i.shape != bshape:
            i = b.op1("view.expand", [i], {"shape": list(bshape)}, bshape, i.dtype, roots=i.roots)
        i = b.op1("view.reshape", [i], {"shape": [n]}, (n,), i.dtype, roots=i.roots)
        w = b.op1("tensor.index_select", [_iota(b, size), _from_the_end(b, i, size)], {"dim": 0}, (n,), torch.int64)
        lin = _linear(b, lin, size, w)
    return lin


def _linear(b, lin: Optional[Value], size, coord: Value) -> Value:
    """The row-major offset `lin * size + coord` of a position one dimension
    further (`coord` itself for the first)."""
    if lin is None:
        return coord
    lin = b.op1("tensor.mul", [lin, b.operand(size, torch.int64)], None, coord.shape, torch.int64)
    return b.op1("tensor.add", [lin, coord], None, coord.shape, torch.int64)


@_reg(aten.scatter.src, aten.scatter.value)
def _scatter(b, node, a):
    """`x.scatter(dim, index, src)` (or a number): `out[..., index[e], ...]
    = src[e]` for every position `e` of `index`, as one `index_put` into the
    flattened `x` at each position's linear offset. The writes go in
    `index`'s row-major order, so where several land on one element the
    last along `dim` wins, as in eager's kernel (which runs each lane along
    `dim` in order); its derivative is eager's too (the overwritten
    elements get none, every `src` element the gradient at its target).
    The indices along `dim` go through a `gather` of `0..size-1`, which
    checks them as eager's kernel does (a RuntimeError, as eager's), so one
    out of range raises rather than land in another row."""
    if a.get("reduce") is not None:
        raise Reject("scatter with reduce=%r" % a["reduce"])
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    idx = _int_index(b, a["index"], "scatter")
    if x.rank == 0 or idx.rank != x.rank:
        raise Reject("scatter of a %d-d input with a %d-d index" % (x.rank, idx.rank))
    dim = _norm_dim(a["dim"], x.rank)
    ishape = tuple(idx.shape)
    n = math.prod(ishape)
    if any(i > s for d, (i, s) in enumerate(zip(ishape, x.shape)) if d != dim):
        raise Reject("eager raises: scatter index larger than its input outside dim")
    if n == 0:
        return b.op1("tensor.clone", [x], None, shape, dtype)
    if "src" in a:
        src = b.cast(b.value(a["src"]), dtype)
        if tuple(src.shape) != ishape:
            # (Eager reads the leading part of a larger source, and its
            # backward then raises on the gradient's shape.)
            raise Reject("scatter with a source of another shape than its index")
        vals = b.op1("view.reshape", [src], {"shape": [n]}, (n,), dtype, roots=src.roots)
    else:
        vals = b.full(a["value"], dtype, (n,))
    flat = lambda v: b.op1("view.reshape", [v], {"shape": [n]}, (n,), v.dtype, roots=v.roots)
    lin = None
    for d, size in enumerate(x.shape):
        if d == dim:
            coord = b.op1("tensor.gather", [_iota(b, size), flat(b.cast(idx, torch.int64))], {"dim": 0}, (n,),
                          torch.int64)
        else:
            lane = tuple(ishape[d] if k == d else 1 for k in range(x.rank))
            iota = b.op1("view.reshape", [_iota(b, ishape[d])], {"shape": list(lane)}, lane, torch.int64)
            coord = flat(b.op1("view.expand", [iota], {"shape": list(ishape)}, ishape, torch.int64))
        lin = _linear(b, lin, size, coord)
    total = math.prod(x.shape)
    xf = b.op1("view.reshape", [x], {"shape": [total]}, (total,), dtype, roots=x.roots)
    out = b.op1("tensor.index_put", [xf, lin, vals], {"accumulate": False}, (total,), dtype)
    return b.op1("view.reshape", [out], {"shape": list(shape)}, tuple(shape), dtype)


def _single_index(b, indices, what):
    if len(indices) != 1 or indices[0] is None:
        raise Reject("%s with %d indices (the IR takes one 1-D index on dim 0)" % (what, len(indices)))
    idx = _int_index(b, indices[0], what)
    if idx.rank != 1:
        raise Reject("%s with a %d-D index (the IR takes 1-D)" % (what, idx.rank))
    return idx


@_reg(aten.index_put.default)
def _index_put(b, node, a):
    _index_put_dtypes(a)
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    if _merged_index_put(b, a["indices"]):
        return _index_put_leading(b, x, a, "index_put")
    idx = _single_index(b, a["indices"], "index_put")
    vals = b.cast(b.value(a["values"]), dtype)
    return b.op1("tensor.index_put", [x, idx, vals], {"accumulate": _flag(a.get("accumulate"))}, shape, dtype)


def _merged_index_put(b, indices) -> bool:
    """Whether an index put takes `_index_put_leading`'s merged
    positions: several index tensors, or one that is not 1-D (PyTorch's
    embedding backward accumulates a `[B, T]` index's rows)."""
    if len(indices) > 1:
        return True
    return len(indices) == 1 and indices[0] is not None and b.value(indices[0]).rank != 1


def _index_put_leading(b, x: Value, a, what, in_place: bool = False) -> Value:
    """`x[i0, i1, ...] = v` (or `+=`, accumulate) with integer index tensors
    on adjacent dimensions (a one-hot `out[arange(n), labels] = 1`, an
    adjacency `a[rows, cols] = w`, a column update `x[:, cols] = 0`): the
    indexed dimensions merged into one, which `index_put` writes at each
    index's combined position (as `_index` reads it), the values broadcast
    to the indexed shape. Indexed dimensions after skipped ones (`:`) are
    moved first and back, which gives the result another layout than
    eager's: an in-place write takes them (its values are copied back into
    `x`), and an out-of-place one into a row-major `x` (its result copied
    row-major). Each index is checked against its own dimension
    (`_checked_linear_index`). Duplicate positions write in row-major
    order, the last winning, as eager's CPU kernel."""
    indices = list(a["indices"])
    d0 = next((d for d, i in enumerate(indices) if i is not None), len(indices))
    k = len(indices) - d0
    while k and indices[d0 + k - 1] is None:
        k -= 1
    if k == 0 or any(i is None for i in indices[d0:d0 + k]):
        raise Reject("%s with a skipped dimension between its indices" % what)
    dense_copy = False
    if d0 and not in_place:
        # Out of place, eager's result is a fresh tensor laid out as `x`:
        # where that is row-major (PyTorch's `col2im`, `F.fold`, puts into
        # a fresh image), the permuted result is copied row-major.
        val = a["self"].meta.get("val") if isinstance(a["self"], Node) else None
        if not (isinstance(val, torch.Tensor) and val.is_contiguous()):
            raise Reject("%s after a skipped dimension, out of place, into a tensor that is not row-major" % what)
        dense_copy = True
    idx = [_int_index(b, i, what) for i in indices[d0:d0 + k]]
    if d0 + k > x.rank:
        raise Reject("%s with %d indices into a %d-d tensor" % (what, d0 + k, x.rank))
    try:
        bshape = tuple(torch.broadcast_shapes(*[i.shape for i in idx]))
    except RuntimeError as e:
        raise Reject("index tensors that do not broadcast: %s" % e)
    dtype = x.dtype
    shape = tuple(x.shape)
    n = math.prod(bshape)
    if n == 0:
        return b.op1("tensor.clone", [x], None, shape, dtype)
    # The indexed dimensions first (a permutation when some are skipped).
    perm = list(range(d0, d0 + k)) + list(range(d0)) + list(range(d0 + k, x.rank))
    xp = x
    if d0:
        xp = b.op1("view.permute", [x], {"dims": perm}, tuple(shape[d] for d in perm), dtype, roots=x.roots)
    others = tuple(xp.shape[k:])
    lin = _checked_linear_index(b, xp.shape[:k], [b.cast(i, torch.int64) for i in idx], bshape)
    merged = (math.prod(xp.shape[:k]),) + others
    xr = b.op1("view.reshape", [xp], {"shape": list(merged)}, merged, dtype, roots=xp.roots)
    vals = b.cast(b.value(a["values"]), dtype)
    # (The values broadcast to the indexed shape, `x`'s with the indexed
    # dimensions replaced by the indices' shape, then in `xp`'s order.)
    wide = shape[:d0] + bshape + shape[d0 + k:]
    if tuple(vals.shape) != wide:
        try:
            if tuple(torch.broadcast_shapes(tuple(vals.shape), wide)) != wide:
                raise RuntimeError("values wider than the indexed shape")
        except RuntimeError as e:
            raise Reject("%s values of shape %s for indexed shape %s: %s" % (what, tuple(vals.shape), wide, e))
        vals = b.op1("view.expand", [vals], {"shape": list(wide)}, wide, dtype, roots=vals.roots)
    if d0:
        nb = len(bshape)
        vperm = list(range(d0, d0 + nb)) + list(range(d0)) + list(range(d0 + nb, len(wide)))
        vals = b.op1("view.permute", [vals], {"dims": vperm}, tuple(wide[d] for d in vperm), dtype,
                     roots=vals.roots)
    flat = (n,) + others
    vals = b.op1("view.reshape", [vals], {"shape": list(flat)}, flat, dtype, roots=vals.roots)
    r = b.op1("tensor.index_put", [xr, lin, vals], {"accumulate": _flag(a.get("accumulate"))}, merged, dtype)
    r = b.op1("view.reshape", [r], {"shape": list(xp.shape)}, tuple(xp.shape), dtype)
    if d0:
        inverse = [perm.index(d) for d in range(x.rank)]
        r = b.op1("view.permute", [r], {"dims": inverse}, shape, dtype)
    if dense_copy:
        r = b.op1("tensor.clone", [r], None, shape, dtype)
    return r


def _index_put_dtypes(a) -> None:
    """Eager's `index_put(_)` takes values of its input's dtype only (its
    Python `x[i] = v` converts them first; the traced op does not): the
    region then runs in PyTorch, which raises (fuzz seed 30851: a float32
    0-d tensor put into a float64 one)."""
    vals, dst = (t.meta.get("val") if isinstance(t, torch.fx.Node) else None for t in (a["values"], a["self"]))
    if isinstance(vals, torch.Tensor) and isinstance(dst, torch.Tensor) and vals.dtype != dst.dtype:
        raise Reject("eager raises: Index put requires the source and destination dtypes match, got %s for "
                     "the destination and %s for the source" % (dst.dtype, vals.dtype))


@_reg(aten.index_put_.default)
def _index_put_(b, node, a):
    _index_put_dtypes(a)
    x = b.value(a["self"])
    if _merged_index_put(b, a["indices"]):
        # (The functional form, copied back into `x`.)
        r = _index_put_leading(b, x, a, "index_put_", in_place=True)
        b.op("mut.copy_", [x, r], None)
        b.mutate(x)
        return x
    idx = _single_index(b, a["indices"], "index_put_")
    vals = b.cast(b.value(a["values"]), x.dtype)
    b.op("mut.index_put_", [x, idx, vals], {"accumulate": _flag(a.get("accumulate"))})
    b.mutate(x)
    return x


def _from_the_end(b, i: Value, size: int) -> Value:
    """Advanced indexing counts a negative index from the end; the IR's
    `index_select`, like PyTorch's, takes `[0, size)` only (and checks it)."""
    zero = b.full(0, i.dtype)
    neg = b.op1("tensor.lt", [i, zero], None, i.shape, torch.bool)
    wrapped = b.op1("tensor.add", [i, b.operand(size, i.dtype)], None, i.shape, i.dtype)
    return b.op1("tensor.where", [neg, wrapped, i], None, i.shape, i.dtype)


@_reg(aten.index.Tensor)
def _index(b, node, a):
    """`x[i0, i1, ...]` with integer index tensors (advanced indexing). One
    index is an `index_select`; several (broadcast together) index the
    indexed dimensions merged into one by their combined position. Each
    index is first counted from the end where negative, then taken through
    `index_select` of `0..size-1`, which checks it against its own
    dimension, so an index out of its dimension raises as in eager instead of landing in
    another row. Adjacent indexed dimensions leave the result's in their
    place; separated ones (a slice between) put them first, as PyTorch
    does."""
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    indices = list(a["indices"])
    pos = [i for i, t in enumerate(indices) if t is not None]
    if not pos:
        raise Reject("advanced indexing without an index tensor")
    idx = [_int_index(b, indices[d], "index") for d in pos]
    if len(pos) == 1:
        d, i = pos[0], _from_the_end(b, idx[0], x.shape[pos[0]])
        flat = i if i.rank == 1 else \
            b.op1("view.reshape", [i], {"shape": [i.numel()]}, (i.numel(),), i.dtype, roots=i.roots)
        sel_shape = x.shape[:d] + (flat.shape[0],) + x.shape[d + 1:]
        r = b.op1("tensor.index_select", [x, flat], {"dim": d}, sel_shape, dtype)
        return r if sel_shape == shape else b.op1("view.view", [r], {"shape": list(shape)}, shape, dtype)
    try:
        bshape = tuple(torch.broadcast_shapes(*[i.shape for i in idx]))
    except RuntimeError as e:
        raise Reject("index tensors that do not broadcast: %s" % e)
    if pos != list(range(pos[0], pos[0] + len(pos))):
        perm = pos + [d for d in range(x.rank) if d not in pos]
        x = b.op1("view.permute", [x], {"dims": perm}, tuple(x.shape[d] for d in perm), x.dtype, roots=x.roots)
        pos = list(range(len(pos)))
    d0, k = pos[0], len(pos)
    n = math.prod(bshape)
    lin = _checked_linear_index(b, [x.shape[d] for d in pos], idx, bshape)
    merged = x.shape[:d0] + (math.prod(x.shape[d0:d0 + k]),) + x.shape[d0 + k:]
    xr = b.op1("view.reshape", [x], {"shape": list(merged)}, merged, x.dtype, roots=x.roots)
    sel = merged[:d0] + (n,) + merged[d0 + 1:]
    r = b.op1("tensor.index_select", [xr, lin], {"dim": d0}, sel, dtype)
    if merged[:d0] + bshape + merged[d0 + 1:] != tuple(shape):
        raise Reject("advanced indexing with a result shape aot does not derive (%s)" % (tuple(shape),))
    return r if sel == tuple(shape) else b.op1("view.reshape", [r], {"shape": list(shape)}, shape, dtype)


# ---------------------------------------------------------------------------
# Normalization


@_reg(aten.native_layer_norm.default)
def _layer_norm(b, node, a):
    metas = out_metas(node)
    x = b.value(a["input"])
    nshape = list(a["normalized_shape"])
    n = len(nshape)
    if tuple(x.shape[x.rank - n:]) != tuple(nshape):
        raise Reject("layer_norm normalized_shape does not match the input")
    w, bias = a.get("weight"), a.get("bias")
    params = [b.value(t) for t in (w, bias) if t is not None]
    attrs = {"normalized_ndim": n, "eps": float(a["eps"])}
    if any(p.dtype != x.dtype for p in params):
        # Autocast's mixed layer norm (a half-precision input, float
        # parameters): eager normalizes in float, rounds the result once to
        # the input's type and keeps float statistics.
        if x.dtype not in (torch.float16, torch.bfloat16) or any(p.dtype != torch.float32 for p in params):
            raise Reject("layer_norm of a %s input with %s parameters"
                         % (x.dtype, "/".join(str(p.dtype) for p in params)))
        # (The statistics' type is the trace's: PyTorch's meta function
        # gives the input's type where the kernel gives float. Only a
        # derivative reads them, and aot derives its own.)
        f = b.op("tensor.layer_norm", [b.cast(x, torch.float32)] + _ln_params(b, w, bias, params, nshape),
                 attrs, [(shape, torch.float32) for shape, _ in metas])
        return [b.cast(v, dtype) for v, (_, dtype) in zip(f, metas)]
    return b.op("tensor.layer_norm", [x] + _ln_params(b, w, bias, params, nshape), attrs, metas)


def _ln_params(b, w, bias, params, nshape):
    """The layer norm's parameter operands: none, or a weight and a bias
    (a ones weight when only a bias is given, a zero bias when only a
    weight is: `nn.LayerNorm(bias=False)`)."""
    if not params:
        return []
    weight = params[0] if w is not None else b.full(1, params[0].dtype, nshape)
    return [weight, params[-1] if bias is not None else b.full(0, params[0].dtype, nshape)]


@_reg(aten._native_batch_norm_legit_no_training.default)
def _batch_norm_inference(b, node, a):
    """Batch norm with running statistics, as PyTorch's CPU kernel computes
    it: per channel `alpha = weight / sqrt(var + eps)` and `beta = bias -
    mean * alpha` (in `float` for half-precision inputs), then `x * alpha +
    beta`, the two multiply-adds fused. Translated here rather than decomposed in the trace: every traced
    op costs the first call a millisecond of fake-tensor dispatch, and a
    network has dozens of these."""
    metas = out_metas(node)
    (shape, dtype), (s1, d1), (s2, d2) = metas
    x = b.value(a["input"])
    if x.rank < 2 or not _is_float(x.dtype):
        raise Reject("batch norm of a %d-d %s input" % (x.rank, x.dtype))
    c = x.shape[1]
    calc = _calc_dtype(x.dtype)
    stats = []
    for name in ("running_mean", "running_var", "weight", "bias"):
        t = a.get(name)
        if t is None:
            stats.append(None)
            continue
        v = b.value(t)
        if tuple(v.shape) != (c,):
            raise Reject("batch norm %s of shape %s for %d channels" % (name, tuple(v.shape), c))
        stats.append(b.cast(v, calc))
    mean, var, weight, bias = stats
    if mean is None or var is None:
        raise Reject("batch norm without running statistics")
    std = b.op1("tensor.sqrt", [b.op1("tensor.add", [var, b.full(float(a["eps"]), calc)], None, (c,), calc)],
                None, (c,), calc)
    alpha = b.op1("tensor.div", [b.full(1.0, calc), std], None, (c,), calc)
    if weight is not None:
        alpha = b.op1("tensor.mul", [alpha, weight], None, (c,), calc)
    # (Eager's C++ compiler fuses both multiply-adds: `bias - mean·alpha` and
    # `x·alpha + beta` are each rounded once.)
    neg_mean = b.op1("tensor.neg", [mean], None, (c,), calc)
    beta = b.op1("tensor.fma", [neg_mean, alpha, bias if bias is not None else b.full(0.0, calc)], None, (c,), calc)
    bshape = [1, c] + [1] * (x.rank - 2)
    alpha = b.op1("view.reshape", [alpha], {"shape": bshape}, bshape, calc)
    beta = b.op1("view.reshape", [beta], {"shape": bshape}, bshape, calc)
    y = b.op1("tensor.fma", [b.cast(x, calc), alpha, beta], None, x.shape, calc)
    return [b.cast(y, dtype), b.full(0.0, d1, s1), b.full(0.0, d2, s2)]


# ---------------------------------------------------------------------------
# Views


def _view_op(irname: str, attrs_fn=None):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        shape, dtype = out_meta(node)
        x = b.value(a["self"])
        attrs = attrs_fn(b, x, a, shape) if attrs_fn else None
        return b.op1(irname, [x], attrs, shape, dtype, roots=x.roots)

    return fn


def _storage_root(node) -> Any:
    """The node whose result's storage `node`'s result uses: down chains of
    views and in-place ops (each aliasing its first operand) and elements
    of multi-view results. (The trace's tensors do not share storages.)"""
    while isinstance(node, Node) and node.op == "call_function" and node.args:
        if node.target is operator.getitem:
            node = node.args[0]
            continue
        if not isinstance(node.target, torch._ops.OpOverload):
            break
        rets = node.target._schema.returns
        if not rets or rets[0].alias_info is None or not isinstance(node.args[0], Node):
            break
        node = node.args[0]
    return node


def _written_or_returned(src: Node, after: Node = None) -> str:
    """Why the storage `src` views could be seen by what comes later: the
    graph returns it, or an op (after `after`, when given) writes it in
    place; "" when neither."""
    root = _storage_root(src)
    reached = after is None
    for n in src.graph.nodes:
        if n is after:
            reached = True
            continue
        if n.op == "output":
            outs = n.args[0] if isinstance(n.args[0], (list, tuple)) else [n.args[0]]
            if any(_storage_root(o) is root for o in outs):
                return "which the graph returns"
        if not reached or n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
            continue
        schema = n.target._schema.arguments
        bound = list(zip(schema, n.args)) + [(arg, n.kwargs[arg.name]) for arg in schema if arg.name in n.kwargs]
        for arg, val in bound:
            if arg.alias_info is not None and arg.alias_info.is_write and _storage_root(val) is root:
                return "which %s writes in place" % n.name
    return ""


@_reg(aten.view.default, aten._unsafe_view.default)
def _view(b, node, a):
    """A view the trace took of eager's layout of an intermediate may not be
    one of the IR's contiguous layout of it (`linear` of `y.transpose(1, 2)`
    reshapes the operand, which PyTorch laid out as its transpose). Where no
    write or output can tell a copy from the view, the view is taken of a
    contiguous copy."""
    shape, dtype = out_meta(node)
    src = a["self"]
    x = b.value(src)
    layout = b.ir_layouts.get(src) if isinstance(src, Node) else None
    if layout is not None:
        try:
            layout.view(shape)
        except (RuntimeError, ValueError):  # (ValueError: over symbolic sizes)
            why = _written_or_returned(src)
            if why:
                raise Reject("a view of an intermediate laid out otherwise than in the IR (contiguous), %s" % why)
            x = b.op1("tensor.clone", [x], None, x.shape, dtype)
            b.ir_layouts[node] = torch.empty(shape, dtype=dtype, device="meta")
    return b.op1("view.view", [x], {"shape": list(shape)}, shape, dtype, roots=x.roots)


NAMED_OPS.add("view.view")
ATEN_TO_IR[aten.reshape.default] = _view_op("view.reshape", lambda b, x, a, s: {"shape": list(s)})
ATEN_TO_IR[aten.expand.default] = _view_op("view.expand", lambda b, x, a, s: {"shape": list(s)})
ATEN_TO_IR[aten.permute.default] = _view_op(
    "view.permute", lambda b, x, a, s: {"dims": [_norm_dim(d, x.rank) for d in a["dims"]]})
ATEN_TO_IR[aten.transpose.int] = _view_op(
    "view.transpose", lambda b, x, a, s: {"dim0": _norm_dim(a["dim0"], x.rank), "dim1": _norm_dim(a["dim1"], x.rank)})
ATEN_TO_IR[aten.t.default] = _view_op("view.t")
ATEN_TO_IR[aten.unsqueeze.default] = _view_op(
    "view.unsqueeze", lambda b, x, a, s: {"dim": _norm_dim(a["dim"], x.rank + 1)})
ATEN_TO_IR[aten.squeeze.default] = _view_op("view.squeeze")
ATEN_TO_IR[aten.squeeze.dim] = _view_op("view.squeeze", lambda b, x, a, s: {"dim": _norm_dim(a["dim"], x.rank)})
ATEN_TO_IR[aten.diagonal.default] = _view_op(
    "view.diagonal", lambda b, x, a, s: {"offset": a["offset"], "dim1": _norm_dim(a["dim1"], x.rank),
                                         "dim2": _norm_dim(a["dim2"], x.rank)})
ATEN_TO_IR[aten.alias.default] = _view_op("view.alias")
ATEN_TO_IR[aten.detach.default] = _view_op("view.detach")


@_reg(aten.squeeze.dims)
def _squeeze_dims(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    dims = sorted({_norm_dim(d, x.rank) for d in a["dim"]}, reverse=True)
    dims = [d for d in dims if x.shape[d] == 1]
    if not dims:
        return b.op1("view.alias", [x], None, shape, dtype, roots=x.roots)
    cur = x
    for d in dims:
        ns = cur.shape[:d] + cur.shape[d + 1:]
        cur = b.op1("view.squeeze", [cur], {"dim": d}, ns, dtype, roots=x.roots)
    return cur


def _select_attrs(b, x, a, s):
    dim = _norm_dim(a["dim"], x.rank)
    idx = a["index"]
    size = x.shape[dim]
    if not -size <= idx < size:
        raise Reject("select index %d out of range" % idx)
    return {"dim": dim, "index": idx % size}


def _slice_attrs(b, x, a, s):
    dim = _norm_dim(a["dim"], x.rank)
    step = a.get("step", 1) or 1
    if step <= 0:
        raise Reject("slice with step %d" % step)
    start, end = a.get("start"), a.get("end")
    size = x.shape[dim]
    if any(isinstance(v, torch.SymInt) for v in (size, start, end)):
        # Symbolic sizes: the clamping `slice.indices` does would decide on
        # them (a guard per comparison, or a size made concrete). The
        # trace's result already has its length, with the guards its
        # clamping recorded: the start is normalised (a negative one counts
        # from the end), and the end follows from the length.
        if isinstance(start, int) and not isinstance(start, bool) and start < 0:
            st = size + start
        else:
            st = 0 if start is None else start
        n = s[dim]
        if step != 1 and (end is None or (isinstance(end, int) and (end >= 2 ** 62 or -2 ** 62 < end < 0))):
            # A stepped slice to the end (`x[::2]`) or to a constant from
            # the end (`x[1:-1:3]`): the end as the IR's rule takes it (the
            # size, or the negative constant), whose length it derives,
            # `(end - start + step - 1) floordiv step`, equal to the
            # trace's. (The end the length gives, `start + (n - 1) * step
            # + 1`, is a `floordiv` expression the rule cannot place below
            # the size.)
            en = size if end is None or end >= 2 ** 62 else end
        else:
            en = st + n if step == 1 else st + (n - 1) * step + 1
        return {"dim": dim, "start": st, "end": en, "step": step}
    st, en, _ = slice(start, end, step).indices(size)
    en = max(en, st)
    return {"dim": dim, "start": st, "end": en, "step": step}


ATEN_TO_IR[aten.select.int] = _view_op("view.select", _select_attrs)
ATEN_TO_IR[aten.slice.Tensor] = _view_op("view.slice", _slice_attrs)


def _storage_offset(b: Builder, x: Value, off, src):
    """The storage offset an `as_strided` without one means: its input's."""
    if off is not None:
        return int(off)
    if x.name in b.fresh_values:
        return 0
    if len(x.roots) == 1 and x.name == "%%arg%d" % next(iter(x.roots)):
        return int(b.arg_offsets.get(next(iter(x.roots)), 0))
    # An alias of one argument or of a fresh value: its layout replayed
    # (`fx_ir._track_layout`; a node checked alone assumes it will be).
    if len(x.roots) == 1 and b.probing:
        return 0
    t = b.layouts.get(src) if b.layouts is not None and isinstance(src, torch.fx.Node) else None
    if t is not None and tuple(t.shape) == tuple(x.shape):
        return int(t.storage_offset())
    return _reject_offset()


def _reject_offset():
    raise Reject("as_strided without storage_offset of a view (its offset is not known statically)")


def _fresh_layout_agrees(b: Builder, x: Value, arg) -> None:
    """A fresh IR value is contiguous from offset 0; the traced tensor it
    stands for may not be (an eager op that keeps its input's memory
    format, channels-last say). as_strided addresses the storage, so its
    sizes and strides mean the same thing in both only when the layouts
    agree."""
    if not isinstance(arg, torch.fx.Node):
        return
    if x.name not in b.fresh_values:
        # A view of a fresh value: the layouts as tracked through the views
        # from it, in eager and in the IR (fuzz seed 23047: `as_strided` of
        # `(a0 ** 2).transpose(0, 0)`, `a0` transposed, which eager's
        # `pow` keeps).
        e = b.eager_layouts.get(arg)
        i = b.ir_layouts.get(arg)
        if isinstance(e, torch.Tensor) and isinstance(i, torch.Tensor) and \
                (e.stride(), e.storage_offset()) != (i.stride(), i.storage_offset()):
            raise Reject("as_strided of a view of a result PyTorch laid out with strides %s at offset %d "
                         "(the IR's: %s at %d)" % (tuple(e.stride()), e.storage_offset(), tuple(i.stride()),
                                                   i.storage_offset()))
        return
    t = arg.meta.get("val")
    if isinstance(t, torch.Tensor) and (not t.is_contiguous() or t.storage_offset() != 0):
        raise Reject("as_strided of a result PyTorch laid out with strides %s (the IR's is contiguous)"
                     % (tuple(t.stride()),))


@_reg(aten.as_strided.default)
def _as_strided(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    _fresh_layout_agrees(b, x, a["self"])
    attrs = {"size": list(a["size"]), "stride": list(a["stride"]),
             "offset": _storage_offset(b, x, a.get("storage_offset"), a["self"])}
    return b.op1("view.as_strided", [x], attrs, shape, dtype, roots=x.roots)


def _multi_view(irname, attrs_fn):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        metas = out_metas(node)
        x = b.value(a["self"])
        return b.op(irname, [x], attrs_fn(x, a, metas), metas, roots=x.roots)

    return fn


def _split_attrs(x, a, metas):
    dim = _norm_dim(a.get("dim", 0), x.rank)
    return {"dim": dim, "sizes": [m[0][dim] for m in metas]}


ATEN_TO_IR[aten.split.Tensor] = _multi_view("view.split", _split_attrs)
ATEN_TO_IR[aten.split_with_sizes.default] = _multi_view("view.split", _split_attrs)
ATEN_TO_IR[aten.unbind.int] = _multi_view("view.unbind", lambda x, a, m: {"dim": _norm_dim(a.get("dim", 0), x.rank)})


@_reg(aten.flip.default)
def _flip(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    dims = sorted({_norm_dim(d, x.rank) for d in a["dims"]})
    cur = x
    for d in dims:
        if x.shape[d] <= 1:
            continue
        n = x.shape[d]
        if isinstance(n, int):
            # (Made outside the translation's fake mode: a constant's values
            # are read.)
            from torch._subclasses.fake_tensor import unset_fake_temporarily
            with unset_fake_temporarily():
                idx = b.constant(torch.arange(n - 1, -1, -1, dtype=torch.int64))
        else:
            # (A symbolic length: the positions counted down from the
            # call's `n - 1`.)
            idx = b.op1("tensor.sub", [b.operand(n - 1, torch.int64), _iota(b, n)], None, (n,), torch.int64)
        cur = b.op1("tensor.index_select", [cur, idx], {"dim": d}, shape, dtype)
    if cur is x:
        cur = b.op1("tensor.clone", [x], None, shape, dtype)
    return cur


@_reg(aten.roll.default)
def _roll(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    shifts, dims = list(a["shifts"]), list(a.get("dims") or [])
    cur = x
    if not dims:
        if len(shifts) != 1:
            raise Reject("roll without dims and several shifts")
        n = x.numel()
        cur = b.op1("view.reshape", [x], {"shape": [n]}, (n,), dtype, roots=x.roots)
        dims = [0]
    if len(shifts) != len(dims):
        raise Reject("roll with %d shifts for %d dims" % (len(shifts), len(dims)))
    for sh, d in zip(shifts, dims):
        d = _norm_dim(d, cur.rank)
        size = cur.shape[d]
        if size == 0:
            continue
        k = sh % size
        if k == 0:
            continue
        s1 = cur.shape[:d] + (k,) + cur.shape[d + 1:]
        s2 = cur.shape[:d] + (size - k,) + cur.shape[d + 1:]
        tail = b.op1("view.slice", [cur], {"dim": d, "start": size - k, "end": size, "step": 1}, s1, dtype,
                     roots=cur.roots)
        head = b.op1("view.slice", [cur], {"dim": d, "start": 0, "end": size - k, "step": 1}, s2, dtype,
                     roots=cur.roots)
        cur = b.op1("tensor.cat", [tail, head], {"dim": d}, cur.shape, dtype)
    if cur.shape != tuple(shape):
        cur = b.op1("view.reshape", [cur], {"shape": list(shape)}, shape, dtype, roots=cur.roots)
    if cur.roots or cur is x:
        cur = b.op1("tensor.clone", [cur], None, shape, dtype)
    return cur


def _scatter_op(irname, attrs_fn):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        shape, dtype = out_meta(node)
        x = b.value(a["self"])
        src = b.cast(b.value(a["src"]), dtype)
        return b.op1(irname, [x, src], attrs_fn(b, x, a, shape), shape, dtype)

    return fn


ATEN_TO_IR[aten.slice_scatter.default] = _scatter_op("view.slice_scatter", _slice_attrs)
ATEN_TO_IR[aten.select_scatter.default] = _scatter_op("view.select_scatter", _select_attrs)
ATEN_TO_IR[aten.diagonal_scatter.default] = _scatter_op(
    "view.diagonal_scatter", lambda b, x, a, s: {"offset": a["offset"], "dim1": _norm_dim(a["dim1"], x.rank),
                                                 "dim2": _norm_dim(a["dim2"], x.rank)})
ATEN_TO_IR[aten.as_strided_scatter.default] = _scatter_op(
    "view.as_strided_scatter", lambda b, x, a, s: {"size": list(a["size"]), "stride": list(a["stride"]),
                                                   "offset": int(a["storage_offset"] or 0)})


# ---------------------------------------------------------------------------
# In-place ops


def _inplace_binary(mutop: str, irname: str, other: str = "other"):
    functional = _binary(irname, other)

    def fn(b, node, a):
        x = b.value(a["self"])
        ct = result_type(b, a["self"], a[other])
        if irname == "tensor.div" and a.get("rounding_mode") is not None:
            raise Reject("div_ with rounding_mode=%r" % a["rounding_mode"])
        if ct == x.dtype and x.dtype != torch.bool:
            y = b.operand(a[other], x.dtype)
            alpha = a.get("alpha", 1)
            if alpha is not None and alpha != 1:
                r = _add_scaled(b, x, y, -alpha if irname == "tensor.sub" else alpha, x.shape, x.dtype)
                b.op("mut.copy_", [x, r])
            else:
                b.op(mutop, [x, y])
        else:
            # computed in the promoted dtype, then converted by copy_
            r = _functional_in(b, node, a, functional, ct)
            b.op("mut.copy_", [x, r])
        b.mutate(x)
        return x

    return fn


class _RetypedNode:
    """A node whose result meta is replaced (to compute an in-place op's
    value in its promoted dtype)."""

    def __init__(self, node, val):
        self._node = node
        self.meta = dict(node.meta)
        self.meta["val"] = val
        self.name = node.name
        self.target = node.target


def _functional_in(b, node, a, functional, dtype):
    val = node.meta["val"]
    fake = torch.empty(tuple(val.shape), dtype=dtype, device="meta")
    return functional(b, _RetypedNode(node, fake), a)


for _name, _ir in [("add", "tensor.add"), ("sub", "tensor.sub"), ("mul", "tensor.mul"), ("div", "tensor.div")]:
    for _ov in ("Tensor", "Scalar"):
        ATEN_TO_IR[getattr(getattr(aten, _name + "_"), _ov)] = _inplace_binary("mut.%s_" % _name, _ir)
ATEN_TO_IR[aten.div_.Tensor_mode] = _inplace_binary("mut.div_", "tensor.div")
ATEN_TO_IR[aten.div_.Scalar_mode] = _inplace_binary("mut.div_", "tensor.div")


@_reg(aten.copy_.default)
def _copy_(b, node, a):
    x = b.value(a["self"])
    src = b.value(a["src"])
    b.op("mut.copy_", [x, src])
    b.mutate(x)
    return x


@_reg(aten.leaky_relu_.default)
def _leaky_relu_(b, node, a):
    """PyTorch's in-place leaky ReLU saves its result for backward, and a
    later write of it makes eager's backward raise; a region saves what its
    own derivative needs. The two agree when nothing can write the result
    after (CSPDarknet's activations: intermediates read by the next
    convolution); otherwise PyTorch runs it."""
    x = b.value(a["self"])
    if not _is_float(x.dtype):
        raise Reject("leaky_relu_ of %s" % x.dtype)
    root = _storage_root(a["self"])
    why = "which is an argument" if not isinstance(root, Node) or root.op != "call_function" else \
        _written_or_returned(a["self"], after=node)
    if why:
        raise Reject("leaky_relu_ of a tensor %s (PyTorch's backward reads the result)" % why)
    # (x > 0 ? x : x * slope, whose derivative is PyTorch's: the slope at 0.)
    pos = b.op1("tensor.gt", [x, b.full(0, x.dtype)], None, x.shape, torch.bool)
    neg = b.op1("tensor.mul", [x, b.full(a.get("negative_slope", 0.01), x.dtype)], None, x.shape, x.dtype)
    b.op("mut.copy_", [x, b.op1("tensor.where", [pos, x, neg], None, x.shape, x.dtype)])
    b.mutate(x)
    return x


@_reg(aten.fill_.Scalar)
def _fill_(b, node, a):
    x = b.value(a["self"])
    v = a["value"]
    if not isinstance(v, (int, float)):
        raise Reject("fill_ with %r" % (v,))
    if _is_float(x.dtype) or x.dtype == torch.bool or abs(int(v)) < 2 ** 53:
        b.op("mut.fill_", [x], {"value": float(v)})
    else:
        b.op("mut.copy_", [x, b.full(v, x.dtype)])
    b.mutate(x)
    return x


@_reg(aten.fill_.Tensor)
def _fill_t_(b, node, a):
    x = b.value(a["self"])
    b.op("mut.copy_", [x, b.value(a["value"])])
    b.mutate(x)
    return x


@_reg(aten.zero_.default)
def _zero_(b, node, a):
    x = b.value(a["self"])
    b.op("mut.zero_", [x])
    b.mutate(x)
    return x


def _inplace_unary(mutop: str, float_only: bool = True):
    def fn(b, node, a):
        x = b.value(a["self"])
        if float_only and not _is_float(x.dtype):
            raise Reject("%s of integer dtype %s" % (mutop, x.dtype))
        b.op(mutop, [x])
        b.mutate(x)
        return x

    return fn


ATEN_TO_IR[aten.relu_.default] = _inplace_unary("mut.relu_", False)
ATEN_TO_IR[aten.neg_.default] = _inplace_unary("mut.neg_", False)
ATEN_TO_IR[aten.sigmoid_.default] = _inplace_unary("mut.sigmoid_")
ATEN_TO_IR[aten.tanh_.default] = _inplace_unary("mut.tanh_")
ATEN_TO_IR[aten.exp_.default] = _inplace_unary("mut.exp_")


def _inplace_clamp(lo_key, hi_key):
    def fn(b, node, a):
        x = b.value(a["self"])
        lo = a.get(lo_key) if lo_key else None
        hi = a.get(hi_key) if hi_key else None
        if lo is None and hi is None:
            raise Reject("clamp_ without bounds")
        attrs = {}
        for k, v in (("min", lo), ("max", hi)):
            if v is not None:
                if not isinstance(v, (int, float)):
                    raise Reject("clamp_ bound %r" % (v,))
                attrs[k] = float(v)
        b.op("mut.clamp_", [x], attrs)
        b.mutate(x)
        return x

    return fn


ATEN_TO_IR[aten.clamp_.default] = _inplace_clamp("min", "max")
ATEN_TO_IR[aten.clamp_min_.default] = _inplace_clamp("min", None)
ATEN_TO_IR[aten.clamp_max_.default] = _inplace_clamp(None, "max")


@_reg(aten.masked_fill_.Scalar, aten.masked_fill_.Tensor)
def _masked_fill_(b, node, a):
    x = b.value(a["self"])
    r = _where_fn(b, node, a["mask"], a["value"], a["self"])
    b.op("mut.copy_", [x, r])
    b.mutate(x)
    return x


def _meta_mutation(irname: str, attrs_fn=None):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        shape, dtype = out_meta(node)
        x = b.value(a["self"])
        attrs = attrs_fn(b, x, a, shape) if attrs_fn else None
        r = b.op1(irname, [x], attrs, shape, dtype, roots=x.roots)
        b.mutate(x)
        b.rebind(a["self"], r)
        return r

    return fn


ATEN_TO_IR[aten.t_.default] = _meta_mutation("mut.t_")
ATEN_TO_IR[aten.transpose_.default] = _meta_mutation(
    "mut.transpose_", lambda b, x, a, s: {"dim0": _norm_dim(a["dim0"], x.rank), "dim1": _norm_dim(a["dim1"], x.rank)})
ATEN_TO_IR[aten.squeeze_.default] = _meta_mutation("mut.squeeze_")
ATEN_TO_IR[aten.squeeze_.dim] = _meta_mutation("mut.squeeze_", lambda b, x, a, s: {"dim": _norm_dim(a["dim"], x.rank)})
ATEN_TO_IR[aten.unsqueeze_.default] = _meta_mutation(
    "mut.unsqueeze_", lambda b, x, a, s: {"dim": _norm_dim(a["dim"], x.rank + 1)})
def _as_strided__attrs(b, x, a, s):
    # In place or not, as_strided addresses the storage: the layouts must
    # agree (fuzz seed 31553: `v0 = -1.58 - a1` of a transposed `a1`, laid
    # out transposed by eager, then `v0.as_strided_((3,), (1,))`).
    _fresh_layout_agrees(b, x, a["self"])
    return {"size": list(a["size"]), "stride": list(a["stride"]),
            "offset": _storage_offset(b, x, a.get("storage_offset"), a["self"])}


ATEN_TO_IR[aten.as_strided_.default] = _meta_mutation("mut.as_strided_", _as_strided__attrs)


@_reg(aten.squeeze_.dims)
def _squeeze_dims_(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    dims = sorted({_norm_dim(d, x.rank) for d in a["dim"]}, reverse=True)
    dims = [d for d in dims if x.shape[d] == 1]
    cur = x
    for d in dims:
        ns = cur.shape[:d] + cur.shape[d + 1:]
        cur = b.op1("mut.squeeze_", [cur], {"dim": d}, ns, dtype, roots=x.roots)
    if dims:
        b.mutate(x)
        b.rebind(a["self"], cur)
    return cur


@_reg(aten.resize_.default)
def _resize_(b, node, a):
    if a.get("memory_format") not in (None, torch.contiguous_format):
        raise Reject("resize_ with memory_format %s" % a["memory_format"])
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    r = b.op1("mut.resize_", [x], {"size": list(a["size"])}, shape, dtype, roots=x.roots)
    b.mutate(x)
    b.rebind(a["self"], r)
    return r


@_reg(aten.set_.source_Tensor)
def _set_(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["self"])
    src = b.value(a["source"])
    r = b.op1("mut.set_", [x, src], None, shape, dtype, roots=x.roots | src.roots)
    b.mutate(x)
    b.rebind(a["self"], r)
    return r


# ---------------------------------------------------------------------------
# Randomness (the IR's Philox generator: draws differ from PyTorch's)


@_reg(aten.native_dropout.default)
def _native_dropout(b, node, a):
    metas = out_metas(node)
    x = b.value(a["input"])
    train = a.get("train")
    train = True if train is None else bool(train)
    if train:
        b.has_random = True
    return b.op("rng.dropout", [x], {"p": float(a["p"]), "train": train}, metas)


@_reg(aten.bernoulli.default)
def _bernoulli(b, node, a):
    _no_generator(a)
    shape, dtype = out_meta(node)
    p = b.value(a["self"])
    if not _is_float(p.dtype):
        raise Reject("bernoulli of integer probabilities")
    b.has_random = True
    return b.op1("rng.bernoulli", [p], None, shape, dtype)


@_reg(aten.bernoulli.p)
def _bernoulli_p(b, node, a):
    _no_generator(a)
    shape, dtype = out_meta(node)
    if not _is_float(dtype):
        raise Reject("bernoulli into integer dtype %s" % dtype)
    p = b.full(float(a["p"]), dtype, shape)
    b.has_random = True
    return b.op1("rng.bernoulli", [p], None, shape, dtype)


def _draw_into(b, node, a, draw):
    x = b.value(a["self"])
    r = draw(x)
    b.has_random = True
    b.op("mut.copy_", [x, r])
    b.mutate(x)
    return x


@_reg(aten.bernoulli_.float)
def _bernoulli_f_(b, node, a):
    _no_generator(a)

    def draw(x):
        dt = x.dtype if _is_float(x.dtype) else torch.float32
        return b.op1("rng.bernoulli", [b.full(float(a["p"]), dt, x.shape)], None, x.shape, dt)

    return _draw_into(b, node, a, draw)


@_reg(aten.bernoulli_.Tensor)
def _bernoulli_t_(b, node, a):
    _no_generator(a)

    def draw(x):
        p = b.value(a["p"])
        if not _is_float(p.dtype):
            raise Reject("bernoulli_ with integer probabilities")
        if p.shape != x.shape:
            p = b.op1("view.expand", [p], {"shape": list(x.shape)}, x.shape, p.dtype, roots=p.roots)
        return b.op1("rng.bernoulli", [p], None, x.shape, p.dtype)

    return _draw_into(b, node, a, draw)


@_reg(aten.uniform_.default)
def _uniform_(b, node, a):
    _no_generator(a)

    def draw(x):
        if not _is_float(x.dtype):
            raise Reject("uniform_ of integer dtype")
        return b.op1("rng.uniform", [], {"low": float(a["from"]), "high": float(a["to"])}, x.shape, x.dtype)

    return _draw_into(b, node, a, draw)


@_reg(aten.normal_.default)
def _normal_(b, node, a):
    _no_generator(a)

    def draw(x):
        if not _is_float(x.dtype):
            raise Reject("normal_ of integer dtype")
        return b.op1("rng.normal", [], {"mean": float(a["mean"]), "std": float(a["std"])}, x.shape, x.dtype)

    return _draw_into(b, node, a, draw)


def _rand(irname: str):
    NAMED_OPS.add(irname)

    def fn(b, node, a):
        _no_generator(a)
        shape, dtype = out_meta(node)
        if not _is_float(dtype):
            raise Reject("%s of integer dtype" % irname)
        b.has_random = True
        return b.op1(irname, [], None, shape, dtype)

    return fn


for _op in (aten.rand.default, aten.rand.generator, aten.rand_like.default):
    ATEN_TO_IR[_op] = _rand("rng.uniform")
for _op in (aten.randn.default, aten.randn.generator, aten.randn_like.default):
    ATEN_TO_IR[_op] = _rand("rng.normal")


# ---------------------------------------------------------------------------
# prims that PyTorch's decompositions (group_norm, ...) produce

prims = torch.ops.prims


@_reg(prims.var.default)
def _prims_var(b, node, a):
    shape, dtype = out_meta(node)
    if a.get("output_dtype") is not None and a["output_dtype"] != dtype:
        raise Reject("prims.var with output_dtype")
    x = b.value(a["inp"])
    return _var_value(b, x, {"dim": a["dims"], "correction": a["correction"], "keepdim": False}, shape)


@_reg(prims.sum.default)
def _prims_sum(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["inp"])
    if x.dtype != dtype:
        x = b.cast(x, dtype)
    dims = [_norm_dim(d, x.rank) for d in (a["dims"] or [])]
    if not dims and x.rank > 0:
        return b.op1("tensor.clone", [x], None, shape, dtype)  # prims.sum over no dims
    return b.op1("tensor.sum", [x], {"dims": dims}, shape, dtype)


@_reg(prims.div.default)
def _prims_div(b, node, a):
    shape, dtype = out_meta(node)
    if not _is_float(dtype):
        raise Reject("prims.div of integers (truncating division)")
    return b.op1("tensor.div", [b.operand(a["self"], dtype), b.operand(a["other"], dtype)], None, shape, dtype)


@_reg(prims.broadcast_in_dim.default)
def _prims_broadcast_in_dim(b, node, a):
    shape, dtype = out_meta(node)
    x = b.value(a["a"])
    bdims = list(a["broadcast_dimensions"])
    inter = [1] * len(shape)
    for i, d in enumerate(bdims):
        inter[d] = x.shape[i]
    r = x
    if tuple(inter) != x.shape:
        r = b.op1("view.reshape", [x], {"shape": inter}, tuple(inter), dtype, roots=x.roots)
    if tuple(shape) != r.shape:
        r = b.op1("view.expand", [r], {"shape": list(shape)}, shape, dtype, roots=x.roots)
    if r is x:
        r = b.op1("view.alias", [x], None, shape, dtype, roots=x.roots)
    return r


# ---------------------------------------------------------------------------
# Ops that never translate (more precise reasons than "no counterpart")


def _never(reason: str):
    def fn(b, node, a):
        raise Reject("%s: %s" % (node.target, reason))

    fn.never = True
    return fn


for _op in (aten.nonzero.default, aten.masked_select.default, aten._unique2.default,
            aten.unique_dim.default, aten.unique_consecutive.default, aten.repeat_interleave.Tensor,
            aten.argwhere.default):
    ATEN_TO_IR[_op] = _never("data-dependent output shape")
for _op in (aten._local_scalar_dense.default, aten.item.default):
    ATEN_TO_IR[_op] = _never("data-dependent Python scalar (.item())")
for _op in (aten.sym_size.int, aten.sym_stride.int, aten.sym_numel.default, aten.sym_storage_offset.default):
    ATEN_TO_IR[_op] = _never("dynamic shape")


# ---------------------------------------------------------------------------
# In-place variants of the functional ops above: functional, then copy_.


def _inplace_via_copy(functional):
    """`op_(x, ...)` as `copy_(x, op(clone(x), ...))`. The rule reads the
    copy: eager's in-place kernels whose derivative reads `self` save the
    original, and the write into `x` must not make that save stale (which
    the IR's autograd model would report as "modified by an inplace
    operation"). Other operands stay `x` itself: `x.pow_(x)` saves `x` as
    the exponent, and eager's backward raises on it."""

    def fn(b, node, a):
        x = b.value(a["self"])
        r = functional(b, node, {**a, "self": b.op1("tensor.clone", [x], None, x.shape, x.dtype)})
        if isinstance(r, (list, tuple)):
            raise Reject("in-place op with several results")
        b.op("mut.copy_", [x, r])
        b.mutate(x)
        return x

    return fn


def _view_then_clone(view_fn):
    def fn(b, node, a):
        v = view_fn(b, node, a)
        if isinstance(v, (list, tuple)):
            return [b.op1("tensor.clone", [x], None, x.shape, x.dtype) for x in v]
        return b.op1("tensor.clone", [v], None, v.shape, v.dtype)

    return fn


# (`unsafe_split`, as `LSTMCell`/`GRUCell` chunk their gates: its results
# share the input's memory but are not views to autograd, `_base` None.)
ATEN_TO_IR[aten.unsafe_split.Tensor] = _view_then_clone(_multi_view("view.split", _split_attrs))
ATEN_TO_IR[aten.unsafe_split_with_sizes.default] = _view_then_clone(_multi_view("view.split", _split_attrs))


def _add_copy_variants():
    """`view_copy`, `permute_copy`, ...: the view, then a fresh copy."""
    for op, fn in list(ATEN_TO_IR.items()):
        if not isinstance(op, torch._ops.OpOverload) or op.namespace != "aten":
            continue
        try:
            schema = op._schema
        except Exception:
            continue
        if not schema.returns or schema.returns[0].alias_info is None or schema.returns[0].alias_info.is_write:
            continue
        packet = op.overloadpacket.__name__
        copy = getattr(aten, packet + "_copy", None)
        ov = getattr(copy, op._overloadname, None) if copy is not None else None
        if ov is not None and ov not in ATEN_TO_IR:
            ATEN_TO_IR[ov] = _view_then_clone(fn)


_add_copy_variants()


def _add_inplace_variants():
    for op, fn in list(ATEN_TO_IR.items()):
        if not isinstance(op, torch._ops.OpOverload) or getattr(fn, "never", False):
            continue
        packet = op.overloadpacket.__name__
        if packet.endswith("_") or op.namespace != "aten":
            continue
        inplace = getattr(aten, packet + "_", None)
        if inplace is None:
            continue
        ov = getattr(inplace, op._overloadname, None)
        if ov is None or ov in ATEN_TO_IR:
            continue
        schema = ov._schema
        if not schema.arguments or schema.arguments[0].name != "self":
            continue
        if not (schema.arguments[0].alias_info is not None and schema.arguments[0].alias_info.is_write):
            continue
        ATEN_TO_IR[ov] = _inplace_via_copy(fn)


_add_inplace_variants()


def supported_ops() -> List[str]:
    """The names of the ATen overloads the table translates."""
    return sorted(str(op) for op, fn in ATEN_TO_IR.items() if not getattr(fn, "never", False))


# ---------------------------------------------------------------------------
# Functional collectives (torch.ops._c10d_functional): the dist dialect, run
# by the caller's process group (aot_torch.distributed).

_c10d = getattr(torch.ops, "_c10d_functional", None)
_REDUCTIONS = ("sum", "avg", "product", "max", "min")


def _collective(irname: str, reduce_arg=None, src_arg=None, equal_splits=False):
    NAMED_OPS.add(irname)

    def fn(b: Builder, node: Node, a):
        from . import distributed

        shape, dtype = out_meta(node)
        x = b.value(a["input"])
        name = a["group_name"]
        name = getattr(name, "group_name", name)
        if not isinstance(name, str):
            raise Reject("a collective over a process group given as %r" % (name,))
        if not dist_available():
            raise Reject("torch.distributed is not initialized")
        attrs = {"group": name, "size": distributed.group_size(name)}
        if "group_size" in a and int(a["group_size"]) != attrs["size"]:
            raise Reject("a collective for %s ranks over a group of %d" % (a["group_size"], attrs["size"]))
        if reduce_arg is not None:
            r = a[reduce_arg]
            # (A ReduceOp, or its name.)
            r = (r if isinstance(r, str) else str(r).split(".")[-1]).lower()
            if r not in _REDUCTIONS:
                raise Reject("reduction %r of a collective" % (a[reduce_arg],))
            attrs["reduce"] = r
        if src_arg is not None:
            attrs["src"] = int(a[src_arg])
        if equal_splits:
            splits = [a.get("output_split_sizes"), a.get("input_split_sizes")]
            n = x.shape[0] if x.rank else 0
            for s in splits:
                if s is not None and len(set(int(v) for v in s)) > 1:
                    raise Reject("an all_to_all_single with unequal splits")
                if s is not None and sum(int(v) for v in s) != n:
                    raise Reject("an all_to_all_single whose splits do not cover dimension 0")
        return b.op1(irname, [x], attrs, shape, dtype)

    return fn


def dist_available() -> bool:
    import torch.distributed as dist

    return dist.is_available() and dist.is_initialized()


def _wait(b: Builder, node: Node, a):
    shape, dtype = out_meta(node)
    return b.op1("dist.wait", [b.value(a["tensor"])], None, shape, dtype)


NAMED_OPS.add("dist.wait")

if _c10d is not None:
    for _op, _fn in [
        ("all_reduce", _collective("dist.all_reduce", reduce_arg="reduce_op")),
        ("all_gather_into_tensor", _collective("dist.all_gather")),
        ("reduce_scatter_tensor", _collective("dist.reduce_scatter", reduce_arg="reduce_op")),
        ("all_to_all_single", _collective("dist.all_to_all", equal_splits=True)),
        ("broadcast", _collective("dist.broadcast", src_arg="src")),
        ("wait_tensor", _wait),
    ]:
        _packet = getattr(_c10d, _op, None)
        if _packet is not None:
            ATEN_TO_IR[_packet.default] = _fn
