"""fuzz/torch_compile seed 12532, minimized (aot, default partition, train).
Found as wrong, first difference base1.grad: at [0]: compiled -0.1644517183303833, eager 1.0075974464416504:
a view made in grad mode of a view made under no_grad (`v0 = a1.unsqueeze(1)`
under no_grad, then `v0.unbind(1)[0]`), returned: its gradient stops at the
no_grad view in eager; regenerated from the argument, it reached `a1`.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 12532:12533 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    with torch.no_grad():
        v0 = a1.unsqueeze(1)
    v3 = v0.unbind(1)[0]
    return (v3, a1)


def make_inputs(g):
    b1 = torch.randn(5, generator=g).requires_grad_()
    a1 = b1
    return [a1], [b1]


def test_seed_12532():
    assert_same(f, make_inputs, seed=12532, backend="aot", modes=('train',))
