#!/usr/bin/env python3
"""Self-test of the PyTorch differential fuzzer that needs no torch.

Checks that the generator is deterministic (a seed gives one program), that
every generated program parses and verifies with `aot-opt` (so the generator
stays valid as the IR evolves), that its inputs name as many args as the
function has, and that the comparison of run.py classifies hand-made answers
as it should (tolerance, NaN, exact integers, layouts, aliasing).

Usage: selftest.py --aot-opt PATH [--seeds A..B]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import gen  # noqa: E402
import run  # noqa: E402  (imports torch only when the oracle runs)


def check_programs(aot_opt, seeds):
    failures = []
    ops = set()
    with tempfile.TemporaryDirectory(prefix="aot-torch-selftest-") as d:
        for seed in seeds:
            a = gen.generate(seed)
            b = gen.generate(seed)
            if a.text != b.text or a.inputs != b.inputs:
                failures.append("seed %d: not deterministic" % seed)
                continue
            nargs = a.text.split("\n", 1)[0].count("%arg")
            if nargs != len(a.inputs["args"]):
                failures.append("seed %d: %d args in the signature, %d in the inputs" % (seed, nargs, len(a.inputs["args"])))
            ops.update(re.findall(r'"((?:tensor|view|mut)\.\w+)"', a.text))
            path = os.path.join(d, "s%d.mlir" % seed)
            with open(path, "w") as f:
                f.write(a.text)
            p = subprocess.run([aot_opt, path], capture_output=True, text=True)
            if p.returncode != 0:
                failures.append("seed %d: aot-opt rejects the program:\n%s\n%s" % (seed, a.text, p.stderr))
    return failures, ops


def check_compare():
    t = {"dtype": "f32", "shape": [2], "stride": [1], "offset": 0, "data": [1.0, "nan"],
         "requires_grad": False, "alias_of_arg": None}
    ans = {"outputs": [t], "args_after": [dict(t)]}
    same = json.loads(json.dumps(ans))
    same["outputs"][0]["data"] = [1.00001, "nan"]
    out = []
    if run.compare("eager", same, ans, False):
        out.append("compare: 1e-5 relative difference and NaN==NaN must agree")
    off = json.loads(json.dumps(ans))
    off["outputs"][0]["data"] = [1.01, "nan"]
    if [w for w, _ in run.compare("eager", off, ans, False)] != ["outputs[0].data"]:
        out.append("compare: a 1e-2 difference must be outputs[0].data")
    strided = json.loads(json.dumps(ans))
    strided["args_after"][0]["stride"] = [2]
    strided["outputs"][0]["alias_of_arg"] = 0
    got = sorted(w for w, _ in run.compare("eager", strided, ans, False))
    if got != ["args_after[0].stride", "outputs[0].alias_of_arg"]:
        out.append("compare: stride and alias_of_arg must be exact, got %s" % got)
    ints = {"dtype": "i64", "shape": [1], "stride": [1], "offset": 0, "data": [9007199254740993]}
    if run.data_diff([9007199254740992], ints["data"], "i64", 1e-4, 1e-4) is None:
        out.append("compare: integers must be exact")
    g = dict(ans, grads=[{"dtype": "f32", "shape": [2], "data": [1.0, 2.0]}])
    g2 = dict(ans, grads=[{"dtype": "f32", "shape": [2], "data": [1.0, 2.5]}])
    if [w for w, _ in run.compare("train-cl", g2, g, True)] != ["grads[0].data"]:
        out.append("compare: grads must be compared in grad modes")
    # a cancelling sum: PyTorch's float32 answer is itself 1.1e-5 off the float64
    # one, so aot 1.3e-4 off is rounding; 1e-2 off is not
    g3 = dict(ans, grads=[{"dtype": "f32", "shape": [2], "data": [1.0, -1.1e-5]}])
    g64 = dict(ans, grads=[{"dtype": "f64", "shape": [2], "data": [1.0, -2e-14]}])
    near = dict(ans, grads=[{"dtype": "f32", "shape": [2], "data": [1.0, -1.3e-4]}])
    far = dict(ans, grads=[{"dtype": "f32", "shape": [2], "data": [1.0, -1e-2]}])
    if [w for w, _ in run.compare("train-cl", near, g3, True)] != ["grads[0].data"]:
        out.append("compare: without the float64 answer, 1.2e-4 off must differ")
    if run.compare("train-cl", near, g3, True, exact=g64):
        out.append("compare: a difference within %dx PyTorch's own rounding must agree" % run.ROUNDING_FACTOR)
    if [w for w, _ in run.compare("train-cl", far, g3, True, exact=g64)] != ["grads[0].data"]:
        out.append("compare: a difference far beyond PyTorch's own rounding must differ")
    if run.in_float64("f(%a: tensor<2xf32>, %b: tensor<f32>) : f32 xf32x", {"dtype": "f32"}, None)[:2] != \
            ("f(%a: tensor<2xf64>, %b: tensor<f64>) : f64 xf32x", {"dtype": "f64"}):
        out.append("in_float64: every f32 type and dtype, nothing else, must become f64")
    if run.compare("train-cl", dict(ans), g, False):
        out.append("compare: grads must not be compared in inference modes")
    # a leaf t_'d in the call: PyTorch's gradient is in the new layout, aot-run's in the old
    back = run.regrad({"dtype": "f32", "shape": [2, 3], "data": [0, 1, 2, 3, 4, 5]}, ([3, 2], [2, 1], 0),
                      {"shape": [2, 3], "stride": [1, 2], "offset": 0})
    if back is None or back["shape"] != [3, 2] or back["data"] != [0, 3, 1, 4, 2, 5]:
        out.append("regrad: a transposed gradient must be re-indexed by memory location, got %s" % back)
    if run.signature("accepted", [], "Output 0 of SqueezeBackward1 is a view") != \
            run.signature("accepted", [], "Output 1 of Unbind is a view"):
        out.append("signature: PyTorch's view names must not split a root cause")
    if run.signature("false-reject", [], "x.mlir:3:5: error: bad 12 [1, 2]") != "false-reject: bad N [..]":
        out.append("signature: numbers and lists must be normalized")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aot-opt", required=True)
    ap.add_argument("--seeds", default="0..39")
    ns = ap.parse_args()
    seeds = run.parse_seeds(ns.seeds)
    failures, ops = check_programs(ns.aot_opt, seeds)
    failures += check_compare()
    for f in failures:
        print("FAIL: " + f)
    # the generator must keep covering the view and mutation ops
    missing = [o for o in ("view.as_strided", "mut.copy_", "mut.set_", "view.unbind") if o not in ops]
    if missing:
        print("FAIL: %d seeds never use %s" % (len(seeds), ", ".join(missing)))
        failures.append(missing)
    if failures:
        return 1
    print("torch-fuzz selftest: %d programs verified, %d distinct ops" % (len(seeds), len(ops)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
