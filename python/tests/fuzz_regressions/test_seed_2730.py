"""fuzz/torch_compile seed 2730, minimized (aot, default partition, train).
Found as crash, first difference backward.error: compiled raised RuntimeError: Function MulBackward0 returned an invalid gradient at index 0 - got [2, 3] but expected shape compatible with [3, 2]
(A written non-leaf view argument whose metadata a no_grad `transpose_`
then changes: the write was copied into the view under the history it had
cached at its entry shape, and the backward handed the gradient in the new
one. The view's history is made again before the copy, as seed 6848 needs.)

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds 2730:2731 --backend aot
"""

import torch

from fuzzcheck import assert_same


def f(a0):
    a0[torch.tensor([1])] = -1.13
    with torch.no_grad():
        a0.transpose_(0, 1)
    return (a0,)


def make_inputs(g):
    b0 = torch.randn(4, 3, generator=g).requires_grad_()
    n0 = b0 * 1
    a0 = n0[1:, 1:]
    return [a0], [b0]


def test_seed_2730():
    assert_same(f, make_inputs, seed=2730, backend="aot", modes=('train',))
