"""fuzz/torch_compile seed 16, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled False, eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 16:17 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.sigmoid()
    v1 = v0.view(2, 2)
    return (v1,)


def make_inputs(g):
    b1 = torch.randn(2, 2, generator=g)
    a1 = b1
    return [a1], [b1]


def test_seed_16():
    assert_same(f, make_inputs, seed=16, backend="aot", modes=('infer', 'train'))
