"""Runs a generated program eagerly and under ``torch.compile`` and compares
everything a caller can observe. Needs torch; used by the workers of
``run.py`` and by the regression tests (``python/tests/fuzz_regressions``).

A *call* is: fresh inputs from ``make_inputs(torch.Generator().manual_seed(seed))``,
the function called (under ``torch.no_grad()`` in ``infer`` mode, with grad
mode on in ``train`` mode), an observation of the outputs, arguments, bases
and process state; in ``train`` mode then a weighted sum of the floating
outputs that require grad, ``backward()``, and an observation of the
leaves' ``.grad``. Eager and compiled observations are compared field by
field in a fixed order; the first differing field names the failure.

With ``AOT_FUZZ_AUTOCAST=bf16`` (or ``f16``) in the environment
(``run.py --autocast``), every call of the function, eager and compiled,
runs under ``torch.autocast("cpu", dtype=...)``, and float values are
compared at the tolerance of the half type whatever their own type (a
``float`` result computed from half-precision products carries their
rounding).

With ``AOT_FUZZ_DYNAMIC=1`` (``run.py --dynamic``), the function is compiled
with ``torch.compile(..., dynamic=True)``: Dynamo hands the backend graphs
with symbolic sizes (those the program's own constants do not specialize),
which aot compiles once over symbols and calls at the example's sizes.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import warnings

import torch

RTOL = {torch.float32: 1e-5, torch.float64: 1e-7, torch.float16: 1e-3, torch.bfloat16: 1e-2}
ATOL = {torch.float32: 1e-5, torch.float64: 1e-7, torch.float16: 1e-3, torch.bfloat16: 1e-2}

AUTOCAST = {"": None, "bf16": torch.bfloat16, "f16": torch.float16}[os.environ.get("AOT_FUZZ_AUTOCAST", "")]
DYNAMIC = os.environ.get("AOT_FUZZ_DYNAMIC", "") == "1"


def _autocast():
    return torch.autocast("cpu", dtype=AUTOCAST) if AUTOCAST is not None else contextlib.nullcontext()


def _tolerance(dtype):
    rtol, atol = RTOL.get(dtype, 1e-5), ATOL.get(dtype, 1e-5)
    if AUTOCAST is not None:
        rtol, atol = max(rtol, RTOL[AUTOCAST]), max(atol, ATOL[AUTOCAST])
    return rtol, atol



def skip_guard_latency_profiling():
    """Dynamo times every new set of guards after flushing the CPU's caches
    (about 35 ms per compiled frame, a fifth of a fuzz program's compile
    time) only to write the figure to its debug log. The checks never read
    it; a process that runs many compiles skips the measurement (the test
    processes too: python/tests/conftest.py)."""
    try:
        import torch._dynamo.guards as guards
    except ImportError:
        return
    if hasattr(guards, "profile_guard_manager"):
        guards.profile_guard_manager = lambda *args: 0.0


# -- loading -----------------------------------------------------------------


def load(source: str, name: str = "<fuzz>"):
    """(f, make_inputs) from a program's source text."""
    ns = {"__name__": "fuzz_program"}
    exec(compile(source, name, "exec"), ns)
    return ns["f"], ns["make_inputs"]


# -- fallbacks ---------------------------------------------------------------

_OPS_RE = re.compile(r"^aot_torch: (graph \S+): \d+ op\(s\) run in PyTorch: (.*)$")
_TRACE_RE = re.compile(r"^aot_torch: (graph \S+) runs in PyTorch: tracing to ATen failed: (.*)$")
_REGION_RE = re.compile(r"^aot_torch: (graph \S+) runs in PyTorch: (.*)$")
_CONV_RE = re.compile(r"^aot_torch: (graph \S+): (.*); running in PyTorch$")


def _norm(s: str, n: int = 110) -> str:
    s = re.sub(r"%[A-Za-z_][\w.]*", "%_", s)  # SSA names
    s = re.sub(r"\b(arg|v|s|submod_|input |output |graph )\d+\b", r"\1N", s)
    s = re.sub(r"\d+", "N", s)
    return s if len(s) <= n else s[: n - 3] + "..."


