"""fuzz/torch_compile seed 181, minimized (aot, default partition, train).
Found as wrong, first difference base0.grad_is_None: compiled False, eager True
(a region's backward returned zeros for an argument that no gradient
reached: the autograd node now takes unreached outputs as None, and the
backward leaves None for an argument that no given tangent reaches.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 181:182 --backend aot
"""

import pytest
import torch

from fuzzcheck import assert_same


def f(a1, a2):
    v0 = a2.sum(1)
    v1 = torch.nn.functional.gelu(a1)
    s0 = v1.sum().item()
    v3 = torch.maximum(v0, v0)
    a2[2:] = s0
    return (a2,)


def make_inputs(g):
    b1 = torch.randn(1, 2, 2, generator=g).requires_grad_()
    b2 = torch.randn(3, 4, generator=g).requires_grad_()
    a1 = b1
    a2 = b2 + 0
    return [a1, a2], [b1, b2]


def test_seed_181_2():
    assert_same(f, make_inputs, seed=181, backend="aot", modes=('train',))
