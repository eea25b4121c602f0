"""`F.scaled_dot_product_attention` through `torch.compile(backend="aot")`
and eager, side by side in one process (PyTorch's default threads unless
`--threads`): inference (under `no_grad`) and a training step (forward,
`sum()`, backward), with and without a causal mask.

    python bench/pytorch/attention.py [--lengths 64,256,512] [--batch 8] [--heads 8] [--dim 32] [--reps 5]

Per configuration: the best of `reps` batches of calls (about 2000 / (T²/64)
calls each, at least 3), after one warm-up call, in ms per call, and the
largest difference of the compiled output from eager's.
"""
import argparse
import time

import torch
import torch.nn.functional as F

import aot_torch  # noqa: F401  (registers the backend)

p = argparse.ArgumentParser()
p.add_argument("--lengths", default="64,256,512")
p.add_argument("--batch", type=int, default=8)
p.add_argument("--heads", type=int, default=8)
p.add_argument("--dim", type=int, default=32)
p.add_argument("--reps", type=int, default=5)
p.add_argument("--threads", type=int, default=None)
a = p.parse_args()
if a.threads:
    torch.set_num_threads(a.threads)


def bench(step, n):
    step()
    best = float("inf")
    for _ in range(a.reps):
        t = time.perf_counter()
        for _ in range(n):
            step()
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e3


print("%5s %7s %12s %12s %14s %14s %10s" % ("T", "causal", "infer aot", "infer eager", "train aot", "train eager",
                                             "max |diff|"))
for T in (int(x) for x in a.lengths.split(",")):
    for causal in (False, True):
        g = torch.Generator().manual_seed(T)
        q, k, v = (torch.randn(a.batch, a.heads, T, a.dim, generator=g) for _ in range(3))

        def f(q, k, v):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        torch._dynamo.reset()
        cf = torch.compile(f, backend="aot")
        leaves = [t.clone().requires_grad_() for t in (q, k, v)]

        def infer(fn):
            def step():
                with torch.no_grad():
                    return fn(q, k, v)
            return step

        def train(fn):
            def step():
                fn(*leaves).sum().backward()
            return step

        n = max(3, int(2000 / (T * T / 64)))
        with torch.no_grad():
            diff = float((cf(q, k, v) - f(q, k, v)).abs().max())
        r = [bench(infer(cf), n), bench(infer(f), n), bench(train(cf), n), bench(train(f), n)]
        print("%5d %7s %12.3f %12.3f %14.3f %14.3f %10.1e" % (T, causal, *r, diff))
