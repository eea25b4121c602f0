"""fuzz/torch_compile seed 126, minimized (aot, default partition, infer).
Found as wrong, first difference arg0.version_changed: compiled False, eager True

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 126:127 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v3 = a0.view(3, 3)
    v3.transpose_(0, 1)
    return None


def make_inputs(g):
    b0 = torch.randn(3, 3, generator=g)
    a0 = b0
    return [a0], [b0]


def test_seed_126():
    assert_same(f, make_inputs, seed=126, backend="aot", modes=('infer', 'train'))
