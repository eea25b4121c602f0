"""aot as PyTorch's compiler.

- ``torch.compile(model, backend="aot")``: the backend (registered through
  the ``torch_dynamo_backends`` entry point); ``aot_torch.backend(...)``
  gives one with options (pipeline, partition strategy, memory budget,
  native backend, threads, recompile limit).
- ``aot_torch.compile_ir(text, example_args)``: compile IR text for the
  calling convention of example tensors and call it on ``torch.Tensor``s
  without copies (the embedding API).
- ``aot_torch.import_exported_program(ep)``: a ``torch.export``
  ``ExportedProgram`` as an IR module plus its export graph signature.
- ``aot_torch.manual_seed(seed)``: reseeds the Philox generator every
  aot-compiled function draws from.
- ``aot_torch.share_threads()``: runs aot's parallel work on PyTorch's
  OpenMP threads (done on the first compile; see its docstring).
- ``aot_torch.profiler.profile()``: where compiled code spends its time,
  per region and per kernel, against the roofline and against eager
  PyTorch on the same graphs.
- ``aot_torch.report(path)``: an HTML compile report of every graph the
  backend was given (where each region ran and why, recompiles, the IR,
  the partition's picture, compile times); ``aot_torch.enable_report(path)``
  or ``AOT_REPORT=path`` keeps the IR and pictures from then on and writes
  the report at exit.
"""

from . import _native, compile_report, profiler
from ._native import (
    AotError,
    CompileError,
    ConventionError,
    ExecutionError,
    ParseError,
    SignatureError,
    manual_seed,
)
from .backend import Config, aot, backend, share_threads, stats
from .compile_report import enable_report, report
from .fx_ir import Unsupported

__version__ = _native.VERSION

compile_report._from_environment()


def compile_ir(text, example_args, name=None, training=True, pipeline=None, native_backend="cranelift",
               filename="<string>"):
    """Compiles function ``name`` of the IR module ``text`` for the calling
    convention of ``example_args`` (``torch.Tensor``s): forward and backward
    (``aot-train``) when ``training``, else forward only. The result is
    called as ``f(args)`` (outputs), ``f.forward(args)`` (outputs and a
    state) and ``f.backward(state, tangents)`` (one gradient per argument)."""
    share_threads()
    module = _native.Module(text, filename)
    pipeline = pipeline or ("aot-train" if training else "aot-inference")
    return module.compile(list(example_args), name=name, pipeline=pipeline, backend=native_backend)


def versions_per_size():
    """How many times this process generated native code for one set of
    sizes of a symbolic graph: zero while every symbolic graph runs code
    that reads its sizes at run time (see docs/dynamic-shapes.md); each
    graph with an op that needs static sizes adds one per new size
    (:func:`runtime_sizes_refusals` says which op)."""
    return _native.versions_per_size()


def runtime_sizes_refusals():
    """Why symbolic graphs of this process got native code per size: the
    distinct messages of the code generator that refused to read a graph's
    sizes at run time (the op, and what it could not do), oldest first."""
    return _native.runtime_sizes_refusals()


def import_exported_program(ep, **kwargs):
    """See :func:`aot_torch.export.import_exported_program`."""
    from .export import import_exported_program as imp

    return imp(ep, **kwargs)


__all__ = [
    "AotError", "CompileError", "Config", "ConventionError", "ExecutionError", "ParseError",
    "SignatureError", "Unsupported", "aot", "backend", "compile_ir", "enable_report", "import_exported_program",
    "manual_seed", "profiler", "report", "runtime_sizes_refusals", "share_threads", "stats",
    "versions_per_size",
]
