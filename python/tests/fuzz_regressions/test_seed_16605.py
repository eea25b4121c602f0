"""fuzz/torch_compile seed 16605, minimized (aot, default partition, infer). `aot_eager` shares it.
Found as wrong, first difference out[0].values: at [1]: compiled -1.7200000286102295, eager -2.5799999237060547 (3 element(s) differ)

`v6.add_(v5)`, `v5` the first element of the strided `v6`, broadcast: eager
adds the already updated first element to the rest.

An in-place op that reads elements of its destination at other positions
than it writes them gives values that depend on the order eager's kernel
visits memory; functionalization reads them all before the write. Such a
region now runs in PyTorch (`_order_dependent_write`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 16605:16606 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    v2 = a2.zero_()
    v2.masked_fill_(v2 > -0.14, -0.86)
    v5 = v2.narrow(0, 0, 1)
    v6 = a2[:]
    v6.add_(v5)
    return (v6,)


def make_inputs(g):
    b2 = torch.randn(8, generator=g)
    a2 = b2[::2]
    return [a2], [b2]


def test_seed_16605():
    assert_same(f, make_inputs, seed=16605, backend="aot", modes=('infer',))
