"""fuzz/torch_compile seed 6848, minimized (aot, default partition, train).
Found as crash, first difference error: compiled raised RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 6848:6849 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    v0 = a1 + a2
    v1 = v0.select(1, 1)
    v2 = v1.mean(0)
    a0[1:] = v2
    return None


def make_inputs(g):
    b0 = torch.randn(4, 3, generator=g)
    b1 = torch.randn(4, 4, generator=g).requires_grad_()
    a0 = b0[1:, 1:]
    a1 = b0[:, 0]
    a2 = b1
    return [a0, a1, a2], [b0, b1]


def test_seed_6848():
    assert_same(f, make_inputs, seed=6848, backend="aot", modes=('train',))


def f_two_views(a0, a1, a2):
    v2 = (a1 + a2).select(1, 1).mean(0)
    a0[1:] = v2
    a1[1:] = v2 * 2
    return (a0 * 2,)


def test_two_written_views_of_a_base_that_does_not_require_grad():
    """The second view's history is made again before the value is copied
    into it (the first copy gave the base a history)."""
    assert_same(f_two_views, make_inputs, seed=6848, backend="aot", modes=("infer", "train"))
