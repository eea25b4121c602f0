"""fuzz/torch_compile seed 3312, minimized (aot, default partition, train).
Found as wrong, first difference out[1].shares_storage_with: compiled (), eager ('out[0]',)
(grad mode on, no argument requiring grad: `v0[:]` views all of `v0`,
functionalization folded the view away, and the graph returned one value
twice, which the runtime copied. In one storage group the later output now
views the earlier.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 3312:3313 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.cumsum(0)
    v1 = v0[:]
    return (v1, v0)


def make_inputs(g):
    b0 = torch.randn(2, generator=g)
    a0 = b0
    return [a0], [b0]


def test_seed_3312():
    assert_same(f, make_inputs, seed=3312, backend="aot", modes=('train',))
