#!/usr/bin/env python3
"""Seeded generator of random aot IR programs for differential testing against PyTorch.

`generate(seed)` returns a `Case`: a function `@main` in the generic op form
(which both `aot-run` and `test/golden/torch_ref.py` parse) and its `aot-run`
input JSON. The generator tracks the static type of every SSA value and the
(lower bound of the) storage size behind it, so every program it writes is
type-correct by the op catalogue: result shapes are computed as PyTorch
computes them, metadata mutations kill their operand (and every SSA name of
the same object), and `as_strided` views stay inside their storage. It does
*not* avoid PyTorch's runtime errors (leaf mutation, overlap, no_grad views
written in grad mode, view on incompatible strides): those are part of the
semantics the oracle checks, so programs that raise are useful too.

Programs are short (3-12 ops) and mix views with data and metadata
mutations, some under `{aot.no_grad}`, some through detached aliases, over
arguments that may be duplicates, views of one storage (disjoint,
interleaved, overlapping, self-overlapping, with offsets), leaves or
non-leaves, views of a differentiable base.

This module needs only the Python standard library (the self-test pipes its
output through `aot-opt` without torch).

Usage: gen.py SEED [--out DIR]   (prints the program, or writes prog.mlir and inputs.json)
"""

import argparse
import json
import math
import os
import random

F32 = "f32"


def ttype(shape, dtype=F32):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def numel(shape):
    return math.prod(shape)


def contiguous_strides(shape):
    out = []
    acc = 1
    for d in reversed(shape):
        out.append(acc)
        acc *= max(d, 1)
    return list(reversed(out))


def broadcast(a, b):
    """PyTorch broadcast of two shapes, or None."""
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def broadcasts_to(src, dst):
    return len(src) <= len(dst) and broadcast(src, dst) == list(dst)


