"""fuzz/torch_compile seed 57284 (inference). Found as wrong:
out[1].shares_storage_with: compiled (), eager ('out[0]',).

`v2 = a0 / v1` of a transposed `a0` is fresh and laid out transposed;
the program returns `v2.permute(0, 1)` and `v2.expand(3, 2, 4)`, not
`v2`. The two views are laid out together in a new storage, each at
eager's place, but a view that reaches an element at several positions
made the group be left apart. An `expand` is now copied from its first
position on each broadcast dimension.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 57284:57285 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v1 = a0.zero_()
    v2 = a0 / v1
    v3 = v2.mul_(v2)
    v4 = v2.permute(0, 1)
    v6 = v3.expand(3, 2, 4)
    return (v4, v6)


def f_grad(a0):
    # With gradients: the expand's copy records its first positions only.
    v2 = a0 * 3
    return (v2.permute(0, 1), v2.expand(3, 2, 4))


def make_inputs(g):
    b0 = torch.randn(4, 2, generator=g)
    return [b0.t()], [b0]


def make_grad_inputs(g):
    b0 = torch.randn(4, 2, generator=g).requires_grad_()
    return [b0.t()], [b0]


def test_seed_57284():
    assert_same(f, make_inputs, seed=57284, backend="aot", modes=("infer", "train"))


def test_seed_57284_with_gradients():
    assert_same(f_grad, make_grad_inputs, seed=57284, backend="aot", modes=("infer", "train"))
