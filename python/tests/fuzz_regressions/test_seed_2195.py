"""fuzz/torch_compile seed 2195, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].requires_grad: compiled True, eager False
(the output was the argument itself: tracing copied the non-leaf strided
argument densely, so `contiguous()` traced as nothing).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2195:2196 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    v0 = a2.contiguous()
    return (v0,)


def make_inputs(g):
    b1 = torch.randn(8, generator=g).requires_grad_()
    a2 = b1[1::2]
    return [a2], [b1]


def test_seed_2195():
    assert_same(f, make_inputs, seed=2195, backend="aot", modes=('infer', 'train'))
