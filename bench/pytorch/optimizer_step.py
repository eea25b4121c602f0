"""A compiled optimizer step against eager's: `torch.compile(opt.step)`,
PyTorch's recipe for fusing the update of every parameter into one
program, on the parameters of a real model (gradients set once; the step
runs on them again and again).

    py=test/.venv/bin/python
    $py bench/pytorch/optimizer_step.py [--model resnet18] [--optimizers SGD,Adam,AdamW]
                                        [--steps 20] [--no-inductor]

Prints, per optimizer, the median step time of eager, aot and Inductor
(measured round-robin in one process), aot's first call (the compile),
and the largest difference of the parameters from eager's after the
timed steps."""

from __future__ import annotations

import argparse
import copy
import statistics
import time

from machine import cpu_model


def _model(name):
    import torchvision
    return getattr(torchvision.models, name)(num_classes=10)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--optimizers", default="SGD,Adam,AdamW")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--no-inductor", action="store_true")
    args = ap.parse_args(argv)

    import torch
    import aot_torch  # noqa: F401  (registers the backend)

    backends = ["eager", "aot"] + ([] if args.no_inductor else ["inductor"])
    kws = {"SGD": dict(lr=1e-3, momentum=0.9), "Adam": dict(lr=1e-3), "AdamW": dict(lr=1e-3, weight_decay=0.01)}
    print("CPU: %s, %d threads, torch %s, model %s" % (cpu_model(), torch.get_num_threads(), torch.__version__,
                                                     args.model))
    print("| optimizer | parameters | eager ms | aot ms | aot × eager | inductor ms | inductor × eager |"
          " aot first s | max diff |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.optimizers.split(","):
        torch.manual_seed(0)
        base = _model(args.model)
        for p in base.parameters():
            p.grad = torch.randn_like(p) * 1e-2
        runs = {}
        for b in backends:
            torch._dynamo.reset()
            m = copy.deepcopy(base)
            for p, q in zip(m.parameters(), base.parameters()):
                p.grad = q.grad.clone()
            opt = getattr(torch.optim, name)(m.parameters(), **kws[name])
            step = opt.step if b == "eager" else torch.compile(opt.step, backend=b)
            t0 = time.perf_counter()
            step()
            runs[b] = (m, step, time.perf_counter() - t0, [])
        for _ in range(2):
            for b in backends:
                runs[b][1]()
        for _ in range(args.steps):
            for b in backends:
                t0 = time.perf_counter()
                runs[b][1]()
                runs[b][3].append(time.perf_counter() - t0)
        med = {b: statistics.median(runs[b][3]) for b in backends}
        diff = max((p - q).abs().max().item() for p, q in zip(runs["aot"][0].parameters(), runs["eager"][0].parameters()))
        n = sum(p.numel() for p in base.parameters())
        ind = ("%.2f | %.2f" % (med["inductor"] * 1e3, med["eager"] / med["inductor"])) if "inductor" in med else "- | -"
        print("| %s | %d | %.2f | %.2f | %.2f | %s | %.1f | %.1e |" % (
            name, n, med["eager"] * 1e3, med["aot"] * 1e3, med["eager"] / med["aot"], ind, runs["aot"][2], diff),
            flush=True)


if __name__ == "__main__":
    main()
