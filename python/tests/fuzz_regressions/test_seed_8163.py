"""fuzz/torch_compile seed 8163, minimized (aot, default partition, train).
Found as wrong, first difference out[1].shares_storage_with: compiled (), eager ('out[0]',)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 8163:8164 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v1 = a0 / 3.0
    v2, v3 = v1.split(2, 1)
    return (v2, v3)


def make_inputs(g):
    b1 = torch.randn(1, 3, generator=g).requires_grad_()
    a0 = b1
    return [a0], [b1]


def test_seed_8163():
    assert_same(f, make_inputs, seed=8163, backend="aot", modes=('train',))


def f_unbind_then_loss(a0):
    v1 = a0 * 2.0
    v2, v3 = v1.unbind(1)[:2]
    return (v2, v3, v1.sum())


def make_wider_inputs(g):
    b1 = torch.randn(2, 3, generator=g).requires_grad_()
    return [b1], [b1]


def test_outputs_of_unbind_of_an_intermediate_share_its_storage_and_train():
    """Gradients of outputs that share a storage are each their own."""
    assert_same(f_unbind_then_loss, make_wider_inputs, seed=8163, backend="aot", modes=("infer", "train"))
