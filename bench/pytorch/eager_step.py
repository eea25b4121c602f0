#!/usr/bin/env python3
"""PyTorch eager on the training steps `aot-bench native train` times, for
the comparison in bench/README.md: forward + backward of

* an MLP 512-1024-1024-10 (nn.Linear, ReLU between layers), batch 256,
  MSE loss, gradients for every weight;
* one nn.TransformerEncoderLayer (d_model 256, 4 heads, ff 1024, dropout
  0.1, GELU, batch_first, post-norm) on 8x64 tokens, MSE loss, gradients
  for the input and every weight.

Reports the best of `--steps` steps in milliseconds (after two warm-up
steps), with `torch.set_num_threads(--threads)`. With `--compile`, the
modules go through `torch.compile` (Inductor, its default mode) first, and
the warm-up compiles them.

Needs torch (not a project dependency):
  "$(bash bench/pytorch/python.sh)" bench/pytorch/eager_step.py [--threads 1] [--steps 20]
(python.sh prints $AOT_BENCH_PYTHON, else creates bench/.venv with torch)
"""

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def maybe_compile(module, compile_it):
    return torch.compile(module) if compile_it else module


def mlp_step(widths, batch, compile_it=False):
    layers = []
    for i in range(len(widths) - 1):
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(nn.ReLU())
    model = maybe_compile(nn.Sequential(*layers), compile_it)
    x = torch.randn(batch, widths[0])
    target = torch.randn(batch, widths[-1])

    def step():
        loss = F.mse_loss(model(x), target)
        loss.backward()

    return step


def encoder_step(d, h, ff, batch, seq, dropout, compile_it=False):
    layer = nn.TransformerEncoderLayer(d, h, ff, dropout=dropout, activation="gelu", batch_first=True).train()
    layer = maybe_compile(layer, compile_it)
    x = torch.randn(batch, seq, d, requires_grad=True)
    target = torch.randn(batch, seq, d)

    def step():
        loss = F.mse_loss(layer(x), target)
        loss.backward()

    return step


def best_ms(step, steps):
    step()
    step()
    best = float("inf")
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--compile", action="store_true", help="torch.compile (Inductor) the modules")
    ns = ap.parse_args()
    torch.set_num_threads(ns.threads)
    torch.manual_seed(0)
    mode = "torch.compile (Inductor)" if ns.compile else "eager"
    print("PyTorch %s %s, %d threads, best of %d:" % (torch.__version__, mode, ns.threads, ns.steps))
    for name, step in [
        ("MLP 512-1024-1024-10, batch 256, MSE", mlp_step([512, 1024, 1024, 10], 256, ns.compile)),
        ("encoder layer d256 h4 ff1024, 8x64, dropout 0.1", encoder_step(256, 4, 1024, 8, 64, 0.1, ns.compile)),
    ]:
        print("  %-52s %8.2f ms" % (name, best_ms(step, ns.steps)))


if __name__ == "__main__":
    main()
