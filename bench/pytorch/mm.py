"""torch.mm on n x n f32 matrices: the PyTorch side of `aot-bench native matmul`.

    python bench/pytorch/mm.py [--n 1024] [--threads T]

Best of 20 after 3 warm-up calls, like the aot side.
"""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--n", type=int, default=1024)
p.add_argument("--threads", type=int, default=1)
a = p.parse_args()
torch.set_num_threads(a.threads)
x = torch.rand(a.n, a.n)
y = torch.rand(a.n, a.n)
for _ in range(3):
    torch.mm(x, y)
best = float("inf")
for _ in range(20):
    t = time.perf_counter()
    torch.mm(x, y)
    best = min(best, time.perf_counter() - t)
print(f"torch.mm {a.n}^3 f32, {a.threads} thread(s): {best * 1e3:.2f} ms, {2 * a.n**3 / best / 1e9:.1f} GFLOP/s")
