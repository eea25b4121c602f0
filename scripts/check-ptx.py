"""Validates the PTX of every kernel of the test corpus with ptxas.

    python scripts/check-ptx.py --aot-opt target/debug/aot-opt --ptxas PTXAS [--libdevice BC] [DIR...]

Every `.mlir` file under the directories (default: test/run) is compiled
with the inference and the training pipeline, printing both architectures
(`--gpu-arch=sm_80,sm_90`); `aot-opt` takes the files a few at a time, as
chunks of one `--split-input-file` input (its start-up, a dynamic link of
LLVM and MLIR, cost about a third of a process per file); a file whose
chunk failed (it prints nothing, in its place between the separators)
goes through again in a process of its own, to tell why. Where Cranelift compiles a
file (`--emit=clif`; some corpus files are meant to fail), `--emit=ptx`
must succeed too, for sm_80 and sm_90, and ptxas must accept every module
it prints. With `--libdevice` (CUDA's libdevice.10.bc, linked in through
`AOT_LIBDEVICE`) every module must be complete: no external function left,
assembled and linked as a whole; without it, calls into libdevice stay
external and modules are assembled as relocatable code (`ptxas -c`).
Modules with equal text (files share kernels) are assembled once. With
`--cache DIR`, a module ptxas accepted is remembered there by a hash of the
ptxas binary, the architecture, the mode and the text (ccache's rule: the
same input to the same assembler gives the same verdict), so a re-run with
nothing changed assembles nothing; a rejection is never cached. The same
directory remembers what `aot-opt` emitted, by a hash of the `aot-opt`
binary, of libdevice, of the pipeline and of the file's text: a re-run with
the same binary and corpus starts no `aot-opt` either, and still checks
every module it emitted before against the verdicts. A failed emission is
never cached. A file with a line `// PTX refuses: MESSAGE` must fail to emit
PTX with that message (a limit of the GPU path, stated where it applies;
the line goes once the file compiles).
Exits non-zero on any failure, and when nothing was checked.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading

PIPELINES = ["builtin.module(aot-inference)", "builtin.module(aot-train)"]
ARCHS = ["sm_80", "sm_90"]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def modules(text):
    """The PTX modules of `--emit=ptx` output (one per function)."""
    out, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.startswith("// function @") and cur:
            out.append("".join(cur))
            cur = []
        cur.append(line)
    if cur:
        out.append("".join(cur))
    return [m for m in out if ".entry" in m or ".version" in m]


# Files per `aot-opt` process, and the line between them (`--split-input-file`).
BATCH = 8
SEPARATOR = "// -----"


def reuse(args, path, pipeline):
    """The modules emitted for the file and pipeline before, or None."""
    known = emission_path(args, path, pipeline)
    if known is None or not os.path.exists(known):
        return None
    with open(known) as f:
        saved = json.load(f)
    return [(label, arch, m) for label, arch, m in saved]


def remember(args, path, pipeline, out):
    known = emission_path(args, path, pipeline)
    if known is None:
        return
    os.makedirs(os.path.dirname(known), exist_ok=True)
    tmp = f"{known}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "w") as f:
        json.dump(out, f)
    os.replace(tmp, known)


def emit_batch(args, paths, pipeline):
    """(modules, failures) for files of one pipeline: `modules` is a list
    of (label, arch, PTX text), one per kernel module of each arch."""
    texts = [pathlib.Path(p).read_text() for p in paths]
    # Per file, what its chunk of one `aot-opt` run emitted. A file missing
    # here goes through a process of its own: its chunk failed (it printed
    # nothing, in its place between the separators), the batch's output did
    # not have one chunk per file, or a file has a separator of its own.
    emitted = {}
    if len(paths) > 1 and not any(SEPARATOR in t.splitlines() for t in texts):
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write(f"\n{SEPARATOR}\n".join(texts))
            f.flush()
            r = run_aot_opt(args, [f.name, "--split-input-file", f"--pass-pipeline={pipeline}"])
        chunks = [""]
        for line in r.stdout.splitlines(keepends=True):
            if line.rstrip("\n") == SEPARATOR:
                chunks.append("")
            else:
                chunks[-1] += line
        if len(chunks) == len(paths):
            emitted = {p: c for p, c in zip(paths, chunks) if c or r.returncode == 0}
    out, failures = [], []
    for path in paths:
        if path in emitted:
            ms, fs = parse_emission(args, path, pipeline, emitted[path])
        else:
            ms, fs = emit_now(args, path, pipeline)
        out.extend(ms)
        failures.extend(fs)
        if not fs:
            remember(args, path, pipeline, ms)
    return out, failures


def run_aot_opt(args, argv):
    env = dict(os.environ, AOT_LIBDEVICE=args.libdevice or "")
    # One process for every architecture: the pipelines run once, and each
    # architecture's PTX follows a `// gpu-arch NAME` line.
    return subprocess.run(
        [args.aot_opt, *argv, "--emit=ptx", "--gpu-arch=" + ",".join(ARCHS)], capture_output=True, text=True, env=env
    )


def emission_path(args, path, pipeline):
    if not args.cache:
        return None
    text = pathlib.Path(path).read_bytes()
    h = hashlib.sha256()
    for part in [args.aot_opt_digest, args.libdevice_digest, pipeline, str(path)]:
        h.update(part.encode() + b"\0")
    h.update(text)
    d = h.hexdigest()
    return os.path.join(args.cache, "emitted", d[:2], d[2:])


def emit_now(args, path, pipeline):
    """emit_batch for one file, in a process of its own."""
    r = run_aot_opt(args, [str(path), f"--pass-pipeline={pipeline}"])
    # A file Cranelift does not compile either is meant to fail (the corpus
    # has such cases); asked only when PTX failed, the common case costs
    # one process.
    label = f"{path} [{pipeline}, {', '.join(ARCHS)}]"
    refusal = expected_refusal(path)
    if r.returncode != 0:
        if refusal is not None and refusal in r.stderr:
            return [], []
        if run([args.aot_opt, str(path), f"--pass-pipeline={pipeline}", "--emit=clif"]).returncode != 0:
            return [], []
        return [], [f"{label}: --emit=ptx failed:\n{r.stderr.strip()}"]
    if refusal is not None:
        return [], [f"{label}: --emit=ptx succeeded, but the file says PTX refuses it ('{REFUSES}{refusal}')"]
    return parse_emission(args, path, pipeline, r.stdout)


# A line of a corpus file saying PTX refuses it, and with what message: what
# the GPU compiles otherwise (code per size, for instance). Its emission must
# fail with that message, and a file that starts compiling must lose the line.
REFUSES = "// PTX refuses: "


def expected_refusal(path):
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith(REFUSES):
            return line[len(REFUSES):].strip()
    return None


def parse_emission(args, path, pipeline, stdout):
    """(modules, failures) of one file's `--emit=ptx` output."""
    per_arch, arch = {}, None
    for line in stdout.splitlines(keepends=True):
        if line.startswith("// gpu-arch "):
            arch = line.split()[2]
            per_arch[arch] = []
        elif arch is not None:
            per_arch[arch].append(line)
    failures, out = [], []
    if sorted(per_arch) != sorted(ARCHS):
        return [], [f"{path} [{pipeline}]: --emit=ptx printed the architectures {sorted(per_arch)}, not {ARCHS}"]
    for arch in ARCHS:
        for k, m in enumerate(modules("".join(per_arch[arch]))):
            label = f"{path} [{pipeline}, {arch}, module {k}]"
            if args.libdevice and ".extern .func" in m:
                failures.append(f"{label}: an external call is left after linking libdevice")
            out.append((label, arch, m))
    return out, failures


