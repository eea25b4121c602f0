"""Convolutions and pooling through torch.compile(backend="aot") against
eager PyTorch (convolutions and pooling are the catalogue ops tensor.conv,
tensor.max_pool and tensor.avg_pool): outputs,
pooling indices and the gradients of the input and the weights, over
1, 2 and 3 spatial dimensions, strides, padding, dilation, groups,
ceil_mode, unbatched and channels-last inputs; ties in max pooling send
the gradient to the first largest element, as PyTorch does; what the
translator does not cover runs in PyTorch with a warning."""

import logging

import pytest
import torch
import torch.nn.functional as F

from aot_torch.backend import stats


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _compare(fn, *inputs, exact=False, fallback=False, grad_tol=None):
    """Runs fn eagerly and compiled on copies of inputs that require grad;
    compares the outputs and every input's gradient (of a fixed random
    cotangent), and that aot ran everything (or, with `fallback`, that a
    region ran in PyTorch)."""
    before = dict(stats)
    leaves = [[t.detach().clone().requires_grad_(t.is_floating_point()) for t in inputs] for _ in range(2)]
    want = fn(*leaves[0])
    got = torch.compile(fn, backend="aot")(*leaves[1])
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    tol = dict(rtol=0, atol=0, equal_nan=True) if exact else dict(rtol=1e-5, atol=1e-5)
    for w, g in zip(want, got):
        torch.testing.assert_close(g, w, **tol)
    g = torch.Generator().manual_seed(3)
    floats = [w for w in want if w.is_floating_point()]
    cot = [torch.randn(w.shape, generator=g).to(w.dtype) for w in floats]
    torch.autograd.backward(floats, cot)
    torch.autograd.backward([x for x in got if x.is_floating_point()], cot)
    for a, b in zip(leaves[0], leaves[1]):
        if a.requires_grad:
            torch.testing.assert_close(b.grad, a.grad, **(grad_tol or tol))
    if fallback:
        assert stats["fallback_regions"] + stats["fallback_ops"] > \
            before.get("fallback_regions", 0) + before.get("fallback_ops", 0)
    else:
        assert stats["compiled"] > before.get("compiled", 0)
        assert stats["fallback_regions"] == before.get("fallback_regions", 0), "aot ran every region"
        assert stats["fallback_ops"] == before.get("fallback_ops", 0), "aot ran every op"


def _randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


CONVS = [
    ("conv1d_stride_dilation_groups", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=2),
     (2, 4, 17), (6, 2, 3)),
    ("conv2d_padding_same", lambda x, w, b: F.conv2d(x, w, b, padding="same"), (2, 3, 9, 8), (4, 3, 3, 2)),
    ("conv2d_asymmetric_stride", lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(0, 2)),
     (1, 2, 7, 6), (3, 2, 2, 3)),
    ("conv2d_depthwise", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=4), (2, 4, 6, 6), (8, 1, 3, 3)),
    # Depthwise as sums over kernel offsets (one to four outputs per input
    # channel), and past that as matrix products.
    ("conv1d_depthwise_stride_dilation", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=2, dilation=2, groups=3),
     (2, 3, 13), (3, 1, 3)),
    ("conv2d_depthwise_multiplier_4", lambda x, w, b: F.conv2d(x, w, b, stride=(1, 2), groups=2), (1, 2, 5, 7),
     (8, 1, 2, 3)),
    ("conv2d_depthwise_multiplier_5", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=2), (1, 2, 5, 5),
     (10, 1, 3, 3)),
    ("conv3d_depthwise", lambda x, w, b: F.conv3d(x, w, b, padding=(1, 0, 1), groups=2), (1, 2, 3, 4, 5),
     (2, 1, 3, 2, 3)),
    ("conv3d", lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1), (1, 2, 4, 5, 4), (3, 2, 3, 3, 2)),
    ("conv2d_unbatched", lambda x, w, b: F.conv2d(x, w, b, padding=1), (3, 5, 5), (2, 3, 3, 3)),
    ("conv_transpose2d_stride_output_padding", lambda x, w, b: F.conv_transpose2d(
        x, w, b, stride=2, padding=1, output_padding=1), (2, 3, 4, 5), (3, 4, 3, 3), 4),
    ("conv_transpose2d_groups_dilation", lambda x, w, b: F.conv_transpose2d(
        x, w, b, stride=(1, 2), padding=(2, 0), dilation=2, groups=2), (1, 4, 5, 4), (4, 3, 3, 2), 6),
    ("conv_transpose1d_crop", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=3), (2, 2, 6), (2, 3, 2),
     3),
    ("conv_transpose3d", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2), (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), 2),
]


