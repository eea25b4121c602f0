"""fuzz/torch_compile seed 17931 (aot, training; upstream's `aot_eager` has
it too). Found as wrong: base0.grad_is_None: compiled False, eager True.

`a0` and `a1` are views of one non-leaf, and the region writes `a0`: the
compiled node takes them as views of one differentiable base, whose
gradient it returns. The loss only reaches `a2.double()`, taken before
`a2[:1] = a1`, so eager's graph sends `a0`'s and `a1`'s history nothing
and `b0.grad` stays None; the node returned the base's zeros. The base's
gradient is now None where no gradient reached any of its members.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 17931:17932 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    a0.abs_()
    v1 = a2.double()
    a2[:1] = a1
    a2[1] = -0.03
    return v1, (v1, v1)


def make_inputs(g):
    b0 = torch.randn(3, 3, generator=g).requires_grad_()
    b1 = torch.randn(3, 3, generator=g).requires_grad_()
    n0 = b0 * 1
    return [n0[1:, 1:], n0[:, 0], b1.clone() * 1], [b0, b1]


def test_seed_17931():
    assert_same(f, make_inputs, seed=17931, backend="aot", modes=("infer", "train"))
