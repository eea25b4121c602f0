"""fuzz/torch_compile seed 30851, minimized (inference and training; 13
more seeds of 30600..32599 alike). Found as accepted: eager raised
"Index put requires the source and destination dtypes match, got Double for
the destination and Float for the source"; the compiled call answered.

`index_put_` takes values of its input's dtype only (Python's `x[i] = v`
converts them first; the traced op does not). The translation cast them
silently; now such a region runs in PyTorch, which raises as eager does.

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 30851:30852 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    v0 = a0 * 2
    a0.index_put_((torch.tensor([2, 1]),), torch.tensor(1.55))
    return v0, a0


def make_inputs(g):
    b0 = torch.randn(3, 3, generator=g, dtype=torch.float64)
    return [b0], [b0]


def test_seed_30851():
    assert_same(f, make_inputs, seed=30851, backend="aot", modes=("infer", "train"))