@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
def test_convolution_and_its_gradients_match_eager(case):
    _, fn, xs, ws = case[:4]
    # A transposed convolution's bias has its output channels.
    bias = case[4] if len(case) > 4 else ws[0]
    _compare(fn, _randn(*xs), _randn(*ws, seed=1), _randn(bias, seed=2))


def test_channels_last_input():
    x = _randn(2, 3, 6, 7).contiguous(memory_format=torch.channels_last)
    _compare(lambda x, w: F.conv2d(x, w, padding=1), x, _randn(4, 3, 3, 3, seed=1))


def test_channels_last_depthwise_7x7_then_a_channels_last_norm():
    # ConvNeXt's block: a depthwise 7x7 (tensor.conv) on a channels-last
    # input, permuted to channels-last for a layer norm and a linear layer.
    x = _randn(2, 4, 9, 8).contiguous(memory_format=torch.channels_last)

    def block(x, w, b, lw):
        y = F.conv2d(x, w, b, padding=3, groups=4).permute(0, 2, 3, 1)
        return F.linear(F.layer_norm(y, (4,)), lw).permute(0, 3, 1, 2) + x

    _compare(block, x, _randn(4, 1, 7, 7, seed=1), _randn(4, seed=2), _randn(4, 4, seed=3))


def test_depthwise_transposed_and_strided_depthwise_gradients():
    # Stride 2 with padding past the kernel's reach in one dimension, and a
    # depthwise transposed convolution: the input gradient's spread-out
    # buffer and its cropping.
    _compare(lambda x, w: F.conv2d(x, w, stride=2, padding=(3, 1), groups=3), _randn(2, 3, 7, 8),
             _randn(3, 1, 3, 3, seed=1))
    _compare(lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1, groups=3),
             _randn(1, 3, 4, 5), _randn(3, 1, 3, 3, seed=1))


POOLS = [
    ("max_pool2d_indices", lambda x: F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True), (2, 3, 9, 8)),
    ("max_pool2d_ceil_dilation", lambda x: F.max_pool2d(x, 2, stride=2, dilation=2, ceil_mode=True), (1, 2, 9, 9)),
    ("max_pool1d_indices_ceil", lambda x: F.max_pool1d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                         return_indices=True), (2, 3, 10)),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2), (1, 2, 4, 6, 4)),
    ("max_pool2d_unbatched", lambda x: F.max_pool2d(x, 2), (3, 6, 6)),
    ("avg_pool2d_exclude_pad_ceil", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                            count_include_pad=False), (2, 3, 8, 9)),
    ("avg_pool2d_include_pad_ceil", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), (1, 2, 8, 8)),
    ("avg_pool2d_divisor", lambda x: F.avg_pool2d(x, 2, divisor_override=3), (1, 2, 6, 6)),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 4, stride=3, padding=2), (2, 3, 11)),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 2, stride=1, count_include_pad=False, padding=1), (1, 2, 3, 4, 3)),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (2, 3, 8, 9)),
    ("adaptive_avg_pool2d_global", lambda x: F.adaptive_avg_pool2d(x, 1), (2, 3, 5, 7)),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), (2, 3, 12)),
]


@pytest.mark.parametrize("case", POOLS, ids=[c[0] for c in POOLS])
def test_pooling_and_its_gradients_match_eager(case):
    _, fn, xs = case
    _compare(fn, _randn(*xs))


def test_max_pool_ties_send_the_gradient_to_the_first_largest():
    # After a ReLU most windows hold several zeros (and some repeated
    # values): PyTorch's gradient goes to the first largest element of
    # each window, not split among them as amax's would be.
    x = torch.tensor([[[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.5],
                        [2.0, -1.0, 3.0, 3.0], [2.0, 2.0, 3.0, 3.0]]]])
    _compare(lambda x: F.max_pool2d(F.relu(x), 2, return_indices=True), x, exact=True)
    _compare(lambda x: F.max_pool2d(x, 2, stride=1), x, exact=True)


