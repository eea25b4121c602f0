"""What a training step costs at a size the compiled graph has not seen,
trained with SGD through torch.compile(backend="aot"), warmed up at three
sizes, then stepped at --sizes new sizes (one step each) and at one seen
size; prints the median of each. With --per-size, native code is
generated per size (AOT_RUNTIME_SIZES=0) instead of read from a size
table at run time.

--model gpt2: a GPT-2-style block (python/tests/models.py) under
`dynamic=True`, new sequence lengths. --model cnn: the residual CNN
(python/tests/models.py, 32 channels, 32x32 images) under Dynamo's
automatic dynamic shapes, new batch sizes. --model cnn-images: the same
CNN under `dynamic=True`, batches of 8, new image sizes.

    py=test/.venv/bin/python
    $py bench/pytorch/new_sizes.py [--model gpt2|cnn|cnn-images] [--sizes 10] [--per-size]
"""

import argparse
import os
import statistics
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--sizes", type=int, default=10)
ap.add_argument("--per-size", action="store_true")
ap.add_argument("--model", choices=["gpt2", "cnn", "cnn-images"], default="gpt2")
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
g = torch.Generator().manual_seed(0)
if args.model == "gpt2":
    model = GPT2Block(vocab=512, ctx=256, d=128, nh=4, dropout=0.0)
    f = torch.compile(model, backend="aot", dynamic=True)

    def batch(b, t):
        x = torch.randint(0, 512, (b, t), generator=g)
        return x, torch.randint(0, 512, (b, t), generator=g)

    loss_of = gpt_loss
    warm, new_sizes, seen = [(4, 16), (8, 24), (4, 32)], [(4, 40 + 4 * k) for k in range(args.sizes)], (4, 40)
elif args.model == "cnn-images":
    from models import ResNetish

    model = ResNetish(c=32, classes=10)
    f = torch.compile(model, backend="aot", dynamic=True)

    def batch(n, h):
        return torch.randn(n, 3, h, h, generator=g), torch.randint(0, 10, (n,), generator=g)

    loss_of = torch.nn.functional.cross_entropy
    warm, new_sizes, seen = [(8, 16), (8, 24), (8, 32)], [(8, 34 + 2 * k) for k in range(args.sizes)], (8, 32)
else:
    from models import ResNetish

    model = ResNetish(c=32, classes=10)
    f = torch.compile(model, backend="aot")

    def batch(n, _):
        return torch.randn(n, 3, 32, 32, generator=g), torch.randint(0, 10, (n,), generator=g)

    loss_of = torch.nn.functional.cross_entropy
    warm, new_sizes, seen = [(16, 0), (8, 0), (12, 0)], [(17 + k, 0) for k in range(args.sizes)], (16, 0)
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def step(b, t):
    x, y = batch(b, t)
    opt.zero_grad()
    loss = loss_of(f(x), y)
    loss.backward()
    opt.step()


def timed(b, t):
    t0 = time.perf_counter()
    step(b, t)
    return (time.perf_counter() - t0) * 1e3


for b, t in warm:
    step(b, t)
new = [timed(*s) for s in new_sizes]
seen = [timed(*seen) for _ in range(args.sizes)]
print(run_line())
print("%s, %s: step at a new size %.1f ms (median of %d; min %.1f, max %.1f), at a seen size %.1f ms; "
      "code generated per size: %d" % (args.model, "per size" if args.per_size else "run-time sizes", statistics.median(new),
                                       len(new), min(new), max(new), statistics.median(seen),
                                       aot_torch.versions_per_size()))
