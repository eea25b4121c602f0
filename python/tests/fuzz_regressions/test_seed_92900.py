"""fuzz/torch_compile seed 92900 (aot, default partition, train).
Found as wrong, first difference out[0].requires_grad: compiled False,
eager True. A detach of an intermediate written in place by an op autograd
records (`v2 = v0.detach(); v2.sub_(v0)`) has that op's history in eager:
it requires grad, its gradient reaches the other operand, and it still
has no `_base`. aot handed it out as a detach (no grad).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 92900:92901 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    a1 -= a1
    v0 = a0[torch.tensor([0])]
    v1 = a1.view(-1)
    with torch.no_grad():
        v1.add_(v1, alpha=-1.39)
    v2 = v0.detach()
    v3 = v1.select(0, 1)
    v2.sub_(v0)
    return (v2, v3)


def written_detach(a0):
    v0 = a0 * 1
    v2 = v0.detach()
    v2.mul_(v0)
    return (v2,)


def written_detach_returned_with_its_source(a0):
    # Eager's two results share one storage: this runs in PyTorch.
    v0 = a0 * 1
    v2 = v0.detach()
    v2.mul_(v0)
    return (v2, v0)


def written_under_no_grad(a0):
    v0 = a0 * 1
    v2 = v0.detach()
    with torch.no_grad():
        v2.sub_(v0)
    return (v2, v0 * 2)


def make_inputs(g):
    b0 = torch.randn(4, generator=g).requires_grad_()
    b1 = torch.randn(3, 3, generator=g)
    a0 = b0 + 0
    a1 = b1
    return [a0, a1], [b0, b1]


def make_one(g):
    b0 = torch.randn(4, generator=g).requires_grad_()
    return [b0 + 0], [b0]


def test_seed_92900():
    assert_same(f, make_inputs, seed=92900, backend="aot", modes=('infer', 'train'))


def test_seed_92900_variants():
    for fn in (written_detach, written_detach_returned_with_its_source, written_under_no_grad):
        assert_same(fn, make_one, seed=92900, backend="aot", modes=('infer', 'train'))
