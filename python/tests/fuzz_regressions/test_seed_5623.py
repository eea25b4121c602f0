"""fuzz/torch_compile seed 5623 (aot, train).
Found as a failure of training: `a1 += -1.75` and `-a2` are independent parts of one region: the loss reaches only `v1 = -a2`, and eager leaves `b1.grad` None. The region's one autograd node had an edge into `a1`'s history too and sent zeros along it; each independent part is now a node of its own (`_Variant._parts`). `aot_eager` fails it too.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 5623:5624 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    v0 = a2.sum()
    v1 = -a2
    a1 += -1.75
    v2 = v1.split(2, 0)[0]
    return (v1,)


def make_inputs(g):
    b0 = torch.randn(2, 2, 2, generator=g)
    b1 = torch.randn(1, 3, generator=g).requires_grad_()
    b2 = torch.randn(2, 5, generator=g).requires_grad_()
    a0 = b0
    a1 = b1.clone() * 1
    a2 = b2.clone() * 1
    return [a0, a1, a2], [b0, b1, b2]


def test_seed_5623():
    assert_same(f, make_inputs, seed=5623, backend="aot", modes=('train',))
