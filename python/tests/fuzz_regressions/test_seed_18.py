"""fuzz/torch_compile seed 18, minimized (aot, default partition, infer).
Found as crash, first difference error: compiled raised InternalTorchDynamoError: RuntimeError: A view was created in no_grad mode and its base or another view of its base has been modified inplace with grad mode enabled. Given that this us

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 18:19 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.detach()
    v1 = v0.narrow(0, 0, 2)
    v0[:1] = -0.79
    torch._dynamo.graph_break()
    return (v1,)


def make_inputs(g):
    b1 = torch.randn(2, 4, generator=g).requires_grad_()
    a1 = b1
    return [a1], [b1]


def test_seed_18():
    assert_same(f, make_inputs, seed=18, backend="aot", modes=('infer', 'train'))
