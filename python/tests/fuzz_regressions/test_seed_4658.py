"""fuzz/torch_compile seed 4658, minimized (aot, default partition, train).
Found as crash: compiled raised RuntimeError: Output 0 of AsStrided is a view
and is being modified inplace. This view is the output of a function that
returns multiple views.
(`v3` and `v2`, views of one activation, compile as views of a
differentiable base; the write through `v3` was copied into `v2` as well,
which the program never writes, and `v2` is an output of `split`. Only the
members the program writes are copied into now.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 4658:4659 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    v2 = a2.split(1, 0)[2]
    v3 = a2.reshape(3)
    torch._dynamo.graph_break()
    v3[:2] = v2
    return None


def make_inputs(g):
    b2 = torch.randn(6, generator=g).requires_grad_()
    n0 = b2 * 1
    a2 = n0[::2]
    return [a2], [b2]


def test_seed_4658():
    assert_same(f, make_inputs, seed=4658, backend="aot", modes=('train',))
