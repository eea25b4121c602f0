"""fuzz/torch_compile seed 4877 (aot, train).
Found as a failure of training: `cumprod` runs in PyTorch (saving its input and result); the next region writes its result `v0` and the argument `a0`, passed twice. The loss reaches only `a0`'s part, but the region's one node had an edge into `cumprod` through `v0`, whose backward then found its saves written ("modified by an inplace operation") where eager's backward never reaches it. `v0`'s write is now a node of its own.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 4877:4878 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a0.cumprod(0)
    v1 = a0 + v0
    v2 = a1.reshape(2, 3)
    v2[1] = 0.9
    v0[0] = -1.73
    v3 = v2.permute(1, 0)
    v1.masked_fill_(v1 > 0.3, -1.89)
    return (v3, a0)


def make_inputs(g):
    b0 = torch.randn(1, 3, 2, generator=g).requires_grad_()
    a0 = b0 * 1
    a1 = a0
    return [a0, a1], [b0]


def test_seed_4877():
    assert_same(f, make_inputs, seed=4877, backend="aot", modes=('train',))
