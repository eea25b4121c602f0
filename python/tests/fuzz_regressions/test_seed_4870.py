"""fuzz/torch_compile seed 4870, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].storage_offset: compiled 0, eager 1
(`a0 > -0.25` of a transposed `a0` keeps its layout in eager, so `unbind`'s
second element starts at offset 1 of it; the IR's comparison is contiguous.
The output got eager's strides but not its offset: the translator now
replays the view chain on eager's layout of the fresh value.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 4870:4871 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v1 = a0 > -0.25
    v3, v4, v5 = v1.unbind(0)
    return (v4,)


def make_inputs(g):
    b0 = torch.randn(5, 3, generator=g)
    a0 = b0.t()
    return [a0], [b0]


def test_seed_4870():
    assert_same(f, make_inputs, seed=4870, backend="aot", modes=('infer',))
