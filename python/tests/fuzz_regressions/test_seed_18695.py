"""fuzz/torch_compile seeds 18695 and 8616, minimized (training; `aot_eager`
fails both). Found as wrong: out[0].requires_grad: compiled False, eager
True.

`v0 = a0.detach()` shares `a0`'s memory without its history; an in-place op
autograd records (`v0.copy_(a0 * 3)`, `v3.mul_(v1)` with `v1` requiring
grad) gives `v0` a history of its own, that op's. The backend made such an
output again as a detached alias of the argument, without it. The node now
returns its value with a gradient, and the caller gives the detached alias
that history (`_adopted`): the views of it are of one object, as eager's.

Seed 814: an `expand` of such an alias got each element's gradient once per
position; the write is recorded through its first position on a stride-0
dimension. A view of it that overlaps itself otherwise runs in PyTorch.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 18695:18696,8616:8617,814:815 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0.detach()
    v0.div_(2.0)
    v0.copy_(a0 * 3)
    return (v0.t(), v0)


def make_inputs(g):
    b0 = torch.randn(3, 5, generator=g).requires_grad_()
    return [b0 * 1], [b0]


def f_8616(a0):
    v1 = a0.unsqueeze(0)
    v3 = v1.detach()
    v1.masked_fill_(v1 > 0.44, 0.27)
    v4 = -v3
    v3.mul_(v1)
    v3.mul_(v4)
    return (v3,)


def make_inputs_8616(g):
    b0 = torch.randn(3, 4, generator=g).requires_grad_()
    return [b0 + 0], [b0]


def f_814(a0, a2):
    v0 = a2.detach()
    v0[3:] = a0
    return (v0.expand(2, -1, -1), a2 * 1)


def make_inputs_814(g):
    b0 = torch.randn(2, generator=g).requires_grad_()
    b2 = torch.randn(5, 2, generator=g)
    return [b0 * 1, b2[:4]], [b0, b2]


def f_overlapping(a0, a2):
    v0 = a2.detach()
    v0[3:] = a0
    return (v0.view(-1).as_strided((3, 4), (2, 1)),)


def test_seed_18695():
    assert_same(f, make_inputs, seed=18695, backend="aot", modes=("infer", "train"))


def test_seed_8616():
    assert_same(f_8616, make_inputs_8616, seed=8616, backend="aot", modes=("infer", "train"))


def test_seed_814():
    assert_same(f_814, make_inputs_814, seed=814, backend="aot", modes=("infer", "train"))


def test_an_overlapping_view_of_a_written_detached_alias():
    assert_same(f_overlapping, make_inputs_814, seed=814, backend="aot", modes=("infer", "train"))
