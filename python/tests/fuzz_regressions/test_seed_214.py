"""fuzz/torch_compile seed 214, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled True, eager False

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 214:215 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    v1 = torch.stack([a2, a2])
    return (v1,)


def make_inputs(g):
    b1 = torch.randn(2, 3, generator=g)
    a2 = b1
    return [a2], [b1]


def test_seed_214():
    assert_same(f, make_inputs, seed=214, backend="aot", modes=('infer', 'train'))
