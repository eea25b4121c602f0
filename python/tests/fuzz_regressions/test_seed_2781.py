"""fuzz/torch_compile seed 2781, minimized (aot, default partition, train).
Found as wrong, first difference base0.grad_is_None: compiled True, eager False
(`zero_`/`fill_` in grad mode functionalized to `tensor.full`, which has no
operand, so the written value no longer required grad and no gradient reached
the leaf; eager's ZeroBackward/FillBackward keep the history and give the leaf
a zero gradient. They now functionalize to `tensor.fill`, which keeps the
destination as operand, as AOTAutograd's functional `aten.zero` does.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2781:2782 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = a1.unbind(1)[0]
    v1 = torch.cat([v0, v0 * 2], 0)
    v3 = v1 / 3.0
    v3.zero_()
    return (v3,)


def make_inputs(g):
    b1 = torch.randn(3, 5, generator=g).requires_grad_()
    a1 = b1
    return [a1], [b1]


def test_seed_2781():
    assert_same(f, make_inputs, seed=2781, backend="aot", modes=('train',))
