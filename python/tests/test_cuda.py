"""CUDA tensors through aot_torch: bound in place on the GPU (no copy across
the bus), run by the `cuda` backend on PyTorch's current stream, results
handed back as CUDA tensors. Each case compares with eager CUDA.

Without a GPU, or with an aot_torch built without the cargo feature `cuda`,
the GPU cases skip and say which; `scripts/gpu-check.sh` runs them on a GPU
machine. What runs everywhere: a CUDA-less build or machine says why, and a
graph that mixes devices runs in PyTorch with that reason."""

import pytest
import torch

import aot_torch
from aot_torch import _native
from aot_torch.backend import stats


def _why_no_gpu():
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    return _native.cuda_unavailable()


gpu = pytest.mark.skipif(_why_no_gpu() is not None, reason="no GPU for aot: %s" % (_why_no_gpu(),))

CHAIN = """
func.func @main(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %a = tensor.mul %x, %x : tensor<256x512xf32>, tensor<256x512xf32> -> tensor<256x512xf32>
  %b = tensor.add %a, %x : tensor<256x512xf32>, tensor<256x512xf32> -> tensor<256x512xf32>
  %c = tensor.tanh %b : tensor<256x512xf32> -> tensor<256x512xf32>
  return %c : tensor<256x512xf32>
}
"""


def test_a_build_or_machine_without_cuda_says_why():
    why = _native.cuda_unavailable()
    if why is None:
        pytest.skip("this build runs on a GPU")
    assert isinstance(why, str) and any(w in why.lower() for w in ("cuda", "gpu", "driver", "device")), why


def test_a_tensor_on_another_device_is_refused_with_its_device():
    f = aot_torch.compile_ir(CHAIN, [torch.ones(256, 512)], training=False)
    with pytest.raises(ValueError, match="argument 0 is on device 'meta': aot_torch binds CPU and CUDA tensors"):
        f([torch.empty(256, 512, device="meta")])


@gpu
def test_a_compiled_function_runs_in_place_on_cuda_tensors():
    x = torch.linspace(-2, 2, 256 * 512, device="cuda").reshape(256, 512)
    f = aot_torch.compile_ir(CHAIN, [x], training=False, native_backend="cuda")
    (y,) = f([x])
    assert y.device.type == "cuda"
    torch.testing.assert_close(y, torch.tanh(x * x + x))
    before = _native.cuda_crossings()
    for _ in range(3):
        (y,) = f([x])
    torch.cuda.synchronize()
    assert _native.cuda_crossings() == before, "a resident call copied across the bus"
    torch.testing.assert_close(y, torch.tanh(x * x + x))


@gpu
def test_the_call_runs_on_pytorchs_current_stream():
    s = torch.cuda.Stream()
    x = torch.zeros(256, 512, device="cuda")
    f = aot_torch.compile_ir(CHAIN, [x], training=False, native_backend="cuda")
    with torch.cuda.stream(s):
        # Long work on the side stream writes x; the compiled call, issued
        # on the same stream right after, must see the written values.
        big = torch.randn(4096, 4096, device="cuda")
        for _ in range(4):
            big = big @ big / 64.0
        x.copy_(torch.full((256, 512), 0.5, device="cuda") + big[:256, :512] * 0)
        (y,) = f([x])
        z = y * 2
    s.synchronize()
    torch.testing.assert_close(z, 2 * torch.tanh(x * x + x))


@gpu
def test_torch_compile_of_cuda_tensors_writes_arguments_and_returns_views():
    def f(x, y):
        x.mul_(2)
        return x[1:], (x + y).relu()

    x0 = torch.randn(64, 32, device="cuda")
    y = torch.randn(64, 32, device="cuda")
    stats.clear()
    compiled = torch.compile(f, backend="aot")
    xe, xc = x0.clone(), x0.clone()
    want = f(xe, y)
    got = compiled(xc, y)
    assert stats["fallback_regions"] == 0, dict(stats)
    assert stats["compiled"] >= 1, dict(stats)
    torch.testing.assert_close(xc, xe)
    for g, w in zip(got, want):
        assert g.device.type == "cuda"
        torch.testing.assert_close(g, w)
    assert got[0].data_ptr() == xc.data_ptr() + 32 * 4, "the view of the argument aliases it, as in eager"


@gpu
def test_an_mlp_trains_on_cuda_as_eager_does():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.LayerNorm(128),
                                torch.nn.Linear(128, 10)).cuda()
    twin = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.LayerNorm(128),
                               torch.nn.Linear(128, 10)).cuda()
    twin.load_state_dict(model.state_dict())
    stats.clear()
    compiled = torch.compile(model, backend="aot")
    opt_a = torch.optim.SGD(model.parameters(), lr=0.1)
    opt_b = torch.optim.SGD(twin.parameters(), lr=0.1)
    for step in range(4):
        x = torch.randn(32, 64, device="cuda")
        target = torch.randint(0, 10, (32,), device="cuda")
        loss_a = torch.nn.functional.cross_entropy(compiled(x), target)
        loss_b = torch.nn.functional.cross_entropy(twin(x), target)
        loss_a.backward()
        loss_b.backward()
        torch.testing.assert_close(loss_a, loss_b, rtol=1e-4, atol=1e-5)
        for pa, pb in zip(model.parameters(), twin.parameters()):
            assert pa.grad.device.type == "cuda"
            torch.testing.assert_close(pa.grad, pb.grad, rtol=1e-3, atol=1e-5)
        opt_a.step()
        opt_b.step()
        opt_a.zero_grad()
        opt_b.zero_grad()
    assert stats["fallback_regions"] == 0, dict(stats)


@gpu
def test_a_graph_mixing_devices_runs_in_pytorch_with_the_reason():
    def f(x, y):
        return x.cuda() + y

    stats.clear()
    out = torch.compile(f, backend="aot")(torch.ones(4), torch.ones(4, device="cuda"))
    torch.testing.assert_close(out, torch.full((4,), 2.0, device="cuda"))
    assert stats["fallback_regions"] + stats["fallback_ops"] >= 1, dict(stats)


MUL = """
func.func @main(%x: tensor<64xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %y = tensor.mul %x, %w : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %y : tensor<64xf32>
}
"""


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=gpu)])
def test_a_saved_argument_moved_before_the_backward_is_read_where_it_is(device):
    """FSDP2's dance on one argument: the backward reads an argument the
    forward saved (`w`, for `x`'s gradient); between the two its storage
    is freed (`resize_(0)`) and allocated again elsewhere with the same
    values. The backward reads it where it is now, as eager's saved tensor
    does: on the host a buffer bound again, on the GPU a device block bound
    again."""
    x = torch.randn(64, device=device, requires_grad=True)
    w = torch.randn(64, device=device)
    f = aot_torch.compile_ir(MUL, [x, w])
    (y,), state = f.forward([x, w])
    keep = w.clone()
    before = w.data_ptr()
    storage = w.untyped_storage()
    n = storage.nbytes()
    storage.resize_(0)
    blocker = torch.empty(n // 4, device=device)  # takes the freed block if the allocator hands it out again
    storage.resize_(n)
    w.copy_(keep)
    if w.data_ptr() == before:
        pytest.skip("the allocator gave the storage its old memory back: nothing moved")
    grads = f.backward(state, [torch.ones(64, device=device)])
    torch.testing.assert_close(grads[0], keep)
    del blocker
