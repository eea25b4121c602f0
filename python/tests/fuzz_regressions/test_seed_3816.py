"""fuzz/torch_compile seed 3816, minimized (aot, default partition, infer).
Found as crash: compiled raised RuntimeError: A view was created in no_grad
mode and its base or another view of its base has been modified inplace with
grad mode enabled
(under no_grad, `v0` views `a1` and `a1` is written; eager goes on using
`v0`'s data. The backend read `v0.is_leaf` (and `_base`) for the next
region's convention key, which PyTorch refuses for such a view.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 3816:3817 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.squeeze()
    a1.div_(0.5)
    v1 = torch.erfinv(v0.tanh())
    v3 = torch.cat([v1, v0], 0)
    s0 = v3.sum().item()
    return None


def make_inputs(g):
    b1 = torch.randn(4, generator=g).requires_grad_()
    a1 = b1
    return [a1], [b1]


def test_seed_3816():
    assert_same(f, make_inputs, seed=3816, backend="aot", modes=('infer',))
