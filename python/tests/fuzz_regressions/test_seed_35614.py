"""fuzz/torch_compile seed 35614, minimized (inference and training). Found
as wrong: out[1][0].values: compiled -inf, eager inf.

Where the exact GELU underflows (x far below zero, and at -0), PyTorch's
f32 kernels give +0 on some machines (oneDNN's on AVX2 cores computes
`0.5·(x + x·erf(x/√2))`) and -0 on others (on AVX-512 cores, and its f64
and one-element paths): a division by the result is +inf or -inf. aot asks
eager once per process which it gives and compiles the same (the IR's
`tensor.gelu` gives +0 there unless `signed_zero`).

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 35614:35615 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = torch.nn.functional.gelu(a0)
    return (1.0 / v0,)


def make_inputs(g):
    b0 = torch.tensor([-20.0, -30.0, -0.0, -100.0, 1.0, 2.0, -40.0, 0.5]).requires_grad_()
    return [b0 * 1], [b0]


def test_seed_35614():
    assert_same(f, make_inputs, seed=35614, backend="aot", modes=("infer", "train"))
