"""fuzz/torch_compile seed 40962, minimized (training). Found as wrong:
base1.grad at [2, 0]: compiled 0.0, eager 0.927 (2 elements differ).

`v1`, a split of the intermediate `v0` made under no_grad, and `v4`,
another split of it, are both returned. Eager's share `v0`'s storage; the
compiled ones came in two buffers and were copied into one storage laid
out as eager's, `v1` last: where the two overlap (row 2, columns 0 and 1)
`v1`'s copy took the gradient, and a view made under no_grad passes none
on, so `v4`'s last row lost its gradient. The no_grad views are copied
first now.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 40962:40963 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = torch.where(a1 > -0.43, a1, a1)
    with torch.no_grad():
        v1 = v0.split(2, 0)[1]
    v4, v5 = v0.split(2, 1)
    return (v4, v1)


def f_reversed(a1):
    v0 = a1 * 2
    v4, v5 = v0.split(2, 1)
    with torch.no_grad():
        v1 = v0.split(2, 0)[1]
    return (v1, v4)


def make_inputs(g):
    b1 = torch.randn(3, 3, generator=g).requires_grad_()
    return [b1], [b1]


def test_seed_40962():
    assert_same(f, make_inputs, seed=40962, backend="aot", modes=("infer", "train"))


def test_seed_40962_reversed():
    assert_same(f_reversed, make_inputs, seed=40962, backend="aot", modes=("infer", "train"))
