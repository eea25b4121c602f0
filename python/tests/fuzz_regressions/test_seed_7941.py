"""fuzz/torch_compile seed 7941, minimized (aot, default partition, train).
Found as wrong, first difference base0.grad: at [0, 0]: compiled nan, eager 0.0 (6 element(s) differ)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 7941:7942 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0 - a0
    v1 = v0 / v0
    v3 = v1.narrow(1, 1, 1)
    with torch.no_grad():
        v5 = v3.sort(0).values
    return (v5, v0)


def make_inputs(g):
    b0 = torch.randn(2, 3, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def test_seed_7941():
    assert_same(f, make_inputs, seed=7941, backend="aot", modes=('train',))
