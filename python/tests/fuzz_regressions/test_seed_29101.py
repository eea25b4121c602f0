"""fuzz/torch_compile seed 29101 (training; `aot_eager` has it too). Found as
a crash where eager succeeds: "A view was created in no_grad mode and its
base or another view of its base has been modified inplace with grad mode
enabled".

After the graph break the region gets `v2`, a view of `a2` made under
no_grad, and `v1`, a view of an intermediate; it writes `a2` with grad on,
then `v2` (directly and through `v5 = v2.unbind(1)[0]`) and `v1` under
no_grad only. Eager's no_grad writes record nothing on the views' bases.
aot replayed every written view argument with a `copy_` to record the write
on its base's history, which reads the view's history first: for `v2`,
whose base had since been written with grad on, PyTorch refuses. The
translation now says which arguments are written with grad on
(`Translation.inputs_written_with_grad`); the others are not replayed.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 29101:29102 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0, a1, a2):
    v0 = a2.reshape(1, 1)
    v1 = a1.narrow(0, 1, 4)
    with torch.no_grad():
        v2 = v0.transpose(-2, 1)
    v3 = torch.index_select(v1, 0, torch.tensor([2]))
    torch._dynamo.graph_break()
    v4 = v3 / 3.0
    v5 = v2.unbind(1)[0]
    a2.add_(-1.52)
    with torch.no_grad():
        v2.masked_fill_(v2 > 0.43, -0.71)
    with torch.no_grad():
        v5.zero_()
        v1.clamp_(-0.5, 0.5)
    return (v1, v2, v4)


def make_inputs(g):
    b0 = torch.randn(5, 2, generator=g).requires_grad_()
    b1 = torch.randn(1, generator=g).requires_grad_()
    n0 = b0 * 1
    a0 = n0[1:, 1:]
    a1 = n0[:, 0]
    a2 = b1.clone() * 1
    return [a0, a1, a2], [b0, b1]


def test_seed_29101():
    assert_same(f, make_inputs, seed=29101, backend="aot", modes=("infer", "train"))
