"""Where the time of aot-compiled code goes: per compiled region and per
kernel, with each kernel's flops and bytes against the machine's
roofline, next to eager PyTorch running the same graphs.

    with aot_torch.profiler.profile() as prof:
        for _ in range(10):
            step()                       # calls of torch.compile(..., backend="aot") code
    print(prof.table())

While the block runs, every compiled region times its calls (the wall time
of a forward, from the binding of its arguments to its outputs, and of a
backward), aot's runtime times each step of their programs (kernels,
GEMMs), and each region keeps copies of its first call's arguments. On
exit:

- ``prof.kernels``: one :class:`KernelRow` per step that ran (region,
  program, what it is, runs, seconds, and per run its flops and the bytes
  it moves, each operand element counted once), with its distance from
  the roofline: the time it would take at the machine's peak FMA rate or
  memory bandwidth, whichever bounds it (``machine_peaks``: a 1024³
  ``torch.mm`` and a 64 MiB copy, or the ``peaks`` given), and the time
  lost against it. Small kernels whose operands stay in cache may beat the
  memory roof (their efficiency is then above 1).
- ``prof.regions``: one :class:`RegionRow` per region and program: calls,
  wall time, time inside kernels and GEMMs, time of the runtime's own
  work around them (binding arguments, allocating and copying results;
  the rest of the wall time is guards, conversion to and from torch
  tensors and Python),
  and eager's time for the same graph: the graph Dynamo handed over (or
  the part of it the region was traced from) run by PyTorch on copies of
  the captured arguments, its backward on gradients of ones (with
  ``eager=True``, the default).
- ``prof.eager_ops``: eager's ATen ops of those runs by self time
  (``torch.profiler``).

The eager runs use copies: they neither touch the model's parameters and
buffers nor draw from PyTorch's generator (its state is restored)."""

from __future__ import annotations

import collections
import dataclasses
import time
from typing import Any, Dict, List, Optional, Tuple

import torch

from . import _native, backend

_PEAKS: Optional[Tuple[float, float]] = None


def machine_peaks() -> Tuple[float, float]:
    """(flops per second, bytes per second) this process reaches: the best
    of five 1024³ float32 ``torch.mm`` and of five copies of 64 MiB, on
    PyTorch's threads. Measured once per process."""
    global _PEAKS
    if _PEAKS is None:
        def best(f, n=5):
            f()
            ts = []
            for _ in range(n):
                t0 = time.perf_counter()
                f()
                ts.append(time.perf_counter() - t0)
            return min(ts)
        with torch.no_grad():
            g = torch.Generator().manual_seed(0)
            a, b = torch.randn(1024, 1024, generator=g), torch.randn(1024, 1024, generator=g)
            c = torch.empty(1024, 1024)
            flops = 2 * 1024 ** 3 / best(lambda: torch.mm(a, b, out=c))
            x, y = torch.ones(1 << 24), torch.empty(1 << 24)
            bw = 2 * x.numel() * x.element_size() / best(lambda: y.copy_(x))
        _PEAKS = (flops, bw)
    return _PEAKS


@dataclasses.dataclass
class KernelRow:
    """One step of a compiled program while profiling."""
    region: str
    program: str  # "forward" or "backward"
    what: str
    kind: str  # "kernel", "matmul", "rebind", "resize"
    runs: int
    seconds: float
    flops: int  # per run
    bytes: int  # per run
    # The time a run would take at the peak FMA rate or memory bandwidth.
    ideal: float = 0.0

    @property
    def per_run(self) -> float:
        return self.seconds / self.runs if self.runs else 0.0

    @property
    def lost(self) -> float:
        """Seconds lost against the roofline over all runs."""
        return max(0.0, self.seconds - self.ideal * self.runs)

    @property
    def efficiency(self) -> float:
        """The ideal time over the measured one (1 is on the roofline)."""
        return self.ideal / self.per_run if self.per_run > 0 else 0.0

    @property
    def bound(self) -> str:
        if not self.flops and not self.bytes:
            return "-"
        return "compute" if self._compute_bound else "memory"

    _compute_bound: bool = False


@dataclasses.dataclass
class RegionRow:
    """One compiled region's forward or backward while profiling."""
    region: str
    program: str
    calls: int
    wall: float  # seconds over all calls, binding and Python included
    kernels: float  # seconds inside the program's steps (kernels, GEMMs)
    runtime: float = 0.0  # seconds of the runtime's own work around them (binding, copies)
    eager: Optional[float] = None  # seconds per call of the same graph in eager PyTorch
    eager_error: str = ""


def _copy(a):
    if not isinstance(a, torch.Tensor):
        return a
    c = torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device=a.device)
    with torch.no_grad():
        c.copy_(a)
    return c.requires_grad_(a.requires_grad) if a.is_floating_point() or a.is_complex() else c


