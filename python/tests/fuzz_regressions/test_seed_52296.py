"""fuzz/torch_compile seed 52296 (training). Found as wrong: out[0]
values (9 elements).

`torch.where(v0 > -0.01, v0, v0)` is a fresh tensor, and `as_strided`'s
offset counts in its own storage. The `simplify` pass found it equal to
`v0`, a view of the argument `a1 = b0[1:]`, and `as_strided` then read
`b0`'s storage from its start. The value `as_strided` (or its scatter)
places its layout in now stays an op of its own.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 52296:52297 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.transpose(0, 0)
    v1 = torch.where(v0 > -0.01, v0, v0)
    v3 = v1.as_strided((3, 3), (1, 0), 1)
    return (v3,)


def f_clone(a1):
    # The same through a clone, which `simplify` must not fold either.
    v1 = a1.clone() * 1
    return (v1.as_strided((2, 3), (2, 1), 3),)


def make_inputs(g):
    b0 = torch.randn(5, 2, generator=g)
    a1 = b0[1:]
    return [a1], [b0]


def test_seed_52296():
    assert_same(f, make_inputs, seed=52296, backend="aot", modes=("infer", "train"))


def test_seed_52296_through_a_clone():
    assert_same(f_clone, make_inputs, seed=52296, backend="aot", modes=("infer", "train"))
