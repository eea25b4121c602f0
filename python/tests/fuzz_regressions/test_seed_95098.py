"""fuzz/torch_compile seed 95098 (aot, default partition, train).
Found as wrong, first difference base0.grad: at [2]: compiled 0.0, eager
8.3e-05. The gradient of `v0 / v0` is 0 in exact arithmetic; eager's
division rule computes the divisor's part as `-g * ((a / b) / b)`, which
cancels the dividend's `g / b` exactly for `a is b`, and aot's wrote
`-g * (a / (b * b))`, which rounds `b * b` first: noise magnified by `1/b`
where `b` is small, not eager's value.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 95098:95099 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    a1 -= a1
    v0 = a0 * a0
    v1 = v0 / v0
    v2 = v1 + 1.74
    with torch.no_grad():
        a1.clamp_(-0.5, 0.5)
    return (v2, v1)


def make_inputs(g):
    b0 = torch.randn(4, generator=g).requires_grad_()
    b1 = torch.randn(2, 4, generator=g)
    a0 = b0
    a1 = b1
    return [a0, a1], [b0, b1]


def test_seed_95098():
    assert_same(f, make_inputs, seed=95098, backend="aot", modes=('infer', 'train'))
