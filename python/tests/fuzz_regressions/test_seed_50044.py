"""fuzz/torch_compile seed 50044 (training). Found as wrong:
base1.grad: compiled 0.9, eager 1.94 (3 elements).

`a1.copy_(v3)` then `a1.mul_(v6)`: the derivative for `v6` needs `a1`'s
value before the multiplication, which eager saves as a copy, and which
the compiled forward saved as a view of the intermediate `v3`. The graph
also returns views of `v3` (`v4`, `v5`), and the program writes one after
the graph (`v5[0] = 0.45`, past Dynamo's graph break at `unsqueeze_`):
the write reached the saved value. A saved value in the memory of an
output eager does not save is now copied; one eager saves stays shared,
and writing it raises in the backward as eager's does.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 50044:50045 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1, a2):
    v0 = a1.index_put_((torch.tensor([0]),), torch.tensor(0.3))
    v1 = a1.sum(1, keepdim=True)
    v3 = v1.sqrt()
    v4 = v3.narrow(0, 0, 2)
    a1.copy_(v3)
    v5 = v4.t()
    v6 = a2.diagonal()
    a1.mul_(v6)
    a2.unsqueeze_(2)
    v5[0] = 0.45
    return (v4, v0)


def make_inputs(g):
    b0 = torch.randn(3, 3, generator=g)
    b1 = torch.randn(5, 3, generator=g).requires_grad_()
    n0 = b1 * 1
    a1 = b0[1:]
    a2 = n0[:4]
    return [a1, a2], [b0, b1]


def f_saved_by_eager(a0):
    # `exp` saves its result, which the graph returns: writing it after the
    # graph makes eager's backward raise, and the compiled one must too.
    v = a0.exp()
    w = v[:1]
    torch._dynamo.graph_break()
    w.mul_(2)
    return v


def make_inputs_saved(g):
    b0 = torch.randn(3, generator=g).requires_grad_()
    return [b0 * 1], [b0]


def test_seed_50044():
    assert_same(f, make_inputs, seed=50044, backend="aot", modes=("infer", "train"))


def test_seed_50044_an_output_eager_saves_stays_shared():
    assert_same(f_saved_by_eager, make_inputs_saved, seed=50044, backend="aot", modes=("infer", "train"))
