"""fuzz/torch_compile seed 8183, minimized (aot, default partition, infer). `aot_eager` shares it.
Found as wrong, first difference out[0].values: at [1, 0]: compiled -0.5099034309387207, eager -1.1196361780166626 (1 element(s) differ)

`a1 -= v1`, `v1` a column of `a1` (unbind) broadcast over its rows: eager's
`sub_` reads `a1[1, 0]` after writing it.

An in-place op that reads elements of its destination at other positions
than it writes them gives values that depend on the order eager's kernel
visits memory; functionalization reads them all before the write. Such a
region now runs in PyTorch (`_order_dependent_write`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 8183:8184 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v1, v2 = a1.unbind(1)
    a1 -= v1
    return (a1,)


def make_inputs(g):
    b0 = torch.randn(2, 2, generator=g)
    a1 = b0
    return [a1], [b0]


def test_seed_8183():
    assert_same(f, make_inputs, seed=8183, backend="aot", modes=('infer',))
