"""fuzz/torch_compile seeds 17572, 17226, 17838 (aot's own; training).
Found as fallbacks: the region ran in PyTorch after the backend's own
"KeyError" (the answers were eager's).

A plain argument written with a value that requires grad (`a2.mul_(a0)`,
`a2` a tensor without history) has no group among the arguments that
require grad, which the split of a region into independent autograd nodes
looked it up in. It is now the main node's, with the groups its new value
reaches.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 17572:17573 --backend aot
"""

import logging

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    v0 = a1.softmax(1)
    a2.mul_(a0)
    v1 = a2.view(1, 2)
    v1.div_(2.0)
    return (v1, v0)


def make_inputs(g):
    b0 = torch.randn(1, generator=g).requires_grad_()
    b1 = torch.randn(1, 3, generator=g).requires_grad_()
    b2 = torch.randn(2, generator=g)
    return [b0 * 1, b1 + 0, b2], [b0, b1, b2]


def test_seed_17572(caplog):
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        assert_same(f, make_inputs, seed=17572, backend="aot", modes=("infer", "train"))
    assert not [r.getMessage() for r in caplog.records if "PyTorch" in r.getMessage()]
