"""fuzz/torch_compile seed 151, minimized (aot, default partition, train).
Passes; kept for the saving rule of test_seed_2281: `mm(a1.t(), a1)` saves
`a1` in eager, but the region then writes `a1` itself, and `mm`'s result is
overwritten before anything reaches the loss, so eager's backward never reads
that save. The region's node does not save the arguments it writes (saving
`a1` made the compiled backward raise where eager's does not).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 151:152 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v1 = torch.mm(a1.t(), a1)
    v2 = a1.masked_fill_(a1 > 0.29, -0.35)
    v1.copy_(v2)
    return (v2,)


def make_inputs(g):
    b1 = torch.randn(1, 5, generator=g).requires_grad_()
    a1 = b1 * 1
    return [a1], [b1]


def test_seed_151():
    assert_same(f, make_inputs, seed=151, backend="aot", modes=('train',))
