"""Helper of the minimized fuzz regressions in this folder: ``assert_same(f,
make_inputs, ...)`` runs ``f`` eagerly and under ``torch.compile`` (infer
and train modes, the default and min-cut partitions, each compiled function
called twice on fresh inputs) and fails listing every observable difference:
outputs (values, dtype, shape, strides, offset, requires_grad, is_leaf,
identity, storage sharing, ``_base``), the arguments after the call, the
version counters, the leaves' ``.grad``, grad mode, and which runs raise.

The comparison is the fuzzer's own, ``fuzz/torch_compile/check.py``,
imported under a private module name.
"""

import importlib.util
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_CHECK = os.path.join(_ROOT, "fuzz", "torch_compile", "check.py")


def _check():
    name = "aot_tcfuzz_check"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _CHECK)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def assert_same(f, make_inputs, seed=0, backend="aot", modes=("infer", "train"), ncalls=3, mincut=True):
    """``make_inputs(g)`` returns ``(args, bases)``: the arguments, and the
    tensors they were made from (their values and ``.grad`` are compared)."""
    _check().assert_same(f, make_inputs, seed=seed, backend=backend, modes=modes, ncalls=ncalls, mincut=mincut)
