#!/usr/bin/env python3
"""Differential fuzzer of ``torch.compile(f, backend="aot")`` against PyTorch eager.

Generates programs (``gen.py``), runs each in a worker process eagerly and
compiled (``check.py``: inference and training, each compiled function
called twice, the default and the min-cut partition), compares everything a
caller can observe and prints a summary: programs per class (ok / wrong /
crash / accepted / timeout), the first differing field of each failure, and
the backend's fallbacks to PyTorch per reason.

    python fuzz/torch_compile/run.py --seeds 0:200 --jobs 1 [--backend aot|aot_eager]
        [--modes infer,train] [--calls 3] [--no-mincut] [--minimize] [--out DIR]
        [--autocast bf16|f16] [--dynamic]

Workers are reused across programs and restarted after a crash (a signal,
reported as ``crash``) or a timeout. The parent needs only the standard
library; workers run with the same interpreter, which must have torch (and
aot_torch for ``--backend aot``): ``test/.venv/bin/python``.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sibling(name):
    """A module of this folder, imported under a name of its own (``aot_tcfuzz_<name>``),
    so that importing the fuzzer from a test touches neither sys.path nor common names."""
    full = "aot_tcfuzz_" + name
    if full not in sys.modules:
        spec = importlib.util.spec_from_file_location(full, os.path.join(HERE, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[full] = mod
        spec.loader.exec_module(mod)
    return sys.modules[full]


gen = sibling("gen")
field_kind = sibling("report").field_kind
signature = sibling("report").signature

CLASSES = ("ok", "wrong", "crash", "accepted", "timeout", "harness-error")


# -- the worker ---------------------------------------------------------------


def worker_main():
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything printed goes to the worker's log, not the protocol
    sys.stdout = sys.stderr
    import logging
    import traceback

    import torch

    check = sibling("check")
    check.skip_guard_latency_profiling()

    torch._logging.set_logs(dynamo=logging.ERROR, aot=logging.ERROR, inductor=logging.ERROR)
    torch.set_num_threads(1)
    fb = check.FallbackLog().install()
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)
        t0 = time.time()
        try:
            if job.get("kind") == "inputs":
                _, make_inputs = check.load(job["source"])
                args, _ = make_inputs(torch.Generator().manual_seed(job["seed"]))
                res = {"inputs": [{"shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", ""),
                                   "requires_grad": a.requires_grad} for a in args]}
            else:
                fb.take()
                res = check.check_program(job["source"], job["seed"], backend=job["backend"], modes=job["modes"],
                                          ncalls=job["calls"], mincut=job["mincut"], fallback_log=fb,
                                          configs=job.get("configs"))
        except Exception as e:  # noqa: BLE001  (a bug of the harness or the generator)
            res = {"seed": job.get("seed"), "class": "harness-error",
                   "first": {"config": "-", "mode": "-", "call": 0, "class": "harness-error",
                             "diffs": [("harness", "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))]},
                   "traceback": traceback.format_exc()[-3000:], "runs": [], "fallbacks": {}}
        res["time"] = round(time.time() - t0, 2)
        res["tag"] = job.get("tag")
        proto.write(json.dumps(res, default=str) + "\n")


# -- the pool ------------------------------------------------------------------


class Worker:
    def __init__(self, python, logdir, idx):
        self.python = python
        self.logpath = os.path.join(logdir, "worker%d.log" % idx)
        self.proc = None
        self.job = None
        self.deadline = None
        self.start()

    def start(self):
        self.log = open(self.logpath, "w")
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        self.proc = subprocess.Popen([self.python, os.path.abspath(__file__), "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1,
                                     start_new_session=True, env=env)
        self.ready = False
        self.job = None
        self.deadline = time.time() + 300

    def kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        try:
            self.log.close()
        except Exception:  # noqa: BLE001
            pass

    def restart(self):
        self.kill()
        self.start()

    def tail(self, n=1500):
        try:
            with open(self.logpath, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""

    def submit(self, item, timeout):
        """item: (index, job)."""
        self.job = item
        self.deadline = time.time() + timeout
        self.proc.stdin.write(json.dumps(item[1]) + "\n")
        self.proc.stdin.flush()


class Pool:
    """Worker processes, kept across batches of jobs: ``pool.run(jobs)``."""

    def __init__(self, njobs=1, timeout=60.0, python=None, logdir=None):
        self.njobs = max(1, njobs)
        self.timeout = timeout
        self.python = python or sys.executable
        self.logdir = logdir or tempfile.mkdtemp(prefix="tcfuzz-")
        os.makedirs(self.logdir, exist_ok=True)
        self.workers = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for w in self.workers:
            w.kill()
        self.workers = []

    def _died(self, w, job, what, detail, extra=None):
        res = {"seed": job.get("seed"), "class": what, "tag": job.get("tag"),
               "first": {"config": "?", "mode": "?", "call": 0, "class": what, "diffs": [("process", detail)]},
               "runs": [], "fallbacks": {}}
        res.update(extra or {})
        w.restart()
        return res

    def run(self, jobs, progress=None):
        """Runs jobs (dicts for the worker); returns the results in job order."""
        pending = collections.deque(enumerate(jobs))
        results = [None] * len(jobs)
        while len(self.workers) < min(self.njobs, len(jobs)):
            self.workers.append(Worker(self.python, self.logdir, len(self.workers)))
        workers = self.workers
        done = 0
        while done < len(jobs):
            for w in workers:
                if w.ready and w.job is None and pending:
                    w.submit(pending.popleft(), self.timeout)
            busy = [w for w in workers if not w.ready or w.job is not None]
            if not busy:
                break
            wait = max(0.05, min(w.deadline for w in busy) - time.time())
            r, _, _ = select.select([w.proc.stdout for w in busy], [], [], wait)
            for w in busy:
                res = None
                if w.proc.stdout in r:
                    line = w.proc.stdout.readline()
                    if not line:  # the worker died
                        rc = w.proc.wait()
                        if w.job is None:
                            raise RuntimeError("a worker died while starting (rc %s):\n%s" % (rc, w.tail()))
                        i, job = w.job
                        why = ("signal %d" % -rc) if rc < 0 else "exit %d" % rc
                        res = self._died(w, job, "crash", "worker died: %s" % why, {"log_tail": w.tail()})
                    else:
                        msg = json.loads(line)
                        if msg.get("ready"):
                            w.ready = True
                            continue
                        i, job = w.job
                        w.job = None
                        res = msg
                elif time.time() >= w.deadline:
                    if w.job is None:
                        raise RuntimeError("a worker did not start in time:\n%s" % w.tail())
                    i, job = w.job
                    res = self._died(w, job, "timeout", "ran past %gs" % self.timeout)
                if res is not None:
                    results[i] = res
                    done += 1
                    if progress:
                        progress(res)
        return results


def run_jobs(jobs, njobs=1, timeout=60.0, python=None, progress=None, logdir=None):
    """Runs jobs on a fresh pool; returns the results in job order."""
    with Pool(njobs, timeout, python, logdir) as pool:
        return pool.run(jobs, progress)


def make_job(program, backend="aot", modes=("infer", "train"), calls=3, mincut=True, configs=None, tag=None):
    return {"seed": program.seed, "source": program.source(), "backend": backend, "modes": list(modes),
            "calls": calls, "mincut": mincut, "configs": configs, "tag": tag}


def run_seeds(seeds, backend="aot", modes=("infer", "train"), calls=3, mincut=True, njobs=1, timeout=60.0,
              python=None, progress=None, logdir=None):
    """Generates and checks each seed; returns the results (dicts, see check.check_program)."""
    jobs = [make_job(gen.generate(s), backend, modes, calls, mincut) for s in seeds]
    return run_jobs(jobs, njobs, timeout, python, progress, logdir)


# -- reporting -----------------------------------------------------------------


def verdict(res):
    """A short verdict: ``ok``, or class and first differing field."""
    if res["class"] == "ok":
        return "ok"
    return "%s %s" % (res["class"], first_field(res)[0] or "-")


def triage(results, modes, calls, mincut, njobs, timeout, python, logdir, backends):
    """Runs every failing seed with the other backends; stores their verdicts in result["triage"]."""
    bad = [r for r in results if r["class"] not in ("ok", "harness-error")]
    if not bad:
        return
    jobs = []
    for b in backends:
        for r in bad:
            jobs.append(make_job(gen.generate(r["seed"]), b, modes, calls, mincut, tag=b))
    out = run_jobs(jobs, njobs, timeout, python, None, logdir)
    k = 0
    for b in backends:
        for r in bad:
            r.setdefault("triage", {})[b] = verdict(out[k])
            k += 1


def first_field(res):
    r = res.get("first") or {}
    d = r.get("diffs") or []
    return d[0] if d else ("", "")


def describe(res):
    r = res.get("first") or {}
    field, detail = first_field(res)
    where = "%s/%s call %s" % (r.get("config"), r.get("mode"), r.get("call"))
    ndiff = len(r.get("diffs") or [])
    more = " (+%d more field(s))" % (ndiff - 1) if ndiff > 1 else ""
    tri = ""
    if res.get("triage"):
        tri = "  [%s]" % ", ".join("%s: %s" % kv for kv in sorted(res["triage"].items()))
    return "seed %-5s %-9s %-22s %s: %s%s%s" % (res.get("seed"), res["class"], where, field, detail[:160], more, tri)


def summarize(results, out=sys.stdout):
    counts = collections.Counter(r["class"] for r in results)
    both_raised = sum(1 for r in results if r["class"] == "ok" and any((r.get("eager_errors") or {}).values()))
    compiled = sum(1 for r in results if r.get("compiled_regions"))
    print("programs: %d" % len(results), file=out)
    for c in CLASSES:
        extra = ""
        if c == "ok":
            extra = "  (%d where eager raised in some mode and compiled did too)" % both_raised
        print("  %-14s %5d%s" % (c, counts.get(c, 0), extra), file=out)
    if any("compiled_regions" in r for r in results):
        print("programs with at least one region compiled by aot: %d" % compiled, file=out)
    per_run = collections.Counter()
    for r in results:
        for key in {(x["config"], x["mode"], x["class"]) for x in r.get("runs") or [] if x["class"] != "ok"}:
            per_run[key] += 1
    if per_run:
        print("\nprograms with a failing call, per configuration and mode (any call, not only the first failure):",
              file=out)
        for (cfg, m, c), n in sorted(per_run.items()):
            print("  %5d  %-8s %-6s %s" % (n, cfg, m, c), file=out)
    kinds = collections.Counter()
    for r in results:
        if r["class"] not in ("ok",):
            f, _ = first_field(r)
            kinds[(r["class"], (r.get("first") or {}).get("mode"), field_kind(f))] += 1
    if kinds:
        print("\nfailures by first differing field:", file=out)
        for (c, m, f), n in sorted(kinds.items(), key=lambda kv: -kv[1]):
            print("  %5d  %-9s %-6s %s" % (n, c, m, f), file=out)
    tri = [r for r in results if r.get("triage")]
    if tri:
        only = sum(1 for r in tri if all(v == "ok" for v in r["triage"].values()))
        print("\ntriage of %d failures: %d fail with %s only; %s" % (
            len(tri), only, "this backend", ", ".join(
                "%d also fail with %s" % (sum(1 for r in tri if r["triage"].get(b, "ok") != "ok"), b)
                for b in sorted({b for r in tri for b in r["triage"]}))), file=out)
    fb = collections.Counter()
    fbp = collections.Counter()
    for r in results:
        for b, n in (r.get("fallbacks") or {}).items():
            fb[b] += n
            fbp[b] += 1
    if fb:
        print("\nfallbacks to PyTorch (programs, warnings, reason):", file=out)
        for b, n in sorted(fb.items(), key=lambda kv: (-fbp[kv[0]], kv[0])):
            print("  %5d %5d  %s" % (fbp[b], n, b), file=out)
    # The measure: runs (program x configuration x mode, over its
    # repeated calls) in which a region fell back for a reason other than
    # an op without a catalogue counterpart; apart, those of them where
    # eager raises in that mode (the fallback is how eager's error comes).
    runs = collections.defaultdict(list)
    for r in results:
        for x in r.get("runs") or []:
            runs[(r["seed"], x["config"], x["mode"])].append(x.get("fallbacks") or [])
    if runs:
        def other(bs):
            return any(not b.endswith("has no counterpart in the op catalogue") for b in bs)

        raising = {(r["seed"], m) for r in results for key in ("eager_errors", "eager_bwd_errors")
                   for m, e in (r.get(key) or {}).items() if e}
        fell = [k for k, calls in runs.items() if any(other(bs) for bs in calls)]
        valid = [k for k in fell if (k[0], k[2]) not in raising]
        print("\nruns that fell back for a reason other than a missing op: %d of %d (%.1f%%); "
              "of them where eager succeeds: %d (%.1f%%)" % (
                  len(fell), len(runs), 100.0 * len(fell) / len(runs), len(valid),
                  100.0 * len(valid) / len(runs)), file=out)
    eager_errs = collections.Counter()
    for r in results:
        for e in set(v for v in (r.get("eager_errors") or {}).values() if v):
            eager_errs[e.split(":")[0] + ": " + e.split(":", 1)[1].strip()[:70] if ":" in e else e] += 1
    if eager_errs:
        print("\neager errors (programs, the error):", file=out)
        for e, n in eager_errs.most_common(12):
            print("  %5d  %s" % (n, e), file=out)
    bad = [r for r in results if r["class"] != "ok"]
    if bad:
        print("\nfailures:", file=out)
        for r in bad:
            print("  " + describe(r), file=out)


def parse_seeds(s):
    out = []
    for part in s.split(","):
        if ":" in part:
            a, b = part.split(":")
            out.extend(range(int(a), int(b)))
        else:
            out.append(int(part))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0:100", help="A:B (half-open), or a comma-separated list of them and seeds")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--backend", default="aot", choices=["aot", "aot_eager", "eager"],
                    help="aot; aot_eager (PyTorch's AOTAutograd: validates the fuzzer); eager (Dynamo alone)")
    ap.add_argument("--triage", action="store_true",
                    help="run each failing seed again with --backend aot_eager and eager and show their verdicts")
    ap.add_argument("--modes", default="infer,train")
    ap.add_argument("--calls", type=int, default=3, help="calls of each compiled function per mode (the third goes through the native dispatcher where a variant is plain)")
    ap.add_argument("--no-mincut", action="store_true", help="skip the min-cut partition config")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    ap.add_argument("--python", default=None, help="interpreter of the workers (default: this one)")
    ap.add_argument("--minimize", action="store_true", help="minimize one failure per distinct signature")
    ap.add_argument("--minimize-all", action="store_true", help="minimize every failure")
    ap.add_argument("--regress-dir", default=None,
                    help="where --minimize writes test_seed_N.py (default python/tests/fuzz_regressions)")
    ap.add_argument("--out", default=None, help="directory for results.jsonl, summary.txt and failing programs")
    ap.add_argument("--autocast", default="", choices=["", "bf16", "f16"],
                    help="call every function under torch.autocast(\"cpu\", dtype=...) (check.py)")
    ap.add_argument("--dynamic", action="store_true",
                    help="compile with torch.compile(..., dynamic=True): symbolic sizes (check.py)")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker_main()
        return
    # (The workers read it when they import check.py.)
    os.environ["AOT_FUZZ_AUTOCAST"] = a.autocast
    os.environ["AOT_FUZZ_DYNAMIC"] = "1" if a.dynamic else ""
    seeds = parse_seeds(a.seeds)
    modes = tuple(m for m in a.modes.split(",") if m)
    t0 = time.time()

    def progress(res):
        if not a.quiet and res["class"] != "ok":
            print(describe(res), flush=True)

    logdir = os.path.join(a.out, "logs") if a.out else None
    results = run_seeds(seeds, a.backend, modes, a.calls, not a.no_mincut, a.jobs, a.timeout, a.python,
                        progress, logdir)
    if a.triage:
        triage(results, modes, a.calls, not a.no_mincut, a.jobs, a.timeout, a.python, logdir,
               [b for b in ("aot_eager", "eager") if b != a.backend])
    print("\n== %s, seeds %s, modes %s, %.0fs ==" % (a.backend, a.seeds, ",".join(modes), time.time() - t0))
    summarize(results)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "results.jsonl"), "w") as f:
            for r in results:
                f.write(json.dumps(r, default=str) + "\n")
        with open(os.path.join(a.out, "summary.txt"), "w") as f:
            summarize(results, f)
        for r in results:
            if r["class"] != "ok":
                with open(os.path.join(a.out, "seed_%d.py" % r["seed"]), "w") as f:
                    f.write("# %s\n" % describe(r))
                    f.write(gen.generate(r["seed"]).source())
    if a.minimize or a.minimize_all:
        minimize = sibling("minimize")

        regress = a.regress_dir or os.path.join(os.path.dirname(os.path.dirname(HERE)), "python", "tests",
                                                "fuzz_regressions")
        seen = set()
        with Pool(1, a.timeout, a.python) as pool:
            for r in results:
                if r["class"] in ("ok", "harness-error", "timeout"):
                    continue
                sig = signature(r)
                if sig in seen and not a.minimize_all:
                    continue
                seen.add(sig)
                print("\nminimizing seed %d %s" % (r["seed"], sig), flush=True)
                prog, res = minimize.minimize(gen.generate(r["seed"]), r, pool, backend=a.backend, calls=a.calls)
                print(prog.source())
                print("# " + describe(res), flush=True)
                if res["class"] in ("wrong", "crash", "accepted"):
                    print("wrote", minimize.write_regression(prog, res, regress, backend=a.backend))


if __name__ == "__main__":
    sys.modules.setdefault("aot_tcfuzz_run", sys.modules[__name__])
    main()
