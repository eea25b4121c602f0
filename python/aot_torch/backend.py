"""The ``torch.compile`` backend: ``torch.compile(model, backend="aot")``.

Dynamo hands the backend an FX graph of torch-level ops whose parameters
and buffers are leading inputs. On the first call with a given calling
convention (dtypes, shapes, strides, requires_grad, aliasing, grad mode,
the values of integer inputs) the graph is traced to ATen without
functionalization (``fx_ir.to_aten``: views and in-place ops stay as
written, as AOTAutograd starts from), split where ops have no IR
counterpart (those run in PyTorch, each split logged once), and each
supported region is translated to IR and compiled by aot: ``aot-train``
(forward and backward, called through an ``autograd.Function`` that hands
the partition's saved values from one to the other) when grad mode is on
and an input requires grad, else ``aot-inference``. Later calls with the
same convention reuse the compiled code; a new convention compiles again,
up to ``recompile_limit`` times per region, after which that region runs in
PyTorch with a one-line warning. Nothing that fails to translate or compile
is ever run by aot: it falls back to PyTorch, so the answer is PyTorch's.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import logging
import operator
import os
import re
import time
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from . import _native
from . import compile_report
from . import dtensor
from . import fx_ir
from . import symbolic

log = logging.getLogger("aot_torch")

#: What the backend did in this process: ``graphs`` (from Dynamo),
#: ``compiled`` (regions compiled for a convention), ``fallback_regions``
#: (regions, or whole graphs, run in PyTorch), ``fallback_ops`` (ATen ops
#: without an IR counterpart, run in PyTorch).
stats = collections.Counter()


def _no_duck_shapes() -> None:
    """Turns off the `ShapeEnv`'s duck shaping (unless ``AOT_DUCK_SHAPE=1``):
    with it, two dynamic sizes equal in the first call (a batch of 4
    sequences of 4 tokens, a batch of 3 RGB images) share one symbol, and
    the next call where they differ traces the frame again. aot compiles
    one function for every size, so a frame compiled with
    ``dynamic=True`` would compile twice for nothing. This is PyTorch's own
    setting (``torch.fx.experimental._config.use_duck_shape``), set when
    aot_torch is imported, which ``torch.compile(backend="aot")`` does
    before Dynamo's first trace; it applies to the process's other compiles
    too, which then get a symbol per size (each equality they rely on
    becomes a guard)."""
    if os.environ.get("AOT_DUCK_SHAPE", "0") == "1":
        return
    try:
        from torch.fx.experimental import _config as fx_config
    except ImportError:
        return
    fx_config.use_duck_shape = False


_no_duck_shapes()

#: Every live compiled region (`_Region`), for `aot_torch.profiler`.
_regions: "weakref.WeakSet[_Region]" = weakref.WeakSet()
#: The profiling session in progress (`aot_torch.profiler.Profile`), if any:
#: regions then time their calls and keep their first call's arguments.
_profiler: Optional[Any] = None


def _backward(variant: "_Variant", *args, **kwargs):
    """`variant.fn.backward`, timed while a profile is taken."""
    if _profiler is None:
        return variant.fn.backward(*args, **kwargs)
    t0 = time.perf_counter()
    try:
        return variant.fn.backward(*args, **kwargs)
    finally:
        _profiler.record(variant, "backward", time.perf_counter() - t0)


def _first_order_only(backward):
    """A compiled backward as `torch.autograd.function.once_differentiable`
    makes one, except that with `create_graph=True` every gradient it gives
    has a node that raises when differentiated, as PyTorch's compiled
    backward does ("does not currently support double backward").
    `once_differentiable` adds that node only when an incoming gradient
    requires grad; a compiled backward's gradients also depend on the
    values it saved (parameters), so without it a gradient penalty
    (`autograd.grad(..., create_graph=True)`, then a loss on the gradient)
    would take the gradient for a constant and lose its own gradient
    silently."""
    from torch._C import _functions

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        # (Autograd runs a backward without grad mode but with
        # `create_graph=True`.)
        if not torch.is_grad_enabled():
            return backward(ctx, *grads)
        with torch.no_grad():
            outputs = backward(ctx, *grads)
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        err = _functions.DelayedError(
            b"torch.compile with backend=\"aot\" does not support double backward: the gradient of a "
            b"compiled region's gradient (create_graph=True) is not computed", len(outs))

        def marked(t):
            if not isinstance(t, torch.Tensor):
                return t
            t = t.detach()
            t.requires_grad = True
            return t
        return err(*[marked(t) for t in outs])

    return wrapper


@dataclasses.dataclass(frozen=True)
class Config:
    """How the backend compiles. ``pipeline``: a pass pipeline for both
    modes (default: ``aot-train`` when training, ``aot-inference`` else);
    ``partition``: ``default`` (save what the backward uses) or ``min-cut``
    (recompute cheap values); ``memory_budget``: 0..1, with min-cut;
    ``native_backend``: ``cranelift`` (default), ``interp`` or ``llvm``
    (when aot was built with it), for graphs of CPU tensors; a graph of CUDA
    tensors runs on the ``cuda`` backend (when aot_torch was built with the
    cargo feature ``cuda``); ``threads``: kernel threads (default:
    PyTorch's thread count, see :func:`share_threads`); ``recompile_limit``: conventions compiled per region;
    ``symbolic``: a graph Dynamo gives with symbolic sizes (``dynamic=True``,
    ``mark_dynamic``, automatic dynamic shapes) is compiled once for every
    size (False: once per concrete shape), and when Dynamo traces a frame
    aot compiled again, every size of its tensor inputs is symbolic
    (:func:`_every_size_symbolic_on_retrace`); ``native_dispatch``: calls of
    plain inference variants go from Dynamo to the compiled code without
    Python (`_native.Dispatch`; False: every call through the Python
    dispatcher)."""

    pipeline: Optional[str] = None
    partition: str = "default"
    memory_budget: Optional[float] = None
    native_backend: str = "cranelift"
    threads: Optional[int] = None
    recompile_limit: int = 8
    symbolic: bool = True
    native_dispatch: bool = True

    def __post_init__(self):
        if self.partition not in ("default", "min-cut"):
            raise ValueError("partition must be 'default' or 'min-cut', not %r" % (self.partition,))
        if self.memory_budget is not None and not 0.0 <= float(self.memory_budget) <= 1.0:
            raise ValueError("memory_budget must be within [0, 1], not %r" % (self.memory_budget,))
        if self.recompile_limit < 1:
            raise ValueError("recompile_limit must be at least 1")
        if self.threads is not None and self.threads < 1:
            raise ValueError("threads must be at least 1")

    def pipeline_for(self, training: bool) -> str:
        if self.pipeline is not None:
            return self.pipeline
        if not training:
            return "aot-inference"
        opts = []
        if self.partition != "default":
            opts.append("strategy=%s" % self.partition)
        if self.memory_budget is not None:
            opts.append("memory-budget=%s" % float(self.memory_budget))
        partition = "partition{%s}" % " ".join(opts) if opts else "partition"
        return ("flatten-subclasses,functionalize,simplify,collect-metadata,dedupe,"
                "synthetic-base{training=true},rng-functionalize,joint,simplify," + partition)


# The compiled code's index checks, which eager makes too: the op that
# failed, then the check.
_INDEX_CHECK = re.compile(r"'(?:tensor|mut)\.(\w+)' op index (-?\d+ )?(is )?out of (bounds|range)")
# Eager raises IndexError for these (advanced indexing, `index_select`,
# `embedding`); for `gather` and `scatter_add` a RuntimeError, which aot's
# errors are.
_INDEX_ERROR_OPS = frozenset({"index_select", "embedding", "index_put", "index_put_"})


def _checked(fn, *args, **kwargs):
    """Calls compiled code; a failed index check that eager makes too
    raises PyTorch's exception class, chained to aot's error, which says
    where."""
    try:
        return fn(*args, **kwargs)
    except _native.ExecutionError as e:
        _index_error(e)
        raise


def _index_error(e: BaseException):
    """Raises IndexError, chained to `e`, where `e` is a failed index check
    that eager raises as IndexError; returns otherwise."""
    m = _INDEX_CHECK.search(str(e))
    if m is not None and m.group(1) in _INDEX_ERROR_OPS:
        raise IndexError(str(e)) from e


class _AotFunction(torch.autograd.Function):
    """A compiled forward and backward as one autograd node.

    An output that is a view of an intermediate (`sin(x)[2:]`) leaves the
    node as its base, and the caller regenerates the view from it (see
    `_Variant.__call__`), as AOTAutograd does: a view made inside a custom
    Function may not be written in place, a view of an output may. The base
    is another output when one is the whole storage (`y, y[1:]`), else an
    extra output over the storage (`_Views`)."""

    @staticmethod
    def forward(ctx, variant: "_Variant", views: "_Views", *inputs):
        # The arguments, then one differentiable base per group of them
        # that views one storage (`_base_groups`).
        k = len(inputs) - len(variant.base_groups)
        args, flats = inputs[:k], inputs[k:]
        # The call binds the arguments themselves: a node input may be a
        # leaf over an argument's memory (`_cut`), which only keeps the
        # node's edges off that argument's history.
        real = views.arguments
        # (`_checked` inline: a call frame is a tenth of this path's Python.)
        try:
            outs, state = variant.fn.forward(_bind(real, variant.keep), variant.export_views, variant.written,
                                             list(zip(flats, variant.base_groups)) if flats else [], info=views.info)
        except _native.ExecutionError as e:
            _index_error(e)
            raise
        views.info = None
        ctx.aot = (variant, state, views)
        # An output no gradient reached comes to the backward as None, not
        # zeros: an argument that only such outputs reach keeps `.grad`
        # None, as in eager.
        ctx.set_materialize_grads(False)
        # Nothing is saved with autograd: the arguments whose memory the
        # backward reads are the ones eager saves (the runtime copies the
        # others: `copy_saved_arguments`), and writing one of those, or an
        # output eager saves, raises in the backward only where eager's
        # would (`_Variant.check_versions`).
        views.split(outs, real, variant.differentiable, variant.mask_cache)
        views.state = state
        # The parts' outputs leave through their own nodes (`_AotPart`).
        nondiff = [o for k, (o, d) in enumerate(zip(views.node_outs, views.node_diff))
                   if (not d or k in variant.part_outputs) and o is not None]
        if nondiff:
            ctx.mark_non_differentiable(*nondiff)
        # Arguments written where autograd sees it: the node is their new
        # history (as an in-place op's), their new value one more output.
        # A view is not marked: PyTorch lets a Function that writes a view
        # return nothing else. Its new value leaves as a copy, which the
        # caller writes into it where autograd sees it (`_Variant.__call__`,
        # as AOTAutograd's epilogue copies mutated inputs back).
        if not variant.main_dirty:
            return tuple(views.node_outs)
        dirty = [args[i] for i in variant.main_dirty]
        marked = [t for t in dirty if t._base is None]
        if marked:
            ctx.mark_dirty(*marked)
        return tuple(views.node_outs) + tuple(t if t._base is None else t.detach().clone() for t in dirty)

    @staticmethod
    @_first_order_only
    def backward(ctx, *grads):
        if ctx.aot is None:
            raise RuntimeError(_FREED)
        variant, state, views = ctx.aot
        # (`backward(retain_graph=True)`: another backward may come, as
        # eager's saved tensors stay for it; else the state goes now.)
        retain = _keep_graph()
        if not retain:
            ctx.aot = None
        if variant.lean and not views.regen:
            # (No parts, written arguments, bases or regenerated views: the
            # same steps as below, without their empty lists.)
            tangents = [g if d else None for g, d in zip(grads, variant.differentiable)]
            got = {v for v, t in enumerate(tangents) if t is not None}
            variant.check_versions(views, got, _NOTHING)
            gs = _backward(variant, state, tangents, variant.no_mutated, unreached=True, keep=retain)
            return (None, None, *[variant.gradient(i, g, got, _NOTHING, views) for i, g in enumerate(gs)])
        n = len(variant.differentiable)
        m = len(grads) - len(variant.main_dirty)
        # A non-differentiable output gets no tangent, nor one no gradient
        # reached (None: the backward takes it as zeros that reach nothing).
        tangents = [g if d else None for g, d in zip(grads[:n], variant.differentiable)]
        views.tangents(tangents, grads[n:m], variant)
        mutated = [None] * len(variant.dupe_of)
        for i, g in zip(variant.main_dirty, grads[m:]):
            mutated[i] = g
        got, got_dirty = _given(tangents, mutated)
        variant.check_versions(views, got, got_dirty)
        # With parts, each node runs the backward for its own tangents.
        gs = _backward(variant, state, tangents, mutated, unreached=True, keep=bool(variant.parts) or retain)
        # After the arguments' gradients, the bases': their members get
        # none of their own (autograd takes the base's on into `_base`).
        gs, base_gs = gs[:len(variant.dupe_of)], gs[len(variant.dupe_of):]
        # An argument passed twice is one tensor: its gradient once; one no
        # gradient can reach keeps `.grad` None, as in eager; so does one
        # no gradient reached in this backward (`_Variant._reached_from`).
        gs = [variant.gradient(i, g, got, got_dirty, views) for i, g in enumerate(gs)]

        def base_reached(b):
            src = variant.base_reached_from.get(b)
            return src is None or bool(src[0] & got) or bool(src[1] & got_dirty)

        base_gs = [g if base_reached(b) else None for b, g in enumerate(base_gs)]
        return (None, None, *gs, *base_gs)


# PyTorch's message for a second backward through a graph it freed.
_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
          "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
          "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
          "or if you need to access saved tensors after calling backward.")


_graph_task_keep_graph = getattr(torch._C._autograd, "_get_current_graph_task_keep_graph", None)


def _keep_graph() -> bool:
    """Whether the running backward keeps the graph (`retain_graph=True`,
    or `create_graph=True`, which implies it)."""
    keep = _graph_task_keep_graph
    return bool(keep()) if keep is not None else True


# No written argument got a gradient (`_given`'s second set, for a call
# that writes none).
_NOTHING: frozenset = frozenset()


def _given(tangents: Sequence[Any], mutated: Sequence[Any]) -> Tuple[set, set]:
    """The outputs and the written arguments a backward has gradients for."""
    return ({v for v, t in enumerate(tangents) if t is not None},
            {i for i, g in enumerate(mutated) if g is not None})


@dataclasses.dataclass
class _VersionCheck:
    """One save eager's backward checks (`_Variant._version_checks`): the
    tangents (IR result positions) and written arguments' gradients whose
    arrival runs the node that saved it, and the argument or output
    (`("arg", i)` / `("out", v)`) whose version counter it shares."""
    fact: "_SaveFact"
    outs: frozenset
    dirty: frozenset
    target: Optional[Tuple[str, int]]


@dataclasses.dataclass
class _Part:
    """An independent part of a region (`_Variant._parts`): its arguments
    (first positions), outputs (IR result positions) and written arguments."""
    inputs: List[int]
    outputs: List[int]
    dirty: List[int]


class _AotPart(torch.autograd.Function):
    """The autograd node of one independent part of a compiled call: the
    call itself ran in `_AotFunction`; this node hands out the part's
    outputs and new argument values as their history, and differentiates
    them alone."""

    @staticmethod
    def forward(ctx, variant: "_Variant", views: "_Views", part: _Part, *inputs):
        ctx.aot = (variant, views, part)
        ctx.set_materialize_grads(False)
        pos = {i: k for k, i in enumerate(part.inputs)}
        dirty = [inputs[pos[i]] for i in part.dirty]
        # (A view leaves as a copy of its new value, as from the main node.)
        marked = [t for t in dirty if t._base is None]
        if marked:
            ctx.mark_dirty(*marked)
        return tuple(views.node_outs[v] for v in part.outputs) + \
            tuple(t if t._base is None else t.detach().clone() for t in dirty)

    @staticmethod
    @_first_order_only
    def backward(ctx, *grads):
        variant, views, part = ctx.aot
        tangents = [None] * len(variant.differentiable)
        for v, g in zip(part.outputs, grads):
            tangents[v] = g
        mutated = [None] * len(variant.dupe_of)
        for i, g in zip(part.dirty, grads[len(part.outputs):]):
            mutated[i] = g
        got, got_dirty = _given(tangents, mutated)
        variant.check_versions(views, got, got_dirty)
        if not part.inputs:  # (the gradient ends here, as in eager)
            return (None, None, None, None)
        gs = _backward(variant, views.state, tangents, mutated, unreached=True, keep=True)
        return (None, None, None, *[variant.gradient(i, gs[i], got, got_dirty, views) for i in part.inputs])


class _Views:
    """One training call's outputs that are views of intermediates: which
    leave the autograd node as their base, and how their tangents come back
    from the base's gradient."""

    __slots__ = ("node_outs", "node_diff", "regen", "state", "versions", "saved_held", "held", "arguments", "info",
                 "base_views", "masks")

    def __init__(self, arguments: List[torch.Tensor], info: Any):
        # (Made per training call: the lists only `split` fills are empty
        # tuples until it makes them.)
        self.node_outs: Sequence[Optional[torch.Tensor]] = ()
        self.node_diff: Sequence[bool] = ()
        # Per regenerated output k: (k, base position among the node's
        # outputs, size, stride, offset).
        self.regen: Sequence[Tuple[int, int, Any, Any, int]] = ()
        # The call's forward state, which the backward of every part reads.
        self.state = None
        # Per `_Variant.checks`: a detached alias of what it watches and its
        # version after the call (`_Variant.hold_versions`), or None.
        self.versions: List[Optional[Tuple[torch.Tensor, int]]] = []
        # Per argument the compiled backward reads (`state.saved_args`):
        # the same, without the None.
        self.saved_held: List[Optional[Tuple[torch.Tensor, int]]] = []
        # Each of those once.
        self.held: List[Optional[Tuple[torch.Tensor, int]]] = []
        # The call's arguments (the node's inputs may be leaves over them).
        self.arguments = arguments
        # What the call's key read of them (`_native.CallInfo`), for the
        # forward's binding.
        self.info = info
        # Extra bases: per base, its outputs and their masks (None: no
        # element is reached twice, the plain view of the gradient is it).
        self.base_views: Sequence[List[int]] = ()
        self.masks: Sequence[Optional[List[torch.Tensor]]] = ()

    def split(self, outs, args, differentiable, mask_cache):
        # (Every call of a training region runs this: the common case, no
        # result a view, costs one attribute read per result.)
        for o in outs:
            if isinstance(o, torch.Tensor) and o._base is not None:
                break
        else:
            self.node_outs = list(outs)
            self.node_diff = list(differentiable)
            return
        self.regen, self.base_views, self.masks = [], [], []
        n = len(outs)
        arg_ids = {id(a) for a in args if isinstance(a, torch.Tensor)}
        arg_storages = {a.untyped_storage().data_ptr() for a in args if isinstance(a, torch.Tensor)}
        out_pos = {id(o): k for k, o in enumerate(outs) if isinstance(o, torch.Tensor) and o._base is None}
        node_outs = list(outs)
        node_diff = list(differentiable)
        extra: Dict[int, int] = {}
        for k, o in enumerate(outs):
            b = o._base if isinstance(o, torch.Tensor) else None
            if b is None or id(b) in arg_ids or b.untyped_storage().data_ptr() in arg_storages:
                continue
            j = out_pos.get(id(b))
            if j is None:
                e = extra.get(id(b))
                if e is None:
                    e = extra[id(b)] = len(self.base_views)
                    self.base_views.append([])
                    node_outs.append(b)
                    node_diff.append(False)
                self.base_views[e].append(k)
                j = n + e
                node_diff[j] = node_diff[j] or differentiable[k]
            self.regen.append((k, j, o.size(), o.stride(), o.storage_offset()))
            node_outs[k] = None
        self.node_outs = node_outs
        self.node_diff = node_diff
        geo = {k: (tuple(size), tuple(stride), off) for k, _, size, stride, off in self.regen}
        for e, ks in enumerate(self.base_views):
            # The layouts are the convention's: computed once per variant.
            key = (node_outs[n + e].numel(), tuple(geo[k] for k in ks))
            if key not in mask_cache:
                mask_cache[key] = _first_reach_masks(*key)
            self.masks.append(mask_cache[key])

    def outputs(self, node_outs):
        """The caller's outputs from the node's: views regenerated."""
        outs = list(node_outs[:len(node_outs) - len(self.base_views)])
        for k, j, size, stride, off in self.regen:
            outs[k] = node_outs[j].as_strided(size, stride, off)
        return outs

    def tangents(self, tangents, base_grads, variant):
        """Fills the tangents of regenerated outputs: from the base's
        gradient where the base is an extra output (each storage element's
        gradient given once, to the first view position that reaches it);
        none where the base is another output, whose gradient already
        holds what flowed through the view, or where no gradient reached
        the base."""
        n = len(tangents)
        for k, j, size, stride, off in self.regen:
            if j < n:
                tangents[k] = None
                continue
            e = j - n
            g = base_grads[e]
            if g is None or not variant.differentiable[k]:
                tangents[k] = None
                continue
            g = g.contiguous()
            t = g.as_strided(size, stride, g.storage_offset() + off)
            masks = self.masks[e]
            if masks is not None:
                t = torch.where(masks[self.base_views[e].index(k)], t, torch.zeros((), dtype=t.dtype))
            tangents[k] = t


def _first_reach_masks(numel: int, geos) -> Optional[List[torch.Tensor]]:
    """Per view `(size, stride, offset)` of one storage of `numel`
    elements: a mask of the positions that are the first (over the views
    in order, then positions in order) to reach their element. None when
    every position is the first."""
    idx = torch.arange(numel)
    flats = [idx.as_strided(size, stride, off).reshape(-1) for size, stride, off in geos]
    allf = torch.cat(flats)
    if torch.unique(allf).numel() == allf.numel():
        return None
    pos = torch.arange(allf.numel())
    first = torch.full((numel,), allf.numel(), dtype=torch.long).scatter_reduce(0, allf, pos, "amin")
    keep = first[allf] == pos
    masks, at = [], 0
    for (size, _, _), f in zip(geos, flats):
        masks.append(keep[at:at + f.numel()].reshape(size))
        at += f.numel()
    return masks


def _root(t: torch.Tensor) -> torch.Tensor:
    """The tensor autograd takes a view's gradient into: its `_base`. (A
    view made under no_grad whose base was written in grad mode raises on
    `_base`: PyTorch forbids using it, so it is its own root here and the
    op that uses it raises eager's error.)"""
    try:
        base = t._base
    except RuntimeError:
        return t
    return t if base is None else base


def _is_leaf(t: torch.Tensor) -> Optional[bool]:
    """`t.is_leaf`; None for a view made under no_grad whose base was
    written since, which raises on it (eager, still under no_grad, may use
    its data: the compiled call does too, and an autograd use raises)."""
    try:
        return t.is_leaf
    except RuntimeError:
        return None


@dataclasses.dataclass
class _SaveFact:
    """One tensor eager's derivative formulas save in a region, as a fake
    run saw it: whether the region itself wrote it after the save (its
    version moved), which arguments (tensor positions) and graph outputs
    share its version counter (a later write through one makes it stale),
    and from which graph outputs and arguments' new values eager's backward
    reaches the node that saved it (only a backward that runs that node
    unpacks it, and raises if it is stale)."""
    stale: bool
    args: frozenset
    outs: frozenset
    from_outs: frozenset
    from_args: frozenset
    # For PyTorch's message: the tensor's type and shape, the node that
    # output it (None: a leaf), the versions the fake run saw.
    what: str
    node: Optional[str]
    saved_version: int
    end_version: int
    # The argument (tensor position) the save is itself, whose own node
    # the message names (the fake run's is a stand-in).
    arg_self: Optional[int] = None


@dataclasses.dataclass
class _EagerFacts:
    """What eager's autograd records when it runs a region (`_eager_facts`)."""
    # The arguments (tensor positions) and the graph's outputs (positions
    # among its outputs) eager saves for the backward.
    args_saved: frozenset = frozenset()
    outs_saved: frozenset = frozenset()
    # Per graph output, and per argument's value after the region: the
    # arguments (tensor positions) whose history eager's graph reaches from
    # it. None where the fake run failed.
    out_reach: Optional[Dict[int, frozenset]] = None
    arg_reach: Optional[Dict[int, frozenset]] = None
    # The saved tensors some output's or argument's backward reaches.
    saves: List[_SaveFact] = dataclasses.field(default_factory=list)
    # PyTorch's refusal of an in-place op where the fake run met one (a
    # leaf that requires grad written, a view written in place that may
    # not be): eager raises it in the forward.
    raises: Optional[str] = None


# The errors eager's autograd raises in a forward for an in-place op it
# refuses, or for a tensor made in inference mode that it would save (by
# metadata alone: the fake run meets them as eager does; the convention
# key tells inference tensors apart).
_EAGER_REFUSES = re.compile(r"is being used in an in-place operation|being modified inplace|"
                            r"Inference tensors cannot be saved for backward")


def _eager_facts(gm: Optional[torch.fx.GraphModule], args: Sequence[Any],
                 tensor_index: Dict[int, int]) -> _EagerFacts:
    """Runs the region once on fake tensors as eager would, and reads its
    autograd graph: the tensors its derivative formulas save (`mm` saves
    both operands, `sin` its input, `tanh` its result; a saved-tensor hook
    sees them), which arguments' histories each output reaches (the
    graph's edges, also those a zero gradient flows along, as `fill_`'s),
    and which saved tensors each output's backward unpacks. Empty where the
    fake run fails."""
    if gm is None:
        return _EagerFacts()
    from torch._subclasses.fake_tensor import FakeTensorMode

    # Each save with its version then. The saves an op makes belong to the
    # autograd node it records: its result's `grad_fn`, or for a write
    # into a view, its base's (`CopySlices`, which holds the op's node out
    # of Python's sight).
    saved: List[Tuple[torch.Tensor, int]] = []
    node_saves: Dict[int, set] = {}
    keep_alive: List[Any] = []

    def pack(t):
        saved.append((t, t._version))
        return t

    def ran(first_save: int, result: Any) -> Any:
        if first_save == len(saved):
            return result
        made = set(range(first_save, len(saved)))
        for t in (result if isinstance(result, (tuple, list)) else [result]):
            if not isinstance(t, torch.Tensor):
                continue
            for u in (t, t._base):
                if u is not None and u.grad_fn is not None:
                    keep_alive.append(u.grad_fn)
                    node_saves.setdefault(id(u.grad_fn), set()).update(made)
        return result

    try:
        with FakeTensorMode(allow_non_fake_inputs=False) as mode:
            fakes = [mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args]
            # Where each argument's history starts: its node (or, for a
            # leaf, its accumulator's variable), and its base's. Keyed by
            # id: `keep_alive` holds them so that no id is reused.
            entries: Dict[int, set] = {}
            for p, a in enumerate(fakes):
                if not isinstance(a, torch.Tensor) or not a.requires_grad or p not in tensor_index:
                    continue
                for t in (a, a._base):
                    if t is None:
                        continue
                    key = t.grad_fn if t.grad_fn is not None else t
                    keep_alive.append(key)
                    entries.setdefault(id(key), set()).add(tensor_index[p])
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                outs = _run_graph(gm, fakes, lambda run: ran(len(saved), run()))
            outs = outs if isinstance(outs, (tuple, list)) else [outs]
            # A saved tensor is the argument or output itself, or a view of
            # it (`a.t()` for `mm`): one PyTorch's version check reaches.
            # (Not any tensor of the same storage: saving a view made under
            # no_grad raises another error when unpacked.)
            ts = [t for t, _ in saved]
            seen = {id(t) for t in ts} | {id(t._base) for t in ts if t._base is not None}
            # So is a `detach` of an argument (or of a view of it): it shares
            # the argument's version counter (fuzz seed 51214).
            mates = _version_mates(ts, fakes, tensor_index)
            args_saved = frozenset(tensor_index[p] for p, a in enumerate(fakes)
                                   if isinstance(a, torch.Tensor) and id(a) in seen and p in tensor_index)
            args_saved |= frozenset(i for m in mates.values() for i in m)
            outs_saved = frozenset(k for k, o in enumerate(outs) if isinstance(o, torch.Tensor) and id(o) in seen)

            def walk(t) -> Tuple[frozenset, frozenset]:
                """The arguments whose history `t`'s reaches, and the saves
                its backward unpacks."""
                found: set = set()
                unpacks: set = set()
                if not isinstance(t, torch.Tensor) or not t.requires_grad:
                    return frozenset(), frozenset()
                stack = [t.grad_fn if t.grad_fn is not None else t]
                # (Holding each node visited: PyTorch may make a fresh
                # Python object for a node each time it is read, and free
                # it when dropped, so an id alone could be reused by the
                # next node read: 2.11 does, and the walk stopped early.)
                visited: Dict[int, Any] = {}
                while stack:
                    node = stack.pop()
                    if node is None or id(node) in visited:
                        continue
                    visited[id(node)] = node
                    found |= entries.get(id(node), set())
                    var = getattr(node, "variable", None)
                    if var is not None:
                        found |= entries.get(id(var), set())
                    if isinstance(node, torch.Tensor):
                        continue
                    unpacks.update(node_saves.get(id(node), ()))
                    stack.extend(f for f, _ in node.next_functions)
                return frozenset(found), frozenset(unpacks)

            out_walk = {k: walk(o) for k, o in enumerate(outs)}
            arg_walk = {tensor_index[p]: walk(a) for p, a in enumerate(fakes) if p in tensor_index}
            out_reach = {k: w[0] for k, w in out_walk.items()}
            arg_reach = {i: w[0] for i, w in arg_walk.items()}
            saves = _save_facts(saved, fakes, outs, tensor_index, out_walk, arg_walk, mates)
    except RuntimeError as e:
        if _EAGER_REFUSES.search(str(e)):
            return _EagerFacts(raises=_one_line(e))
        return _EagerFacts()
    except Exception:  # (a region fake tensors cannot run: nothing more known)
        return _EagerFacts()
    return _EagerFacts(args_saved, outs_saved, out_reach, arg_reach, saves)


def _written_and_read(node: torch.fx.Node, all_writes: bool = False) -> Optional[Tuple[List[int], List[int]]]:
    """For an op that writes some of its operands' memory (`add_`, `copy_`,
    `out=`): the schema positions it writes and the positions of its other
    operands that are graph values; None for any other node, or (unless
    `all_writes`) one with nothing else to read."""
    t = node.target
    if node.op != "call_function" or not isinstance(t, torch._ops.OpOverload) or t in fx_ir._META_MUTATIONS:
        return None
    schema = t._schema.arguments
    written = [i for i, a in enumerate(schema) if a.alias_info is not None and a.alias_info.is_write]
    if not written:
        return None
    read = [i for i in range(len(schema)) if i not in written and
            any(isinstance(x, torch.fx.Node) for x in _listed(_schema_value(t, i, node.args, node.kwargs)))]
    return (written, read) if read or all_writes else None


def _schema_value(op: torch._ops.OpOverload, i: int, args: Sequence[Any], kwargs: Dict[str, Any]) -> Any:
    a = op._schema.arguments[i]
    return args[i] if i < len(args) and not a.kwarg_only else kwargs.get(a.name)


def _listed(v: Any) -> Sequence[Any]:
    """An operand as a list of values (a tensor list is its elements)."""
    return v if isinstance(v, (list, tuple)) else [v]


def _share_storage(w: torch.Tensor, x: torch.Tensor) -> bool:
    """Whether two non-empty tensors are views of one storage."""
    from torch.multiprocessing.reductions import StorageWeakRef
    return w.numel() > 0 and x.numel() > 0 and w.device == x.device and \
        StorageWeakRef(w.untyped_storage()) == StorageWeakRef(x.untyped_storage())


def _element_offsets(t: torch.Tensor) -> torch.Tensor:
    """Per position of `t`, the storage element it is (a real tensor of
    `t`'s shape, also for a fake `t`: callers under a fake mode compute
    with it inside `unset_fake_temporarily`)."""
    o = torch.tensor(t.storage_offset())
    for n, s in zip(t.shape, t.stride()):
        o = o.unsqueeze(-1) + torch.arange(n) * s
    return o


def _broadcast_dims(shape: Sequence[int], stride: Sequence[int]) -> List[int]:
    """The dimensions that reach one element at several positions by a
    stride of 0 (an `expand`)."""
    return [d for d, (n, s) in enumerate(zip(shape, stride)) if n > 1 and s == 0]


def _narrowed(shape: Sequence[int], stride: Sequence[int]) -> Tuple[int, ...]:
    """`shape` with its broadcast dimensions (`_broadcast_dims`) cut to one
    position."""
    dims = set(_broadcast_dims(shape, stride))
    return tuple(1 if d in dims else n for d, n in enumerate(shape))


# Above this many elements, an overlap of two layouts' extents is taken for
# an overlap of their elements rather than enumerated.
_OVERLAP_ENUMERATE_LIMIT = 1 << 22


def _reads_written_elsewhere(w: torch.Tensor, x: torch.Tensor, positionwise: bool) -> bool:
    """Whether an op that writes `w` while it reads `x` may read an element
    of `w` at another position than the one it writes from it: there, the
    value it reads depends on whether its kernel has visited that element
    yet. A pointwise op (`positionwise`) reading each element of `w` at its
    own position (`x` is `w`, `w` read through a broadcast that lines up)
    reads it before writing it, whatever the order."""
    if not _share_storage(w, x):
        return False

    def extent(t):  # (in bytes: the two may have elements of other sizes)
        es = t.element_size()
        return t.storage_offset() * es, _extent(t.shape, t.stride(), t.storage_offset()) * es

    (wlo, whi), (xlo, xhi) = extent(w), extent(x)
    if whi <= xlo or xhi <= wlo:
        return False
    if w.element_size() != x.element_size() or w.numel() + x.numel() > _OVERLAP_ENUMERATE_LIMIT:
        return True
    if positionwise and x.dim() <= w.dim():
        # Broadcast `x` to `w`'s positions: equal strides on every dimension
        # of more than one position, and equal offsets, read each element
        # where it is written.
        xs = [0] * (w.dim() - x.dim()) + [s if n != 1 else 0 for n, s in zip(x.shape, x.stride())]
        xn = [1] * (w.dim() - x.dim()) + list(x.shape)
        if all(a in (1, b) for a, b in zip(xn, w.shape)):
            if x.storage_offset() == w.storage_offset() and \
                    all(n == 1 or a == b for n, a, b in zip(w.shape, xs, w.stride())):
                return False
    else:
        positionwise = False
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    with unset_fake_temporarily():
        wo, xo = _element_offsets(w), _element_offsets(x)
        if positionwise:
            try:
                xb = xo.expand(w.shape)
            except RuntimeError:
                return True
            return bool((torch.isin(xb, wo) & (xb != wo)).any())
        return bool(torch.isin(xo, wo).any())


def _partially_overlaps(w: torch.Tensor, x: torch.Tensor) -> bool:
    """PyTorch's `assert_no_partial_overlap(w, x)` raising, as its
    elementwise kernels and `copy_` check their operands (the runtime's
    `mem_overlap`, which the IR's in-place ops check with). Views with
    elements of other sizes are taken to overlap: their region runs in
    PyTorch, which decides."""
    if not _share_storage(w, x):
        return False
    if w.element_size() != x.element_size():
        return True
    geo = [(list(t.shape), list(t.stride()), t.storage_offset()) for t in (w, x)]
    return _native.mem_overlap(*geo) == "partial"


def _reaches_an_element_twice(t: torch.Tensor) -> bool:
    """Whether two positions of `t` are one element of its storage (exact up
    to `_OVERLAP_ENUMERATE_LIMIT` elements, "maybe" beyond)."""
    if _broadcast_dims(t.shape, t.stride()):
        return True
    dims = sorted((s, n) for n, s in zip(t.shape, t.stride()) if n > 1)
    extent = 1
    for s, n in dims:
        if s < extent:
            break
        extent += (n - 1) * s
    else:
        return False  # (each dimension steps over all the ones below it)
    if t.numel() > _OVERLAP_ENUMERATE_LIMIT:
        return True
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    with unset_fake_temporarily():
        o = _element_offsets(t)
        return torch.unique(o).numel() < o.numel()


def _apart(n: torch.fx.Node, spec: Tuple[List[int], List[int]], placeholders: List[torch.fx.Node],
           args: Sequence[Any]) -> bool:
    """Whether the graph alone shows that node `n` cannot read what it
    writes at another position: each written operand and each operand it
    reads are in different storages (different fresh results, or arguments
    of different storages), and no written operand may reach an element
    twice. Such a node needs no run on fake tensors (a batch norm's
    running statistics updated from the batch's: compile time)."""
    op = n.target

    def roots(i):
        return [fx_ir.storage_root(x) if isinstance(x, torch.fx.Node) else ("value",)
                for x in _listed(_schema_value(op, i, n.args, n.kwargs))]

    def storage(root):
        if root[0].op != "placeholder":
            return ("fresh", root[0])
        a = args[placeholders.index(root[0])]
        return ("arg", a.untyped_storage().data_ptr()) if isinstance(a, torch.Tensor) else ("value",)

    for wi in spec[0]:
        for w in roots(wi):
            if w is None or w == ("value",) or w[1]:
                return False
            ws = storage(w)
            if ws[0] == "arg" and _reaches_an_element_twice(args[placeholders.index(w[0])]):
                return False
            for ri in spec[1]:
                for r in roots(ri):
                    if r is None:
                        return False
                    if r != ("value",) and storage(r) == ws:
                        return False
    return True


class _OrderProbe(torch.fx.Interpreter):
    """Runs a graph (on fake tensors) and stops at the first node that
    reads memory it writes elsewhere (`_reads_written_elsewhere`)."""

    class Found(Exception):
        # (Fields of its own: `Interpreter.run` rewrites `args` to add the
        # node it was running.)
        def __init__(self, node: str, why: str):
            super().__init__(why)
            self.node, self.why = node, why

    def __init__(self, gm: torch.fx.GraphModule, watched: Dict[torch.fx.Node, Tuple[List[int], List[int]]]):
        super().__init__(gm)
        self.watched = watched

    def run_node(self, n: torch.fx.Node):
        spec = self.watched.get(n)
        if spec is not None:
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            op = n.target
            positionwise = torch.Tag.pointwise in op.tags or op is torch.ops.aten.copy_.default

            def tensors(i):
                return [t for t in _listed(_schema_value(op, i, args, kwargs)) if isinstance(t, torch.Tensor)]

            for wi in spec[0]:
                for w in tensors(wi):
                    if _reaches_an_element_twice(w):
                        # Eager visits a shared element once per position,
                        # reading what an earlier visit wrote, or refuses
                        # (a stride 0); the translation writes the op's new
                        # value back position by position, the last one
                        # standing (fuzz seed 20995: `index_put_` of rows 0
                        # and 2 of an `as_strided` view whose rows overlap:
                        # row 1's old value won).
                        raise self.Found(n.name, "`%s` writes a view that reaches an element at several "
                                         "positions: eager's values depend on the order its kernel visits "
                                         "them" % op._schema.name.split("::")[-1])
                    for ri in spec[1]:
                        if positionwise and any(_partially_overlaps(w, x) for x in tensors(ri)):
                            # Eager's check, on the operands as written (the
                            # translation may compute one first: `add_`'s
                            # `alpha`, a cast; fuzz seed 20367).
                            raise self.Found(n.name, "eager raises: " + _native.PARTIAL_OVERLAP_ERROR)
                        if any(_reads_written_elsewhere(w, x, positionwise) for x in tensors(ri)):
                            raise self.Found(n.name, "`%s` reads elements of its `%s` at other positions "
                                             "than it writes them: eager's values depend on the order its "
                                             "kernel visits memory" % (op._schema.name.split("::")[-1],
                                                                       op._schema.arguments[wi].name))
        return super().run_node(n)


def _order_dependent_write(gm: torch.fx.GraphModule, args: Sequence[Any]) -> Optional[Tuple[str, str]]:
    """Where (a node's name), and why, the region's values depend on the
    order an eager kernel visits memory, or None: an in-place (or `out=`) op that reads, through another
    operand, elements of its destination at other positions than it writes
    them (`a -= a[:, :1]`, `v.add_(v[0])`, `v.mul_(v.flip(0))`). Eager's
    kernel reads some of them before and some after writing them, in an
    order of its own (PyTorch calls such overlap undefined and refuses only
    the cases it can prove); functionalization, AOTAutograd's as aot's,
    reads them all before. Run by PyTorch, the region gives eager's values.
    Found by a run on fake tensors, which carry each operand's storage and
    layout at that point of the program."""
    # Only views made by these, or arguments, can reach an element twice:
    # without them, only ops that read another operand need the probe.
    overlapping = fx_ir.calls_any(gm.graph, fx_ir.OVERLAPPING_VIEWS) or \
        any(isinstance(a, torch.Tensor) and _reaches_an_element_twice(a) for a in args)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    static = len(placeholders) == len(args) and not fx_ir.calls_any(gm.graph, fx_ir.STORAGE_MUTATIONS)
    watched = {}
    for n in gm.graph.nodes:
        spec = _written_and_read(n, all_writes=overlapping)
        if spec is not None and not (static and _apart(n, spec, placeholders, args)):
            watched[n] = spec
    if not watched:
        return None
    from torch._subclasses.fake_tensor import FakeTensorMode
    try:
        with FakeTensorMode(allow_non_fake_inputs=False) as mode, torch.no_grad():
            fakes = [mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args]
            _OrderProbe(gm, watched).run(*fakes)
    except _OrderProbe.Found as e:
        return e.node, e.why
    except Exception:  # (a region fake tensors cannot run: eager's own checks decide)
        return None
    return None


def _version_mates(ts: Sequence[torch.Tensor], fakes: Sequence[Any], tensor_index: Dict[int, int]) -> Dict[int, set]:
    """Per saved tensor (by id): the arguments (tensor positions) that share
    its version counter without being it or its root: it is a `detach` of
    the argument or of a view of it, so writing the argument bumps the
    version its backward checks. (Sharing a storage alone does not: a
    `set_` alias has a counter of its own.) Found on the fake run's tensors
    by moving one counter and watching the other."""
    by_storage: Dict[int, List[int]] = {}
    for p, a in enumerate(fakes):
        if isinstance(a, torch.Tensor) and p in tensor_index:
            by_storage.setdefault(a.untyped_storage()._cdata, []).append(p)
    mates: Dict[int, set] = {}
    if not by_storage:
        return mates
    for t in ts:
        for p in by_storage.get(t.untyped_storage()._cdata, ()):
            a = fakes[p]
            if a is t or a is _root(t):
                continue
            va, vt = a._version, t._version
            torch._C._autograd._unsafe_set_version_counter((a,), (va + 1,))
            shared = t._version != vt
            torch._C._autograd._unsafe_set_version_counter((a,), (va,))
            if shared:
                mates.setdefault(id(t), set()).add(tensor_index[p])
    return mates


def _save_facts(saved, fakes, outs, tensor_index, out_walk, arg_walk, mates=None) -> List[_SaveFact]:
    """`_SaveFact`s of a fake run's saves that some backward unpacks (a save
    is tied to the arguments it is, views, or shares a version counter with:
    `mates`, from `_version_mates`)."""
    roots_args: Dict[int, set] = {}
    for p, a in enumerate(fakes):
        if isinstance(a, torch.Tensor) and p in tensor_index:
            roots_args.setdefault(id(_root(a)), set()).add(tensor_index[p])
    roots_outs: Dict[int, set] = {}
    for k, o in enumerate(outs):
        if isinstance(o, torch.Tensor):
            roots_outs.setdefault(id(_root(o)), set()).add(k)
    arg_self = {id(a): tensor_index[p] for p, a in enumerate(fakes) if isinstance(a, torch.Tensor) and p in tensor_index}
    facts = []
    for s, (t, version) in enumerate(saved):
        from_outs = frozenset(k for k, (_, u) in out_walk.items() if s in u)
        from_args = frozenset(i for i, (_, u) in arg_walk.items() if s in u)
        if not from_outs and not from_args:
            continue
        r = id(_root(t))
        what = _described(t)
        tied = roots_args.get(r, set()) | (mates or {}).get(id(t), set())
        facts.append(_SaveFact(t._version != version, frozenset(tied),
                               frozenset(roots_outs.get(r, ())), from_outs, from_args, what, _node_of(t),
                               version, t._version, arg_self.get(id(t))))
    return facts


def _modified_wording() -> Tuple[bool, str]:
    """How this PyTorch words its error for a saved tensor written before
    the backward: whether it names a node without its `Backward0` suffix,
    and the hint its message ends with (read from the error itself, which
    changes between versions)."""
    hint = (" Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True).")
    try:
        with torch.enable_grad():
            a = torch.ones(1, requires_grad=True).cos()
            y = a.sin()
            with torch.no_grad():
                a.mul_(2)
            y.backward()
    except RuntimeError as e:
        msg = str(e)
        k = msg.find(" Hint:")
        return "of Cos," in msg, msg[k:] if k >= 0 else ""
    return True, hint


_SHORT_NODE_NAMES, _MODIFIED_HINT = _modified_wording()
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def _node_of(t: torch.Tensor) -> Optional[str]:
    """How PyTorch's message names the node that output `t` (None: a
    leaf, which it does not name)."""
    try:
        fn = t.grad_fn
    except RuntimeError:
        return None
    if fn is None:
        return None
    name = fn.name()
    return "output %d of %s" % (t.output_nr, _BACKWARD_SUFFIX.sub("", name) if _SHORT_NODE_NAMES else name)


def _modified(what: str, node: Optional[str], version: int, expected: int) -> RuntimeError:
    """PyTorch's error for a saved tensor written before the backward."""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[%s]%s is at version %d; expected version %d instead.%s"
        % (what, "" if node is None else ", which is %s," % node, version, expected, _MODIFIED_HINT))


