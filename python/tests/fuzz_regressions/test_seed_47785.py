"""fuzz/torch_compile seed 47785 (training). Found as accepted: eager
raised "a leaf Variable that requires grad is being used in an in-place
operation", the compiled program answered.

`a2` is a view of a base that does not require grad, so PyTorch keeps no
history for it. `a2[1:] = a0` writes a value that requires grad through
another view: the base gets a history, `a2` keeps its empty cache, and
`a2.unsqueeze_(0)` (after the graph: Dynamo does not capture it) takes
`a2` for a leaf that requires grad and raises. The runtime recorded the
write by copying into `a2` itself, which gave `a2` a history; it now
copies through a fresh view of the base, as eager's write leaves things.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 47785:47786 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a2):
    a2[1:] = a0
    a2.unsqueeze_(0)
    return None


def f_then_data_write(a0, a2):
    a2[1:] = a0
    a2.mul_(2)
    return a2 * 1


def f_direct(a0, a2):
    # Written as itself: a2 gets a history, and a later in-place op is fine.
    a2.copy_(a0.sum() + a2)
    a2.unsqueeze_(0)
    return a2 * 1


def f_used_after(a0, a2):
    # A use after the write takes a2's history: no error either.
    a2[1:] = a0
    y = a2 * 3
    a2.unsqueeze_(0)
    return y


def make_inputs(g):
    b0 = torch.randn(3, generator=g).requires_grad_()
    b1 = torch.randn(4, 2, generator=g)
    return [b0, b1[:, 0]], [b0, b1]


def test_seed_47785():
    assert_same(f, make_inputs, seed=47785, backend="aot", modes=("infer", "train"))


def test_seed_47785_data_write_after_the_graph_raises_too():
    assert_same(f_then_data_write, make_inputs, seed=47785, backend="aot", modes=("infer", "train"))


def test_seed_47785_written_as_itself_or_used_keeps_its_history():
    assert_same(f_direct, make_inputs, seed=47785, backend="aot", modes=("infer", "train"))
    assert_same(f_used_after, make_inputs, seed=47785, backend="aot", modes=("infer", "train"))
