"""PyTorch eager CUDA on the graphs of `tests/suite/cuda.rs::gpu_timings`, for the
figures in bench/README.md: a tiny graph's per-call time, the row softmax and
row sum of a 4096x4096 f32 tensor, and the fused elementwise chain over it,
with the tensor resident on the GPU (eager and torch.compile), and the chain
with a host tensor copied in and the result copied out (what aot's CUDA
backend does for host tensors)."""
import time
import torch


def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / reps


def chain(x):
    return torch.tanh(x * x + x) * x


def main():
    dev = torch.device("cuda")
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
    tiny = torch.tensor([1.0, 2.0, 3.0, 4.0], device=dev)
    s = timed(lambda: tiny * tiny, 2000)
    print(f"timing tiny torch-eager-cuda: {s * 1e6:.1f} us per call")
    x = torch.linspace(-1, 1, 4096 * 4096).reshape(4096, 4096)
    xd = x.to(dev)
    nbytes = 2 * 4 * x.numel()
    s = timed(lambda: chain(xd), 20)
    print(f"timing chain16M torch-eager-cuda (resident): {s * 1e6:.1f} us per call, {nbytes / s / 1e9:.1f} GB/s")
    compiled = torch.compile(chain)
    s = timed(lambda: compiled(xd), 20)
    print(f"timing chain16M torch-compile-cuda (resident): {s * 1e6:.1f} us per call, {nbytes / s / 1e9:.1f} GB/s")
    for name, fn in (("softmax4096", lambda t: torch.softmax(t, dim=1)), ("rowsum4096", lambda t: t.sum(dim=1))):
        s = timed(lambda: fn(xd), 20)
        print(f"timing {name} torch-eager-cuda (resident): {s * 1e6:.1f} us per call")
        compiled_fn = torch.compile(fn)
        s = timed(lambda: compiled_fn(xd), 20)
        print(f"timing {name} torch-compile-cuda (resident): {s * 1e6:.1f} us per call")
    s = timed(lambda: chain(x.to(dev)).cpu(), 10)
    print(f"timing chain16M torch-eager-cuda (host in, host out): {s * 1e6:.1f} us per call, {nbytes / s / 1e9:.1f} GB/s")
    s = timed(lambda: xd.clone(), 20)
    print(f"timing copy16M device-to-device: {nbytes / s / 1e9:.1f} GB/s")
    training_steps(dev)


def _mlp(dev):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024),
                               torch.nn.LayerNorm(1024)).to(dev)


def training_steps(dev):
    """A training step of an MLP block (linear, GELU, linear, layer norm;
    batch 2048, SGD) on the GPU: eager, torch.compile with Inductor, and
    torch.compile with aot (CUDA tensors bound in place), where aot_torch
    with CUDA is importable. Milliseconds per step, the mean of 20 after 3."""
    x = torch.randn(2048, 1024, device=dev)
    target = torch.randn(2048, 1024, device=dev)
    backends = [("eager", None), ("inductor", "inductor")]
    try:
        import aot_torch
        if aot_torch._native.cuda_unavailable() is None:
            backends.append(("aot", "aot"))
        else:
            print("timing train-step aot: skipped:", aot_torch._native.cuda_unavailable())
    except ImportError as e:
        print("timing train-step aot: skipped: aot_torch does not import:", e)
    for name, backend in backends:
        model = _mlp(dev)
        run = model if backend is None else torch.compile(model, backend=backend)
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)

        def step():
            loss = torch.nn.functional.mse_loss(run(x), target)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss

        try:
            for _ in range(2):
                step()
            s = timed(step, 20)
        except Exception as e:  # a backend that fails is reported, the others still timed
            print(f"timing train-step {name}: failed: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
            continue
        print(f"timing train-step {name}: {s * 1e3:.3f} ms per step (MLP 1024-4096-1024, batch 2048)")


if __name__ == "__main__":
    main()
