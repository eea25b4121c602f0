"""fuzz/torch_compile seed 44, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled True,
eager False: a detach written in place and returned came back as a view
(the translation took the in-place op for a view over the detach).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 44:45 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v5 = a1.detach()
    v5.mul_(1.0)
    return (v5,)


def make_inputs(g):
    b1 = torch.randn(1, 3, generator=g)
    a1 = b1
    return [a1], [b1]


def make_inputs_requiring_grad(g):
    b1 = torch.randn(1, 3, generator=g).requires_grad_()
    return [b1 * 1], [b1]


def test_seed_44():
    assert_same(f, make_inputs, seed=44, backend="aot", modes=('infer', 'train'))


def test_seed_44_of_a_non_leaf():
    assert_same(f, make_inputs_requiring_grad, seed=44, backend="aot", modes=('infer', 'train'))
