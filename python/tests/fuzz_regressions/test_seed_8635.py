"""fuzz/torch_compile seed 8635, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].requires_grad: compiled False, eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 8635:8636 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    v1 = a2.detach()
    v2 = v1[None]
    v3 = v2.select(0, -1)
    s0 = v3.sum().item()
    v4 = v1.amax(-1)
    v5 = a2.reshape(6, 2)
    return (v5,)


def make_inputs(g):
    b2 = torch.randn(4, 3, generator=g).requires_grad_()
    a2 = b2
    return [a2], [b2]


def test_seed_8635():
    assert_same(f, make_inputs, seed=8635, backend="aot", modes=('infer',))
