"""fuzz/torch_compile seed 8, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].is_leaf: compiled True, eager 'raises RuntimeError'

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 8:9 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v1 = a0.reshape(3, 2)
    a0[1] = -1.02
    return (v1,)


def make_inputs(g):
    b0 = torch.randn(2, 3, generator=g).requires_grad_()
    a0 = b0 + 0
    return [a0], [b0]


def test_seed_8():
    assert_same(f, make_inputs, seed=8, backend="aot", modes=('infer', 'train'))
