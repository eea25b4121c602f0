"""fuzz/torch_compile seed 41144 (training). Found as wrong:
base0.grad_is_None: compiled True, eager False.

`a2.index_put_(..., a0, accumulate=True)` then `a2.copy_(v0)` overwrites
all of `a2`: no gradient of the compiled code reaches `a0`, and the region
took it as a leaf with no edge, so `b0.grad` stayed None. Eager's graph
does reach it: `copy_`'s backward sends zeros to what `a2` was, and the
index_put's backward passes them on, so `b0.grad` is zeros. Arguments only
eager's edges reach keep their edge and get zeros.
(`cumprod` has no catalogue op: it runs in PyTorch, the rest is compiled.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 41144:41145 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    v0 = a2.cumprod(1)
    a2.index_put_((torch.tensor([0, 0]),), a0, accumulate=True)
    a2.copy_(v0)
    v1 = a2.exp()
    return v1


def f_one_region(a0, a2):
    v0 = a2 * 2
    a2.index_put_((torch.tensor([0, 0]),), a0, accumulate=True)
    a2.copy_(v0)
    return a2.exp()


def make_inputs(g):
    b0 = torch.randn(1, generator=g).requires_grad_()
    b1 = torch.randn(1, 2, 3, generator=g)
    b2 = torch.randn(5, 2, generator=g)
    a0 = b0 + 0
    a2 = b2.t()
    return [a0, b1, a2], [b0, b1, b2]


def make_inputs_one_region(g):
    b0 = torch.randn(1, generator=g).requires_grad_()
    b2 = torch.randn(2, 5, generator=g)
    return [b0 + 0, b2], [b0, b2]


def test_seed_41144():
    assert_same(f, make_inputs, seed=41144, backend="aot", modes=("infer", "train"))


def test_seed_41144_one_region():
    assert_same(f_one_region, make_inputs_one_region, seed=41144, backend="aot", modes=("infer", "train"))