def test_max_pool_nan_is_taken_as_pytorch_takes_it():
    # PyTorch takes an element when it is larger than the best so far or
    # NaN: a window's value is NaN, its index (and gradient) the last NaN's.
    nan = float("nan")
    x = torch.tensor([[[[nan, 1.0, 2.0, nan], [3.0, nan, 0.5, 0.25],
                        [1.0, 2.0, 3.0, 4.0], [nan, nan, nan, nan]]]])
    _compare(lambda x: F.max_pool2d(x, 2, return_indices=True), x, exact=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_pooling_in_half_precision_and_channels_last(dtype):
    # The kernels compare and sum in f32 and round once, as PyTorch's do,
    # so the results are exact; a channels-last input gives channels-last
    # results. (The two gradients reach x added in f32, where eager adds
    # them rounded: within one rounding.)
    x = _randn(2, 4, 9, 8).to(dtype).contiguous(memory_format=torch.channels_last)
    _compare(lambda x: F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
             + (F.avg_pool2d(x, 3, stride=2, padding=1),), x, exact=True,
             grad_tol=dict(rtol=1e-2, atol=2e-3))


def test_what_is_not_covered_runs_in_pytorch(caplog):
    # Adaptive max pooling keeps its ATen op: the translator names it, and
    # PyTorch runs it.
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        _compare(lambda x: F.adaptive_max_pool2d(x, 2), _randn(1, 2, 6, 6), fallback=True)
    assert "adaptive_max_pool2d" in caplog.text, caplog.text


@pytest.mark.parametrize("shape,size", [((2, 3, 1, 1), 6), ((1, 2, 7, 7), 3), ((2, 3, 5, 7), (3, 4)),
                                        ((2, 3, 7), 4), ((1, 2, 3, 5, 7), (2, 3, 4)), ((2, 3, 5, 7), (None, 3))])
def test_adaptive_average_pools_whose_windows_differ_compile(shape, size):
    # AlexNet pools a 1x1 map to 6x6; windows of unequal length or that
    # overlap are PyTorch's floor(o*n/out) .. ceil((o+1)*n/out).
    pool = {3: F.adaptive_avg_pool1d, 4: F.adaptive_avg_pool2d, 5: F.adaptive_avg_pool3d}[len(shape)]
    _compare(lambda x: pool(x, size) * 2, _randn(*shape))


def test_as_strided_of_a_channels_last_result_runs_in_pytorch():
    # Eager keeps the channels-last layout through `x * 2`; the IR's fresh
    # value is contiguous, so the same as_strided would read other
    # elements: the translator refuses it (the region runs in PyTorch)
    # rather than answer wrongly.
    x = _randn(2, 3, 4, 4).contiguous(memory_format=torch.channels_last)
    _compare(lambda x: (x * 2).as_strided((2, 3, 2, 2), (48, 1, 24, 6)), x, fallback=True)


@pytest.mark.parametrize("fmt", ["channels_last", "transposed"])
def test_results_keep_eager_strides(fmt):
    # The IR's results are contiguous; where PyTorch lays a result out
    # otherwise (a convolution or pooling of a channels-last input keeps
    # its memory format, an elementwise op on a transposed tensor keeps the
    # transposition) the backend returns eager's strides.
    if fmt == "channels_last":
        x = _randn(2, 3, 6, 6).contiguous(memory_format=torch.channels_last)
        w = _randn(4, 3, 3, 3, seed=1)
        fn = lambda x, w: (F.conv2d(x, w, padding=1), F.max_pool2d(x, 2), F.avg_pool2d(x, 2))
        inputs = (x, w)
    else:
        fn = lambda x: (x.t() * 2,)
        inputs = (_randn(5, 3),)
    want = fn(*inputs)
    got = torch.compile(fn, backend="aot")(*inputs)
    for a, b in zip(want, got):
        assert a.stride() == b.stride()
        torch.testing.assert_close(b, a)
