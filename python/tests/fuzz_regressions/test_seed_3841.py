"""fuzz/torch_compile seed 3841, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled False, eager True
(`a0 > 0.34` of a transposed `a0` keeps its layout in eager, and the view of
it is a view; the backend gave the output eager's strides in a fresh tensor,
without `_base`. A view in eager now gets them as a view of a new storage.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 3841:3842 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    a0.transpose_(2, 0)
    v0 = a0 > 0.34
    v1 = v0.view(1, 3, 2, 2)
    return (v1,)


def make_inputs(g):
    b0 = torch.randn(2, 2, 3, generator=g)
    a0 = b0
    return [a0], [b0]


def test_seed_3841():
    assert_same(f, make_inputs, seed=3841, backend="aot", modes=('infer',))
