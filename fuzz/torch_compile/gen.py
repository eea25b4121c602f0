#!/usr/bin/env python3
"""Seeded generator of random Python programs for differential fuzzing of
``torch.compile(f, backend="aot")`` against PyTorch eager.

``generate(seed)`` returns a :class:`Program`: a function ``f`` written as
Python source text (so a failure reads as a program) and the source of
``make_inputs(g)``, which builds its arguments from a ``torch.Generator``:
leaves and non-leaves (``b0 * 1``), some requiring grad, duplicates (the same
tensor passed twice), views of one storage (disjoint, overlapping,
interleaved, transposed, expanded slices of one base). ``make_inputs``
returns ``(args, bases)``: the arguments and every tensor it created first,
whose values and ``.grad`` are compared after the call too.

The body (3-12 statements) mixes view ops, in-place data and metadata ops,
``with torch.no_grad():`` blocks, graph breaks (``torch._dynamo.graph_break()``,
``.item()``, ``.tolist()``), ops aot has no counterpart for, and pure ops;
it returns inputs, views of inputs, intermediates and tuples of them. Shapes
are tracked so that most programs run; PyTorch's runtime errors (an in-place
write to a leaf that requires grad, to an expanded tensor, ``view`` of
incompatible strides) are not avoided: a program eager rejects must be
rejected when compiled too.

A program is a JSON-able dict (``Program.to_dict``) so that the runner can
ship it to a worker and the minimizer can drop statements, returns and
arguments and write it back out as text.

Standard library only.  Usage: ``gen.py SEED`` prints the program.
"""

import argparse
import json
import math
import random
import sys

FLOAT = ("f32", "f64")
TORCH_DTYPE = {"f32": "torch.float32", "f64": "torch.float64"}


def numel(shape):
    return math.prod(shape)


def _ir_gen():
    """fuzz/torch/gen.py (the IR-level generator, standard library only),
    whose shape rules this generator shares."""
    import importlib.util
    import os

    name = "aot_torch_fuzz_ir_gen"
    if name not in sys.modules:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "torch", "gen.py")
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


broadcast = _ir_gen().broadcast
broadcasts_to = _ir_gen().broadcasts_to


def fmt_shape(shape):
    return ", ".join(str(d) for d in shape)


def fmt_tuple(xs):
    if len(xs) == 1:
        return "(%s,)" % xs[0]
    return "(%s)" % ", ".join(str(x) for x in xs)


def contiguous_strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= max(d, 1)
    return list(reversed(out))


# -- the program ------------------------------------------------------------
#
# A statement is {"src": "v1 = a0.t()"} or {"with": "torch.no_grad()", "body": [statements]}.


def render_body(stmts, indent):
    out = []
    for s in stmts:
        if "with" in s:
            out.append("%swith %s:" % (indent, s["with"]))
            inner = render_body(s["body"], indent + "    ")
            out.extend(inner if inner else [indent + "    pass"])
        else:
            out.append(indent + s["src"])
    return out


class Program:
    """``bases``: [{"name", "shape", "dtype", "rg"}] created by make_inputs;
    ``pre``: [(name, expr)] non-leaves made in make_inputs and not passed
    (the bases of views); ``args``: [(name, expr)] (expr over bases, pre
    and earlier args);
    ``body``: statements; ``ret``: returned expressions; ``ret_style``:
    ``single`` (return x), ``tuple`` (return (x, y)), ``nested`` (return x, (y, z))."""

    def __init__(self, seed, bases, args, body, ret, ret_style="tuple", pre=()):
        self.seed = seed
        self.bases = bases
        self.pre = [tuple(x) for x in pre]
        self.args = args
        self.body = body
        self.ret = ret
        self.ret_style = ret_style

    def to_dict(self):
        return {"seed": self.seed, "bases": self.bases, "pre": [list(a) for a in self.pre],
                "args": [list(a) for a in self.args], "body": self.body, "ret": self.ret, "ret_style": self.ret_style}

    @classmethod
    def from_dict(cls, d):
        return cls(d["seed"], d["bases"], [tuple(a) for a in d["args"]], d["body"], d["ret"], d.get("ret_style", "tuple"),
                   d.get("pre", ()))

    def setup_source(self):
        lines = ["def make_inputs(g):"]
        for b in self.bases:
            extra = "" if b.get("dtype", "f32") == "f32" else ", dtype=%s" % TORCH_DTYPE[b["dtype"]]
            rg = ".requires_grad_()" if b.get("rg") else ""
            lines.append("    %s = torch.randn(%s, generator=g%s)%s" % (b["name"], fmt_shape(b["shape"]) or "()", extra, rg))
        for name, expr in self.pre + self.args:
            lines.append("    %s = %s" % (name, expr))
        lines.append("    return [%s], [%s]" % (", ".join(n for n, _ in self.args), ", ".join(b["name"] for b in self.bases)))
        return "\n".join(lines) + "\n"

    def return_line(self):
        r = self.ret
        if not r:
            return "return None"
        if self.ret_style == "single" and len(r) == 1:
            return "return %s" % r[0]
        if self.ret_style == "nested" and len(r) >= 3:
            return "return %s, (%s)" % (r[0], ", ".join(r[1:]))
        return "return %s" % fmt_tuple(r)

    def function_source(self):
        lines = ["def f(%s):" % ", ".join(n for n, _ in self.args)]
        lines.extend(render_body(self.body, "    "))
        lines.append("    " + self.return_line())
        return "\n".join(lines) + "\n"

    def source(self):
        """The whole program: ``import torch``, ``f`` and ``make_inputs``."""
        return "import torch\n\n\n" + self.function_source() + "\n\n" + self.setup_source()

    def nstmts(self):
        def count(ss):
            return sum(count(s["body"]) + 1 if "with" in s else 1 for s in ss)
        return count(self.body)


