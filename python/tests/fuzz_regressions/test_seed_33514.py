"""fuzz/torch_compile seed 33514, minimized (inference; in training with an
argument that requires grad it lost the gradient too). Found as wrong:
out[1]._base_is_not_None: compiled True, eager False.

`return v0.detach(), v0`: both results cover one storage, and the first
one handed over owned it, so `v0` came back as a view of its own detach
(a `_base`, and without grad in training). A result that is a detach (or
a view in eager) no longer owns a storage another result covers: `v0`
does, and the detach is made from it.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 33514:33515 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1):
    v0 = torch.nn.functional.gelu(a1)
    v1 = v0.detach()
    return (v1, v0, a0 * 2)


def make_inputs(g):
    b0 = torch.randn(2, generator=g).requires_grad_()
    b1 = torch.randn(3, 2, generator=g).requires_grad_()
    return [b0, b1], [b0, b1]


def test_seed_33514():
    assert_same(f, make_inputs, seed=33514, backend="aot", modes=("infer", "train"))
