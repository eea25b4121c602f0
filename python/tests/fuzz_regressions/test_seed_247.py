"""fuzz/torch_compile seed 247, minimized (aot, default partition, train).
Found as crash, first difference backward.error: compiled raised RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3, 2]], which is output 1 of _AotFunction, is at versi

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 247:248 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    a0 -= 1.04
    a0.as_strided_((3,), (1,))
    v3 = torch.cat([a0, a0 * 2], 0)
    return (v3,)


def make_inputs(g):
    b0 = torch.randn(3, 2, generator=g).requires_grad_()
    a0 = b0 * 1
    return [a0], [b0]


def test_seed_247():
    assert_same(f, make_inputs, seed=247, backend="aot", modes=('infer', 'train'))
