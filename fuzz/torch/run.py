#!/usr/bin/env python3
"""Differential fuzzer: aot (eager and compiled) against PyTorch eager as the oracle.

For each seed, `gen.py` writes a random program and its inputs; PyTorch
(`test/golden/torch_ref.py`, imported in-process) computes the answer, and
`aot-run` runs the program in six modes:

  eager         --mode eager
  eager-grad    --mode eager --grad            (finite differences: grads are
                compared only for programs without no_grad, detach or kinks)
  infer-interp  --mode compiled --pipeline aot-inference --backend interp
  infer-cl      --mode compiled --pipeline aot-inference --backend cranelift
  train-interp  --mode compiled --pipeline aot-train --grad --backend interp
  train-cl      --mode compiled --pipeline aot-train --grad --backend cranelift

Each disagreement is classified:

  wrong-answer   both answer, a field differs (which output/arg/grad, what)
  false-reject   aot errors where PyTorch answers
  crash          aot died of a signal, panicked, or timed out
  accepted       PyTorch raises, aot answers

PyTorch and aot both raising is an agreement. Findings go to a JSONL file
(one object per finding) and a summary (counts per class and mode) is
printed and written next to it. `--minimize` shrinks findings into
regression-case folders (prog.mlir, inputs.json, expected.json, cmd, README).

Run it with a Python that has torch (see setup.sh):
  run.py --seeds 0..999 [--jobs N] [--bin DIR] [--out DIR] [--minimize]
"""

