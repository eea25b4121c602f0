"""What aot does not compile runs as eager runs it: for each reason a graph,
or part of one, falls back to PyTorch, a model whose fallback must equal
eager, in values, gradients, the in-place checks of autograd, and grad
mode. The reasons are forced where no real program reaches them (an error
of aot's own compiler); each test checks that the fallback it names did
happen, so that none passes by compiling.

Two programs per reason:

- `_Net`, an EfficientNet-style block trained one step: in-place SiLU and
  ReLU6 after a batch norm, pooling and a head. Eager trains it; a
  fallback that runs anything but the user's program (its ATen
  decomposition, which saves other tensors) raised a false "modified by
  an inplace operation" error here.
- `_stale`, which writes a tensor autograd saved: eager's backward raises,
  and so must the fallback's."""

import copy
import importlib
import logging

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import aot_torch

backend = importlib.import_module("aot_torch.backend")
fx_ir = importlib.import_module("aot_torch.fx_ir")


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class _Net(nn.Module):
    def __init__(self, odd: bool):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)
        self.odd = odd

    def forward(self, x):
        h = F.silu(self.bn(self.conv(x)), inplace=True)
        h = F.relu6(h, inplace=True)
        p = h.mean((2, 3))
        if self.odd:
            # An op with no IR counterpart between compiled parts.
            p = p + torch.linalg.det(p[:, :4].reshape(-1, 2, 2))[:, None]
        return self.head(p)


def _stale(x):
    y = x.sigmoid()  # autograd saves the result
    z = torch.linalg.det(y.reshape(2, 2))  # (an op aot leaves to PyTorch)
    y.mul_(2)  # ... which this writes
    return y.sum() + z


def _train(model, x):
    out = model(x)
    loss = F.cross_entropy(out, torch.arange(out.shape[0]) % 4)
    loss.backward()
    return [loss.detach()] + [p.grad for p in model.parameters()]


def _check_net(odd: bool, fallback_log: str, caplog, **compile_kw):
    torch.manual_seed(0)
    model = _Net(odd).train()
    ref = copy.deepcopy(model)
    x = torch.randn(4, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    before = dict(aot_torch.stats)
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = _train(torch.compile(model, backend="aot", **compile_kw), x)
    want = _train(ref, x)
    lines = [r.getMessage() for r in caplog.records]
    assert any(fallback_log in m for m in lines), ("the fallback did not happen", lines)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    # Batch norm's running statistics, updated in place, as eager's.
    torch.testing.assert_close(model.bn.running_mean, ref.bn.running_mean)
    torch.testing.assert_close(model.bn.running_var, ref.bn.running_var)
    assert torch.is_grad_enabled()
    return before


def _check_stale(fallback_log: str, caplog):
    x = torch.randn(4, generator=torch.Generator().manual_seed(2))
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        for fn in (_stale, torch.compile(_stale, backend="aot")):
            a = x.clone().requires_grad_()
            out = fn(a)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                out.backward()
    assert any(fallback_log in r.getMessage() for r in caplog.records)


def test_an_op_aot_does_not_support_runs_as_written_between_compiled_regions(caplog):
    before = _check_net(True, "op(s) run in PyTorch", caplog)
    # The rest of the graph is compiled, region by region.
    assert aot_torch.stats["compiled"] > before.get("compiled", 0)
    _check_stale("op(s) run in PyTorch", caplog)


def test_the_split_runs_the_users_call_not_its_aten_ops(monkeypatch):
    # The call that reaches an unsupported op runs as the user's call:
    # its other ATen ops are not run one by one in PyTorch.
    seen = []
    split = backend._split_user_graph

    def spy(gm, left, cfg, name):
        out = split(gm, left, cfg, name)
        seen.append((set(left), out))
        return out

    monkeypatch.setattr(backend, "_split_user_graph", spy)

    def f(x):
        return torch.linalg.det(x.exp()) * 2

    x = torch.randn(3, 3, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(torch.compile(f, backend="aot")(x), f(x))
    (left, module), = seen
    kept = [n for n in module.graph.nodes if n.op == "call_function" and n.name in left]
    assert [n.target for n in kept] == [torch.linalg.det], module.graph
    assert sum(isinstance(m, backend._UserRegion) for m in module.children()) == 2


def test_a_graph_whose_tracing_fails_runs_as_dynamo_handed_it(monkeypatch, caplog):
    def fail(*_a, **_k):
        raise RuntimeError("forced: tracing failed")

    monkeypatch.setattr(fx_ir, "to_aten", fail)
    _check_net(False, "tracing to ATen failed", caplog)
    _check_stale("tracing to ATen failed", caplog)


@pytest.mark.parametrize("odd", [False, True], ids=["whole-graph", "region-of-a-split-graph"])
def test_a_region_aot_cannot_compile_runs_as_written(odd, monkeypatch, caplog):
    def fail(*_a, **_k):
        raise aot_torch._native.AotError("forced: the compiler refused")

    monkeypatch.setattr(backend, "_Variant", fail)
    _check_net(odd, "runs in PyTorch: forced", caplog)
    _check_stale("runs in PyTorch: forced", caplog)

    # `stack` traces to `cat` then a view: run from the ATen graph, the
    # result would be a view of a hidden base, where eager's is not.
    def stacked(x):
        s = torch.stack([x * 2, x * 3])
        return (s, torch.linalg.det(x)) if odd else s

    x = torch.randn(2, 2, generator=torch.Generator().manual_seed(5))
    got, want = torch.compile(stacked, backend="aot")(x), stacked(x)
    torch.testing.assert_close(got, want)
    got, want = (got[0], want[0]) if odd else (got, want)
    assert (got._base is None) == (want._base is None)


def test_shapes_over_the_recompile_limit_run_as_dynamo_handed_them(caplog):
    torch.manual_seed(0)
    model = _Net(False).train()
    ref = copy.deepcopy(model)
    # (Per shape: with symbolic sizes one compile would serve both.)
    compiled = torch.compile(model, backend=aot_torch.backend(recompile_limit=1, symbolic=False), dynamic=True)
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        for n in (4, 6):
            x = torch.randn(n, 3, 8, 8, generator=torch.Generator().manual_seed(n))
            got = _train(compiled, x)
            want = _train(ref, x)
            for g, w in zip(got, want):
                torch.testing.assert_close(g, w)
    assert any("recompile_limit" in r.getMessage() for r in caplog.records)


def test_a_convention_error_runs_the_region_as_written(monkeypatch, caplog):
    def refuse(self, args, info=None):
        raise aot_torch._native.ConventionError("forced: the guards refused the call")

    monkeypatch.setattr(backend._Variant, "__call__", refuse)
    _check_net(False, "forced: the guards refused", caplog)
    _check_stale("forced: the guards refused", caplog)
