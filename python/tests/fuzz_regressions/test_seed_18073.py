"""fuzz/torch_compile seed 18073, minimized (aot, default partition, infer). `aot_eager` shares it.
Found as wrong, first difference out[0].values: at [1, 1]: compiled -0.0013967737322673202, eager 0.7999769449234009 (1 element(s) differ)

`v5[1] = v9`, a row of `v5` copied from a column of it (`a1.sub_(a1[..., :])` before it
reads each element at its own position: no such read).

An in-place op that reads elements of its destination at other positions
than it writes them gives values that depend on the order eager's kernel
visits memory; functionalization reads them all before the write. Such a
region now runs in PyTorch (`_order_dependent_write`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 18073:18074 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.clone()
    v1 = v0.flip(1)
    v2 = a1[..., :]
    v5 = a1.sub_(v2)
    v6 = v5.copy_(v1)
    v7 = v6.narrow(0, 0, 2)
    v9 = v7.unbind(1)[0]
    v5[1] = v9
    return (a1,)


def make_inputs(g):
    b1 = torch.randn(3, 2, generator=g)
    a1 = b1
    return [a1], [b1]


def test_seed_18073():
    assert_same(f, make_inputs, seed=18073, backend="aot", modes=('infer',))
