"""DTensor graphs in inference: compiled as their local programs.

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

Training runs in PyTorch, with the reason logged: DTensor's gradients are
not the derivatives of the dense collectives (a ``Partial -> Replicate``
all-reduce has an identity backward in DTensor, and ``from_local`` of a
replicated input all-reduces its partial gradient though its forward issues
nothing), so the backward must be DTensor's own. A backward traced by
PyTorch's autograd under ``make_fx`` (what the ``joint`` pass accepts as
``aot.traced_backward``) did not reproduce eager's gradients on a
row-parallel layer (twice eager's for the sharded parameters, on 2 ranks):
DTensor's dispatch decides differently under tracing than in eager, and
until the compiled gradients equal eager's, training stays with PyTorch.

What aot cannot take runs the user's DTensor graph in PyTorch, never the
dense trace."""

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


class _Dense:
    """One DTensor calling convention: the dense program, and how to enter
    and leave it."""

    def __init__(self, inner: Any, slots: List[int], outputs: List[Optional[tuple]], keep: list):
        self.inner = inner
        # Positions of the graph's tensor inputs (DTensor or dense).
        self.slots = slots
        # Per output: the DTensor spec to wrap it in, or None (dense).
        self.outputs = outputs
        # (The meshes the key names by identity stay alive.)
        self.keep = keep

    def call(self, args: Sequence[Any]) -> Any:
        DTensor, _ = _types()
        outs = self.inner(*[_plain(args[i]) for i in self.slots])
        flat = outs if isinstance(outs, (tuple, list)) else (outs,)
        res = []
        for o, spec in zip(flat, self.outputs):
            if spec is not None and isinstance(o, torch.Tensor):
                mesh, placements, shape, stride = spec
                o = DTensor.from_local(o, mesh, placements, run_check=False, shape=torch.Size(shape), stride=stride)
            res.append(o)
        return tuple(res) if isinstance(outs, (tuple, list)) else res[0]


class DTensorGraph:
    """What the backend returns for a Dynamo graph over DTensors: a dense
    program (`backend.CompiledGraph`) per calling convention of the DTensor
    inputs, in inference; the graph itself in training."""

    def __init__(self, gm: torch.fx.GraphModule, cfg: Any, name: str):
        self.gm = gm
        self.cfg = cfg
        self.name = name
        self.dense: Dict[tuple, Optional[_Dense]] = {}
        self.warned = set()

    def _key(self, args: Sequence[Any]) -> tuple:
        DTensor, DeviceMesh = _types()
        key: List[Any] = []
        for a in args:
            if isinstance(a, DTensor):
                loc = a._local_tensor
                key.append(("D", id(a.device_mesh), tuple(a.placements), tuple(a.shape), tuple(a.stride()),
                            a.dtype, tuple(loc.shape), tuple(loc.stride())))
            elif isinstance(a, DeviceMesh):
                key.append(("M", id(a)))
            elif isinstance(a, torch.Tensor):
                key.append(("T", tuple(a.shape), tuple(a.stride()), a.dtype))
            elif isinstance(a, (int, float, bool, str)) or a is None:
                key.append(("C", type(a).__name__, a))
            else:
                key.append(("O", id(a)))
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
        if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            self._in_pytorch("training a DTensor graph (DTensor's gradients are not yet compiled)",
                             "calls that require grad")
            return self.gm(*args)
        key = self._key(args)
        d = self.dense.get(key, False)
        if d is False:
            if len(self.dense) >= self.cfg.recompile_limit:
                self._in_pytorch("recompile_limit: traced for %d DTensor conventions already" % len(self.dense),
                                 "calls with new DTensor conventions")
                return self.gm(*args)
            d = self.dense[key] = self._build(args)
        if d is None:
            return self.gm(*args)
        try:
            return d.call(args)
        except _DenseFallback:
            # (The dense program logged why, and counted it.)
            self.dense[key] = None
            return self.gm(*args)

    def _build(self, args: Sequence[Any]) -> Optional[_Dense]:
        backend = _backend()
        try:
            dense_gm, slots, outputs = _trace(self.gm, args)
        except Exception as e:  # PyTorch's tracing through DTensor's dispatch, or what aot refuses
            why = backend._one_line(e) if isinstance(e, fx_ir.Unsupported) else \
                "%s: %s" % (type(e).__name__, backend._one_line(e))
            self._in_pytorch("tracing the DTensor program failed: %s" % why, "the whole graph")
            return None
        inner = backend.CompiledGraph(dense_gm, self.cfg, self.name, whole=False, fallback=_decline)
        _, DeviceMesh = _types()
        keep = [a for a in args if isinstance(a, DeviceMesh)] + \
            [a.device_mesh for a in args if hasattr(a, "device_mesh")]
        return _Dense(inner, slots, outputs, keep)


def _trace(gm: torch.fx.GraphModule, args: Sequence[Any]):
    """The dense program of `gm` for `args`: (the graph over the local
    tensors, the positions of the tensor inputs, the outputs' DTensor
    specs)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx

    DTensor, DeviceMesh = _types()
    for i, a in enumerate(args):
        if not isinstance(a, (torch.Tensor, DeviceMesh, int, float, bool, str, type(None))):
            raise fx_ir.Unsupported("input %d" % i, "a %s input of a DTensor graph" % type(a).__name__)
    slots = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    outputs: List[Optional[tuple]] = []

    def dense(*locals_):
        full = list(args)
        for i, t in zip(slots, locals_):
            a = args[i]
            if isinstance(a, DTensor):
                t = DTensor.from_local(t, a.device_mesh, a.placements, run_check=False, shape=a.shape,
                                       stride=a.stride())
            full[i] = t
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
        return [_plain(o) for o in flat]

    mode = FakeTensorMode(allow_non_fake_inputs=True)
    with mode:
        fakes = [mode.from_tensor(_plain(args[i])) for i in slots]
        traced = make_fx(dense, decomposition_table=fx_ir.DECOMPOSITIONS, tracing_mode="real")(*fakes)
    return traced, slots, outputs
