"""fuzz/torch_compile seed 20995, minimized (inference; `aot_eager` has it
too). Found as wrong: out[0].values: at [0, 2]: compiled 0.0, eager 0.77.

`v0 = a1.as_strided((3, 3), (2, 1))` has rows that overlap (row 1 starts
at row 0's last element). `index_put_` accumulates into rows 0 and 2 only;
eager writes those positions, the translation wrote the op's new value back
at every position, and row 1's old value of the shared element came last.
An in-place op whose destination reaches an element at several positions
now runs in PyTorch (`_reaches_an_element_twice`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 20995:20996 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    a1.sub_(a1)
    v0 = a1.as_strided((3, 3), (2, 1))
    with torch.no_grad():
        v2 = a1.as_strided((3, 3), (2, 1))
        v0.index_put_((torch.tensor([-3, -1]),), torch.tensor(-0.77), accumulate=True)
    torch._dynamo.graph_break()
    with torch.no_grad():
        a1.abs_()
    return (v2,)


def make_inputs(g):
    b1 = torch.randn(3, 4, generator=g)
    return [b1], [b1]


def test_seed_20995():
    assert_same(f, make_inputs, seed=20995, backend="aot", modes=("infer", "train"))
