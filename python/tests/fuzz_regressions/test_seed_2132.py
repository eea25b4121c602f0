"""fuzz/torch_compile seed 2132, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled False, eager True
(the output is an in-place op's result whose destination is a view).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2132:2133 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = torch.mm(a1.t(), a1)
    v1 = v0 + 1.47
    v2 = v1.squeeze()
    v2.index_put_((torch.tensor([2, 1]),), a1)
    return (v2,)


def make_inputs(g):
    b0 = torch.randn(2, 3, generator=g)
    a1 = b0
    return [a1], [b0]


def test_seed_2132():
    assert_same(f, make_inputs, seed=2132, backend="aot", modes=('infer', 'train'))
