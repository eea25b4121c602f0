"""Collectives of compiled code, run by the ``torch.distributed`` process
group the caller set up.

A graph with PyTorch's functional collectives (``torch.ops._c10d_functional``:
what ``torch.distributed._functional_collectives`` and DTensor issue)
translates them into the ``dist`` dialect (see docs/distributed.md). The
translation registers, per process group it meets, a communicator with the
native module; a collective of compiled code then calls
:meth:`GroupCommunicator.run` with views of its buffers, which runs the
group's own collective on them (no copy, no transport of aot's own).
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
    code (see ``python/src/dist.rs`` for the contract of ``run``)."""

    def __init__(self, group):
        self.group = group

    def _reduce(self, y, reduce):
        if reduce == "avg":
            # (Backends without AVG, gloo among them: the sum, divided.)
            dist.all_reduce(y, op=dist.ReduceOp.SUM, group=self.group)
            y.div_(self.group.size())
        else:
            dist.all_reduce(y, op=_REDUCE[reduce], group=self.group)

    def run(self, kind, reduce, src, inp, out, dtype, in_shape, out_shape):
        dt = _DTYPES[dtype]
        x = torch.frombuffer(inp, dtype=dt).view(in_shape) if len(inp) else torch.empty(in_shape, dtype=dt)
        y = torch.frombuffer(out, dtype=dt).view(out_shape) if len(out) else torch.empty(out_shape, dtype=dt)
        g = self.group
        if kind == "all_reduce":
            y.copy_(x)
            self._reduce(y, reduce)
        elif kind == "all_gather":
            dist.all_gather_into_tensor(y, x, group=g)
        elif kind == "reduce_scatter":
            if reduce == "avg":
                dist.reduce_scatter_tensor(y, x, op=dist.ReduceOp.SUM, group=g)
                y.div_(g.size())
            else:
                dist.reduce_scatter_tensor(y, x, op=_REDUCE[reduce], group=g)
        elif kind == "all_to_all":
            dist.all_to_all_single(y, x, group=g)
        elif kind == "broadcast":
            y.copy_(x)
            dist.broadcast(y, src=dist.get_global_rank(g, src), group=g)
        else:
            raise ValueError("unknown collective %r" % (kind,))
        # No reference to the buffers may outlive the call.
        del x, y


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
