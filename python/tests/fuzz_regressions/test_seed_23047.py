"""fuzz/torch_compile seed 23047, minimized (inference; `aot_eager` crashes
on it). Found as wrong: out.values: compiled 0.0045, eager 0.8717.

`a0` is transposed, and eager's `pow` keeps its layout, so `v5 = a0 ** 2`
has strides (1, 2); `v5.transpose(0, 0).as_strided((1, 1), (1, 3), 1)`
addresses that layout's storage. The IR's `v5` is contiguous. An
`as_strided` of a fresh value whose eager layout differs was already not
translated; one of a view of it now is not either (the layouts tracked
through the views, eager's and the IR's, are compared), and the region runs
in PyTorch.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 23047:23048 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v5 = a0.pow(2)
    v7 = v5.transpose(0, 0)
    v10 = v7.as_strided((1, 1), (1, 3), 1)
    a0[0] = -1.36
    return v10


def make_inputs(g):
    b0 = torch.randn(3, 2, generator=g).requires_grad_()
    return [(b0 * 1).t()], [b0]


def test_seed_23047():
    assert_same(f, make_inputs, seed=23047, backend="aot", modes=("infer", "train"))
