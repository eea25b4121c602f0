#!/usr/bin/env python3
"""Delta-debugging of a failing program, and regression tests from the result.

``minimize(program, result, pool)`` drops statements (chunks, then one at a
time; a ``with torch.no_grad():`` block is dropped, unwrapped or emptied
statement by statement), returned values and unused arguments, and
simplifies the arguments (a duplicate or a view becomes a tensor of its
own, a non-leaf a leaf, ``requires_grad`` off) for as long as the program
still fails the same way: same class, mode and kind of first differing
field (and, for a crash or an accepted error, the same exception type). It
checks candidates only in the configuration (default or min-cut partition)
and mode that failed. ``write_regression`` writes the result as a pytest
case, ``python/tests/fuzz_regressions/test_seed_<N>.py``, marked
``xfail(strict=True)`` while it fails.

    python fuzz/torch_compile/minimize.py SEED [--backend aot] [--write]

Standard library only (the pool's workers run torch).
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def _run():
    mod = sys.modules.get("aot_tcfuzz_run")
    if mod is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("aot_tcfuzz_run", os.path.join(HERE, "run.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules["aot_tcfuzz_run"] = mod
        spec.loader.exec_module(mod)
    return mod


def _uses(text, name):
    return re.search(r"(?<![\w.])%s\b" % re.escape(name), text) is not None


def _body_text(d):
    from_gen = _run().gen
    p = from_gen.Program.from_dict(d)
    return "\n".join(from_gen.render_body(p.body, "")) + "\n" + p.return_line()


def _cleanup(d):
    """Drops bases and non-leaves nothing refers to."""
    d = copy.deepcopy(d)
    while True:
        text = " ".join(e for _, e in d["args"]) + " " + " ".join(e for _, e in d["pre"])
        pre = [(n, e) for n, e in d["pre"] if _uses(" ".join(x for _, x in d["args"]), n)]
        bases = [b for b in d["bases"] if _uses(text, b["name"])]
        if len(pre) == len(d["pre"]) and len(bases) == len(d["bases"]):
            return d
        d["pre"], d["bases"] = [list(x) for x in pre], bases


def _stmt_paths(body, prefix=()):
    out = []
    for i, s in enumerate(body):
        out.append(prefix + (i,))
        if "with" in s:
            out.extend(_stmt_paths(s["body"], prefix + (i,)))
    return out


def _get_list(d, path):
    lst = d["body"]
    for i in path[:-1]:
        lst = lst[i]["body"]
    return lst


def _drop_paths(d, paths):
    d = copy.deepcopy(d)
    for p in sorted(paths, reverse=True):
        lst = _get_list(d, p)
        if p[-1] < len(lst):
            del lst[p[-1]]
    return d


class Minimizer:
    def __init__(self, result, pool, backend="aot", calls=2, log=print):
        run = _run()
        self.run = run
        self.gen = run.gen
        self.pool = pool
        self.backend = backend
        self.calls = calls
        self.log = log
        first = result.get("first") or {}
        self.target = run.signature(result)
        self.etype = self._etype(result)
        self.config = first.get("config") if first.get("config") in ("default", "min-cut") else None
        self.mode = first.get("mode") if first.get("mode") in ("infer", "train") else None
        self.tries = 0
        self.last = result

    @staticmethod
    def _etype(result):
        first = result.get("first") or {}
        if first.get("class") in ("crash", "accepted") and first.get("diffs"):
            m = re.search(r"(?:raised|compiled raised) (\w+)", first["diffs"][0][1])
            return m.group(1) if m else None
        return None

    def job(self, d):
        p = self.gen.Program.from_dict(d)
        modes = [self.mode] if self.mode else ["infer", "train"]
        configs = [self.config] if self.config else None
        return self.run.make_job(p, self.backend, modes, self.calls, mincut=True, configs=configs)

    def fails(self, d):
        self.tries += 1
        res = self.pool.run([self.job(d)])[0]
        ok = self.run.signature(res) == self.target and self._etype(res) == self.etype
        if ok:
            self.last = res
        return ok

    def inputs(self, d):
        p = self.gen.Program.from_dict(d)
        res = self.pool.run([{"kind": "inputs", "seed": p.seed, "source": p.source()}])[0]
        return res.get("inputs")

    def attempt(self, d, cand):
        if cand is None or cand == d:
            return d, False
        cand = _cleanup(cand)
        try:
            compile(self.gen.Program.from_dict(cand).source(), "<candidate>", "exec")
        except SyntaxError:
            return d, False
        if self.fails(cand):
            return cand, True
        return d, False

    # passes
    def drop_statements(self, d):
        changed = False
        n = len(d["body"])
        chunk = max(1, n // 2)
        while chunk >= 1:
            i = 0
            while i < len(d["body"]):
                cand = copy.deepcopy(d)
                del cand["body"][i:i + chunk]
                d, ok = self.attempt(d, cand)
                if ok:
                    changed = True
                else:
                    i += chunk
            chunk //= 2
        # inside with blocks: unwrap, then single statements
        for path in reversed(_stmt_paths(d["body"])):
            try:
                lst = _get_list(d, path)
                s = lst[path[-1]]
            except (IndexError, KeyError):
                continue
            if "with" in s:
                cand = copy.deepcopy(d)
                cl = _get_list(cand, path)
                cl[path[-1]:path[-1] + 1] = copy.deepcopy(s["body"])
                d, ok = self.attempt(d, cand)
                changed |= ok
            elif len(path) > 1:
                d, ok = self.attempt(d, _drop_paths(d, [path]))
                changed |= ok
        return d, changed

    def drop_returns(self, d):
        changed = False
        i = 0
        while i < len(d["ret"]):
            cand = copy.deepcopy(d)
            del cand["ret"][i]
            if cand["ret_style"] == "nested" and len(cand["ret"]) < 3:
                cand["ret_style"] = "tuple"
            d, ok = self.attempt(d, cand)
            if ok:
                changed = True
            else:
                i += 1
        if d["ret_style"] != "tuple":
            cand = copy.deepcopy(d)
            cand["ret_style"] = "tuple"
            d, ok = self.attempt(d, cand)
            changed |= ok
        return d, changed

    def drop_args(self, d):
        changed = False
        for k in reversed(range(len(d["args"]))):
            if k >= len(d["args"]):
                continue
            name, expr = d["args"][k]
            if _uses(_body_text(d), name):
                continue
            cand = copy.deepcopy(d)
            del cand["args"][k]
            # another argument defined through this one gets its expression
            cand["args"] = [[n, re.sub(r"(?<![\w.])%s\b" % name, "(%s)" % expr if not re.fullmatch(r"\w+", expr)
                                       else expr, e)] for n, e in cand["args"]]
            d, ok = self.attempt(d, cand)
            changed |= ok
        return d, changed

    def simplify_args(self, d):
        changed = False
        shapes = None
        for k in range(len(d["args"])):
            expr = d["args"][k][1]
            if re.fullmatch(r"b\d+", expr):
                continue
            m = re.fullmatch(r"(b\d+)(?: \* 1|\.clone\(\) \* 1| \+ 0)", expr)
            if m:  # a non-leaf: the leaf itself
                cand = copy.deepcopy(d)
                cand["args"][k][1] = m.group(1)
                d, ok = self.attempt(d, cand)
                if ok:
                    changed = True
                    continue
            if shapes is None:
                shapes = self.inputs(d)
                if not shapes:
                    return d, changed
            info = shapes[k]
            dtype = {"float32": "f32", "float64": "f64"}.get(info["dtype"])
            if dtype is None:
                continue
            rgs = [False, True] if info["requires_grad"] else [False]
            for rg in rgs:
                cand = copy.deepcopy(d)
                used = {b["name"] for b in cand["bases"]}
                j = 0
                while "b%d" % j in used:
                    j += 1
                bn = "b%d" % j
                cand["bases"].append({"name": bn, "shape": info["shape"], "dtype": dtype, "rg": rg})
                # later arguments that were this one (duplicates) keep being it
                cand["args"][k][1] = bn
                d2, ok = self.attempt(d, cand)
                if ok:
                    d = d2
                    changed = True
                    shapes = None
                    break
        for i, b in enumerate(d["bases"]):
            if b.get("rg"):
                cand = copy.deepcopy(d)
                cand["bases"][i]["rg"] = False
                d, ok = self.attempt(d, cand)
                changed |= ok
        return d, changed

    _EDITS = [
        (r", alpha=-?[\d.]+", ""),
        (r", accumulate=True", ""),
        (r", keepdim=True", ""),
        (r"^\w+ = (\w+\.\w+_\(.*\))$", r"\1"),  # an in-place op's result, unbound
    ]

    def simplify_statements(self, d):
        changed = False
        for path in _stmt_paths(d["body"]):
            for pat, rep in self._EDITS:
                try:
                    s = _get_list(d, path)[path[-1]]
                except IndexError:
                    break
                if "src" not in s:
                    break
                new = re.sub(pat, rep, s["src"])
                if new != s["src"]:
                    cand = copy.deepcopy(d)
                    _get_list(cand, path)[path[-1]]["src"] = new
                    d, ok = self.attempt(d, cand)
                    changed |= ok
        return d, changed

    def minimize(self, d):
        d = _cleanup(d)
        for _ in range(4):
            changed = False
            for p in (self.drop_statements, self.drop_returns, self.drop_args, self.simplify_args,
                      self.simplify_statements):
                d, ok = p(d)
                changed |= ok
            if not changed:
                break
        return d


def minimize(program, result, pool, backend="aot", calls=3, log=print):
    """(the smallest program found that fails as ``result`` says, its result)."""
    m = Minimizer(result, pool, backend, calls, log)
    d = program.to_dict()
    d.setdefault("pre", [])
    # the failure must reproduce in the narrowed configuration first
    if not m.fails(d):
        m.config = None
        m.mode = None
        if not m.fails(d):
            log("# seed %s: the failure does not reproduce; not minimized" % program.seed)
            return program, result
    d = m.minimize(d)
    log("# %d candidates tried" % m.tries)
    return m.gen.Program.from_dict(d), m.last


REGRESSION = '''"""fuzz/torch_compile seed {seed}, minimized ({backend}, {where}).
Found as {klass}, first difference {field}: {detail}

