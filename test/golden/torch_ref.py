#!/usr/bin/env python3
"""A PyTorch reference executor for the aot IR (golden data generator core).

Parses the subset of the MLIR text syntax used by the `test/run/` corpus,
executes one function with PyTorch eager semantics (docs/reference/semantics.md)
and produces exactly the `aot-run` output JSON (docs/reference/json.md): outputs, args_after and, when something requires grad,
grads / storage_grads.

Only `gen.py` (and a human) imports this; the normal test run never needs torch.

Usage as a script:
    torch_ref.py FILE.mlir --inputs IN.json [--tangents T.json] [--entry NAME]
"""

import argparse
import ast
import contextlib
import json
import math
import re

import torch
import torch.nn.functional as F


class CorpusError(Exception):
    """A mistake in a test case or an unsupported construct (never a golden)."""


# --------------------------------------------------------------------------
# Types

DTYPES = {
    "f32": torch.float32,
    "f64": torch.float64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "i64": torch.int64,
    "i32": torch.int32,
    "i8": torch.int8,
    "i1": torch.bool,
}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


class TensorType:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    def __repr__(self):
        dims = "".join("%dx" % d for d in self.shape)
        return "tensor<%s%s>" % (dims, DTYPE_NAMES[self.dtype])


class SubclassType:
    """`!aot.subclass<@Class, tensor<...>>`: a subclass value of outer type `tensor`."""
    __slots__ = ("cls", "tensor")

    def __init__(self, cls, tensor):
        self.cls = cls
        self.tensor = tensor

    @property
    def shape(self):
        return self.tensor.shape

    @property
    def dtype(self):
        return self.tensor.dtype

    def __repr__(self):
        return "!aot.subclass<@%s, %r>" % (self.cls, self.tensor)


def parse_type(text):
    m = re.fullmatch(r"!aot\.subclass<\s*@([A-Za-z_][A-Za-z0-9_$.]*)\s*,\s*(tensor<[^>]*>)\s*>", text)
    if m:
        return SubclassType(m.group(1), parse_type(m.group(2)))
    m = re.fullmatch(r"tensor<\s*((?:\d+\s*x\s*)*)([a-z0-9]+)\s*>", text)
    if not m:
        raise CorpusError("unsupported type %r" % text)
    dims = [int(d) for d in re.findall(r"\d+", m.group(1))]
    if m.group(2) not in DTYPES:
        raise CorpusError("unsupported element type in %r" % text)
    return TensorType(dims, DTYPES[m.group(2)])


# --------------------------------------------------------------------------
# Lexer

class Tok:
    __slots__ = ("kind", "val", "line")

    def __init__(self, kind, val, line):
        self.kind, self.val, self.line = kind, val, line

    def __repr__(self):
        return "%s(%r)@%d" % (self.kind, self.val, self.line)


_NUM_RE = re.compile(r"0x[0-9a-fA-F]+|-?\d+(\.\d*)?([eE][+-]?\d+)?")
_ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.$]*")
_SSA_RE = re.compile(r"%([A-Za-z0-9_.$-]+)(?:#(\d+))?")
_SYM_RE = re.compile(r'@([A-Za-z0-9_.$-]+)')


