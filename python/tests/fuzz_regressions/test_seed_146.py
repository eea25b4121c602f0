"""fuzz/torch_compile seed 146, minimized (aot, default partition, infer).
Found as wrong, first difference out[0]._base_is_not_None: compiled True, eager False

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 146:147 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v2 = torch.tanh(a1)
    s0 = v2.reshape(-1).tolist()[0]
    return (v2,)


def make_inputs(g):
    b1 = torch.randn(2, generator=g)
    a1 = b1
    return [a1], [b1]


def test_seed_146():
    assert_same(f, make_inputs, seed=146, backend="aot", modes=('infer', 'train'))