def _described(t: torch.Tensor) -> str:
    """A tensor as PyTorch's version error names it: `torch.FloatTensor [3, 2]`."""
    return "%s [%s]" % (t.type(), ", ".join(str(n) for n in t.shape))


def _base_groups(tensors: Sequence[torch.Tensor], keep: frozenset) -> List[List[int]]:
    """Groups of arguments (positions, duplicates included) that view one
    storage beside each other, where one is a non-leaf that requires grad
    and is bound as itself (it is written: `keep`). A write through one
    reaches the others, so their gradients meet in the storage: the
    compiled code takes them as views of a differentiable base, a 1-D view
    of their common `_base` over the whole storage (`_flat`), and returns
    that base's gradient, which autograd takes on into `_base`. Taken only
    where every member requires grad and all have one `_base` (the
    convention key holds both); elsewhere the runtime refuses the
    convention and the region runs in PyTorch."""
    by_storage: Dict[int, List[int]] = {}
    first: Dict[int, int] = {}
    for i, t in enumerate(tensors):
        if first.setdefault(id(t), i) == i:
            by_storage.setdefault(t.untyped_storage().data_ptr(), []).append(i)
    groups = []
    for ptr, members in by_storage.items():
        ts = [tensors[i] for i in members]
        if not ptr or len(ts) < 2 or not any(i in keep and t.requires_grad and not t.is_leaf
                                             for i, t in zip(members, ts)):
            continue
        if all(t.requires_grad and t.is_floating_point() for t in ts) and len({id(_root(t)) for t in ts}) == 1:
            ids = {id(t) for t in ts}
            groups.append([i for i, t in enumerate(tensors) if id(t) in ids])
    return groups


