"""fuzz/torch_compile seed 24107, minimized (training; seed 7412 is of this
class, and `aot_eager` has it too). Found as wrong:
out[1].shares_storage_with: compiled (), eager ('out[0]',).

`v1, v2, v3 = v0.unbind(0)` under no_grad, `v0` an intermediate that is not
returned: eager's `v3` and `v1` are views of `v0`, in its storage. The IR
returns them as separate results, each laid out as eager's (strides and
offset), in storages of their own; `_restride_together` grouped results by
the compiled storage, so it never saw them as one. The translation now
names, per result, the fresh value whose storage eager's is in
(`result_fresh_root`), and results of one such value are laid out in one
storage, each at eager's place in it.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 24107:24108 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = torch.where(a0 > 0.47, a0, 0.0)
    with torch.no_grad():
        v1, v2, v3 = v0.unbind(0)
    return (v3, v1)


def make_inputs(g):
    b0 = torch.randn(3, 4, generator=g).requires_grad_()
    a0 = b0
    return [a0], [b0]


def g(a0):
    # The intermediate returned too, after its views.
    y = a0 * 2
    with torch.no_grad():
        v = y.unbind(0)
    return v[1], v[0], y


def make_inputs_g(gen):
    b0 = torch.randn(2, 4, generator=gen).requires_grad_()
    return [b0 * 1], [b0]


def test_seed_24107():
    assert_same(f, make_inputs, seed=24107, backend="aot", modes=("infer", "train"))


def test_seed_24107_with_the_intermediate_returned():
    assert_same(g, make_inputs_g, seed=24107, backend="aot", modes=("infer", "train"))