def _scan_angle(src, i):
    """src[i] == '<'; return the index just past the matching '>'."""
    depth = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == '"':
            i += 1
            while src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c == "<":
            depth += 1
        elif c == ">" and src[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise CorpusError("unterminated '<'")


def _scan_string(src, i):
    """src[i] == '"'; return (value, end)."""
    j = i + 1
    out = []
    while src[j] != '"':
        if src[j] == "\\":
            nxt = src[j + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(nxt, nxt))
            j += 2
        else:
            out.append(src[j])
            j += 1
    return "".join(out), j + 1


def lex(src):
    toks = []
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                i += 1
        elif src.startswith("->", i):
            toks.append(Tok("->", "->", line))
            i += 2
        elif c == "%":
            m = _SSA_RE.match(src, i)
            if not m:
                raise CorpusError("line %d: bad SSA name" % line)
            toks.append(Tok("val", (m.group(1), None if m.group(2) is None else int(m.group(2))), line))
            i = m.end()
        elif c == "@":
            if src.startswith('@"', i):
                s, i = _scan_string(src, i + 1)
                toks.append(Tok("sym", s, line))
            else:
                m = _SYM_RE.match(src, i)
                toks.append(Tok("sym", m.group(1), line))
                i = m.end()
        elif c == '"':
            s, i = _scan_string(src, i)
            toks.append(Tok("str", s, line))
        elif c.isdigit() or (c == "-" and i + 1 < n and src[i + 1].isdigit()):
            m = _NUM_RE.match(src, i)
            text = m.group(0)
            if text.startswith("0x"):
                val = int(text, 16)
            elif m.group(1) is None and m.group(2) is None:
                val = int(text)
            else:
                val = float(text)
            toks.append(Tok("num", val, line))
            i = m.end()
        elif c == "#" or c == "!":
            m = _ID_RE.match(src, i + 1)
            j = m.end() if m else i + 1
            if j < n and src[j] == "<":
                j = _scan_angle(src, j)
            kind = "type" if src.startswith("!aot.subclass<", i) else "hash"
            toks.append(Tok(kind, src[i:j], line))
            i = j
        elif c.isalpha() or c == "_":
            m = _ID_RE.match(src, i)
            word = m.group(0)
            j = m.end()
            if word in ("tensor", "dense", "array") and j < n and src[j] == "<":
                k = _scan_angle(src, j)
                text = src[i:k]
                kind = {"tensor": "type", "dense": "dense", "array": "array"}[word]
                toks.append(Tok(kind, text, line))
                i = k
            else:
                toks.append(Tok("id", word, line))
                i = j
        elif c in "(){}[],:=<>^":
            toks.append(Tok(c, c, line))
            i += 1
        else:
            raise CorpusError("line %d: unexpected character %r" % (line, c))
    toks.append(Tok("eof", None, line))
    return toks


# --------------------------------------------------------------------------
# Attributes

class Dense:
    def __init__(self, literal, type_):
        self.literal = literal
        self.type = type_

    def to_tensor(self):
        t = self.type
        body = self.literal[len("dense<"):-1].strip()
        py = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", body))
        val = ast.literal_eval(py) if body else []
        if isinstance(val, (list, tuple)):
            x = torch.tensor(val, dtype=t.dtype)
            if tuple(x.shape) != t.shape:
                x = x.reshape(t.shape)
        else:
            x = torch.full(t.shape, val, dtype=t.dtype)
        return x


class Op:
    __slots__ = ("name", "results", "operands", "attrs", "operand_types", "result_types", "callee", "line")

    def __init__(self):
        self.results = []   # list of (name, count or None)
        self.operands = []  # list of (name, index or None)
        self.attrs = {}
        self.operand_types = []
        self.result_types = []
        self.callee = None


class Func:
    def __init__(self, name, private):
        self.name = name
        self.private = private
        self.args = []          # list of (ssa name, TensorType)
        self.result_types = []
        self.body = None        # list of Op, or None for a declaration


_SCALAR_TYPES = {"f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index", "si64", "ui64"}


class Parser:
    def __init__(self, src):
        self.toks = lex(src)
        self.pos = 0
        self.type_aliases = {}
        self.classes = {}

    def peek(self, k=0):
        return self.toks[self.pos + k]

    def next(self):
        t = self.toks[self.pos]
        self.pos += 1
        return t

    def accept(self, kind, val=None):
        t = self.peek()
        if t.kind == kind and (val is None or t.val == val):
            self.pos += 1
            return t
        return None

    def expect(self, kind, val=None):
        t = self.next()
        if t.kind != kind or (val is not None and t.val != val):
            raise CorpusError("line %d: expected %s%s, got %r" % (t.line, kind, "" if val is None else " " + str(val), t))
        return t

    # types ---------------------------------------------------------------
    def parse_type(self):
        t = self.next()
        if t.kind == "type":
            return parse_type(t.val)
        if t.kind == "hash" and t.val in self.type_aliases:
            return self.type_aliases[t.val]
        raise CorpusError("line %d: expected a type, got %r" % (t.line, t))

    def at_type(self):
        t = self.peek()
        return t.kind == "type" or (t.kind == "hash" and t.val in self.type_aliases)

    def parse_type_list_paren(self):
        """'(' [type {dict} (',' type {dict})*] ')'"""
        self.expect("(")
        types = []
        if not self.accept(")"):
            while True:
                types.append(self.parse_type())
                if self.peek().kind == "{":
                    self.parse_dict()
                if self.accept(")"):
                    break
                self.expect(",")
        return types

    def parse_result_types(self):
        if self.peek().kind == "(":
            return self.parse_type_list_paren()
        return [self.parse_type()]

    # attributes ------------------------------------------------------------
    def parse_dict(self):
        self.expect("{")
        d = {}
        if self.accept("}"):
            return d
        while True:
            t = self.next()
            if t.kind not in ("id", "str"):
                raise CorpusError("line %d: bad attribute name %r" % (t.line, t))
            if self.accept("="):
                d[t.val] = self.parse_attr()
            else:
                d[t.val] = True
            if self.accept("}"):
                return d
            self.expect(",")

    def parse_attr(self):
        t = self.next()
        if t.kind == "num":
            val = t.val
            if self.peek().kind == ":" and self.peek(1).kind == "id" and self.peek(1).val in _SCALAR_TYPES:
                self.next()
                ty = self.next().val
                if ty.startswith("f") or ty == "bf16":
                    val = float(val)
            return val
        if t.kind == "id" and t.val in ("true", "false"):
            return t.val == "true"
        if t.kind == "id" and t.val == "unit":
            return True
        if t.kind == "str":
            return t.val
        if t.kind == "[":
            items = []
            if self.accept("]"):
                return items
            while True:
                items.append(self.parse_attr())
                if self.accept("]"):
                    return items
                self.expect(",")
        if t.kind == "array":
            body = t.val[len("array<"):-1]
            if ":" not in body:
                return []
            elems = body.split(":", 1)[1].strip()
            if not elems:
                return []
            out = []
            for e in elems.split(","):
                e = e.strip()
                out.append(float(e) if re.search(r"[.eE]", e) else int(e))
            return out
        if t.kind == "dense":
            self.expect(":")
            return Dense(t.val, self.parse_type())
        if t.kind == "{":
            self.pos -= 1
            return self.parse_dict()
        if t.kind == "sym":
            return ("sym", t.val)
        if t.kind == "type":
            return parse_type(t.val)
        if t.kind == "hash":
            return ("attr", t.val)
        raise CorpusError("line %d: bad attribute value %r" % (t.line, t))

    # module ------------------------------------------------------------------
    def parse_module(self):
        funcs = {}
        order = []
        wrapped = False
        if self.peek().kind == "id" and self.peek().val in ("module", "builtin.module"):
            self.next()
            if self.peek().kind == "sym":
                self.next()
            if self.accept("id", "attributes"):
                self.parse_dict()
            self.expect("{")
            wrapped = True
        while True:
            t = self.peek()
            if wrapped and self.accept("}"):
                break
            if t.kind == "eof":
                if wrapped:
                    raise CorpusError("unterminated module")
                break
            if t.kind == "hash" and t.val.startswith("!") and self.peek(1).kind == "=":
                self.next()
                self.next()
                self.type_aliases[t.val] = self.parse_type()
                continue
            if t.kind == "hash" and self.peek(1).kind == "=":
                self.next()
                self.next()
                self.parse_attr()
                continue
            if t.kind == "id" and t.val == "aot.subclass":
                self.next()
                name = self.expect("sym").val
                attrs = self.parse_dict() if self.peek().kind == "{" else {}
                self.classes[name] = attrs
                continue
            f = self.parse_func()
            funcs[f.name] = f
            order.append(f.name)
        self.expect("eof")
        return funcs, order

    def parse_func(self):
        self.expect("id", "func.func")
        private = False
        while self.peek().kind == "id" and self.peek().val in ("private", "public", "nested"):
            private = self.next().val == "private" or private
        f = Func(self.expect("sym").val, private)
        self.expect("(")
        if not self.accept(")"):
            while True:
                if self.peek().kind == "val":
                    name = self.next().val[0]
                    self.expect(":")
                else:
                    name = None
                ty = self.parse_type()
                if self.peek().kind == "{":
                    self.parse_dict()
                f.args.append((name, ty))
                if self.accept(")"):
                    break
                self.expect(",")
        if self.accept("->"):
            f.result_types = self.parse_result_types()
        if self.accept("id", "attributes"):
            self.parse_dict()
        if self.peek().kind == "{":
            self.next()
            f.body = []
            while not self.accept("}"):
                f.body.append(self.parse_stmt())
        return f

    def parse_operands(self):
        ops = []
        if self.peek().kind != "val":
            return ops
        while True:
            ops.append(self.expect("val").val)
            if not (self.peek().kind == "," and self.peek(1).kind == "val"):
                return ops
            self.next()

    def parse_stmt(self):
        op = Op()
        op.line = self.peek().line
        if self.peek().kind == "val":
            while True:
                name, idx = self.expect("val").val
                if idx is not None:
                    raise CorpusError("line %d: bad result name" % op.line)
                count = None
                if self.accept(":"):
                    count = self.expect("num").val
                op.results.append((name, count))
                if self.accept("="):
                    break
                self.expect(",")
        nres = sum(1 if c is None else c for _, c in op.results)
        t = self.next()
        if t.kind == "str":
            # generic form
            op.name = t.val
            self.expect("(")
            if not self.accept(")"):
                op.operands = self.parse_operands()
                self.expect(")")
            if self.peek().kind == "<":
                raise CorpusError("line %d: properties are not supported" % op.line)
            if self.peek().kind == "{":
                op.attrs = self.parse_dict()
            self.expect(":")
            op.operand_types = self.parse_type_list_paren()
            self.expect("->")
            op.result_types = self.parse_result_types()
            if op.name in ("func.call", "call"):
                callee = op.attrs.get("callee")
                op.callee = callee[1] if isinstance(callee, tuple) else callee
            if op.name == "func.return":
                op.name = "return"
        elif t.kind == "id":
            op.name = t.val
            if op.name in ("return", "func.return"):
                op.name = "return"
                op.operands = self.parse_operands()
                if op.operands:
                    self.expect(":")
                    op.operand_types = [self.parse_type()]
                    while self.peek().kind == "," and self.at_type_after_comma():
                        self.next()
                        op.operand_types.append(self.parse_type())
            elif op.name in ("func.call", "call"):
                op.name = "func.call"
                op.callee = self.expect("sym").val
                self.expect("(")
                if not self.accept(")"):
                    op.operands = self.parse_operands()
                    self.expect(")")
                if self.peek().kind == "{":
                    op.attrs = self.parse_dict()
                self.expect(":")
                op.operand_types = self.parse_type_list_paren()
                self.expect("->")
                op.result_types = self.parse_result_types()
            elif op.name == "tensor.constant":
                if self.peek().kind == "{":
                    op.attrs = self.parse_dict()
                d = self.expect("dense")
                self.expect(":")
                ty = self.parse_type()
                op.attrs["value"] = Dense(d.val, ty)
                op.result_types = [ty]
            else:
                op.operands = self.parse_operands()
                if self.peek().kind == "{":
                    op.attrs = self.parse_dict()
                types = []
                if self.accept(":"):
                    types.append(self.parse_type())
                    while self.peek().kind == "," and self.at_type_after_comma():
                        self.next()
                        types.append(self.parse_type())
                if self.accept("->"):
                    op.result_types = self.parse_result_types()
                    op.operand_types = types
                elif not op.operands:
                    op.result_types = types
                else:
                    op.operand_types = types
                    if nres == 1:
                        if len(types) != 1:
                            raise CorpusError("line %d: %s needs `-> R` (operand types differ)" % (op.line, op.name))
                        op.result_types = [types[0]]
                    elif nres > 1:
                        raise CorpusError("line %d: %s: multi-result op needs `-> (...)`" % (op.line, op.name))
                if op.operands and op.operand_types and len(op.operand_types) not in (1, len(op.operands)):
                    raise CorpusError("line %d: %s: %d operand types for %d operands" % (op.line, op.name, len(op.operand_types), len(op.operands)))
        else:
            raise CorpusError("line %d: expected an op, got %r" % (op.line, t))
        if op.name != "return" and len(op.result_types) != nres:
            raise CorpusError("line %d: %s has %d result names but %d result types" % (op.line, op.name, nres, len(op.result_types)))
        return op

    def at_type_after_comma(self):
        t = self.peek(1)
        return t.kind == "type" or (t.kind == "hash" and t.val in self.type_aliases)


def parse_module(src):
    p = Parser(src)
    funcs, order = p.parse_module()
    return funcs, order, p.classes


# --------------------------------------------------------------------------
# Op semantics (PyTorch eager)

INT64_MAX = 2 ** 63 - 1


def _dims(x, attrs):
    dims = attrs.get("dims", [])
    if isinstance(dims, int):
        dims = [dims]
    if not dims:
        dims = list(range(x.dim()))
    return dims


def _flag(attrs, name):
    v = attrs.get(name, False)
    return bool(v)


def _scalar(x, v):
    """Float attribute converted for the tensor's dtype (integral on integer tensors)."""
    if v is None:
        return None
    if x.dtype not in FLOAT_DTYPES and float(v).is_integer():
        return int(v)
    return v


def _reduce(fn):
    def run(ops, attrs, rtypes):
        x = ops[0]
        keep = _flag(attrs, "keepdim")
        if x.dim() == 0:
            return fn(x, None, keep)
        return fn(x, _dims(x, attrs), keep)
    return run


def _sum(x, dims, keep):
    return torch.sum(x) if dims is None else torch.sum(x, dim=dims, keepdim=keep)


def _prod(x, dims, keep):
    # (torch.prod takes one dim: each in turn, kept, then squeezed.)
    if dims is None or len(dims) == 0:
        r = torch.prod(x)
        return r.reshape([1] * x.dim()) if keep else r
    dims = sorted(d % x.dim() for d in dims)
    r = x
    for d in dims:
        r = torch.prod(r, dim=d, keepdim=True)
    return r if keep else r.squeeze(dims)


def _mean(x, dims, keep):
    return torch.mean(x) if dims is None else torch.mean(x, dim=dims, keepdim=keep)


def _amax(x, dims, keep):
    return torch.amax(x) if dims is None else torch.amax(x, dim=dims, keepdim=keep)


def _amin(x, dims, keep):
    return torch.amin(x) if dims is None else torch.amin(x, dim=dims, keepdim=keep)


def _var(ops, attrs, rtypes):
    x = ops[0]
    c = attrs.get("correction", 1)
    keep = _flag(attrs, "keepdim")
    if x.dim() == 0:
        return torch.var(x, correction=c)
    return torch.var(x, dim=_dims(x, attrs), correction=c, keepdim=keep)


def _argmax(ops, attrs, rtypes):
    return torch.argmax(ops[0], dim=attrs.get("dim"), keepdim=_flag(attrs, "keepdim"))


def _argsort(ops, attrs, rtypes):
    x = ops[0]
    if x.dim() == 0:
        return torch.zeros((), dtype=torch.int64)
    return torch.sort(x, dim=attrs["dim"], descending=_flag(attrs, "descending"), stable=True).indices


def _cumsum(ops, attrs, rtypes):
    x, d = ops[0], attrs["dim"]
    if not _flag(attrs, "reverse") or x.dim() == 0:
        return torch.cumsum(x, d)
    return torch.flip(torch.cumsum(torch.flip(x, [d]), d), [d])


def _layer_norm(ops, attrs, rtypes):
    x = ops[0]
    n = attrs["normalized_ndim"]
    w = ops[1] if len(ops) > 1 else None
    b = ops[2] if len(ops) > 2 else None
    return tuple(torch.native_layer_norm(x, list(x.shape[x.dim() - n:]), w, b, float(attrs.get("eps", 1e-5))))


def _full(ops, attrs, rtypes):
    t = rtypes[0]
    return torch.full(t.shape, attrs["value"], dtype=t.dtype)


def _arange(ops, attrs, rtypes):
    t = rtypes[0]
    if len(t.shape) != 1:
        raise CorpusError("tensor.arange result must be 1-D")
    n = t.shape[0]
    start = attrs.get("start", 0)
    step = attrs.get("step", 1)
    r = torch.arange(start, start + n * step, step, dtype=t.dtype)
    if r.numel() != n:
        r = r[:n]
    return r


def _clamp(ops, attrs, rtypes):
    x = ops[0]
    return torch.clamp(x, min=_scalar(x, attrs.get("min")), max=_scalar(x, attrs.get("max")))


def _cast(ops, attrs, rtypes):
    return ops[0].to(rtypes[0].dtype, copy=True)


def _slice(x, attrs):
    end = attrs.get("end", INT64_MAX)
    return torch.ops.aten.slice.Tensor(x, attrs["dim"], attrs.get("start", 0), end, attrs.get("step", 1))


def _squeeze(x, attrs):
    return x.squeeze(attrs["dim"]) if "dim" in attrs else x.squeeze()


def _linear(ops, attrs, rtypes):
    return F.linear(ops[0], ops[1], ops[2] if len(ops) > 2 else None)


def _conv_geometry(attrs, k):
    return (list(attrs.get("stride", [1] * k)), list(attrs.get("padding", [0] * k)),
            list(attrs.get("dilation", [1] * k)), int(attrs.get("groups", 1)))


def _conv_with(x, w, b, attrs):
    st, pad, dil, g = _conv_geometry(attrs, x.dim() - 2)
    return torch.ops.aten.convolution(x, w, b, st, pad, dil, False, [0] * (x.dim() - 2), g)


def _conv(ops, attrs, rtypes):
    return _conv_with(ops[0], ops[1], ops[2] if len(ops) > 2 else None, attrs)


def _conv_input_grad(ops, attrs, rtypes):
    # Autograd's own gradient of a convolution with respect to its input
    # (linear in it, so taken at zeros), kept differentiable.
    g, w = ops
    x0 = torch.zeros(attrs["input_shape"], dtype=w.dtype, requires_grad=True)
    with torch.enable_grad():
        return torch.autograd.grad(_conv_with(x0, w, None, attrs), x0, g, create_graph=True)[0]


def _conv_weight_grad(ops, attrs, rtypes):
    g, x = ops
    shape = [g.shape[1], x.shape[1] // int(attrs.get("groups", 1))] + list(attrs["kernel_size"])
    w0 = torch.zeros(shape, dtype=x.dtype, requires_grad=True)
    with torch.enable_grad():
        return torch.autograd.grad(_conv_with(x, w0, None, attrs), w0, g, create_graph=True)[0]


def _pool_args(attrs, k):
    kernel = list(attrs["kernel_size"])
    stride = list(attrs.get("stride") or kernel)
    return kernel, stride, list(attrs.get("padding", [0] * k))


def _max_pool(ops, attrs, rtypes):
    x = ops[0]
    k = x.dim() - 2
    kernel, stride, padding = _pool_args(attrs, k)
    op = getattr(torch.ops.aten, "max_pool%dd_with_indices" % k)
    return tuple(op(x, kernel, stride, padding, list(attrs.get("dilation", [1] * k)), _flag(attrs, "ceil_mode")))


def _max_pool_grad(ops, attrs, rtypes):
    # What autograd's max-pool backward computes: each output gradient
    # added at its index within its plane (scatter_add keeps it
    # differentiable in the gradient).
    g, idx = ops
    shape = list(attrs["input_shape"])
    n, c = shape[:2]
    out = torch.zeros(n, c, math.prod(shape[2:]), dtype=g.dtype)
    return out.scatter_add(2, idx.reshape(n, c, -1), g.reshape(n, c, -1)).reshape(shape)


def _avg_pool_with(x, attrs):
    k = x.dim() - 2
    kernel, stride, padding = _pool_args(attrs, k)
    include = bool(attrs.get("count_include_pad", True))
    ceil, divisor = _flag(attrs, "ceil_mode"), attrs.get("divisor_override")
    if k == 1:
        # avg_pool1d has no divisor_override: the same pool in 2-d.
        y = torch.ops.aten.avg_pool2d(x.unsqueeze(2), [1] + kernel, [1] + stride, [0] + padding, ceil, include, divisor)
        return y.squeeze(2)
    op = getattr(torch.ops.aten, "avg_pool%dd" % k)
    return op(x, kernel, stride, padding, ceil, include, divisor)


def _avg_pool(ops, attrs, rtypes):
    return _avg_pool_with(ops[0], attrs)


def _avg_pool_grad(ops, attrs, rtypes):
    g = ops[0]
    x0 = torch.zeros(attrs["input_shape"], dtype=g.dtype, requires_grad=True)
    with torch.enable_grad():
        return torch.autograd.grad(_avg_pool_with(x0, attrs), x0, g, create_graph=True)[0]


def _attention(ops, attrs, rtypes):
    # softmax(scale·q·kᵀ + mask)·v with a fully masked row giving zeros and
    # a log-sum-exp of -inf (eager's fused CPU kernel gives the same output).
    # In the compute type (f32 for f16 and bf16), as the fused kernel does.
    dtype, acc = ops[0].dtype, rtypes[1].dtype
    q, k, v = (t.to(acc) for t in ops[:3])
    scale = attrs.get("scale", 1.0 / math.sqrt(q.shape[-1]))
    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    if len(ops) > 3:
        m = ops[3]
        s = s.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else s + m.to(acc)
    if _flag(attrs, "causal"):
        L, S = s.shape[-2:]
        s = s.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float("-inf"))
    lse = torch.logsumexp(s, -1).detach()
    if dtype != acc and s.shape[-1]:
        # Half precision, as the fused kernel rounds: each row's
        # exponentials rounded to the head's type and not normalized, the
        # product with the values, then the reciprocal of the row's sum
        # (of the unrounded exponentials); a row with no key gives zeros.
        m = s.amax(-1, keepdim=True)
        empty = torch.isneginf(m)
        ex = torch.exp(s - torch.where(empty, torch.zeros_like(m), m))
        total = ex.sum(-1, keepdim=True)
        inv = torch.where(empty, torch.zeros_like(total), 1.0 / total)
        return (torch.matmul(ex.to(dtype).to(acc), v) * inv).to(dtype), lse
    p = torch.softmax(s, -1)
    if s.shape[-1]:
        p = torch.where(torch.isneginf(s.amax(-1, keepdim=True)), torch.zeros_like(p), p)
    return torch.matmul(p, v).to(dtype), lse


def _u(fn):
    return lambda ops, attrs, rtypes: fn(ops[0])


def _fma(ops):
    """a·b + c rounded once, as eager's `addcmul(c, a, b)` computes it on its
    vector path (`vec::fmadd`; its scalar tail may or may not be fused):
    the broadcast operands are laid out 64 times over, so that every
    element goes through the vector loop, and the first copy is kept."""
    a, b, c = torch.broadcast_tensors(*ops)
    n = a.numel()
    wide = [x.reshape(-1).repeat(64) for x in (a, b, c)]
    return torch.addcmul(wide[2], wide[0], wide[1])[:n].reshape(a.shape)


def _b(fn):
    return lambda ops, attrs, rtypes: fn(ops[0], ops[1])


def _inplace_same(fn):
    """A metadata mutation: returns the very same Python object."""
    def run(ops, attrs, rtypes):
        x = ops[0]
        r = fn(x, attrs, ops)
        if r is not x:
            raise CorpusError("metadata mutation did not return its operand")
        return r
    return run


def _data_mut(fn):
    def run(ops, attrs, rtypes):
        fn(ops, attrs)
        return None
    return run


def _resize(x, size):
    """`resize_`, with the elements it adds to the storage zeroed: PyTorch
    leaves them uninitialized, aot's contract (docs/reference/semantics.md)
    zero-fills them, so the oracle is deterministic."""
    st = x.untyped_storage()
    before = st.nbytes()
    x.resize_(size)
    st = x.untyped_storage()
    if st.nbytes() > before:
        flat = torch.empty(0, dtype=torch.uint8, device=x.device).set_(st)
        with torch.no_grad():
            flat[before:].zero_()
    return x


def _subclass_wrap(ops, attrs, rtypes):
    import subclasses
    return subclasses.wrap(CURRENT_CLASSES[rtypes[0].cls], ops)


def _subclass_unwrap(ops, attrs, rtypes):
    import subclasses
    return subclasses.unwrap(ops[0])


OPS = {
    "aot.subclass_wrap": _subclass_wrap,
    "aot.subclass_unwrap": _subclass_unwrap,
    # tensor: elementwise binary
    "tensor.add": _b(torch.add),
    "tensor.sub": _b(torch.sub),
    "tensor.mul": _b(torch.mul),
    "tensor.div": _b(torch.div),
    "tensor.pow": _b(torch.pow),
    "tensor.maximum": _b(torch.maximum),
    "tensor.minimum": _b(torch.minimum),
    "tensor.eq": _b(torch.eq),
    "tensor.ne": _b(torch.ne),
    "tensor.lt": _b(torch.lt),
    "tensor.le": _b(torch.le),
    "tensor.gt": _b(torch.gt),
    "tensor.ge": _b(torch.ge),
    "tensor.where": lambda ops, a, r: torch.where(ops[0], ops[1], ops[2]),
    "tensor.fma": lambda ops, a, r: _fma(ops),
    # unary
    "tensor.neg": _u(torch.neg),
    "tensor.abs": _u(torch.abs),
    "tensor.relu": _u(torch.relu),
    "tensor.sign": _u(torch.sign),
    "tensor.exp": _u(torch.exp),
    "tensor.log": _u(torch.log),
    "tensor.log1p": _u(torch.log1p),
    "tensor.expm1": _u(torch.expm1),
    "tensor.floor": _u(torch.floor),
    "tensor.ceil": _u(torch.ceil),
    "tensor.trunc": _u(torch.trunc),
    "tensor.round": _u(torch.round),
    "tensor.fmod": _b(torch.fmod),
    "tensor.remainder": _b(torch.remainder),
    "tensor.floor_divide": _b(torch.floor_divide),
    "tensor.sqrt": _u(torch.sqrt),
    "tensor.rsqrt": _u(torch.rsqrt),
    "tensor.reciprocal": _u(torch.reciprocal),
    "tensor.sin": _u(torch.sin),
    "tensor.cos": _u(torch.cos),
    "tensor.tan": _u(torch.tan),
    "tensor.tanh": _u(torch.tanh),
    "tensor.sigmoid": _u(torch.sigmoid),
    "tensor.silu": _u(torch.nn.functional.silu),
    "tensor.hardswish": _u(F.hardswish),
    "tensor.hardsigmoid": _u(F.hardsigmoid),
    "tensor.log_sigmoid": _u(F.logsigmoid),
    "tensor.elu": lambda ops, a, r: torch.ops.aten.elu(ops[0], a.get("alpha", 1.0), a.get("scale", 1.0),
                                                       a.get("input_scale", 1.0)),
    "tensor.softplus": lambda ops, a, r: F.softplus(ops[0], a.get("beta", 1.0), a.get("threshold", 20.0)),
    "tensor.pow_scalar": lambda ops, a, r: torch.pow(ops[0], a["exponent"]),
    "tensor.clamp_tensor": lambda ops, a, r: torch.clamp(ops[0], ops[1], ops[2]),
    "tensor.mish": _u(F.mish),
    "tensor.bce_logits": lambda ops, a, r: F.binary_cross_entropy_with_logits(ops[0], ops[1], reduction="none"),
    "tensor.logit": lambda ops, a, r: torch.logit(ops[0], a.get("eps")),
    "tensor.glu": lambda ops, a, r: F.glu(torch.cat([ops[0], ops[1]], -1), -1),
    "tensor.lerp": lambda ops, a, r: torch.lerp(ops[0], ops[1], ops[2] if len(ops) == 3 else a["weight"]),
    "tensor.erf": _u(torch.erf),
    "tensor.gelu": lambda ops, a, r: F.gelu(ops[0], approximate=a.get("approximate", "none")),
    "tensor.clamp": _clamp,
    "tensor.cast": _cast,
    # reductions
    "tensor.sum": _reduce(_sum),
    "tensor.prod": _reduce(_prod),
    "tensor.mean": _reduce(_mean),
    "tensor.amax": _reduce(_amax),
    "tensor.amin": _reduce(_amin),
    "tensor.var": _var,
    "tensor.argmax": _argmax,
    "tensor.cumsum": _cumsum,
    "tensor.argsort": _argsort,
    "tensor.softmax": lambda ops, a, r: torch.softmax(ops[0], a["dim"]),
    "tensor.log_softmax": lambda ops, a, r: torch.log_softmax(ops[0], a["dim"]),
    "tensor.layer_norm": _layer_norm,
    # linear algebra / indexing
    "tensor.mm": _b(torch.mm),
    "tensor.bmm": _b(torch.bmm),
    "tensor.matmul": _b(torch.matmul),
    "tensor.linear": _linear,
    "tensor.conv": _conv,
    "tensor.conv_input_grad": _conv_input_grad,
    "tensor.conv_weight_grad": _conv_weight_grad,
    "tensor.attention": _attention,
    "tensor.max_pool": _max_pool,
    "tensor.max_pool_grad": _max_pool_grad,
    "tensor.avg_pool": _avg_pool,
    "tensor.avg_pool_grad": _avg_pool_grad,
    "tensor.embedding": lambda ops, a, r: F.embedding(ops[1], ops[0]),
    "tensor.gather": lambda ops, a, r: torch.gather(ops[0], a["dim"], ops[1]),
    "tensor.index_select": lambda ops, a, r: torch.index_select(ops[0], a["dim"], ops[1]),
    "tensor.scatter_add": lambda ops, a, r: torch.scatter_add(ops[0], a["dim"], ops[1], ops[2]),
    "tensor.cat": lambda ops, a, r: torch.cat(list(ops), a.get("dim", 0)),
    "tensor.clone": lambda ops, a, r: ops[0].clone(memory_format=torch.contiguous_format),
    "tensor.full": _full,
    "tensor.arange": _arange,
    "tensor.constant": lambda ops, a, r: a["value"].to_tensor(),
    # views
    "view.view": lambda ops, a, r: ops[0].view(a["shape"]),
    "view.reshape": lambda ops, a, r: ops[0].reshape(a["shape"]),
    "view.permute": lambda ops, a, r: ops[0].permute(a["dims"]),
    "view.transpose": lambda ops, a, r: ops[0].transpose(a["dim0"], a["dim1"]),
    "view.t": _u(torch.t),
    "view.expand": lambda ops, a, r: ops[0].expand(a["shape"]),
    "view.slice": lambda ops, a, r: _slice(ops[0], a),
    "view.select": lambda ops, a, r: ops[0].select(a["dim"], a["index"]),
    "view.squeeze": lambda ops, a, r: _squeeze(ops[0], a),
    "view.unsqueeze": lambda ops, a, r: ops[0].unsqueeze(a["dim"]),
    "view.diagonal": lambda ops, a, r: torch.diagonal(ops[0], a.get("offset", 0), a.get("dim1", 0), a.get("dim2", 1)),
    "view.as_strided": lambda ops, a, r: torch.as_strided(ops[0], a["size"], a["stride"], a.get("offset", 0)),
    "view.unbind": lambda ops, a, r: tuple(torch.unbind(ops[0], a.get("dim", 0))),
    "view.split": lambda ops, a, r: tuple(torch.split(ops[0], a["sizes"], a.get("dim", 0))),
    "view.alias": lambda ops, a, r: torch.ops.aten.alias(ops[0]),
    "view.detach": lambda ops, a, r: ops[0].detach(),
    "view.slice_scatter": lambda ops, a, r: torch.slice_scatter(
        ops[0], ops[1], a["dim"], a.get("start", 0), a.get("end", INT64_MAX), a.get("step", 1)),
    "view.select_scatter": lambda ops, a, r: torch.select_scatter(ops[0], ops[1], a["dim"], a["index"]),
    "view.diagonal_scatter": lambda ops, a, r: torch.diagonal_scatter(
        ops[0], ops[1], a.get("offset", 0), a.get("dim1", 0), a.get("dim2", 1)),
    "view.as_strided_scatter": lambda ops, a, r: torch.as_strided_scatter(
        ops[0], ops[1], a["size"], a["stride"], a.get("offset", 0)),
    # data mutations
    "mut.copy_": _data_mut(lambda o, a: o[0].copy_(o[1])),
    "mut.add_": _data_mut(lambda o, a: o[0].add_(o[1])),
    "mut.sub_": _data_mut(lambda o, a: o[0].sub_(o[1])),
    "mut.mul_": _data_mut(lambda o, a: o[0].mul_(o[1])),
    "mut.div_": _data_mut(lambda o, a: o[0].div_(o[1])),
    "mut.fill_": _data_mut(lambda o, a: o[0].fill_(_scalar(o[0], a["value"]))),
    "mut.zero_": _data_mut(lambda o, a: o[0].zero_()),
    "mut.relu_": _data_mut(lambda o, a: o[0].relu_()),
    "mut.neg_": _data_mut(lambda o, a: o[0].neg_()),
    "mut.exp_": _data_mut(lambda o, a: o[0].exp_()),
    "mut.sigmoid_": _data_mut(lambda o, a: o[0].sigmoid_()),
    "mut.tanh_": _data_mut(lambda o, a: o[0].tanh_()),
    "mut.clamp_": _data_mut(lambda o, a: o[0].clamp_(_scalar(o[0], a.get("min")), _scalar(o[0], a.get("max")))),
    "mut.index_put_": _data_mut(lambda o, a: o[0].index_put_((o[1],), o[2], _flag(a, "accumulate"))),
    # metadata mutations
    "mut.t_": _inplace_same(lambda x, a, o: x.t_()),
    "mut.transpose_": _inplace_same(lambda x, a, o: x.transpose_(a["dim0"], a["dim1"])),
    "mut.squeeze_": _inplace_same(lambda x, a, o: x.squeeze_(a["dim"]) if "dim" in a else x.squeeze_()),
    "mut.unsqueeze_": _inplace_same(lambda x, a, o: x.unsqueeze_(a["dim"])),
    "mut.as_strided_": _inplace_same(lambda x, a, o: x.as_strided_(a["size"], a["stride"], a.get("offset", 0))),
    "mut.resize_": _inplace_same(lambda x, a, o: _resize(x, a["size"])),
    "mut.set_": _inplace_same(lambda x, a, o: x.set_(o[1])),
}

METADATA_MUTATIONS = {"mut.t_", "mut.transpose_", "mut.squeeze_", "mut.unsqueeze_",
                      "mut.as_strided_", "mut.resize_", "mut.set_"}
NO_RESULT_OPS = {n for n in OPS if n.startswith("mut.")} - METADATA_MUTATIONS
VIEW_ONLY_MUTATIONS = METADATA_MUTATIONS - {"mut.set_"}


FRESH_CONTIGUOUS_OPS = {n for n in OPS if n.startswith("tensor.") or n.endswith("_scatter")}
RESTRIDED = []  # (op name) of results that PyTorch did not make contiguous (debugging aid)


def contiguous_strides(shape):
    strides = []
    acc = 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(strides))


