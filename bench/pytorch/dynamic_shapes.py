"""Symbolic shapes through torch.compile: one compile for every size
against one per shape, side by side in one process, on a GPT-2-style block
(token batches of varying batch size and sequence length) and a small
residual CNN (varying batch size and image size), trained with SGD.

For each way of running:
  - `aot, symbolic`: torch.compile(backend="aot", dynamic=True), one
    symbolic graph, its native code reading sizes at run time where the
    code generator takes the graph (else generated per size);
  - `aot, symbolic, code per size`: the same with AOT_RUNTIME_SIZES=0
    (native code generated per size from the one compile);
  - `aot, per shape`: the same with aot_torch.backend(symbolic=False)
    (recompile_limit raised so that no shape falls back);
  - `eager`; and `inductor`: torch.compile(dynamic=True) (unless
    --no-inductor),
it measures the sweep (one step at each of the shapes, first calls
included: what a variable-length training loop pays until every size has
been seen) and aot's compile count; then the steady step time at one shape
after the sweep, the runs taking turns (three rounds of --steps steps
each; the median of all).

    py=test/.venv/bin/python   # a Python with torch and aot_torch installed
    $py bench/pytorch/dynamic_shapes.py [--steps 20] [--models gpt2,cnn] [--no-inductor]
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "tests"))
import aot_torch  # noqa: E402
from models import GPT2Block, ResNetish, gpt_loss  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import run_line  # noqa: E402


def models():
    g = torch.Generator().manual_seed(0)

    def tokens(b, t):
        return torch.randint(0, 512, (b, t), generator=g), torch.randint(0, 512, (b, t), generator=g)

    def images(n, h):
        return torch.randn(n, 3, h, h, generator=g), torch.randint(0, 10, (n,), generator=g)

    return {
        "gpt2": (lambda: GPT2Block(vocab=512, ctx=64, d=128, nh=4, dropout=0.0), tokens, gpt_loss,
                 [(b, t) for t in (16, 24, 32, 48) for b in (4, 8)], (8, 32)),
        # The same block with dropout 0.1 (random draws over symbolic sizes).
        "gpt2-dropout": (lambda: GPT2Block(vocab=512, ctx=64, d=128, nh=4, dropout=0.1), tokens, gpt_loss,
                         [(b, t) for t in (16, 24, 32, 48) for b in (4, 8)], (8, 32)),
        "cnn": (lambda: ResNetish(c=32, classes=10), images, F.cross_entropy,
                [(n, h) for h in (16, 24, 32) for n in (8, 16)], (16, 32)),
    }


def prepare(build, make, lossf, sweep, steady, how):
    """Builds the run `how` and takes it through the sweep: (sweep seconds,
    aot's counters, a function doing one step at the steady shape)."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    model = build()
    if how == "eager":
        f = model
    elif how == "inductor":
        f = torch.compile(model, dynamic=True)
    elif how.startswith("aot, symbolic"):
        f = torch.compile(model, backend="aot", dynamic=True)
    else:
        f = torch.compile(model, backend=aot_torch.backend(symbolic=False, recompile_limit=64), dynamic=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step(args):
        inp, target = args
        loss = lossf(f(inp), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    batches = {s: make(*s) for s in sweep + [steady]}
    # (Read when a graph's native code is compiled: on its first calls.)
    if how.endswith("code per size"):
        os.environ["AOT_RUNTIME_SIZES"] = "0"
    try:
        t0 = time.perf_counter()
        for s in sweep:
            step(batches[s])
        swept = time.perf_counter() - t0
        for _ in range(3):
            step(batches[steady])
    finally:
        os.environ.pop("AOT_RUNTIME_SIZES", None)
    return swept, dict(aot_torch.stats), lambda: step(batches[steady])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--models", default="gpt2,cnn")
    ap.add_argument("--no-inductor", action="store_true")
    args = ap.parse_args()
    print(run_line())
    # Dynamo's and the backend's one-time costs (imports, the first
    # trace), which would otherwise fall on the first run measured.
    warm = torch.compile(lambda x: (x * 2).sum(), backend="aot", dynamic=True)
    for n in (4, 5, 6):
        warm(torch.randn(n, 3, requires_grad=True)).backward()
    torch._dynamo.reset()
    hows = ["eager", "aot, symbolic", "aot, symbolic, code per size", "aot, per shape"]
    hows += [] if args.no_inductor else ["inductor"]
    rows = []
    for name in args.models.split(","):
        build, make, lossf, sweep, steady = models()[name]
        prepared = {}
        for how in hows:
            swept, stats, step = prepare(build, make, lossf, sweep, steady, how)
            prepared[how] = (swept, stats, step)
            print("  %-5s %-15s sweep of %d shapes %7.2f s  compiles %s" % (
                name, how, len(sweep), swept, stats.get("compiled", "") if how.startswith("aot") else "-"),
                flush=True)
        # The steady steps side by side: rounds of each run in turn.
        times = {how: [] for how in hows}
        for _ in range(3):
            for how in hows:
                step = prepared[how][2]
                for _ in range(args.steps):
                    t0 = time.perf_counter()
                    step()
                    times[how].append(time.perf_counter() - t0)
        for how in hows:
            swept, stats, _ = prepared[how]
            med = statistics.median(times[how])
            compiles = stats.get("compiled", "") if how.startswith("aot") else ""
            rows.append((name, how, len(sweep), swept, compiles, med))
            print("  %-5s %-15s step at %s %8.2f ms" % (name, how, steady, med * 1e3), flush=True)
    print()
    print("| model | run | sweep (s) | aot compiles | steady step (ms) |")
    print("|---|---|---|---|---|")
    for name, how, n, swept, compiles, med in rows:
        print("| %s | %s | %.2f (%d shapes) | %s | %.2f |" % (name, how, swept, n, compiles, med * 1e3))


if __name__ == "__main__":
    main()
