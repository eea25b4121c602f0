"""fuzz/torch_compile seed 51214 (training). Found as accepted: eager's
backward raised "one of the variables needed for gradient computation has
been modified by an inplace operation", the compiled one answered.

`v3 = a2.detach() * v2` saves the detached alias of `a2`; after a graph
break (`tolist`), `a2.detach().mul_(...)` writes `a2`'s memory. A detach
shares its tensor's version counter, so eager's backward sees the write.
The region took the save for no argument's (it is not `a2` nor a view of
it), copied `a2`'s memory for its backward, and watched nothing. A save
that shares an argument's version counter is now that argument's.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 51214:51215 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a2):
    v0 = a0.sum(2, keepdim=True)
    v1 = a2.detach()
    v2 = v0.sort(1).values
    v3 = v1 * v2
    s0 = v2.reshape(-1).tolist()[0]
    v4 = a2.detach()
    v4.mul_(v4)
    return (v3,)


def f_unwritten(a0, a2):
    # The same save, and no write: both answer.
    v0 = a0.sum(2, keepdim=True)
    v3 = a2.detach() * v0.sort(1).values
    s0 = v0.reshape(-1).tolist()[0]
    return (v3 * 2,)


def make_inputs(g):
    b0 = torch.randn(2, 3, 3, generator=g).requires_grad_()
    b2 = torch.randn(3, 5, generator=g)
    return [b0, b2], [b0, b2]


def test_seed_51214():
    assert_same(f, make_inputs, seed=51214, backend="aot", modes=("infer", "train"))


def test_seed_51214_without_the_write():
    assert_same(f_unwritten, make_inputs, seed=51214, backend="aot", modes=("infer", "train"))
