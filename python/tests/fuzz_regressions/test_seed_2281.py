"""fuzz/torch_compile seed 2281, minimized (aot, default partition, train).
Found as accepted: eager's backward raised "one of the variables needed for
gradient computation has been modified by an inplace operation", the
compiled one did not. The first region saves `a1` for the backward of the
matmul; the native backend hands saved values over as copies, so the
autograd node did not save `a1` itself and PyTorch's version check never saw
the `copy_` into it. The plan now lists the arguments a saved value is (or
views), and the node saves them.

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
    b1 = torch.randn(1, generator=g).requires_grad_()
    a1 = b1 * 1
    return [a1], [b1]


def test_seed_2281():
    assert_same(f, make_inputs, seed=2281, backend="aot", modes=('train',))
