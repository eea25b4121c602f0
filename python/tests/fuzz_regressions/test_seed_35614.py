"""fuzz/torch_compile seed 35614, minimized (inference and training). Found
as wrong: out[1][0].values: compiled -inf, eager inf.

PyTorch's vectorized f32 GELU computes `0.5·(x + x·erf(x/√2))`, so where
the exact GELU underflows (x far below zero), and at -0, its result is +0;
aot's `0.5·x·erfc(-x/√2)` gave -0, and a division by it -inf. aot's f32
GELU (compiled, and the interpreter's) now adds +0, which changes nothing
else. (Eager's f64 and one-element paths give -0.)

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
