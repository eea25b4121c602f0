"""fuzz/torch_compile seed 31, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].is_leaf: compiled 'raises RuntimeError', eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 31:32 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v1 = a0.div_(-4.0)
    v2 = v1[:]
    return (v2,)


def make_inputs(g):
    b0 = torch.randn(2, 2, 2, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def test_seed_31():
    assert_same(f, make_inputs, seed=31, backend="aot", modes=('infer', 'train'))
