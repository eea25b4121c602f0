"""fuzz/torch_compile seed 137353, minimized (aot, default, train).
Found as wrong, first difference base2.grad: compiled 0.0, eager nan. `v1`
is `a2 / a2` over zeros (NaN); `v1.copy_(a2)` overwrites it. Eager's
CopyBackwards gives the overwritten value a zero gradient
(`zeros_like(grad)`), which the division's derivative then multiplies by
NaN: the input's gradient is NaN. aot dropped the overwritten value's
history and gave 0. A recorded copy_ over a history that requires grad is
now `tensor.overwrite`, whose derivative gives that history zeros.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 137353:137354 --backend aot --dynamic
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    a0 -= a0
    v0 = a0 + a0
    v1 = v0 / a0
    v1.copy_(a0)
    return (v1,)


def make_inputs(g):
    b0 = torch.randn(3, 2, generator=g).requires_grad_()
    a0 = b0.clone() * 1
    return [a0], [b0]


def test_seed_137353():
    assert_same(f, make_inputs, seed=137353, backend="aot", modes=('infer', 'train'))
