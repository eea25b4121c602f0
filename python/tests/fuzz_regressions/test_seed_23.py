"""fuzz/torch_compile seed 23, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].values: at [0, 1]: compiled 0.17000000178813934, eager 1.9090102910995483 (1 element(s) differ)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 23:24 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a1.squeeze(0)
    v0[torch.tensor([1])] = 0.17
    v3 = a0.sum()
    v4 = a1.sub_(v3)
    return (v4,)


def make_inputs(g):
    b2 = torch.randn(3, 3, generator=g)
    b0 = torch.randn(1, 3, generator=g)
    a0 = b2
    a1 = b0
    return [a0, a1], [b2, b0]


def test_seed_23():
    assert_same(f, make_inputs, seed=23, backend="aot", modes=('infer', 'train'))
