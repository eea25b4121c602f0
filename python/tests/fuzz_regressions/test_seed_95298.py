"""fuzz/torch_compile seed 95298, minimized (aot, default partition, train).
Found as crash, first difference backward.error: compiled raised
RuntimeError: one of the variables needed for gradient computation has
been modified by an inplace operation: [torch.FloatTensor [2]], which is
output 0 of AsStrided, is at version 2; expected version 0; eager's
backward runs. `cumprod` runs in PyTorch (the graph is split around it),
`a1` (a view of a non-leaf base, like `a0`) is written under no_grad, its
cumprod written by `copy_`, `a1` then by `abs_`. The region's part node for
`v0` and `a1` had edges to both histories (`v0`'s new value reaches
`v0`'s old one, CumprodBackward, and `a1`'s); a loss on `a1` ran the
node, and PyTorch's engine runs every node an edge leads to, even with
no gradient: CumprodBackward unpacked its saved `a1`, written since.
Eager's graph has one node per op, and never runs CumprodBackward. Fixed:
a part is one node per set of arguments its outputs reach
(`_Variant._split_by_reach`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 95298:95299 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a1.cumprod(0)
    v1 = a1.sum()
    with torch.no_grad():
        a1 *= v1
    v2 = torch.sin(v1)
    v3 = v1 * -0.06
    v0.copy_(a1)
    a1.abs_()
    s0 = v3.sum().item()
    return (a1, v2, v2, s0)


def make_inputs(g):
    b0 = torch.randn(4, generator=g).requires_grad_()
    n0 = b0 * 1
    a0 = n0[::2]
    a1 = n0[1::2]
    return [a0, a1], [b0]


def test_seed_95298():
    assert_same(f, make_inputs, seed=95298, backend="aot", modes=('infer', 'train'))
