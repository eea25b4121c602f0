"""fuzz/torch_compile seed 146925 (aot, default, infer, `--dynamic`).
Found as a crash: "specialised for s0 = 2, s1 = 4, the function does not
verify: argument 0: 'aot.layout' on an argument with symbolic sizes".
`a1` is a transposed argument (a dense layout in another order of its
dimensions), which a symbolic compile now takes with its strides as
expressions; code generated per size for the scaled dot-product attention
specialised the function's types but not the layout and storage records
(`#aot.layout`, `#aot.storage`), whose sizes stayed symbolic. Specialising
a function now evaluates the sizes inside dialect records too.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 146925:146926 --backend aot --dynamic
"""

import torch

from fuzzcheck import _check, assert_same


def f(a0, a1):
    v0 = a1.masked_fill_(a1 > -0.49, -0.2)
    a0[..., 1] = 1.2
    with torch.no_grad():
        a1.masked_fill_(a1 > -0.28, -1.78)
    v0.masked_fill_(v0 > -0.33, -0.99)
    a0.copy_(a0)
    a1.unsqueeze_(1)
    with torch.no_grad():
        v1 = v0.mul_(1.31)
        v2 = v1 - v1
    torch._dynamo.graph_break()
    v3 = torch.nn.functional.scaled_dot_product_attention(v1, v1.tanh(), v1 * 0.5, scale=0.3)
    a1[1] = -0.64
    v5 = a1.reshape(1, 2, 1, 4)
    return (v0,)


def make_inputs(g):
    b0 = torch.randn(1, 2, 3, generator=g)
    b1 = torch.randn(4, 2, generator=g)
    a0 = b0
    a1 = b1.t()
    return [a0, a1], [b0, b1]


def test_seed_146925(monkeypatch):
    monkeypatch.setattr(_check(), "DYNAMIC", True)
    assert_same(f, make_inputs, seed=146925, backend="aot", modes=('infer', 'train'))