def fallback_buckets(msg: str):
    """The reasons one ``aot_torch`` warning gives, bucketed (numbers and names normalized)."""
    m = _OPS_RE.match(msg)
    if m:
        out = []
        for part in m.group(2).split("; "):
            mm = re.match(r"^(\S+) \((.*)\)$", part)
            if mm:
                op, why = mm.group(1), mm.group(2)
                why = why.replace(op + " ", "")
                out.append("op %s: %s" % (op, _norm(why)))
            else:
                out.append("op: " + _norm(part))
        return out
    m = _TRACE_RE.match(msg)
    if m:
        return ["trace failed: " + _norm(m.group(2))]
    m = _REGION_RE.match(msg)
    if m:
        return ["region: " + _norm(m.group(2))]
    if "recompile_limit" in msg:
        return ["recompile_limit"]
    m = _CONV_RE.match(msg)
    if m:
        return ["convention: " + _norm(m.group(2))]
    if "not sharing PyTorch's threads" in msg:
        return []
    return ["other: " + _norm(msg.replace("aot_torch: ", ""))]


class FallbackLog(logging.Handler):
    """Collects the ``aot_torch`` logger's warnings (one per fallback)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        try:
            self.messages.append(record.getMessage())
        except Exception:  # noqa: BLE001
            self.messages.append(str(record.msg))

    def install(self):
        lg = logging.getLogger("aot_torch")
        lg.addHandler(self)
        lg.setLevel(logging.WARNING)
        lg.propagate = False
        return self

    def take(self):
        m, self.messages = self.messages, []
        return m


# -- observing ---------------------------------------------------------------


def _flatten(x, path, out):
    if isinstance(x, (tuple, list)):
        out.append((path + ".type", type(x).__name__ + str(len(x))))
        for i, y in enumerate(x):
            _flatten(y, "%s[%d]" % (path, i), out)
    else:
        out.append((path, x))


def _sid(t):
    try:
        p = t.untyped_storage().data_ptr()
    except Exception:  # noqa: BLE001
        return None
    return p or None


def _sig_stride(t):
    """Strides that matter: those of dimensions longer than 1."""
    if t.numel() == 0:
        return None
    return tuple(st if sz > 1 else None for sz, st in zip(t.shape, t.stride()))


class Tensorval:
    """A snapshot of a tensor's values (compared with tolerance)."""

    def __init__(self, t):
        with torch.no_grad():
            self.t = t.detach().clone()

    def __repr__(self):
        return "tensor(%s)" % self.t.tolist()


def error_record(e):
    """``Type: first line`` (two lines where the first ends with a colon, as Dynamo's wrappers do)."""
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    msg = lines[0] if lines else ""
    if msg.endswith(":") and len(lines) > 1:
        msg += " " + lines[1]
    return "%s: %s" % (type(e).__name__, msg[:240])


