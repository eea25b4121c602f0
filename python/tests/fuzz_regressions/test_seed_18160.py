"""fuzz/torch_compile seed 18160 (aot's own; inference). Found as wrong:
out[2].storage_offset: compiled 0, eager 1.

`v0 = a0 - a0` of a transposed `a0` is laid out transposed in eager;
`v0.add_(...)`, then `v4, v5 = v0.unbind(0)` leave the region as views of
an intermediate that is not a result, which the backend lays out again in
one storage, each at eager's offset. The translator tracked eager's layout
through views but not through in-place ops, so `v5`'s offset was unknown,
taken as 0: `v5` sat on `v4`'s elements. In-place data ops now keep their
operand's layout, and views of unknown offset are not laid out together.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 18160:18161 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0 - a0
    v0.add_(-1.3)
    v3 = v0.mul_(a0)
    v4, v5 = v3.unbind(0)
    torch._dynamo.graph_break()
    return (v4, v5)


def make_inputs(g):
    b0 = torch.randn(4, 2, generator=g)
    return [b0.t()], [b0]


def test_seed_18160():
    assert_same(f, make_inputs, seed=18160, backend="aot", modes=("infer", "train"))
