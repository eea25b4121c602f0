"""fuzz/torch_compile seed 53, minimized (aot, default partition, train).
Found as wrong, first difference base0.grad_is_None: compiled False, eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 53:54 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a2):
    v0 = a2.split(1, 0)[0]
    v1 = a0.clone()
    s0 = a2.reshape(-1).tolist()[0]
    v1[3] = v0
    v3 = v0.sum()
    return (v3,)


def make_inputs(g):
    b1 = torch.randn(4, 3, generator=g).requires_grad_()
    b0 = torch.randn(2, generator=g).requires_grad_()
    a0 = b1
    a2 = b0
    return [a0, a2], [b1, b0]


def test_seed_53():
    assert_same(f, make_inputs, seed=53, backend="aot", modes=('train',))
