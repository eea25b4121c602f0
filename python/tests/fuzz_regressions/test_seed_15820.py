"""fuzz/torch_compile seed 15820 (aot, training; upstream's `aot_eager`
accepts it too). Found as accepted: eager raised "a leaf Variable that
requires grad is being used in an in-place operation", the compiled call
answered.

`a0` is a view of a leaf that does not require grad. After a write of a
value that requires grad into a view of it (`v2[2:] = v4`, `v2` is `a0`),
PyTorch takes `a0` for a leaf that requires grad, and refuses its
`masked_fill_`. The compiled region, functionalized, has no such check.
The fake run that reads eager's autograd graph meets the same error; the
region then runs in PyTorch, which raises it after the ops before it, as
eager does.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 15820:15821 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v1 = a1 + 1.06
    v2 = a0.copy_(a0)
    with torch.no_grad():
        a0[..., 0] = 1.05
    v4 = v1[torch.tensor([1, 1])].narrow(0, 0, 1)
    v2[2:] = v4
    a0.masked_fill_(a0 > 0.12, 1.76)
    return (a1, v4)


def make_inputs(g):
    b0 = torch.randn(4, 2, generator=g)
    b1 = torch.randn(3, 2, generator=g).requires_grad_()
    return [b0[:3], b1 * 1], [b0, b1]


def test_seed_15820():
    assert_same(f, make_inputs, seed=15820, backend="aot", modes=("infer", "train"))
