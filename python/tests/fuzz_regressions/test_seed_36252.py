"""fuzz/torch_compile seed 36252, minimized (training). Found as accepted:
eager raised "Output 1 of Unbind is a view and its base or another view of
its base has been modified inplace", the compiled call answered.

A graph break hands `v0`, an element of `unbind` (a view autograd cannot
regenerate), to the next graph next to its base; that graph writes the base
under no_grad and then uses `v0` in grad mode. The use was dead, so the
compiled graph dropped it, and nothing raised. A graph input that is such a
view (made by a multi-output op, or under no_grad) and is used in grad mode
after a write to its storage now makes the region run in PyTorch, which
raises as eager (the use counts also when dead: eager runs it).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 36252:36253 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f_unbind(a0, a1):
    v0 = a0.unbind(1)[1]
    torch._dynamo.graph_break()
    with torch.no_grad():
        a0.mul_(a1)
    v0 - v0
    return (a1 * 2,)


def f_no_grad_view(a0, a1):
    with torch.no_grad():
        v0 = a0[1]
    torch._dynamo.graph_break()
    with torch.no_grad():
        a0.mul_(a1)
    return (v0 * 3,)


def f_default_view(a0, a1):
    # A plain view's history is rebuilt: eager answers, so must aot.
    v0 = a0[1]
    torch._dynamo.graph_break()
    with torch.no_grad():
        a0.mul_(a1)
    return (v0 * 3,)


def make_inputs(g):
    b0 = torch.randn(3, 3, generator=g).requires_grad_()
    b1 = torch.randn(3, generator=g)
    return [b0 + 0, b1], [b0, b1]


def test_seed_36252_unbind():
    assert_same(f_unbind, make_inputs, seed=36252, backend="aot", modes=("infer", "train"))


def test_seed_36252_no_grad_view():
    assert_same(f_no_grad_view, make_inputs, seed=36252, backend="aot", modes=("infer", "train"))


def test_seed_36252_default_view():
    assert_same(f_default_view, make_inputs, seed=36252, backend="aot", modes=("infer", "train"))
