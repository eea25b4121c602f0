"""What a training step costs at a size the compiled graph has not seen:
a GPT-2-style block (python/tests/models.py) trained with SGD through
torch.compile(backend="aot", dynamic=True), warmed up at three sizes, then
stepped at --sizes new sequence lengths (one step each) and at one seen
size; prints the median of each. With --per-size, native code is
generated per size (AOT_RUNTIME_SIZES=0) instead of read from a size
table at run time.

    py=test/.venv/bin/python
    $py bench/pytorch/new_sizes.py [--sizes 10] [--per-size]
"""

import argparse
import os
import statistics
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--sizes", type=int, default=10)
ap.add_argument("--per-size", action="store_true")
args = ap.parse_args()
if args.per_size:
    os.environ["AOT_RUNTIME_SIZES"] = "0"

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aot_torch  # noqa: E402,F401
from machine import run_line  # noqa: E402
from models import GPT2Block, gpt_loss  # noqa: E402

torch.manual_seed(0)
model = GPT2Block(vocab=512, ctx=256, d=128, nh=4, dropout=0.0)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
f = torch.compile(model, backend="aot", dynamic=True)
g = torch.Generator().manual_seed(0)


def step(b, t):
    x = torch.randint(0, 512, (b, t), generator=g)
    y = torch.randint(0, 512, (b, t), generator=g)
    opt.zero_grad()
    loss = gpt_loss(f(x), y)
    loss.backward()
    opt.step()


def timed(b, t):
    t0 = time.perf_counter()
    step(b, t)
    return (time.perf_counter() - t0) * 1e3


for b, t in [(4, 16), (8, 24), (4, 32)]:
    step(b, t)
new = [timed(4, 40 + 4 * k) for k in range(args.sizes)]
seen = [timed(4, 40) for _ in range(args.sizes)]
print(run_line())
print("%s: step at a new size %.1f ms (median of %d; min %.1f, max %.1f), at a seen size %.1f ms; "
      "code generated per size: %d" % ("per size" if args.per_size else "run-time sizes", statistics.median(new),
                                       len(new), min(new), max(new), statistics.median(seen),
                                       aot_torch.versions_per_size()))