def _contiguous(t):
    if t.stride() == contiguous_strides(t.shape):
        return t
    RESTRIDED.append(t.shape)
    return t.clone(memory_format=torch.contiguous_format)


class TorchError(Exception):
    """PyTorch raised while executing the program: the golden is an error."""


CURRENT_CLASSES = {}


def _check_type(what, t, ty):
    if isinstance(ty, SubclassType):
        cls = CURRENT_CLASSES.get(ty.cls)
        if cls is None or type(t) is not cls:
            raise CorpusError("%s: declared %r but PyTorch gives %s" % (what, ty, type(t).__name__))
    elif isinstance(t, torch.Tensor) and type(t) is not torch.Tensor and not isinstance(t, torch.nn.Parameter):
        raise CorpusError("%s: declared %r but PyTorch gives a %s" % (what, ty, type(t).__name__))
    if not isinstance(t, torch.Tensor):
        raise CorpusError("%s: expected a tensor, got %r" % (what, type(t)))
    if tuple(t.shape) != ty.shape or t.dtype != ty.dtype:
        got = TensorType(t.shape, t.dtype) if t.dtype in DTYPE_NAMES else (tuple(t.shape), t.dtype)
        raise CorpusError("%s: declared %r but PyTorch gives %r" % (what, ty, got))


