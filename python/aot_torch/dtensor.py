"""DTensor graphs: compiled as their local programs, with DTensor's own
gradients.

A Dynamo graph over DTensors (tensor parallelism: ``parallelize_module``,
``DTensor.from_local``, ``redistribute``, ``to_local``) takes DTensor
parameters and a ``DeviceMesh``. As AOTAutograd does for a tensor subclass,
each DTensor is flattened to its local tensor plus constant metadata (mesh,
placements, global shape and stride), and the graph is traced through
DTensor's dispatch into a dense program over the local tensors, where
DTensor's redistributions are functional collectives (the ``dist``
dialect). The metadata is part of the cache key: a DTensor of other
placements, mesh or shape traces again. The outputs that are DTensors are
wrapped again with their traced metadata.

The gradients are DTensor's, not the derivatives of the dense collectives
(a ``Partial -> Replicate`` all-reduce has an identity backward in DTensor,
and ``from_local`` of a replicated input all-reduces its partial gradient
though its forward issues nothing). So in training the backward is traced
too, by PyTorch's autograd over the DTensor program (``torch.autograd.grad``
under ``make_fx``, as AOTAutograd traces its joint), and handed to the
compiler as the program's traced backward (``aot.traced_backward``, which
the ``joint`` pass splices in and ``partition`` splits off as usual). The
forward is the joint's forward part, so the backward's recomputation of it
merges with it. The gradient of each DTensor input comes back as a DTensor
with the placements eager gives it, a partial one included.

What aot cannot take runs the user's DTensor graph in PyTorch, never the
dense trace (whose gradients would be the collectives')."""

from __future__ import annotations

import importlib
import logging
from typing import Any, Dict, List, Optional, Sequence

import torch

from . import compile_report, fx_ir

log = logging.getLogger("aot_torch")


def _types():
    try:
        from torch.distributed.device_mesh import DeviceMesh
        from torch.distributed.tensor import DTensor
    except Exception:  # a build of PyTorch without distributed
        return None
    return DTensor, DeviceMesh


def _backend():
    # (The package's `backend` attribute is the function of that name.)
    return importlib.import_module(__package__ + ".backend")


def is_dtensor_graph(example_inputs: Sequence[Any]) -> bool:
    """Whether Dynamo's graph takes a DTensor or a device mesh."""
    t = _types()
    return t is not None and any(isinstance(e, t) for e in example_inputs)


class _DenseFallback(Exception):
    """The dense program declined a call: the DTensor graph runs it."""


def _decline(*_args):
    raise _DenseFallback()


def _plain(t: Any) -> Any:
    """The local tensor of a DTensor, waited for if a collective made it."""
    DTensor, _ = _types()
    if isinstance(t, DTensor):
        t = t._local_tensor
    from torch.distributed._functional_collectives import AsyncCollectiveTensor
    if isinstance(t, AsyncCollectiveTensor):
        t = t.wait()
    return t


class _GradAs(torch.autograd.Function):
    """The identity on a DTensor whose gradient is redistributed to
    `placements`: eager's layout of a gradient that the dense program
    gives in its input's layout. A replicated gradient of a split input is
    gathered from the parts the ranks computed (each rank computed the
    whole in eager); the values are eager's."""

    @staticmethod
    def forward(ctx, a, placements):
        ctx.placements = placements
        return a.view_as(a)

    @staticmethod
    def backward(ctx, g):
        return g.redistribute(g.device_mesh, ctx.placements), None


