"""fuzz/torch_compile seed 34, minimized (aot, default partition, train).
Found as wrong while making unreached gradients None: base0.grad_is_None:
compiled True, eager False. `a2.float()` is `a2` itself, and `fill_` writes
it in grad mode: eager's graph has the edge from the output through
`FillBackward` to `b1`, whose gradient is zeros, not None. A gradient is
None only where no tangent reached the node at all.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 34:35 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a2):
    v6 = a2.float()
    a2.fill_(1.66)
    return (v6,)


def make_inputs(g):
    b1 = torch.randn(4, generator=g).requires_grad_()
    a2 = (b1 * 1)
    return [a2], [b1]


def test_seed_34():
    assert_same(f, make_inputs, seed=34, backend="aot", modes=('train',))
