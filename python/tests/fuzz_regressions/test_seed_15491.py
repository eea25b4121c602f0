"""fuzz/torch_compile seeds 15491 and 15324 (aot, training; upstream's
`aot_eager` raises too). Found as crash: the compiled backward raised
PyTorch's "modified by an inplace operation" where eager trains.

One region's node differentiates all of its ops at once; eager's graph has
a node per op, and its backward only runs (and only unpacks the saves of)
the nodes the loss reaches. 15491: `a2 *= a0` saves `a0`, which the next
region writes (`a0.copy_(a0)`); only `a0 - a1` reaches the loss. 15324:
`tanh_` saves its result, which a later region writes through a view; the
loss reaches only `a0`'s other history. The node now checks a save only
where eager's backward, for the gradients that came, runs the op that made
it; and a written view of another storage is a node of its own.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 15491:15492 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f15491(a0, a1, a2):
    a2 *= a0
    v0 = a0 - a1
    torch._dynamo.graph_break()
    v1 = v0.flatten()
    v2 = a0.copy_(a0)
    torch._dynamo.graph_break()
    v5 = torch.cat([v2, v1], 0)
    return v5, (v5, v2)


def inputs15491(g):
    b0 = torch.randn(5, generator=g).requires_grad_()
    b1 = torch.randn(4, 2, generator=g)
    b2 = torch.randn(2, 5, generator=g).requires_grad_()
    return [b0 + 0, b1[1:, 1:], b2 + 0], [b0, b1, b2]


def f15324(a0):
    a0.index_put_((torch.tensor([0, 2]),), torch.tensor(0.28), accumulate=True)
    v0 = torch.log_softmax(a0, -2)
    v0.tanh_()
    v1 = v0[..., :]
    s0 = v1.sum().item()
    v2 = a0.index_put_((torch.tensor([0, 1, 2]),), torch.tensor(1.85))
    v1[v1 > 0.21] = s0
    return (a0.detach(), v2)


def inputs15324(g):
    b0 = torch.randn(4, 2, generator=g).requires_grad_()
    return [(b0 * 1)[:3]], [b0]


def test_seed_15491():
    assert_same(f15491, inputs15491, seed=15491, backend="aot", modes=("train",))


def test_seed_15324():
    assert_same(f15324, inputs15324, seed=15324, backend="aot", modes=("train",))