def _flat(t: torch.Tensor) -> torch.Tensor:
    """A view of `t`'s `_base` over its whole storage: 1-D, stride 1."""
    n = t.untyped_storage().nbytes() // t.element_size()
    return _root(t).as_strided((n,), (1,), 0)


def _leaves_over(tensors: Sequence[Any], take) -> List[Any]:
    """The tensors, those at the positions `take(i, t)` picks as leaves that
    require grad over the same memory and version counter
    (`detach().requires_grad_()`): one per object, so a duplicate argument
    stays one object."""
    made: Dict[int, torch.Tensor] = {}
    out = []
    for i, t in enumerate(tensors):
        if isinstance(t, torch.Tensor) and take(i, t):
            s = made.get(id(t))
            if s is None:
                s = made[id(t)] = t.detach().requires_grad_()
            t = s
        out.append(t)
    return out


def _cut(tensors: Sequence[torch.Tensor], cut: frozenset) -> List[torch.Tensor]:
    """The node's inputs: the objects at positions in `cut` (first
    positions) that require grad, as leaves over their memory (no edge
    into their history)."""
    objects = {id(tensors[i]) for i in cut}
    return _leaves_over(tensors, lambda i, t: id(t) in objects and t.requires_grad)


def _native_backend(cfg: Config, tensors: Sequence[torch.Tensor]) -> str:
    """The native backend for a graph over `tensors`: the configured one for
    CPU tensors, ``cuda`` for CUDA tensors, which run there in place. A graph
    that mixes devices, or whose CUDA tensors this build cannot run, runs in
    PyTorch with the reason."""
    devices = {t.device.type for t in tensors}
    if devices <= {"cpu"}:
        return cfg.native_backend
    if devices != {"cuda"}:
        raise fx_ir.Unsupported("arguments", "tensors on several devices (%s)" % ", ".join(sorted(devices)))
    why = _native.cuda_unavailable()
    if why is not None:
        raise fx_ir.Unsupported("arguments", "CUDA tensors: " + why)
    return "cuda"


def _bind(tensors: Sequence[torch.Tensor], keep: frozenset = frozenset()) -> List[torch.Tensor]:
    """The tensors aot is called with. A non-leaf that requires grad (an
    activation from an earlier region, a view of a parameter) is, for the
    compiled code, an input whose gradient it returns: autograd routes that
    gradient through the tensor's own history, as for AOTAutograd's inputs.
    aot takes it as a leaf over the same memory and version counter
    (`detach().requires_grad_()`); one stand-in per object, so a duplicate
    argument stays one object. The arguments in `keep` (those the program
    writes) are bound as they are: their writes are autograd's to see."""
    return _leaves_over(tensors, lambda i, t: t.requires_grad and not t.is_leaf and i not in keep)


