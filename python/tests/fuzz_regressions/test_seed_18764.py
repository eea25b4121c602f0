"""fuzz/torch_compile seed 18764, minimized (training; `aot_eager` fails it
too). Found as a crash: compiled raised "more than one element of the
written-to tensor refers to a single memory location", eager trains.

`a1` is an `expand` of a non-leaf (stride 0 on its first dimension), and
`a1[3:] = w` writes it through a part that reaches each element once. The
backend recorded the write for autograd with a copy into the whole view,
which PyTorch refuses; recording it through the part instead gave the
gradient of `w` to `a1`'s base. Such a region now runs in PyTorch.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 18764:18765 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1, a2):
    a1[3:] = a2
    return (a1 * 2,)


def make_inputs(g):
    b1 = torch.randn(2, generator=g).requires_grad_()
    b2 = torch.randn(2, generator=g).requires_grad_()
    a1 = (b1 * 1).expand(4, 2)
    return [a1, b2], [b1, b2]


def test_seed_18764():
    assert_same(f, make_inputs, seed=18764, backend="aot", modes=("infer", "train"))
