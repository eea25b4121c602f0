"""A bounded, fixed-seed slice of the torch.compile differential fuzzer
(``fuzz/torch_compile``, docs/torch-compile-fuzzing.md): each seed's random
program runs eagerly and under ``torch.compile(f, backend="aot")`` (inference
and training, default and min-cut partitions, three calls per compiled
function) in a worker process, and everything a caller can observe is
compared.

Green today, red on a regression: no wrong answer, crash, accepted error or
timeout except the seeds listed in ``KNOWN_FAILURES`` with their class and
first differing field. Fixing a bug in the backend makes seeds leave the list
(shrink it then; the test prints the known seeds that pass now).
"""

import importlib.util
import os
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("aot_torch")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "fuzz", "torch_compile", "run.py")

#: About a minute on one core, in chunks that pytest-xdist spreads over the
#: workers.
SEEDS = range(0, 50)
CHUNK = 25

#: seed -> "class first-differing-field" of the failures the slice shows today
#: (aot_torch as installed on 2026-11-29 03:43, commit 0d5ed37). Minimized
#: programs of the fuzzer's failures are in python/tests/fuzz_regressions/ and
#: docs/torch-compile-fuzzing.md.
KNOWN_FAILURES = {
    # Dynamo's own: with backend="eager" too, InternalTorchDynamoError "A view was
    # created in no_grad mode and its base ... has been modified inplace" at the
    # graph break (the docs' upstream list).
    46: "crash error",
}


def _runner():
    name = "aot_tcfuzz_run"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, RUNNER)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


@pytest.mark.heavy
@pytest.mark.parametrize("first", range(SEEDS.start, SEEDS.stop, CHUNK))
def test_torch_compile_fuzz_slice(first):
    seeds = range(first, min(first + CHUNK, SEEDS.stop))
    run = _runner()
    results = run.run_seeds(seeds, backend="aot", njobs=1, timeout=180.0)
    assert len(results) == len(seeds)
    report = "\n".join(run.describe(r) for r in results if r["class"] != "ok")
    # The slice ran programs: compiled calls were compared, and aot compiled regions.
    calls = sum(len(r.get("runs") or []) for r in results)
    assert calls >= 4 * len(seeds), "too few compiled calls ran (%d):\n%s" % (calls, report)
    assert sum(r.get("compiled_regions", 0) for r in results) > 0, "aot compiled nothing"
    answered = [r for r in results if r["class"] == "ok" and not any((r.get("eager_errors") or {}).values())]
    assert len(answered) >= len(seeds) // 4, "too few programs ran without an error"
    changed = []
    for r in results:
        if r["class"] == "ok":
            continue
        known = KNOWN_FAILURES.get(r["seed"])
        if known is None or known.split()[0] != r["class"]:
            changed.append("%s   (known: %s)" % (run.describe(r), known))
    assert not changed, "failures not in KNOWN_FAILURES (or of another class now):\n" + "\n".join(changed)
    fixed = sorted(set(KNOWN_FAILURES).intersection(seeds) - {r["seed"] for r in results if r["class"] != "ok"})
    if fixed:
        print("KNOWN_FAILURES seeds that pass now (remove them from the list): %s" % fixed)
