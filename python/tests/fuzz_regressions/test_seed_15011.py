"""fuzz/torch_compile seeds 15011 and 14754 (aot, training; upstream's
`aot_eager` accepts them too). Found as accepted: eager's backward raised
"modified by an inplace operation", the compiled one answered.

15011: `a2.amax(1)` saves `a2`, which the same region then writes through
a view (`v3 -= v4`); functionalization made the write invisible to the
compiled node. 14754: `a0.tanh_()` saves its result; a later region writes
the storage it shares with `a1` under no_grad. The fake run that reads
eager's graph now also records which saves each output's backward
unpacks, and whether the region wrote one after saving it; the node raises
eager's error where a gradient reaches such a save.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 15011:15012 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f15011(a0, a1, a2):
    a2[..., 2] = -1.11
    v1 = a2.amax(1)
    v3 = a2.flatten()
    v4 = v1[torch.tensor([-1])]
    a0.transpose_(1, 0)
    v3 -= v4
    return (v1, v3)


def inputs15011(g):
    b0 = torch.randn(3, 2, generator=g)
    b1 = torch.randn(5, 3, generator=g).requires_grad_()
    n0 = b1 * 1
    return [b0, n0[:2], n0[2:]], [b0, b1]


def f14754(a0, a1):
    v1 = a0.reshape(-1)
    v1.neg_()
    a0.tanh_()
    torch._dynamo.graph_break()
    with torch.no_grad():
        v6 = a1.div_(2.0)
    return (v6, a0)


def inputs14754(g):
    b0 = torch.randn(6, generator=g).requires_grad_()
    n0 = b0 * 1
    return [n0[::2], n0[1::2]], [b0]


def test_seed_15011():
    assert_same(f15011, inputs15011, seed=15011, backend="aot", modes=("train",))


def test_seed_14754():
    assert_same(f14754, inputs14754, seed=14754, backend="aot", modes=("train",))
