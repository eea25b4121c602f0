"""fuzz/torch_compile seed 179, minimized (aot, default partition, train).
Found as wrong, first difference arg1.requires_grad: compiled False, eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 179:180 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a1[-2]
    v0.index_put_((torch.tensor([0]),), a0)
    return None


def make_inputs(g):
    b0 = torch.randn(1, generator=g).requires_grad_()
    b1 = torch.randn(2, 2, 2, generator=g)
    a0 = b0
    a1 = b1
    return [a0, a1], [b0, b1]


def test_seed_179():
    assert_same(f, make_inputs, seed=179, backend="aot", modes=('infer', 'train'))
