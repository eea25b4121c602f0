"""fuzz/torch_compile seed 14736, minimized (aot, default partition, infer). `aot_eager` shares it.
Found as wrong, first difference out[0].values: at [0, 1]: compiled 1.2104790210723877, eager 0.28279411792755127 (3 element(s) differ)

`a2 -= a0.narrow(1, 0, 1)`, `a2` and `a0` one tensor passed twice: the
column is read while written.

An in-place op that reads elements of its destination at other positions
than it writes them gives values that depend on the order eager's kernel
visits memory; functionalization reads them all before the write. Such a
region now runs in PyTorch (`_order_dependent_write`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 14736:14737 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a2):
    v0 = a0.narrow(1, 0, 1)
    a2 -= v0
    return (a0,)


def make_inputs(g):
    b0 = torch.randn(3, 2, generator=g)
    a0 = b0
    a2 = a0
    return [a0, a2], [b0]


def test_seed_14736():
    assert_same(f, make_inputs, seed=14736, backend="aot", modes=('infer',))
