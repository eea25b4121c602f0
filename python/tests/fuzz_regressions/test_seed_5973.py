"""fuzz/torch_compile seed 5973, minimized (aot, default partition, train).
Found as wrong, first difference base0.grad_is_None: compiled False, eager True

`v4`, a view made under no_grad, requires grad yet is a leaf: the gradient
of `v5 = v4.amax(0)` ends there, and eager leaves `b0.grad` None. The
region returned `v5` from its one node, with an edge to `a0`; an output no
argument's eager history is behind now leaves through a node of its own.
(The whole seed-5973 program, where `v4` also meets written arguments in
the next region, is still open.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 5973:5974 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.cumsum(1)
    v2 = v0 / 3.0
    v3 = a0.mean()
    with torch.no_grad():
        v4 = v2.unbind(0)[0]
    v5 = v4.amax(0)
    s0 = v3.sum().item()
    return (v5,)


def make_inputs(g):
    b0 = torch.randn(1, 5, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def test_seed_5973():
    assert_same(f, make_inputs, seed=5973, backend="aot", modes=('train',))
