"""fuzz/torch_compile seed 122160 (aot's own; inference and training).
Found as wrong: out.storage_offset: compiled 0, eager 1.

`sort(0)` of a transposed tensor keeps its strides in eager (`(1, 2)`), so
the row `v0.unbind(0)[1]` sits at offset 1 of the sorted values' storage.
The translator tracked eager's layouts from ops with one fresh result but
not from ops with several (`sort` returns values and indices), so the
row's offset was unknown and the backend returned it at offset 0. Each
result of such an op now starts from the trace's layout; `max.dim` and
`topk` are checked the same way below.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 122160:122161 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    s0 = a1.sum().item()
    with torch.no_grad():
        v0 = a0.sort(0).values
    v1 = a0 / 3.0
    v2 = v1.sum(0)
    a1.fill_(-0.19)
    v1.add_(v2)
    v3, v4 = v0.unbind(0)
    v6 = v0 - v2
    v7 = v4.roll(1, 0)
    a1 -= a1
    return v4


def make_inputs(g):
    b0 = torch.randn(3, 2, generator=g)
    a0 = b0.t()
    a1 = b0[1]
    return [a0, a1], [b0]


def test_seed_122160():
    assert_same(f, make_inputs, seed=122160, backend="aot", modes=("infer", "train"))


def g(a0):
    v0, i0 = a0.sort(1)
    v1, i1 = a0.topk(2, 0)
    m, j = a0.max(0, keepdim=True)
    return v0.unbind(0)[1], i0.unbind(0)[2], v1[1], i1[1], m[:, 1:]


def make_transposed(gen):
    b0 = torch.randn(4, 3, generator=gen)
    return [b0.t()], [b0]


def test_rows_of_multi_result_ops_at_eagers_offsets():
    assert_same(g, make_transposed, seed=122161, backend="aot", modes=("infer", "train"))
