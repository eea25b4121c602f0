"""fuzz/torch_compile seed 7378, minimized (aot, default partition, train).
Found as accepted, first difference error: eager raised RuntimeError: A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clar

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 7378:7379 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    with torch.no_grad():
        v0, v1 = a2.split(2, 0)
    torch._dynamo.graph_break()
    v0.fill_(-0.95)
    return None


def make_inputs(g):
    b2 = torch.randn(4, 3, generator=g).requires_grad_()
    a2 = b2 + 0
    return [a2], [b2]


def test_seed_7378():
    assert_same(f, make_inputs, seed=7378, backend="aot", modes=('train',))


def f_views_of_an_argument_made_under_no_grad(a2):
    with torch.no_grad():
        v0, v1 = a2.split(2, 0)
        v2 = a2[1:]
    return (v0, v1, v2)


def test_views_of_an_argument_made_under_no_grad_are_leaves():
    """Eager's requires grad (its base does), yet is a leaf with PyTorch's
    no_grad mark; so is aot's."""
    assert_same(f_views_of_an_argument_made_under_no_grad, make_inputs, seed=7378, backend="aot",
                modes=("infer", "train"))