class Module:
    def __init__(self, src):
        self.funcs, self.order, decls = parse_module(src)
        # Subclass declarations become Python classes (subclasses.py).
        import subclasses
        self.classes = subclasses.classes_for(decls)
        for ty in [t for f in self.funcs.values() for _, t in f.args] + [t for f in self.funcs.values() for t in f.result_types]:
            if isinstance(ty, SubclassType) and ty.cls not in self.classes:
                raise CorpusError("subclass @%s is not declared" % ty.cls)
        global CURRENT_CLASSES
        CURRENT_CLASSES = self.classes

    def entry(self, name=None):
        if name:
            return self.funcs[name]
        public = [f for f in self.order if not self.funcs[f].private and self.funcs[f].body is not None]
        if len(public) == 1:
            return self.funcs[public[0]]
        if "main" in self.funcs:
            return self.funcs["main"]
        raise CorpusError("no entry function: several public functions and no @main")

    def call(self, f, args):
        if not hasattr(self, "touched"):
            self.touched = set()
        if f.body is None:
            raise CorpusError("@%s has no body" % f.name)
        if len(args) != len(f.args):
            raise CorpusError("@%s: %d args given, %d declared" % (f.name, len(args), len(f.args)))
        env = {}
        for i, ((name, ty), a) in enumerate(zip(f.args, args)):
            _check_type("@%s arg %d" % (f.name, i), a, ty)
            env[name] = a

        def get(ref):
            name, idx = ref
            if name not in env:
                raise CorpusError("use of undefined value %%%s" % name)
            v = env[name]
            if idx is None:
                if isinstance(v, list):
                    raise CorpusError("%%%s is a result group; use %%%s#N" % (name, name))
                return v
            if isinstance(v, list):
                return v[idx]
            if idx != 0:
                raise CorpusError("%%%s#%d out of range" % (name, idx))
            return v

        for op in f.body:
            where = "line %d: %s" % (op.line, op.name)
            operands = [get(r) for r in op.operands]
            if op.operand_types:
                tys = op.operand_types * len(operands) if len(op.operand_types) == 1 else op.operand_types
                for k, (v, ty) in enumerate(zip(operands, tys)):
                    _check_type("%s operand %d" % (where, k), v, ty)
            if op.name == "return":
                for k, (v, ty) in enumerate(zip(operands, f.result_types)):
                    _check_type("@%s result %d" % (f.name, k), v, ty)
                if len(operands) != len(f.result_types):
                    raise CorpusError("@%s returns %d values, declares %d" % (f.name, len(operands), len(f.result_types)))
                return operands
            if op.name == "func.call":
                if op.callee not in self.funcs:
                    raise CorpusError("%s: unknown callee @%s" % (where, op.callee))
                ctx = torch.no_grad() if op.attrs.get("aot.no_grad") else contextlib.nullcontext()
                with ctx:
                    results = self.call(self.funcs[op.callee], operands)
            else:
                fn = OPS.get(op.name)
                if fn is None:
                    raise CorpusError("%s: unsupported op" % where)
                ctx = torch.no_grad() if op.attrs.get("aot.no_grad") else contextlib.nullcontext()
                try:
                    with ctx:
                        grad_on = torch.is_grad_enabled()
                        r = fn(operands, op.attrs, op.result_types)
                except (RuntimeError, ValueError, IndexError) as e:
                    raise TorchError(str(e)) from e
                # docs/reference/json.md: autograd sees a mutation made in grad mode of
                # a tensor that (then) requires grad; it changes the history of
                # the tensor's root (its _base for a view; a detached alias is
                # its own root).
                # A metadata mutation alone (t_, transpose_, squeeze_, unsqueeze_,
                # as_strided_, resize_) is not a data mutation: the arg's final
                # value stays out of the objective.
                counted = op.name not in VIEW_ONLY_MUTATIONS
                if op.name.startswith("mut.") and counted and grad_on and operands and operands[0].requires_grad:
                    self.touched.add(id(_history_root(operands[0])))
                if r is None:
                    results = []
                elif isinstance(r, (tuple, list)):
                    results = list(r)
                else:
                    results = [r]
                if op.name in FRESH_CONTIGUOUS_OPS:
                    # docs/reference/semantics.md: pure ops give fresh *contiguous* tensors, where
                    # PyTorch's TensorIterator may keep the input's layout.
                    with ctx:
                        results = [_contiguous(t) for t in results]
                if op.name in NO_RESULT_OPS and op.result_types:
                    raise CorpusError("%s has no results" % where)
            if len(results) != len(op.result_types):
                raise CorpusError("%s: %d results, %d declared" % (where, len(results), len(op.result_types)))
            for k, (v, ty) in enumerate(zip(results, op.result_types)):
                _check_type("%s result %d" % (where, k), v, ty)
            k = 0
            for name, count in op.results:
                if count is None:
                    env[name] = results[k]
                    k += 1
                else:
                    env[name] = results[k:k + count]
                    k += count
        raise CorpusError("@%s: no return" % f.name)