class _Dense:
    """One DTensor calling convention: the dense program, and how to enter
    and leave it."""

    def __init__(self, inner: Any, slots: List[int], outputs: List[Optional[tuple]], keep: list,
                 grad_placements: Optional[Dict[int, tuple]] = None, regathered: Optional[Dict[int, tuple]] = None):
        self.inner = inner
        # Per input position: the placements of the gradient the dense
        # program gives (eager's, or the input's own where eager's has
        # another local shape: those are `regathered` to eager's).
        self.grad_placements = grad_placements or {}
        self.regathered = regathered or {}
        # Positions of the graph's tensor inputs (DTensor or dense).
        self.slots = slots
        # Per output: the DTensor spec to wrap it in, or None (dense).
        self.outputs = outputs
        # (The meshes the key names by identity stay alive.)
        self.keep = keep

    def call(self, args: Sequence[Any], training: bool) -> Any:
        DTensor, _ = _types()
        dense = []
        for i in self.slots:
            a = args[i]
            if training and isinstance(a, DTensor) and a.requires_grad:
                # (The gradient enters `a` with eager's placements: a
                # partial one stays partial.)
                if i in self.regathered:
                    a = _GradAs.apply(a, self.regathered[i])
                a = a.to_local(grad_placements=self.grad_placements.get(i))
            else:
                a = _plain(a)
            dense.append(a)
        outs = self.inner(*dense)
        flat = outs if isinstance(outs, (tuple, list)) else (outs,)
        res = []
        for o, spec in zip(flat, self.outputs):
            if spec is not None and isinstance(o, torch.Tensor):
                mesh, placements, shape, stride = spec
                o = DTensor.from_local(o, mesh, placements, run_check=False, shape=torch.Size(shape), stride=stride)
            res.append(o)
        return tuple(res) if isinstance(outs, (tuple, list)) else res[0]


# How many traces (conventions times shapes) a DTensor graph keeps.
_SHAPES_KEPT = 64


def _convention(key: tuple) -> tuple:
    """A `DTensorGraph._key` without its shapes: each entry is a pair of
    its convention and its shape part (tensors' shapes and strides, the
    sizes Dynamo passes as numbers)."""
    return tuple(c for c, _ in key[1:]) + (key[0],)


