"""fuzz/torch_compile seed 9518, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].values: at [0, 0]: compiled 0.5677225589752197, eager 0.6677225828170776 (8 element(s) differ):
a fresh result and a view of it, both laid out as eager lays them out (the
elementwise result of a transposed argument), still share memory, so a
write into the result after a graph break shows through the view.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 9518:9519 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a2):
    v3 = 0.58 - a0
    v5 = v3[1:]
    a2.unsqueeze_(2)
    v3 -= -0.1
    return (v5,)


def make_inputs(g):
    b0 = torch.randn(4, 3, generator=g)
    b1 = torch.randn(3, 4, generator=g)
    a0 = b0.t()
    a2 = b1
    return [a0, a2], [b0, b1]


def test_seed_9518():
    assert_same(f, make_inputs, seed=9518, backend="aot", modes=('infer',))
