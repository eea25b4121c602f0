"""fuzz/torch_compile seed 64165 (inference). Found as wrong:
out[0].storage_offset: compiled 0, eager 2.

`v1.diagonal(-1).reshape(1, 1)` of a fresh 2 x 2 `v1`: one element, at
offset 2 of `v1`'s storage in eager. Eager's offset of a result is taken
from a replay of its views on meta tensors only where the replay's
strides match the trace's, and the replay gave the size-1 dimensions
other strides (they step nowhere): the offset was taken for unknown and
the result made at 0. Strides of size-1 dimensions are not compared now.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 64165:64166 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.clamp_(-0.5, 0.5)
    v1 = v0.clone()
    v2 = v1.diagonal(-1)
    v4 = v2.reshape(1, 1)
    return (v4,)


def make_inputs(g):
    b0 = torch.randn(2, 2, generator=g)
    return [b0], [b0]


def test_seed_64165():
    assert_same(f, make_inputs, seed=64165, backend="aot", modes=("infer", "train"))
