"""fuzz/torch_compile seed 2929, minimized (aot, default partition, train).
Found as accepted: eager's backward raised "one of the variables needed for
gradient computation has been modified by an inplace operation"
(`tanh` saves its result, which the region returns; the next region writes
it. The region's node now saves the outputs eager's formulas save too,
test_seed_2281's class.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2929:2930 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.narrow(1, 1, 2)
    v1 = torch.tanh(v0)
    torch._dynamo.graph_break()
    v4 = -0.72 - v1
    v1.add_(v4)
    v5 = v4 / v4
    return (v5,)


def make_inputs(g):
    b0 = torch.randn(3, 3, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def test_seed_2929():
    assert_same(f, make_inputs, seed=2929, backend="aot", modes=('train',))
