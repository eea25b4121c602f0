"""fuzz/torch_compile seed 158, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled True, eager False

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 158:159 --backend aot
"""

import pytest
import torch

from fuzzcheck import assert_same


def f(a2):
    v0 = a2[torch.tensor([0, 0])]
    v1 = v0.masked_fill(v0 < 0.39, -0.76)
    v2 = v1.detach()
    return (v2,)


def make_inputs(g):
    b1 = torch.randn(1, generator=g)
    a2 = b1
    return [a2], [b1]


def test_seed_158():
    assert_same(f, make_inputs, seed=158, backend="aot", modes=('infer',))
