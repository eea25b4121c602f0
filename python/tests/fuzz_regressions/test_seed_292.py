"""fuzz/torch_compile seed 292, minimized (aot, default partition, train).
Found as crash, first difference backward.error: compiled raised RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of AsStrided, is at version 1;

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 292:293 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = torch.erfinv(a0.tanh())
    v1 = v0.as_strided((1,), (2,))
    v2 = v1.sum(0)
    v4 = torch.where(v2 > 0.31, v2, 0.0)
    a0.zero_()
    return (v4,)


def make_inputs(g):
    b0 = torch.randn(4, generator=g).requires_grad_()
    n0 = b0 * 1
    a0 = n0[::2]
    return [a0], [b0]


def test_seed_292():
    assert_same(f, make_inputs, seed=292, backend="aot", modes=('infer', 'train'))
