"""fuzz/torch_compile seed 7717, minimized (aot, default partition, infer).
Found as crash, first difference error: compiled raised RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 7717:7718 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = a0.t()
    v1 = a1[:1]
    v2 = v1 + v0
    v3 = v2.expand(2, 2, 3)
    return (v3,)


def make_inputs(g):
    b0 = torch.randn(3, 2, generator=g)
    b1 = torch.randn(2, generator=g)
    a0 = b0
    a1 = b1
    return [a0, a1], [b0, b1]


def test_seed_7717():
    assert_same(f, make_inputs, seed=7717, backend="aot", modes=('infer',))


def make_inputs_that_require_grad(g):
    b0 = torch.randn(3, 2, generator=g).requires_grad_()
    b1 = torch.randn(2, generator=g).requires_grad_()
    return [b0 * 1, b1], [b0, b1]


def test_an_expand_of_an_intermediate_laid_out_otherwise_trains():
    """Each element of the expand is written once and its gradient summed
    once, as eager's expand does."""
    assert_same(f, make_inputs_that_require_grad, seed=7717, backend="aot", modes=("infer", "train"))
