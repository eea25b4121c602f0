"""Collectives of compiled code, run by the ``torch.distributed`` process
group the caller set up.

A graph with PyTorch's functional collectives (``torch.ops._c10d_functional``:
what ``torch.distributed._functional_collectives`` and DTensor issue)
translates them into the ``dist`` dialect (see docs/distributed.md). The
translation registers, per process group it meets, a communicator with the
native module; a collective of compiled code then calls
:meth:`GroupCommunicator.start` with views of its buffers, which starts
the group's own collective on them (no copy, no transport of aot's own);
the compiled code runs the steps that do not depend on it meanwhile and
waits for it before the first one that does.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

_DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "int8": torch.int8,
}

_REDUCE = {
    "sum": dist.ReduceOp.SUM, "product": dist.ReduceOp.PRODUCT, "max": dist.ReduceOp.MAX,
    "min": dist.ReduceOp.MIN,
}

# Groups registered with the native module: name -> the group object (a
# group re-created under a reused name is registered again).
_registered: dict = {}


class GroupCommunicator:
    """Runs the collectives of one process group on buffers of compiled
    code (see ``python/src/dist.rs`` for the contract of ``start``)."""

    def __init__(self, group):
        self.group = group

    def start(self, kind, reduce, src, inp, out, dtype, in_shape, out_shape):
        """Starts the collective (``async_op=True``) and returns a handle
        whose ``wait()`` completes it; until then the buffers stay as they
        are."""
        dt = _DTYPES[dtype]
        x = torch.frombuffer(inp, dtype=dt).view(in_shape) if len(inp) else torch.empty(in_shape, dtype=dt)
        y = torch.frombuffer(out, dtype=dt).view(out_shape) if len(out) else torch.empty(out_shape, dtype=dt)
        g = self.group
        # An average is a sum divided after completion (backends without
        # AVG, gloo among them).
        op = _REDUCE["sum" if reduce == "avg" else reduce] if reduce else None
        if kind == "all_reduce":
            y.copy_(x)
            work = dist.all_reduce(y, op=op, group=g, async_op=True)
        elif kind == "all_gather":
            work = dist.all_gather_into_tensor(y, x, group=g, async_op=True)
        elif kind == "reduce_scatter":
            work = dist.reduce_scatter_tensor(y, x, op=op, group=g, async_op=True)
        elif kind == "all_to_all":
            work = dist.all_to_all_single(y, x, group=g, async_op=True)
        elif kind == "broadcast":
            y.copy_(x)
            work = dist.broadcast(y, src=dist.get_global_rank(g, src), group=g, async_op=True)
        else:
            raise ValueError("unknown collective %r" % (kind,))
        return _Pending(work, x, y, g.size() if reduce == "avg" else None)


class _Pending:
    """A started collective: ``wait()`` completes it, then drops every
    reference to the buffers (their views are released after it)."""

    def __init__(self, work, x, y, divide):
        self.work, self.x, self.y, self.divide = work, x, y, divide

    def wait(self):
        try:
            if self.work is not None:
                self.work.wait()
            if self.divide:
                self.y.div_(self.divide)
        finally:
            self.work = self.x = self.y = None


def group_size(group_name: str) -> int:
    """The size of process group ``group_name``, registering its
    communicator with the native module first."""
    from . import _native
    from torch.distributed.distributed_c10d import _resolve_process_group

    group = _resolve_process_group(group_name)
    if _registered.get(group_name) is not group:
        _native.register_process_group(group_name, GroupCommunicator(group), group.size(), group.rank())
        _registered[group_name] = group
    return group.size()
