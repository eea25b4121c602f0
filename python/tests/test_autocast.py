"""Mixed precision through ``torch.compile(backend="aot")``: programs under
``torch.autocast("cpu", dtype=torch.bfloat16)`` (and ``float16``) compile
with nothing left to PyTorch, and give eager's results bit for bit where
eager's kernels compute in ``float`` and round once:

- autocast's mixed normalizations (a half-precision input with ``float``
  weight, bias and running statistics: layer norm, batch norm in training
  and inference, instance norm, group norm) keep eager's result types (the
  input's) and round once;
- a convolution adds its bias before its result is rounded;
- the derivatives PyTorch computes with one fused kernel (``tanh``,
  ``sigmoid``, GELU, softmax, log-softmax) are computed in ``float`` and
  rounded once, not after every step of the formula;
- a log-softmax over the last dimension rounds each row's sum and its
  logarithm as eager's kernel does.

Where eager rounds partial sums to the half type (a mixed layer norm's
weight and bias gradients per thread, a convolution's weight gradient per
image, a depthwise convolution's input gradient) aot sums in ``float`` and
rounds once: those gradients are compared at the half type's tolerance."""

import copy
import logging
import os

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _step(model, x, dtype, train):
    with torch.autocast("cpu", dtype=dtype):
        y = model(x)
        loss = y.float().pow(2).mean()
    if train:
        loss.backward()
    return y


def _run(model, x, caplog, dtype=torch.bfloat16, train=True):
    """Eager and compiled steps of copies of `model`; asserts nothing ran
    in PyTorch. Returns (eager model, eager output, compiled model,
    compiled output)."""
    ref = copy.deepcopy(model)
    want = _step(ref, x, dtype, train)
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = _step(torch.compile(model, backend="aot"), x, dtype, train)
    lines = [r.getMessage() for r in caplog.records if "PyTorch" in r.getMessage()]
    assert not lines, lines
    return ref, want, model, got


def _same(got, want, what):
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert torch.equal(got, want), "%s: %d of %d elements differ (max %g)" % (
        what, (got != want).sum().item(), got.numel(), (got.float() - want.float()).abs().max().item())


def _native_bf16_products():
    """Whether eager's bf16 products run on AVX512-BF16 here (oneDNN's
    native kernels, with sums in an order of their own), unless oneDNN is
    held below that instruction set."""
    if os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper().startswith(("AVX2", "SSE")):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512_bf16" in f.read()
    except OSError:
        return False


def _grads_same(model, ref, half=(), f32=(), noise=()):
    """Every gradient bit for bit, except those named: `half`, where eager
    rounds partial sums to the half type (compared at its tolerance); `f32`,
    float sums in another order (at float's); `noise`, gradients that are
    zero but for rounding (a bias before a normalization that removes it)."""
    for (n, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        assert (p.grad is None) == (q.grad is None), n
        if q.grad is None:
            continue
        scale = q.grad.abs().max().clamp_min(1e-6)
        if n in half:
            torch.testing.assert_close(p.grad / scale, q.grad / scale, rtol=1.6e-2, atol=1e-2, msg=n)
        elif n in f32:
            torch.testing.assert_close(p.grad / scale, q.grad / scale, rtol=1e-5, atol=1e-6, msg=n)
        elif n in noise:
            torch.testing.assert_close(p.grad, q.grad, rtol=0, atol=1e-5, msg=n)
        else:
            _same(p.grad, q.grad, n)


def test_a_mixed_layer_norm_compiles_and_matches_eager(caplog):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.Linear(32, 8))
    ref, want, model, got = _run(model, torch.randn(4, 16), caplog)
    _same(got, want, "output")
    # (Eager rounds each thread's partial sums of the layer norm's weight
    # and bias gradients to bf16.)
    _grads_same(model, ref, half={"1.weight", "1.bias", "0.weight", "0.bias"})


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_batch_norm_in_training_keeps_the_input_type_and_rounds_once(dtype, caplog):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(8, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
    ref, want, model, got = _run(model, torch.randn(2, 8, 10, 10), caplog, dtype)
    _same(got, want, "output")
    for (n, b), (_, c) in zip(model.named_buffers(), ref.named_buffers()):
        if b.is_floating_point():
            torch.testing.assert_close(b, c, rtol=1e-6, atol=1e-7, msg=n)
    # (The convolution's weight gradient: eager rounds each image's sums.)
    _grads_same(model, ref, half={"0.weight"}, f32={"1.weight", "1.bias"}, noise={"0.bias"})


def test_batch_norm_inference_and_instance_norm(caplog):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(8, 8, 3), nn.BatchNorm2d(8)).eval()
    _, want, _, got = _run(model, torch.randn(2, 8, 10, 10), caplog, train=False)
    _same(got, want, "batch norm, inference")
    torch._dynamo.reset()
    caplog.clear()
    model = nn.Sequential(nn.Conv2d(8, 8, 3), nn.InstanceNorm2d(8, affine=True))
    ref, want, model, got = _run(model, torch.randn(2, 8, 10, 10), caplog)
    _same(got, want, "instance norm")
    _grads_same(model, ref, half={"0.weight"}, f32={"1.weight", "1.bias"}, noise={"0.bias"})


