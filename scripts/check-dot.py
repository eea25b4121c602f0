"""Renders the Graphviz picture of every corpus program at every stage.

    python scripts/check-dot.py --aot-opt target/debug/aot-opt [--dot dot] [--jobs N] [DIR...]

Every `.mlir` file under the directories (default: test/run) goes through
`aot-opt --emit=dot` at each stage of STAGES (the input as written, after
the inference pipeline, after the training pipeline with its partition,
and after the codegen pipeline's loops), and through `--emit=dot-partition`
after the training pipeline, and Graphviz's `dot -Tsvg` must
render every picture without an error or a warning. Files go to `aot-opt`
a batch at a time, as chunks of one `--split-input-file` input (a chunk a
stage rejects prints nothing; corpus files that are meant to fail do), and
each batch's pictures to one `dot` process, which renders the graphs of its
input one after another. Exits non-zero on any failure, and when no picture
was rendered.
"""
import argparse
import concurrent.futures
import pathlib
import subprocess
import sys

CODEGEN = "func.func(protect-reads,lower-to-loops,fuse,collapse-loops,plan-memory)"
STAGES = {  # name: (pipeline, --emit kind)
    "input": ("", "dot"),
    "inference": ("builtin.module(aot-inference)", "dot"),
    "train": ("builtin.module(aot-train)", "dot"),
    "loops": ("builtin.module(aot-inference,%s)" % CODEGEN, "dot"),
    "partition": ("builtin.module(aot-train)", "dot-partition"),
}
BATCH = 40


def check(aot_opt, dot, stage, files):
    """(pictures rendered, failure message or None) for one batch."""
    text = "\n// -----\n".join(f.read_text() for f in files)
    pipeline, emit = STAGES[stage]
    cmd = [aot_opt, "-", "--split-input-file", "--emit=" + emit]
    if pipeline:
        cmd.append("--pass-pipeline=" + pipeline)
    out = subprocess.run(cmd, input=text, capture_output=True, text=True).stdout
    n = out.count('digraph "aot" {')
    if n == 0:
        return 0, None
    r = subprocess.run([dot, "-Tsvg", "-o", "/dev/null"], input=out, capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        names = ", ".join(str(f) for f in files)
        return n, "%s: dot failed on a batch of %s:\n%s" % (stage, names, r.stderr.strip()[:2000])
    return n, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aot-opt", required=True)
    ap.add_argument("--dot", default="dot")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("dirs", nargs="*", default=["test/run"])
    args = ap.parse_args()
    files = sorted(p for d in args.dirs for p in pathlib.Path(d).rglob("*.mlir"))
    if not files:
        print("check-dot: no .mlir files under %s" % " ".join(args.dirs), file=sys.stderr)
        return 1
    batches = [(s, files[i:i + BATCH]) for s in STAGES for i in range(0, len(files), BATCH)]
    rendered = {s: 0 for s in STAGES}
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(check, args.aot_opt, args.dot, s, b): s for s, b in batches}
        for fut in concurrent.futures.as_completed(futures):
            n, err = fut.result()
            rendered[futures[fut]] += n
            if err:
                failures.append(err)
    for f in failures:
        print(f, file=sys.stderr)
    total = sum(rendered.values())
    print("dot: %d pictures of %d files rendered (%s)" % (
        total, len(files), ", ".join("%s %d" % kv for kv in rendered.items())))
    if failures or any(n == 0 for n in rendered.values()):
        print("check-dot: FAILED (%d failures; a stage with no picture fails too)" % len(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