# -- generation ---------------------------------------------------------------


class Val:
    """A name in the program: its shape and dtype (None: unknown), and a few
    facts the generator steers by."""

    def __init__(self, name, shape, dtype="f32", obj=None, contig=True, off=None, stor=None, root=None,
                 overlap=False, scalar=False):
        self.name = name
        self.shape = list(shape) if shape is not None else None
        self.dtype = dtype
        self.obj = obj if obj is not None else name  # same Python object <=> same obj
        self.contig = contig  # known contiguous (a `view` cannot fail)
        self.off = off  # known storage offset
        self.stor = stor  # known storage size (elements)
        self.root = root  # the argument index whose storage this views, if any
        self.overlap = overlap  # elements share memory (expand, stride 0)
        self.scalar = scalar  # a Python number, not a tensor


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.vals = []
        self.scalars = []
        self.count = 0
        self.nscalar = 0
        self.in_no_grad = False

    # helpers
    def fresh(self):
        self.count += 1
        return "v%d" % (self.count - 1)

    def chance(self, p):
        return self.r.random() < p

    def const(self, lo=-2.0, hi=2.0):
        return round(self.r.uniform(lo, hi), 2)

    def scalar_operand(self):
        if self.scalars and self.chance(0.35):
            return self.r.choice(self.scalars).name
        return repr(self.const())

    def pick(self, pred=lambda v: True, prefer_args=0.0):
        c = [v for v in self.vals if not v.scalar and v.shape is not None and pred(v)]
        if not c:
            return None
        if prefer_args and self.chance(prefer_args):
            a = [v for v in c if v.root is not None]
            if a:
                c = a
        # favour recent values: that is where aliasing gets interesting
        w = [1 + i for i in range(len(c))]
        return self.r.choices(c, weights=w)[0]

    def isfloat(self, v):
        return v.dtype in FLOAT

    def add(self, name, shape, dtype, **kw):
        v = Val(name, shape, dtype, **kw)
        self.vals.append(v)
        return v

    def view_of(self, x, name, shape, contig=False, keep_off=False, overlap=None):
        return self.add(name, shape, x.dtype, contig=contig, off=x.off if keep_off else None,
                        stor=x.stor if keep_off else None, root=x.root,
                        overlap=x.overlap if overlap is None else overlap)

    def fresh_val(self, name, shape, dtype):
        return self.add(name, shape, dtype, contig=True, off=0, stor=numel(shape))

    def dim(self, rank):
        d = self.r.randrange(rank)
        if self.chance(0.2):
            d -= rank
        return d

    def rand_shape(self):
        rank = self.r.choice([1, 1, 2, 2, 2, 2, 3])
        if rank == 1:
            return [self.r.choice([1, 2, 3, 4, 5])]
        if rank == 2:
            return [self.r.choice([1, 2, 3, 3, 4]), self.r.choice([2, 3, 4, 5])]
        return [self.r.choice([1, 2]), self.r.choice([2, 3]), self.r.choice([2, 3])]

    # -- arguments ------------------------------------------------------------
    def gen_args(self):
        r = self.r
        bases, args, pre = [], [], []
        self.pre = pre
        nargs = r.choice([1, 2, 2, 2, 3, 3])

        def base(shape, rg, dtype="f32"):
            b = {"name": "b%d" % len(bases), "shape": shape, "dtype": dtype, "rg": rg}
            bases.append(b)
            return b["name"]

        def arg(expr, shape, contig, off0, stor, obj=None, overlap=False, dtype="f32"):
            k = len(args)
            name = "a%d" % k
            args.append((name, expr))
            self.add(name, shape, dtype, obj=obj or name, contig=contig, off=0 if off0 else None,
                     stor=stor, root=k, overlap=overlap)

        while len(args) < nargs:
            kind = r.random()
            if args and kind < 0.15:  # a duplicate: the same tensor twice
                k = r.randrange(len(args))
                src = self.vals[k]
                arg(args[k][0], src.shape, src.contig, src.off == 0, src.stor, obj=src.obj, overlap=src.overlap,
                    dtype=src.dtype)
                continue
            if kind < 0.6 or len(args) + 1 >= nargs and kind < 0.7:
                shape = self.rand_shape()
                dtype = "f64" if self.chance(0.08) else "f32"
                rg = self.chance(0.5)
                b = base(shape, rg, dtype)
                if rg and self.chance(0.6):  # a non-leaf
                    arg(r.choice(["%s * 1", "%s.clone() * 1", "%s + 0"]) % b, shape, True, True, numel(shape),
                        dtype=dtype)
                else:
                    arg(b, shape, True, True, numel(shape), dtype=dtype)
                continue
            # views of one storage
            rg = self.chance(0.4)
            layout = r.choice(["disjoint", "overlapping", "interleaved", "transposed", "expanded", "rows"])
            n = r.choice([2, 3, 4])
            m = r.choice([2, 3])
            if layout == "expanded":
                b = base([m], rg)
            elif layout == "interleaved":
                b = base([2 * n], rg)
            else:
                b = base([n + 1, m], rg)
            src = b
            if rg and self.chance(0.6):  # views of a non-leaf
                src = "n%d" % len(pre)
                pre.append((src, "%s * 1" % b))
            if layout == "disjoint":
                k = r.randrange(1, n + 1)
                views = [("%s[:%d]" % (src, k), [k, m]), ("%s[%d:]" % (src, k), [n + 1 - k, m])]
            elif layout == "overlapping":
                views = [("%s[:%d]" % (src, n), [n, m]), ("%s[1:]" % src, [n, m])]
            elif layout == "interleaved":
                views = [("%s[::2]" % src, [n]), ("%s[1::2]" % src, [n])]
            elif layout == "transposed":
                views = [("%s.t()" % src, [m, n + 1]), ("%s[1]" % src, [m])]
            elif layout == "expanded":
                views = [("%s.expand(%d, %d)" % (src, n, m), [n, m])]
            else:
                views = [("%s[1:, 1:]" % src, [n, m - 1]), ("%s[:, 0]" % src, [n + 1])]
            if r.random() < 0.3:
                views = views[:1]
            for expr, shape in views[: max(1, nargs - len(args))]:
                arg(expr, shape, contig=False, off0=False, stor=None, overlap=(layout == "expanded"))
        return bases, args

    # -- statements -------------------------------------------------------------
    def stmt(self, depth=0):
        r = self.r
        k = r.random()
        if depth == 0 and k < 0.09:
            return self.no_grad_block()
        if depth == 0 and k < 0.16:
            return self.graph_break()
        if k < 0.40:
            return self.view_op()
        if k < 0.66:
            return self.inplace_op()
        if k < 0.70:
            return self.meta_op()
        return self.pure_op()

    def no_grad_block(self):
        self.in_no_grad = True
        body = []
        for _ in range(self.r.choice([1, 1, 2])):
            s = None
            for _ in range(5):
                s = self.inplace_op() if self.chance(0.6) else self.stmt(depth=1)
                if s:
                    break
            if s:
                body.append(s)
        self.in_no_grad = False
        return {"with": "torch.no_grad()", "body": body} if body else None

    def graph_break(self):
        r = self.r
        k = r.random()
        if k < 0.5:
            return {"src": "torch._dynamo.graph_break()"}
        x = self.pick(lambda v: self.isfloat(v))
        if x is None:
            return {"src": "torch._dynamo.graph_break()"}
        name = "s%d" % self.nscalar
        self.nscalar += 1
        if k < 0.8 or len(x.shape) == 0:
            src = "%s = %s.sum().item()" % (name, x.name)
        else:
            src = "%s = %s.reshape(-1).tolist()[0]" % (name, x.name)
        v = Val(name, [], "f32", scalar=True)
        self.scalars.append(v)
        return {"src": src}

    # views
    def view_op(self):
        r = self.r
        x = self.pick(lambda v: numel(v.shape) > 0, prefer_args=0.5)
        if x is None:
            return None
        rank = len(x.shape)
        s = x.shape
        kind = r.choice(["view", "reshape", "permute", "transpose", "t", "expand", "slice", "slice", "select",
                         "squeeze", "unsqueeze", "diagonal", "as_strided", "unbind", "split", "narrow", "detach",
                         "flatten"])
        name = self.fresh()
        if kind in ("view", "reshape", "flatten"):
            n = numel(s)
            opts = [[n]]
            for a in range(2, n):
                if n % a == 0:
                    opts.append([a, n // a])
            opts.append([1] + s)
            new = r.choice(opts)
            if kind == "flatten":
                if rank == 0:
                    return None
                self.view_of(x, name, [n], contig=x.contig, keep_off=x.contig)
                return {"src": "%s = %s.flatten()" % (name, x.name)}
            if kind == "view" and not x.contig and self.chance(0.8):
                kind = "reshape"
            txt = "-1" if new == [n] and self.chance(0.5) else fmt_shape(new)
            if x.contig:
                self.view_of(x, name, new, contig=True, keep_off=True)
            else:
                self.add(name, new, x.dtype, root=None if kind == "reshape" else x.root)
            return {"src": "%s = %s.%s(%s)" % (name, x.name, kind, txt)}
        if kind == "permute" and rank >= 2:
            dims = list(range(rank))
            r.shuffle(dims)
            self.view_of(x, name, [s[d] for d in dims], keep_off=True)
            return {"src": "%s = %s.permute(%s)" % (name, x.name, ", ".join(map(str, dims)))}
        if kind == "transpose" and rank >= 2:
            d0, d1 = self.dim(rank), self.dim(rank)
            ns = list(s)
            ns[d0], ns[d1] = ns[d1], ns[d0]
            self.view_of(x, name, ns, keep_off=True)
            return {"src": "%s = %s.transpose(%d, %d)" % (name, x.name, d0, d1)}
        if kind == "t" and rank == 2:
            self.view_of(x, name, [s[1], s[0]], keep_off=True)
            return {"src": "%s = %s.t()" % (name, x.name)}
        if kind == "expand" and rank <= 2:
            lead = [r.choice([2, 3])] if self.chance(0.5) or 1 not in s else []
            ns = lead + [r.choice([2, 3]) if d == 1 and self.chance(0.7) else d for d in s]
            txt = [("-1" if (i >= len(lead) and self.chance(0.3)) else str(d)) for i, d in enumerate(ns)]
            self.view_of(x, name, ns, keep_off=True, overlap=True)
            return {"src": "%s = %s.expand(%s)" % (name, x.name, ", ".join(txt))}
        if kind == "slice" and rank >= 1:
            d = r.randrange(rank)
            n = s[d]
            if n < 2:
                return None
            start = r.randrange(0, n - 1)
            stop = r.randrange(start + 1, n + 1)
            step = r.choice([1, 1, 1, 2])
            ln = (stop - start + step - 1) // step
            sl = "%s:%s%s" % (start or "", "" if stop == n else stop, ":%d" % step if step > 1 else "")
            if self.chance(0.2) and stop == n and start > 0:
                sl = "%d:" % (start - n)  # negative start
                ln = n - start
                step = 1
            idx = ", ".join([":"] * d + [sl]) if d < rank - 1 or rank == 1 or self.chance(0.5) else "..., " + sl
            ns = list(s)
            ns[d] = ln
            contig = x.contig and d == 0 and step == 1
            self.view_of(x, name, ns, contig=contig, keep_off=(x.contig and d == 0 and start == 0))
            return {"src": "%s = %s[%s]" % (name, x.name, idx)}
        if kind == "select" and rank >= 1:
            d = r.randrange(rank)
            i = r.randrange(s[d])
            if self.chance(0.2):
                i -= s[d]
            ns = s[:d] + s[d + 1:]
            self.view_of(x, name, ns, contig=x.contig and d == 0)
            if d == 0 and self.chance(0.6):
                return {"src": "%s = %s[%d]" % (name, x.name, i)}
            return {"src": "%s = %s.select(%d, %d)" % (name, x.name, d, i)}
        if kind == "squeeze":
            ones = [d for d in range(rank) if s[d] == 1]
            if ones and self.chance(0.7):
                d = r.choice(ones)
                self.view_of(x, name, s[:d] + s[d + 1:], contig=x.contig, keep_off=True)
                return {"src": "%s = %s.squeeze(%d)" % (name, x.name, d)}
            self.view_of(x, name, [e for e in s if e != 1], contig=x.contig, keep_off=True)
            return {"src": "%s = %s.squeeze()" % (name, x.name)}
        if kind == "unsqueeze":
            d = r.randrange(rank + 1)
            self.view_of(x, name, s[:d] + [1] + s[d:], contig=x.contig, keep_off=True)
            if d == 0 and self.chance(0.3):
                return {"src": "%s = %s[None]" % (name, x.name)}
            return {"src": "%s = %s.unsqueeze(%d)" % (name, x.name, d)}
        if kind == "diagonal" and rank >= 2:
            off = r.choice([0, 0, 1, -1])
            n = max(0, min(s[0] - max(0, -off), s[1] - max(0, off)))
            if n == 0:
                return None
            self.view_of(x, name, s[2:] + [n])
            return {"src": "%s = %s.diagonal(%s)" % (name, x.name, off if off else "")}
        if kind == "as_strided" and x.stor is not None and x.off is not None:
            avail = x.stor - x.off
            for _ in range(10):
                nd = r.choice([1, 2, 2])
                size = [r.choice([1, 2, 3]) for _ in range(nd)]
                stride = [r.choice([0, 1, 1, 2, 3]) for _ in range(nd)]
                span = sum((a - 1) * b for a, b in zip(size, stride))
                if span < avail:
                    break
            else:
                return None
            extra = ""
            if x.off == 0 and span + 1 < avail and self.chance(0.3):
                extra = ", 1"
            ovl = any(st == 0 and sz > 1 for sz, st in zip(size, stride)) or x.overlap
            if nd == 2 and size[0] > 1 and size[1] > 1 and 0 < stride[0] < size[1] * stride[1] and stride[1] > 0:
                ovl = True  # rows overlap
            self.view_of(x, name, size, contig=(stride == contiguous_strides(size)) and not extra, overlap=ovl)
            return {"src": "%s = %s.as_strided(%s, %s%s)" % (name, x.name, fmt_tuple(size), fmt_tuple(stride), extra)}
        if kind in ("unbind", "split", "narrow") and rank >= 1:
            d = r.randrange(rank)
            n = s[d]
            if kind == "narrow":
                if n < 2:
                    return None
                st = r.randrange(n - 1)
                ln = r.randrange(1, n - st + 1)
                ns = list(s)
                ns[d] = ln
                self.view_of(x, name, ns, contig=x.contig and d == 0)
                return {"src": "%s = %s.narrow(%d, %d, %d)" % (name, x.name, d, st, ln)}
            if kind == "unbind":
                ns = s[:d] + s[d + 1:]
                if 2 <= n <= 3 and self.chance(0.6):
                    names = [name] + [self.fresh() for _ in range(n - 1)]
                    for nm in names:
                        self.view_of(x, nm, ns, contig=x.contig and d == 0)
                    return {"src": "%s = %s.unbind(%d)" % (", ".join(names), x.name, d)}
                i = r.randrange(n)
                self.view_of(x, name, ns, contig=x.contig and d == 0)
                return {"src": "%s = %s.unbind(%d)[%d]" % (name, x.name, d, i)}
            # split
            size = r.choice([1, 2])
            if n < 2:
                return None
            chunks = [min(size, n - i) for i in range(0, n, size)]
            if 2 <= len(chunks) <= 3 and self.chance(0.5):
                names = [name] + [self.fresh() for _ in range(len(chunks) - 1)]
                for nm, c in zip(names, chunks):
                    ns = list(s)
                    ns[d] = c
                    self.view_of(x, nm, ns, contig=x.contig and d == 0)
                return {"src": "%s = %s.split(%d, %d)" % (", ".join(names), x.name, size, d)}
            i = r.randrange(len(chunks))
            ns = list(s)
            ns[d] = chunks[i]
            self.view_of(x, name, ns, contig=x.contig and d == 0)
            return {"src": "%s = %s.split(%d, %d)[%d]" % (name, x.name, size, d, i)}
        if kind == "detach":
            self.view_of(x, name, s, contig=x.contig, keep_off=True)
            return {"src": "%s = %s.detach()" % (name, x.name)}
        return None

    # in-place data ops
    def source_for(self, shape, allow_scalar=True):
        """A value broadcastable to shape (a name), or a Python scalar."""
        c = self.pick(lambda v: self.isfloat(v) and broadcasts_to(v.shape, shape))
        if c is not None and (not allow_scalar or self.chance(0.65)):
            return c.name
        if not allow_scalar:
            return None
        return self.scalar_operand()

    def index_tensor(self, n, k=None, dupes=False, negative=True):
        k = k or self.r.choice([1, 2, 2, 3])
        if dupes:
            idx = [self.r.randrange(n) for _ in range(k)]
        else:
            idx = self.r.sample(range(n), min(k, n))
        if negative and self.chance(0.15):  # (index_select takes no negative index)
            idx = [i - n for i in idx]
        return "torch.tensor([%s])" % ", ".join(map(str, idx)), len(idx)

    def inplace_op(self):
        r = self.r

        def ok(v):
            if not self.isfloat(v) or numel(v.shape) == 0:
                return False
            return not v.overlap or self.chance(0.15)

        t = self.pick(ok, prefer_args=0.6)
        if t is None:
            return None
        s = t.shape
        kind = r.choice(["arith", "arith", "augassign", "copy", "fill", "zero", "unary", "index_put", "setitem",
                         "setitem", "masked_fill"])
        bind = self.chance(0.2)
        if kind == "arith":
            op = r.choice(["add_", "sub_", "mul_", "div_"])
            if op == "div_":
                src = repr(r.choice([2.0, -4.0, 0.5]))
            else:
                src = self.source_for(s)
            alpha = ", alpha=%s" % self.const() if op in ("add_", "sub_") and self.chance(0.2) else ""
            call = "%s.%s(%s%s)" % (t.name, op, src, alpha)
        elif kind == "augassign":
            op = r.choice(["+=", "-=", "*="])
            return {"src": "%s %s %s" % (t.name, op, self.source_for(s))}
        elif kind == "copy":
            src = self.source_for(s, allow_scalar=False)
            if src is None:
                return None
            call = "%s.copy_(%s)" % (t.name, src)
        elif kind == "fill":
            call = "%s.fill_(%s)" % (t.name, self.scalar_operand())
        elif kind == "zero":
            call = "%s.zero_()" % t.name
        elif kind == "unary":
            call = "%s.%s" % (t.name, r.choice(["relu_()", "sigmoid_()", "neg_()", "tanh_()", "clamp_(-0.5, 0.5)",
                                                "clamp_(min=0.1)", "abs_()"]))
        elif kind == "index_put":
            if len(s) == 0:
                return None
            acc = self.chance(0.5)
            idx, k = self.index_tensor(s[0], dupes=acc)
            vs = [k] + s[1:]
            src = self.source_for(vs, allow_scalar=False)
            if src is None or self.chance(0.3):
                src = "torch.tensor(%s)" % self.const()
            call = "%s.index_put_((%s,), %s%s)" % (t.name, idx, src, ", accumulate=True" if acc else "")
        elif kind == "masked_fill":
            call = "%s.masked_fill_(%s > %s, %s)" % (t.name, t.name, self.const(-0.5, 0.5), self.scalar_operand())
        else:  # setitem
            if len(s) == 0:
                return None
            k = r.random()
            if k < 0.35 and s[0] >= 2:
                a = r.randrange(1, s[0])
                key, ts = ("%d:" % a, [s[0] - a] + s[1:]) if self.chance(0.5) else (":%d" % a, [a] + s[1:])
            elif k < 0.55:
                i = r.randrange(s[0])
                key, ts = str(i), s[1:]
            elif k < 0.7 and len(s) >= 2:
                i = r.randrange(s[-1])
                key, ts = "..., %d" % i, s[:-1]
            elif k < 0.85:
                idx, n = self.index_tensor(s[0])
                key, ts = idx, [n] + s[1:]
            else:
                return {"src": "%s[%s > %s] = %s" % (t.name, t.name, self.const(-0.5, 0.5), self.scalar_operand())}
            return {"src": "%s[%s] = %s" % (t.name, key, self.source_for(ts))}
        if bind:
            name = self.fresh()
            self.add(name, s, t.dtype, obj=t.obj, contig=t.contig, off=t.off, stor=t.stor, root=t.root,
                         overlap=t.overlap)
            return {"src": "%s = %s" % (name, call)}
        return {"src": call}

    # in-place metadata ops
    def meta_op(self):
        r = self.r
        t = self.pick(lambda v: True, prefer_args=0.6)
        if t is None:
            return None
        s = t.shape
        rank = len(s)
        k = r.choice(["t_", "transpose_", "unsqueeze_", "squeeze_", "as_strided_"])
        if k == "t_" and rank == 2:
            ns, call = [s[1], s[0]], "t_()"
        elif k == "transpose_" and rank >= 2:
            d0, d1 = r.sample(range(rank), 2)
            ns = list(s)
            ns[d0], ns[d1] = ns[d1], ns[d0]
            call = "transpose_(%d, %d)" % (d0, d1)
        elif k == "unsqueeze_" and rank < 3:
            d = r.randrange(rank + 1)
            ns, call = s[:d] + [1] + s[d:], "unsqueeze_(%d)" % d
        elif k == "squeeze_" and 1 in s:
            d = s.index(1)
            ns, call = s[:d] + s[d + 1:], "squeeze_(%d)" % d
        elif k == "as_strided_" and t.stor is not None and t.off is not None and t.stor - t.off >= 2:
            avail = t.stor - t.off
            n = r.randrange(1, min(avail, 4) + 1)
            ns, call = [n], "as_strided_((%d,), (1,))" % n
        else:
            return None
        for v in self.vals:
            if v.obj == t.obj:
                v.shape = list(ns)
                v.contig = False
        return {"src": "%s.%s" % (t.name, call)}

    # pure ops
    def pure_op(self):
        r = self.r
        x = self.pick(lambda v: self.isfloat(v))
        if x is None:
            return None
        s = x.shape
        rank = len(s)
        name = self.fresh()
        k = r.random()
        dt = x.dtype
        if k < 0.22:
            tmpl = r.choice(["-{x}", "{x}.exp()", "torch.tanh({x})", "{x}.sigmoid()", "{x}.relu()", "{x}.abs()",
                             "torch.sin({x})", "torch.nn.functional.gelu({x})", "{x} * {c}", "{x} + {c}",
                             "{x}.pow(2)", "{x}.sqrt()", "{c} - {x}", "{x} / 3.0", "{x} * {s}"])
            if "{s}" in tmpl and not self.scalars:
                tmpl = "{x} * {c}"
            src = tmpl.format(x=x.name, c=self.const(), s=r.choice(self.scalars).name if self.scalars else "")
            self.fresh_val(name, s, dt)
        elif k < 0.38:
            y = self.pick(lambda v: self.isfloat(v) and broadcast(v.shape, s) is not None) or x
            op = r.choice(["+", "-", "*", "/", "max"])
            bs = broadcast(s, y.shape)
            ndt = "f64" if "f64" in (dt, y.dtype) else "f32"
            if op == "max":
                src = "torch.maximum(%s, %s)" % (x.name, y.name)
            else:
                src = "%s %s %s" % (x.name, op, y.name)
            self.fresh_val(name, bs, ndt)
        elif k < 0.48:
            if rank == 0 or self.chance(0.25):
                src = "%s.%s()" % (x.name, r.choice(["sum", "mean"]))
                self.fresh_val(name, [], dt)
            else:
                d = self.dim(rank)
                keep = self.chance(0.3)
                fn = r.choice(["sum", "sum", "mean", "amax"])
                src = "%s.%s(%d%s)" % (x.name, fn, d, ", keepdim=True" if keep else "")
                ns = list(s)
                if keep:
                    ns[d] = 1
                else:
                    del ns[d]
                self.fresh_val(name, ns, dt)
        elif k < 0.55:
            if rank == 2:
                y = self.pick(lambda v: self.isfloat(v) and len(v.shape) == 2 and v.shape[0] == s[1] and v.dtype == dt)
                if y is not None and self.chance(0.6):
                    src, ns = "%s @ %s" % (x.name, y.name), [s[0], y.shape[1]]
                elif self.chance(0.5):
                    src, ns = "%s @ %s.t()" % (x.name, x.name), [s[0], s[0]]
                else:
                    src, ns = "torch.mm(%s.t(), %s)" % (x.name, x.name), [s[1], s[1]]
            elif rank == 1:
                src, ns = "%s @ %s" % (x.name, x.name), []
            elif rank == 0:
                return None
            else:
                # Attention over the last two dimensions (queries x keys);
                # keys and values computed from the queries so that the
                # shapes agree, with eager's masks and scales.
                kw = r.choice(["", ", is_causal=True", ", scale=0.3",
                               ", attn_mask=torch.ones(%d, %d, dtype=torch.bool).tril()" % (s[-2], s[-2]),
                               ", attn_mask=%s[..., :1] * 0.5" % x.name])
                src = "torch.nn.functional.scaled_dot_product_attention(%s, %s.tanh(), %s * 0.5%s)" % (
                    x.name, x.name, x.name, kw)
                ns = list(s)
            self.fresh_val(name, ns, dt)
        elif k < 0.6 and rank >= 1:
            d = self.dim(rank)
            fn = r.choice(["%s.softmax(%d)", "torch.log_softmax(%s, %d)"])
            src = fn % (x.name, d)
            self.fresh_val(name, s, dt)
        elif k < 0.66 and rank >= 1:
            d = r.randrange(rank)
            y = self.pick(lambda v: v.dtype == dt and len(v.shape) == rank and all(
                a == b for i, (a, b) in enumerate(zip(v.shape, s)) if i != d))
            if y is None or self.chance(0.3):
                src = "torch.cat([%s, %s * 2], %d)" % (x.name, x.name, d)
                ns = list(s)
                ns[d] *= 2
            elif self.chance(0.2) and y.shape == s:
                src = "torch.stack([%s, %s])" % (x.name, y.name)
                ns = [2] + s
            else:
                src = "torch.cat([%s, %s], %d)" % (x.name, y.name, d)
                ns = list(s)
                ns[d] += y.shape[d]
            self.fresh_val(name, ns, dt)
        elif k < 0.72:
            y = self.pick(lambda v: self.isfloat(v) and v.dtype == dt and broadcasts_to(v.shape, s))
            other = y.name if y is not None and self.chance(0.7) else "0.0"
            if self.chance(0.5):
                src = "torch.where(%s > %s, %s, %s)" % (x.name, self.const(-0.5, 0.5), x.name, other)
            else:
                src = "%s.masked_fill(%s < %s, %s)" % (x.name, x.name, self.const(-0.5, 0.5), self.const())
            self.fresh_val(name, s, dt)
        elif k < 0.8:
            c = r.choice(["clone", "clone", "contiguous", "float", "double"])
            ndt = {"float": "f32", "double": "f64"}.get(c, dt)
            src = "%s.%s()" % (x.name, c)
            if c == "contiguous" and x.contig:
                # contiguous() of a contiguous tensor is that tensor
                self.add(name, s, dt, obj=x.obj, contig=True, off=x.off, stor=x.stor, root=x.root, overlap=x.overlap)
                return {"src": "%s = %s" % (name, src)}
            if (c == "float" and dt == "f32") or (c == "double" and dt == "f64"):
                self.add(name, s, dt, obj=x.obj, contig=x.contig, off=x.off, stor=x.stor, root=x.root,
                         overlap=x.overlap)
                return {"src": "%s = %s" % (name, src)}
            self.fresh_val(name, s, ndt)
        elif k < 0.87 and rank >= 1:
            # advanced indexing reads
            kk = r.random()
            if kk < 0.4:
                idx, n = self.index_tensor(s[0], dupes=True)
                src, ns = "%s[%s]" % (x.name, idx), [n] + s[1:]
            elif kk < 0.6 and rank >= 2:
                idx, n = self.index_tensor(s[1], dupes=True)
                src, ns = "%s[:, %s]" % (x.name, idx), [s[0], n] + s[2:]
            elif kk < 0.8:
                idx, n = self.index_tensor(s[0], negative=False)
                src, ns = "torch.index_select(%s, 0, %s)" % (x.name, idx), [n] + s[1:]
            else:
                src, ns = "%s[%s > 0].sum()" % (x.name, x.name), []
            self.fresh_val(name, ns, dt)
        elif k < 0.93:
            # comparisons (bool)
            src = "%s > %s" % (x.name, self.const(-0.5, 0.5))
            self.fresh_val(name, s, "bool")
        else:
            # ops aot may have no counterpart for (they run in PyTorch)
            if rank == 0:
                return None
            d = r.randrange(rank)
            tmpl = r.choice(["{x}.cumsum({d})", "{x}.flip({d})", "{x}.roll(1, {d})", "{x}.sort({d}).values",
                             "{x}.cumprod({d})", "torch.erfinv({x}.tanh())"])
            if "tril" in tmpl and rank < 2:
                return None
            src = tmpl.format(x=x.name, d=d)
            self.fresh_val(name, s, dt)
        return {"src": "%s = %s" % (name, src)}

    # returns
    def returns(self):
        r = self.r
        cands = [v for v in self.vals if not v.scalar]
        n = r.choice([1, 1, 2, 2, 3])
        out = []
        for _ in range(n):
            k = r.random()
            if k < 0.25:
                pool = [v for v in cands if v.name.startswith("a")]
            elif k < 0.45:
                pool = [v for v in cands if v.root is not None and not v.name.startswith("a")]
            else:
                pool = [v for v in cands if not v.name.startswith("a")]
            pool = pool or cands
            # recent values more often
            v = r.choices(pool, weights=[1 + i for i in range(len(pool))])[0]
            out.append(v.name)
        if self.scalars and self.chance(0.1):
            out.append(r.choice(self.scalars).name)
        if len(out) == 1 and self.chance(0.4):
            style = "single"
        elif len(out) >= 3 and self.chance(0.3):
            style = "nested"
        else:
            style = "tuple"
        return out, style

    def program(self):
        bases, args = self.gen_args()
        pre = self.pre
        body = []
        target = self.r.randint(3, 12)
        tries = 0
        while len(body) < target and tries < 100:
            tries += 1
            s = self.stmt()
            if s:
                body.append(s)
        ret, style = self.returns()
        return Program(self.seed, bases, args, body, ret, style, pre)


def generate(seed):
    return Gen(seed).program()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--json", action="store_true", help="print the program as JSON")
    a = ap.parse_args()
    p = generate(a.seed)
    if a.json:
        json.dump(p.to_dict(), sys.stdout, indent=1)
        print()
    else:
        sys.stdout.write(p.source())


if __name__ == "__main__":
    main()
