"""fuzz/torch_compile seed 4150, minimized (aot, default partition, train).
Found as accepted: eager raised RuntimeError: Output 0 of Unbind is a view and
its base or another view of its base has been modified inplace.
(an output of `unbind` of an argument, made again as a plain view after the
region, written under no_grad and then read in grad mode: eager refuses it;
the remade view now carries eager's CreationMeta, test_seed_4489's class.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 4150:4151 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0, v1 = a0.unbind(1)
    s0 = v0.reshape(-1).tolist()[0]
    with torch.no_grad():
        v0[:2] = s0
    v3 = v0.exp()
    return None


def make_inputs(g):
    b1 = torch.randn(3, 2, generator=g).requires_grad_()
    a0 = b1
    return [a0], [b1]


def test_seed_4150():
    assert_same(f, make_inputs, seed=4150, backend="aot", modes=('train',))
