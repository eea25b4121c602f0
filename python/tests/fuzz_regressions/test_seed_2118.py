"""fuzz/torch_compile seed 2118, minimized (aot, default partition, infer).
Found as wrong, first difference out[1].shares_storage_with: compiled (), eager ('out[0]',)
(an expand of a 0-d view of an intermediate did not share the view's storage:
views of one intermediate the graph does not return were each restrided into a
storage of their own; now the first is, and the others view it).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2118:2119 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.flip(0)
    v1 = v0[2]
    v2 = v1.expand(2)
    return (v1, v2)


def make_inputs(g):
    b0 = torch.randn(3, generator=g)
    a1 = b0
    return [a1], [b0]


def test_seed_2118():
    assert_same(f, make_inputs, seed=2118, backend="aot", modes=('infer',))
