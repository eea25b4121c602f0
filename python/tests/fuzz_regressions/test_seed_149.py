"""fuzz/torch_compile seed 149, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].values: at [0]: compiled 0.65, eager 0.0 (3 element(s) differ)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 149:150 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.zero_()
    v3 = a0.as_strided((3,), (1,))
    v0[torch.tensor([0, 1])] = 0.65
    v3.zero_()
    return (v3,)


def make_inputs(g):
    b0 = torch.randn(2, 3, generator=g, dtype=torch.float64)
    a0 = b0
    return [a0], [b0]


def test_seed_149():
    assert_same(f, make_inputs, seed=149, backend="aot", modes=('infer', 'train'))
