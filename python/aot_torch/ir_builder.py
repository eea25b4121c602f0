"""The IR text the FX translator writes: element types, attributes, SSA
values and the `Builder` that emits ops in the generic form, and what the
translator reads of an FX node (its value's shape and dtype, its arguments
by schema name).

Both the translator (`fx_ir`) and its op table (`aten_ops`) build on this
module, which depends on neither: the op table is imported by the
translator, not the other way round. Every op name a table entry emits is
one the op registry knows (`aten_ops.check_op_names`, run by the tests).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx

# PyTorch dtype -> IR element type.
IR_DTYPES: Dict[torch.dtype, str] = {
    torch.float32: "f32",
    torch.float64: "f64",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int8: "i8",
    torch.bool: "i1",
}
FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


# The symbol table of a translation with symbolic sizes in progress
# (`symbolic.translating`), else None: sizes must then be integers.
SYMBOLS: Any = None


def dim_text(d: Any) -> str:
    """A dimension as the IR writes it."""
    if isinstance(d, int):
        return str(d)
    if SYMBOLS is None or not isinstance(d, torch.SymInt):
        raise Reject("dynamic shape")
    return SYMBOLS.text(d)


class Unsupported(Exception):
    """A node of the ATen graph that has no exact translation."""

    def __init__(self, node_name: str, reason: str):
        super().__init__("%s: %s" % (node_name, reason))
        self.node_name = node_name
        self.reason = reason


class Reject(Exception):
    """Raised by an op translation for a form it does not support."""


# ---------------------------------------------------------------------------
# Values and the text emitter


@dataclass(frozen=True)
class Value:
    """An SSA value of tensor type. `roots`: the function arguments whose
    storage it may view (for `Translation.mutated_inputs`)."""

    name: str
    shape: Tuple[int, ...]
    dtype: torch.dtype
    roots: frozenset = frozenset()

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def ir_dtype(dtype: torch.dtype) -> str:
    try:
        return IR_DTYPES[dtype]
    except KeyError:
        raise Reject(_dtype_reason(dtype)) from None


def _dtype_reason(dtype) -> str:
    if dtype is not None and getattr(dtype, "is_complex", False):
        return "complex dtype %s" % dtype
    return "dtype %s is not an IR element type (f32 f64 f16 bf16 i64 i32 i8 i1)" % dtype


def tensor_type(shape: Sequence[int], dtype: torch.dtype) -> str:
    return "tensor<%s%s>" % ("".join("%sx" % (d if isinstance(d, int) else dim_text(d)) for d in shape),
                              ir_dtype(dtype))


class Flag:
    """A unit attribute (`{keepdim}`)."""


FLAG = Flag()


class Raw(str):
    """Attribute text written as is."""


def fmt_float(v: float, ty: str = "f64") -> str:
    v = float(v)
    if math.isfinite(v):
        r = repr(v)
        if "." not in r and "e" not in r and "E" not in r:
            r += ".0"
        return r
    if ty == "f32":
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        return "0x%08X : f32" % bits
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    return "0x%016X : f64" % bits


def fmt_attr(v: Any) -> str:
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, torch.SymInt):
        return dim_text(v)
    if isinstance(v, float):
        return fmt_float(v)
    if isinstance(v, str):
        out = []
        for ch in v:
            if ch == '"':
                out.append('\\"')
            elif ch == "\\":
                out.append("\\\\")
            elif ch == "\n":
                out.append("\\n")
            elif ord(ch) < 0x20 or ord(ch) >= 0x7F:
                out.extend("\\%02X" % b for b in ch.encode("utf-8"))
            else:
                out.append(ch)
        return '"%s"' % "".join(out)
    if isinstance(v, (list, tuple)):
        if any(isinstance(x, torch.SymInt) for x in v):
            # (A symbolic size is written only in an integer array.)
            return "array<i64: %s>" % ", ".join(dim_text(x) for x in v)
        return "[%s]" % ", ".join(fmt_attr(x) for x in v)
    raise TypeError("cannot print attribute %r" % (v,))


def fmt_attrs(attrs: Optional[Dict[str, Any]]) -> str:
    if not attrs:
        return ""
    parts = []
    for k, v in attrs.items():
        if v is None:
            continue
        if isinstance(v, Flag):
            parts.append(k)
        else:
            parts.append("%s = %s" % (k, fmt_attr(v)))
    return " {%s}" % ", ".join(parts) if parts else ""


def _dense_elem(x, dtype) -> str:
    if dtype == torch.bool:
        return "true" if x else "false"
    if dtype in FLOAT_DTYPES:
        return fmt_float(x)
    return str(int(x))


def dense_literal(t: torch.Tensor) -> str:
    """`dense<...> : tensor<...>` for a tensor with finite values."""
    ty = tensor_type(tuple(t.shape), t.dtype)
    if t.dim() == 0:
        return "dense<%s> : %s" % (_dense_elem(t.item(), t.dtype), ty)

    def rec(x):
        if isinstance(x, list):
            return "[%s]" % ", ".join(rec(e) for e in x)
        return _dense_elem(x, t.dtype)

    return "dense<%s> : %s" % (rec(t.tolist()), ty)


class Builder:
    """Emits the body of one function and keeps the FX node -> value map."""

    def __init__(self, name_prefix: str = ""):
        self.lines: List[str] = []
        self.env: Dict[torch.fx.Node, Any] = {}
        self.counter = 0
        self.has_random = False
        self.mutated_roots: set = set()
        # the arguments written at least once with grad mode on
        self.grad_mutated_roots: set = set()
        self.loc: Optional[str] = None
        # The draw tag of the FX node being translated (`fx_ir.DRAW_KEY`),
        # and how many random ops it emitted so far: each random op is
        # marked `aot.draw = "<tag>.<k>"`, so that a traced backward's
        # recomputation of a forward draw names the forward's.
        self.draw: Optional[Any] = None
        self.draws = 0
        # ops are emitted with aot.no_grad (grad mode off where they ran)
        self.no_grad = False
        self.graph_module: Optional[torch.fx.GraphModule] = None
        # storage offsets of the arguments (from the example inputs)
        self.arg_offsets: Dict[int, int] = {}
        # SSA names of fresh tensors (results of tensor.* and rng.* ops)
        self.fresh_values: set = set()
        # Per FX node that aliases an argument through views and in-place
        # ops: a meta tensor with its layout, replayed from the argument's
        # (`_track_layout`). None once a metadata change could not be
        # replayed: then no layout is known. `probing`: a node checked
        # alone (`unsupported_reason`), whose argument layouts are not known.
        self.layouts: Optional[Dict[torch.fx.Node, torch.Tensor]] = {}
        # The same for eager's layouts of fresh values and their views: a
        # fresh result laid out as PyTorch lays it out (the trace's strides;
        # its offsets are not kept), then each view replayed on it
        # (`_track_eager_layout`).
        self.eager_layouts: Dict[torch.fx.Node, Any] = {}
        # The IR's layouts of fresh values and their views: a fresh result
        # is contiguous from offset 0 in the IR, where PyTorch may keep its
        # input's layout (`x.t() * 2`); each view is replayed on it
        # (`_track_ir_layout`). A view the trace took of eager's layout may
        # not be one of the IR's (`_view` in aten_ops).
        self.ir_layouts: Dict[torch.fx.Node, Any] = {}
        # FX nodes whose value may require grad: from an argument that does
        # (or one whose example is not known), in grad mode.
        self.grad_nodes: set = set()
        self.probing = False

    # -- emission -------------------------------------------------------
    def fresh(self) -> str:
        n = "%%%d" % self.counter
        self.counter += 1
        return n

    def op(self, name: str, operands: Sequence[Value], attrs=None,
           results: Sequence[Tuple[Sequence[int], torch.dtype]] = (),
           roots: frozenset = frozenset()) -> List[Value]:
        for o in operands:
            assert isinstance(o, Value), (name, o)
        ins = ", ".join(o.name for o in operands)
        in_types = ", ".join(o.type for o in operands)
        res_types = [tensor_type(s, d) for s, d in results]
        loc = " loc(%s)" % self.loc if self.loc else ""
        if self.no_grad:
            attrs = dict(attrs or {})
            attrs["aot.no_grad"] = FLAG
        if self.draw is not None and name.startswith("rng."):
            attrs = dict(attrs or {})
            attrs["aot.draw"] = "%s.%d" % (self.draw, self.draws)
            self.draws += 1
        sig = "(%s) -> (%s)" % (in_types, ", ".join(res_types))
        text = '"%s"(%s)%s : %s%s' % (name, ins, fmt_attrs(attrs), sig, loc)
        if not results:
            self.lines.append("  " + text)
            return []
        v = self.fresh()
        if len(results) == 1:
            self.lines.append("  %s = %s" % (v, text))
            vals = [Value(v, tuple(results[0][0]), results[0][1], roots)]
        else:
            self.lines.append("  %s:%d = %s" % (v, len(results), text))
            vals = [Value("%s#%d" % (v, i), tuple(s), d, roots) for i, (s, d) in enumerate(results)]
        if name.startswith(("tensor.", "rng.", "dist.")):
            self.fresh_values.update(x.name for x in vals)
        return vals

    def op1(self, name, operands, attrs=None, shape=None, dtype=None, roots=frozenset()) -> Value:
        return self.op(name, operands, attrs, [(tuple(shape), dtype)], roots)[0]

    # -- constants ------------------------------------------------------
    def full(self, value, dtype: torch.dtype, shape: Sequence[int] = ()) -> Value:
        ir_dtype(dtype)
        if dtype == torch.bool:
            return self.op1("tensor.full", [], {"value": 1.0 if value else 0.0}, shape, dtype)
        if dtype in FLOAT_DTYPES:
            v = float(value)
            return self.op1("tensor.full", [], {"value": v}, shape, dtype)
        if isinstance(value, float) and not value.is_integer():
            raise Reject("non-integral value %r for an integer tensor" % value)
        iv = int(value)
        info = torch.iinfo(dtype)
        if not info.min <= iv <= info.max:
            raise Reject("value %d out of range of %s" % (iv, dtype))
        if any(not isinstance(d, int) for d in shape):
            # (A symbolic shape: `tensor.full`, whose f64 value holds every
            # integer up to 2^53 exactly, lowers at any size; a splat
            # literal's type would need the sizes.)
            if abs(iv) > 2 ** 53:
                scalar = self.full(iv, dtype, ())
                wide = self.op1("view.expand", [scalar], {"shape": list(shape)}, shape, dtype, roots=scalar.roots)
                return self.op1("tensor.clone", [wide], None, shape, dtype)
            return self.op1("tensor.full", [], {"value": float(iv)}, shape, dtype)
        lit = "dense<%d> : %s" % (iv, tensor_type(shape, dtype))
        return self.op1("tensor.constant", [], {"value": Raw(lit)}, shape, dtype)

    def constant(self, t: torch.Tensor) -> Value:
        """A literal tensor (non-finite floats through tensor.where)."""
        from torch._subclasses.fake_tensor import unset_fake_temporarily

        # (Its values are read outside a fake mode: a symbolic graph is
        # translated under its ShapeEnv's, and a constant of the graph's is
        # real.)
        with unset_fake_temporarily():
            return self._constant(t)

    def _constant(self, t: torch.Tensor) -> Value:
        t = t.detach().cpu()
        if t.is_complex() or t.dtype not in IR_DTYPES:
            raise Reject(_dtype_reason(t.dtype))
        shape = tuple(t.shape)
        if t.numel() == 1:
            return self.full(t.reshape(-1)[0].item(), t.dtype, shape)
        if t.dtype in FLOAT_DTYPES:
            finite = torch.isfinite(t)
            if not bool(finite.all()):
                v = self._constant(torch.where(finite, t, torch.zeros_like(t)))
                for special in (math.inf, -math.inf, math.nan):
                    m = torch.isnan(t) if special != special else (t == special)
                    if bool(m.any()):
                        mv = self._constant(m)
                        v = self.op1("tensor.where", [mv, self.full(special, t.dtype), v], None, shape, t.dtype)
                return v
        return self.op1("tensor.constant", [], {"value": Raw(dense_literal(t))}, shape, t.dtype)

    def rebind(self, old_arg, new: Value) -> None:
        """After a metadata mutation the operand's SSA value is dead: every
        FX node that denoted that object now denotes `new`."""
        old = self.env.get(old_arg)
        for k, v in list(self.env.items()):
            if v is old:
                self.env[k] = new
        self.env[old_arg] = new

    # -- conversions ----------------------------------------------------
    def cast(self, v: Value, dtype: torch.dtype) -> Value:
        if v.dtype == dtype:
            return v
        ir_dtype(dtype)
        return self.op1("tensor.cast", [v], None, v.shape, dtype)

    def value(self, arg) -> Value:
        """The tensor value of an FX argument (a Node), or a value the
        translation made itself (an op's rule given a copy of its operand)."""
        if isinstance(arg, Value):
            return arg
        if isinstance(arg, torch.fx.Node):
            v = self.env.get(arg)
            if isinstance(v, Value):
                return v
            if v is None:
                raise Reject("operand %s has no value" % arg.name)
            raise Reject("operand %s is not a tensor (%s)" % (arg.name, type(v).__name__))
        raise Reject("expected a tensor operand, got %r" % (arg,))

    def operand(self, arg, dtype: torch.dtype) -> Value:
        """A tensor operand converted to `dtype`, or a Python scalar as a 0-d
        constant of `dtype`."""
        if isinstance(arg, torch.fx.Node) and isinstance(self.env.get(arg), (float, torch.SymFloat)):
            # A float computed from sizes (`interpolate`'s scale, `in / out`).
            arg = self.env[arg]
        if isinstance(arg, (torch.fx.Node, Value)):
            return self.cast(self.value(arg), dtype)
        if isinstance(arg, torch.SymFloat) and SYMBOLS is not None and dtype.is_floating_point:
            return self.float_size(arg, dtype)
        if isinstance(arg, (bool, int, float)):
            if dtype == torch.bool:
                return self.full(bool(arg), dtype)
            return self.full(arg, dtype)
        if isinstance(arg, torch.SymInt) and SYMBOLS is not None and dtype != torch.bool:
            # A size as a number (a mean's count): the call computes it.
            d = SYMBOLS.dim(arg)
            if isinstance(d, int):
                return self.full(d, dtype)
            return self.op1("tensor.size_value", [], {"size": [d]}, (), dtype)
        if isinstance(arg, torch.SymInt) or isinstance(arg, torch.SymFloat):
            raise Reject("dynamic shape (symbolic scalar operand)")
        raise Reject("unsupported operand %r" % (arg,))

    def float_size(self, x: "torch.SymFloat", dtype: torch.dtype) -> Value:
        """A float computed from sizes, as a 0-d value: a constant where the
        sizes cancel (`float(a) / float(2*a)` is 0.5), else a size, a
        constant over a size (`tensor.size_value`, with `numerator`), or a
        ratio of two sizes."""
        import sympy
        from torch.utils._sympy import functions as fns

        def real(e):
            if isinstance(e, fns.ToFloat):
                return real(e.args[0])
            if isinstance(e, (fns.FloatTrueDiv, fns.IntTrueDiv)):
                return real(e.args[0]) / real(e.args[1])
            if e.args and isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow)):
                return e.func(*[real(a) for a in e.args])
            return e

        e = sympy.nsimplify(sympy.simplify(real(x.node.expr)), rational=True)
        if e.is_number:
            return self.full(float(e), dtype)
        num, den = sympy.fraction(sympy.together(e))
        if num.is_number and not den.is_number:
            size = Raw("array<i64: %s>" % SYMBOLS.text_of(den))
            return self.op1("tensor.size_value", [], {"size": size, "numerator": float(num)}, (), dtype)
        if den == 1:
            return self.op1("tensor.size_value", [], {"size": Raw("array<i64: %s>" % SYMBOLS.text_of(num))}, (), dtype)
        if not num.is_number and not den.is_number:
            # A ratio of two sizes (`interpolate` to `size=(h // 2, ...)`:
            # its scale `h / (h // 2)`): each size at run time, divided as
            # Python divides them (in double), then rounded to `dtype` as
            # PyTorch rounds a Python float it multiplies a tensor by.
            n, d = (self.op1("tensor.size_value", [], {"size": Raw("array<i64: %s>" % SYMBOLS.text_of(e))}, (),
                             torch.float64) for e in (num, den))
            return self.cast(self.op1("tensor.div", [n, d], None, (), torch.float64), dtype)
        raise Reject("the float %s computed from sizes has no form in the IR" % x.node.expr)

    def mutate(self, v: Value) -> None:
        self.mutated_roots |= set(v.roots)
        if not self.no_grad:
            self.grad_mutated_roots |= set(v.roots)