# --------------------------------------------------------------------------
# Inputs and outputs (aot-run JSON, docs/reference/json.md)

def _num(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    if isinstance(v, list):
        return [_num(x) for x in v]
    return v


def _dtype(name):
    if name not in DTYPES:
        raise CorpusError("unknown dtype %r" % name)
    return DTYPES[name]


def _tensor_from(spec, what):
    dt = _dtype(spec["dtype"])
    data = _num(spec["data"])
    t = torch.tensor(data, dtype=dt)
    shape = spec.get("shape")
    if shape is not None:
        if t.numel() != math.prod(shape):
            raise CorpusError("%s: %d values for shape %s" % (what, t.numel(), shape))
        t = t.reshape(shape)
    # a fresh tensor with its own storage (reshape may return a view with a _base)
    return t.clone()


class Inputs:
    """The call's arguments built from an aot-run input file."""

    def __init__(self, spec):
        self.spec = spec
        self.args = []            # the Python objects passed to the function
        self.first = []           # index of the original for each arg
        self.leaf_of_arg = []     # leaf tensor for args that report a gradient, else None
        self.storage_leaf = []    # leaf_s for base storages, else None
        roots = []
        for s, st in enumerate(spec.get("storages", [])):
            t = _tensor_from(st, "storage %d" % s).reshape(-1)
            if st.get("base"):
                if t.dtype not in FLOAT_DTYPES:
                    raise CorpusError("storage %d: a base must be floating point" % s)
                leaf = t.requires_grad_()
                self.storage_leaf.append(leaf)
                roots.append(leaf.clone())
            else:
                self.storage_leaf.append(None)
                roots.append(t)
        for i, a in enumerate(spec["args"]):
            what = "arg %d" % i
            if "same_as" in a:
                k = a["same_as"]
                if not 0 <= k < i:
                    raise CorpusError("%s: bad same_as" % what)
                self.args.append(self.args[k])
                self.first.append(self.first[k])
                self.leaf_of_arg.append(self.leaf_of_arg[k])
                continue
            self.first.append(i)
            if "storage" in a:
                s = a["storage"]
                root = roots[s]
                v = root.as_strided(a["size"], a["stride"], a.get("offset", 0))
                if spec["storages"][s].get("base"):
                    if a.get("requires_grad") is False:
                        raise CorpusError("%s: views of a base storage always require grad" % what)
                    self.args.append(v)
                    self.leaf_of_arg.append(None)
                elif a.get("requires_grad"):
                    if a.get("non_leaf"):
                        raise CorpusError("%s: non_leaf on a storage view; use a base storage" % what)
                    leaf = v.detach().requires_grad_()
                    self.args.append(leaf)
                    self.leaf_of_arg.append(leaf)
                else:
                    self.args.append(v)
                    self.leaf_of_arg.append(None)
                continue
            t = _tensor_from(a, what)
            if a.get("requires_grad"):
                if t.dtype not in FLOAT_DTYPES:
                    raise CorpusError("%s: only floating point args can require grad" % what)
                leaf = t.requires_grad_()
                self.leaf_of_arg.append(leaf)
                self.args.append(leaf.clone() if a.get("non_leaf") else leaf)
            else:
                if a.get("non_leaf"):
                    raise CorpusError("%s: non_leaf without requires_grad" % what)
                self.leaf_of_arg.append(None)
                self.args.append(t)

    def any_grad(self):
        return any(l is not None for l in self.leaf_of_arg) or any(l is not None for l in self.storage_leaf)


def _data(t):
    vals = t.detach().contiguous().flatten().tolist()
    out = []
    for v in vals:
        if isinstance(v, float):
            if math.isnan(v):
                v = "nan"
            elif math.isinf(v):
                v = "inf" if v > 0 else "-inf"
        out.append(v)
    return out


def _storage_id(t):
    return t.untyped_storage()._cdata


def describe(t):
    return {
        "dtype": DTYPE_NAMES[t.dtype],
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "offset": t.storage_offset(),
        "data": _data(t),
    }


def _alias_of(o, args):
    """The first argument sharing a storage with output `o` (through the
    dense tensors of subclass values), else None."""
    sids = {_storage_id(p) for p in _dense_parts(o)}
    for i, a in enumerate(args):
        if any(_storage_id(p) in sids for p in _dense_parts(a)):
            return i
    return None


def _alias_of_output(outs, k):
    """The first output before `k` sharing a storage with output `k`
    (through the dense tensors of subclass values), else None."""
    sids = {_storage_id(p) for p in _dense_parts(outs[k])}
    for i in range(k):
        if any(_storage_id(p) in sids for p in _dense_parts(outs[i])):
            return i
    return None


def _history_root(t):
    return t._base if t._is_view() else t


def run(src, inputs_spec, tangents_spec=None, entry=None, grad=True):
    """Execute and return the aot-run output dict (or {"error": msg}).

    grad=False stops after the forward call (no grads, no backward errors), as
    `aot-run` without `--grad` does. Args changed only by metadata mutations
    (not set_) stay out of the gradient's objective, as docs/reference/json.md
    says.
    """
    torch.manual_seed(0)
    module = Module(src)
    f = module.entry(entry)
    if module.classes:
        return _run_subclass(module, f, inputs_spec, tangents_spec, grad)
    inp = Inputs(inputs_spec)
    args = inp.args
    nargs = len(args)
    # each argument's autograd root before the call
    roots = [_history_root(a) for a in args]
    try:
        outs = module.call(f, args)
    except TorchError as e:
        return {"error": str(e).strip()}

    result = {"outputs": [], "args_after": [describe(a) for a in args]}
    for k, o in enumerate(outs):
        d = describe(o)
        d["requires_grad"] = bool(o.requires_grad)
        d["alias_of_arg"] = _alias_of(o, args)
        d["alias_of_output"] = _alias_of_output(outs, k)
        result["outputs"].append(d)

    if not grad:
        return result
    if not inp.any_grad():
        if tangents_spec is not None:
            raise CorpusError("a tangent file but nothing requires grad")
        return result

    # the objective
    mutated = [i for i in range(nargs)
               if inp.first[i] == i and args[i].requires_grad and id(roots[i]) in module.touched]
    t_out = t_mut = None
    if tangents_spec is not None:
        t_out = tangents_spec.get("outputs")
        t_mut = tangents_spec.get("mutated_args")
        if t_out is not None and len(t_out) != len(outs):
            raise CorpusError("tangents: %d outputs given, %d returned" % (len(t_out), len(outs)))
        if t_mut is not None and len(t_mut) != len(mutated):
            raise CorpusError("tangents: %d mutated_args given, but autograd sees mutations of args %s"
                              % (len(t_mut), mutated))

    def tangent(spec, like, what):
        if spec is None:
            return torch.ones_like(like, memory_format=torch.contiguous_format).detach()
        t = _tensor_from(spec, what)
        if tuple(t.shape) != tuple(like.shape):
            raise CorpusError("%s: shape %s, value has %s" % (what, list(t.shape), list(like.shape)))
        return t.to(like.dtype)

    # Building the objective uses the outputs in grad mode, which raises for
    # a view whose history an in-place change invalidated.
    terms = []
    try:
        for j, o in enumerate(outs):
            if o.requires_grad and o.dtype in FLOAT_DTYPES:
                tj = tangent(t_out[j] if t_out is not None else None, o, "tangent of output %d" % j)
                terms.append((o * tj).sum())
        for k, m in enumerate(mutated):
            tm = tangent(t_mut[k] if t_mut is not None else None, args[m], "tangent of mutated arg %d" % m)
            terms.append((args[m] * tm).sum())
    except RuntimeError as e:
        return {"error": str(e).strip()}

    leaves = []
    for i in range(nargs):
        if inp.first[i] == i and inp.leaf_of_arg[i] is not None:
            leaves.append(inp.leaf_of_arg[i])
    leaves += [l for l in inp.storage_leaf if l is not None]
    grads_of = {}
    if terms:
        L = terms[0].to(torch.float64)
        for t in terms[1:]:
            L = L + t.to(torch.float64)
        if L.requires_grad:
            try:
                gs = torch.autograd.grad(L, leaves, allow_unused=True)
            except RuntimeError as e:
                return {"error": str(e).strip()}
            for leaf, g in zip(leaves, gs):
                grads_of[id(leaf)] = g

    def grad_desc(leaf):
        g = grads_of.get(id(leaf))
        if g is None:
            g = torch.zeros_like(leaf)
        return {"dtype": DTYPE_NAMES[g.dtype], "shape": list(g.shape), "data": _data(g)}

    result["grads"] = [None if l is None else grad_desc(l) for l in inp.leaf_of_arg]
    result["storage_grads"] = [None if l is None else grad_desc(l) for l in inp.storage_leaf]
    return result


# --------------------------------------------------------------------------
# Programs with tensor subclasses (subclasses.py; docs/reference/json.md)

def _flatten_subclass_args(module, f, spec):
    """A dense input spec plus, per argument, how to rebuild it:
    ("dense", d) | ("sub", cls, [children], requires_grad) | ("same", k)."""
    dense = []
    plans = []

    def flat(a, ty, what, rg):
        if "same_as" in a:
            k = a["same_as"]
            if isinstance(k, list):
                raise CorpusError("%s: same_as paths are not supported by the golden generator" % what)
            return ("same", k)
        if isinstance(ty, SubclassType) or "subclass" in a:
            if not isinstance(ty, SubclassType) or a.get("subclass") != ty.cls:
                raise CorpusError("%s: subclass mismatch with the declared type %r" % (what, ty))
            cls = module.classes[ty.cls]
            decl_inner = ["a", "b"] if cls.__name__ == "TwoTensor" and not hasattr(cls, "INNER_CLASSES") else list(cls.INNER)
            inner_classes = list(getattr(cls, "INNER_CLASSES", ("",) * len(decl_inner)))
            if len(a["inner"]) != len(decl_inner):
                raise CorpusError("%s: wrong number of inner tensors" % what)
            own_rg = a.get("requires_grad", False) if rg is None else rg
            children = []
            for j, (x, ic) in enumerate(zip(a["inner"], inner_classes)):
                cty = SubclassType(ic, ty.tensor) if ic else ty.tensor
                children.append(flat(x, cty, "%s inner %d" % (what, j), False))
            return ("sub", cls, children, own_rg if rg is None else False)
        if rg is not None and a.get("requires_grad"):
            raise CorpusError("%s: inner tensors take requires_grad from the subclass" % what)
        dense.append(dict(a))
        return ("dense", len(dense) - 1)

    for i, (a, (_, ty)) in enumerate(zip(spec["args"], f.args)):
        plans.append(flat(a, ty, "arg %d" % i, None))
    return {"storages": spec.get("storages", []), "args": dense}, plans


def _describe_any(module, t, top):
    import subclasses
    if subclasses.is_subclass(t):
        d = {"subclass": type(t).__name__, "dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape),
             "inner": [_describe_any(module, c, False) for c in subclasses.components(t)]}
        meta = getattr(type(t), "META", None)
        if meta is not None:
            d["meta"] = meta
        return d
    return describe(t)


def _dense_parts(t):
    import subclasses
    if subclasses.is_subclass(t):
        return [p for c in subclasses.components(t) for p in _dense_parts(c)]
    return [t]


def _grad_any(g, like):
    import subclasses
    if g is None:
        g = torch.zeros_like(like)
    if subclasses.is_subclass(g):
        d = {"subclass": type(g).__name__, "dtype": DTYPE_NAMES[g.dtype], "shape": list(g.shape),
             "inner": [_grad_any(c, c) for c in subclasses.components(g)]}
        meta = getattr(type(g), "META", None)
        if meta is not None:
            d["meta"] = meta
        return d
    return {"dtype": DTYPE_NAMES[g.dtype], "shape": list(g.shape), "data": _data(g)}


def _tangent_any(module, spec, like, what):
    import subclasses
    if spec is None:
        return torch.ones_like(like).detach()
    if isinstance(spec, dict) and "subclass" in spec:
        cls = module.classes[spec["subclass"]]
        comps = [_tangent_any(module, x, c, what) for x, c in zip(spec["inner"], subclasses.components(like))]
        return cls(*comps)
    dense_like = _dense_parts(like)[0]
    t = _tensor_from(spec if isinstance(spec, dict) else {"dtype": DTYPE_NAMES[dense_like.dtype],
                                                          "shape": list(dense_like.shape), "data": spec}, what)
    return t.to(dense_like.dtype)


def _run_subclass(module, f, inputs_spec, tangents_spec, grad):
    dense_spec, plans = _flatten_subclass_args(module, f, inputs_spec)
    inp = Inputs(dense_spec)
    args = []
    leaf_of_arg = []

    def build(p):
        if p[0] == "dense":
            return inp.args[p[1]], inp.leaf_of_arg[p[1]]
        if p[0] == "same":
            return args[p[1]], leaf_of_arg[p[1]]
        _, cls, children, rg = p
        comps = [build(c)[0] for c in children]
        x = cls(*comps)
        if rg:
            x.requires_grad_()
            return x, x
        return x, None

    for p in plans:
        a, leaf = build(p)
        args.append(a)
        leaf_of_arg.append(leaf)
    roots = [_history_root(a) for a in args]
    try:
        outs = module.call(f, args)
    except TorchError as e:
        return {"error": str(e).strip()}
    result = {"outputs": [], "args_after": [_describe_any(module, a, False) for a in args]}
    for k, o in enumerate(outs):
        d = _describe_any(module, o, True)
        d["requires_grad"] = bool(o.requires_grad)
        d["alias_of_arg"] = _alias_of(o, args)
        d["alias_of_output"] = _alias_of_output(outs, k)
        result["outputs"].append(d)
    if not grad:
        return result
    leaves = [l for i, l in enumerate(leaf_of_arg) if l is not None and plans[i][0] != "same"]
    leaves += [l for l in inp.storage_leaf if l is not None]
    if not leaves:
        return result
    first = [i if plans[i][0] != "same" else plans[i][1] for i in range(len(args))]
    mutated = [i for i in range(len(args))
               if first[i] == i and args[i].requires_grad and id(roots[i]) in module.touched]
    t_out = (tangents_spec or {}).get("outputs")
    if (tangents_spec or {}).get("mutated_args") is not None:
        raise CorpusError("mutated_args tangents are not supported by the subclass golden generator")
    terms, seeds = [], []
    try:
        for j, o in enumerate(outs):
            if o.requires_grad and o.dtype in FLOAT_DTYPES:
                tj = _tangent_any(module, t_out[j] if t_out is not None else None, o, "tangent of output %d" % j)
                terms.append((o * tj).sum())
        for m in mutated:
            terms.append((args[m] * torch.ones_like(args[m]).detach()).sum())
    except RuntimeError as e:
        return {"error": str(e).strip()}
    grads_of = {}
    terms = [t for t in terms if t.requires_grad]
    if terms:
        try:
            gs = torch.autograd.grad(terms, leaves, grad_outputs=[torch.ones_like(t) for t in terms],
                                     allow_unused=True)
        except RuntimeError as e:
            return {"error": str(e).strip()}
        for leaf, g in zip(leaves, gs):
            grads_of[id(leaf)] = g
    result["grads"] = [None if l is None else _grad_any(grads_of.get(id(l)), l) for l in leaf_of_arg]
    result["storage_grads"] = [None if l is None else _grad_any(grads_of.get(id(l)), l) for l in inp.storage_leaf]
    return result


# --------------------------------------------------------------------------
# Stable, readable JSON

def dumps(obj, indent=0):
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = ["%s  %s: %s" % (pad, json.dumps(k), dumps(obj[k], indent + 1)) for k in sorted(obj)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(x, (dict, list)) for x in obj):
            return "[" + ", ".join(json.dumps(x) for x in obj) + "]"
        items = ["%s  %s" % (pad, dumps(x, indent + 1)) for x in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    if isinstance(obj, float) and (math.isnan(obj) or math.isinf(obj)):
        raise ValueError("non-finite float must be a string")
    return json.dumps(obj)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--tangents")
    ap.add_argument("--entry")
    ns = ap.parse_args(argv)
    torch.set_num_threads(1)
    with open(ns.file) as fh:
        src = fh.read()
    with open(ns.inputs) as fh:
        inputs = json.load(fh)
    tangents = None
    if ns.tangents:
        with open(ns.tangents) as fh:
            tangents = json.load(fh)
    print(dumps(run(src, inputs, tangents, ns.entry)))


if __name__ == "__main__":
    main()
