"""fuzz/torch_compile seed 103754, minimized (aot, default partition, train).
Found as crash, first difference backward.error: compiled raised
RuntimeError: one of the variables needed for gradient computation has
been modified by an inplace operation: [torch.FloatTensor [1, 3]];
eager's backward runs. `cumprod` runs in PyTorch (the graph is split
around it); the region after it writes `v2`, the cumprod's result that
CumprodBackward saved, and returns `v4`, a view of `a1` written from
`v0`. The region's main node has edges to `v2`'s old history and to
`v0`'s; a loss on `v4` runs the node, and PyTorch's engine runs every node
an edge leads to, with no gradient: CumprodBackward unpacks its stale
`v2`. Eager never runs it (`v2`'s new value reaches no loss). The class
of seed 95298, fixed for a region's parts (one node per set of arguments
their outputs reach, `_Variant._split_by_reach`) and now for the main
node: the outputs whose histories reach other arguments than the main
node's views and written plain arguments are peeled off into nodes of
their own (`_Variant._peel_main`), which share arguments with it.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 103754:103755 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a0.unbind(1)[2]
    v2 = a0.cumprod(1)
    v2 *= v0
    v4 = a1.t()
    v4.copy_(v0)
    return (v4,)


def make_inputs(g):
    b0 = torch.randn(1, 3, generator=g).requires_grad_()
    b1 = torch.randn(3, 2, generator=g)
    a0 = b0
    a1 = b1
    return [a0, a1], [b0, b1]


def test_seed_103754():
    assert_same(f, make_inputs, seed=103754, backend="aot", modes=('infer', 'train'))
