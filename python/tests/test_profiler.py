"""`aot_torch.profiler`: what a profile of compiled code reports, checked
against what the program is: a linear layer's GEMMs have exactly their
`2·M·N·K` flops, every step ran once per profiled call, the regions'
forward and backward are there with eager's times of the same graph, and
the session leaves no state behind (profiling off, the generator where it
was, the model's parameters untouched by the eager runs)."""

import importlib

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import aot_torch

backend = importlib.import_module("aot_torch.backend")
_native = importlib.import_module("aot_torch._native")

# Fixed roofline peaks: the test needs no measurement of the machine.
PEAKS = (50e9, 10e9)


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class _Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 8)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def _train_steps(model, run, x, y, n):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(n):
        loss = F.mse_loss(run(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def test_a_training_profile_reports_regions_kernels_and_eager():
    torch.manual_seed(0)
    model = _Mlp()
    run = torch.compile(model, backend="aot")
    x, y = torch.randn(16, 32), torch.randn(16, 8)
    _train_steps(model, run, x, y, 2)  # compiled, and calls outside the profile
    params = [p.detach().clone() for p in model.parameters()]
    rng = torch.random.get_rng_state()
    with aot_torch.profiler.profile(peaks=PEAKS, eager_runs=2) as prof:
        for _ in range(3):
            loss = F.mse_loss(run(x), y)
            loss.backward()
            # Parameters read before the eager runs are compared below.
            params = [p.detach().clone() for p in model.parameters()]
            for p in model.parameters():
                p.grad = None
    # Profiling is off again; the eager runs drew nothing and wrote nothing.
    assert _native.set_profiling(False) is False
    assert torch.equal(torch.random.get_rng_state(), rng)
    assert all(torch.equal(a, p) for a, p in zip(params, model.parameters()))
    assert backend._profiler is None

    programs = {(r.region, r.program) for r in prof.regions}
    assert len({r for r, _ in programs}) == 1, prof.regions
    assert {p for _, p in programs} == {"forward", "backward"}, prof.regions
    for r in prof.regions:
        assert r.calls == 3, r
        assert 0 < r.kernels and 0 < r.runtime and r.kernels + r.runtime <= r.wall, r
        assert r.eager is not None and r.eager > 0, r
    # Every step ran once per call (none of the two calls before counts).
    assert prof.kernels and all(k.runs == 3 for k in prof.kernels), prof.kernels
    # The forward's GEMMs: x·W1ᵀ (16x32 by 32x64) and h·W2ᵀ (16x64 by 64x8).
    fwd_mm = sorted(k.flops for k in prof.kernels if k.program == "forward" and k.kind == "matmul")
    assert fwd_mm == [2 * 16 * 8 * 64, 2 * 16 * 64 * 32], prof.kernels
    # The backward's include both weight gradients, dW1 = dhᵀ·x and dW2.
    bwd_mm = sorted(k.flops for k in prof.kernels if k.program == "backward" and k.kind == "matmul")
    assert 2 * 64 * 32 * 16 in bwd_mm and 2 * 8 * 64 * 16 in bwd_mm, prof.kernels
    assert {k.kind for k in prof.kernels} >= {"kernel", "matmul", "runtime"}
    for k in prof.kernels:
        assert k.seconds > 0, k
        assert (k.bytes > 0) == (k.kind != "runtime"), k
        expect = max(k.flops / PEAKS[0], k.bytes / PEAKS[1])
        assert k.ideal == pytest.approx(expect), k
    # The slowest first, by time lost against the roofline.
    lost = [k.lost for k in prof.slowest(100)]
    assert lost == sorted(lost, reverse=True)
    # Eager's ATen ops of the same graph: its GEMMs are among them.
    assert any(op in ("aten::addmm", "aten::mm") for op, _, _ in prof.eager_ops), prof.eager_ops
    table = prof.table()
    assert "forward" in table and "backward" in table and "Steps furthest from the roofline" in table
    d = prof.to_dict()
    assert len(d["kernels"]) == len(prof.kernels) and d["peaks"]["flops_per_s"] == PEAKS[0]


def test_a_new_profile_counts_only_its_own_calls():
    model = _Mlp().eval()
    run = torch.compile(model, backend="aot")
    x = torch.randn(4, 32)
    with torch.no_grad():
        run(x)
        with aot_torch.profiler.profile(peaks=PEAKS, eager=False) as first:
            run(x)
            run(x)
        with aot_torch.profiler.profile(peaks=PEAKS, eager=False) as second:
            run(x)
    assert first.kernels and all(k.runs == 2 for k in first.kernels)
    assert second.kernels and all(k.runs == 1 for k in second.kernels)
    assert {r.program for r in second.regions} == {"forward"}
    assert all(r.eager is None for r in second.regions)


def test_profiles_do_not_nest_and_an_error_inside_ends_the_session():
    with pytest.raises(ValueError):
        with aot_torch.profiler.profile(peaks=PEAKS):
            with pytest.raises(RuntimeError, match="already being taken"):
                with aot_torch.profiler.profile(peaks=PEAKS):
                    pass
            raise ValueError("the user's")
    assert backend._profiler is None
    assert _native.set_profiling(False) is False
