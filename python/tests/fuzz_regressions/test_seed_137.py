"""fuzz/torch_compile seed 137, minimized (aot, default partition, train).
Found as crash, first difference error: compiled raised RuntimeError: If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more than one Tensor. This is not supported by the current autogr

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 137:138 --backend aot
"""

import pytest
import torch

from fuzzcheck import assert_same


def f(a0):
    v1 = a0.unsqueeze(1)
    torch._dynamo.graph_break()
    v3 = v1[None]
    v3.sub_(v3)
    return (v3,)


def make_inputs(g):
    b0 = torch.randn(2, 3, generator=g).requires_grad_()
    a0 = b0 + 0
    return [a0], [b0]


def test_seed_137():
    assert_same(f, make_inputs, seed=137, backend="aot", modes=('train',))