class _Variant:
    """One region compiled for one calling convention."""

    def __init__(self, translation: "fx_ir.Translation", args: Sequence[Any], cfg: Config, training: bool,
                 aten_gm: Optional[torch.fx.GraphModule] = None, sizes: Optional["symbolic.SizeBinder"] = None):
        # With symbolic sizes, the results' shapes, strides and offsets are
        # SymInts: everything below decides with the ones of this call's
        # sizes, and each call takes those of its own (`_rebind`).
        self.sizes = sizes
        self.symbolic_translation = translation
        self.bound: Optional[Tuple[int, ...]] = None
        if sizes is not None:
            self.bound = sizes.values(args)
            translation = sizes.translation(translation, self.bound)
        self.translation = translation
        self.training = training
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        self.tensor_pos = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        module = _native.Module(translation.text, "<aot_torch>")
        # Translation indices count every graph input; these count tensors.
        self.tensor_index = {p: k for k, p in enumerate(self.tensor_pos)}
        self.mutated = frozenset(self.tensor_index[i] for i in translation.mutated_inputs if i in self.tensor_index)
        # Those written at least once with grad on: the others' writes are
        # all under no_grad, where eager records no history (fuzz seed 29101).
        self.mutated_with_grad = frozenset(
            self.tensor_index[i] for i in translation.inputs_written_with_grad if i in self.tensor_index)
        self.written_through_views = frozenset(
            self.tensor_index[i] for i in translation.inputs_written_through_views if i in self.tensor_index)
        if training:
            for i in sorted(self.mutated):
                t = tensors[i]
                if t._base is not None and t.requires_grad and _broadcast_dims(t.shape, t.stride()):
                    # Autograd records a written view's new value with a
                    # copy into it (below, in `__call__`), which PyTorch
                    # refuses for a view that reaches an element at several
                    # positions (an `expand` written through a part that
                    # does not: `a1[3:] = w`), and the node's gradient of
                    # such a view's new value is not eager's. PyTorch runs
                    # it (fuzz seed 18764).
                    raise fx_ir.Unsupported("argument %d" % i, "a written view that requires grad reaches its "
                                            "elements at several positions (stride 0)")
        # Arguments written through any alias: an in-place op bumps the
        # version counter of what it writes, also a metadata change of a view
        # of an argument, which aot's effects on the argument do not show.
        self.written = sorted(self.mutated)
        # Per argument, the earlier position of the same tensor, if any.
        first: Dict[int, int] = {}
        self.dupe_of: List[Optional[int]] = []
        for i, t in enumerate(tensors):
            j = first.setdefault(id(t), i)
            self.dupe_of.append(j if j != i else None)
        passed_twice = {i for i, j in enumerate(self.dupe_of) if j is not None} | \
            {j for j in self.dupe_of if j is not None}
        self.base_groups = _base_groups(tensors, self.mutated) if training else []
        # Arguments bound as themselves: the written ones, and the members
        # of a differentiable base (views of it, not leaves of their own).
        members = frozenset(i for g in self.base_groups for i in g)
        self.keep = self.mutated | members
        # Not training with an argument that requires grad: grad mode is
        # off, and the arguments' autograd flags do not count.
        self.fn = module.compile(_bind(tensors, self.keep), pipeline=cfg.pipeline_for(training),
                                 backend=_native_backend(cfg, tensors),
                                 bases=list(zip(self._flats(tensors), self.base_groups)), no_grad=not training,
                                 report=compile_report.detailed(), progress=compile_report.progress_on())
        info = self.fn.info()
        # Arguments that require grad written where autograd sees it (not
        # under no_grad, where eager allows it to a leaf too: an optimizer or
        # EMA step written in the model): the autograd node marks them dirty,
        # as an in-place op would, and their new value's gradient flows into
        # the backward. Eager refuses it for a leaf or a view of one (so did
        # the trace, before this); a metadata change of one is not supported.
        # An argument that did not require grad and is written with a value
        # that does becomes a non-leaf that requires grad, as in eager.
        self.dirty: List[int] = []
        for i, m in enumerate(info["inputs"] if training else ()):
            if m["requires_grad"] and m["mutates_metadata"]:
                raise fx_ir.Unsupported("input %d" % i, "a metadata change of an input that requires grad")
            seen = m["mutates_data"] and not m["mutation_hidden_from_autograd"]
            if m.get("mutation_takes_tangent"):
                if i in passed_twice:
                    raise fx_ir.Unsupported("input %d" % i, "an input passed twice is written where autograd sees it")
                self.dirty.append(i)
            elif seen and m["requires_grad"]:
                raise fx_ir.Unsupported("input %d" % i, "an input that requires grad is written, without a tangent")
        # The user's outputs: after them come the members of a synthetic
        # base whose metadata the program changed, which the runtime lays
        # out itself with `as_strided_` (fuzz seed 7544: `v0.transpose_`,
        # `v0` a view of another argument).
        outputs = info["outputs"][:len(translation.result_meta)]
        self.aliases = [o["aliases_input"] for o in outputs]
        # How the runtime hands results over: a view in eager, or a detach
        # (which eager gives no `_base` but which aliases another value),
        # does not own a storage another result covers too, so that the
        # value it aliases does (fuzz seed 33514: `return v0.detach(), v0`
        # made `v0` a view of its detach, without grad).
        self.export_views = [v or d is not None for v, d in zip(translation.result_is_view, translation.result_detach)]
        # Results of one fresh value in eager, which share its storage
        # there (`_restride_together`).
        by_root: Dict[int, List[int]] = {}
        for k, r in enumerate(translation.result_fresh_root):
            if r is not None and self.aliases[k] is None:
                by_root.setdefault(r, []).append(k)
        self.fresh_groups = [ks for ks in by_root.values() if len(ks) > 1]
        for ks in self.fresh_groups:
            if any(translation.result_detached_history[k] for k in ks):
                # Eager's share one storage, and the detach is no view with
                # a history of its own, which no tensor aot can hand out is
                # (fuzz seed 92900's `return v2, v0`).
                raise fx_ir.Unsupported("output", "a detached alias an in-place op gave a history, returned with "
                                        "the value whose storage it shares")
        # Of the arguments that share a storage, the runtime names one for
        # every output that views it; eager's view is of the argument the
        # program took it from, whose history and flags it has (fuzz seed
        # 7810: `v4 = a0.select(0, 0)` named `v1 = a0[:, 2:3]`, a member
        # of a differentiable base the program then writes, and
        # regenerated from it, `v4` lost its gradient; seed 8635:
        # `a2.reshape(6, 2)` named `a2.detach()`, and did not require
        # grad).
        for k, i in enumerate(self.aliases):
            j = translation.result_view_of[k]
            j = self.tensor_index.get(j) if j is not None else None
            if i is not None and j is not None and j != i and \
                    tensors[j].untyped_storage().data_ptr() == tensors[i].untyped_storage().data_ptr():
                self.aliases[k] = j
        # An output that is an argument itself (AOTAutograd's `is_input`:
        # `x.add_(y); return x`) is returned as that very tensor, as eager
        # returns it, not as a new view of it.
        # Also where aot's metadata calls it a view of a synthetic base
        # (`a.index_put_(...); return a` with `a` sharing a storage): the
        # translation knows the object.
        self.same_object: List[Optional[int]] = []
        for r, a, o in zip(translation.result_input, self.aliases, outputs):
            same = self.tensor_index.get(r) if r is not None else None
            self.same_object.append(same if same is not None else (a if o["is_input"] else None))
        # A detached alias of an argument that an in-place op recorded by
        # autograd wrote (`v0 = a0.detach(); v0.copy_(a0)`) has a history
        # of its own in eager: that op's, not the argument's. The node's
        # output is its new value, and the caller gives the alias that
        # history (fuzz seed 18695).
        self.adopted = [training and o["requires_grad"] and o["aliases_input"] is not None and
                        o.get("output_type") == "non_alias" and translation.result_detach[k] is not None
                        for k, o in enumerate(outputs)]
        for k, a in enumerate(self.adopted):
            shape, st = translation.result_meta[k][0], translation.result_strides[k]
            if not a or translation.result_detach[k] != "inner" or st is None:
                continue
            kept = [d for d in range(len(shape)) if d not in _broadcast_dims(shape, st)]
            if _reaches_an_element_twice(
                    torch.empty_strided([shape[d] for d in kept], [st[d] for d in kept], device="meta")):
                # (A view of the alias that reaches an element twice other
                # than through a stride 0, an `expand`, which `_adopted`
                # handles: its positions would each take the element's
                # gradient.)
                raise fx_ir.Unsupported("output %d" % k, "a view that reaches an element at several positions "
                                        "of a detached alias an in-place op gave a history")
        self.differentiable = [o["requires_grad"] and (o["aliases_input"] is None or self.adopted[k])
                               for k, o in enumerate(outputs)]
        self.grad_reaches = [m.get("grad_reaches", True) for m in info["inputs"]]
        # The arguments (objects, by first position) no gradient can reach
        # and that the node neither writes nor takes as a base's member: the
        # node takes a leaf over their memory instead (`_cut`), so it has no
        # edge into their history. An edge the node's backward sends None
        # along still makes autograd run the node at its end, whose saved
        # tensors a later write may have made stale: eager's graph, where
        # nothing of the program reaches that history, trains (fuzz seed
        # 5706: `cumprod`'s input written after it, its result only feeding
        # dead code).
        facts = _eager_facts(aten_gm, args, self.tensor_index) if training else _EagerFacts()
        # Arguments no gradient of the compiled code reaches, but eager's
        # graph does, along edges that carry zeros (`copy_` over a value
        # that depended on them: its `self` gets zeros): eager's `.grad`
        # is zeros, not None, so they keep their edge and get zeros (fuzz
        # seed 41144: `a2.index_put_(..., a0, accumulate=True)`, then
        # `a2.copy_(v0)` and `a2.exp()` returned).
        eager_reach: set = set()
        if facts.out_reach is not None and facts.arg_reach is not None:
            for r in facts.out_reach.values():
                eager_reach |= r
            for j in self.dirty:
                eager_reach |= facts.arg_reach.get(j, frozenset())
        self.zeros_reach = [not r and i in eager_reach for i, r in enumerate(self.grad_reaches)]
        held = set(self.dirty) | members
        reached = {id(tensors[i]) for i, r in enumerate(self.grad_reaches) if r or i in held or self.zeros_reach[i]}
        unreached = frozenset(i for i, t in enumerate(tensors) if self.dupe_of[i] is None and id(t) not in reached)
        if facts.raises is not None:
            # Run by PyTorch, the region raises eager's error after the ops
            # before it, as eager (fuzz seed 15820: after `v2[2:] = v4`,
            # `v2` a view of a leaf that did not require grad, eager takes
            # the view for a leaf that requires grad and refuses its
            # `masked_fill_`).
            raise fx_ir.Unsupported("region", "eager raises: " + facts.raises)
        self.eager_saved, saved_outs = facts.args_saved, facts.outs_saved
        # Not the arguments the region writes: eager saved them before the
        # write, and whether its backward reads that save depends on which
        # of the region's results reach the loss (`mm(a.t(), a)` whose
        # result is overwritten), which one node cannot tell.
        self.eager_saved -= self.mutated
        # The compiled backward may read arguments eager's does not save (a
        # min-cut partition recomputes from an input where eager saved an
        # output): writing those stays allowed as in eager, so their memory
        # is copied for the backward; the ones eager saves stay shared (the
        # node saves them, and writing one raises as in eager).
        if training:
            self.fn.copy_saved_arguments([i not in self.eager_saved for i in range(len(tensors))])
        # The results (IR result positions) of the graph outputs eager saves.
        # Only fresh ones: an output that is (a view of) an argument is the
        # argument's business (above).
        self.eager_saved_results = frozenset(
            v for i, (kind, v) in enumerate(translation.outputs)
            if kind == "tensor" and i in saved_outs and self.aliases[v] is None)
        # A value the compiled forward saves in the memory of an output eager
        # does not save is copied: writing that output stays allowed, as in
        # eager, and must not change what the backward reads.
        if training:
            self.fn.copy_saved_outputs([v not in self.eager_saved_results for v in range(len(translation.result_types))])
        self.out_meta = translation.result_meta
        self.main_keeps: frozenset = frozenset()
        self.parts = self._parts(facts, tensors, members) if training else []
        self.part_inputs = frozenset(i for part in self.parts for i in part.inputs)
        self.part_outputs = frozenset(v for part in self.parts for v in part.outputs)
        # The main node's own: the arguments it writes, and those it takes
        # as leaves (no edge): the unreached ones and the parts' (but those
        # it shares with a node peeled off it, `_peel_main`).
        self.main_dirty = [i for i in self.dirty if i not in self.part_inputs]
        self.cut = unreached | (self.part_inputs - self.main_keeps)
        self.reached_from = self._reached_from(facts, members)
        self.checks = self._version_checks(facts)
        self.any_stale = any(c.fact.stale for c in self.checks)
        # (Which arguments share a storage is part of the convention: once.)
        self.stale = self._stale(tensors)
        # Masks of `_first_reach_masks` per layout of views of one base.
        self.mask_cache: Dict[Any, Optional[List[torch.Tensor]]] = {}
        # An inference call whose results need none of the work of
        # `__call__` after the compiled code (no result aliases an argument,
        # is a detach or a view eager marks, or shares a storage with
        # another) returns them as the runtime gives them, once their
        # strides are eager's: `(result, eager's strides)` for the results
        # whose strides eager fixes (None: not such a variant).
        # A training call of the same kind (`lean`: nor does it write an
        # argument, take one as a leaf or over its storage, or have
        # independent parts) needs of that work only the version counters
        # its backward checks (`hold_versions`).
        tr = translation
        plain_results = not self.fresh_groups and not any(self.adopted) and not any(self.stale) and \
            all(a is None for a in self.aliases) and all(s is None for s in self.same_object) and \
            all(d is None for d in tr.result_detach) and not any(tr.result_no_grad_view) and \
            not any(tr.result_multi_view) and not any(tr.result_is_view) and \
            not any(tr.result_through_no_grad_view)
        self.plain = plain_results and not training
        self.lean = plain_results and training and not self.parts and not self.dirty and not self.base_groups \
            and not self.cut and not self.written_through_views
        self.plain_strides = [(k, st) for k, st in enumerate(tr.result_strides) if st is not None] \
            if self.plain or self.lean else None
        # What a training call regenerates: the results that alias an
        # argument (as views of it), but for the argument itself.
        self.no_mutated: List[None] = [None] * len(self.dupe_of)
        self.train_regen = [i is not None and self.same_object[k] is None for k, i in enumerate(self.aliases)]
        # The results are the graph's outputs in order (else a list is made).
        self.outputs_in_order = list(tr.outputs) == [("tensor", k) for k in range(len(tr.outputs))]
        if sizes is not None:
            # What symbolic sizes take: arguments bound as themselves. The
            # facts of shared storages and of detached aliases are decided
            # on one call's layouts, which another size changes. A result
            # that aliases an argument is regenerated from the argument
            # with the layout the compiled code gives it at this call's
            # sizes; which argument it aliases, and how (a view made before
            # a write, a detach, the argument itself), is the graph's, the
            # same at every size the guards admit (in training too: the
            # backward resolves its routes per set of sizes). So are a
            # training region's independent parts (which outputs' histories
            # reach which arguments: a decoder's loss and its key/value
            # cache).
            if self.base_groups or self.fresh_groups or any(self.adopted):
                raise fx_ir.Unsupported("region", "with symbolic sizes: arguments or results that share a storage")

    def _rebind(self, args: Sequence[Any]) -> None:
        """Takes the results' metadata of this call's sizes."""
        values = self.sizes.values(args)
        if values != self.bound:
            tr = self.sizes.translation(self.symbolic_translation, values)
            self.translation = tr
            self.out_meta = tr.result_meta
            self.plain_strides = [(k, st) for k, st in enumerate(tr.result_strides) if st is not None] \
                if self.plain or self.lean else None
            self.bound = values

    def gradient(self, i: int, g: Any, got: set, got_dirty: set, views: "_Views") -> Any:
        """Argument i's gradient from a backward's `g`, as eager's graph
        gives it: one per object (None for a repeat), None where no
        gradient can reach it or none reached it in this backward, zeros
        where only eager's edges reach it (`zeros_reach`)."""
        if self.dupe_of[i] is not None or not self.reached(i, got, got_dirty):
            return None
        if self.grad_reaches[i]:
            return g
        if self.zeros_reach[i]:
            return g if g is not None else torch.zeros_like(views.arguments[i])
        return None

    def reached(self, i: int, got: set, got_dirty: set) -> bool:
        """Whether eager's graph sends argument i a gradient, given the
        outputs and written arguments a backward has gradients for
        (`reached_from`; unknown: it does)."""
        src = self.reached_from.get(i)
        return src is None or bool(src[0] & got) or bool(src[1] & got_dirty)

    def _reached_from(self, facts: _EagerFacts, members: frozenset) -> Dict[int, Tuple[frozenset, frozenset]]:
        """Per argument (first position) a node differentiates (the main
        one's or a part's): the outputs (IR result positions) and written arguments whose eager
        history reaches its history. Where none of them gets a gradient,
        eager's graph sends the argument nothing, so the node returns None
        for it, not zeros (fuzz seed 53: `v1 = a0.clone()` leaves one
        region, the next writes `v1[3] = v0` and returns `v0.sum()`; `v1`'s
        new value reaches nothing, and `a0`'s leaf keeps `.grad` None).
        Arguments an output that aliases an argument reaches are left out
        (that output's gradient flows outside the node), unless the node
        writes that argument: then it comes back as the written argument's
        gradient. So are the members of
        a differentiable base, whose gradient is the base's."""
        self.base_reached_from: Dict[int, Tuple[frozenset, frozenset]] = {}
        if facts.out_reach is None or facts.arg_reach is None:
            return {}
        outs: Dict[int, set] = {}
        blocked: set = set()
        dirty: Dict[int, set] = {}
        for k, (kind, v) in enumerate(self.translation.outputs):
            for i in facts.out_reach.get(k, frozenset()):
                if kind == "tensor" and self.adopted[v]:
                    # (Its gradient comes through the node: `_adopted`.)
                    outs.setdefault(i, set()).add(v)
                elif kind == "tensor" and self.aliases[v] in self.main_dirty:
                    # (That argument, or a view of it: its gradient comes
                    # back as the written argument's, fuzz seed 15491.)
                    dirty.setdefault(i, set()).add(self.aliases[v])
                elif kind != "tensor" or self.aliases[v] is not None:
                    blocked.add(i)
                else:
                    outs.setdefault(i, set()).add(v)
        for j in self.dirty:
            for i in facts.arg_reach.get(j, frozenset()):
                dirty.setdefault(i, set()).add(j)
        # A differentiable base's gradient is its members': none where no
        # gradient reached any of them (fuzz seed 17931: `a0.abs_()` and
        # `a2[:1] = a1`, `a0`, `a1` views of one base, and the loss only on
        # `a2.double()` taken before).
        self.base_reached_from = {}
        for b, group in enumerate(self.base_groups):
            if not any(i in blocked for i in group):
                self.base_reached_from[b] = (frozenset(v for i in group for v in outs.get(i, ())),
                                             frozenset(j for i in group for j in dirty.get(i, ())))
        return {i: (frozenset(outs.get(i, ())), frozenset(dirty.get(i, ())))
                for i, d in enumerate(self.dupe_of)
                if d is None and i not in blocked and i not in members}

    def _stale(self, tensors: Sequence[torch.Tensor]) -> List[bool]:
        """Per output: a view eager made before a write into its storage
        (`Translation.result_stale_view`), through the argument it views or
        through another argument of that storage (fuzz seed 7236: `v3 =
        a1.split(2, 1)[0]`, then `a0.masked_fill_` under no_grad, `a0` and
        `a1` views of one base)."""
        out = []
        for k, written in enumerate(self.translation.result_stale_view):
            i = self.aliases[k]
            if i is None or not written:
                out.append(False)
                continue
            st = tensors[i].untyped_storage().data_ptr()
            out.append(any(j in self.tensor_index and
                           tensors[self.tensor_index[j]].untyped_storage().data_ptr() == st
                           for j in written))
        return out

    def _version_checks(self, facts: _EagerFacts) -> List["_VersionCheck"]:
        """What eager's backward checks of the region's saves, in terms of
        the nodes' tangents: a save the region wrote after it (fuzz seed
        15011: `v1 = a2.amax(1)`, then `v3 -= v4` with `v3` a view of
        `a2`) raises once a gradient reaches the node that saved it; one
        that shares the version counter of an argument or output raises
        there if that was written after the call (fuzz seed 14754: `a0`'s
        `tanh_` result, `a0`'s storage written under no_grad in a later
        region). A backward that does not reach the node never unpacks it,
        and eager trains, though the compiled node computes all of the
        region's gradients in one (fuzz seeds 15324, 15491)."""
        checks = []
        for f in facts.saves:
            outs: set = set()
            dirty: set = set()
            for k in f.from_outs:
                kind, v = self.translation.outputs[k]
                if kind != "tensor":
                    continue
                i = self.aliases[v]
                if i is None:
                    outs.add(v)
                elif i in self.dirty:
                    dirty.add(i)
            dirty.update(i for i in f.from_args if i in self.dirty)
            target: Optional[Tuple[str, int]] = None
            if f.args:
                target = ("arg", min(f.args))
            else:
                for k in sorted(f.outs):
                    kind, v = self.translation.outputs[k]
                    if kind == "tensor":
                        target = ("out", v)
                        break
            if (outs or dirty) and (f.stale or target is not None):
                checks.append(_VersionCheck(f, frozenset(outs), frozenset(dirty), target))
        return checks

    def check_versions(self, views: "_Views", got: set, got_dirty: set):
        """Raises PyTorch's error where eager's backward, given gradients for
        the outputs `got` and written arguments `got_dirty` (`_given`),
        would unpack a save that was written since."""
        # The watched counters that moved since the call, each read once
        # (`hold_versions` holds one alias per tensor); where none did and
        # no save is stale, nothing raises.
        moved = {id(h) for h in views.held if h is not None and h[0]._version != h[1]}
        if not moved and not self.any_stale:
            return
        for k, c in enumerate(self.checks):
            f = c.fact
            held = views.versions[k] if k < len(views.versions) else None
            if not f.stale and (held is None or id(held) not in moved):
                continue
            if not (c.outs & got or c.dirty & got_dirty):
                continue
            if f.stale:
                raise _modified(f.what, f.node, f.end_version, f.saved_version)
            node = f.node if f.arg_self is None else _node_of(views.arguments[f.arg_self])
            raise _modified(f.what, node, held[0]._version, held[1])
        # The arguments whose memory the compiled backward reads (eager
        # saves them somewhere: the others are copied). Where eager's
        # backward for these gradients reads none of what was written
        # since, but this one would, it cannot give eager's answer.
        # (The versions first: the needs are looked up only for a write.)
        for k, held in enumerate(views.saved_held):
            if held is None or id(held) not in moved:
                continue
            need = views.state.saved_arg_needs[k]
            if need is None or set(need[0]) & got or set(need[1]) & got_dirty:
                raise _modified(_described(held[0]), _node_of(views.arguments[views.state.saved_args[k]]),
                                held[0]._version, held[1])

    def hold_versions(self, views: "_Views", tensors: Sequence[torch.Tensor], outs: Sequence[Any]):
        """After a call: the version counters the checks watch, with their
        versions (a detached alias shares the counter without holding the
        node)."""
        # (One detached alias per tensor: checks and saved arguments often
        # watch the same ones, a model's parameters.)
        made: Dict[int, Optional[Tuple[torch.Tensor, int]]] = {}

        def hold(t):
            h = made.get(id(t), False)
            if h is False:
                h = made[id(t)] = None if t.is_inference() else (t.detach(), t._version)
            return h

        held = []
        for c in self.checks:
            t = None
            if c.target is not None:
                kind, i = c.target
                t = tensors[i] if kind == "arg" else outs[i]
            held.append(hold(t) if isinstance(t, torch.Tensor) else None)
        views.versions = held
        views.saved_held = [hold(tensors[i]) for i in views.state.saved_args]
        views.held = list(made.values())

    def _parts(self, facts: _EagerFacts, tensors: Sequence[torch.Tensor], members: frozenset) -> List["_Part"]:
        """The region's independent parts beyond the first: groups of
        arguments that require grad with the outputs (and written
        arguments' new values) whose eager history reaches only them. Each
        becomes an autograd node of its own, so that a backward reaching
        one part does not run the others' histories (which eager's graph
        never reaches: their `.grad` stays None, and their saved tensors
        may be stale: fuzz seeds 5623, 4877). The first part is the main
        node's; a group with an output that is a view, or with a
        differentiable base's member, stays with it. (A written view is
        written by the caller, from the node's new value, as the main
        node's are: fuzz seed 15324, whose written `a0` and `v1` views of
        two storages were one node, and a backward from `a0` ran `v1`'s
        stale history.)"""
        if facts.out_reach is None or facts.arg_reach is None:
            return []
        is_view = self.translation.result_is_view
        # Outputs that require grad although no argument's history is
        # behind them in eager (`amax` of a view made under no_grad: the
        # gradient ends in that view, a leaf): a node of their own, over a
        # leaf of no consequence (fuzz seed 5973).
        unrooted = sorted(v for k, (kind, v) in enumerate(self.translation.outputs)
                          if kind == "tensor" and self.differentiable[v] and not is_view[v]
                          and not facts.out_reach.get(k))
        tail = [_Part(inputs=[], outputs=unrooted, dirty=[])] if unrooted else []
        # Per object (its first position) that requires grad.
        first = {i: (i if j is None else j) for i, j in enumerate(self.dupe_of)}
        grads = sorted({first[i] for i, t in enumerate(tensors) if t.requires_grad})
        if len(grads) < 2:
            return tail
        up = {i: i for i in grads}

        def find(i):
            while up[i] != i:
                up[i] = up[up[i]]
                i = up[i]
            return i

        def union(group):
            group = [find(first[i]) for i in group if first[i] in up]
            for j in group[1:]:
                up[find(j)] = find(group[0])

        by_storage: Dict[int, List[int]] = {}
        for i in grads:
            by_storage.setdefault(tensors[i].untyped_storage().data_ptr(), []).append(i)
        for group in by_storage.values():
            union(group)
        union(sorted(members))
        outs: Dict[int, int] = {}
        for k, (kind, v) in enumerate(self.translation.outputs):
            reach = facts.out_reach.get(k, frozenset())
            if kind != "tensor" or not self.differentiable[v] or not reach:
                continue
            union(sorted(reach))
            outs[v] = min(first[i] for i in reach)
        for i in self.dirty:
            union([i, *sorted(facts.arg_reach.get(i, frozenset()))])
        groups: Dict[int, List[int]] = {}
        for i in grads:
            groups.setdefault(find(i), []).append(i)
        # An argument that did not require grad and is written with a value
        # that does is the main node's (it is none of the parts' inputs),
        # and so are the groups its new value reaches (fuzz seed 17572:
        # `a2.mul_(a0)`, `a2` a plain tensor).
        reached_by_plain = {first[j] for i in self.dirty if first[i] not in up
                            for j in facts.arg_reach.get(i, frozenset()) if first[j] in up}
        pinned = {find(j) for j in reached_by_plain}
        parts = []
        for root, inputs in sorted(groups.items(), key=lambda g: g[1][0]) if len(groups) > 1 else ():
            p = _Part(inputs=inputs, outputs=sorted(v for v, i in outs.items() if find(i) == root),
                      dirty=[i for i in self.dirty if first[i] in up and find(first[i]) == root])
            if any(is_view[v] for v in p.outputs) or any(i in members for i in inputs) or root in pinned:
                continue
            parts.append(p)
        # The main node keeps the rest; if every group could stand alone,
        # the first.
        if parts and len(parts) == len(groups):
            parts = parts[1:]
        split = [q for p in parts for q in self._split_by_reach(p, facts, first)]
        # The main node's own groups, split by reach too (fuzz seed 103754).
        taken = {i for p in parts for i in p.inputs}
        main = _Part(inputs=[i for i in grads if i not in taken],
                     outputs=sorted(v for v, i in outs.items() if first[i] not in taken),
                     dirty=[i for i in self.dirty if first[i] in up and first[i] not in taken])
        # (The main node hands out a written plain argument's new value, so
        # it keeps the edges of the arguments that value reaches.)
        peeled, self.main_keeps = self._peel_main(main, facts, first, members, reached_by_plain)
        return split + peeled + tail

    def _peel_main(self, main: "_Part", facts: _EagerFacts, first: Dict[int, int], members: frozenset,
                   pinned: set) -> Tuple[List["_Part"], frozenset]:
        """The main node's outputs whose histories reach other arguments
        than its views' do, as nodes of their own (`_split_by_reach`'s
        reason: a loss on a view the main node hands out ran its edge to
        the history of a written argument's old value, whose saved tensor
        the region had written: fuzz seed 103754). The main node keeps its
        views, a differentiable base's members and the groups a written
        plain argument's new value reaches; a node that takes an argument
        the main node writes stays with it (it is applied after the main
        node, and would see the new history). Returns the peeled nodes and
        the arguments the main node still takes (it shares them with the
        peeled nodes: the engine sums their gradients)."""
        nodes = self._split_by_reach(main, facts, first)
        is_view = self.translation.result_is_view
        if len(nodes) < 2 and not pinned:
            return [], frozenset(main.inputs)

        def stays(n):
            return any(is_view[v] for v in n.outputs) or any(i in members for i in n.inputs)
        # (With a written plain argument, the main node has that to hand
        # out even when no node stays with it.)
        keep = [n for n in nodes if stays(n)] or ([] if pinned else nodes[:1])
        peel = [n for n in nodes if all(n is not k for k in keep)]
        while True:
            kept_dirty = {i for n in keep for i in n.dirty}
            moved = [n for n in peel if set(n.inputs) & kept_dirty]
            if not moved:
                break
            keep += moved
            peel = [n for n in peel if all(n is not m for m in moved)]
        if not peel:
            return [], frozenset(main.inputs)
        kept = frozenset(i for n in keep for i in n.inputs) | frozenset(pinned) | \
            (frozenset(main.inputs) - frozenset(i for n in nodes for i in n.inputs))
        return peel, kept

    def _split_by_reach(self, part: "_Part", facts: _EagerFacts, first: Dict[int, int]) -> List["_Part"]:
        """`part` as one node per set of arguments its outputs' histories
        reach: PyTorch's engine runs every node an edge of a running node
        leads to, with an undefined gradient where the node gave none, and
        a node unpacks its saved tensors before it looks at the gradient.
        Eager's graph has a node per op, so a backward from one output
        never runs the history of an argument that only another output
        reaches; a node of ours whose edges lead there would, and raise
        where that history saved a tensor written since (fuzz seed 95298:
        `v0 = a1.cumprod(0)` in PyTorch, then `v0.copy_(a1); a1.abs_()` in
        one region: `v0`'s new value reaches `v0`'s old history, `a1`'s
        new value only `a1`'s; a loss on `a1` ran CumprodBackward, whose
        saved `a1` the region had written). The nodes share the arguments
        both reach (the engine sums their gradients), each differentiates
        its own outputs. A node that writes an argument another node takes
        comes after it (that one's edge must be the old history); where
        that cannot be ordered, the part stays one node."""
        inputs = set(part.inputs)
        groups: Dict[frozenset, Tuple[List[int], List[int]]] = {}
        for k, (kind, v) in enumerate(self.translation.outputs):
            if kind == "tensor" and v in part.outputs:
                reach = frozenset(first[i] for i in facts.out_reach.get(k, frozenset())) & inputs
                groups.setdefault(reach, ([], []))[0].append(v)
        for d in part.dirty:
            reach = (frozenset(first[i] for i in facts.arg_reach.get(d, frozenset())) | {d}) & inputs
            groups.setdefault(reach, ([], []))[1].append(d)
        if len(groups) < 2:
            return [part]
        nodes = [_Part(inputs=sorted(r), outputs=sorted(set(o)), dirty=sorted(d)) for r, (o, d) in groups.items()]
        # Arguments no output reaches stay with the first node (an edge
        # that gets None, as before).
        rest = sorted(inputs - {i for n in nodes for i in n.inputs})
        if rest:
            nodes[0].inputs = sorted(nodes[0].inputs + rest)
        # A node that marks an argument dirty goes after every other node
        # that takes that argument (views are written by the caller).
        readers = {n: {m for d in node.dirty for m, other in enumerate(nodes) if m != n and d in other.inputs}
                   for n, node in enumerate(nodes)}
        order: List[int] = []
        placed: set = set()
        while len(order) < len(nodes):
            ready = [n for n in range(len(nodes)) if n not in placed and readers[n] <= placed]
            if not ready:
                return [part]
            order.append(ready[0])
            placed.add(ready[0])
        return [nodes[n] for n in order]

    def _flats(self, tensors: Sequence[torch.Tensor]) -> List[torch.Tensor]:
        """This call's differentiable bases, one per group (`_flat`)."""
        return [_flat(tensors[g[0]]) for g in self.base_groups]

    def _restride_together(self, outs) -> set:
        """Lays out, in one storage, results that share the compiled one
        where eager lays them out otherwise: a fresh result and views of it
        (fuzz seed 9518: `v3 = 0.58 - a0` of a transposed `a0`, `v5 =
        v3[1:]`, and after a graph break `v3 -= ...`, which eager's `v5`
        sees). The fresh result is made with eager's strides and the views
        of it again with theirs, so they still share memory. Returns the
        results laid out so."""
        tr = self.translation

        def laid_out(k):
            o, st, off = outs[k], tr.result_strides[k], tr.result_offsets[k]
            return st is None or not isinstance(o, torch.Tensor) or (
                o.stride() == st and (not tr.result_is_view[k] or off is None or o.storage_offset() == off))

        def candidate(k):
            o = outs[k]
            return tr.result_strides[k] is not None and self.aliases[k] is None and isinstance(o, torch.Tensor) \
                and o.numel() > 0

        def together(ks):
            return len({outs[k].untyped_storage().data_ptr() for k in ks}) <= 1

        # Results of one fresh value in eager share its storage (fuzz seed
        # 24107: `with no_grad(): v1, v2, v3 = y.unbind(0)` of an
        # intermediate `y`, `return v3, v1`), which separate results of the
        # IR need not, each laid out as eager's.
        # (Every call of a region runs this: the common case, every result
        # laid out as eager's already, costs one comparison per result.)
        if all(laid_out(k) for k in range(len(outs))) and \
                all(together([k for k in ks if candidate(k)]) for ks in self.fresh_groups):
            return set()
        shared: Dict[Any, List[int]] = {}
        for k, r in enumerate(tr.result_fresh_root):
            if candidate(k):
                key = ("fresh", r) if r is not None else ("storage", outs[k].untyped_storage().data_ptr())
                shared.setdefault(key, []).append(k)
        groups = [ks for ks in shared.values() if len(ks) > 1]
        done = set()
        for ks in groups:
            roots = [k for k in ks if not tr.result_is_view[k]]
            # A detach of the fresh value is no root of its own: eager's
            # shares the value's storage (fuzz seed 55500: `v2 =
            # v1.detach()`, both returned, `v1` laid out otherwise).
            if len(roots) > 1:
                roots = [k for k in roots if tr.result_detach[k] != "last"] or roots
            if len(roots) > 1 or (all(laid_out(k) for k in ks) and together(ks)):
                continue
            if not roots:
                # Views of one intermediate that is not a result (`y =
                # x * 2; return y.diagonal(-1), y[1, 0]`): eager's share its
                # storage, so they are laid out in one new storage, each at
                # eager's place in it (seed 16124's test). Not where a
                # place is not known: at a guessed one, two could overlap.
                if any(tr.result_offsets[k] is None for k in ks):
                    continue
                geo = [(k, tuple(outs[k].shape), tr.result_strides[k], tr.result_offsets[k] or 0) for k in ks]
                # An `expand` (stride 0) is copied from its first position on
                # each such dimension, which reaches every element it views
                # once (fuzz seed 57284: a view and an expand of a fresh
                # value laid out otherwise).
                if any(_first_reach_masks(_extent(size, st, off), [(_narrowed(size, st), st, off)]) is not None
                       for _, size, st, off in geo):
                    continue
                base = torch.empty(max(_extent(size, st, off) for _, size, st, off in geo), dtype=outs[ks[0]].dtype)
                # Where two overlap, the last copy's history takes the
                # element's gradient: the views eager made under no_grad
                # (which pass none on) are copied first (fuzz seed 40962:
                # `v1 = v0.split(2, 0)[1]` under no_grad and `v4 =
                # v0.split(2, 1)[0]`, both returned: `v4`'s last row
                # lost its gradient to `v1`'s copy).
                no_grad_view = tr.result_no_grad_view
                for k, size, st, off in sorted(geo, key=lambda g: not no_grad_view[g[0]]):
                    w, src = base.as_strided(size, st, off), outs[k]
                    for d in _broadcast_dims(size, st):
                        w, src = w.narrow(d, 0, 1), src.narrow(d, 0, 1)
                    w.copy_(src)
                for k, size, st, off in geo:
                    outs[k] = base.as_strided(size, st, off)
                done.update(ks)
                continue
            r = roots[0]
            o = outs[r]
            root = torch.empty_strided(o.shape, tr.result_strides[r], dtype=o.dtype)
            room = root.untyped_storage().nbytes() // root.element_size()
            geo = [(k, tuple(outs[k].shape), tr.result_strides[k], tr.result_offsets[k] or 0) for k in ks if k != r]
            if any(_extent(size, st, off) > room for _, size, st, off in geo):
                continue
            outs[r] = root.copy_(o)
            for k, size, st, off in geo:
                outs[k] = outs[r].as_strided(size, st, off)
                if tr.result_detach[k] == "last":
                    outs[k] = outs[k].detach()
            done.update(ks)
        return done

    def __call__(self, args: Sequence[Any], info: Any = None):
        """One call; `info`: what `_convention_key` read of `args`."""
        if self.sizes is not None:
            self._rebind(args)
        tensors = [args[i] for i in self.tensor_pos]
        detach = self.translation.result_detach
        if self.training:
            views = _Views(tensors, info)
            if self.lean:
                res = _AotFunction.apply(self, views, *tensors)
                if not views.regen:
                    outs = list(res)
                    for k, st in self.plain_strides:
                        o = outs[k]
                        if isinstance(o, torch.Tensor) and o.stride() != st:
                            break
                    else:
                        self.hold_versions(views, tensors, outs)
                        if self.outputs_in_order and len(outs) == len(self.translation.outputs):
                            return outs
                        return [outs[v] if kind == "tensor" else v for kind, v in self.translation.outputs]
                return self._finish(tensors, views.outputs(res), self.train_regen, views)
            # Written views that keep no history (made when their base did
            # not require grad), as the call found them.
            historyless = {i for i in self.written_through_views
                           if tensors[i]._base is not None and not tensors[i].requires_grad}
            res = _AotFunction.apply(self, views, *_cut(tensors, self.cut), *self._flats(tensors))
            n = len(res) - len(self.main_dirty)
            new_values = list(zip(self.main_dirty, res[n:]))
            if self.parts:
                res = list(res)
                for part in self.parts:
                    ins = [tensors[i] for i in part.inputs] if part.inputs else [torch.empty(0, requires_grad=True)]
                    got = _AotPart.apply(self, views, part, *ins)
                    for v, o in zip(part.outputs, got):
                        res[v] = o
                    new_values += zip(part.dirty, got[len(part.outputs):])
            for i, new in new_values:
                t = tensors[i]
                # Only the views the program writes. Another view of the
                # written storage (marked by the runtime, as the two share
                # memory) sees the write through its base, as in eager,
                # where nothing is written into it: an output of `split`
                # may not be written, and a copy into a view of a base that
                # does not require grad gives the base a history under the
                # written view's cached one, which PyTorch then takes for a
                # leaf that requires grad (fuzz seed 6848).
                # Nor a view written under no_grad only: eager's in-place ops
                # there record nothing on its base, and its history may not
                # even be read (a view made under no_grad whose base was
                # since written with grad on raises when it is).
                if t._base is None or i not in self.mutated_with_grad:
                    continue
                # A written view: its memory holds the new value already;
                # the copy records the write on the view's base, as eager's
                # in-place op does (CopySlices), and the version counter
                # stays where the call's writes left it.
                # The view's history is brought up to date first, as eager's
                # write through a fresh view (`a[1:] = v`) does: a write
                # into another view of the same base may have given the
                # base a history since the view's was cached, and PyTorch's
                # in-place check reads the cached one (a leaf, for a view of
                # a base that did not require grad). A version no cache
                # holds makes the history be made again.
                version = t._version
                if i in historyless:
                    # Eager wrote it only through views made in the graph:
                    # the base gets the history, the view keeps none, and a
                    # later in-place op on it raises as eager's does. The
                    # write is recorded through a fresh view of the base.
                    t._base.as_strided(t.size(), t.stride(), t.storage_offset()).copy_(new)
                    torch._C._autograd._unsafe_set_version_counter((t,), (version,))
                    continue
                torch._C._autograd._unsafe_set_version_counter((t,), (version + 1,))
                t.grad_fn
                t.copy_(new)
                torch._C._autograd._unsafe_set_version_counter((t,), (version,))
            outs = views.outputs(res[:n])
            # Outputs that alias inputs are regenerated from them outside
            # the autograd node, as views (AOTAutograd's epilogue does the
            # same), so autograd sees them as views of the inputs.
            regen = self.train_regen
        else:
            # (No stand-ins, as `_bind` makes for a training call: a call
            # under no_grad binds every argument as a leaf that does not
            # require grad, whatever its flags.)
            # (`_checked` inline: a call frame is a tenth of this path's Python.)
            try:
                outs = self.fn(tensors, self.export_views, self.written, no_grad=True, info=info)
            except _native.ExecutionError as e:
                _index_error(e)
                raise
            if self.plain_strides is not None:
                for k, st in self.plain_strides:
                    o = outs[k]
                    if isinstance(o, torch.Tensor) and o.stride() != st:
                        break
                else:
                    if self.outputs_in_order and len(outs) == len(self.translation.outputs):
                        return outs
                    return [outs[v] if kind == "tensor" else v for kind, v in self.translation.outputs]
            # A view of an argument that requires grad is made again, as
            # eager makes it under no_grad: an autograd view of it that
            # requires grad and is a leaf (fuzz seed 8635: the runtime's
            # view is neither); so is one the runtime made of another
            # argument of the storage (fuzz seed 20303: of `a1`, which
            # requires grad, for a view of `a1.detach()`, which does not).
            regen = [i is not None and self.same_object[k] is None and
                     (detach[k] is not None or tensors[i].requires_grad or
                      (isinstance(outs[k], torch.Tensor) and _root(outs[k]) is not _root(tensors[i])))
                     for k, i in enumerate(self.aliases)]
            views = None
        return self._finish(tensors, outs, regen, views)

    def native_finish(self, args: Sequence[Any], outs: List[Any]) -> List[Any]:
        """The graph's outputs of an inference call of a plain variant
        (`plain_strides`) from the compiled results, which the native
        dispatcher (`_native.Dispatch`) found laid out otherwise than
        eager lays them out; `args`: the call's arguments."""
        if self.sizes is not None:
            self._rebind(args)
        tensors = [args[i] for i in self.tensor_pos]
        return self._finish(tensors, outs, [False] * len(self.aliases), None)

    def _finish(self, tensors, outs, regen, views):
        """The graph's outputs from the compiled results: aliases of the
        arguments made as eager makes them, eager's layouts, PyTorch's marks."""
        detach = self.translation.result_detach
        no_grad_view = self.translation.result_no_grad_view
        through_no_grad = self.translation.result_through_no_grad_view
        # (The detached aliases themselves first: views of them are theirs.)
        detached: Dict[int, torch.Tensor] = {}
        for k in sorted((k for k, a in enumerate(self.adopted) if a), key=lambda k: detach[k] != "last"):
            outs[k] = _adopted(tensors[self.aliases[k]], outs[k], detach[k], detached)
        for k, i in enumerate(self.aliases):
            if self.same_object[k] is not None and detach[k] is None:
                outs[k] = tensors[self.same_object[k]]
            elif i is None:
                continue
            elif self.stale[k] and detach[k] is None:
                # Made, as in eager, before the write bumped the version.
                t = tensors[i]
                v = t._version
                if v > 0 and not t.is_inference():
                    torch._C._autograd._unsafe_set_version_counter((t,), (v - 1,))
                    try:
                        with torch.set_grad_enabled(torch.is_grad_enabled() and not no_grad_view[k]):
                            outs[k] = _alias_of(t, outs[k], None)
                    finally:
                        torch._C._autograd._unsafe_set_version_counter((t,), (v,))
            elif self.adopted[k]:
                continue
            elif regen[k] or detach[k] is not None:
                # A view eager made under no_grad is made so here: no
                # history, and PyTorch's mark that forbids writing it in
                # place in grad mode (fuzz seed 7378: `v0, v1 =
                # a2.split(2, 0)` under no_grad, `v0.fill_` after a graph
                # break raises in eager).
                src = tensors[i]
                if through_no_grad[k] and torch.is_grad_enabled():
                    # A view of a view made under no_grad: its history
                    # stops at that one (fuzz seed 12532).
                    with torch.no_grad():
                        src = src.view(src.shape)
                with torch.set_grad_enabled(torch.is_grad_enabled() and not no_grad_view[k]):
                    outs[k] = _alias_of(src, outs[k], detach[k])
        # A detach of part of an intermediate: eager's shares the memory at
        # its offset, without a `_base`.
        for k, o in enumerate(outs):
            if detach[k] == "last" and self.aliases[k] is None and isinstance(o, torch.Tensor) and o._base is not None:
                outs[k] = o.detach()
        # A fresh result PyTorch lays out otherwise (channels-last, a
        # transposed elementwise result) gets eager's strides: code after
        # the region (a view, as_strided, a stride check) sees what it
        # would see in eager.
        # One that is a view in eager (of an intermediate laid out so) is a
        # view here too, of a storage that holds it.
        together = self._restride_together(outs)
        for k, st in enumerate(self.translation.result_strides):
            o = outs[k]
            if k in together:
                continue
            if st is None or self.aliases[k] is not None or not isinstance(o, torch.Tensor):
                continue
            view = self.translation.result_is_view[k] and o.numel() > 0
            # (None: eager's offset is not known; then only the strides
            # decide. A view of one element has strides of no consequence to
            # where it is, but may have an offset in its storage that
            # differs from eager's.)
            known = self.translation.result_offsets[k]
            off = known or 0
            if o.stride() != st or (view and known is not None and o.storage_offset() != known):
                if view:
                    extent = _extent(o.shape, st, off)
                    masks = _first_reach_masks(extent, [(tuple(o.shape), st, off)])
                    if masks is not None:
                        # Several positions of one element (an `expand` of
                        # an intermediate laid out otherwise: fuzz seed
                        # 7717), which `copy_` refuses: each element is
                        # written once, from its first position, so the
                        # gradient reaches the others' positions as zeros,
                        # as the compiled backward sums them anyway.
                        pos = torch.arange(extent).as_strided(o.shape, st, off)
                        first = torch.where(masks[0], o, torch.zeros((), dtype=o.dtype))
                        base = torch.zeros(extent, dtype=o.dtype).index_put((pos.reshape(-1),), first.reshape(-1),
                                                                           accumulate=True)
                        outs[k] = base.as_strided(o.shape, st, off)
                        continue
                    laid = torch.empty(extent, dtype=o.dtype).as_strided(o.shape, st, off)
                else:
                    laid = torch.empty_strided(o.shape, st, dtype=o.dtype)
                outs[k] = laid.copy_(o)
        # An output of an op that returns several views (`unbind`), or a
        # view of one, made again here as a plain view: it keeps PyTorch's
        # mark, so writing it in place raises as in eager.
        if torch.is_grad_enabled():
            for k, multi in enumerate(self.translation.result_multi_view):
                o = outs[k]
                if multi and self.same_object[k] is None and isinstance(o, torch.Tensor) and o._base is not None:
                    try:
                        torch._C._autograd._set_creation_meta(o, torch._C._autograd.CreationMeta.MULTI_OUTPUT_NODE)
                    except RuntimeError:  # (no autograd view metadata: nothing to mark)
                        pass
        # A view of an intermediate made under no_grad: eager's requires
        # grad where its base does, yet is a leaf, and no gradient flows
        # through it (fuzz seed 5973: `with torch.no_grad(): v4 =
        # v2.unbind(0)[0]`, then `cat([v4, a1])` after a graph break; eager
        # leaves the `.grad` of `v2`'s leaves None).
        for k, o in enumerate(outs):
            if no_grad_view[k] and self.aliases[k] is None and \
                    self.same_object[k] is None and isinstance(o, torch.Tensor) and o.grad_fn is not None:
                base = o._base if o._base is not None else o
                with torch.no_grad():
                    outs[k] = base.as_strided(o.size(), o.stride(), o.storage_offset())
        if self.training:
            self.hold_versions(views, tensors, outs)
        result = []
        for kind, v in self.translation.outputs:
            result.append(outs[v] if kind == "tensor" else v)
        return result


