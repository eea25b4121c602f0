"""fuzz/torch_compile seed 8718, minimized (aot, default partition, infer). `aot_eager` shares it.
Found as wrong, first difference out[0].values: at [1, 0]: compiled 0.15795676410198212, eager 0.14295172691345215 (6 element(s) differ)

`v3.mul_(v3.diagonal())`: the diagonal is read while the rows are written.

An in-place op that reads elements of its destination at other positions
than it writes them gives values that depend on the order eager's kernel
visits memory; functionalization reads them all before the write. Such a
region now runs in PyTorch (`_order_dependent_write`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 8718:8719 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    v1 = a2 + -0.69
    v3 = v1.flip(0)
    v4 = v3.diagonal()
    v3.mul_(v4)
    return (v3,)


def make_inputs(g):
    b2 = torch.randn(4, 3, generator=g)
    a2 = b2
    return [a2], [b2]


def test_seed_8718():
    assert_same(f, make_inputs, seed=8718, backend="aot", modes=('infer',))
