"""torch.mm on f32 matrices: the PyTorch side of `aot-bench native matmul`.

    python bench/pytorch/mm.py [--n 1024] [--m M --k K] [--linear] [--threads T] [--dtype f32|bf16]

`--linear` multiplies by the transpose of an [n, k] weight, as `nn.Linear`.

Best of 20 after 3 warm-up calls, like the aot side.
"""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--n", type=int, default=1024)
p.add_argument("--m", type=int, default=None)
p.add_argument("--k", type=int, default=None)
p.add_argument("--linear", action="store_true")
p.add_argument("--threads", type=int, default=1)
p.add_argument("--reps", type=int, default=20)
p.add_argument("--dtype", choices=["f32", "bf16"], default="f32")
a = p.parse_args()
m, k, n = a.m or a.n, a.k or a.n, a.n
torch.set_num_threads(a.threads)
x = torch.rand(m, k)
y = torch.rand(n, k).t() if a.linear else torch.rand(k, n)
if a.dtype == "bf16":
    x, y = x.bfloat16(), y.bfloat16()
for _ in range(3):
    torch.mm(x, y)
best = float("inf")
for _ in range(a.reps):
    t = time.perf_counter()
    torch.mm(x, y)
    best = min(best, time.perf_counter() - t)
shape = f"{m}x{k} @ ({n}x{k})^T" if a.linear else f"{m}x{k}x{n}"
print(f"torch.mm {shape} {a.dtype}, {a.threads} thread(s): {best * 1e3:.3f} ms, {2 * m * k * n / best / 1e9:.1f} GFLOP/s")
