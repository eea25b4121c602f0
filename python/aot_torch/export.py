"""``torch.export`` programs as aot IR modules, with the export graph
signature.

``import_exported_program(ep)`` retraces the exported program's graph
(PyTorch's training IR: views and in-place ops as written, parameters and
buffers lifted as leading inputs) to ATen with ``fx_ir.to_aten`` and
translates it: the module's function takes the inputs in the exported
order (parameters, buffers, user inputs) and keeps the program's in-place
updates of them, so it is a program in PyTorch's semantics that
``aot-opt`` and ``aot_torch.compile_ir`` take as is. aot's own passes then
derive the export form: ``functionalize{keep-input-mutations=false}`` and
``collect-metadata`` (and ``joint`` for a joint export) give a pure
function whose results are the mutated inputs' new values, the user
outputs, and (joint) the gradients, which the signature names, as
AOTAutograd's ``aot_export_module`` does. The programs ``aot_export_module``
rejects are rejected here with :class:`ExportRejected`.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Dict, List, Optional, Sequence

import torch

from . import _native
from . import fx_ir


class ExportRejected(_native.AotError):
    """A program the export workflow does not take (as upstream's
    ``aot_export_module`` refuses it)."""


@dataclasses.dataclass
class BackwardSignature:
    """Joint export: which results are which gradients, and the loss."""

    gradients_to_parameters: Dict[str, str]
    gradients_to_user_inputs: Dict[str, str]
    loss_output: str


@dataclasses.dataclass
class GraphSignature:
    """The export graph signature of the pure function (``functional_text``).

    Inputs are (parameters, buffers, user inputs), named as the exported
    program names them; results are (mutated buffers and user inputs, user
    outputs, gradients), named ``mutated_<input>``, ``output_<k>`` and
    ``grad_<input>``. A joint function also takes one tangent per result
    that receives one (``tangent_inputs``: tangent argument -> result)."""

    parameters: List[str]
    buffers: List[str]
    user_inputs: List[str]
    inputs_to_parameters: Dict[str, str]
    inputs_to_buffers: Dict[str, str]
    buffers_to_mutate: Dict[str, str]
    user_inputs_to_mutate: Dict[str, str]
    user_outputs: List[str]
    outputs: List[str]
    tangent_inputs: Dict[str, str] = dataclasses.field(default_factory=dict)
    backward_signature: Optional[BackwardSignature] = None


@dataclasses.dataclass
class ImportedProgram:
    """An exported program as aot IR.

    ``text``: the module in PyTorch's semantics (in-place updates of the
    inputs kept), ``functional_text``: after aot's export passes, which
    ``signature`` describes; ``input_names``: the function's arguments in
    order; ``example_inputs``: tensors for them (the program's state and
    example user inputs)."""

    text: str
    functional_text: str
    signature: GraphSignature
    input_names: List[str]
    example_inputs: List[torch.Tensor]
    has_random: bool
    # The function has symbolic sizes (the program's `Dim`s, with their
    # ranges and the guards the trace recorded): one compile takes every
    # size they allow. False for a program without `Dim`s, or where its
    # sizes have no form in the IR (`static_reason` says why; the function
    # then has the example's sizes).
    symbolic: bool = False
    static_reason: Optional[str] = None

    def compile(self, training: bool = False, native_backend: str = "cranelift"):
        """``text`` compiled for the example inputs (see ``aot_torch.compile_ir``)."""
        from . import compile_ir

        return compile_ir(self.text, self.example_inputs, training=training, native_backend=native_backend)


def _ssa_name(name: str) -> str:
    s = re.sub(r"[^\w$.]", "_", name)
    return s if re.match(r"[A-Za-z_]", s) else "_" + s


def import_exported_program(ep: "torch.export.ExportedProgram", joint: bool = False,
                            loss_index: Optional[int] = None) -> ImportedProgram:
    """The IR module and export graph signature of ``ep``. With
    ``joint=True`` the pure function also computes the gradients of the
    loss (user output ``loss_index``, default 0, a scalar) with respect to
    the parameters and user inputs that require grad."""
    from torch.export.graph_signature import InputKind

    sig = ep.graph_signature
    params, buffers, users = [], [], []
    inputs_to_parameters, inputs_to_buffers = {}, {}
    names, examples, kinds = [], [], []
    state = dict(ep.state_dict)
    state.update(getattr(ep, "constants", {}) or {})
    args, kwargs = ep.example_inputs if ep.example_inputs is not None else ((), {})
    if kwargs:
        raise ExportRejected("keyword example inputs are not supported; pass them positionally")
    user_iter = iter(torch.utils._pytree.tree_leaves(args))
    for spec in sig.input_specs:
        name = _ssa_name(spec.arg.name)
        if spec.kind == InputKind.PARAMETER:
            params.append(spec.target)
            inputs_to_parameters[name] = spec.target
            t = state[spec.target]
        elif spec.kind == InputKind.BUFFER:
            buffers.append(spec.target)
            inputs_to_buffers[name] = spec.target
            t = state[spec.target]
        elif spec.kind == InputKind.USER_INPUT:
            users.append(name)
            t = next(user_iter, None)
            if not isinstance(t, torch.Tensor):
                raise ExportRejected("user input %s is not a tensor (%r)" % (spec.arg.name, t))
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            t = state[spec.target]
        else:
            raise ExportRejected("input %s of kind %s is not supported" % (spec.arg.name, spec.kind.name))
        names.append(name)
        kinds.append(spec.kind)
        examples.append(t)
    # Parameters require grad (as in training); user inputs as given.
    examples = [t.detach().clone().requires_grad_(k == InputKind.PARAMETER and t.is_floating_point())
                if k != InputKind.USER_INPUT else t for t, k in zip(examples, kinds)]

    tr, static_reason = None, None
    if _has_symbolic_sizes(ep):
        # The program's `Dim`s: one function for every size they allow,
        # where the IR can say its sizes; else one for the example's sizes.
        tr, static_reason = _symbolic_translation(ep, examples, names, joint)
    if tr is None:
        aten = fx_ir.to_aten(ep.graph_module, examples)
        tr = fx_ir.translate(aten, examples, name="main", arg_names=names, mark_requires_grad=joint)
    if tr.num_inputs != len(names):
        raise ExportRejected("the program has %d inputs, the translation %d" % (len(names), tr.num_inputs))
    if any(kind != "tensor" for kind, _ in tr.outputs):
        raise ExportRejected("the program returns non-tensor outputs, which an export graph cannot")
    requires_grad = [bool(t.requires_grad) for t in examples]
    text = tr.text
    module = _native.Module(text, "<exported program>")

    # What aot's passes decide: which inputs are mutated, which outputs
    # require grad (the same analysis the export form is built from; the
    # interpreter backend, since nothing runs).
    fn = module.compile(examples, pipeline="aot-train" if joint else "aot-inference", backend="interp")
    info = fn.info()
    _reject_aliased_mutations(examples, names, [m["mutates_data"] for m in info["inputs"]])
    for i, m in enumerate(info["inputs"]):
        if m["mutates_metadata"]:
            raise ExportRejected(
                "input %s received a metadata mutation (e.g. transpose_ or resize_), which export does not take"
                % names[i])
    if joint:
        if tr.has_random:
            raise ExportRejected("a joint export of a program with random ops is not supported: "
                                 "its random state would have to be functionalized")
        for i, m in enumerate(info["inputs"]):
            if m["mutates_data"] and m["requires_grad"]:
                raise ExportRejected("input %s requires grad and is mutated in place, which a joint export "
                                     "does not take" % names[i])
        loss_index = 0 if loss_index is None else loss_index
        if not 0 <= loss_index < len(tr.outputs):
            raise ExportRejected("loss_index %d is not one of the %d outputs" % (loss_index, len(tr.outputs)))
        result = tr.outputs[loss_index][1]
        if tr.result_meta[result][0] != ():
            raise ExportRejected("the loss (output %d) must be a scalar, but it is %s"
                                 % (loss_index, tr.result_types[result]))
        # Per graph output, its IR result's metadata (the runtime lists
        # more: a synthetic base's metadata-changed members come after).
        for k, (kind, v) in enumerate(tr.outputs):
            if kind == "tensor" and v != result and info["outputs"][v]["requires_grad"]:
                raise ExportRejected(
                    "output %d requires grad but is not the loss (output %d): a joint export computes the "
                    "gradients of the loss only; detach the other outputs" % (k, loss_index))
    pipeline = "builtin.module(functionalize{keep-input-mutations=false},collect-metadata%s)" % (
        ",joint" if joint else "")
    functional = module.run_pipeline(pipeline)

    mutated = [i for i, m in enumerate(info["inputs"]) if m["mutates_data"]]
    outputs = ["mutated_" + names[i] for i in mutated]
    buffers_to_mutate = {"mutated_" + names[i]: inputs_to_buffers[names[i]]
                         for i in mutated if names[i] in inputs_to_buffers}
    user_inputs_to_mutate = {"mutated_" + names[i]: names[i] for i in mutated if names[i] in users}
    user_outputs = ["output_%d" % k for k in range(len(tr.outputs))]
    outputs += user_outputs
    backward = None
    tangents: Dict[str, str] = {}
    if joint:
        grads = [i for i, rg in enumerate(requires_grad) if rg]
        backward = BackwardSignature(
            gradients_to_parameters={"grad_" + names[i]: inputs_to_parameters[names[i]]
                                     for i in grads if names[i] in inputs_to_parameters},
            gradients_to_user_inputs={"grad_" + names[i]: names[i] for i in grads if names[i] in users},
            loss_output="output_%d" % loss_index,
        )
        outputs += ["grad_" + names[i] for i in grads]
        tangents = _tangents(functional, outputs)
    signature = GraphSignature(
        parameters=params, buffers=buffers, user_inputs=users,
        inputs_to_parameters=inputs_to_parameters, inputs_to_buffers=inputs_to_buffers,
        buffers_to_mutate=buffers_to_mutate, user_inputs_to_mutate=user_inputs_to_mutate,
        user_outputs=user_outputs, outputs=outputs, tangent_inputs=tangents, backward_signature=backward,
    )
    return ImportedProgram(text=text, functional_text=functional, signature=signature, input_names=names,
                           example_inputs=examples, has_random=tr.has_random,
                           symbolic=static_reason is None and _has_symbolic_sizes(ep), static_reason=static_reason)


def _has_symbolic_sizes(ep: "torch.export.ExportedProgram") -> bool:
    return any(isinstance(d, torch.SymInt)
               for n in ep.graph_module.graph.nodes if n.op == "placeholder"
               for d in (n.meta["val"].shape if isinstance(n.meta.get("val"), torch.Tensor) else ()))


def _symbolic_translation(ep, examples, names, joint):
    """The exported program as a function with symbolic sizes, traced over
    the placeholders' fake tensors (the export's ShapeEnv, with the `Dim`s'
    ranges): `(translation, None)`, or `(None, why)` where its sizes have no
    form in the IR (then the example's sizes are used)."""
    from . import symbolic

    fakes = [n.meta.get("val") for n in ep.graph_module.graph.nodes if n.op == "placeholder"]
    modes = {id(f.fake_mode): f.fake_mode for f in fakes if isinstance(f, torch.Tensor) and hasattr(f, "fake_mode")}
    if len(fakes) != len(examples) or len(modes) != 1:
        return None, "the exported program's inputs are not fake tensors of one mode"
    mode = next(iter(modes.values()))
    # (The fakes require grad as the examples do: the joint marks them.)
    fakes = [f.detach().requires_grad_(e.requires_grad) if f.is_floating_point() else f.detach()
             for f, e in zip(fakes, examples)]
    try:
        found = symbolic.translate(ep.graph_module, fakes, mode, name="main", arg_names=names,
                                   mark_requires_grad=joint)
    except Exception as e:  # (PyTorch's tracing, or a size with no IR form)
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        logging.getLogger("aot_torch").warning(
            "aot_torch: the exported program is imported with the example's sizes: %s", why)
        return None, why
    return (found[0], None) if found is not None else (None, "no input has a symbolic size")


def _tangents(functional: str, outputs: List[str]) -> Dict[str, str]:
    """The joint function's tangent arguments (``{aot.tangent = k}``), by the
    result each flows into."""
    head = next(line for line in functional.splitlines() if "func.func @main(" in line)
    found = re.findall(r"(%\w+): [^,{)]*\{aot\.tangent = (\d+)\}", head)
    return {name: outputs[int(k)] for name, k in found if int(k) < len(outputs)}


def _reject_aliased_mutations(examples: Sequence[torch.Tensor], names: Sequence[str],
                              mutated: Sequence[bool]) -> None:
    """Inputs that share memory, one of them mutated, would need a synthetic
    base (or, for one tensor passed twice, a mutated duplicate): export
    takes neither."""
    seen: Dict[int, int] = {}
    for i, t in enumerate(examples):
        if t.untyped_storage().nbytes() == 0:
            continue
        p = t.untyped_storage().data_ptr()
        j = seen.setdefault(p, i)
        if j != i and (mutated[i] or mutated[j]):
            if t is examples[j]:
                raise ExportRejected("input %s is passed twice (also as %s) and mutated: export does not take "
                                     "mutated duplicates" % (names[j], names[i]))
            raise ExportRejected("inputs %s and %s share memory and one of them is mutated: export does not "
                                 "take that (it needs a synthetic base)" % (names[j], names[i]))
