"""fuzz/torch_compile seed 17190, minimized (aot, default partition, infer). `aot_eager` shares it.
Found as wrong, first difference arg0.values: at [1, 2, 0]: compiled -0.8143298029899597, eager 0.5653477311134338 (1 element(s) differ)

`v1[2:] = v0`, a `copy_` from a `select` of `a0` into a permuted slice
of it: some elements are read after being written.

An in-place op that reads elements of its destination at other positions
than it writes them gives values that depend on the order eager's kernel
visits memory; functionalization reads them all before the write. Such a
region now runs in PyTorch (`_order_dependent_write`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 17190:17191 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.select(1, 2)
    v1 = a0.permute(1, 2, 0)
    v1[2:] = v0
    return None


def make_inputs(g):
    b0 = torch.randn(2, 3, 2, generator=g)
    a0 = b0
    return [a0], [b0]


def test_seed_17190():
    assert_same(f, make_inputs, seed=17190, backend="aot", modes=('infer',))