import argparse
import contextlib
import io
import json
import math
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
import random

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# test/golden has a gen.py of its own: this folder must come first
sys.path.insert(0, os.path.join(REPO, "test", "golden"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import gen  # noqa: E402

MODES = {
    "eager": ["--mode", "eager"],
    "eager-grad": ["--mode", "eager", "--grad"],
    "infer-interp": ["--mode", "compiled", "--pipeline", "aot-inference", "--backend", "interp"],
    "infer-cl": ["--mode", "compiled", "--pipeline", "aot-inference", "--backend", "cranelift"],
    "train-interp": ["--mode", "compiled", "--pipeline", "aot-train", "--grad", "--backend", "interp"],
    "train-cl": ["--mode", "compiled", "--pipeline", "aot-train", "--grad", "--backend", "cranelift"],
}
GRAD_MODES = {"eager-grad", "train-interp", "train-cl"}
CLASSES = ["wrong-answer", "false-reject", "crash", "accepted"]
# not a finding: PyTorch's own answer depends on its element order (see
# ORDER_DEPENDENT), or the only difference is the layout of the gradient of a
# leaf whose storage a metadata mutation changed (PyTorch reports it in the
# new layout, the contract in the pre-call one, and no mapping exists), or a
# compiled output has a storage of its own where eager shares another
# output's (aliasing hidden as AOTAutograd hides it)
SOFT = ["unspecified"]

# ops where finite differences (the plain derivative) and autograd legitimately
# differ: kinks that random data can hit exactly (after a relu_/clamp_ wrote
# exact values), as_strided reaching storage outside its input (autograd drops
# it, finite differences see it), and storage swaps (set_, resize_)
FD_UNSAFE = ("relu", "clamp", "abs", "amax", "amin", "maximum", "minimum", "sign", "index_put", "where", "gelu",
             "as_strided", "set_", "resize_")

TIMEOUT = 20.0
RTOL = ATOL = 1e-4
FD_TOL = 2e-3
# f32 rounding: where aot and PyTorch differ only in float data, PyTorch is
# run again in float64, and an element is rounding when aot is within this
# many times PyTorch's own float32 error of PyTorch's float32 answer (a sum
# whose terms cancel, such as layer_norm's gradient over a constant row,
# leaves a few ulps of its largest term, far above the absolute tolerance)
ROUNDING_FACTOR = 16

_torch_ref = None


def torch_ref():
    global _torch_ref
    if _torch_ref is None:
        import torch
        torch.set_num_threads(1)
        import torch_ref as tr
        _instrument(tr)
        _torch_ref = tr
    return _torch_ref


# --------------------------------------------------------------------------
# the two sides

# Data mutations whose PyTorch result depends on the order TensorIterator visits
# elements (PyTorch only raises for overlap it can prove, e.g. stride 0):
# a destination with internal overlap written with per-element values, or a
# source that shares memory with the destination without mapping onto it
# element for element. PyTorch's answer there is not a specification.
ORDER_DEPENDENT = []
_CONSTANT_WRITES = {"mut.fill_", "mut.zero_"}


def _offsets(t):
    import torch
    if t.numel() == 0:
        return torch.zeros(0, dtype=torch.int64)
    off = torch.full(tuple(t.shape), t.storage_offset(), dtype=torch.int64)
    for d, (n, st) in enumerate(zip(t.shape, t.stride())):
        shape = [1] * t.dim()
        shape[d] = n
        off = off + (torch.arange(n, dtype=torch.int64) * st).reshape(shape)
    return off


def _order_dependent(name, ops):
    import torch
    dst = ops[0]
    if not isinstance(dst, torch.Tensor) or dst.numel() == 0:
        return False
    doff = _offsets(dst)
    if name not in _CONSTANT_WRITES and torch.unique(doff).numel() < dst.numel():
        return True
    # (a one-element destination still depends on the order when a source
    # that index_put_ reads several times holds it: each accumulation reads
    # the element the previous one wrote)
    sid = dst.untyped_storage().data_ptr()
    for src in ops[1:]:
        if not isinstance(src, torch.Tensor) or src.untyped_storage().data_ptr() != sid:
            continue
        soff = _offsets(src)
        if name == "mut.index_put_":
            return True
        try:
            sb = soff.expand(dst.shape)
        except RuntimeError:
            return True
        if bool((sb == doff).all()):
            continue
        if bool(torch.isin(soff.flatten(), doff.flatten()).any()):
            return True
    return False


def _instrument(tr):
    for name, fn in list(tr.OPS.items()):
        if name.startswith("mut.") and name not in tr.METADATA_MUTATIONS:
            def wrapped(ops, attrs, rtypes, _fn=fn, _name=name):
                if _order_dependent(_name, ops):
                    ORDER_DEPENDENT.append(_name)
                return _fn(ops, attrs, rtypes)
            tr.OPS[name] = wrapped


def run_torch(text, inputs, tangents, grad):
    """PyTorch's answer: ("answer", dict) | ("error", msg) | ("invalid", msg)."""
    tr = torch_ref()
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            out = tr.run(text, json.loads(json.dumps(inputs)), tangents, None, grad=grad)
    except tr.CorpusError as e:
        return "invalid", str(e)
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        # raised outside an op (building the arguments, the backward)
        return "error", str(e).strip()
    if "error" in out:
        return "error", out["error"]
    return "answer", out


def aot_cmd(bin_dir, mode, prog, inputs, tangents=None):
    cmd = [os.path.join(bin_dir, "aot-run"), prog, "--inputs", inputs] + MODES[mode]
    if tangents and mode in GRAD_MODES:
        cmd += ["--tangents", tangents]
    return cmd


def run_aot(cmd):
    """("answer", dict) | ("error", msg) | ("crash", msg)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "crash", "timeout after %gs" % TIMEOUT
    err = p.stderr.strip()
    if p.returncode < 0:
        return "crash", "signal %d: %s" % (-p.returncode, err[-300:])
    if "panicked" in err or p.returncode == 101:
        m = re.search(r"panicked at [^\n]*\n?[^\n]*", err)
        return "crash", "panic: " + (m.group(0) if m else err[-300:])
    if p.returncode != 0:
        return "error", err[-500:]
    try:
        return "answer", json.loads(p.stdout)
    except ValueError:
        return "crash", "exit 0 without JSON output: %r" % p.stdout[:200]


# --------------------------------------------------------------------------
# comparison

def _val(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v)
    return v


def _flat(d):
    if isinstance(d, list):
        out = []
        for x in d:
            out.extend(_flat(x))
        return out
    return [d]


def data_diff(a, b, dtype, rtol, atol, exact=None):
    """Why two data lists differ, or None. exact: the same values computed
    in float64, to allow ROUNDING_FACTOR times b's own rounding error."""
    a, b = _flat(a), _flat(b)
    if len(a) != len(b):
        return "%d values vs %d" % (len(a), len(b))
    exact = _flat(exact) if exact is not None else []
    if len(exact) != len(b):
        exact = None
    for i, (x, y) in enumerate(zip(a, b)):
        x, y = _val(x), _val(y)
        if dtype.startswith("f") or dtype == "bf16":
            x, y = float(x), float(y)
            noise = 0.0
            if exact is not None:
                e = float(_val(exact[i]))
                if math.isfinite(e) and math.isfinite(y):
                    noise = ROUNDING_FACTOR * abs(y - e)
            if math.isnan(x) and math.isnan(y):
                continue
            if math.isinf(x) or math.isinf(y):
                if x == y:
                    continue
            elif abs(x - y) <= atol + rtol * abs(y) + noise:
                continue
            return "[%d]: aot %r, torch %r" % (i, x, y)
        if x != y:
            return "[%d]: aot %r, torch %r" % (i, x, y)
    return None


def tensor_diffs(where, a, t, keys, rtol, atol, exact=None):
    out = []
    if a is None or t is None:
        if (a is None) != (t is None):
            out.append((where, "aot %s, torch %s" % ("null" if a is None else "a tensor",
                                                     "null" if t is None else "a tensor")))
        return out
    for k in keys:
        if k == "data":
            continue
        if a.get(k) != t.get(k):
            out.append(("%s.%s" % (where, k), "aot %s, torch %s" % (json.dumps(a.get(k)), json.dumps(t.get(k)))))
    if "data" in keys and not any(w.endswith((".shape", ".dtype")) for w, _ in out):
        d = data_diff(a.get("data", []), t.get("data", []), t.get("dtype", "f32"), rtol, atol,
                      exact.get("data") if isinstance(exact, dict) else None)
        if d:
            out.append(("%s.data" % where, d))
    return out


def _offsets_of(shape, stride, offset):
    out = [offset]
    for n, st in zip(shape, stride):
        out = [o + k * st for o in out for k in range(n)]
    return out


def pre_call_layouts(inputs):
    """(shape, stride, offset) of every argument as the call receives it,
    None for an argument whose gradient is not its own leaf's (a non_leaf
    argument's gradient is its leaf's, whose layout the call never changes)."""
    out = []
    for a in inputs["args"]:
        if "same_as" in a:
            out.append(out[a["same_as"]])
        elif a.get("non_leaf"):
            out.append(None)
        elif "storage" in a:
            out.append((a["size"], a.get("stride") or gen.contiguous_strides(a["size"]), a.get("offset", 0)))
        else:
            out.append((a["shape"], gen.contiguous_strides(a["shape"]), 0))
    return out


def regrad(g, pre, post):
    """PyTorch reports a leaf's gradient in the leaf's layout *after* the call
    (after t_, transpose_, squeeze_, unsqueeze_); aot-run, as the contract
    says, in the argument's pre-call shape. Re-index PyTorch's gradient by
    memory location into the pre-call shape, or None when the two layouts do
    not cover the same locations one to one."""
    if g is None or pre is None or post is None or list(g["shape"]) != list(post["shape"]):
        return None
    post_off = _offsets_of(post["shape"], post["stride"], post["offset"])
    pre_off = _offsets_of(*pre)
    if len(set(post_off)) != len(post_off) or sorted(post_off) != sorted(pre_off):
        return None
    where = {o: i for i, o in enumerate(post_off)}
    data = _flat(g["data"])
    return {"dtype": g["dtype"], "shape": list(pre[0]), "data": [data[where[o]] for o in pre_off]}


def compare(mode, a, t, grads, pre=None, exact=None):
    """Field-level differences between aot's and PyTorch's answers.

    pre: the arguments' pre-call layouts (pre_call_layouts), to compare the
    gradient of an argument changed by a metadata mutation in its pre-call shape.
    exact: PyTorch's answer computed in float64 (see ROUNDING_FACTOR)."""
    diffs = []
    exact = exact or {}

    def at(key, i):
        xs = exact.get(key)
        return xs[i] if isinstance(xs, list) and i < len(xs) else None

    meta = ["dtype", "shape", "stride", "offset", "data"]
    ao, to = a.get("outputs", []), t.get("outputs", [])
    if len(ao) != len(to):
        diffs.append(("outputs", "%d outputs vs %d" % (len(ao), len(to))))
    def group(k):
        o = to[k] if k < len(to) else None
        return o.get("alias_of_output") if isinstance(o, dict) and o.get("alias_of_output") is not None else k

    for i, (x, y) in enumerate(zip(ao, to)):
        d = tensor_diffs("outputs[%d]" % i, x, y, meta + ["requires_grad", "alias_of_arg", "alias_of_output"],
                         RTOL, ATOL, at("outputs", i))
        # compiled code, like AOTAutograd, gives views of an intermediate
        # without grad (and multi-output views) storages of their own
        # (docs/calling-convention.md): splitting PyTorch's storage groups is
        # not a finding; sharing across them is
        if not mode.startswith("eager") and isinstance(x, dict) and isinstance(y, dict) \
                and (x.get("alias_of_output") is None or group(x["alias_of_output"]) == group(i)):
            d = [(w + ".hidden", m) if w.endswith(".alias_of_output") else (w, m) for w, m in d]
        diffs += d
    aa, ta = a.get("args_after", []), t.get("args_after", [])
    if len(aa) != len(ta):
        diffs.append(("args_after", "%d vs %d" % (len(aa), len(ta))))
    for i, (x, y) in enumerate(zip(aa, ta)):
        diffs += tensor_diffs("args_after[%d]" % i, x, y, meta, RTOL, ATOL, at("args_after", i))
    # finite differences are undefined where the function is not finite
    # (the objective holds the outputs and the mutated arguments' values)
    if grads and mode == "eager-grad" and any(
            not all(math.isfinite(v) for v in _flat(o.get("data", [])) if isinstance(v, (int, float)))
            or any(isinstance(v, str) for v in _flat(o.get("data", [])))
            for o in list(to) + list(ta)):
        grads = False
    if grads:
        tol = FD_TOL if mode == "eager-grad" else RTOL
        for key in ("grads", "storage_grads"):
            ag, tg = a.get(key), t.get(key)
            if tg is None:
                continue
            if ag is None:
                if any(g is not None for g in tg):
                    diffs.append((key, "missing in aot's output"))
                continue
            if len(ag) != len(tg):
                diffs.append((key, "%d entries vs %d" % (len(ag), len(tg))))
                continue
            for i, (x, y) in enumerate(zip(ag, tg)):
                e = at(key, i)
                # the leaf's layout changed (its shape, or only its strides,
                # as t_ of a square leaf does): re-index PyTorch's gradient
                moved = i < len(ta) and pre is not None and i < len(pre) and pre[i] is not None and (
                    x is not None and y is not None and x.get("shape") != y.get("shape")
                    or (list(ta[i].get("stride", [])), ta[i].get("offset", 0))
                    != (list(pre[i][1]), pre[i][2]))
                if (key == "grads" and moved and x is not None and y is not None
                        and list(x.get("shape", [])) == list(pre[i][0])):
                    r = regrad(y, pre[i], ta[i])
                    if r is None:
                        # the leaf's storage or extent changed (set_, resize_, as_strided_),
                        # or PyTorch's gradient has the shape the leaf had when autograd first
                        # used it: no pre-call layout to compare PyTorch's gradient in
                        diffs.append(("grads[%d].unmappable" % i, "aot shape %s, torch %s (the leaf's layout after the call)"
                                      % (json.dumps(x.get("shape")), json.dumps(y.get("shape")))))
                        continue
                    y = r or y
                    e = regrad(e, pre[i], ta[i]) if e is not None else None
                diffs += tensor_diffs("%s[%d]" % (key, i), x, y, ["dtype", "shape", "data"], tol, tol, e)
    return diffs


def signature(cls, diffs, msg):
    """A coarse root-cause key: class plus the kinds of field that differ, or the message's shape."""
    if cls in ("wrong-answer", "unspecified"):
        kinds = sorted(set(re.sub(r"\[\d+\]", "", w) for w, _ in diffs))
        return cls + ": " + ", ".join(kinds)
    m = msg or ""
    m = re.sub(r"^.*?error: ", "", m.splitlines()[0] if m.strip() else m)
    # PyTorch names the view or backward node: one root cause, many names
    m = re.sub(r"Output \d+ of \w+ is", "Output N of <view> is", m)
    m = re.sub(r"Function [\w:]+ returned", "Function <backward> returned", m)
    m = re.sub(r"%[\w#]+|\d+", "N", m)
    m = re.sub(r"\[[^\]]*\]", "[..]", m)
    return "%s: %s" % (cls, m[:100])


# --------------------------------------------------------------------------
# one seed

def smooth(text):
    return "aot.no_grad" not in text and "view.detach" not in text and not any(
        ("." + k) in text for k in FD_UNSAFE) and not uses_layer_norm_stats(text)


def uses_layer_norm_stats(text):
    """layer_norm's mean and rstd results carry no gradient in PyTorch
    (native_layer_norm has no derivative for them); finite differences
    differentiate through them."""
    for name in re.findall(r'%(\w+):3 = "tensor\.layer_norm"', text):
        if re.search(r"%%%s#[12]\b" % re.escape(name), text):
            return True
    return False


def needs_grad(inputs):
    return any(a.get("requires_grad") for a in inputs["args"]) or any(
        s.get("base") for s in inputs.get("storages", []))


def make_tangents(seed, tans):
    """Tangents for the outputs, from PyTorch's forward answer (sometimes)."""
    r = random.Random(seed * 7919 + 1)
    if r.random() > 0.3:
        return None
    outs = []
    for o in tans["outputs"]:
        if o.get("requires_grad") and o["dtype"].startswith("f"):
            n = math.prod(o["shape"])
            outs.append({"dtype": o["dtype"], "shape": o["shape"],
                         "data": [round(r.uniform(-2, 2), 3) for _ in range(n)]})
        else:
            outs.append(None)
    return {"outputs": outs}


def in_float64(text, inputs, tangents):
    """The case with every f32 tensor made f64: program, inputs, tangents."""
    def conv(x):
        if isinstance(x, dict):
            return {k: ("f64" if k == "dtype" and v == "f32" else conv(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [conv(v) for v in x]
        return x
    return re.sub(r"(?<=[x<\s:(,])f32\b", "f64", text), conv(inputs), conv(tangents)


def check_case(text, inputs, tangents, bin_dir, modes, workdir):
    """Runs every mode; returns (list of (mode, cls, sig, detail, torch_side, aot_side), invalid msg)."""
    prog = os.path.join(workdir, "prog.mlir")
    inp = os.path.join(workdir, "inputs.json")
    tan = os.path.join(workdir, "tangents.json")
    with open(prog, "w") as f:
        f.write(text)
    with open(inp, "w") as f:
        json.dump(inputs, f)
    if tangents is not None:
        with open(tan, "w") as f:
            json.dump(tangents, f)
    any_grad = needs_grad(inputs)
    oracle = {}
    findings = []
    for mode in modes:
        grad = mode in GRAD_MODES
        if mode == "eager-grad" and not any_grad:
            continue
        if grad not in oracle:
            del ORDER_DEPENDENT[:]
            oracle[grad] = run_torch(text, inputs, tangents if grad else None, grad) + (bool(ORDER_DEPENDENT),)
        tk, tv, unspecified = oracle[grad]
        if tk == "invalid":
            return [], tv
        ak, av = run_aot(aot_cmd(bin_dir, mode, prog, inp, tan if tangents is not None else None))
        if isinstance(av, str):
            av = av.replace(workdir + os.sep, "")
        cls, diffs, msg = None, [], None
        if ak == "crash":
            cls, msg = "crash", av
        elif tk == "error" and ak == "answer":
            cls, msg = "accepted", tv
        elif tk == "answer" and ak == "error":
            cls, msg = "false-reject", av
        elif tk == "answer" and ak == "answer":
            check_grads = grad and (mode != "eager-grad" or smooth(text))
            pre = pre_call_layouts(inputs)
            diffs = compare(mode, av, tv, check_grads, pre)
            hard = [d for d in diffs if not d[0].endswith((".unmappable", ".hidden"))]
            if hard and all(d[0].endswith(".data") for d in hard) and not unspecified:
                # only float data differs: rounding, where it is within
                # PyTorch's own float32 error (ROUNDING_FACTOR)
                key = ("f64", grad)
                if key not in oracle:
                    oracle[key] = run_torch(*in_float64(text, inputs, tangents if grad else None), grad)
                ek, ev = oracle[key]
                if ek == "answer" and not [d for d in compare(mode, av, tv, check_grads, pre, ev)
                                           if not d[0].endswith((".unmappable", ".hidden"))]:
                    diffs = [(w + " (rounding)", m) for w, m in hard]
                    hard = []
            if hard:
                cls = "unspecified" if unspecified else "wrong-answer"
            elif diffs:
                cls = "unspecified"
        if cls:
            findings.append({
                "mode": mode, "class": cls, "signature": signature(cls, diffs, msg),
                "diffs": ["%s: %s" % d for d in diffs[:6]],
                "torch": tv if tk == "error" else None,
                "aot": av if ak != "answer" else None,
            })
    return findings, None


def run_seed(job):
    seed, bin_dir, modes = job
    case = gen.generate(seed)
    with tempfile.TemporaryDirectory(prefix="aot-torch-fuzz-") as d:
        tangents = None
        fk, fv = run_torch(case.text, case.inputs, None, False)
        if fk == "answer" and needs_grad(case.inputs):
            tangents = make_tangents(seed, fv)
        findings, invalid = check_case(case.text, case.inputs, tangents, bin_dir, modes, d)
    for f in findings:
        f["seed"] = seed
        f["nops"] = case.nops
    return seed, findings, invalid


# --------------------------------------------------------------------------
# minimization

def _arg_uses(lines, k):
    pat = re.compile(r"%%arg%d\b" % k)
    return any(pat.search(line) for line in lines)


class Shrinker:
    """Greedy delta-debugging of one finding, keeping its class in its mode."""

    def __init__(self, finding, bin_dir):
        self.f = finding
        self.bin = bin_dir
        self.mode = finding["mode"]
        self.cls = finding["class"]
        self.kinds = set(re.sub(r"\[\d+\]", "", d.split(":")[0]) for d in finding["diffs"])
        self.calls = 0

    def holds(self, text, inputs, tangents):
        self.calls += 1
        with tempfile.TemporaryDirectory(prefix="aot-torch-min-") as d:
            # a candidate must still be valid IR
            prog = os.path.join(d, "p.mlir")
            with open(prog, "w") as fh:
                fh.write(text)
            p = subprocess.run([os.path.join(self.bin, "aot-opt"), prog], capture_output=True, timeout=TIMEOUT)
            if p.returncode != 0:
                return False
            if tangents is not None and tangents.get("outputs") is not None:
                nout = len(re.search(r"^  return (.*) :", text, re.M).group(1).split(","))
                if len(tangents["outputs"]) != nout:
                    return False
            found, invalid = check_case(text, inputs, tangents, self.bin, [self.mode], d)
        if invalid:
            return False
        for g in found:
            if g["class"] != self.cls:
                continue
            if self.cls != "wrong-answer":
                return True
            kinds = set(re.sub(r"\[\d+\]", "", x.split(":")[0]) for x in g["diffs"])
            if kinds & self.kinds:
                return True
        return False

    def shrink(self, text, inputs, tangents, budget=300):
        """Greedy: after a success the candidate list is rebuilt and the scan goes on
        from the same position (candidates are ordered, so earlier ones rarely
        become possible again); passes repeat until one changes nothing."""
        changed = True
        while changed and self.calls < budget:
            changed = False
            cands = list(self.candidates(text, inputs, tangents))
            i = 0
            while i < len(cands) and self.calls < budget:
                if self.holds(*cands[i]):
                    text, inputs, tangents = cands[i]
                    changed = True
                    cands = list(self.candidates(text, inputs, tangents))
                else:
                    i += 1
        return text, inputs, tangents

    def candidates(self, text, inputs, tangents):
        lines = text.splitlines()
        body = [i for i, line in enumerate(lines) if line.startswith("  ") and not line.startswith("  return")]
        # drop returned values
        head = lines[0]
        ret_i = max(i for i, line in enumerate(lines) if line.startswith("  return"))
        m = re.match(r"  return (.*) : (.*)$", lines[ret_i])
        vals = [v.strip() for v in m.group(1).split(",")]
        tys = split_types(m.group(2))
        if len(vals) > 1:
            for j in range(len(vals)):
                nv = vals[:j] + vals[j + 1:]
                nt = tys[:j] + tys[j + 1:]
                nl = list(lines)
                nl[ret_i] = "  return %s : %s" % (", ".join(nv), ", ".join(nt))
                nl[0] = re.sub(r"-> \(.*\) \{$", "-> (%s) {" % ", ".join(nt), head)
                ntan = tangents
                if tangents is not None and tangents.get("outputs") is not None:
                    ntan = {"outputs": tangents["outputs"][:j] + tangents["outputs"][j + 1:]}
                yield "\n".join(nl) + "\n", inputs, ntan
        if tangents is not None:
            yield text, inputs, None
        # delete ops, last first (uses come later)
        for i in reversed(body):
            yield "\n".join(lines[:i] + lines[i + 1:]) + "\n", inputs, tangents
        # drop attributes that change semantics
        for i in body:
            if "aot.no_grad" in lines[i]:
                nl = list(lines)
                nl[i] = nl[i].replace(", aot.no_grad}", "}").replace(" {aot.no_grad}", "")
                yield "\n".join(nl) + "\n", inputs, tangents
        # unused args
        for k in range(len(inputs["args"]) - 1, -1, -1):
            if _arg_uses(lines[1:], k):
                continue
            c = drop_arg(lines, inputs, k)
            if c:
                yield "\n".join(c[0]) + "\n", c[1], tangents
        # input flags
        for k, a in enumerate(inputs["args"]):
            for flag in ("non_leaf", "requires_grad"):
                if a.get(flag):
                    ni = json.loads(json.dumps(inputs))
                    del ni["args"][k][flag]
                    if flag == "requires_grad":
                        ni["args"][k].pop("non_leaf", None)
                    yield text, ni, tangents
        for s, st in enumerate(inputs.get("storages", [])):
            if st.get("base"):
                ni = json.loads(json.dumps(inputs))
                del ni["storages"][s]["base"]
                yield text, ni, tangents
        # simpler data
        for k, a in enumerate(inputs["args"]):
            if "data" in a and any(x not in (0, 1, -1, 2) for x in a["data"]):
                ni = json.loads(json.dumps(inputs))
                ni["args"][k]["data"] = [float(i % 5 - 2) for i in range(len(a["data"]))]
                yield text, ni, tangents
        for s, st in enumerate(inputs.get("storages", [])):
            if any(x != float(i) for i, x in enumerate(st["data"])):
                ni = json.loads(json.dumps(inputs))
                ni["storages"][s]["data"] = [float(i) for i in range(len(st["data"]))]
                yield text, ni, tangents


def split_types(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def drop_arg(lines, inputs, k):
    args = inputs["args"]
    if any(a.get("same_as") == k for a in args):
        return None
    m = re.match(r"func\.func @main\((.*)\) -> (.*)$", lines[0])
    params = split_types(m.group(1))
    params = params[:k] + params[k + 1:]
    # rename %argJ (J > k) to %arg(J-1)
    ren = {}
    for j in range(k + 1, len(args)):
        ren["%%arg%d" % j] = "%%arg%d" % (j - 1)

    def fix(s):
        return re.sub(r"%arg\d+\b", lambda mm: ren.get(mm.group(0), mm.group(0)), s)

    head = "func.func @main(%s) -> %s" % (", ".join(fix(p) for p in params), m.group(2))
    nl = [head] + [fix(line) for line in lines[1:]]
    ni = json.loads(json.dumps(inputs))
    del ni["args"][k]
    for a in ni["args"]:
        if "same_as" in a and a["same_as"] > k:
            a["same_as"] -= 1
    used = {a["storage"] for a in ni["args"] if "storage" in a}
    if "storages" in ni and len(used) < len(ni["storages"]):
        keep = sorted(used)
        remap = {old: new for new, old in enumerate(keep)}
        ni["storages"] = [ni["storages"][s] for s in keep]
        for a in ni["args"]:
            if "storage" in a:
                a["storage"] = remap[a["storage"]]
        if not ni["storages"]:
            del ni["storages"]
    return nl, ni


def write_case(folder, text, inputs, tangents, mode, cls, what):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "prog.mlir"), "w") as f:
        f.write(text)
    with open(os.path.join(folder, "inputs.json"), "w") as f:
        json.dump(inputs, f)
    grad = mode in GRAD_MODES
    if tangents is not None and grad:
        with open(os.path.join(folder, "tangents.json"), "w") as f:
            json.dump(tangents, f)
    tk, tv = run_torch(text, inputs, tangents if grad else None, grad)
    expected = tv if tk == "answer" else {"torch_error": tv}
    with open(os.path.join(folder, "expected.json"), "w") as f:
        f.write(torch_ref().dumps(expected) + "\n")
    cmd = ["target/release/aot-run", "prog.mlir", "--inputs", "inputs.json"] + MODES[mode]
    if tangents is not None and grad:
        cmd += ["--tangents", "tangents.json"]
    with open(os.path.join(folder, "cmd"), "w") as f:
        f.write("# run from this folder; compare the JSON with expected.json (tolerance 1e-4)\n")
        f.write(" ".join(cmd) + "   # %s\n" % mode)
    with open(os.path.join(folder, "README"), "w") as f:
        f.write("(%s) %s: %s\n" % (cls, mode, what))


def minimize(finding, bin_dir, folder):
    case = gen.generate(finding["seed"])
    fk, fv = run_torch(case.text, case.inputs, None, False)
    tangents = None
    if fk == "answer" and needs_grad(case.inputs):
        tangents = make_tangents(finding["seed"], fv)
    sh = Shrinker(finding, bin_dir)
    if not sh.holds(case.text, case.inputs, tangents):
        return None
    text, inputs, tangents = sh.shrink(case.text, case.inputs, tangents)
    # describe what the minimized case shows
    with tempfile.TemporaryDirectory(prefix="aot-torch-min-") as d:
        found, _ = check_case(text, inputs, tangents, bin_dir, [finding["mode"]], d)
    what = finding["signature"]
    for g in found:
        if g["class"] == finding["class"]:
            if g["diffs"]:
                what = "; ".join(g["diffs"][:3])
            elif g["aot"]:
                what = "aot: " + g["aot"].splitlines()[0][:200]
            elif g["torch"]:
                what = "PyTorch raises (%s); aot answers" % g["torch"].splitlines()[0][:160]
            break
    write_case(folder, text, inputs, tangents, finding["mode"], finding["class"], what)
    return folder, sh.calls


# --------------------------------------------------------------------------
# driver

def parse_seeds(s):
    m = re.fullmatch(r"(\d+)\.\.(\d+)", s)
    if m:
        return list(range(int(m.group(1)), int(m.group(2)) + 1))
    return [int(x) for x in s.split(",")]


def slug(sig):
    return re.sub(r"[^a-z0-9]+", "-", sig.lower()).strip("-")[:60]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0..99", help="A..B (inclusive) or a comma list")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release"), help="folder with aot-run and aot-opt")
    ap.add_argument("--modes", default=",".join(MODES), help="comma list of modes")
    ap.add_argument("--out", default=os.path.join(HERE, "findings"), help="folder for findings.jsonl, summary.txt, cases")
    ap.add_argument("--minimize", action="store_true",
                    help="shrink one finding per (class, mode, signature) into a case folder under OUT/cases")
    ap.add_argument("--from-jsonl", help="minimize the findings of an earlier run instead of fuzzing")
    ap.add_argument("--max-minimize", type=int, default=40, help="at most this many cases")
    ap.add_argument("--per-mode", action="store_true",
                    help="one case per (class, signature, mode) instead of per (class, signature)")
    ns = ap.parse_args(argv)
    modes = [m for m in ns.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            ap.error("unknown mode %r (modes: %s)" % (m, ", ".join(MODES)))
    if not os.path.exists(os.path.join(ns.bin, "aot-run")):
        ap.error("no aot-run in %s (cargo build --release -p aot-run -p aot-opt, or --bin DIR)" % ns.bin)
    os.makedirs(ns.out, exist_ok=True)

    findings = []
    if ns.from_jsonl:
        with open(ns.from_jsonl) as f:
            findings = [json.loads(line) for line in f if line.strip()]
    else:
        seeds = parse_seeds(ns.seeds)
        jsonl = os.path.join(ns.out, "findings.jsonl")
        invalid = []
        t0 = time.time()
        jobs = [(s, ns.bin, modes) for s in seeds]
        with open(jsonl, "w") as out:
            if ns.jobs > 1:
                pool = multiprocessing.Pool(ns.jobs)
                it = pool.imap_unordered(run_seed, jobs)
            else:
                it = map(run_seed, jobs)
            for n, (seed, found, inv) in enumerate(it, 1):
                if inv:
                    invalid.append((seed, inv))
                for f in found:
                    out.write(json.dumps(f) + "\n")
                    findings.append(f)
                out.flush()
                if n % 50 == 0:
                    print("%d/%d seeds, %d findings, %.0fs" % (n, len(seeds), len(findings), time.time() - t0),
                          file=sys.stderr)
        summary = summarize(findings, len(seeds), invalid, modes)
        with open(os.path.join(ns.out, "summary.txt"), "w") as f:
            f.write(summary)
        print(summary)

    if ns.minimize or ns.from_jsonl:
        done = set()
        n = 0
        # smallest programs first; among the modes of one seed, eager before compiled;
        # unspecified answers are not minimized
        order = list(MODES)
        for f in sorted(findings, key=lambda f: (f.get("nops", 99), f["seed"], order.index(f["mode"]))):
            if f["class"] in SOFT:
                continue
            key = (f["class"], f["mode"] if ns.per_mode else None, f["signature"])
            if key in done or n >= ns.max_minimize:
                continue
            done.add(key)
            n += 1
            folder = os.path.join(ns.out, "cases", "%s-%s-%s-s%d" % (f["class"], f["mode"], slug(f["signature"].split(":", 1)[1]), f["seed"]))
            r = minimize(f, ns.bin, folder)
            print("%s: %s" % ("minimized" if r else "not reproduced", folder), file=sys.stderr)
    return 0


def summarize(findings, nseeds, invalid, modes):
    lines = ["seeds: %d, findings: %d, generator-invalid programs: %d" % (nseeds, len(findings), len(invalid)), ""]
    lines.append("%-14s" % "class" + "".join("%14s" % m for m in modes))
    for c in CLASSES + SOFT:
        row = "%-14s" % c
        for m in modes:
            row += "%14d" % sum(1 for f in findings if f["class"] == c and f["mode"] == m)
        lines.append(row)
    lines.append("")
    lines.append("signatures (count, modes, first seed):")
    sigs = {}
    for f in findings:
        s = sigs.setdefault(f["signature"], [0, set(), f["seed"]])
        s[0] += 1
        s[1].add(f["mode"])
        s[2] = min(s[2], f["seed"])
    for sig, (cnt, ms, first) in sorted(sigs.items(), key=lambda kv: -kv[1][0]):
        lines.append("  %5d  %-40s seed %d  %s" % (cnt, ",".join(m for m in modes if m in ms), first, sig))
    if invalid:
        lines.append("")
        lines.append("generator-invalid (a bug in gen.py):")
        for seed, msg in invalid[:20]:
            lines.append("  seed %d: %s" % (seed, msg[:200]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
