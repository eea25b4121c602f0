"""fuzz/torch_compile seed 282 (aot, default partition, train), as generated.
Passes; kept for the saving rule of test_seed_2281: `mm(v0.t(), v0)` saves
views of `a2`'s storage, which `a2.zero_()` writes. A first version of the
rule saved every argument sharing a storage with a saved tensor; `v0`, a view
passed on from the first graph, then raised "A view was created in no_grad
mode ..." when the backward unpacked it. Only a saved tensor itself, or a view
of it, counts now.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 282:283 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    v0 = a2.narrow(1, 0, 2)
    torch._dynamo.graph_break()
    v1 = torch.mm(v0.t(), v0)
    a2.zero_()
    v2 = v1.flatten()
    v3 = 1.38 - v0
    v3[1:] = v1
    v4 = v3.sum(-2, keepdim=True)
    v5 = v0[1:2]
    return (v5,)


def make_inputs(g):
    b0 = torch.randn(3, 5, generator=g).requires_grad_()
    b1 = torch.randn(3, 5, generator=g)
    b2 = torch.randn(3, 3, generator=g).requires_grad_()
    a0 = b0.clone() * 1
    a1 = b1
    a2 = b2.clone() * 1
    return [a0, a1, a2], [b0, b1, b2]


def test_seed_282():
    assert_same(f, make_inputs, seed=282, backend="aot", modes=('train',))
