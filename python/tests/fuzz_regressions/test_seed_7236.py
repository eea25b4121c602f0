"""fuzz/torch_compile seed 7236, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].is_leaf: compiled True, eager 'raises RuntimeError'

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 7236:7237 --backend aot
"""

import pytest
import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v2 = a0.permute(0, 1)
    v3 = a1.split(2, 1)[0]
    v2.masked_fill_(v2 > 0.15, 1.5)
    return (v3,)


def make_inputs(g):
    b0 = torch.randn(5, 2, generator=g).requires_grad_()
    n0 = b0 * 1
    a0 = n0[:3]
    a1 = n0[3:]
    return [a0, a1], [b0]


def test_seed_7236():
    assert_same(f, make_inputs, seed=7236, backend="aot", modes=('infer',))


def f_no_grad_block(a0, a1):
    with torch.no_grad():
        v = a1[0:1]
        a0.mul_(2)
    return (v, a0 * 1)


def f_multi_output(a0, a1):
    v = a1.unbind(0)[0]
    with torch.no_grad():
        a0.mul_(2)
    return (v, a0 * 1)


def f_multi_output_same_argument(a0, a1):
    v = a0.unbind(0)[1]
    with torch.no_grad():
        a0.mul_(2)
    return (v, a1 * 1)


def f_not_stale(a0, a1):
    with torch.no_grad():
        a0.mul_(2)
    v = a1.unbind(0)[0]
    return (v,)


@pytest.mark.parametrize("g", [f_no_grad_block, f_multi_output, f_multi_output_same_argument, f_not_stale])
def test_a_view_made_before_a_write_through_another_argument_of_its_storage(g):
    """Eager's view records the version before the write: reading its
    grad_fn raises (no_grad views and outputs of ops returning several
    views), in inference and training; made after it, it does not."""
    assert_same(g, make_inputs, seed=7236, backend="aot", modes=("infer", "train"))
