"""fuzz/torch_compile seed 222, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].requires_grad: compiled True, eager False

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 222:223 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v3 = a0.detach()
    v3.squeeze_(0)
    v4 = v3.squeeze()
    v7 = v4.reshape(1, 2)
    return (v7,)


def make_inputs(g):
    b0 = torch.randn(1, 2, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def test_seed_222():
    assert_same(f, make_inputs, seed=222, backend="aot", modes=('infer', 'train'))
