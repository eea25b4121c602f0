#!/usr/bin/env python3
"""How far `torch.compile(f, backend="aot")` is from eager, bit for bit,
op by op: for each op below, the values and the input's gradient (of
`sum(f(x) · w)` for a fixed ramp `w`) on 4096 `float32` elements, counted
where they differ from eager's and by how much (the largest relative
difference). The random program fuzzer compares at a tolerance; this
sweep finds the ops whose last bits differ, which is how eager's fused
multiply-adds (`tanh`'s derivative, `addcmul`, `lerp`), its own backward
formulas (`hardswish`, `x ** 3`) and its branch choices at NaN were found.

What differs here for a known reason (docs/torch-compile-fuzzing.md,
"Bit for bit"): transcendental values (eager's `exp`, `log`, `sin`,
`erf`, even `sqrt`, come from its vector math library, whose results are
not the correctly rounded ones aot computes), and every value or
gradient computed from them; reductions (eager sums in its own order);
derivative formulas that round otherwise than eager's (`var`, `norm`,
`logit`, ...).

With `--special`, the input is not random but the values where an op's
formula branches: NaN, the infinities, both zeros, ties (repeated
values), the bounds of the clamping activations (±1, ±3, 6), values where
`exp` overflows, and subnormals; the first two rows hold NaN and the
infinities, the last two only finite values (so that a row reduction is
not all NaN).

Usage: ulps.py [--special] [OP ...]   (every op without arguments)."""

import logging
import sys
import warnings

import torch
import torch.nn.functional as F

import aot_torch  # noqa: F401  (registers the backend)

N = 4096


def _inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, N // 4, generator=g) * 3
    p = torch.rand(4, N // 4, generator=g) * 0.98 + 0.01
    t = torch.randn(4, N // 4, generator=g)
    return x, p, t


X, P, T = _inputs()

_FINITE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 3.0, -3.0, 6.0, -6.0, 2.0, 1e-40, -1e-40, 100.0, -100.0, 89.0, 20.0,
           -20.0, 1e-3, 0.0, 1.0, 1.0, 3e38, -3e38]
_NONFINITE = [float("nan"), float("inf"), float("-inf")]


def _special():
    """Rows 0 and 1 tile the finite values with NaN and the infinities,
    rows 2 and 3 only the finite ones (in another order)."""
    rows = []
    for r, vals in enumerate([_FINITE + _NONFINITE, _NONFINITE + _FINITE[::-1], _FINITE, _FINITE[::-1]]):
        reps = -(-(N // 4) // len(vals))
        rows.append(torch.tensor((vals * reps)[: N // 4]))
    return torch.stack(rows)

OPS = {
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "silu": F.silu, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "mish": F.mish, "elu": F.elu, "selu": F.selu,
    "softplus": F.softplus, "logsigmoid": F.logsigmoid, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "relu": F.relu, "relu6": F.relu6, "hardtanh": F.hardtanh,
    "softsign": F.softsign, "tanhshrink": F.tanhshrink, "softmax": lambda x: x.softmax(-1),
    "log_softmax": lambda x: x.log_softmax(-1), "logsumexp": lambda x: x.logsumexp(-1), "exp": torch.exp,
    "log": lambda x: x.abs().log(), "sqrt": lambda x: (x.abs() + 0.1).sqrt(), "rsqrt": lambda x: (x.abs() + 0.1).rsqrt(),
    "sin": torch.sin, "atan": torch.atan, "erf": torch.erf, "expm1": torch.expm1,
    "pow2": lambda x: x.pow(2), "pow3": lambda x: x.pow(3), "pow_m1": lambda x: (x.abs() + 0.1).pow(-1),
    "pow_2_5": lambda x: (x.abs() + 0.1).pow(2.5), "reciprocal": lambda x: (x.abs() + 0.1).reciprocal(),
    "sum": lambda x: x.sum(-1), "mean": lambda x: x.mean(-1), "var": lambda x: x.var(-1),
    "norm": lambda x: x.norm(dim=-1), "layer_norm": lambda x: F.layer_norm(x, (N // 4,)),
    "rms_norm": lambda x: F.rms_norm(x, (N // 4,)), "normalize": lambda x: F.normalize(x, dim=-1),
    "mse": lambda x: F.mse_loss(x, T), "l1": lambda x: F.l1_loss(x, T), "smooth_l1": lambda x: F.smooth_l1_loss(x, T),
    "bce_logits": lambda x: F.binary_cross_entropy_with_logits(x, P),
    "cross_entropy": lambda x: F.cross_entropy(x, torch.arange(4)),
    "mul_add": lambda x: x * T + P, "div": lambda x: x / (T.abs() + 0.5), "atan2": lambda x: torch.atan2(x, T),
    "lerp": lambda x: torch.lerp(x, T, P), "addcmul": lambda x: torch.addcmul(x, T, P, value=0.3),
    "addcdiv": lambda x: torch.addcdiv(x, T, P, value=0.3), "logit": lambda x: torch.logit(torch.sigmoid(x)),
    "glu": lambda x: F.glu(x, -1), "clamp": lambda x: x.clamp(-1, 1), "cumsum": lambda x: x.cumsum(-1),
}


def _run(f):
    x = X.clone().requires_grad_()
    y = f(x)
    w = torch.linspace(-1, 1, y.numel()).view(y.shape)
    (y * w).sum().backward()
    return y.detach(), x.grad


def _count(got, want):
    differ = ~((got == want) | (got.isnan() & want.isnan()))
    rel = ((got - want).abs() / want.abs().clamp_min(1e-30))[differ]
    return int(differ.sum()), (float(rel.max()) if differ.any() else 0.0)


def main(names):
    global X
    if "--special" in names:
        names = [n for n in names if n != "--special"]
        X = _special()
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    torch._dynamo.config.cache_size_limit = 1000
    unknown = [n for n in names if n not in OPS]
    if unknown:
        sys.exit("unknown op(s): %s (known: %s)" % (", ".join(unknown), ", ".join(OPS)))
    print("%-14s %22s %24s" % ("op", "values differing", "gradients differing"))
    for name in names or OPS:
        f = OPS[name]
        want = _run(f)
        got = _run(torch.compile(f, backend="aot", dynamic=False))
        torch._dynamo.reset()
        (nv, rv), (ng, rg) = _count(got[0], want[0]), _count(got[1], want[1])
        print("%-14s %6d/%-5d (%.1e) %8d/%-5d (%.1e)" % (name, nv, want[0].numel(), rv, ng, want[1].numel(), rg))


if __name__ == "__main__":
    main(sys.argv[1:])
