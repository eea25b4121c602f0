"""fuzz/torch_compile seed 20303, minimized (inference; `aot_eager` crashes
on it). Found as wrong: out[0].requires_grad: compiled True, eager False.

After a graph break, the graph takes `a1` (which requires grad) and
`v0 = a1.detach()` (which does not) as two arguments of one storage, and
returns a view of `v0`. The runtime names one argument of a storage for the
views of it; the backend made the view again from the program's own argument
only where that argument requires grad, so the view of `a1` came back, with
`a1`'s `requires_grad`. A view the runtime made of another argument is now
made again from the program's.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 20303:20304 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.detach()
    torch._dynamo.graph_break()
    v1 = a1.narrow(1, 1, 1)
    v2 = v0[None]
    with torch.no_grad():
        v0.clamp_(min=0.1)
    return (v2.unsqueeze(2), v1 * 2)


def make_inputs(g):
    b1 = torch.randn(3, 3, generator=g).requires_grad_()
    return [b1.clone() * 1], [b1]


def test_seed_20303():
    assert_same(f, make_inputs, seed=20303, backend="aot", modes=("infer", "train"))
