"""fuzz/torch_compile seed 95925, minimized (aot, default partition, train).
Found as wrong, first difference base1.grad: at [0, 0]: compiled nan,
eager -0.927. `v3 = v1 @ v1; v3.zero_(); a2 += v3` with `a2` an argument
that requires grad: no gradient reaches `a2`'s new value, so eager's
engine never runs ZeroBackward nor the product's backward behind it; aot's
backward made the zero gradient as a constant, not from the (absent)
cotangent, so the product's backward ran with it and `0 * nan` (of
`sqrt` of a negative number) reached every element.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 95925:95926 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    v0 = a2[2:3:2]
    v1 = a2.sqrt()
    v0.sub_(v0)
    v2 = v1.as_strided((2,), (3,))
    v0 -= v0
    a0.fill_(1.69)
    v3 = v1 @ v1
    v4 = a1.view(6, 2)
    v3.zero_()
    a2 += v3
    v5 = v1.detach()
    return (v2, v4)


def minimal(a1, a2):
    v1 = a2.sqrt()
    v2 = v1.as_strided((2,), (3,))
    v3 = v1 @ v1
    v3.zero_()
    a2 += v3
    return (v2, a1 * 2)


def make_inputs(g):
    b0 = torch.randn(3, 4, generator=g)
    b1 = torch.randn(4, 4, generator=g).requires_grad_()
    a0 = b0
    a1 = a0
    a2 = b1 * 1
    return [a0, a1, a2], [b0, b1]


def make_two(g):
    b1 = torch.randn(4, 4, generator=g).requires_grad_()
    return [torch.randn(3, generator=g), b1 * 1], [b1]


def test_seed_95925():
    assert_same(f, make_inputs, seed=95925, backend="aot", modes=('infer', 'train'))


def test_seed_95925_minimal():
    assert_same(minimal, make_two, seed=95925, backend="aot", modes=('infer', 'train'))