Reproduce: test/.venv/bin/python fuzz/torch_compile/run.py --seeds {seed}:{seed1} --backend {backend}
"""

import pytest
import torch

from fuzzcheck import assert_same


{function}

{setup}

@pytest.mark.xfail(strict=True, reason="open: {klass} {field}")
def test_seed_{seed}():
    assert_same(f, make_inputs, seed={seed}, backend="{backend}", modes={modes!r})
'''


def write_regression(program, result, directory, backend="aot"):
    first = result.get("first") or {}
    field, detail = (first.get("diffs") or [("", "")])[0]
    mode = first.get("mode")
    modes = (mode,) if mode in ("infer", "train") else ("infer", "train")
    text = REGRESSION.format(
        seed=program.seed, seed1=program.seed + 1, backend=backend,
        where="%s partition, %s" % (first.get("config"), mode), klass=result["class"], field=field,
        detail=detail.replace('"""', "'''")[:200].rstrip(), function=program.function_source(),
        setup=program.setup_source(), modes=modes)
    os.makedirs(directory, exist_ok=True)
    # another failure of the same seed already there keeps its file
    base = name = "test_seed_%d" % program.seed
    k = 1
    while True:
        mine = text.replace("def %s()" % base, "def %s()" % name, 1)
        path = os.path.join(directory, name + ".py")
        if not os.path.exists(path) or open(path).read() == mine:
            break
        k += 1
        name = "%s_%d" % (base, k)
    text = mine
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--backend", default="aot", choices=["aot", "aot_eager", "eager"])
    ap.add_argument("--calls", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--python", default=None)
    ap.add_argument("--write", action="store_true", help="write python/tests/fuzz_regressions/test_seed_N.py")
    ap.add_argument("--regress-dir", default=os.path.join(ROOT, "python", "tests", "fuzz_regressions"))
    a = ap.parse_args()
    run = _run()
    prog = run.gen.generate(a.seed)
    with run.Pool(1, a.timeout, a.python) as pool:
        res = pool.run([run.make_job(prog, a.backend, calls=a.calls)])[0]
        print("# " + run.describe(res))
        if res["class"] == "ok":
            return
        small, sres = minimize(prog, res, pool, a.backend, a.calls)
    print(small.source())
    print("# " + run.describe(sres))
    if a.write and sres["class"] in ("wrong", "crash", "accepted"):
        print("wrote", write_regression(small, sres, a.regress_dir, a.backend))


if __name__ == "__main__":
    main()
