"""fuzz/torch_compile seed 74, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].is_leaf: compiled 'raises RuntimeError', eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 74:75 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    a0.copy_(a2)
    a2.sigmoid_()
    v5 = a1.expand(3, 3, 4)
    return (v5,)


def make_inputs(g):
    b0 = torch.randn(3, generator=g)
    b1 = torch.randn(4, 3, generator=g).requires_grad_()
    a0 = b0
    a1 = b1.t()
    a2 = b1[1]
    return [a0, a1, a2], [b0, b1]


def test_seed_74():
    assert_same(f, make_inputs, seed=74, backend="aot", modes=('infer', 'train'))