# ---------------------------------------------------------------------------
# Node metadata


def _is_symbolic(x) -> bool:
    return isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool))


def tensor_meta(val) -> Tuple[Tuple[int, ...], torch.dtype]:
    if not isinstance(val, torch.Tensor):
        raise Reject("expected a tensor value, got %s" % type(val).__name__)
    if val.is_sparse or val.layout != torch.strided:
        raise Reject("sparse or non-strided tensor (layout %s)" % val.layout)
    if val.is_complex():
        raise Reject("complex dtype %s" % val.dtype)
    shape = []
    for d in val.shape:
        if _is_symbolic(d):
            if SYMBOLS is None:
                raise Reject("dynamic shape")
            shape.append(SYMBOLS.dim(d))
        else:
            shape.append(int(d))
    ir_dtype(val.dtype)
    return tuple(shape), val.dtype


def node_val(node: torch.fx.Node):
    if "val" not in node.meta:
        raise Reject("node %s has no meta['val'] (trace with make_fx)" % node.name)
    return node.meta["val"]


def out_meta(node: torch.fx.Node):
    """(shape, dtype) of a single-tensor node."""
    return tensor_meta(node_val(node))


def out_metas(node: torch.fx.Node):
    val = node_val(node)
    if not isinstance(val, (list, tuple)):
        raise Reject("expected several results")
    return [tensor_meta(v) for v in val]


def bind_args(node: torch.fx.Node) -> Dict[str, Any]:
    """Schema argument name -> FX argument (defaults filled in)."""
    schema = node.target._schema
    out: Dict[str, Any] = {}
    args = list(node.args)
    for i, a in enumerate(schema.arguments):
        if i < len(args) and not a.kwarg_only:
            out[a.name] = args[i]
        elif a.name in node.kwargs:
            out[a.name] = node.kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
        else:
            out[a.name] = None
    return out