def _extent(size, stride, offset: int) -> int:
    """The elements a storage needs for a layout (one past its last)."""
    return offset + 1 + sum((n - 1) * abs(d) for n, d in zip(size, stride))


def _adopted(t: torch.Tensor, o: torch.Tensor, detach: Optional[str], detached: Dict[int, torch.Tensor]
             ) -> torch.Tensor:
    """The output `o` (the node's, with its history) as eager has it: a
    detached alias of argument `t` (`detach` "last": no `_base`), or a view
    of one ("inner"), that the in-place op that wrote it gave a history.
    Eager's views of it are views of one object: `detached` keeps it per
    argument for the call. The alias's memory holds `o`'s values already:
    the copy records the write for autograd, and the version counter stays
    where the call's writes left it."""
    geo = (o.size(), o.stride(), o.storage_offset())
    if detach == "last":
        out = t.detach() if geo == (t.size(), t.stride(), t.storage_offset()) else t.as_strided(*geo).detach()
        detached.setdefault(id(t), out)
        w, src = out, o
    else:
        # The write is recorded through the view's first position on each
        # dimension of stride 0 (an `expand`): its gradient is the alias's,
        # which sums what every position of the view got, so recorded
        # through all of them it would be counted once per position (fuzz
        # seed 814). The view is made after the write, of its history.
        d = detached.setdefault(id(t), t.detach())
        w, src = d.as_strided(*geo), o
        for k in _broadcast_dims(o.shape, o.stride()):
            w, src = w.narrow(k, 0, 1), src.narrow(k, 0, 1)
    version = w._version
    w.copy_(src)
    torch._C._autograd._unsafe_set_version_counter((w,), (version,))
    return w if detach == "last" else d.as_strided(*geo)


