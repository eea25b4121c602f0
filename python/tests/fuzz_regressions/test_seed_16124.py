"""fuzz/torch_compile seed 16124, minimized by hand (aot, inference).
Found as wrong, first difference out[0].storage_offset: compiled 5, eager 1:
a one-element view of an intermediate (`diagonal(-1)` of a comparison of a
transposed argument, which eager lays out as the argument: strides (1, 2)),
passed through a graph break. Eager's view sits at offset 1 of its
storage; over a row-major intermediate it sat at 5. Results of one element
kept no eager layout at all (their strides say nothing of where they are).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 16124:16125 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    a1[0] = -1.05
    v0 = a2.float()
    v1 = v0 > -0.02
    v2 = v1.diagonal(-1)
    torch._dynamo.graph_break()
    v5 = v2.squeeze(0)
    return (v5, v5)


def g(a0):
    # The same view returned from the region itself, and a 0-d element.
    v1 = a0 * 2
    return (v1.diagonal(-1), v1[1, 0])


def make_inputs(g):
    b0 = torch.randn(5, 2, generator=g)
    a0 = b0.t()
    return [a0, a0, a0], [b0]


def make_one(gen):
    b0 = torch.randn(5, 2, generator=gen)
    return [b0.t()], [b0]


def test_seed_16124():
    assert_same(f, make_inputs, seed=16124, backend="aot", modes=('infer',))


def test_one_element_views_of_a_transposed_intermediate():
    assert_same(g, make_one, seed=16124, backend="aot", modes=('infer', 'train'))
