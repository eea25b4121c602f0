#!/usr/bin/env python3
"""Generate (or check) the PyTorch goldens of the `test/run/` corpus.

For every case `test/run/<group>/<name>.mlir` with `<name>.inputs.json` (and an
optional `<name>.tangents.json`) this runs the entry function with PyTorch
eager semantics (torch_ref.py) and writes `<name>.golden.json`, exactly in
`aot-run`'s output format.

Comment conventions in a case's leading `//` lines:
  // golden: skip (reason) the case has no golden (first line; say why)
  // golden: expect-error  PyTorch is expected to raise: the golden is {"error": ...};
                           an error golden without this line (or this line
                           without an error) is reported as a corpus mistake.

Usage (needs torch; see README.md):
  gen.py [FILTER...]          regenerate the cases whose path contains a FILTER
  gen.py --check [FILTER...]  regenerate in memory, report differences, write nothing
"""

import argparse
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import torch  # noqa: E402

import torch_ref  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
RUN_DIR = os.path.join(REPO, "test", "run")


def cases(filters):
    found = []
    for root, dirs, files in os.walk(RUN_DIR):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".mlir"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, REPO)
            if filters and not any(flt in rel or os.path.abspath(flt) == path for flt in filters):
                continue
            found.append(path)
    return found


def leading_comments(src):
    out = []
    for line in src.splitlines():
        s = line.strip()
        if not s:
            continue
        if not s.startswith("//"):
            break
        out.append(s)
    return out


def generate(path):
    """Return (golden text or None if skipped, problem message or None)."""
    with open(path) as fh:
        src = fh.read()
    comments = leading_comments(src)
    if comments and comments[0].replace(" ", "").startswith("//golden:skip"):
        return None, None
    expect_error = any(c.replace(" ", "") == "//golden:expect-error" for c in comments)
    stem = path[: -len(".mlir")]
    inputs_path = stem + ".inputs.json"
    if not os.path.exists(inputs_path):
        return None, "missing %s" % os.path.basename(inputs_path)
    with open(inputs_path) as fh:
        inputs = json.load(fh)
    tangents = None
    if os.path.exists(stem + ".tangents.json"):
        with open(stem + ".tangents.json") as fh:
            tangents = json.load(fh)
    result = torch_ref.run(src, inputs, tangents)
    if "error" in result and not expect_error:
        return None, "PyTorch raised but the case lacks `// golden: expect-error`: %s" % result["error"]
    if "error" not in result and expect_error:
        return None, "`// golden: expect-error` but PyTorch ran without error"
    return torch_ref.dumps(result) + "\n", None


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate the goldens of test/run/ with PyTorch.")
    ap.add_argument("filters", nargs="*", help="only cases whose path contains one of these")
    ap.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    ap.add_argument("-v", "--verbose", action="store_true")
    ns = ap.parse_args(argv)
    torch.set_num_threads(1)

    paths = cases(ns.filters)
    if not paths:
        print("no cases match", file=sys.stderr)
        return 1
    written = same = skipped = errors = 0
    differ = []
    problems = []
    for path in paths:
        rel = os.path.relpath(path, REPO)
        try:
            text, problem = generate(path)
        except torch_ref.CorpusError as e:
            text, problem = None, "corpus error: %s" % e
        except Exception:  # a bug in the generator or the case: report and go on
            text, problem = None, "crash:\n" + traceback.format_exc()
        if problem:
            problems.append((rel, problem))
            continue
        if text is None:
            skipped += 1
            continue
        if '"error"' in text.split("\n", 2)[1]:
            errors += 1
        golden = path[: -len(".mlir")] + ".golden.json"
        old = None
        if os.path.exists(golden):
            with open(golden) as fh:
                old = fh.read()
        if old == text:
            same += 1
            continue
        if ns.check:
            differ.append(rel)
            continue
        with open(golden, "w") as fh:
            fh.write(text)
        written += 1
        if ns.verbose:
            print("wrote", os.path.relpath(golden, REPO))

    if not ns.filters:
        for root, _, files in os.walk(RUN_DIR):
            for f in sorted(files):
                if f.endswith(".golden.json") and not os.path.exists(os.path.join(root, f[: -len(".golden.json")] + ".mlir")):
                    problems.append((os.path.relpath(os.path.join(root, f), REPO), "golden without a case (delete it)"))

    for rel, problem in problems:
        print("FAIL %s: %s" % (rel, problem), file=sys.stderr)
    for rel in differ:
        print("DIFF %s: golden is missing or out of date" % rel, file=sys.stderr)
    total = len(paths)
    print("%d cases: %d unchanged, %d %s, %d skipped, %d error goldens, %d problems"
          % (total, same, len(differ) if ns.check else written,
             "differ" if ns.check else "written", skipped, errors, len(problems)))
    return 1 if problems or differ else 0


if __name__ == "__main__":
    sys.exit(main())
