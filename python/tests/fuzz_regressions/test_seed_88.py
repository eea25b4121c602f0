"""fuzz/torch_compile seed 88, minimized (aot, default partition, infer).
Found as wrong, first difference out[0].shape: compiled (4, 2, 1), eager (4, 2)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 88:89 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    a1.unsqueeze_(2)
    v0 = a0.zero_()
    v2 = v0.cumprod(1)
    a0 += 0.87
    a1[:1] = -0.54
    v2 *= 1.13
    return (v2,)


def make_inputs(g):
    b0 = torch.randn(5, 2, generator=g)
    a0 = b0[:4]
    a1 = b0[1:]
    return [a0, a1], [b0]


def test_seed_88():
    assert_same(f, make_inputs, seed=88, backend="aot", modes=('infer', 'train'))