class Profile:
    """A profiling session: see the module's documentation. Use it through
    :func:`profile`."""

    def __init__(self, eager: bool = True, eager_runs: int = 3, peaks: Optional[Tuple[float, float]] = None):
        self.eager_runs = max(1, eager_runs)
        self.want_eager = eager
        self.peaks = peaks
        self.kernels: List[KernelRow] = []
        self.regions: List[RegionRow] = []
        self.eager_ops: List[Tuple[str, float, int]] = []  # (op, seconds per call, count per call)
        self._wall: Dict[Tuple[int, str], List[float]] = collections.defaultdict(lambda: [0, 0.0])
        self._captured: Dict[Any, Tuple[list, bool, bool]] = {}
        self._was = False

    # -- called by the backend while the session runs -------------------

    def capture(self, region, variant, args):
        if region not in self._captured:
            self._captured[region] = ([_copy(a) for a in args], torch.is_grad_enabled(), variant.training)

    def record(self, variant, program: str, seconds: float):
        e = self._wall[(id(variant), program)]
        e[0] += 1
        e[1] += seconds

    # -- the session ------------------------------------------------------

    def __enter__(self):
        if backend._profiler is not None:
            raise RuntimeError("aot_torch.profiler: a profile is already being taken")
        for r in list(backend._regions):
            for v in r.variants.values():
                if v:
                    v.fn.reset_profile()
        self._was = _native.set_profiling(True)
        backend._profiler = self
        return self

    def __exit__(self, *exc):
        backend._profiler = None
        _native.set_profiling(self._was)
        self._collect()
        if self.want_eager and exc[0] is None:
            self._eager()
        return False

    def _collect(self):
        peak_f, peak_b = self.peaks or machine_peaks()
        regions = collections.OrderedDict()
        for r in sorted(backend._regions, key=lambda r: r.region_name):
            for v in r.variants.values():
                if not v:
                    continue
                for row in v.fn.profile():
                    if row["runs"] == 0:
                        continue
                    k = KernelRow(r.region_name, row["program"], row["what"], row["kind"], row["runs"],
                                  row["seconds"], row["flops"], row["bytes"])
                    t_f, t_b = k.flops / peak_f, k.bytes / peak_b
                    k.ideal, k._compute_bound = max(t_f, t_b), t_f > t_b
                    self.kernels.append(k)
                    key = (r, row["program"])
                    regions.setdefault(key, [0, 0.0, 0.0, 0.0])[3 if k.kind == "runtime" else 2] += row["seconds"]
                for program in ("forward", "backward"):
                    calls, wall = self._wall.get((id(v), program), (0, 0.0))
                    if calls:
                        e = regions.setdefault((r, program), [0, 0.0, 0.0, 0.0])
                        e[0] += calls
                        e[1] += wall
        self.regions = [RegionRow(r.region_name, program, calls, wall, ks, rt)
                        for (r, program), (calls, wall, ks, rt) in regions.items() if calls]
        self._region_objects = {(r.region_name, program): r for (r, program) in regions}

    def _eager(self):
        rows = {(x.region, x.program): x for x in self.regions}
        ops: Dict[str, List[float]] = collections.defaultdict(lambda: [0.0, 0])
        rng = torch.random.get_rng_state()
        grad = torch.is_grad_enabled()
        total_calls = 0
        try:
            for region, (args, grad_mode, training) in self._captured.items():
                fwd, bwd = rows.get((region.region_name, "forward")), rows.get((region.region_name, "backward"))
                try:
                    times, prof = self._time_eager(region, args, grad_mode, training and bwd is not None)
                except Exception as e:  # eager's own error (e.g. a leaf written in place): no figure
                    for row in (fwd, bwd):
                        if row is not None:
                            row.eager_error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:120])
                    continue
                if fwd is not None:
                    fwd.eager = times[0]
                if bwd is not None and times[1] is not None:
                    bwd.eager = times[1]
                # Weigh each region's ops by how often the region ran.
                calls = fwd.calls if fwd is not None else 1
                total_calls = max(total_calls, calls)
                for evt in prof.key_averages():
                    if evt.key.startswith("aten::"):
                        ops[evt.key][0] += evt.self_cpu_time_total * 1e-6 / self.eager_runs * calls
                        ops[evt.key][1] += evt.count / self.eager_runs * calls
        finally:
            torch.random.set_rng_state(rng)
            torch._C._set_grad_enabled(grad)
        n = max(total_calls, 1)
        self.eager_ops = sorted(((k, s / n, int(round(c / n))) for k, (s, c) in ops.items()), key=lambda x: -x[1])

    def _time_eager(self, region, args, grad_mode, backward):
        """Seconds per call of the region's graph in eager PyTorch (forward,
        backward or None), and a torch.profiler run of it."""
        leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]

        def once():
            torch._C._set_grad_enabled(grad_mode)
            t0 = time.perf_counter()
            outs = region.original(*args)
            t1 = time.perf_counter()
            tb = None
            if backward:
                outs = outs if isinstance(outs, (tuple, list)) else (outs,)
                diff = [o for o in outs if isinstance(o, torch.Tensor) and o.requires_grad]
                if diff:
                    torch.autograd.backward(diff, [torch.ones_like(o) for o in diff])
                tb = time.perf_counter() - t1
                for a in leaves:
                    a.grad = None
            return t1 - t0, tb

        once()
        runs = [once() for _ in range(self.eager_runs)]
        fwd = sorted(r[0] for r in runs)[len(runs) // 2]
        bwd = sorted(r[1] for r in runs)[len(runs) // 2] if backward else None
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            for _ in range(self.eager_runs):
                once()
        return (fwd, bwd), prof

    # -- reports ----------------------------------------------------------

    def slowest(self, n: int = 10) -> List[KernelRow]:
        """The `n` steps that lose the most time against the roofline."""
        return sorted(self.kernels, key=lambda k: -k.lost)[:n]

    def table(self, top: int = 15) -> str:
        peak_f, peak_b = self.peaks or machine_peaks()
        calls = max((r.calls for r in self.regions), default=0)
        out = ["aot profile: %d region(s), %d step(s); roofline %.1f GFLOP/s, %.1f GB/s, %d thread(s)" % (
            len({r.region for r in self.regions}), len(self.kernels), peak_f / 1e9, peak_b / 1e9,
            torch.get_num_threads())]
        out.append("")
        out.append("%-28s %-8s %6s %11s %11s %11s %11s %9s" % ("region", "program", "calls", "wall ms", "kernels ms",
                                                               "runtime ms", "eager ms", "aot/eager"))
        for r in self.regions:
            per = lambda s: s / r.calls * 1e3  # noqa: E731
            eager = "%11.3f" % (r.eager * 1e3) if r.eager is not None else "%11s" % ("error" if r.eager_error
                                                                                      else "-")
            ratio = "%9.2f" % (r.eager / (r.wall / r.calls)) if r.eager and r.wall else "%9s" % "-"
            out.append("%-28s %-8s %6d %11.3f %11.3f %11.3f %s %s" % (
                r.region[:28], r.program, r.calls, per(r.wall), per(r.kernels), per(r.runtime), eager, ratio))
        out.append("(ms per call: wall from the region's call to its return; kernels: the program's steps; runtime:")
        out.append("aot's binding, allocation and result copies around them; aot/eager above 1: aot is faster)")
        out.append("")
        out.append("Steps furthest from the roofline (time lost per call against max(flops/peak, bytes/bandwidth)):")
        out.append("%8s %8s %8s %8s %7s %-7s  %s" % ("lost ms", "ms", "GFLOP/s", "GB/s", "roof %", "bound",
                                                   "region / program: step"))
        per_call = max(calls, 1)
        for k in self.slowest(top):
            gf = k.flops / k.per_run / 1e9 if k.per_run else 0.0
            gb = k.bytes / k.per_run / 1e9 if k.per_run else 0.0
            out.append("%8.3f %8.3f %8.2f %8.2f %7.1f %-7s  %s / %s: %s" % (
                k.lost / per_call * 1e3, k.seconds / per_call * 1e3, gf, gb, 100 * k.efficiency, k.bound,
                k.region, k.program, k.what))
        if self.eager_ops:
            out.append("")
            out.append("Eager ATen ops of the same graphs (self time per call):")
            out.append("%8s %6s  %s" % ("ms", "calls", "op"))
            for name, s, c in self.eager_ops[:top]:
                out.append("%8.3f %6d  %s" % (s * 1e3, c, name))
        return "\n".join(out)

    def to_dict(self) -> dict:
        return {
            "peaks": {"flops_per_s": (self.peaks or machine_peaks())[0],
                      "bytes_per_s": (self.peaks or machine_peaks())[1]},
            "regions": [dataclasses.asdict(r) for r in self.regions],
            "kernels": [dict(dataclasses.asdict(k), lost=k.lost, efficiency=k.efficiency, bound=k.bound)
                        for k in self.kernels],
            "eager_ops": [{"op": o, "seconds": s, "calls": c} for o, s, c in self.eager_ops],
        }


def profile(eager: bool = True, eager_runs: int = 3, peaks: Optional[Tuple[float, float]] = None) -> Profile:
    """A context manager that profiles the aot-compiled code run inside it
    (see the module's documentation). `eager`: also time the same graphs
    in eager PyTorch on exit (`eager_runs` times each). `peaks`: the
    roofline's (flops per second, bytes per second); measured when not
    given."""
    return Profile(eager=eager, eager_runs=eager_runs, peaks=peaks)