def fmt_attr(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return "%d : i64" % v
    if isinstance(v, float):
        t = repr(v)
        if "e" in t and "." not in t:
            t = t.replace("e", ".0e")
        return "%s : f64" % t
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(str(x) for x in v) + "]"
    raise TypeError(v)


class Value:
    """An SSA value: its static type, storage bound and a few flags the generator steers by."""

    def __init__(self, name, shape, dtype=F32, stor=None, contig=True, obj=None):
        self.name = name
        self.shape = list(shape)
        self.dtype = dtype
        self.stor = numel(shape) if stor is None else stor  # lower bound of the storage's numel
        self.contig = contig
        self.obj = obj if obj is not None else name  # same Python object <=> same obj id
        self.alive = True
        # approximate autograd state, only to steer away from the commonest
        # PyTorch errors (mutating a leaf, resizing a tensor that requires grad)
        self.rg = False
        self.leafgrad = False


class Case:
    def __init__(self, seed, text, inputs, nops):
        self.seed = seed
        self.text = text
        self.inputs = inputs
        self.nops = nops


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.lines = []
        self.vals = []
        self.count = 0
        self.args = []
        self.nops = 0

    # -- helpers -----------------------------------------------------------
    def fresh(self):
        self.count += 1
        return "%%v%d" % (self.count - 1)

    def live(self, dtype=F32, min_rank=0, max_rank=9):
        return [v for v in self.vals if v.alive and v.dtype == dtype and min_rank <= len(v.shape) <= max_rank]

    def pick(self, **kw):
        c = self.live(**kw)
        if not c:
            return None
        # favour recent values: that is where the aliasing gets interesting
        w = [1 + i for i in range(len(c))]
        return self.r.choices(c, weights=w)[0]

    def data(self, n):
        return [round(self.r.uniform(-2, 2), 4) for _ in range(n)]

    def nograd(self):
        return self.r.random() < 0.2

    def emit(self, name, operands, attrs, results, no_grad=False):
        """results: list of Value (possibly empty); returns them."""
        attrs = dict(attrs)
        parts = ["%s = %s" % (k, fmt_attr(v)) for k, v in attrs.items()]
        if no_grad:
            parts.append("aot.no_grad")
        a = (" {" + ", ".join(parts) + "}") if parts else ""
        otys = ", ".join(ttype(o.shape, o.dtype) for o in operands)
        if len(results) == 1:
            rtys = ttype(results[0].shape, results[0].dtype)
        else:
            rtys = "(" + ", ".join(ttype(v.shape, v.dtype) for v in results) + ")"
        lhs = ""
        if len(results) == 1:
            lhs = results[0].name + " = "
        elif len(results) > 1:
            base = self.fresh()
            lhs = "%s:%d = " % (base, len(results))
            for i, v in enumerate(results):
                v.name = "%s#%d" % (base, i)
        self.lines.append('  %s"%s"(%s)%s : (%s) -> %s' % (
            lhs, name, ", ".join(o.name for o in operands), a, otys, rtys))
        self.vals.extend(results)
        self.nops += 1
        return results

    def new(self, shape, dtype=F32, **kw):
        return Value(self.fresh(), shape, dtype, **kw)

    def view_of(self, x, shape, contig=False):
        v = Value(self.fresh(), shape, x.dtype, stor=x.stor, contig=contig)
        v.rg, v.leafgrad = x.rg, x.leafgrad
        return v

    def full(self, shape, value=None, no_grad=False):
        if value is None:
            value = round(self.r.uniform(-2, 2), 2)
        return self.emit("tensor.full", [], {"value": float(value)}, [self.new(shape)], no_grad)[0]

    def const(self, shape, dtype, values):
        body = "[" + ", ".join(str(v) for v in values) + "]" if shape else str(values[0])
        v = self.new(shape, dtype)
        self.lines.append('  %s = "tensor.constant"() {value = dense<%s> : %s} : () -> %s' % (
            v.name, body, ttype(shape, dtype), ttype(shape, dtype)))
        self.vals.append(v)
        self.nops += 1
        return v

    def rand_shape(self, max_rank=3):
        rank = self.r.choice([0, 1, 1, 2, 2, 2, 3][: 1 + max_rank * 2])
        return [self.r.choice([1, 2, 2, 3, 4]) for _ in range(rank)]

    def dim(self, rank, allow_neg=True):
        d = self.r.randrange(rank)
        if allow_neg and self.r.random() < 0.25:
            d -= rank
        return d

    # -- arguments ---------------------------------------------------------
    def gen_args(self):
        r = self.r
        storages = []
        specs = []
        shapes = []
        nargs = r.choice([1, 1, 2, 2, 2, 3])
        i = 0
        while i < nargs:
            kind = r.random()
            if i > 0 and kind < 0.15:
                k = r.randrange(i)
                specs.append({"same_as": k})
                shapes.append((shapes[k][0], shapes[k][1], specs[k].get("same_as", k)))
                i += 1
                continue
            if kind < 0.55 or i + 1 >= nargs and kind < 0.7:
                shape = self.rand_shape()
                spec = {"dtype": F32, "shape": shape, "data": self.data(numel(shape))}
                if r.random() < 0.5:
                    spec["requires_grad"] = True
                    if r.random() < 0.5:
                        spec["non_leaf"] = True
                specs.append(spec)
                shapes.append((shape, numel(shape), i))
                i += 1
                continue
            # views of one storage: one or several args
            layout = r.choice(["disjoint", "interleaved", "overlapping", "self-overlap", "offset"])
            base = r.random() < 0.35
            grad = (not base) and r.random() < 0.3
            views = []
            n = r.choice([2, 3, 4])
            if layout == "disjoint":
                views = [([n], [1], 0), ([n], [1], n)]
                size = 2 * n + r.choice([0, 1])
            elif layout == "interleaved":
                views = [([n], [2], 0), ([n], [2], 1)]
                size = 2 * n
            elif layout == "overlapping":
                m = r.choice([2, 3])
                views = [([n, m], [m, 1], 0), ([n, m], [m, 1], r.choice([1, m]))]
                size = n * m + m
            elif layout == "self-overlap":
                views = [r.choice([([n, 2], [1, 1], 0), ([n, 2], [1, 0], 1), ([2, n], [0, 1], 0), ([n], [0], 2)])]
                size = n + 3
            else:
                views = [([n, 2], [2, 1], r.choice([1, 3])), ([2], [1], 0)]
                size = 2 * n + 3
            views = views[: max(1, min(len(views), nargs - i))]
            sidx = len(storages)
            st = {"dtype": F32, "data": self.data(size)}
            if base:
                st["base"] = True
            storages.append(st)
            for sz, sd, off in views:
                spec = {"storage": sidx, "size": sz, "stride": sd, "offset": off}
                if grad:
                    spec["requires_grad"] = True
                specs.append(spec)
                shapes.append((sz, size, i))
                i += 1
        # optionally one i64 or non-grad extra arg is not needed: indices are constants
        inputs = {"args": specs}
        if storages:
            inputs["storages"] = storages
        sig = []
        for k, (shape, stor, obj) in enumerate(shapes):
            v = Value("%%arg%d" % k, shape, stor=stor, contig=("storage" not in specs[k]), obj="arg%d" % obj)
            spec = specs[obj]
            base = "storage" in spec and storages[spec["storage"]].get("base")
            v.rg = bool(spec.get("requires_grad") or base)
            v.leafgrad = bool(spec.get("requires_grad") and not spec.get("non_leaf") and not base)
            self.vals.append(v)
            self.args.append(v)
            sig.append("%%arg%d: %s" % (k, ttype(shape)))
        return inputs, sig

    # -- ops ---------------------------------------------------------------
    def op_view(self):
        r = self.r
        x = self.pick()
        if x is None:
            return
        rank = len(x.shape)
        ng = self.nograd()
        kinds = ["reshape", "view", "permute", "transpose", "t", "expand", "slice", "select", "squeeze",
                 "unsqueeze", "diagonal", "as_strided", "unbind", "split", "alias", "detach"]
        k = r.choice(kinds)
        if k in ("reshape", "view"):
            shape = self.factor(numel(x.shape))
            out = [numel(x.shape) // max(1, numel([d for d in shape if d != -1])) if d == -1 else d for d in shape]
            contig = x.contig
            if k == "view" and not x.contig and r.random() < 0.7:
                k = "reshape"
            return self.emit("view." + k, [x], {"shape": shape}, [self.view_of(x, out, contig)], ng)
        if k == "permute" and rank >= 1:
            dims = list(range(rank))
            r.shuffle(dims)
            return self.emit("view.permute", [x], {"dims": dims}, [self.view_of(x, [x.shape[d] for d in dims])], ng)
        if k == "transpose" and rank >= 1:
            d0, d1 = self.dim(rank), self.dim(rank)
            s = list(x.shape)
            s[d0], s[d1] = s[d1], s[d0]
            return self.emit("view.transpose", [x], {"dim0": d0, "dim1": d1}, [self.view_of(x, s)], ng)
        if k == "t" and rank <= 2:
            return self.emit("view.t", [x], {}, [self.view_of(x, list(reversed(x.shape)))], ng)
        if k == "expand":
            lead = [r.choice([2, 3])] if r.random() < 0.3 else []
            s = lead + [r.choice([2, 3]) if d == 1 and r.random() < 0.6 else d for d in x.shape]
            if r.random() < 0.2 and s:
                s[-1] = -1 if len(s) > len(lead) else s[-1]
            out = [x.shape[i - len(lead)] if d == -1 else d for i, d in enumerate(s)]
            return self.emit("view.expand", [x], {"shape": s}, [self.view_of(x, out)], ng)
        if k == "slice" and rank >= 1:
            d = self.dim(rank)
            n = x.shape[d]
            start = r.randrange(0, n + 1) if r.random() < 0.7 or n == 0 else -r.randrange(1, n + 1)
            end = r.choice([n, n + 5, r.randrange(0, n + 1), -1])
            step = r.choice([1, 1, 2, 3])
            s0 = start + n if start < 0 else start
            e0 = min(end + n if end < 0 else end, n)
            s0 = max(0, min(s0, n))
            ln = max(0, (e0 - s0 + step - 1) // step)
            if ln == 0:
                return
            s = list(x.shape)
            s[d] = ln
            return self.emit("view.slice", [x], {"dim": d, "start": start, "end": end, "step": step},
                             [self.view_of(x, s)], ng)
        if k == "select" and rank >= 1:
            d = self.dim(rank)
            n = x.shape[d]
            if n == 0:
                return  # nothing to select from an empty dimension
            idx = r.randrange(n)
            if r.random() < 0.25:
                idx -= n
            s = list(x.shape)
            del s[d]
            return self.emit("view.select", [x], {"dim": d, "index": idx}, [self.view_of(x, s)], ng)
        if k == "squeeze":
            if rank >= 1 and r.random() < 0.7:
                d = self.dim(rank)
                s = list(x.shape)
                if s[d] == 1:
                    del s[d]
                return self.emit("view.squeeze", [x], {"dim": d}, [self.view_of(x, s)], ng)
            return self.emit("view.squeeze", [x], {}, [self.view_of(x, [d for d in x.shape if d != 1])], ng)
        if k == "unsqueeze":
            d = r.randrange(-(rank + 1), rank + 1)
            s = list(x.shape)
            s.insert(d if d >= 0 else d + rank + 1, 1)
            return self.emit("view.unsqueeze", [x], {"dim": d}, [self.view_of(x, s)], ng)
        if k == "diagonal" and rank >= 2:
            d1 = self.dim(rank)
            d2 = self.dim(rank)
            if (d1 % rank) == (d2 % rank):
                return
            off = r.choice([0, 0, 1, -1])
            a, b = x.shape[d1], x.shape[d2]
            ln = max(0, min(a, b - off) if off >= 0 else min(a + off, b))
            s = [n for i, n in enumerate(x.shape) if i not in (d1 % rank, d2 % rank)] + [ln]
            return self.emit("view.diagonal", [x], {"offset": off, "dim1": d1, "dim2": d2}, [self.view_of(x, s)], ng)
        if k == "as_strided":
            size, stride, off = self.strided_in(x.stor)
            return self.emit("view.as_strided", [x], {"size": size, "stride": stride, "offset": off},
                             [self.view_of(x, size)], ng)
        if k == "unbind" and rank >= 1:
            d = self.dim(rank)
            n = x.shape[d]
            if n > 4:
                return
            s = list(x.shape)
            del s[d]
            return self.emit("view.unbind", [x], {"dim": d}, [self.view_of(x, s) for _ in range(n)], ng)
        if k == "split" and rank >= 1:
            d = self.dim(rank)
            n = x.shape[d]
            sizes = []
            left = n
            while left > 0:
                c = r.randint(1, left)
                sizes.append(c)
                left -= c
            if len(sizes) > 4:
                return
            outs = []
            for c in sizes:
                s = list(x.shape)
                s[d] = c
                outs.append(self.view_of(x, s))
            return self.emit("view.split", [x], {"dim": d, "sizes": sizes}, outs, ng)
        if k in ("alias", "detach"):
            v = self.view_of(x, x.shape, x.contig)
            if k == "detach":
                v.rg = v.leafgrad = False
            return self.emit("view." + k, [x], {}, [v], ng)

    def factor(self, n):
        r = self.r
        if n == 0:
            return r.choice([[0], [0, 2], [2, 0]])
        if n == 1:
            return r.choice([[], [1], [1, 1]])
        out = []
        m = n
        while m > 1:
            divs = [d for d in range(2, m + 1) if m % d == 0]
            d = r.choice(divs)
            out.append(d)
            m //= d
        r.shuffle(out)
        if r.random() < 0.2:
            out.insert(r.randrange(len(out) + 1), 1)
        if r.random() < 0.15 and out:
            out[r.randrange(len(out))] = -1
        return out

    def strided_in(self, stor):
        r = self.r
        if stor == 0:
            # An empty storage holds only empty views (the loop below would
            # never fit one element into it).
            return [0], [1], 0
        rank = r.choice([0, 1, 1, 2])
        size = [r.choice([1, 2, 3]) for _ in range(rank)]
        stride = [r.choice([0, 1, 1, 2, 3]) for _ in range(rank)]
        ext = sum((s - 1) * t for s, t in zip(size, stride))
        while ext + 1 > stor and rank:
            size = [1 if s > 1 and t > 0 else s for s, t in zip(size, stride)]
            ext = sum((s - 1) * t for s, t in zip(size, stride))
            if ext + 1 > stor:
                size, stride, ext = [1] * rank, [1] * rank, 0
        off = r.randrange(0, max(1, stor - ext))
        return size, stride, off

    def src_for(self, dst):
        """A value broadcastable to dst's shape (maybe an alias of it)."""
        r = self.r
        c = [v for v in self.live() if v is not dst and broadcasts_to(v.shape, dst.shape)]
        if c and r.random() < 0.6:
            return r.choice(c)
        if r.random() < 0.5:
            return self.full([])
        shape = list(dst.shape[r.randrange(len(dst.shape) + 1):]) if dst.shape else []
        return self.full(shape)

    def op_mut(self):
        r = self.r
        x = self.pick()
        if x is None:
            return
        ng = self.nograd()
        if r.random() < 0.15:
            # write through a detached alias: autograd does not see it
            x = self.emit("view.detach", [x], {}, [self.view_of(x, x.shape, x.contig)])[0]
            x.rg = x.leafgrad = False
        if x.leafgrad and not ng and r.random() < 0.8:
            ng = True
        k = r.choice(["copy_", "add_", "sub_", "mul_", "div_", "fill_", "zero_", "relu_", "neg_", "exp_",
                      "sigmoid_", "tanh_", "clamp_", "index_put_", "copy_", "add_", "mul_"])
        if k in ("copy_", "add_", "sub_", "mul_", "div_"):
            s = self.src_for(x)
            self.emit("mut." + k, [x, s], {}, [], ng)
        elif k == "fill_":
            self.emit("mut.fill_", [x], {"value": float(round(r.uniform(-3, 3), 2))}, [], ng)
        elif k == "clamp_":
            a = {}
            if r.random() < 0.7:
                a["min"] = float(round(r.uniform(-1, 0.5), 2))
            if r.random() < 0.7 or not a:
                a["max"] = float(round(r.uniform(0.5, 1.5), 2))
            self.emit("mut.clamp_", [x], a, [], ng)
        elif k == "index_put_":
            if not x.shape or x.shape[0] == 0:
                return
            n = x.shape[0]
            acc = r.random() < 0.4
            kk = r.randint(1, n if not acc else n + 1)
            idx = [r.randrange(n) for _ in range(kk)] if acc else r.sample(range(n), min(kk, n))
            if r.random() < 0.2:
                idx = [i - n for i in idx]
            iv = self.const([len(idx)], "i64", idx)
            vshape = [len(idx)] + x.shape[1:]
            if r.random() < 0.3:
                vshape = x.shape[1:]
            vals = self.pick_shape(vshape) or self.full(vshape)
            self.emit("mut.index_put_", [x, iv, vals], {"accumulate": acc}, [], ng)
        else:
            self.emit("mut." + k, [x], {}, [], ng)

    def pick_shape(self, shape):
        c = [v for v in self.live() if v.shape == list(shape)]
        return self.r.choice(c) if c and self.r.random() < 0.5 else None

    def kill(self, x):
        for v in self.vals:
            if v.obj == x.obj:
                v.alive = False

    def op_meta(self):
        r = self.r
        x = self.pick()
        if x is None:
            return
        rank = len(x.shape)
        ng = self.nograd() or r.random() < 0.3
        k = r.choice(["t_", "transpose_", "squeeze_", "unsqueeze_", "as_strided_", "resize_", "set_"])
        new = None
        attrs = {}
        ops = [x]
        if k == "t_" and rank <= 2:
            new = list(reversed(x.shape))
        elif k == "transpose_" and rank >= 1:
            d0, d1 = self.dim(rank), self.dim(rank)
            new = list(x.shape)
            new[d0], new[d1] = new[d1], new[d0]
            attrs = {"dim0": d0, "dim1": d1}
        elif k == "squeeze_":
            if rank and r.random() < 0.6:
                d = self.dim(rank)
                new = list(x.shape)
                if new[d] == 1:
                    del new[d]
                attrs = {"dim": d}
            else:
                new = [d for d in x.shape if d != 1]
        elif k == "unsqueeze_":
            d = r.randrange(-(rank + 1), rank + 1)
            new = list(x.shape)
            new.insert(d if d >= 0 else d + rank + 1, 1)
            attrs = {"dim": d}
        elif k == "as_strided_":
            size, stride, off = self.strided_in(x.stor)
            new = size
            attrs = {"size": size, "stride": stride, "offset": off}
        elif k == "resize_":
            if x.rg and r.random() < 0.8:
                return
            new = self.rand_shape(2)
            attrs = {"size": new}
        elif k == "set_":
            c = [v for v in self.live() if v.obj != x.obj]
            if not c:
                return
            src = r.choice(c)
            ops = [x, src]
            new = list(src.shape)
        if new is None:
            return
        stor = x.stor
        if k == "resize_":
            stor = max(x.stor, numel(new))
        if k == "set_":
            stor = ops[1].stor
        obj = x.obj
        self.kill(x)
        v = Value(self.fresh(), new, x.dtype, stor=stor, contig=(k == "resize_"), obj=obj)
        v.rg, v.leafgrad = x.rg, x.leafgrad
        self.emit("mut." + k, ops, attrs, [v], ng)
        if k == "resize_" and numel(new) > numel(x.shape):
            # the storage may have grown: PyTorch leaves the new elements uninitialized
            self.emit("mut.fill_", [v], {"value": float(round(r.uniform(-2, 2), 2))}, [], True)

    def op_pure(self):
        r = self.r
        x = self.pick()
        if x is None:
            return
        ng = r.random() < 0.1
        rank = len(x.shape)
        k = r.choice(["unary", "unary", "binary", "binary", "reduce", "matmul", "softmax", "layer_norm", "cat",
                      "where", "index_select", "clone", "cast"])
        if k == "unary":
            op = r.choice(["neg", "abs", "exp", "tanh", "sigmoid", "relu", "sin", "cos", "erf", "sqrt", "log1p",
                           "reciprocal", "gelu", "clamp"])
            attrs = {}
            if op == "clamp":
                attrs = {"min": -0.5, "max": 0.75}
            if op == "gelu":
                attrs = {"approximate": r.choice(["none", "tanh"])}
            return self.emit("tensor." + op, [x], attrs, [self.new(x.shape)], ng)
        if k == "binary":
            op = r.choice(["add", "sub", "mul", "div", "maximum", "minimum", "add", "mul"])
            c = [v for v in self.live() if broadcast(v.shape, x.shape) is not None]
            y = r.choice(c) if c and r.random() < 0.7 else self.full([] if r.random() < 0.5 else x.shape[-1:])
            a, b = (x, y) if r.random() < 0.5 else (y, x)
            return self.emit("tensor." + op, [a, b], {}, [self.new(broadcast(a.shape, b.shape))], ng)
        if k == "reduce":
            op = r.choice(["sum", "sum", "mean", "amax"])
            if rank == 0:
                return self.emit("tensor." + op, [x], {}, [self.new([])], ng)
            dims = sorted(set(r.randrange(rank) for _ in range(r.randint(1, rank))))
            keep = r.random() < 0.4
            attrs = {"dims": dims}
            out = [1 if i in dims else d for i, d in enumerate(x.shape)] if keep else \
                [d for i, d in enumerate(x.shape) if i not in dims]
            a = '{dims = %s%s%s}' % (fmt_attr(dims), ", keepdim" if keep else "", ", aot.no_grad" if ng else "")
            v = self.new(out)
            self.lines.append('  %s = "tensor.%s"(%s) %s : (%s) -> %s' % (
                v.name, op, x.name, a, ttype(x.shape), ttype(out)))
            self.vals.append(v)
            self.nops += 1
            return
        if k == "matmul" and rank == 2:
            m, n = x.shape
            p = r.choice([1, 2, 3])
            c = [v for v in self.live() if v.shape == [n, p]]
            y = r.choice(c) if c else self.full([n, p])
            return self.emit("tensor.mm", [x, y], {}, [self.new([m, p])], ng)
        if k == "softmax" and rank >= 1:
            return self.emit("tensor." + r.choice(["softmax", "log_softmax"]), [x], {"dim": self.dim(rank)},
                             [self.new(x.shape)], ng)
        if k == "layer_norm" and rank >= 1:
            stat = x.shape[:-1] + [1]
            res = [self.new(x.shape), self.new(stat), self.new(stat)]
            return self.emit("tensor.layer_norm", [x], {"normalized_ndim": 1, "eps": 1e-5}, res, ng)
        if k == "cat" and rank >= 1:
            d = self.dim(rank)
            c = [v for v in self.live() if len(v.shape) == rank and
                 all(a == b for i, (a, b) in enumerate(zip(v.shape, x.shape)) if i != d % rank)]
            ys = [x] + r.sample(c, min(len(c), r.randint(1, 2)))
            s = list(x.shape)
            s[d] = sum(v.shape[d] for v in ys)
            return self.emit("tensor.cat", ys, {"dim": d}, [self.new(s)], ng)
        if k == "where":
            c = [v for v in self.live() if broadcast(v.shape, x.shape) is not None]
            y = r.choice(c)
            cond = self.emit("tensor.gt", [x, y], {}, [self.new(broadcast(x.shape, y.shape), "i1")])[0]
            z = self.full([])
            out = broadcast(cond.shape, z.shape)
            a, b = (x, z) if r.random() < 0.5 else (z, x)
            return self.emit("tensor.where", [cond, a, b], {}, [self.new(broadcast(out, x.shape))], ng)
        if k == "index_select" and rank >= 1 and min(x.shape) > 0:
            d = self.dim(rank)
            n = x.shape[d]
            idx = [r.randrange(n) for _ in range(r.randint(1, 3))]
            iv = self.const([len(idx)], "i64", idx)
            s = list(x.shape)
            s[d] = len(idx)
            return self.emit("tensor.index_select", [x, iv], {"dim": d}, [self.new(s)], ng)
        if k == "clone":
            return self.emit("tensor.clone", [x], {}, [self.new(x.shape)], ng)
        if k == "cast":
            y = self.emit("tensor.cast", [x], {}, [self.new(x.shape, "f64")], ng)[0]
            return self.emit("tensor.cast", [y], {}, [self.new(x.shape)], ng)

    def program(self):
        inputs, sig = self.gen_args()
        target = self.r.randint(3, 12)
        weights = [("view", 4), ("mut", 4), ("meta", 1.5), ("pure", 3)]
        tries = 0
        while self.nops < target and tries < 200:
            tries += 1
            k = self.r.choices([k for k, _ in weights], weights=[w for _, w in weights])[0]
            getattr(self, "op_" + k)()
        live = [v for v in self.vals if v.alive]
        nres = self.r.choice([1, 1, 2, 2, 3])
        # favour the newest values and, sometimes, an argument (mutated or not)
        rets = []
        for v in reversed(live):
            if len(rets) >= nres:
                break
            if self.r.random() < 0.6 and v not in rets:
                rets.append(v)
        if not rets:
            rets = [live[-1]]
        rtys = ", ".join(ttype(v.shape, v.dtype) for v in rets)
        head = "func.func @main(%s) -> (%s) {" % (", ".join(sig), rtys)
        ret = "  return %s : %s" % (", ".join(v.name for v in rets), rtys)
        text = "\n".join([head] + self.lines + [ret, "}"]) + "\n"
        return Case(self.seed, text, inputs, self.nops)


def generate(seed):
    return Gen(seed).program()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--out", help="write prog.mlir and inputs.json into this folder")
    ap.add_argument("--inputs", action="store_true", help="print the inputs JSON instead of the program")
    ns = ap.parse_args()
    c = generate(ns.seed)
    if ns.out:
        os.makedirs(ns.out, exist_ok=True)
        with open(os.path.join(ns.out, "prog.mlir"), "w") as f:
            f.write(c.text)
        with open(os.path.join(ns.out, "inputs.json"), "w") as f:
            json.dump(c.inputs, f)
    elif ns.inputs:
        print(json.dumps(c.inputs))
    else:
        print(c.text, end="")


if __name__ == "__main__":
    main()
