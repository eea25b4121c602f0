"""fuzz/torch_compile seed 2281, minimized (aot, default partition, train).
Found as accepted: eager's backward raised "one of the variables needed for
gradient computation has been modified by an inplace operation"
(`a1 @ a1` saves `a1` for its derivative; the region's autograd node saved
only what the compiled backward reads, copies here, so writing `a1` after
the graph break went unnoticed. The node now also saves what eager's
derivative formulas save, found by running the region on fake tensors.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2281:2282 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1 @ a1
    torch._dynamo.graph_break()
    a1.copy_(v0)
    return (a1,)


def make_inputs(g):
    b1 = torch.randn(3, 3, generator=g).requires_grad_()
    a1 = b1 * 1
    return [a1], [b1]


def test_seed_2281():
    assert_same(f, make_inputs, seed=2281, backend="aot", modes=('train',))
