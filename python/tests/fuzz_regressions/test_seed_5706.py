"""fuzz/torch_compile seed 5706 (aot, train).
Found as a failure of training: `cumprod`'s result `v1` reaches the next region only for dead code: no gradient can reach it there, so the node takes a leaf over its memory and has no edge into `cumprod`, whose saved input the region's `zero_` wrote.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 5706:5707 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    a1.div_(0.5)
    s0 = a1.sum().item()
    v0 = a1 > 0.5
    v1 = a0.cumprod(0)
    a1.zero_()
    v2 = v1.sum(1)
    v3 = v2.clone()
    with torch.no_grad():
        a1.mul_(1.93)
    v4 = a0.reshape(1, 2, 3)
    v3.as_strided_((1,), (1,))
    v5 = v1[0]
    return (a0,)


def make_inputs(g):
    b0 = torch.randn(2, 3, generator=g).requires_grad_()
    a0 = b0 + 0
    a1 = a0
    return [a0, a1], [b0]


def test_seed_5706():
    assert_same(f, make_inputs, seed=5706, backend="aot", modes=('train',))
