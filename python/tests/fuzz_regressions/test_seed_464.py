"""fuzz/torch_compile seed 464, minimized (aot, default and min-cut partitions, train).
Found as wrong, first difference out[1].shares_storage_with: compiled (), eager ('out[0]',):
two views of one intermediate, one written in place through an `expand`,
came back in two storages in grad mode with nothing requiring grad: the
write folded the first view into `index_put`'s result, so the outputs
were no longer views of one value, and the runtime placed each apart.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 464:465 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = torch.index_select(a1, 0, torch.tensor([0, 2]))
    v2 = v0.as_strided((3, 1), (1, 1))
    v4 = v2.squeeze(1)
    v6 = v2.expand(3, -1)
    v8 = v6.index_put_((torch.tensor([0, 2]),), torch.tensor(1.13))
    return (v8, v4)


def make_inputs(g):
    b0 = torch.randn(3, 3, generator=g)
    a1 = b0
    return [a1], [b0]


def test_seed_464():
    assert_same(f, make_inputs, seed=464, backend="aot", modes=('train',))
