"""fuzz/torch_compile seed 20367, minimized (aot's own; inference). Found as
accepted: eager raised "unsupported operation: some elements of the input
tensor and the written-to tensor refer to a single memory location",
compiled returned.

`v5 = a1[None]` leaves the graph at a graph break, so `v5.add_(a1, alpha=...)`
gets two arguments of one storage: the same elements, with other strides,
which PyTorch's elementwise kernels refuse as a partial overlap. The
translation computes `a1 * alpha` first and adds that fresh value, so the
IR's own check of the in-place op's operands never saw `a1`. The check is now
made on the ATen op's operands as written (`_partially_overlaps`), and the
region runs in PyTorch, which raises.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 20367:20368 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a1):
    v5 = a1[None]
    s1 = v5.reshape(-1).tolist()[0]
    v5.add_(a1, alpha=-0.29)
    return (a1 * s1,)


def make_inputs(g):
    b1 = torch.randn(4, 2, generator=g).requires_grad_()
    return [b1.t()], [b1]


def test_seed_20367():
    assert_same(f, make_inputs, seed=20367, backend="aot", modes=("infer", "train"))
