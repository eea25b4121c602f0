"""fuzz/torch_compile seed 37, minimized (aot, default partition, train).
Found as crash, first difference error: compiled raised RuntimeError: setStorage: sizes [1, 1], strides [2, 1], storage offset 7, and itemsize 4 requiring a storage size of 32 are out of bounds for storage of size 20

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 37:38 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    a2.add_(0.59)
    v1 = a1.unsqueeze(1)
    a0.fill_(-0.08)
    v2 = a0.split(1, 0)[2]
    return (v2,)


def make_inputs(g):
    b0 = torch.randn(5, 2, generator=g)
    b1 = torch.randn(1, 5, generator=g).requires_grad_()
    a0 = b0[1:, 1:]
    a1 = b0[:, 0]
    a2 = b1 + 0
    return [a0, a1, a2], [b0, b1]


def test_seed_37():
    assert_same(f, make_inputs, seed=37, backend="aot", modes=('infer', 'train'))