class DTensorGraph:
    """What the backend returns for a Dynamo graph over DTensors: a dense
    program (`backend.CompiledGraph`) per calling convention of the DTensor
    inputs; in training, with the backward PyTorch's autograd traced."""

    def __init__(self, gm: torch.fx.GraphModule, cfg: Any, name: str):
        self.gm = gm
        self.cfg = cfg
        self.name = name
        self.dense: Dict[tuple, Optional[_Dense]] = {}
        self.warned = set()
        # Inputs read only as numbers (`x.item()`: the float attributes
        # Dynamo passes as 0-dim tensors with `dynamic=True`, a layer
        # norm's `eps`): traced as constants, their values in the key.
        self.item_inputs = fx_ir.item_inputs(gm)
        # Inputs that are sizes (Dynamo passes a symbolic size as an int):
        # part of a call's shape, not of its convention.
        self.size_inputs = [k for k, n in enumerate(n for n in gm.graph.nodes if n.op == "placeholder")
                            if isinstance(n.meta.get("example_value"), torch.SymInt)]

    def _key(self, args: Sequence[Any], training: bool) -> tuple:
        """The training flag, then per argument its convention and its
        shape part (`_convention` takes the first alone)."""
        DTensor, DeviceMesh = _types()
        key: List[Any] = [training]
        for k, a in enumerate(args):
            if k in self.item_inputs:
                key.append((("N", _backend()._number(a)), ()))
            elif k in self.size_inputs and isinstance(a, int):
                key.append((("S",), (a,)))
            elif isinstance(a, DTensor):
                loc = a._local_tensor
                key.append((("D", id(a.device_mesh), tuple(a.placements), a.dtype, a.requires_grad),
                            (tuple(a.shape), tuple(a.stride()), tuple(loc.shape), tuple(loc.stride()))))
            elif isinstance(a, DeviceMesh):
                key.append((("M", id(a)), ()))
            elif isinstance(a, torch.Tensor):
                key.append((("T", a.dim(), a.dtype, a.requires_grad), (tuple(a.shape), tuple(a.stride()))))
            elif isinstance(a, (int, float, bool, str)) or a is None:
                key.append((("C", type(a).__name__, a), ()))
            else:
                key.append((("O", id(a)), ()))
        return tuple(key)

    def _in_pytorch(self, why: str, what: str) -> None:
        """Logs and counts once per reason that calls run in PyTorch."""
        if why in self.warned:
            return
        self.warned.add(why)
        log.warning("aot_torch: %s runs in PyTorch: %s", self.name, why)
        _backend().stats["fallback_regions"] += 1
        compile_report.fallback(self.name, what, why, compile_report.graph_source(self.name))

    def __call__(self, *args):
        training = torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        key = self._key(args, training)
        d = self.dense.get(key, False)
        if d is False:
            # A DTensor graph is traced per shape (it has no symbolic
            # sizes): `recompile_limit` counts its conventions apart from
            # their shapes, so a training loop over many batch sizes and
            # lengths does not run in PyTorch; the traces of the least
            # recently new shapes are dropped beyond `_SHAPES_KEPT`.
            conventions = {_convention(k) for k in self.dense}
            if _convention(key) not in conventions and len(conventions) >= self.cfg.recompile_limit:
                self._in_pytorch("recompile_limit: traced for %d DTensor conventions already" % len(conventions),
                                 "calls with new DTensor conventions")
                return self.gm(*args)
            if len(self.dense) >= _SHAPES_KEPT:
                del self.dense[next(iter(self.dense))]
            d = self.dense[key] = self._build(args, training)
        if d is None:
            return self.gm(*args)
        try:
            return d.call(args, training)
        except _DenseFallback:
            # (The dense program logged why, and counted it.)
            self.dense[key] = None
            return self.gm(*args)

    def _build(self, args: Sequence[Any], training: bool) -> Optional[_Dense]:
        backend = _backend()
        gm = self.gm
        if self.item_inputs:
            gm = fx_ir.with_item_values(gm, {k: backend._number(args[k]) for k in self.item_inputs})
        try:
            dense_gm, slots, outputs, (grad_placements, regathered), traced = _trace(gm, args, training)
        except Exception as e:  # PyTorch's tracing through DTensor's dispatch, or what aot refuses
            why = backend._one_line(e) if isinstance(e, fx_ir.Unsupported) else \
                "%s: %s" % (type(e).__name__, backend._one_line(e))
            self._in_pytorch("tracing the DTensor program failed: %s" % why, "the whole graph")
            return None
        if traced is not None:
            dense_gm.meta[backend.TRACED_BACKWARD] = traced
        inner = backend.CompiledGraph(dense_gm, self.cfg, self.name, whole=False, fallback=_decline)
        _, DeviceMesh = _types()
        keep = [a for a in args if isinstance(a, DeviceMesh)] + \
            [a.device_mesh for a in args if hasattr(a, "device_mesh")]
        return _Dense(inner, slots, outputs, keep, grad_placements, regathered)


def _backward_decompositions() -> Dict[Any, Any]:
    """The decompositions of a traced joint: the backend's, and PyTorch's
    own for the backward ops autograd calls (aot's IR differentiates the
    forward ops; it has no `*_backward` ops)."""
    from torch._decomp import core_aten_decompositions

    table = dict(fx_ir.DECOMPOSITIONS)
    for op, fn in core_aten_decompositions().items():
        if "backward" in op.name() and op not in table:
            table[op] = fn
    return table


