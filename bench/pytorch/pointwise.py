"""Transcendental pointwise kernels alone, through `torch.compile(backend="aot")`
and eager, side by side in one process (PyTorch's default threads).

    python bench/pytorch/pointwise.py [--reps 7] [--calls 20]

Per kernel: the best of `reps` batches of `calls` calls, after 5 warm-up
calls, in ms per call, and the largest difference from eager's values.
The shapes are a ViT MLP's activation (8 x 197 x 768), an attention
score block (64 x 64 x 64) and a CNN's activation map (8 x 96 x 32 x 32:
rows of 32, SiLU after a batch norm as in EfficientNet).
"""
import argparse
import time

import torch
import torch.nn.functional as F

import aot_torch  # noqa: F401  (registers the backend)

p = argparse.ArgumentParser()
p.add_argument("--reps", type=int, default=7)
p.add_argument("--calls", type=int, default=20)
a = p.parse_args()

act = torch.randn(8, 197, 768, generator=torch.Generator().manual_seed(0))
scores = torch.randn(64, 64, 64, generator=torch.Generator().manual_seed(1))
fmap = torch.randn(8, 96, 32, 32, generator=torch.Generator().manual_seed(2))
scale = torch.rand(1, 96, 1, 1, generator=torch.Generator().manual_seed(3)) + 0.5
shift = torch.randn(1, 96, 1, 1, generator=torch.Generator().manual_seed(4))
cases = [
    ("gelu", lambda x: F.gelu(x), act),
    ("gelu (tanh)", lambda x: F.gelu(x, approximate="tanh"), act),
    ("erf", torch.erf, act),
    ("silu", F.silu, act),
    ("softmax(-1)", lambda x: torch.softmax(x, -1), scores),
    ("silu", F.silu, fmap),
    ("sigmoid", torch.sigmoid, fmap),
    ("exp", torch.exp, fmap),
    ("scale, shift, silu", lambda x: F.silu(x * scale + shift), fmap),
]


def best_ms(fn, x):
    for _ in range(5):
        fn(x)
    best = float("inf")
    for _ in range(a.reps):
        t = time.perf_counter()
        for _ in range(a.calls):
            fn(x)
        best = min(best, (time.perf_counter() - t) / a.calls)
    return best * 1e3


print("| kernel | shape | eager ms | aot ms | aot × eager | max abs diff |")
print("|---|---|---|---|---|---|")
with torch.no_grad():
    for name, fn, x in cases:
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend="aot")
        diff = (compiled(x) - fn(x)).abs().max().item()
        e, c = best_ms(fn, x), best_ms(compiled, x)
        shape = "×".join(str(d) for d in x.shape)
        print(f"| {name} | {shape} | {e:.3f} | {c:.3f} | {e / c:.2f} | {diff:.1e} |")
