"""fuzz/torch_compile seed 36528, minimized (training). Found as crash:
the compiled backward raised "one of the variables needed for gradient
computation has been modified by an inplace operation", eager's did not.

`as_strided_` and `squeeze_` break the graph in three. The first graph's
`v1 = a2 * a1` saves `a2`, which `a2.squeeze_(0)` then moves. The last
graph writes `v6` into `v3` (a view of `v1`) and returns `v6`: its part
node holds both `a0` and `v3`, and gave `v3` a gradient of zeros when only
`v6`'s came back, so the backward reached the first graph's node and its
stale save. Eager's graph sends `v3` nothing from `v6`: a part's node now
returns None for an argument no given gradient reaches, as the main node
does.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 36528:36529 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    a1.as_strided_((1,), (1,))
    v1 = a2 * a1
    v3 = v1.reshape(1, 3, 5)
    a2.squeeze_(0)
    a1.zero_()
    v6 = a0.index_put_((torch.tensor([0, 1]),), torch.tensor(1.51))
    v3.index_put_((torch.tensor([0]),), v6)
    return (v6,)


def make_inputs(g):
    b0 = torch.randn(3, 5, generator=g).requires_grad_()
    b1 = torch.randn(2, generator=g).requires_grad_()
    b2 = torch.randn(3, 5, generator=g)
    a0 = b0 * 1
    a1 = b1 + 0
    return [a0, a1, b2], [b0, b1, b2]


def test_seed_36528():
    assert_same(f, make_inputs, seed=36528, backend="aot", modes=("infer", "train"))
