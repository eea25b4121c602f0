"""fuzz/torch_compile seed 31553, minimized (inference and training). Found
as wrong: out.values: compiled 0.7133, eager -1.7710.

`a1` is transposed, and eager's `-1.58 - a1` keeps its layout, so `v0` has
strides (1, 2); `v0.as_strided_((3,), (1,))` then takes the first three
elements of that storage, column by column. The IR's `v0` is contiguous.
`as_strided` already refused a fresh value whose eager layout differs from
the IR's; `as_strided_` did not check, and read the row-major elements.
Now both refuse, and the region runs in PyTorch.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 31553:31554 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = -1.58 - a1
    v0.as_strided_((3,), (1,))
    return v0


def make_inputs(g):
    b1 = torch.randn(4, 2, generator=g)
    return [b1.t()], [b1]


def test_seed_31553():
    assert_same(f, make_inputs, seed=31553, backend="aot", modes=("infer", "train"))
