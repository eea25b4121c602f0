"""fuzz/torch_compile seed 192, minimized (aot, default partition, train).
Found as crash, first difference backward.error: compiled raised RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of _AotFunction, is at version

`v0` reaches the second region only for the dead `v2`: no gradient can
reach it there, so the region's node takes a leaf over its memory and has
no edge into `a1 / a1`, whose saved `a1` the writes made stale (eager's
backward never reaches that division). `aot_eager` fails it too.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 192:193 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1 / a1
    a1[:1] = 1.04
    torch._dynamo.graph_break()
    v2 = v0.squeeze()
    a1.sub_(-0.17)
    return (a1,)


def make_inputs(g):
    b1 = torch.randn(2, generator=g).requires_grad_()
    a1 = b1.clone() * 1
    return [a1], [b1]


def test_seed_192():
    assert_same(f, make_inputs, seed=192, backend="aot", modes=('train',))
