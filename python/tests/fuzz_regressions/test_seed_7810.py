"""fuzz/torch_compile seed 7810, minimized (aot, default partition, train).
Found as wrong, first difference base0.grad: at [0, 0]: compiled 0.0, eager -1.1720491647720337 (3 element(s) differ)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 7810:7811 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.narrow(1, 0, 4)
    v1 = v0[:, 2:3:2]
    torch._dynamo.graph_break()
    v3 = v1.flatten()
    v4 = a0.select(0, 0)
    v6 = v1.view(1, 3, 1)
    v6.sub_(v6)
    return (v4,)


def make_inputs(g):
    b0 = torch.randn(3, 4, generator=g).requires_grad_()
    a0 = b0 + 0
    return [a0], [b0]


def test_seed_7810():
    assert_same(f, make_inputs, seed=7810, backend="aot", modes=('train',))
