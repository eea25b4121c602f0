"""PyTorch eager CUDA on the graphs of `tests/suite/cuda.rs::gpu_timings`, for the
figures in bench/README.md: a tiny graph's per-call time, and the fused
elementwise chain over a 4096x4096 f32 tensor, both with the tensor resident
on the GPU and with a host tensor copied in and the result copied out (what
aot's CUDA backend does on every call today)."""
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
    s = timed(lambda: chain(x.to(dev)).cpu(), 10)
    print(f"timing chain16M torch-eager-cuda (host in, host out): {s * 1e6:.1f} us per call, {nbytes / s / 1e9:.1f} GB/s")
    s = timed(lambda: xd.clone(), 20)
    print(f"timing copy16M device-to-device: {nbytes / s / 1e9:.1f} GB/s")


if __name__ == "__main__":
    main()
