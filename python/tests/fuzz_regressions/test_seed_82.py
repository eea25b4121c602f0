"""fuzz/torch_compile seed 82, minimized (aot, default partition, infer).
Found as wrong, first difference out.is: compiled (), eager ('arg1',)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 82:83 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a0.sum(0)
    v1 = v0 + v0
    a1.index_put_((torch.tensor([1, 0, 1]),), v1)
    return a1


def make_inputs(g):
    b0 = torch.randn(4, generator=g)
    a0 = b0[::2]
    a1 = b0[1::2]
    return [a0, a1], [b0]


def test_seed_82():
    assert_same(f, make_inputs, seed=82, backend="aot", modes=('infer', 'train'))
