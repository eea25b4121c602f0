"""The ways users call backward through a compiled region, each against
eager: gradients accumulated over two backwards, a backward with
``retain_graph=True`` then another through the same graph (GANs and
multi-loss training), ``torch.autograd.grad``, and double backward
(``create_graph=True``, a gradient penalty), which PyTorch's own compiled
backward refuses with an error when the gradient is differentiated: aot
refuses it the same way rather than hand out a gradient without history
(a loss on it would silently miss its gradient).

Two things in Dynamo's graph carry a backward of the user's, which aot's
own derivative of the forward would ignore: a custom
``torch.autograd.Function`` (its ``backward``) and a hook registered on an
intermediate tensor. With grad mode on they run in PyTorch (the graph is
split around them); their gradients are eager's."""

import copy
import logging

import pytest
import torch
import torch.nn as nn


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _pair():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    return model, copy.deepcopy(model)


def _same_grads(model, ref):
    for (n, p), q in zip(model.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6, msg=n)


def test_gradients_accumulate_over_two_backwards():
    model, ref = _pair()
    compiled = torch.compile(model, backend="aot")
    x = torch.randn(4, 8)
    for m in (ref, compiled):
        m(x).sum().backward()
        m(x * 2).pow(2).sum().backward()
    _same_grads(model, ref)


def test_a_retained_graph_takes_a_second_backward():
    model, ref = _pair()
    compiled = torch.compile(model, backend="aot")
    x = torch.randn(4, 8)
    for m in (ref, compiled):
        loss = m(x).pow(2).sum()
        loss.backward(retain_graph=True)
        (loss * 3).backward(retain_graph=True)
        loss.backward()
    _same_grads(model, ref)
    # Without retain_graph, a second backward raises as eager's does.
    for m in (ref, compiled):
        loss = m(x).sum()
        loss.backward()
        with pytest.raises(RuntimeError):
            loss.backward()


def test_autograd_grad_matches_eager():
    model, ref = _pair()
    compiled = torch.compile(model, backend="aot")
    x = torch.randn(4, 8, requires_grad=True)
    want = torch.autograd.grad(ref(x).sum(), [x, *ref.parameters()])
    got = torch.autograd.grad(compiled(x).sum(), [x, *model.parameters()])
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6)


def test_double_backward_is_refused_as_pytorch_refuses_it():
    model, _ = _pair()
    compiled = torch.compile(model, backend="aot")
    x = torch.randn(4, 8, requires_grad=True)
    g, = torch.autograd.grad(compiled(x).sum(), x, create_graph=True)
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="does not support double backward"):
        g.pow(2).sum().backward()


class _Reverse(torch.autograd.Function):
    """Gradient reversal: the identity forward, the negated gradient."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -g


class _StraightThrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


class _Scaled(torch.autograd.Function):
    """Saves its inputs; a backward that is not the forward's derivative."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w * 3, (g * x).sum(0) * 0.5


def _custom(x, w):
    h = x @ w
    return (_Reverse.apply(h).tanh() + _StraightThrough.apply(h) + _Scaled.apply(x, w[:, 0])).sum()


def _hooked(x, w):
    y = x @ w
    y.register_hook(lambda g: g * 2)
    return y.tanh().sum()


@pytest.mark.parametrize("f", [_custom, _hooked])
def test_a_backward_of_the_users_runs_as_in_eager(f, caplog):
    torch.manual_seed(0)
    x, w = torch.randn(3, 4, requires_grad=True), torch.randn(4, 4, requires_grad=True)
    x2, w2 = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    f(x, w).backward()
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        torch.compile(f, backend="aot")(x2, w2).backward()
    torch.testing.assert_close(x2.grad, x.grad, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(w2.grad, w.grad, rtol=1e-5, atol=1e-6)
    # The rest of the graph is compiled.
    assert any("run in PyTorch" in r.getMessage() for r in caplog.records)
    assert not any("runs in PyTorch" in r.getMessage() for r in caplog.records)


def test_a_custom_function_compiles_under_no_grad(caplog):
    torch.manual_seed(0)
    x, w = torch.randn(3, 4), torch.randn(4, 4)
    with torch.no_grad(), caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(_custom, backend="aot")(x, w)
    torch.testing.assert_close(got, _custom(x, w))
    assert not [r for r in caplog.records if "PyTorch" in r.getMessage()]


def test_an_inference_tensor_that_autograd_would_save_raises_as_in_eager():
    """A tensor made under `torch.inference_mode()` passed to a training
    call whose backward would save it: eager's autograd refuses it; so does
    the compiled call (the region runs in PyTorch for that convention),
    and normal tensors still compile."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
    with torch.inference_mode():
        xi = torch.randn(2, 3, 8, 8)
    x = torch.randn(2, 3, 8, 8)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        model(xi)
    compiled = torch.compile(model, backend="aot")
    torch.testing.assert_close(compiled(x), model(x))
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        compiled(xi)
    torch.testing.assert_close(compiled(x), model(x))
