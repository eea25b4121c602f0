"""fuzz/torch_compile seed 5, minimized (aot, default partition, train).
Found as wrong, first difference arg0.requires_grad: compiled False, eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 5:6 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a1 / 3.0
    a0.sub_(v0)
    return None


def make_inputs(g):
    b0 = torch.randn(4, 2, generator=g)
    b1 = torch.randn(2, generator=g).requires_grad_()
    a0 = b0
    a1 = b1
    return [a0, a1], [b0, b1]


def test_seed_5():
    assert_same(f, make_inputs, seed=5, backend="aot", modes=('infer', 'train'))