def tool_digest(path):
    """A digest of a binary (ptxas's version lives in it; aot-opt's code
    is what it emits)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_path(args, arch, text):
    if not args.cache:
        return None
    key = hashlib.sha256("\0".join([args.ptxas_digest, arch, str(bool(args.libdevice)), text]).encode())
    d = key.hexdigest()
    return os.path.join(args.cache, d[:2], d[2:])


def assemble(args, arch, text):
    """ptxas's complaint about one module, or None when it assembles."""
    known = cache_path(args, arch, text)
    if known is not None and os.path.exists(known):
        return None
    relocatable = [] if args.libdevice else ["-c"]
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(text)
        p = run([args.ptxas, f"-arch={arch}", *relocatable, src, "-o", os.path.join(d, "k.o")])
    if p.returncode != 0:
        return p.stderr.strip()
    if known is not None:
        os.makedirs(os.path.dirname(known), exist_ok=True)
        with open(known, "w") as f:
            f.write("ok\n")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aot-opt", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--libdevice", help="CUDA's libdevice.10.bc: link it in and check complete modules")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cache", help="a directory remembering the modules ptxas accepted")
    ap.add_argument("dirs", nargs="*", default=["test/run"])
    args = ap.parse_args()
    args.ptxas_digest = tool_digest(args.ptxas) if args.cache else ""
    args.aot_opt_digest = tool_digest(args.aot_opt) if args.cache else ""
    args.libdevice_digest = tool_digest(args.libdevice) if args.cache and args.libdevice else ""
    files = sorted(p for d in args.dirs for p in pathlib.Path(d).rglob("*.mlir"))
    jobs = [(f, p) for f in files for p in PIPELINES]
    found, failures, reused = [], [], 0
    todo = {p: [] for p in PIPELINES}
    for f, p in jobs:
        saved = reuse(args, f, p)
        if saved is None:
            todo[p].append(f)
        else:
            found.extend(saved)
            reused += 1
    batches = [(p, fs[i : i + BATCH]) for p, fs in todo.items() for i in range(0, len(fs), BATCH)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for ms, fs in ex.map(lambda b: emit_batch(args, b[1], b[0]), batches):
            found.extend(ms)
            failures.extend(fs)
        # Many files share kernels, and ptxas is a pure function of the
        # text and the architecture: each distinct module is assembled
        # once, and its verdict holds for every module with that text.
        distinct = sorted({(arch, m) for _, arch, m in found})
        cached = sum(1 for arch, m in distinct if (c := cache_path(args, arch, m)) and os.path.exists(c))
        verdicts = dict(zip(distinct, ex.map(lambda am: assemble(args, *am), distinct)))
    for label, arch, m in found:
        if verdicts[(arch, m)] is not None:
            failures.append(f"{label}: ptxas:\n{verdicts[(arch, m)]}")
    for f in failures:
        print(f, file=sys.stderr)
    how = "complete, libdevice linked" if args.libdevice else "relocatable"
    print(
        f"ptxas: {len(found)} PTX modules of {len(files)} files checked ({len(distinct)} distinct, "
        f"{cached} of them accepted before and cached; {reused} of {len(jobs)} emissions reused; "
        f"{', '.join(ARCHS)}; {how}), {len(failures)} failures"
    )
    if failures or not found:
        sys.exit(1)


if __name__ == "__main__":
    main()
