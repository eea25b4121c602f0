"""fuzz/torch_compile seed 9, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled False, eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 9:10 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v3 = a1.cumsum(0)
    v4 = v3[0]
    return (v4,)


def make_inputs(g):
    b1 = torch.randn(4, 2, generator=g)
    a1 = b1
    return [a1], [b1]


def test_seed_9():
    assert_same(f, make_inputs, seed=9, backend="aot", modes=('infer', 'train'))
