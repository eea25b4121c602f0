"""torch.compile(backend="aot") against eager PyTorch and torch.compile
(Inductor), side by side in one process: training steps per second of an
MLP, nn.TransformerEncoderLayer (dropout 0.1), a GPT-2-style block and a
small residual CNN (convolutions, batch norm and pooling; `--models cnn`),
the first call (compile time), and the per-call overhead of the Python
boundary on a tiny graph (aot through torch.compile, aot's own call, and
AOTAutograd through torch.compile(backend="aot_eager")).

    py=test/.venv/bin/python   # a Python with torch and aot_torch installed
    $py bench/pytorch/torch_compile.py [--steps 30] [--models mlp,encoder,gpt2,cnn] [--no-inductor]

Prints one table per measure (medians of timed steps after warm-up).
"""

import argparse
import os
import statistics
import sys
import time

# Inductor's first call is measured cold: its on-disk caches (which a
# second run of this script would otherwise hit) are off.
os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "tests"))
import aot_torch  # noqa: E402
from models import GPT2Block, MLP, ResNetish, encoder_layer, gpt_loss  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import run_line  # noqa: E402


def models():
    g = torch.Generator().manual_seed(0)
    return {
        "mlp": (lambda: MLP(d=256, h=512, o=10), torch.randn(128, 256, generator=g),
                torch.randn(128, 10, generator=g), F.mse_loss),
        "encoder": (lambda: encoder_layer(dropout=0.1, d=128, nh=4, ff=512), torch.randn(16, 64, 128, generator=g),
                    torch.randn(16, 64, 128, generator=g), F.mse_loss),
        "gpt2": (lambda: GPT2Block(vocab=512, ctx=64, d=128, nh=4, dropout=0.1),
                 torch.randint(0, 512, (16, 64), generator=g), torch.randint(0, 512, (16, 64), generator=g), gpt_loss),
        "cnn": (lambda: ResNetish(c=32, classes=10), torch.randn(32, 3, 32, 32, generator=g),
                torch.randint(0, 10, (32,), generator=g), F.cross_entropy),
    }


def train_steps(build, inp, target, lossf, backend, steps):
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = build()
    run = model if backend == "eager" else torch.compile(model, backend=backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        loss = lossf(run(inp), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    t0 = time.perf_counter()
    step()
    first = time.perf_counter() - t0
    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def per_call(fn, n=5000, rounds=5):
    """Microseconds per call of `fn()`: the best of `rounds` loops of `n`."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def overhead():
    """Microseconds per call of a tiny graph (x * 2 + 1 on 8 floats), under
    no_grad, then in training (forward, forward and backward); the backends
    and eager in one process, each the best of five loops."""
    x = torch.randn(8)

    def f(x):
        return x * 2 + 1

    out = {}
    with torch.no_grad():
        for name, backend in (("aot (torch.compile)", "aot"),
                              ("aot (torch.compile), native_dispatch=False",
                               aot_torch.backend(native_dispatch=False)),
                              ("Dynamo alone (backend=\"eager\")", "eager"),
                              ("AOTAutograd (aot_eager)", "aot_eager")):
            torch._dynamo.reset()
            cf = torch.compile(f, backend=backend)
            for _ in range(50):
                cf(x)
            out[name] = per_call(lambda: cf(x))
        fn = aot_torch.compile_ir("""func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = tensor.full {value = 2.0} : tensor<f32>
  %o = tensor.full {value = 1.0} : tensor<f32>
  %y = tensor.mul %x, %c : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %z = tensor.add %y, %o : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %z : tensor<8xf32>
}
""", [x], training=False)
        args = [x]
        for _ in range(50):
            fn(args)
        out["aot_torch.compile_ir call"] = per_call(lambda: fn(args))
        out["eager"] = per_call(lambda: f(x))
        out["eager, one op"] = per_call(lambda: x * 2)
        # What each further tensor argument costs: a graph that adds k
        # tensors, through the backend's dispatcher and in eager.
        for k in (1, 9, 33):
            ts = [torch.randn(8) for _ in range(k)]
            names = ", ".join("a%d" % i for i in range(k))
            ns = {}
            exec("def g(%s):\n    s = a0 * 2\n%s    return (s,)\n" % (
                names, "".join("    s = s + a%d\n" % i for i in range(1, k))), ns)
            g = ns["g"]
            d = aot_torch.backend()(torch.fx.symbolic_trace(g), ts)
            for _ in range(50):
                d(*ts)
            out["%d tensor arguments: the backend's dispatcher" % k] = per_call(lambda: d(*ts), n=2000)
            out["%d tensor arguments: eager" % k] = per_call(lambda: g(*ts), n=2000)
    # Training calls: the same graph on a tensor that requires grad, the
    # forward alone and a forward with its backward (through `sum`).
    w = torch.randn(8, requires_grad=True)
    for name, backend in (("aot (torch.compile)", "aot"), ("Dynamo alone (backend=\"eager\")", "eager"),
                          ("AOTAutograd (aot_eager)", "aot_eager"), ("eager", None)):
        torch._dynamo.reset()
        cf = torch.compile(f, backend=backend) if backend else f
        for _ in range(50):
            cf(w).sum().backward()
        out["training, forward: " + name] = per_call(lambda: cf(w))
        out["training, forward and backward: " + name] = per_call(lambda: cf(w).sum().backward(), n=2000)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--models", default="mlp,encoder,gpt2")
    ap.add_argument("--no-inductor", action="store_true")
    args = ap.parse_args()
    print(run_line())
    # First, before Inductor's compile workers exist: they compete for the
    # cores afterwards and inflate the microsecond timings.
    calls = overhead()
    backends = ["eager", "aot"] + ([] if args.no_inductor else ["inductor"])
    table = {}
    for name in args.models.split(","):
        build, inp, target, lossf = models()[name]
        for b in backends:
            table[(name, b)] = train_steps(build, inp, target, lossf, b, args.steps)
            first, med = table[(name, b)]
            print("  %-8s %-9s first call %8.3f s   step %8.2f ms   %8.1f steps/s" % (
                name, b, first, med * 1e3, 1.0 / med), flush=True)
    print()
    print("| model | eager steps/s | aot steps/s | inductor steps/s | aot first call (s) | inductor first call (s) |")
    print("|---|---|---|---|---|---|")
    for name in args.models.split(","):
        e = table[(name, "eager")]
        a = table[(name, "aot")]
        i = table.get((name, "inductor"))
        print("| %s | %.1f | %.1f | %s | %.2f | %s |" % (
            name, 1 / e[1], 1 / a[1], "%.1f" % (1 / i[1]) if i else "-", a[0], "%.2f" % i[0] if i else "-"))
    print()
    print("| per call, tiny graph | µs |")
    print("|---|---|")
    for k, v in calls.items():
        print("| %s | %.1f |" % (k, v))


if __name__ == "__main__":
    main()