def _get(fn):
    """An attribute, or what reading it raised (PyTorch raises reading
    ``is_leaf`` of a no_grad view whose base was modified in grad mode)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return "raises %s" % type(e).__name__


def observe(args, bases, outs, versions_before):
    """Everything a caller sees after a call that returned: an ordered list of (field, value)."""
    obs = []
    flat = []
    _flatten(outs, "out", flat)
    obs.append(("out.structure", tuple(p if isinstance(o, torch.Tensor) else (p, type(o).__name__)
                                        for p, o in flat)))
    arg_sids = [_sid(a) if isinstance(a, torch.Tensor) else None for a in args]
    base_sids = [_sid(b) for b in bases]
    seen = []
    for p, o in flat:
        if p.endswith(".type"):
            continue
        if not isinstance(o, torch.Tensor):
            obs.append((p + ".value", o))
            continue
        obs.append((p + ".dtype", str(o.dtype)))
        obs.append((p + ".shape", tuple(o.shape)))
        obs.append((p + ".values", Tensorval(o)))
        obs.append((p + ".requires_grad", _get(lambda: o.requires_grad)))
        obs.append((p + ".is_leaf", _get(lambda: o.is_leaf)))
        ident = tuple("arg%d" % i for i, a in enumerate(args) if o is a) + \
            tuple(q for q, x in seen if o is x)
        obs.append((p + ".is", ident))
        s = _sid(o) if o.numel() else None
        share = ()
        if s is not None:
            share = tuple("arg%d" % i for i, x in enumerate(arg_sids) if x == s) + \
                tuple("base%d" % i for i, x in enumerate(base_sids) if x == s) + \
                tuple(q for q, x in seen if x.numel() and _sid(x) == s)
        obs.append((p + ".shares_storage_with", share))
        obs.append((p + "._base_is_not_None", _get(lambda: o._base is not None)))
        obs.append((p + ".stride", _sig_stride(o)))
        obs.append((p + ".storage_offset", o.storage_offset() if o.numel() else None))
        seen.append((p, o))
    for i, a in enumerate(args):
        p = "arg%d" % i
        if not isinstance(a, torch.Tensor):
            continue
        obs.append((p + ".shape", tuple(a.shape)))
        obs.append((p + ".values", Tensorval(a)))
        obs.append((p + ".stride", _sig_stride(a)))
        obs.append((p + ".storage_offset", a.storage_offset() if a.numel() else None))
        obs.append((p + ".version_changed", a._version != versions_before[0][i]))
        obs.append((p + ".requires_grad", _get(lambda: a.requires_grad)))
        obs.append((p + ".is_leaf", _get(lambda: a.is_leaf)))
    for i, b in enumerate(bases):
        p = "base%d" % i
        obs.append((p + ".values", Tensorval(b)))
        obs.append((p + ".version_changed", b._version != versions_before[1][i]))
    return obs


def state(where="state"):
    return [(where + ".grad_enabled", torch.is_grad_enabled()),
            (where + ".inference_mode", torch.is_inference_mode_enabled())]


def loss_of(outs):
    """Weighted sum of the floating outputs that require grad (None if there is none)."""
    flat = []
    _flatten(outs, "out", flat)
    loss = None
    k = 0
    for _, o in flat:
        if isinstance(o, torch.Tensor) and _get(lambda: o.requires_grad) is True and o.dtype.is_floating_point:
            w = torch.randn(o.shape, dtype=o.dtype, generator=torch.Generator().manual_seed(1000 + k))
            term = (o * w).sum()
            loss = term if loss is None else loss + term
            k += 1
    return loss


def call(fn, make_inputs, mode, seed):
    """One call: (forward error, observations, backward error, grad observations)."""
    rec = {"error": None, "obs": [], "bwd_error": None, "grads": []}
    with torch.enable_grad():
        args, bases = make_inputs(torch.Generator().manual_seed(seed))
    versions = ([a._version if isinstance(a, torch.Tensor) else None for a in args], [b._version for b in bases])
    # The outputs are observed in the grad mode of the call (PyTorch raises
    # reading ``is_leaf`` of some no_grad views in grad mode only); the
    # state is read inside it too, before the context manager restores it.
    ctx = torch.no_grad if mode == "infer" else torch.enable_grad
    with ctx():
        try:
            with _autocast():
                outs = fn(*args)
        except Exception as e:  # noqa: BLE001
            rec["error"] = error_record(e)
            rec["obs"] = state("state_inside")
            return rec
        st = state("state_inside")
        obs = observe(args, bases, outs, versions)
    rec["obs"] = st + obs
    if mode == "train":
        try:
            with torch.enable_grad():
                loss = loss_of(outs)
                if loss is not None:
                    loss.backward()
        except Exception as e:  # noqa: BLE001
            rec["bwd_error"] = error_record(e)
        g = []
        for i, b in enumerate(bases):
            g.append(("base%d.grad_is_None" % i, b.grad is None))
            if b.grad is not None:
                g.append(("base%d.grad" % i, Tensorval(b.grad)))
        rec["grads"] = state() + g
    return rec


# -- comparing ---------------------------------------------------------------


def tensor_diff(e, c):
    """None, or where two tensors' values differ."""
    if e.shape != c.shape:
        return "shape %s vs %s" % (tuple(c.shape), tuple(e.shape))
    if e.dtype != c.dtype:
        return "dtype %s vs %s" % (c.dtype, e.dtype)
    if e.numel() == 0:
        return None
    if not e.dtype.is_floating_point:
        if torch.equal(e, c):
            return None
        bad = (e != c).nonzero()
    else:
        e64, c64 = e.double(), c.double()
        rtol, atol = _tolerance(e.dtype)
        ok = torch.isclose(c64, e64, rtol=rtol, atol=atol, equal_nan=True)
        if bool(ok.all()):
            return None
        bad = (~ok).nonzero()
    i = tuple(bad[0].tolist())
    return "at %s: compiled %r, eager %r (%d element(s) differ)" % (
        list(i), c[i].item() if c.dim() else c.item(), e[i].item() if e.dim() else e.item(), len(bad))


