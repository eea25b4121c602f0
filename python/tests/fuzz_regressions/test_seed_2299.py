"""fuzz/torch_compile seed 2299 (aot, default partition, train).
Found as wrong, first difference base1.grad_is_None: compiled False, eager True
(`a1` is written in grad mode, and nothing the loss reads depends on its new
value: eager leaves `b1.grad` None; the region's autograd node took the
unreached output's gradient as zeros and returned zeros for `a1`. The node
now takes unreached outputs as None, and the backward leaves None for an
argument that no given tangent reaches.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2299:2300 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    a1.div_(0.5)
    a1.as_strided_((4,), (1,))
    with torch.no_grad():
        a1 -= 1.18
        a1[1] = -1.02
    s0 = a1.sum().item()
    v0 = a1.pow(2)
    v1 = a1 - v0
    v2 = torch.cat([a0, a0], 1)
    return (v2, a0, v2)


def make_inputs(g):
    b0 = torch.randn(2, 2, generator=g).requires_grad_()
    b1 = torch.randn(3, 3, generator=g).requires_grad_()
    a0 = b0.clone() * 1
    a1 = b1 + 0
    return [a0, a1], [b0, b1]


def test_seed_2299():
    assert_same(f, make_inputs, seed=2299, backend="aot", modes=('train',))
