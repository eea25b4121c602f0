"""fuzz/torch_compile seed 7544, minimized (aot, default partition, infer).
Found as crash, first difference error: compiled raised IndexError: list index out of range

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 7544:7545 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.view(1, 3, 5)
    v1 = v0.sort(0).values
    a0.copy_(a0)
    v0.transpose_(1, 2)
    v2 = v1 > 0.46
    return (v2,)


def make_inputs(g):
    b0 = torch.randn(3, 5, generator=g)
    a0 = b0
    return [a0], [b0]


def test_seed_7544():
    assert_same(f, make_inputs, seed=7544, backend="aot", modes=('infer',))
