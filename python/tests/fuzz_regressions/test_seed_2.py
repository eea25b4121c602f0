"""fuzz/torch_compile seed 2, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].requires_grad: compiled True, eager False

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2:3 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v2 = a0.detach()
    return (v2,)


def make_inputs(g):
    b0 = torch.randn(2, 4, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def test_seed_2():
    assert_same(f, make_inputs, seed=2, backend="aot", modes=('infer', 'train'))
