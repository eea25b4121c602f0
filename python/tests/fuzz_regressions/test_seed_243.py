"""fuzz/torch_compile seed 243, minimized (aot, default partition, train).
Found as crash, first difference backward.error: compiled raised RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [4, 1]], which is output 0 of Unsqueeze1, is at version

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 243:244 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a2):
    v0 = torch.cat([a0, a0 * 2], 0)
    v1 = v0 + -0.88
    a2.unsqueeze_(1)
    v4 = v1.sqrt()
    return (v4,)


def make_inputs(g):
    b0 = torch.randn(4, generator=g).requires_grad_()
    a0 = b0 * 1
    a2 = a0
    return [a0, a2], [b0]


def test_seed_243():
    assert_same(f, make_inputs, seed=243, backend="aot", modes=('infer', 'train'))
