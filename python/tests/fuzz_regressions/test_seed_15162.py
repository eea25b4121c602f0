"""fuzz/torch_compile seed 15162, minimized by hand (aot, inference; upstream's
`aot_eager` has it too). Found as wrong, first difference
out[1]._base_is_not_None: compiled True, eager False: `t_()` of a fresh
intermediate is a fresh tensor with strides (1, 2), every element of its
storage once; it came back as a view of a 1-D tensor over that storage,
where only a row-major whole-storage result was handed over plain.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 15162:15163 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a2):
    v1 = torch.cat([a0, a0 * 2], 0)
    v1.t_()
    v2 = a2.sqrt()
    v2.relu_()
    return (v2, v1)


def g(a0):
    # A fresh result eager lays out as its transposed operand, beside a
    # view of it.
    v1 = a0.transpose(0, 2) * 2
    return (v1, v1[1:])


def make_inputs(g):
    b0 = torch.randn(2, 2, generator=g).requires_grad_()
    b2 = torch.randn(1, 3, 2, generator=g)
    a0 = b0 + 0
    return [a0, b2], [b0, b2]


def make_one(gen):
    b0 = torch.randn(3, 2, 4, generator=gen).requires_grad_()
    return [b0 * 1], [b0]


def test_seed_15162():
    assert_same(f, make_inputs, seed=15162, backend="aot", modes=('infer', 'train'))


def test_a_permuted_fresh_result_is_no_view():
    assert_same(g, make_one, seed=15162, backend="aot", modes=('infer', 'train'))