def value_diff(e, c):
    if isinstance(e, Tensorval) and isinstance(c, Tensorval):
        return tensor_diff(e.t, c.t)
    if isinstance(e, float) and isinstance(c, float):
        if math.isnan(e) and math.isnan(c):
            return None
        rtol, atol = _tolerance(torch.float32)
        if e == c or abs(e - c) <= atol + rtol * abs(e):
            return None
        return "compiled %r, eager %r" % (c, e)
    if type(e) is not type(c) or e != c:
        return "compiled %r, eager %r" % (c, e)
    return None


def compare_obs(eager, comp):
    """[(field, detail)] of every difference, in observation order."""
    diffs = []
    cd = dict(comp)
    for k, v in eager:
        if k not in cd:
            diffs.append((k, "missing in compiled"))
            continue
        d = value_diff(v, cd[k])
        if d is not None:
            diffs.append((k, d))
    ek = dict(eager)
    for k, _ in comp:
        if k not in ek:
            diffs.append((k, "not in eager"))
    return diffs


def classify(eager, comp):
    """(class, [(field, detail)]) of one compiled call against the eager one.
    class: ok, wrong, crash (compiled raised where eager did not), accepted
    (compiled answered where eager raised)."""
    if eager["error"] and not comp["error"]:
        return "accepted", [("error", "eager raised %s; compiled answered" % eager["error"])]
    if comp["error"] and not eager["error"]:
        return "crash", [("error", "compiled raised %s" % comp["error"])]
    diffs = compare_obs(eager["obs"], comp["obs"])
    if diffs:
        return "wrong", diffs
    if eager["error"]:
        return "ok", []
    if eager["bwd_error"] and not comp["bwd_error"]:
        return "accepted", [("backward.error", "eager raised %s; compiled answered" % eager["bwd_error"])]
    if comp["bwd_error"] and not eager["bwd_error"]:
        return "crash", [("backward.error", "compiled raised %s" % comp["bwd_error"])]
    diffs = compare_obs(eager["grads"], comp["grads"])
    return ("wrong", diffs) if diffs else ("ok", [])


# -- a program ----------------------------------------------------------------

BACKENDS = {
    # backend -> [(config label, backend, options, modes it applies to)]
    "aot": [("default", "aot", None, ("infer", "train")),
            ("min-cut", "aot", {"partition": "min-cut"}, ("train",))],
    "aot_eager": [("default", "aot_eager", None, ("infer", "train")),
                  ("min-cut", "aot_eager_decomp_partition", None, ("train",))],
    # Dynamo alone (its graphs run by PyTorch): what fails here is Dynamo's
    "eager": [("default", "eager", None, ("infer", "train"))],
}


