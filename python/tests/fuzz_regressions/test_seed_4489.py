"""fuzz/torch_compile seed 4489, minimized (aot, default partition, train).
Found as accepted: eager raised RuntimeError: Output 0 of Slice is a view and
is being modified inplace. This view is the output of a function that returns
multiple views.
(`unbind`'s outputs leave a region as views made again with `as_strided`,
which PyTorch does not mark as outputs of a multi-view op: the write after the
graph break was allowed. They now carry eager's mark, CreationMeta.MULTI_OUTPUT_NODE.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 4489:4490 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v0 = torch.index_select(a1, 0, torch.tensor([3, 1, 2]))
    v3, v4, v5 = v0.unbind(0)
    torch._dynamo.graph_break()
    v3[1:] = -1.42
    return None


def make_inputs(g):
    b2 = torch.randn(4, 3, generator=g).requires_grad_()
    a1 = b2
    return [a1], [b2]


def test_seed_4489():
    assert_same(f, make_inputs, seed=4489, backend="aot", modes=('train',))
