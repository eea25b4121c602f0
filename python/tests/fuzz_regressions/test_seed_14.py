"""fuzz/torch_compile seed 14, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].is_leaf: compiled True, eager 'raises RuntimeError'

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 14:15 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.unsqueeze(2)
    v0.tanh_()
    return (v0,)


def make_inputs(g):
    b0 = torch.randn(1, 3, 3, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def test_seed_14():
    assert_same(f, make_inputs, seed=14, backend="aot", modes=('infer', 'train'))
