"""fuzz/torch_compile seed 55500 (inference). Found as wrong:
out[1].shares_storage_with: compiled (), eager ('out[0]',).

`v1 = torch.where(c, a1, a1)` is fresh; `v2 = v1.detach()` and
`v3 = v2.view(5, 3)` view its storage; a graph break (`.item()`) makes the
first graph return `v1`, `v2` and `v3`, and the program returns `v1` and
`v3`. Eager's two results share one storage; the compiled ones come back
in two. `v1` is laid out as eager's (its transposed strides), in a new
storage with the results that share it; the detach `v2` counted as a
second root of that group, so the group was left apart. A detach of the
value is laid out in the value's new storage now, as a detach.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 55500:55501 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    a1.unsqueeze_(0)
    a1.transpose_(2, 0)
    v1 = torch.where(a1 > 0.23, a1, a1)
    v2 = v1.detach()
    v3 = v2.view(5, 3)
    s0 = v2.sum().item()
    a1.add_(v2)
    return (v1, v3)


def make_inputs(g):
    b1 = torch.randn(3, 5, generator=g)
    return [b1], [b1]


def f_detach_returned(a0):
    # In grad mode too: the detach shares the value's storage, without a
    # history.
    v1 = torch.where(a0 > 0.1, a0, a0 * 2)
    return (v1, v1.detach())


def make_transposed(g):
    b0 = torch.randn(3, 5, generator=g).requires_grad_()
    return [b0.t()], [b0]


def test_seed_55500():
    assert_same(f, make_inputs, seed=55500, backend="aot", modes=("infer", "train"))


def test_seed_55500_a_detach_of_a_fresh_result():
    assert_same(f_detach_returned, make_transposed, seed=55500, backend="aot", modes=("infer", "train"))