def _alias_of(t: torch.Tensor, o: torch.Tensor, detach: Optional[str]) -> torch.Tensor:
    """Output `o` (a view of argument `t`) regenerated from `t` as eager
    makes it: a view, or through `detach` (no gradient; no `_base` when the
    detach is the last op)."""
    same = o.size() == t.size() and o.stride() == t.stride() and o.storage_offset() == t.storage_offset()
    if detach == "last":
        return t.detach() if same else t.as_strided(o.size(), o.stride(), o.storage_offset()).detach()
    if detach == "inner":
        return t.detach().as_strided(o.size(), o.stride(), o.storage_offset())
    return t.as_strided(o.size(), o.stride(), o.storage_offset())


def _regenerable(t: torch.Tensor) -> bool:
    """Whether autograd may rebuild the view `t`'s history after its base
    is written in place (CreationMeta.DEFAULT); not a view: trivially."""
    if not t._is_view() or not t.requires_grad:
        return True
    return torch._C._autograd._get_creation_meta(t) == torch._C._autograd.CreationMeta.DEFAULT


def _stale_input(stale_uses: Sequence[Tuple[int, frozenset]], args: Sequence[Any]) -> Optional[int]:
    """The first input the graph uses in grad mode after a write to its
    storage where eager then raises (`fx_ir.stale_input_uses`); else None."""
    for i, written in stale_uses:
        t = args[i]
        if not isinstance(t, torch.Tensor) or _regenerable(t):
            continue
        for j in written:
            w = args[j]
            if isinstance(w, torch.Tensor) and w.untyped_storage().data_ptr() == t.untyped_storage().data_ptr():
                return i
    return None


def _convention_key(args: Sequence[Any], dynamic: Optional[List[List[bool]]] = None) -> Tuple[tuple, Any]:
    """What a compiled variant is specialised to (the runtime's guards check
    the tensor part again on every call): the grad mode, and per argument a
    repeated object, or a tensor's dtype, sizes, strides, offset, the first
    argument of its storage and of its `_base` (a differentiable base is
    made of those: `_base_groups`), `requires_grad`, `is_leaf`, device and
    `_regenerable`, or another value with its type. Read natively, in one
    pass: it runs on every call, over every parameter of a model. Returns
    the key and the `_native.CallInfo` of what was read, which the call's
    binding takes instead of reading it again."""
    key, info = _native.convention_key(args, dynamic)
    return (torch.is_grad_enabled(), key), info


