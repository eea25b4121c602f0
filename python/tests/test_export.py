"""torch.export import: the IR module computes what the exported program
computes (outputs, in-place updates of buffers and user inputs, and
gradients of the loss), aot-opt takes it, the export graph signature
agrees with upstream's aot_export_module, and the programs upstream's
export workflow rejects are rejected with clear errors."""

import copy
import os
import pathlib
import subprocess

import pytest
import torch
import torch.nn.functional as F

import aot_torch
from aot_torch.export import ExportRejected

REPO = pathlib.Path(__file__).resolve().parents[2]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x, y):
        y.add_(1)
        return (self.bn(self.lin(x)).relu() + y).square().mean()


class _TupleNet(Net):
    def forward(self, x, y):
        return (super().forward(x, y),)


def _example():
    torch.manual_seed(0)
    return Net(), torch.randn(5, 4), torch.randn(5, 3)


def _aot_opt():
    run = os.environ.get("AOT_RUN")
    candidates = [pathlib.Path(run).with_name("aot-opt")] if run else []
    candidates += [REPO / "target" / "release" / "aot-opt", REPO / "target" / "debug" / "aot-opt"]
    for c in candidates:
        if c.exists():
            return str(c)
    pytest.fail("aot-opt is not built (cargo build -p aot-opt)")


def test_imported_module_computes_what_the_program_computes():
    net, x, y = _example()
    ep = torch.export.export(copy.deepcopy(net), (x.clone(), y.clone()))
    p = aot_torch.import_exported_program(ep)
    args = [t.detach().clone() for t in p.example_inputs]
    names = p.input_names
    xi, yi = names.index("x"), names.index("y")
    args[xi], args[yi] = x.clone(), y.clone()
    f = aot_torch.compile_ir(p.text, args, training=False)
    (out,) = f(args)
    ref = copy.deepcopy(net)
    y_ref = y.clone()
    want = ref(x.clone(), y_ref)
    torch.testing.assert_close(out, want)
    torch.testing.assert_close(args[yi], y_ref, msg="the user input is mutated in place")
    for name, fqn in p.signature.inputs_to_buffers.items():
        torch.testing.assert_close(args[names.index(name)], ref.get_buffer(fqn), msg=fqn)


def test_signature_agrees_with_aot_export_module():
    from torch._functorch.aot_autograd import aot_export_module

    net, x, y = _example()
    ep = torch.export.export(copy.deepcopy(net), (x.clone(), y.clone()))
    p = aot_torch.import_exported_program(ep, joint=True)
    sig = p.signature
    upstream = _TupleNet()
    upstream.load_state_dict(net.state_dict())
    _, up = aot_export_module(upstream, [x.clone(), y.clone()], trace_joint=True, output_loss_index=0)
    assert sig.parameters == list(up.parameters)
    assert sig.buffers == list(up.buffers)
    assert len(sig.user_inputs) == len(up.user_inputs) == 2
    assert sorted(sig.buffers_to_mutate.values()) == sorted(up.buffers_to_mutate.values())
    assert len(sig.user_inputs_to_mutate) == len(up.user_inputs_to_mutate) == 1
    assert list(sig.user_inputs_to_mutate.values()) == ["y"]
    assert len(sig.user_outputs) == len(up.user_outputs) == 1
    bw, up_bw = sig.backward_signature, up.backward_signature
    assert sorted(bw.gradients_to_parameters.values()) == sorted(up_bw.gradients_to_parameters.values())
    assert bw.gradients_to_user_inputs == {} and dict(up_bw.gradients_to_user_inputs) == {}
    assert bw.loss_output == sig.user_outputs[0]
    # The names refer to the pure function's results, in its order:
    # mutated inputs, user outputs, gradients.
    n_mut = len(sig.buffers_to_mutate) + len(sig.user_inputs_to_mutate)
    assert sig.outputs[:n_mut] == list(sig.buffers_to_mutate) + list(sig.user_inputs_to_mutate) or \
        set(sig.outputs[:n_mut]) == set(sig.buffers_to_mutate) | set(sig.user_inputs_to_mutate)
    assert sig.outputs[n_mut] == bw.loss_output
    assert set(sig.outputs[n_mut + 1:]) == set(bw.gradients_to_parameters)
    header = next(line for line in p.functional_text.splitlines() if "func.func @main(" in line)
    assert header.count("aot.grad = ") == len(bw.gradients_to_parameters)
    assert list(sig.tangent_inputs.values()) == [bw.loss_output]


