"""fuzz/torch_compile seed 8080, minimized (aot, default partition, train).
Found as wrong, first difference out[0]._base_is_not_None: compiled True, eager False

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 8080:8081 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.contiguous()
    v1 = v0.masked_fill_(v0 > -0.43, 0.54)
    v1 *= v0
    v3 = a0.detach()
    v4 = torch.stack([v3, v0])
    return (v4,)


def make_inputs(g):
    b0 = torch.randn(3, generator=g).requires_grad_()
    n0 = b0 * 1
    a0 = n0.expand(3, 3)
    return [a0], [b0]


def test_seed_8080():
    assert_same(f, make_inputs, seed=8080, backend="aot", modes=('train',))