class _Region(torch.nn.Module):
    """An ATen graph, all of whose ops aot supports, compiled per calling
    convention on first use. What it cannot compile runs `original`: the
    graph Dynamo handed over (or the part of it the region was traced
    from), the user's own program, never the ATen graph traced from it,
    whose decompositions may make views (`stack` as `cat` then `view`: fuzz
    seed 8080) or save other tensors for backward."""

    def __init__(self, aten_gm: torch.fx.GraphModule, cfg: Config, name: str, original: Callable,
                 stale_uses: Sequence[Tuple[int, frozenset]] = (), symbolic: Optional["_SymbolicGraph"] = None):
        super().__init__()
        self.aten_gm = aten_gm
        # A graph traced with symbolic sizes: its variants are compiled once
        # for every size (keyed with the sizes masked).
        self.symbolic = symbolic
        self.dynamic = symbolic.dynamic if symbolic is not None else None
        self.stale_uses = stale_uses
        self.cfg = cfg
        self.region_name = name
        self.variants: Dict[tuple, Any] = {}
        self.warned_limit = False
        self.warned_refusal = False
        self.original = original
        out = [n for n in aten_gm.graph.nodes if n.op == "output"][0]
        self.tuple_out = isinstance(out.args[0], (tuple, list))
        _regions.add(self)
        self.report_key = compile_report.region_created(name, aten_gm)

    def _compile(self, args: Sequence[Any]):
        training = torch.is_grad_enabled() and any(
            isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        compile_report.progress(self.report_key, "compiling for %s" % ("training" if training else "inference"))
        t0 = time.perf_counter()
        try:
            order = _order_dependent_write(self.aten_gm, args)
            if order is not None:
                raise fx_ir.Unsupported(*order)
            stale = _stale_input(self.stale_uses, args)
            if stale is not None:
                raise fx_ir.Unsupported("input %d" % stale, "eager raises: a view autograd cannot regenerate "
                                        "(made by a multi-output op or under no_grad) is used after its base "
                                        "was modified in place")
            if self.symbolic is not None:
                tr = self.symbolic.translate(args)
                v = _Variant(tr, args, self.cfg, training, self.aten_gm, sizes=self.symbolic.binder)
            else:
                tr = fx_ir.translate(self.aten_gm, args, name="main")
                traced = self.aten_gm.meta.get(TRACED_BACKWARD)
                if training and traced is not None:
                    tr = traced(tr)
                v = _Variant(tr, args, self.cfg, training, self.aten_gm)
        except Exception as e:  # never a crash: what aot cannot take runs in PyTorch
            if self.symbolic is not None:
                # (The graph is traced again for the call's sizes, where
                # what symbolic sizes kept from aot may not be in the way.)
                raise _SymbolicDeclined(_one_line(e) if isinstance(e, (fx_ir.Unsupported, _native.AotError))
                                        else "%s: %s" % (type(e).__name__, _one_line(e))) from None
            why = _one_line(e) if isinstance(e, (fx_ir.Unsupported, _native.AotError)) else \
                "%s: %s" % (type(e).__name__, _one_line(e))
            log.warning("aot_torch: %s runs in PyTorch: %s", self.region_name, why)
            stats["fallback_regions"] += 1
            compile_report.fallback(self.region_name, "the region, for inputs %s" % compile_report.describe_inputs(args),
                                    why, compile_report.graph_source(self.region_name))
            compile_report.variant_failed(self.report_key, args, why)
            return None
        stats["compiled"] += 1
        compile_report.variant_compiled(self.report_key, args, v, time.perf_counter() - t0,
                                        self.cfg.pipeline_for(training), self.cfg.memory_budget)
        return v

    def forward(self, *args):
        key, info = _convention_key(args, self.dynamic)
        return self.call(args, key, info)

    def call(self, args: Sequence[Any], key: tuple, info: Any):
        """A call whose `_convention_key(args)` is `(key, info)`."""
        v = self.variants.get(key, False)
        if v is False:
            if len(self.variants) >= self.cfg.recompile_limit:
                if not self.warned_limit:
                    log.warning("aot_torch: %s was compiled for %d calling conventions (recompile_limit); "
                                "new ones run in PyTorch", self.region_name, len(self.variants))
                    self.warned_limit = True
                    stats["fallback_regions"] += 1
                    compile_report.fallback(
                        self.region_name, "calls with a new calling convention",
                        "recompile_limit: compiled for %d calling conventions already" % len(self.variants))
                return self.original(*args)
            v = self._compile(args)
            self.variants[key] = v
            # (What the key read is trusted only for a call that follows
            # it at once: compiling ran PyTorch in between.)
            info = None
        if v is None:
            return self.original(*args)
        try:
            if _profiler is None:
                out = v(args, info)
            else:
                _profiler.capture(self, v, args)
                t0 = time.perf_counter()
                out = v(args, info)
                _profiler.record(v, "forward", time.perf_counter() - t0)
        except _native.ConventionError as e:
            if self.symbolic is not None:
                # Sizes the function's guards or ranges refuse (the key
                # masks them): this call runs in PyTorch, the next ones
                # still try the compiled code.
                if not self.warned_refusal:
                    log.warning("aot_torch: %s: %s; such calls run in PyTorch", self.region_name, _one_line(e))
                    compile_report.fallback(self.region_name, "calls with sizes the symbolic function refuses",
                                            _one_line(e))
                    self.warned_refusal = True
                return self.original(*args)
            # The key above and the runtime's guards disagree: never guess.
            log.warning("aot_torch: %s: %s; running in PyTorch", self.region_name, _one_line(e))
            compile_report.fallback(self.region_name, "the region, for this calling convention", _one_line(e))
            self.variants[key] = None
            return self.original(*args)
        return self.unwrap(out)

    def unwrap(self, out: Sequence[Any]) -> Any:
        """What the region returns for a variant's results: the graph's
        output is a tuple, or one value."""
        return out if self.tuple_out else (out[0] if out else None)


def _run_graph(gm: torch.fx.GraphModule, args: Sequence[Any], around: Optional[Callable] = None):
    """An ATen graph run by PyTorch, each op under the grad mode it was
    traced in (the graph itself has no `no_grad` blocks); the grad mode is
    restored after, also when an op raises. (`_eager_facts` reads the
    autograd graph of such a run on fake tensors, with `around(run)`
    around each op: `run()` runs it and returns its result.)"""
    entry = torch.is_grad_enabled()
    try:
        return _GradModeInterpreter(gm, around).run(*args)
    finally:
        torch._C._set_grad_enabled(entry)


class _GradModeInterpreter(torch.fx.Interpreter):
    """Runs an ATen graph switching grad mode per node as traced."""

    def __init__(self, gm: torch.fx.GraphModule, around: Optional[Callable] = None):
        super().__init__(gm)
        self.around = around

    def run_node(self, n: torch.fx.Node):
        mode = fx_ir.grad_mode_of(n)
        if mode is not None and mode != torch.is_grad_enabled():
            torch._C._set_grad_enabled(mode)
        if self.around is None:
            return super().run_node(n)
        return self.around(lambda: super(_GradModeInterpreter, self).run_node(n))


def _one_line(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


def _reason(node: torch.fx.Node) -> Optional[str]:
    try:
        return fx_ir.unsupported_reason(node)
    except Exception as e:  # a translator bug must not break the user's program
        return "the translator failed: %s: %s" % (type(e).__name__, _one_line(e))


def _whole_region(aten_gm: torch.fx.GraphModule, cfg: Config, graph_name: str, original: Callable,
                  symbolic: Optional["_SymbolicGraph"] = None):
    """The ATen graph as one region run by aot, when aot supports all of its
    ops; else None. Returns (region or None, [(node, reason)] of the ops
    aot does not support)."""
    # Read before the dead nodes go: eager runs them too.
    stale_uses = fx_ir.stale_input_uses(aten_gm.graph)
    # Dead nodes that write nothing (debris of tracing) are not translated;
    # remove them so that they do not make the graph fall back.
    live = fx_ir.live_nodes(aten_gm.graph)
    for n in reversed(list(aten_gm.graph.nodes)):
        if n.op == "call_function" and n not in live and not n.users:
            aten_gm.graph.erase_node(n)
    aten_gm.recompile()
    unsupported = []
    # (A symbolic graph was translated whole already: `_SymbolicGraph`.)
    for n in aten_gm.graph.nodes if symbolic is None else ():
        if n.op == "call_function":
            r = _reason(n)
            if r is not None:
                unsupported.append((n, r))
    if unsupported:
        return None, unsupported
    return _Region(aten_gm, cfg, graph_name, original, stale_uses, symbolic), []


# The values a region of a split user graph may take and return: what its
# ATen trace binds as arguments and gives back as results.
_BOUNDARY_TYPES = (torch.Tensor, int, float, bool, torch.SymInt, torch.SymFloat, torch.SymBool)


def _split_user_graph(gm: torch.fx.GraphModule, left: set, cfg: Config, graph_name: str
                      ) -> Optional[torch.fx.GraphModule]:
    """Dynamo's graph `gm` with the runs of its nodes that aot can take
    replaced by regions compiled on their own (`CompiledGraph` of the run);
    the nodes named in `left` (those an op aot does not support was traced
    from) stay in the graph and run as the user's program wrote them: not
    their ATen decomposition, whose autograd may save other tensors or make
    other views. Grad mode switches as in the user's program. None when the
    graph cannot be split so (a region would pass a value that is not a
    tensor or a number): the whole graph then runs in PyTorch."""
    from torch.fx.passes.utils.fuser_utils import fuse_by_partitions

    graph = torch.fx.Graph()
    copied: Dict[torch.fx.Node, torch.fx.Node] = {}
    graph.output(graph.graph_copy(gm.graph, copied))
    split = torch.fx.GraphModule(gm, graph)
    fx_ir.annotate_grad_mode(split)
    # `no_grad` blocks become switches inserted after the split (below): a
    # switch with no data dependence could otherwise move across a region.
    for n in list(split.graph.nodes):
        if n.op == "call_function" and n.target is torch._C._set_grad_enabled:
            split.graph.erase_node(n)
    stays = set()
    runs: List[List[torch.fx.Node]] = [[]]
    mode = None
    for n in split.graph.nodes:
        if n.op not in ("call_function", "call_method", "call_module"):
            continue
        # The elements of an op left to PyTorch (`values, indices = sort`)
        # are taken there too.
        if n.name in left or (n.target is operator.getitem and n.args and n.args[0] in stays):
            stays.add(n)
            if runs[-1]:
                runs.append([])
            continue
        if runs[-1] and fx_ir.grad_mode_of(n) != mode:
            runs.append([])
        mode = fx_ir.grad_mode_of(n)
        runs[-1].append(n)
    runs = [r for r in runs if r]
    for run in runs:
        members = set(run)
        for n in run:
            crossing = any(u not in members for u in n.users)
            if crossing and not isinstance(n.meta.get("example_value"), _BOUNDARY_TYPES):
                return None
    modes = {}
    fused = fuse_by_partitions(split, [dict.fromkeys(r) for r in runs], prefix="aot_region_")
    compile_report.regions_planned(graph_name, len(runs))
    for k, run in enumerate(runs):
        name = "aot_region_%d" % k
        sub = getattr(fused, name)
        modes[name] = fx_ir.grad_mode_of(run[0])
        setattr(fused, name, _UserRegion(sub, cfg, "%s.region %d" % (graph_name, k)))
    fx_ir.insert_grad_mode_switches(
        fused, torch.is_grad_enabled(),
        lambda n: modes.get(n.target) if n.op == "call_module" else fx_ir.grad_mode_of(n))
    return fused


class _UserRegion(torch.nn.Module):
    """A run of a split user graph, traced and compiled on its own; what
    aot cannot take in it runs as the run itself."""

    def __init__(self, gm: torch.fx.GraphModule, cfg: Config, name: str):
        super().__init__()
        self.graph = CompiledGraph(gm, cfg, name, whole=False)

    def forward(self, *args):
        return self.graph(*args)


class _SymbolicDeclined(Exception):
    """A region of a graph with symbolic sizes that aot cannot compile with
    them: the graph is traced again per concrete shape."""


class _SymbolicGraph:
    """A Dynamo graph with symbolic sizes, traced to ATen once over its
    inputs' fake tensors (Dynamo's ShapeEnv) and translated whole (in
    Dynamo's compile, so the guards the trace and the translation add are
    Dynamo's guards of the graph too). Each variant translates it again for
    its call's autograd flags (`translate`)."""

    def __init__(self, gm: torch.fx.GraphModule, fake_mode):
        self.fake_mode = fake_mode
        self.fakes = [n.meta.get("example_value") for n in gm.graph.nodes if n.op == "placeholder"]
        if any(f is not None and not isinstance(f, (torch.Tensor, torch.SymInt, int, float, bool))
               for f in self.fakes) or any(f is None for f in self.fakes):
            raise fx_ir.Unsupported("graph", "an input without a fake value")
        # The numbers Dynamo passes as 0-dim tensors (a layer norm's `eps`),
        # which it does not guard: the trace has the values of Dynamo's
        # example as constants, and serves only calls that pass those
        # (`numbers`; other values are traced per shape).
        items = fx_ir.item_inputs(gm)
        values = {}
        with fake_mode:
            for k in items:
                try:
                    # (A symbolic integer input is its own number.)
                    f = self.fakes[k]
                    v = f if isinstance(f, torch.SymInt) else f.item()
                except Exception:  # (an example without its value)
                    v = None
                # (A symbolic number: its example's value, its hint; reading
                # it otherwise would make Dynamo guard on it.)
                if isinstance(v, (torch.SymFloat, torch.SymInt, torch.SymBool)):
                    v = v.node.hint
                if not isinstance(v, (int, float, bool)):
                    raise fx_ir.Unsupported("graph", "a number input whose example value is not known")
                values[k] = v
        self.numbers = tuple(values[k] for k in items)
        if items:
            gm = fx_ir.with_item_values(gm, values)
        self.aten = symbolic.trace(gm, self.fakes, fake_mode)
        # (After the trace: it may have found sizes equal, which the
        # ShapeEnv then names by one symbol.)
        self.table = symbolic.SymbolTable(fake_mode.shape_env, self.fakes)
        if not self.table.symbolic:
            raise fx_ir.Unsupported("graph", "no input has a symbolic size")
        self.binder = symbolic.SizeBinder(self.table, self.fakes)
        self.dynamic = symbolic.dynamic_mask(self.fakes, self.table)
        # (Translated now, under the flags of the example inputs: a graph
        # aot cannot take with symbolic sizes is traced per shape.)
        self._translate(self.fakes)

    def _translate(self, fakes):
        from .ir_builder import Reject

        env = self.fake_mode.shape_env
        # After Dynamo made its guards it freezes the ShapeEnv, which then
        # drops new guards (counting them): a decision no guard records
        # would be an assumption nothing checks.
        ignored = env.counter["ignored_backward_guard"]
        try:
            with symbolic.translating(self.table), self.fake_mode:
                tr = fx_ir.translate(self.aten, fakes, name="main")
        except Reject as e:
            raise fx_ir.Unsupported("graph", str(e)) from None
        if env.counter["ignored_backward_guard"] != ignored:
            raise fx_ir.Unsupported("graph", "the translation decided on a size after Dynamo's guards were made")
        for s, r in self.fake_mode.shape_env.replacements.items():
            if s in self.table.index and not isinstance(r, type(s)):
                raise fx_ir.Unsupported("graph", "the translation specialised size %s to %s" % (s, r))
        return tr

    def translate(self, args: Sequence[Any]) -> "fx_ir.Translation":
        """The graph's translation for a call with `args` (its tensors'
        `requires_grad`)."""
        fakes = [f.detach().requires_grad_(bool(a.requires_grad) and f.is_floating_point())
                 if isinstance(f, torch.Tensor) and isinstance(a, torch.Tensor) else f
                 for f, a in zip(self.fakes, args)]
        return self._translate(fakes)


def _symbolic_graph(gm: torch.fx.GraphModule, cfg: Config, name: str) -> Optional[_SymbolicGraph]:
    """`gm` as a `_SymbolicGraph` when Dynamo gave it symbolic sizes and aot
    can translate it so; else None (a reason logged)."""
    if not cfg.symbolic:
        return None
    from torch._guards import TracingContext

    vals = [n.meta.get("example_value") for n in gm.graph.nodes if n.op == "placeholder"]
    if not any(isinstance(v, torch.SymInt) or (isinstance(v, torch.Tensor) and
                                               any(isinstance(d, torch.SymInt) for d in v.shape)) for v in vals):
        return None
    # (The mode of Dynamo's fake inputs, whose ShapeEnv is its graph's: the
    # backend's context may hold another mode over the same ShapeEnv.)
    modes = {id(v.fake_mode): v.fake_mode for v in vals if isinstance(v, torch.Tensor) and hasattr(v, "fake_mode")}
    context = TracingContext.try_get()
    if not modes and context is not None and context.fake_mode is not None:
        modes = {0: context.fake_mode}
    mode = next(iter(modes.values())) if len(modes) == 1 else None
    if mode is None or mode.shape_env is None:
        return None
    try:
        return _SymbolicGraph(gm, mode)
    except Exception as e:  # PyTorch's tracing, or a size aot cannot say: per shape
        why = _one_line(e) if isinstance(e, fx_ir.Unsupported) else "%s: %s" % (type(e).__name__, _one_line(e))
        log.info("aot_torch: %s is compiled per shape, not with symbolic sizes: %s", name, why)
        compile_report.progress(name, "per shape: %s" % why)
        return None


# An ATen graph's `meta` key: a function that adds the backward PyTorch's
# autograd traced with the graph to a training translation
# (`dtensor.DTensorGraph`: DTensor's gradients are its own).
TRACED_BACKWARD = "aot_traced_backward"


class CompiledGraph:
    """What the backend returns to Dynamo: traces on first use per
    convention of the non-tensor inputs, then dispatches to the regions.
    `whole`: the graph is all Dynamo handed over, so one with ops aot does
    not support is split (`_split_user_graph`); a part of a split graph
    runs as written instead."""

    def __init__(self, gm: torch.fx.GraphModule, cfg: Config, name: str, whole: bool = True,
                 symbolic: Optional[_SymbolicGraph] = None, fallback: Optional[Callable] = None):
        self.gm = gm
        # What runs a call aot does not take: the graph itself, unless the
        # caller has a truer program (a DTensor graph's dense trace is not
        # the user's program: `dtensor.DTensorGraph`).
        self.fallback = fallback if fallback is not None else gm
        self.cfg = cfg
        self.name = name
        self.whole = whole
        # One trace for every size (`_SymbolicGraph`): the keys below mask
        # the symbolic sizes.
        self.symbolic = symbolic
        self.dynamic = symbolic.dynamic if symbolic is not None else None
        self.traced: Dict[tuple, Any] = {}
        # Inputs read only as numbers (Dynamo's unspecialized floats): the
        # trace key holds their values, and each trace has them as constants.
        self.item_inputs = fx_ir.item_inputs(gm)
        # Per convention key a region has a variant for (compiled or not),
        # and the values of `item_inputs`, the region: such a call needs no
        # trace key (the convention key decides it), and its key is read
        # once.
        self.regions: Dict[tuple, _Region] = {}
        # The native dispatcher's entries (`_native.Dispatch`, which the
        # backend hands Dynamo; None for a graph called only from Python):
        # the plain inference variants this graph has run, by key.
        self.fast: Optional[Any] = None
        # The keys handed to it, oldest first.
        self.fast_keys: Dict[tuple, None] = {}

    def __call__(self, *args):
        # Tracing specialises on the values of non-tensor inputs and on the
        # shapes (but for the symbolic ones of a `_SymbolicGraph`).
        grad_mode = torch.is_grad_enabled()
        try:
            return self._call(args, grad_mode)
        except _SymbolicDeclined as e:
            # (Not a fallback to PyTorch: aot compiles the graph per shape.)
            log.info("aot_torch: %s is compiled per shape: with symbolic sizes, %s", self.name, e)
            compile_report.progress(self.name, "per shape: %s" % e)
            self.symbolic = None
            self.dynamic = None
            self.traced.clear()
            self.regions.clear()
            self.fast_keys.clear()
            if self.fast is not None:
                self.fast.clear()
            return self._call(args, grad_mode)

    def _call(self, args, grad_mode):
        try:
            # (A region's trace has these numbers as constants.)
            numbers = tuple(_number(args[k]) for k in self.item_inputs) if self.item_inputs else ()
            # The symbolic trace serves the calls with its numbers; the keys
            # of the others keep their sizes (they are traced per shape).
            dynamic = self.dynamic if self.symbolic is not None and numbers == self.symbolic.numbers else None
            if self.regions:
                try:
                    conv = _convention_key(args, dynamic)
                except Exception:  # (what no region takes: the slow path says what)
                    conv = None
                region = self.regions.get((conv[0], numbers)) if conv is not None else None
                if region is not None:
                    v = region.variants.get(conv[0])
                    if v is not None and (v.plain or v.lean) and _profiler is None:
                        # (An inference variant with nothing after its
                        # compiled code, or a training one with only its
                        # autograd node: the region's bookkeeping is not
                        # needed; a refusal of the runtime's guards is.)
                        # A variant of symbolic sizes is registered with the
                        # native dispatcher per size: under the key of the
                        # call's own sizes, read before the call.
                        fast_key = None
                        if self.fast is not None and v.plain:
                            fast_key = conv[0] if v.sizes is None else _convention_key(args)[0]
                        try:
                            out = v(args, conv[1])
                        except _native.ConventionError:
                            return region.call(args, *_convention_key(args, dynamic))
                        if fast_key is not None and fast_key not in self.fast_keys:
                            self._register_fast(fast_key, v, region)
                        # (`region.unwrap` inline: this is the hot path.)
                        return out if region.tuple_out else (out[0] if out else None)
                    return region.call(args, *conv)
            key = (grad_mode, _native.graph_key(args, dynamic)) + numbers
            run = self.traced.get(key)
            if run is None:
                if len(self.traced) >= self.cfg.recompile_limit:
                    log.warning("aot_torch: %s reached recompile_limit (%d shapes); this shape runs in PyTorch",
                                self.name, self.cfg.recompile_limit)
                    self.traced[key] = run = self.fallback
                    stats["fallback_regions"] += 1
                    compile_report.fallback(self.name, "calls with new shapes",
                                            "recompile_limit: traced for %d shapes already" % self.cfg.recompile_limit)
                else:
                    run = self._trace(args, dynamic is not None)
                    self.traced[key] = run
            if isinstance(run, _Region):
                ckey, info = _convention_key(args, dynamic)
                out = run.call(args, ckey, info)
                if ckey in run.variants:
                    self.regions[(ckey, numbers)] = run
                return out
            return run(*args)
        except BaseException:
            # Dynamo writes a `no_grad` block as `_set_grad_enabled` calls in
            # the graph: one that raises inside the block would leave grad
            # mode off for the rest of the process, where eager's context
            # manager restores it.
            torch._C._set_grad_enabled(grad_mode)
            raise

    def _register_fast(self, key: tuple, v: "_Variant", region: "_Region") -> None:
        """Hands a plain inference variant that just ran to the native
        dispatcher for the calls of `key` (with symbolic sizes, the key of
        this call's sizes: the variant's results are laid out per size). The
        table keeps the `FastTable.capacity` latest entries, and so do the
        keys here, in the same order."""
        self.fast_keys[key] = None
        if len(self.fast_keys) > _native.FastTable.capacity:
            del self.fast_keys[next(iter(self.fast_keys))]
        outputs = [(kind == "tensor", val) for kind, val in v.translation.outputs]
        self.fast.register(key, v.fn, v.tensor_pos, v.export_views, v.written, v.plain_strides, outputs,
                           region.tuple_out, v.native_finish)

    def _trace(self, args, symbolic: bool = False):
        if symbolic:
            region, _ = _whole_region(self.symbolic.aten, self.cfg, self.name, self.gm, self.symbolic)
            compile_report.graph_ran(self.name, "aot (symbolic sizes)")
            return region
        compile_report.progress(self.name, "tracing to ATen")
        gm = self.gm
        if self.item_inputs:
            gm = fx_ir.with_item_values(gm, {k: _number(args[k]) for k in self.item_inputs})
        try:
            aten = fx_ir.to_aten(gm, args)
        except Exception as e:  # tracing is PyTorch's own machinery
            log.warning("aot_torch: %s runs in PyTorch: tracing to ATen failed: %s", self.name, _one_line(e))
            stats["fallback_regions"] += 1
            compile_report.fallback(self.name, "the whole graph", "tracing to ATen failed: %s" % _one_line(e),
                                    compile_report.graph_source(self.name))
            compile_report.graph_ran(self.name, "PyTorch")
            return self.fallback
        # (A backward traced with the graph: `dtensor.DTensorGraph`'s.)
        if TRACED_BACKWARD in getattr(gm, "meta", {}):
            aten.meta[TRACED_BACKWARD] = gm.meta[TRACED_BACKWARD]
        region, fell_back = _whole_region(aten, self.cfg, self.name, self.fallback)
        # What the user's graph itself leaves to PyTorch (not its trace).
        forced = _user_backward_nodes(self.gm) if torch.is_grad_enabled() else []
        if region is not None and not forced:
            compile_report.graph_ran(self.name, "aot")
            return region
        if region is not None:
            fell_back = []
        fell = [(n.target, r, fx_ir.source_of(n)) for n, r in fell_back] + [(n.target, r, n.name) for n, r in forced]
        ops = sorted({"%s (%s)" % (t, r) for t, r, _ in fell})
        log.warning("aot_torch: %s: %d op(s) run in PyTorch: %s", self.name, len(fell), "; ".join(ops))
        stats["fallback_ops"] += len(fell)
        for t, r, src in fell:
            compile_report.fallback(self.name, "op %s" % t, r, compile_report.node_source(self.gm, src))
        sources = {src for _, _, src in fell}
        fell_back = fell
        split = None
        if self.whole and None not in sources:
            split = _split_user_graph(self.gm, sources, self.cfg, self.name)
        if split is None:
            log.warning("aot_torch: %s runs in PyTorch", self.name)
            stats["fallback_regions"] += 1
            compile_report.fallback(self.name, "the whole graph", "it could not be split around the ops above")
            compile_report.graph_ran(self.name, "PyTorch")
            return self.fallback
        compile_report.graph_ran(self.name, "split: %d op(s) in PyTorch, the rest in aot" % len(fell_back))
        return split


# Higher-order ops of Dynamo's graph that carry a backward of the user's:
# a custom `autograd.Function` (its `backward`, not a derivative of its
# forward) and a tensor hook (run by eager's engine on the gradient). aot
# derives its backward from the forward's ops, which would ignore both.
_USER_BACKWARD = {
    "autograd_function_apply": "a custom autograd.Function: its backward is the user's, not the derivative "
                               "of its forward",
    "register_hook": "a tensor hook: eager's engine runs it on the gradient",
}


def _user_backward_nodes(gm: torch.fx.GraphModule) -> List[Tuple[torch.fx.Node, str]]:
    """The nodes of Dynamo's graph that carry a backward of the user's
    (`_USER_BACKWARD`): left to PyTorch in a graph traced with grad mode
    on, so that the graph is split around them and eager's engine runs
    their backward. (Under no_grad their forward is compiled.)"""
    hops = {getattr(torch.ops.higher_order, name, None): why for name, why in _USER_BACKWARD.items()}
    hops.pop(None, None)
    return [(n, hops[n.target]) for n in gm.graph.nodes if n.op == "call_function" and n.target in hops]


def _number(a: Any) -> Any:
    """The Python number a graph input read only by `.item()` stands for."""
    return a.item() if isinstance(a, torch.Tensor) else a


_graph_count = 0


def _openmp_runtime() -> Optional[str]:
    """The file of the OpenMP runtime PyTorch runs its CPU ops on, when its
    parallel backend is OpenMP and the process maps it (Linux)."""
    if "parallel backend: OpenMP" not in torch.__config__.parallel_info():
        return None
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                name = os.path.basename(path)
                if name.startswith(("libgomp", "libiomp5", "libomp")) and ".so" in name:
                    return path
    except OSError:
        pass
    return None


def share_threads() -> Optional[str]:
    """Runs aot's parallel steps on PyTorch's OpenMP team (once per
    process; the backend and ``compile_ir`` do it when they first compile).
    By OpenMP's default wait policy PyTorch's threads spin for a while after
    each of its parallel ops, and a compiled call that ran on threads of its
    own would share the cores with them; on the team, the spinning threads
    take aot's work at once. Under ``OMP_WAIT_POLICY=passive`` nothing
    spins, and aot's own pool (whose idle threads wait less deeply) starts a
    split sooner than a team that sleeps, so aot keeps it; so it does with
    ``AOT_SHARE_THREADS=0``. Returns the team in use (None: aot's own pool)."""
    passive = os.environ.get("OMP_WAIT_POLICY", "").strip().lower() == "passive"
    if os.environ.get("AOT_SHARE_THREADS", "1") != "0" and not passive and _native.thread_team() is None:
        path = _openmp_runtime()
        if path is not None:
            try:
                _native.use_openmp(path)
            except _native.AotError as e:
                log.warning("aot_torch: not sharing PyTorch's threads: %s", e)
    return _native.thread_team()


def backend(**options):
    """A ``torch.compile`` backend with options (see :class:`Config`):
    ``torch.compile(model, backend=aot_torch.backend(partition="min-cut"))``."""
    cfg = Config(**options)

    def compile_fx(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], **_kwargs):
        global _graph_count
        if cfg.threads is not None:
            os.environ["AOT_NUM_THREADS"] = str(cfg.threads)
        share_threads()
        if cfg.symbolic:
            _every_size_symbolic_on_retrace()
        _graph_count += 1
        stats["graphs"] += 1
        compile_report.graph_compiled("graph %d" % _graph_count, gm)
        name = "graph %d" % _graph_count
        gm, attributes = _lift_attributes(gm)
        if dtensor.is_dtensor_graph(example_inputs):
            # (Nothing for the native table: it binds dense tensors.)
            return _native.Dispatch(dtensor.DTensorGraph(gm, cfg, name), _native.FastTable(), attributes,
                                    _index_error)
        sym = _symbolic_graph(gm, cfg, name)
        if sym is not None:
            stats["symbolic_graphs"] += 1
        compiled = CompiledGraph(gm, cfg, name, symbolic=sym)
        # Dynamo calls the native dispatcher, which takes the calls of the
        # variants it was given (none without `native_dispatch`) and hands
        # the others to `compiled`.
        # Not for graphs whose trace fixed the values of inputs
        # (`item_inputs`): their keys are not the whole story of a call.
        if cfg.native_dispatch and not compiled.item_inputs:
            compiled.fast = _native.FastTable()
        table = compiled.fast if compiled.fast is not None else _native.FastTable()
        return _native.Dispatch(compiled, table, attributes, _index_error)

    return compile_fx


def _every_size_symbolic_on_retrace() -> None:
    """Makes every size of the current frame's tensor inputs symbolic the
    next time Dynamo traces that frame (a recompile). Dynamo's automatic
    dynamic shapes make a size symbolic only once it has changed: a loop
    over batch sizes and lengths, which change one after the other, gets a
    graph with a symbolic batch and then another with a symbolic length
    too. aot compiles a symbolic graph for every size at once, so the
    first recompile may as well take them all: the frame compiles twice
    (its first, static shape, then one symbolic graph), as with
    `dynamic=True` after the first call. Sizes 0 and 1 stay specialized,
    `mark_static` still wins, and the first trace is left as it is. This
    is Dynamo's own frame state (what automatic dynamic shapes learn, and
    what profile-guided compiles save); where its layout is not the one
    read here, Dynamo's per-size marking stays, with a debug log."""
    try:
        from torch._dynamo import pgo
        from torch._dynamo.symbolic_convert import InstructionTranslator

        if not torch._dynamo.config.automatic_dynamic_shapes:
            return
        tx = InstructionTranslator.current_tx()
        if tx is None:
            return
        root = tx.output.root_tx
        state = pgo.get_code_state()[pgo.CodeId.make(root.f_code, root.closure)]
        for entry in state.automatic_dynamic.values():
            # Tensor entries have a tuple of sizes; numbers (a module's
            # `eps`, `groups`) keep Dynamo's rule.
            if isinstance(entry.size, tuple):
                entry.size = tuple(pgo.auto_dynamic for _ in entry.size)
    except (ImportError, AttributeError, TypeError, KeyError) as e:
        log.debug("aot_torch: Dynamo's frame state is not the one aot reads (%s); sizes turn symbolic as Dynamo "
                  "marks them", e)


def _lift_attributes(gm: torch.fx.GraphModule) -> Tuple[torch.fx.GraphModule, List[torch.Tensor]]:
    """`gm` with each tensor it reads as an attribute (`get_attr`) made an
    input after its own, and those tensors. Dynamo installs as attributes
    the tensors it reaches through objects other than the frame's
    arguments and modules: an optimizer's parameters and states (which it
    marks static), a tensor held by a Python object. They are the caller's
    tensors, read and written at every call; as constants of the compile
    they kept the values of the first call, and their writes were lost
    (`torch.compile(optimizer.step)` trained nothing). As inputs they are
    bound at each call like any argument (AOTAutograd lifts a module's
    parameters and buffers the same way)."""
    attrs: Dict[str, torch.fx.Node] = {}
    for n in gm.graph.nodes:
        if n.op == "get_attr" and isinstance(operator.attrgetter(n.target)(gm), torch.Tensor):
            attrs.setdefault(n.target, n)
    if not attrs:
        return gm, []
    # (On a copy: Dynamo reads its graph's placeholders after the backend.)
    graph = torch.fx.Graph()
    copied: Dict[torch.fx.Node, torch.fx.Node] = {}
    graph.output(graph.graph_copy(gm.graph, copied))
    root = gm
    gm = torch.fx.GraphModule(root, graph)
    attrs = {t: copied[n] for t, n in attrs.items()}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    tensors: List[torch.Tensor] = []
    lifted: Dict[str, torch.fx.Node] = {}
    for k, (target, first) in enumerate(attrs.items()):
        after = placeholders[-1] if placeholders else None
        with (gm.graph.inserting_after(after) if after is not None else
              gm.graph.inserting_before(next(iter(gm.graph.nodes)))):
            ph = gm.graph.placeholder("aot_attribute_%d" % k)
        ph.meta = dict(first.meta)
        placeholders.append(ph)
        lifted[target] = ph
        tensors.append(operator.attrgetter(target)(root))
    for n in list(gm.graph.nodes):
        if n.op == "get_attr" and n.target in lifted:
            n.replace_all_uses_with(lifted[n.target])
            gm.graph.erase_node(n)
    gm.recompile()
    return gm, tensors


def aot(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], options: Optional[dict] = None, **_kwargs):
    """The backend registered as ``"aot"`` (entry point
    ``torch_dynamo_backends``): ``torch.compile(model, backend="aot",
    options={...})`` takes :class:`Config`'s fields as options."""
    return backend(**(options or {}))(gm, example_inputs)