def test_joint_export_gradients_are_pytorchs():
    net, x, y = _example()
    ep = torch.export.export(copy.deepcopy(net), (x.clone(), y.clone()))
    p = aot_torch.import_exported_program(ep, joint=True)
    args = [t.detach().clone().requires_grad_(t.requires_grad) for t in p.example_inputs]
    f = aot_torch.compile_ir(p.text, args)
    (loss,), state = f.forward(args)
    grads = f.backward(state, [None])
    ref = copy.deepcopy(net)
    want = ref(x.clone(), y.clone())
    want.backward()
    torch.testing.assert_close(loss, want.detach())
    for name, fqn in p.signature.inputs_to_parameters.items():
        torch.testing.assert_close(grads[p.input_names.index(name)], ref.get_parameter(fqn).grad, msg=fqn)


def test_aot_opt_takes_the_imported_module(tmp_path):
    net, x, y = _example()
    p = aot_torch.import_exported_program(torch.export.export(net, (x, y)), joint=True)
    src = tmp_path / "exported.mlir"
    src.write_text(p.text)
    r = subprocess.run([_aot_opt(), "--pass-pipeline=aot-train", str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "@main_backward" in r.stdout


class _Dropout(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return F.dropout(self.lin(x), 0.5, True).sum()


class _TwoOutputs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        return h.sum(), h


class _NotScalar(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


class _MutatesParameter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(4))

    def forward(self, x):
        with torch.no_grad():
            self.w.add_(1)
        return (self.w * x).sum()


class _TransposesInput(torch.nn.Module):
    def forward(self, x):
        x.transpose_(0, 1)
        return x * 2


class _MutatesFirst(torch.nn.Module):
    def forward(self, x, y):
        x.add_(1)
        return x + y


REJECTED = [
    ("metadata-mutation", _TransposesInput, lambda: (torch.randn(2, 3),), False, "metadata mutation"),
    ("random", _Dropout, lambda: (torch.randn(3, 4),), True, "random"),
    ("two-grad-outputs", _TwoOutputs, lambda: (torch.randn(3, 4),), True, "output 1 requires grad"),
    ("loss-not-scalar", _NotScalar, lambda: (torch.randn(3, 4),), True, "must be a scalar"),
    ("mutated-parameter", _MutatesParameter, lambda: (torch.randn(4),), True, "requires grad and is mutated"),
]


@pytest.mark.parametrize("case", REJECTED, ids=[c[0] for c in REJECTED])
def test_what_upstream_export_rejects_is_rejected(case):
    _, cls, args, joint, message = case
    ep = torch.export.export(cls(), args())
    with pytest.raises(ExportRejected, match=message):
        aot_torch.import_exported_program(ep, joint=joint)


def test_mutated_duplicate_and_aliased_inputs_are_rejected():
    a = torch.randn(4)
    with pytest.raises(ExportRejected, match="passed twice"):
        aot_torch.import_exported_program(torch.export.export(_MutatesFirst(), (a, a)))
    base = torch.randn(8)
    with pytest.raises(ExportRejected, match="synthetic base"):
        aot_torch.import_exported_program(torch.export.export(_MutatesFirst(), (base[:4], base[4:])))
    # Without the joint, a dropout program imports (it is random, not rejected).
    p = aot_torch.import_exported_program(torch.export.export(_Dropout(), (torch.randn(3, 4),)))
    assert p.has_random and "rng.dropout" in p.text