def compiled_configs(f, backend, modes, mincut, configs=None):
    """Per configuration of `backend` that runs (min-cut only with
    `mincut`; only those in `configs` when given): (label, `f` compiled
    after a Dynamo reset, the modes it runs in)."""
    for label, be, opts, cmodes in BACKENDS[backend]:
        if label != "default" and not mincut or configs is not None and label not in configs:
            continue
        todo = [m for m in modes if m in cmodes]
        if not todo:
            continue
        torch._dynamo.reset()
        kw = {"options": opts} if opts else {}
        if DYNAMIC:
            kw["dynamic"] = True
        yield label, torch.compile(f, backend=be, fullgraph=False, **kw), todo


def check_program(source, seed, backend="aot", modes=("infer", "train"), ncalls=3, mincut=True,
                  fallback_log=None, stop_at_first=False, configs=None):
    """Runs the program eagerly and compiled; returns a dict: ``class`` (ok /
    wrong / crash / accepted), ``runs`` (one per compiled call: config, mode,
    call, class, diffs), ``eager_errors`` (per mode), ``fallbacks``
    (bucket -> count)."""
    import aot_torch  # noqa: F401  (registers the backend)

    f, make_inputs = load(source, "<fuzz seed %d>" % seed)
    warnings.simplefilter("ignore")
    ref = {m: call(f, make_inputs, m, seed) for m in modes}
    runs = []
    fallbacks = {}
    stats0 = dict(aot_torch.stats)
    for label, cf, todo in compiled_configs(f, backend, modes, mincut, configs):
        for m in todo:
            for k in range(ncalls):
                try:
                    got = call(cf, make_inputs, m, seed)
                except Exception as e:  # noqa: BLE001  (observing failed: a crash of the harness' view)
                    got = {"error": "observing: " + error_record(e), "obs": state(), "bwd_error": None, "grads": []}
                cls, diffs = classify(ref[m], got)
                buckets = []
                if fallback_log is not None:
                    for msg in fallback_log.take():
                        for b in fallback_buckets(msg):
                            fallbacks[b] = fallbacks.get(b, 0) + 1
                            buckets.append(b)
                runs.append({"config": label, "mode": m, "call": k, "class": cls,
                             "diffs": [(f_, str(d)) for f_, d in diffs], "error": got["error"],
                             "bwd_error": got["bwd_error"], "fallbacks": buckets})
                if stop_at_first and cls != "ok":
                    break
            if stop_at_first and runs and runs[-1]["class"] != "ok":
                break
        if stop_at_first and runs and runs[-1]["class"] != "ok":
            break
    torch._dynamo.reset()
    stats1 = dict(aot_torch.stats)
    first = next((r for r in runs if r["class"] != "ok"), None)
    return {
        "seed": seed,
        "class": first["class"] if first else "ok",
        "first": first,
        "runs": runs,
        "eager_errors": {m: ref[m]["error"] for m in modes},
        "eager_bwd_errors": {m: ref[m]["bwd_error"] for m in modes},
        "fallbacks": fallbacks,
        "compiled_regions": stats1.get("compiled", 0) - stats0.get("compiled", 0),
    }


def assert_same(f, make_inputs, seed=0, backend="aot", modes=("infer", "train"), ncalls=3, mincut=True):
    """For regression tests: compiled ``f`` observes as eager ``f`` does, in
    every mode, call and configuration; raises AssertionError listing the
    differences otherwise."""
    import aot_torch  # noqa: F401

    warnings.simplefilter("ignore")
    ref = {m: call(f, make_inputs, m, seed) for m in modes}
    problems = []
    try:
        for label, cf, todo in compiled_configs(f, backend, modes, mincut):
            for m in todo:
                for k in range(ncalls):
                    cls, diffs = classify(ref[m], call(cf, make_inputs, m, seed))
                    if cls != "ok":
                        problems.append("%s/%s call %d: %s: %s" % (
                            label, m, k, cls, "; ".join("%s: %s" % d for d in diffs[:4])))
    finally:
        torch._dynamo.reset()
    assert not problems, "compiled differs from eager:\n  " + "\n  ".join(problems)
