"""Compiled optimizer steps (``torch.compile(optimizer.step)``, PyTorch's
recipe for fusing the update) and other graphs that read and write tensors
Dynamo reaches through Python objects rather than the frame's arguments:
it installs those as attributes of its graph (``get_attr``), and the
backend lifts them into inputs bound at every call (an optimizer's
parameters and states change at every step; as constants of the compile
they kept their first values, and the writes were lost). Each step is
compiled whole: nothing runs in PyTorch."""

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


@pytest.mark.parametrize("name,kw", [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, foreach=False)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.1)),
    ("RMSprop", dict(lr=1e-2, momentum=0.5)),
    ("Adagrad", dict(lr=1e-2)),
    # `foreach=True`: PyTorch's `_foreach_*` ops, one op per tensor list.
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1, foreach=True)),
    ("Adam", dict(lr=1e-2, amsgrad=True, foreach=True)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.1, foreach=True)),
    ("NAdam", dict(lr=1e-2, foreach=True)),
    ("RMSprop", dict(lr=1e-2, momentum=0.5, foreach=True)),
], ids=lambda v: v if isinstance(v, str) else ",".join("%s=%s" % kv for kv in v.items()))
def test_a_compiled_optimizer_step_trains_as_eager(name, kw, caplog):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    ref = copy.deepcopy(model)
    opt_ref = getattr(torch.optim, name)(ref.parameters(), **kw)
    opt = getattr(torch.optim, name)(model.parameters(), **kw)

    @torch.compile(backend="aot")
    def step():
        opt.step()

    for i in range(4):
        x = torch.randn(5, 8)
        for m, s in ((ref, opt_ref.step), (model, step)):
            m(x).pow(2).sum().backward()
            with caplog.at_level(logging.WARNING, logger="aot_torch"):
                s()
            m.zero_grad(set_to_none=True)
        for (n, p), q in zip(model.named_parameters(), ref.parameters()):
            _close(p, q, "step %d, %s" % (i, n))
    for p, q in zip(model.parameters(), ref.parameters()):
        for k, v in opt_ref.state[q].items():
            _close(opt.state[p][k], v, k)
    # The whole step is compiled (Dynamo writes `addcmul_` with Inductor's
    # `prims.fma`; `addcdiv_` and `lerp_` are in-place decompositions).
    assert not [r for r in caplog.records if "PyTorch" in r.getMessage()]


def _close(got, want, what):
    # (Relative to the tensor's scale: a state such as RMSprop's momentum
    # buffer, g / sqrt(avg), is large, and PyTorch's fused kernels round
    # its division and square root in another order than their
    # decompositions, and Adam's m / sqrt(v) of a gradient near zero
    # magnifies that; `aot_eager` differs from eager as much.)
    scale = want.abs().max().clamp_min(1e-6) if want.is_floating_point() else 1
    torch.testing.assert_close(got / scale, want / scale, rtol=1e-4, atol=1e-4, msg=what)


class _Holder:
    pass


def test_a_tensor_held_by_an_object_is_read_and_written_at_every_call():
    h = _Holder()
    h.total = torch.zeros(3)
    h.scale = torch.ones(3)

    def f(x):
        h.total.add_(x * h.scale)
        return h.total * 2

    want_h = _Holder()
    want_h.total, want_h.scale = torch.zeros(3), torch.ones(3)

    def g(x):
        want_h.total.add_(x * want_h.scale)
        return want_h.total * 2

    cf = torch.compile(f, backend="aot")
    for i in range(3):
        x = torch.randn(3)
        if i == 2:
            # (Written outside the compiled function: the next call reads it.)
            h.scale.mul_(3.0)
            want_h.scale.mul_(3.0)
        torch.testing.assert_close(cf(x), g(x))
        torch.testing.assert_close(h.total, want_h.total)


def test_a_compiled_training_step_with_gradient_clipping(caplog):
    """Forward, backward, `clip_grad_norm_` (`_foreach_norm`,
    `_foreach_mul_`) and an AdamW step in one compiled function: Dynamo
    splits it at the backward; every graph compiles whole."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 1))
    ref = copy.deepcopy(model)

    def make(m):
        opt = torch.optim.AdamW(m.parameters(), lr=1e-2)

        def step(x, y):
            loss = (m(x) - y).pow(2).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
            opt.step()
            opt.zero_grad()
            return loss
        return step

    want_step, got_step = make(ref), torch.compile(make(model), backend="aot")
    for i in range(4):
        x, y = torch.randn(6, 8), torch.randn(6, 1)
        want = want_step(x, y)
        with caplog.at_level(logging.WARNING, logger="aot_torch"):
            got = got_step(x, y)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        for (n, p), q in zip(model.named_parameters(), ref.parameters()):
            _close(p, q, "step %d, %s" % (i, n))
    assert not [r for r in caplog.records if "PyTorch" in r.getMessage()]
