"""fuzz/torch_compile seed 9147, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].stride: compiled (5,), eager (1,): a
contiguous result that is a view of an intermediate eager lays out
otherwise (the elementwise result of a transposed argument) keeps eager's
strides and offset.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 9147:9148 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v1 = a0 - a0
    v2 = v1.select(1, -1)
    return (v2,)


def make_inputs(g):
    b0 = torch.randn(5, 3, generator=g)
    n0 = b0 * 1
    a0 = n0.t()
    return [a0], [b0]


def test_seed_9147():
    assert_same(f, make_inputs, seed=9147, backend="aot", modes=('infer',))