def test_group_norm_and_convolutions_with_a_bias(caplog):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(8, 8, 3), nn.GroupNorm(2, 8), nn.Conv2d(8, 4, 3, padding=1))
    ref, want, model, got = _run(model, torch.randn(2, 8, 12, 12), caplog)
    _same(got, want, "output")
    if _native_bf16_products():
        # The group norm's gradients and the first convolution's bias
        # gradient sum the second convolution's input gradient: a product
        # whose float sums oneDNN's native bf16 kernels order their own way,
        # so a few of its elements differ by a unit in the last place (the
        # bias's sum, by cancellation, by several).
        _grads_same(model, ref, half={"0.weight", "2.weight", "0.bias", "1.weight", "1.bias"})
    else:
        _grads_same(model, ref, half={"0.weight", "2.weight"}, f32={"1.weight", "1.bias"})


@pytest.mark.parametrize("act", [nn.Tanh(), nn.Sigmoid(), nn.GELU(), nn.GELU("tanh"), nn.SiLU(), nn.ReLU(),
                                 nn.Softmax(-1), nn.LogSoftmax(-1), nn.LogSoftmax(0)],
                         ids=lambda m: m.__class__.__name__ + getattr(m, "approximate", "").replace("none", "")
                         + str(getattr(m, "dim", "")))
def test_fused_derivatives_round_once(act, caplog):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 16), act, nn.Linear(16, 4))
    ref, want, model, got = _run(model, torch.randn(6, 16), caplog)
    _same(got, want, "output")
    _grads_same(model, ref)


def test_a_transformer_layer_trains_under_autocast(caplog):
    """The whole layer compiles; attention's probabilities are rounded
    where eager's fused kernel rounds them differently, so the comparison
    is at bf16's tolerance."""
    torch.manual_seed(0)
    model = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    ref, want, model, got = _run(model, torch.randn(2, 10, 32), caplog)
    assert got.dtype == want.dtype
    torch.testing.assert_close(got, want, rtol=1.6e-2, atol=1e-2)
    for (n, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        scale = q.grad.abs().max().clamp_min(1e-6)
        torch.testing.assert_close(p.grad / scale, q.grad / scale, rtol=1.6e-2, atol=2e-2, msg=n)


def test_attention_rounds_its_probabilities_as_eager():
    """Eager's half-precision attention rounds each row's exponentials to
    the half type before the product with the values and divides by the
    row's sum after it; aot does the same. Its exponential differs from
    eager's vectorized one in the last bits of `float`, so a few elements
    still differ, within bf16's tolerance (normalizing first, as for
    `float`, made a third of them differ)."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 16, 16).bfloat16() for _ in range(3))

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v)

    with torch.no_grad():
        want = f(q, k, v)
        got = torch.compile(f, backend="aot")(q, k, v)
    torch.testing.assert_close(got, want, rtol=1.6e-2, atol=2e-3)
    assert (got != want).float().mean().item() < 0.1, (got != want).sum().item()