def _trace(gm: torch.fx.GraphModule, args: Sequence[Any], training: bool):
    """The dense program of `gm` for `args`: (the forward over the local
    tensors, the positions of the tensor inputs, the outputs' DTensor
    specs, the gradients' placements per input position, and in training
    the function that adds the traced backward to a translation)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx

    DTensor, DeviceMesh = _types()
    for i, a in enumerate(args):
        if not isinstance(a, (torch.Tensor, DeviceMesh, int, float, bool, str, type(None))):
            raise fx_ir.Unsupported("input %d" % i, "a %s input of a DTensor graph" % type(a).__name__)
    slots = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    rg = [i for i in slots if args[i].requires_grad] if training else []
    outputs: List[Optional[tuple]] = []

    def rebuild(prim: Sequence[Any]) -> List[Any]:
        full = list(args)
        for i, t in zip(slots, prim):
            a = args[i]
            if isinstance(a, DTensor):
                t = DTensor.from_local(t, a.device_mesh, a.placements, run_check=False, shape=a.shape,
                                       stride=a.stride())
            if i in rg:
                # (In place, on a leaf (the fakes are, and `from_local` of
                # one is): a traced `detach` would cut the forward's
                # gradient where the dense program reads the input.)
                t = t.requires_grad_(True)
            full[i] = t
        return full

    def run(full: Sequence[Any]) -> List[Any]:
        outs = torch.fx.Interpreter(gm).run(*full)
        flat = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        outputs.clear()
        for k, o in enumerate(flat):
            if isinstance(o, DTensor):
                outputs.append((o.device_mesh, tuple(o.placements), tuple(o.shape), tuple(o.stride())))
            elif isinstance(o, torch.Tensor) or isinstance(o, (int, float, bool)) or o is None:
                outputs.append(None)
            else:
                raise fx_ir.Unsupported("output %d" % k, "a %s output of a DTensor graph" % type(o).__name__)
        return flat

    mode = FakeTensorMode(allow_non_fake_inputs=True)
    with mode:
        # Leaves: `rebuild` then makes the ones that require grad so in
        # place. From a non-leaf (an activation from an earlier graph) the
        # fake would be one too, and its `detach` a traced op that cuts the
        # forward's path from the input: the backend's analysis of eager's
        # graph then found no gradient reaching it, and cut its edge (the
        # blocks before a graph break got no gradient).
        fakes = [mode.from_tensor(_plain(args[i]).detach()) for i in slots]
    if not rg:
        def dense(*locals_):
            return [_plain(o) for o in run(rebuild(locals_))]

        with mode:
            traced = make_fx(dense, decomposition_table=fx_ir.DECOMPOSITIONS, tracing_mode="real")(*fakes)
        return traced, slots, list(outputs), ({}, {}), None

    # Which outputs take a tangent, and their local layouts.
    with mode, torch.enable_grad():
        probe = run(rebuild(fakes))
    diff = [k for k, o in enumerate(probe) if isinstance(o, torch.Tensor) and o.requires_grad]
    with mode:
        tangent_fakes = [torch.empty_strided(_plain(probe[k]).shape, _plain(probe[k]).stride(),
                                             dtype=probe[k].dtype) for k in diff]
    grad_placements: Dict[int, tuple] = {}
    regathered: Dict[int, tuple] = {}
    unreached: List[int] = []

    def joint(*flat_in):
        prim, tangents = flat_in[:len(slots)], flat_in[len(slots):]
        inputs = rebuild(prim)
        with torch.enable_grad():
            outs = run(inputs)
        wrapped = []
        for k, t in zip(diff, tangents):
            o = outs[k]
            if isinstance(o, DTensor):
                t = DTensor.from_local(t, o.device_mesh, o.placements, run_check=False, shape=o.shape,
                                       stride=o.stride())
            wrapped.append(t)
        leaves = [inputs[i] for i in rg]
        grads = torch.autograd.grad([outs[k] for k in diff], leaves, wrapped, allow_unused=True)
        res = []
        for j, (i, g) in enumerate(zip(rg, grads)):
            p = prim[slots.index(i)]
            if g is None:
                unreached.append(j)
                res.append(torch.zeros_like(p))
                continue
            if isinstance(g, DTensor):
                grad_placements[i] = tuple(g.placements)
                a = inputs[i]
                if tuple(g._local_tensor.shape) != tuple(p.shape) and isinstance(a, DTensor):
                    # Eager's gradient is laid out otherwise than its input
                    # (an embedding's weight split by rows gets a
                    # replicated gradient): the dense program gives the
                    # input's part of it, and the gradient is laid out as
                    # eager's after the call (`_GradAs`).
                    regathered[i] = grad_placements[i]
                    grad_placements[i] = tuple(a.placements)
                    g = g.redistribute(a.device_mesh, a.placements)
            g = _plain(g)
            if tuple(g.shape) != tuple(p.shape):
                raise fx_ir.Unsupported("input %d" % i, "its gradient's local shape %s is not its own %s"
                                        % (tuple(g.shape), tuple(p.shape)))
            res.append(g)
        return [_plain(o) for o in outs] + res

    with mode:
        j = make_fx(joint, decomposition_table=_backward_decompositions(), tracing_mode="real")(*fakes, *tangent_fakes)
    _tag_draws(j)
    n_out = len(probe)
    fwd = _select(j, range(n_out), keep_inputs=len(slots))
    bwd = _select(j, range(n_out, n_out + len(rg)), keep_inputs=None)
    examples = list(fakes) + list(tangent_fakes)
    bwd = _functional(bwd, examples, mode)
    grads_for = [slots.index(i) for i in rg]
    unreached_args = [grads_for[j] for j in unreached]

    def add_backward(tr: "fx_ir.Translation") -> "fx_ir.Translation":
        with mode:
            bt = fx_ir.translate(bwd, examples, name="%s_traced_backward" % tr.name)
        return fx_ir.with_traced_backward(tr, bt, diff, grads_for, unreached_args)

    return fwd, slots, list(outputs), (grad_placements, regathered), add_backward


def _tag_draws(j: torch.fx.GraphModule) -> None:
    """Numbers the random nodes of joint trace `j` (`fx_ir.DRAW_KEY` in
    their meta["custom"], which survives `_select`'s copies and the
    retraces of the forward and `_functional`): the backward recomputes the
    forward nodes it reads, a dropout's mask among them, and its random
    ops must read the forward's draws, not draw again (the `joint` pass
    matches them by these tags)."""
    k = 0
    for n in j.graph.nodes:
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and \
                torch.Tag.nondeterministic_seeded in n.target.tags:
            custom = dict(n.meta.get("custom") or {})
            custom[fx_ir.DRAW_KEY] = k
            n.meta["custom"] = custom
            k += 1


def _functional(gm: torch.fx.GraphModule, examples: Sequence[Any], mode: Any) -> torch.fx.GraphModule:
    """`gm` without in-place ops (retraced through functionalization,
    each node's meta["custom"] kept), when it has any: a traced backward
    must be pure, and a recomputed dropout fills a fresh tensor in place
    (`bernoulli_`). The forward's in-place ops are the `functionalize`
    pass's."""
    from torch.fx import traceback as fx_traceback
    from torch.fx.experimental.proxy_tensor import make_fx

    if not any(n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
               and n.target._schema.is_mutable for n in gm.graph.nodes):
        return gm

    def run(*args):
        return torch.fx.Interpreter(gm).run(*args)

    with mode, fx_traceback.preserve_node_meta():
        return make_fx(torch.func.functionalize(run, remove="mutations"), tracing_mode="real")(*examples)


def _select(j: torch.fx.GraphModule, outputs: Sequence[int], keep_inputs: Optional[int]) -> torch.fx.GraphModule:
    """`j` returning only its outputs `outputs`, with what they do not
    read removed; with `keep_inputs`, only its first `keep_inputs`
    placeholders."""
    graph = torch.fx.Graph()
    env: Dict[torch.fx.Node, torch.fx.Node] = {}
    values = graph.graph_copy(j.graph, env)
    picked = []
    for k in outputs:
        v = values[k]
        if v in picked:
            # (One value per result: the translation returns a value once.)
            v = graph.call_function(torch.ops.aten.alias.default, (v,))
        picked.append(v)
    graph.output(picked)
    # (FX keeps a collective's wait as a side effect; here only what the
    # picked outputs read is the program.)
    live = set()
    stack = list(picked)
    while stack:
        n = stack.pop()
        if isinstance(n, torch.fx.Node) and n not in live:
            live.add(n)
            stack.extend(n.all_input_nodes)
    for n in reversed(list(graph.nodes)):
        if n.op == "call_function" and n not in live:
            graph.erase_node(n)
    if keep_inputs is not None:
        for k, n in enumerate([n for n in graph.nodes if n.op == "placeholder"]):
            if k >= keep_inputs:
                if n.users:
                    raise fx_ir.Unsupported(n.name, "the forward reads a tangent")
                graph.erase_node(n)
    gm = torch.fx.GraphModule(j, graph)
    gm.recompile()
    return gm
