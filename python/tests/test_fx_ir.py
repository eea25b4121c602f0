"""Tests of the FX -> IR translator (aot_torch.fx_ir), without the Rust
binding: each program is captured by Dynamo, traced to ATen (`to_aten`),
translated (`translate`), and run by `aot-run` (eager and compiled, with
gradients where wanted); outputs, final argument values and gradients are
compared with PyTorch eager running the same Dynamo graph.

aot-run is found through $AOT_RUN, else target/release/aot-run, else
target/debug/aot-run.
"""

import json
import math
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import aot_torch
from aot_torch import fx_ir  # the installed package (pip install ./python)

REPO = Path(__file__).resolve().parents[2]
aten = torch.ops.aten


def _aot_run_path():
    env = os.environ.get("AOT_RUN")
    if env:
        return env if os.path.exists(env) else None
    for p in (REPO / "target" / "release" / "aot-run", REPO / "target" / "debug" / "aot-run"):
        if p.exists():
            return str(p)
    return None


AOT_RUN = _aot_run_path()
needs_aot_run = pytest.mark.skipif(AOT_RUN is None, reason="aot-run not built (set AOT_RUN or cargo build -p aot-run)")

DT = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
      torch.int64: "i64", torch.int32: "i32", torch.int8: "i8", torch.bool: "i1"}
TORCH_DT = {v: k for k, v in DT.items()}


# ---------------------------------------------------------------------------
# Capture and reference


def _snapshot(t):
    """A leaf copy with the same values, sizes, strides and requires_grad."""
    if not isinstance(t, torch.Tensor):
        return t
    c = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype)
    with torch.no_grad():
        c.copy_(t.detach())
    return c.requires_grad_(t.requires_grad)


def capture(fn, *args):
    """Dynamo's graph of fn(*args) and snapshots of its example inputs (taken
    before the graph runs, so mutations during capture do not leak)."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append((gm, [_snapshot(e) for e in example_inputs]))
        return gm.forward

    torch._dynamo.reset()
    torch.compile(fn, backend=backend, fullgraph=True)(*args)
    torch._dynamo.reset()
    assert len(graphs) == 1, "expected one Dynamo graph, got %d" % len(graphs)
    return graphs[0]


def _flat_outputs(out):
    if isinstance(out, (list, tuple)):
        return list(out)
    return [out]


def reference(gm, inputs, want_grad):
    """Run the Dynamo graph in PyTorch eager on copies of the inputs."""
    args = [_snapshot(t) for t in inputs]
    with torch.enable_grad():
        outs = _flat_outputs(gm(*args))
    grads = None
    if want_grad:
        terms = [o.sum() for o in outs if isinstance(o, torch.Tensor) and o.requires_grad]
        leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
        assert terms, "no output requires grad"
        g = torch.autograd.grad(sum(terms), leaves, allow_unused=True)
        it = iter(g)
        grads = []
        for a in args:
            if isinstance(a, torch.Tensor) and a.requires_grad:
                gi = next(it)
                grads.append(torch.zeros_like(a) if gi is None else gi.detach())
            else:
                grads.append(None)
    outs = [o.detach() if isinstance(o, torch.Tensor) else o for o in outs]
    after = [a.detach() if isinstance(a, torch.Tensor) else a for a in args]
    return outs, after, grads


# ---------------------------------------------------------------------------
# JSON and aot-run


def _json_value(x):
    if isinstance(x, bool):
        return x
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def tensor_json(t, requires_grad=False):
    t = t.detach().contiguous()
    data = [_json_value(x) for x in t.reshape(-1).tolist()]
    e = {"dtype": DT[t.dtype], "shape": list(t.shape), "data": data}
    if requires_grad:
        e["requires_grad"] = True
    return e


def from_json(e):
    dt = TORCH_DT[e["dtype"]]
    data = e["data"] if isinstance(e["data"], list) else [e["data"]]
    data = [float(x) if isinstance(x, str) else x for x in data]
    return torch.tensor(data, dtype=dt if dt != torch.bool else torch.bool).reshape(e["shape"])


def run_aot(tr, inputs, mode, grad=False, extra=()):
    with tempfile.TemporaryDirectory() as d:
        prog = os.path.join(d, "prog.mlir")
        inp = os.path.join(d, "inputs.json")
        out = os.path.join(d, "out.json")
        with open(prog, "w") as f:
            f.write(tr.text)
        args = [tensor_json(t, requires_grad=grad and t.requires_grad) for t in inputs]
        with open(inp, "w") as f:
            json.dump({"args": args}, f)
        cmd = [AOT_RUN, prog, "--inputs", inp, "--mode", mode, "-o", out] + list(extra)
        if grad:
            cmd.append("--grad")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            keep = Path(tempfile.mkdtemp(prefix="fx_ir_fail_"))
            for n in ("prog.mlir", "inputs.json"):
                (keep / n).write_text(Path(d, n).read_text())
            raise AssertionError("aot-run %s failed (rc %d; program kept in %s):\n%s\n%s" % (
                mode, p.returncode, keep, p.stderr[-4000:], tr.text[:6000]))
        with open(out) as f:
            return json.load(f)


def assert_close(actual, expected, what, rtol=1e-4, atol=1e-4):
    assert tuple(actual.shape) == tuple(expected.shape), "%s: shape %s != %s" % (
        what, tuple(actual.shape), tuple(expected.shape))
    if expected.dtype.is_floating_point:
        torch.testing.assert_close(actual.double(), expected.double(), rtol=rtol, atol=atol, equal_nan=True,
                                   msg=lambda m: "%s: %s" % (what, m))
    else:
        assert torch.equal(actual.to(expected.dtype), expected), "%s: %s != %s" % (what, actual, expected)


def check_run(tr, inputs, ref, res, grad, rtol, atol, mode):
    outs, after, grads = ref
    assert len(tr.outputs) == len(outs)
    for i, (desc, expected) in enumerate(zip(tr.outputs, outs)):
        if desc[0] == "const":
            assert desc[1] == expected, "output %d: %r != %r" % (i, desc[1], expected)
            continue
        got = from_json(res["outputs"][desc[1]])
        assert_close(got, expected, "%s output %d" % (mode, i), rtol, atol)
    for i, (got, expected) in enumerate(zip(res["args_after"], after)):
        assert_close(from_json(got), expected, "%s argument %d after the call" % (mode, i), rtol, atol)
    if grad:
        for i, (got, expected) in enumerate(zip(res["grads"], grads)):
            if expected is None:
                assert got is None, "gradient %d should be null" % i
            else:
                assert got is not None, "gradient %d missing" % i
                assert_close(from_json(got), expected, "%s gradient of argument %d" % (mode, i), rtol, atol)


def check(fn, *args, grad=False, rtol=1e-4, atol=1e-4, eager=True, dynamo=True):
    """Capture fn(*args) with Dynamo (or take fn itself with dynamo=False),
    translate, run on aot (compiled and eager) and compare with PyTorch.
    Returns the translation."""
    if AOT_RUN is None:
        pytest.skip("aot-run not built (set AOT_RUN or cargo build -p aot-run)")
    if dynamo:
        gm, inputs = capture(fn, *args)
    else:
        gm, inputs = fn, [_snapshot(a) for a in args]
    aten_gm = fx_ir.to_aten(gm, inputs)
    tr = fx_ir.translate(aten_gm, inputs)
    assert tr.num_inputs == len(inputs)
    # the per-node check agrees with translate
    live = fx_ir.live_nodes(aten_gm.graph)
    bad = {n.name: fx_ir.unsupported_reason(n) for n in aten_gm.graph.nodes if n in live}
    assert not {k: v for k, v in bad.items() if v is not None}
    ref = reference(gm, inputs, grad)
    res = run_aot(tr, inputs, "compiled", grad=grad)
    check_run(tr, inputs, ref, res, grad, rtol, atol, "compiled")
    if eager:
        ref_nograd = reference(gm, inputs, False)
        res = run_aot(tr, inputs, "eager")
        check_run(tr, inputs, ref_nograd, res, False, rtol, atol, "eager")
    return tr


def params_of(module):
    return [p for p in module.parameters()]


# ---------------------------------------------------------------------------
# Models


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, x):
        return self.net(x)


def test_mlp_mse():
    torch.manual_seed(0)
    m = MLP()
    x = torch.randn(5, 8)
    y = torch.randn(5, 4)

    def step(x, y):
        return F.mse_loss(m(x), y)

    check(step, x, y, grad=True)


def test_linear_layers_are_linear_ops():
    # make_fx writes F.linear as t(w) + addmm (or mm without a bias, also
    # through a 3-d input's view); the translator gives tensor.linear, whose
    # derivative computes the weight's gradient in the weight's layout. A
    # product whose second operand is not a transposed weight, or whose
    # bias is a matrix, stays a matrix product.
    torch.manual_seed(2)
    lin = nn.Linear(8, 6)
    head = nn.Linear(6, 3, bias=False)
    w = torch.randn(6, 5, requires_grad=True)
    x = torch.randn(2, 4, 8)

    def step(x, w):
        h = head(torch.tanh(lin(x)))
        other = torch.addmm(torch.ones(4, 5), x[0, :, :6], w)
        return h.sum(), other

    tr = check(step, x, w, grad=True)
    assert tr.text.count('"tensor.linear"') == 2, tr.text
    assert '"tensor.mm"' in tr.text, tr.text


def test_convolutions_are_conv_ops():
    # Every convolution is the catalogue op tensor.conv, with its own
    # derivative ops: a depthwise one, a transposed one (a convolution of
    # the spread-out input) and a dense one.
    torch.manual_seed(3)
    dw = nn.Conv2d(4, 8, 3, stride=2, padding=1, groups=4)
    dwt = nn.ConvTranspose2d(8, 8, 3, stride=2, padding=1, groups=8)
    dense = nn.Conv2d(8, 3, 1)
    x = torch.randn(2, 4, 7, 6)

    def step(x):
        return dense(dwt(torch.relu(dw(x)))).sum()

    tr = check(step, x, grad=True)
    assert tr.text.count('"tensor.conv"') == 3, tr.text
    assert '"tensor.bmm"' not in tr.text, tr.text


def test_pooling_ops_are_catalogue_ops():
    # Max and average pooling (1-d, 2-d, an unbatched input, an adaptive
    # pool whose sizes divide) are tensor.max_pool and tensor.avg_pool,
    # whose derivatives are their own gradient ops: no slice per window
    # offset, no where chain.
    x = torch.randn(2, 3, 8, 8, requires_grad=True)

    def step(x):
        a = F.max_pool2d(x, 3, stride=2, padding=1)
        b = F.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False)
        c = F.max_pool1d(x[0], 2)
        d = F.adaptive_avg_pool2d(x, 2)
        return a.sum() + b.sum() + c.sum() + d.sum()

    tr = check(step, x, grad=True)
    assert tr.text.count('"tensor.max_pool"') == 2, tr.text
    assert tr.text.count('"tensor.avg_pool"') == 2, tr.text
    assert '"tensor.where"' not in tr.text, tr.text
    assert "count_include_pad = false" in tr.text and "ceil_mode" in tr.text, tr.text


def test_attention_is_one_op():
    # PyTorch's CPU attention (causal, with an additive padding mask, with
    # a boolean mask and a scale) is tensor.attention, whose gradient saves
    # the output and the log-sum-exp: no softmax of the scores in the IR.
    torch.manual_seed(5)
    q, k, v = (torch.randn(2, 3, 5, 8, requires_grad=True) for _ in range(3))
    pad = torch.zeros(2, 1, 1, 5)
    pad[1, ..., 3:] = float("-inf")
    keep = torch.rand(5, 5) > 0.3

    def step(q, k, v):
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        b = F.scaled_dot_product_attention(q, k, v, attn_mask=pad)
        c = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.2)
        return a * 2 + b + c

    tr = check(step, q, k, v, grad=True)
    assert tr.text.count('"tensor.attention"') == 3, tr.text
    assert '"tensor.softmax"' not in tr.text, tr.text


def test_attention_the_op_does_not_take_is_decomposed():
    # Grouped-query heads and a mask that needs a gradient: upstream's
    # decomposition, with the mask's gradient.
    torch.manual_seed(6)
    q = torch.randn(1, 4, 3, 8, requires_grad=True)
    k, v = (torch.randn(1, 2, 3, 8, requires_grad=True) for _ in range(2))
    bias = torch.randn(3, 3, requires_grad=True)

    def step(q, k, v, bias):
        a = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        b = F.scaled_dot_product_attention(q, q, q, attn_mask=bias)
        return a.sum() + b.sum()

    tr = check(step, q, k, v, bias, grad=True)
    assert '"tensor.attention"' not in tr.text, tr.text


def test_graphs_trace_on_fake_tensors_and_data_dependent_ones_for_real():
    # A plain graph is traced on fake tensors (nothing runs for real, no
    # input is copied); one whose shapes depend on values (`nonzero`) is
    # traced again for real, with the same results.
    x = torch.randn(4, 6)
    before = dict(fx_ir.TRACES)
    check(lambda x: torch.relu(x) @ x.t(), x)
    assert fx_ir.TRACES["fake"] == before["fake"] + 1 and fx_ir.TRACES["real"] == before["real"], fx_ir.TRACES

    gm = torch.fx.symbolic_trace(lambda x: torch.nonzero(x > 0) * 2)
    before = dict(fx_ir.TRACES)
    aten = fx_ir.to_aten(gm, [x])
    assert fx_ir.TRACES["real"] == before["real"] + 1, fx_ir.TRACES
    torch.testing.assert_close(aten(x), gm(x))


def test_expm1_and_the_activations_built_on_it():
    # ELU, SELU and CELU decompose to expm1; expm1 near 0 is exact where
    # exp(x) - 1 would cancel.
    x = torch.tensor([[1e-6, -2e-7, 0.5, -3.0], [2.0, -0.25, 1e-3, -1e-3]], requires_grad=True)

    def f(x):
        return torch.expm1(x), F.elu(x, alpha=0.7), F.selu(x), F.celu(x, alpha=1.3)

    tr = check(f, x, grad=True, rtol=1e-5, atol=1e-7)
    assert '"tensor.expm1"' in tr.text, tr.text


def test_rounding():
    # round is half to even, as torch.round; on integers each is a copy;
    # the gradient is zero (a straight-through estimator passes x's).
    x = torch.tensor([[0.5, 1.5, 2.5, -0.5], [-1.7, 2.2, -3.5, 7.0]], requires_grad=True)
    k = torch.tensor([3, -4, 5])

    def f(x, k):
        ste = (torch.round(x) - x).detach() + x
        return torch.floor(x) * 2 + torch.ceil(x) + torch.trunc(x) + ste, torch.round(k), torch.floor(k)

    tr = check(f, x, k, grad=True)
    for op in ("floor", "ceil", "trunc", "round"):
        assert '"tensor.%s"' % op in tr.text, tr.text


def test_fmod_remainder_and_truncating_division():
    # fmod has the sign of a, remainder (%) the sign of b; div with
    # rounding_mode="trunc" truncates; gradients as PyTorch's.
    a = torch.tensor([[5.5, -5.5, 7.3], [-7.3, 2.9, -0.45]], requires_grad=True)
    b = torch.tensor([2.1, -1.3, 0.2], requires_grad=True)

    def f(a, b):
        return torch.fmod(a, b), a % b, torch.remainder(a, 1.5), torch.div(a, b, rounding_mode="trunc")

    tr = check(f, a, b, grad=True)
    assert '"tensor.fmod"' in tr.text and '"tensor.remainder"' in tr.text and '"tensor.trunc"' in tr.text


def test_cumsum():
    # Running sums with their gradient (the reversed running sum of the
    # cotangent), PyTorch's int64 sums of a mask (position ids) and a dtype
    # argument.
    x = torch.randn(3, 5, requires_grad=True)
    m = torch.tensor([[1, 1, 0, 1, 1], [0, 1, 1, 1, 0], [1, 0, 0, 0, 1]], dtype=torch.bool)

    def f(x, m):
        return torch.cumsum(x, 1).sigmoid().sum(), m.long().cumsum(-1) - 1, torch.cumsum(x, 0, dtype=torch.float64)

    tr = check(f, x, m, grad=True)
    assert tr.text.count('"tensor.cumsum"') == 3, tr.text


def test_mlp_cross_entropy():
    torch.manual_seed(1)
    m = MLP()
    x = torch.randn(6, 8, requires_grad=True)
    t = torch.tensor([0, 3, 1, 2, 3, 0])

    def step(x, t):
        logits = m(x)
        return F.cross_entropy(logits, t), F.cross_entropy(logits, t, reduction="sum")

    check(step, x, t, grad=True)


def test_cross_entropy_ignore_index_and_weight():
    torch.manual_seed(2)
    w = torch.rand(5) + 0.5

    def f(x, t, w):
        return (F.cross_entropy(x, t, weight=w), F.cross_entropy(x, t, ignore_index=2),
                F.nll_loss(F.log_softmax(x, -1), t, reduction="none"))

    x = torch.randn(7, 5, requires_grad=True)
    t = torch.tensor([0, 2, 4, 1, 2, 3, 0])
    check(f, x, t, w, grad=True)


@pytest.mark.parametrize("train", [True, False])
def test_transformer_encoder_layer(train):
    torch.manual_seed(3)
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
    layer.train(train)
    x = torch.randn(2, 5, 32, requires_grad=True)

    def step(x):
        return layer(x).square().mean()

    check(step, x, grad=True, rtol=2e-4, atol=2e-4)


class GPTBlockWithLoss(nn.Module):
    """The GPT-2-style block of models.py with its cross-entropy loss."""

    def __init__(self, sdpa):
        super().__init__()
        from models import GPT2Block

        self.block = GPT2Block(vocab=17, ctx=8, d=32, nh=4, sdpa=sdpa)

    def forward(self, idx, targets):
        logits = self.block(idx)
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


@pytest.mark.parametrize("sdpa", [False, True])
def test_gpt2_block(sdpa):
    torch.manual_seed(4)
    model = GPTBlockWithLoss(sdpa=sdpa)
    idx = torch.randint(0, 17, (2, 6))
    targets = torch.randint(0, 17, (2, 6))
    check(model, idx, targets, grad=True, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("kind", ["1d", "2d"])
def test_batchnorm_train_running_stats(kind):
    torch.manual_seed(5)
    if kind == "1d":
        bn = nn.BatchNorm1d(4)
        x = torch.randn(6, 4, requires_grad=True)
    else:
        bn = nn.BatchNorm2d(3)
        x = torch.randn(2, 3, 4, 5, requires_grad=True)
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.5, 0.5)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    bn.train()

    def step(x):
        return bn(x).tanh()

    tr = check(step, x, grad=True)
    # running_mean, running_var and num_batches_tracked are written in place
    assert len(tr.mutated_inputs) == 3, tr.mutated_inputs
    assert tr.text.count('"mut.') >= 3


def test_batchnorm_eval():
    torch.manual_seed(6)
    bn = nn.BatchNorm2d(3)
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    bn.eval()
    x = torch.randn(2, 3, 4, 4, requires_grad=True)
    tr = check(lambda x: bn(x), x, grad=True)
    assert tr.mutated_inputs == []


# ---------------------------------------------------------------------------
# Views and in-place ops


def test_add_through_view():
    def f(x, y):
        v = x[:, 1:]
        v.add_(y)
        return x * 2

    tr = check(f, torch.randn(3, 4), torch.randn(3, 3))
    assert tr.mutated_inputs == [0]


def test_slice_assignment():
    def f(x, y):
        x[:, 1:] = y
        return x.sum(0)

    tr = check(f, torch.randn(3, 4), torch.randn(3))
    assert tr.mutated_inputs == [0]


def test_mul_input_in_place():
    def f(x):
        x.mul_(2)
        return x

    tr = check(f, torch.randn(4, 3))
    assert tr.mutated_inputs == [0]


def test_transpose_and_unsqueeze_in_place_on_inputs():
    # Dynamo refuses in-place views of graph inputs: trace the function itself.
    def f(x, y):
        x.transpose_(0, 1)
        y.unsqueeze_(0)
        return x + 1, y * 3, x

    tr = check(f, torch.randn(2, 3), torch.randn(3), dynamo=False)
    assert tr.mutated_inputs == [0, 1]
    assert '"mut.transpose_"' in tr.text and '"mut.unsqueeze_"' in tr.text


def test_in_place_views_on_intermediates():
    def f(x):
        h = x * 2
        h.transpose_(0, 1)
        h.unsqueeze_(0)
        h.t_() if False else None
        v = h.squeeze(0)
        v.add_(1)
        return h, v.sum(0)

    check(f, torch.randn(2, 3, requires_grad=True), grad=True)


def test_metadata_mutations_on_inputs():
    # resize_, set_, as_strided_, squeeze_ and t_ of arguments (traced
    # without Dynamo, which refuses in-place views of graph inputs).
    def f(x, y, z, w, v):
        x.resize_(2, 3)
        y.set_(z)
        w.as_strided_((2, 2), (1, 2), 1)
        v.squeeze_(0)
        v.t_()
        return x.sum(), y * 2, w + 1, v

    tr = check(f, torch.randn(6), torch.randn(4), torch.randn(2, 2), torch.randn(6),
               torch.randn(1, 2, 3), dynamo=False)
    assert tr.mutated_inputs == [0, 1, 3, 4]
    for op in ("mut.resize_", "mut.set_", "mut.as_strided_", "mut.squeeze_", "mut.t_"):
        assert '"%s"' % op in tr.text


def test_output_view_of_input():
    def f(x):
        return x.t(), x[1]

    tr = check(f, torch.randn(3, 4))
    assert tr.mutated_inputs == []


def test_index_put_and_masked_fill_in_place():
    def f(x, idx, v, m):
        x[idx] = v
        x.masked_fill_(m, -1.0)
        return x.sum(1)

    x = torch.randn(5, 3)
    idx = torch.tensor([0, 3])
    v = torch.randn(2, 3)
    m = torch.rand(5, 3) > 0.5
    tr = check(f, x, idx, v, m)
    assert tr.mutated_inputs == [0]


def test_index_put_with_several_indices():
    """`x[r, c] = v`, `index_put_` accumulating at duplicate positions, a
    negative index, values broadcast to the indexed shape, and a one-hot
    made by indexing: the leading indexed dimensions merged into one
    `index_put` (they ran in PyTorch), with eager's values and gradients."""
    def f(x, r, c, v, w):
        out = torch.zeros(5, 6)
        out[r, c] = v * 2
        y = x * 1.0
        y.index_put_((r, c), w, accumulate=True)
        z = x.index_put((r[:2], -c[:2]), torch.ones(1))
        onehot = torch.zeros(4, 7)
        onehot[torch.arange(4), r] = 1.0
        return out + y + z, onehot

    r, c = torch.tensor([0, 1, 4, 1]), torch.tensor([2, 5, 0, 5])
    check(f, torch.randn(5, 6, requires_grad=True), r, c, torch.randn(4, requires_grad=True),
          torch.randn(4, requires_grad=True), grad=True)


def test_index_put_with_one_index_of_several_dimensions():
    """`w.index_put((ids,), g, accumulate=True)` with a `[B, T]` index of
    rows (PyTorch's embedding backward, which a backward traced by
    autograd calls): the index's positions flattened, duplicates
    accumulated; also PyTorch's masked form, which zeroes the rows of
    masked positions, and a plain `x[ids] = v` (it ran in PyTorch)."""
    def f(w, ids, g, mask, v):
        acc = w.index_put((ids,), g, accumulate=True)
        masked = torch.ops.aten._unsafe_masked_index_put_accumulate(w * 1.0, mask[..., None], [ids], g)
        y = w * 2.0
        y[ids] = v
        return acc + masked, y

    ids = torch.tensor([[0, 3, 3], [5, 0, 1]])
    mask = torch.tensor([[True, False, True], [True, True, False]])
    check(f, torch.randn(6, 4, requires_grad=True), ids, torch.randn(2, 3, 4, requires_grad=True), mask,
          torch.ones(1, 4), grad=True)


def test_embedding_bag_with_offsets():
    """`embedding_bag` with offsets (an empty bag, a bag past the last
    position with `include_last_offset`), per-sample weights and
    `padding_idx`: sums and means as catalogue ops, with eager's values
    and gradients."""
    def f(w, ids, offsets, psw):
        a = F.embedding_bag(ids, w, offsets, mode="mean", padding_idx=2)
        b = F.embedding_bag(ids, w, offsets, mode="sum", per_sample_weights=psw)
        c = F.embedding_bag(ids, w, torch.cat([offsets, offsets.new_tensor([ids.shape[0]])]), mode="sum",
                            include_last_offset=True)
        return a + b * 2 + c

    ids = torch.tensor([4, 2, 2, 7, 1, 0, 9, 3])
    check(f, torch.randn(10, 5, requires_grad=True), ids, torch.tensor([0, 3, 3, 6]),
          torch.randn(8, requires_grad=True), grad=True)


def test_index_put_after_skipped_dimensions():
    """`y[:, r] = 0`, `z[:, r, c] = v` and `q[:, r] += w`: the indexed
    dimensions moved first, written, moved back, and the result copied
    into the tensor written in place; eager's values and gradients."""
    def f(x, r, c, v, w):
        y = x * 1.0
        y[:, r] = 0.0
        z = x * 2.0
        z[:, r, c] = v
        q = x * 3.0
        q[:, r] += w
        return y + z + q

    r, c = torch.tensor([0, 1, 4, 1]), torch.tensor([2, 5, 0, 5])
    check(f, torch.randn(2, 5, 6, requires_grad=True), r, c, torch.randn(4, requires_grad=True),
          torch.randn(2, 4, 6), grad=True)


def test_index_put_with_several_indices_checks_each_dimension():
    """An index within the merged dimensions but outside its own (column 6
    of 6) raises as in eager rather than write into the next row."""
    def f(x, r, c):
        y = x.clone()
        y[r, c] = 1.0
        return y

    x, r = torch.zeros(3, 6), torch.tensor([0, 1])
    with pytest.raises(IndexError):
        f(x, r, torch.tensor([2, 6]))
    torch._dynamo.reset()
    aot_torch.stats.clear()
    compiled = torch.compile(f, backend="aot")
    torch.testing.assert_close(compiled(x, r, torch.tensor([2, 5])), f(x, r, torch.tensor([2, 5])))
    assert aot_torch.stats["compiled"] == 1 and not aot_torch.stats.get("fallback_ops"), dict(aot_torch.stats)
    with pytest.raises(Exception, match="out of (bounds|range)"):
        compiled(x, r, torch.tensor([2, 6]))


def test_in_place_on_intermediate_with_grad():
    def f(x, w):
        h = x @ w
        h[:, 0] = 0.0
        h.mul_(torch.sigmoid(x[:, :1]))
        h.relu_()
        return h.sum() + x.t().sum()

    check(f, torch.randn(4, 3, requires_grad=True), torch.randn(3, 5, requires_grad=True), grad=True)


def test_views_split_unbind_expand():
    def f(x, y):
        a, b = x.split([1, 3], dim=1)
        u = y.unbind(0)
        e = a.expand(3, 5)
        return e + u[1][:3].unsqueeze(1), b.permute(1, 0).reshape(-1), torch.cat([x, y.t().t() * 2], 0)

    check(f, torch.randn(3, 4, requires_grad=True), torch.randn(2, 4, requires_grad=True), grad=True)


# ---------------------------------------------------------------------------
# Scalars, promotion, assorted ops


def test_scalars_and_promotion():
    def f(x, n, b):
        return (x + 2, 3 - x, x * 0.5 + n, n / 2, n + 1, x ** 2, 2 ** x, x.pow(n.float()),
                (x > 0.25) & b, torch.where(b, x, 0.0), x.clamp(-0.5, 0.5), x.clamp_min(0.1),
                n == 2, (n * 1.5).sum(), x.neg().abs().sqrt().exp().log1p())

    x = torch.randn(3, 4)
    n = torch.tensor([[1, 2, 3, 4]] * 3)
    b = torch.rand(3, 4) > 0.3
    check(f, x, n, b)


def test_reductions_and_indexing():
    def f(x, idx, src):
        return (x.sum(), x.mean(1, keepdim=True), x.amax(0), x.var(1), x.var(0, correction=0),
                x.std(1), x.argmax(1), x.max(1).values, x.max(1).indices, x.min(0)[0],
                torch.index_select(x, 1, idx), torch.gather(x, 1, idx.expand(3, 2)),
                torch.zeros(3, 4).scatter_add(1, idx.expand(3, 2), src), x[:, idx],
                torch.arange(5) * 2, torch.full((2,), 7.0), torch.ones(2, dtype=torch.int64),
                x.softmax(0), x.log_softmax(-1), torch.any(x > 1), torch.all(x > -3, dim=1))

    check(f, torch.randn(3, 4), torch.tensor([2, 0]), torch.randn(3, 2))


def test_embedding_padding_idx_gradient():
    emb = nn.Embedding(6, 3, padding_idx=1)
    idx = torch.tensor([[1, 2, 1], [0, 5, 3]])
    check(lambda i: emb(i).sum(1), idx, grad=True)


def test_constants_in_graph():
    def f(x):
        c = torch.tensor([1.0, float("inf"), -2.0, float("nan")])
        return x * c, torch.tensor([[1, 2], [3, 4]]) + 1

    check(f, torch.randn(4))


def test_decomposed_composites():
    def f(x, w, b):
        return (F.group_norm(x.view(2, 6, 2), 3, w, b), F.pad(x, (1, 2)), torch.stack([x, x * 2], 1),
                x.repeat(2, 1), x.flip(1), x.roll(2, 1), torch.std_mean(x, 1), F.silu(x), F.leaky_relu(x, 0.1),
                F.softplus(x), F.hardtanh(x), F.smooth_l1_loss(x, x.flip(0)), torch.logsumexp(x, 1),
                torch.addcmul(x, x, x, value=0.5), torch.var_mean(x, 0, correction=0))

    check(f, torch.randn(4, 6, requires_grad=True), torch.rand(6, requires_grad=True),
          torch.randn(6, requires_grad=True), grad=True)


def test_no_grad_regions():
    def f(x, a):
        with torch.no_grad():
            y = x * 2
            a.mul_(2)
        return x + y, a + 3

    tr = check(f, torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True), grad=True)
    assert "aot.no_grad" in tr.text
    assert tr.mutated_inputs == [1]


# ---------------------------------------------------------------------------
# Randomness


def test_dropout():
    if AOT_RUN is None:
        pytest.skip("aot-run not built")

    def f(x):
        return F.dropout(x, 0.5, True), F.dropout(x, 0.0, True) * 1

    x = torch.randn(4, 8, requires_grad=True)
    gm, inputs = capture(f, x)
    tr = fx_ir.translate(fx_ir.to_aten(gm, inputs), inputs)
    assert tr.has_random
    assert '"rng.dropout"' in tr.text
    for mode in ("compiled", "eager"):
        res = run_aot(tr, inputs, mode)
        d = from_json(res["outputs"][tr.outputs[0][1]])
        assert d.shape == (4, 8)
        kept = d != 0
        # kept elements are scaled by 1 / (1 - p)
        assert_close(d[kept], inputs[0].detach()[kept] * 2, "dropout kept")
        assert 0 < int(kept.sum()) < 32
        assert_close(from_json(res["outputs"][tr.outputs[1][1]]), inputs[0].detach(), "dropout p=0")
    # eager and compiled draw the same numbers from the same seed
    a = run_aot(tr, inputs, "compiled")["outputs"]
    b = run_aot(tr, inputs, "eager")["outputs"]
    assert a == b or all(x["data"] == y["data"] for x, y in zip(a, b))


def test_random_ops():
    if AOT_RUN is None:
        pytest.skip("aot-run not built")

    def f(x):
        u = torch.rand(3, 4)
        n = torch.randn_like(x)
        b = torch.bernoulli(torch.full((3, 4), 0.5))
        e = torch.empty(3, 4).uniform_(2.0, 3.0)
        return u, n, b, e, x + 1

    x = torch.randn(3, 4)
    gm, inputs = capture(f, x)
    tr = fx_ir.translate(fx_ir.to_aten(gm, inputs), inputs)
    assert tr.has_random
    for op in ("rng.uniform", "rng.normal", "rng.bernoulli"):
        assert '"%s"' % op in tr.text
    outs = {}
    for mode in ("compiled", "eager"):
        res = run_aot(tr, inputs, mode)
        vals = [from_json(res["outputs"][d[1]]) for d in tr.outputs]
        u, n, b, e, y = vals
        assert u.shape == n.shape == b.shape == e.shape == (3, 4)
        assert bool(((u >= 0) & (u < 1)).all()) and bool(((e >= 2) & (e < 3)).all())
        assert bool(((b == 0) | (b == 1)).all())
        assert_close(y, inputs[0] + 1, "deterministic output")
        outs[mode] = vals
    for a, b in zip(outs["compiled"], outs["eager"]):
        assert torch.equal(a, b), "eager and compiled draws differ"


def test_dropout_transformer_train_runs():
    if AOT_RUN is None:
        pytest.skip("aot-run not built")
    torch.manual_seed(7)
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.1, batch_first=True)
    x = torch.randn(2, 3, 16, requires_grad=True)
    gm, inputs = capture(lambda x: layer(x).sum(), x)
    tr = fx_ir.translate(fx_ir.to_aten(gm, inputs), inputs)
    assert tr.has_random
    res = run_aot(tr, inputs, "compiled", grad=True)
    out = from_json(res["outputs"][0])
    assert out.shape == () and math.isfinite(float(out))
    assert all(g is not None for g, t in zip(res["grads"], inputs) if t.requires_grad)


# ---------------------------------------------------------------------------
# Unsupported ops


def _aten_graph(fn, *args):
    gm, inputs = capture(fn, *args)
    return fx_ir.to_aten(gm, inputs), inputs


@pytest.mark.parametrize("which", ["nonzero", "cummax", "svd"])
def test_unsupported(which):
    fns = {
        "cummax": lambda x: torch.cummax(x, dim=1).values + 1,
        "svd": lambda x: torch.linalg.svd(x).S * 2,
    }
    if which == "nonzero":
        g, inputs = fx_ir.to_aten(lambda x: torch.nonzero(x > 0), [torch.randn(3, 4)]), [torch.randn(3, 4)]
    else:
        g, inputs = _aten_graph(fns[which], torch.randn(3, 4))
    reasons = {n.name: fx_ir.unsupported_reason(n) for n in g.graph.nodes}
    bad = {k: v for k, v in reasons.items() if v is not None}
    assert bad, "no node reported unsupported"
    with pytest.raises(fx_ir.Unsupported) as e:
        fx_ir.translate(g, inputs)
    assert e.value.node_name in bad
    assert e.value.reason


def test_unsupported_dtype_and_forms():
    g = fx_ir.to_aten(lambda x: (x * 2).sum(), [torch.randn(3, dtype=torch.complex64)])
    with pytest.raises(fx_ir.Unsupported) as e:
        fx_ir.translate(g, [torch.randn(3, dtype=torch.complex64)])
    assert "complex" in e.value.reason
    g = fx_ir.to_aten(lambda x, m: x[m], [torch.randn(3), torch.tensor([True, False, True])])
    with pytest.raises(fx_ir.Unsupported):
        fx_ir.translate(g, [torch.randn(3), torch.tensor([True, False, True])])


def test_no_mutation_of_example_inputs():
    bn = nn.BatchNorm1d(3)
    rm = bn.running_mean.clone()
    x = torch.randn(4, 3)

    def f(x):
        x.mul_(2)
        return bn(x)

    gm, inputs = capture(f, x.clone())
    before = [t.clone() for t in inputs]
    fx_ir.to_aten(gm, inputs)
    for a, b in zip(inputs, before):
        assert torch.equal(a, b)
    del rm


def test_table_covers_catalogue():
    required = [
        aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.mul.Tensor, aten.mul.Scalar, aten.div.Tensor,
        aten.neg.default, aten.exp.default, aten.log.default, aten.log1p.default, aten.sqrt.default,
        aten.rsqrt.default, aten.sin.default, aten.cos.default, aten.tan.default, aten.tanh.default,
        aten.sigmoid.default, aten.relu.default, aten.gelu.default, aten.erf.default, aten.abs.default,
        aten.sign.default, aten.reciprocal.default, aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor,
        aten.clamp.default, aten.clamp_min.default, aten.clamp_max.default, aten.maximum.default,
        aten.minimum.default, aten.where.self, aten.eq.Scalar, aten.ne.Tensor, aten.lt.Scalar, aten.le.Tensor,
        aten.gt.Scalar, aten.ge.Tensor, aten.sum.dim_IntList, aten.mean.dim, aten.amax.default,
        aten.amin.default, aten.var.correction, aten._softmax.default, aten._log_softmax.default,
        aten.mm.default, aten.bmm.default, aten.addmm.default, aten.embedding.default,
        aten.index_select.default, aten.gather.default, aten.scatter_add.default, aten.index_put.default,
        aten.cat.default, aten.arange.start_step, aten.full.default, aten.zeros.default, aten.ones.default,
        aten.empty.memory_format, aten.clone.default, aten._to_copy.default, aten.native_layer_norm.default,
        aten.argmax.default, aten.view.default, aten.reshape.default, aten._unsafe_view.default,
        aten.expand.default, aten.permute.default, aten.transpose.int, aten.t.default, aten.unsqueeze.default,
        aten.squeeze.dim, aten.select.int, aten.slice.Tensor, aten.split.Tensor, aten.split_with_sizes.default,
        aten.unbind.int, aten.diagonal.default, aten.as_strided.default, aten.alias.default, aten.detach.default,
        aten.slice_scatter.default, aten.select_scatter.default, aten.diagonal_scatter.default,
        aten.as_strided_scatter.default, aten.add_.Tensor, aten.sub_.Tensor, aten.mul_.Tensor, aten.div_.Tensor,
        aten.copy_.default, aten.fill_.Scalar, aten.zero_.default, aten.clamp_.default, aten.relu_.default,
        aten.sigmoid_.default, aten.tanh_.default, aten.exp_.default, aten.neg_.default, aten.index_put_.default,
        aten.t_.default, aten.transpose_.default, aten.squeeze_.dim, aten.unsqueeze_.default,
        aten.as_strided_.default, aten.resize_.default, aten.set_.source_Tensor, aten.native_dropout.default,
        aten.bernoulli.p, aten.rand.default, aten.randn.default, aten.masked_fill.Scalar,
    ]
    missing = [str(op) for op in required if op not in fx_ir.ATEN_TO_IR]
    assert not missing, missing


def test_every_op_name_the_translator_writes_is_registered():
    """The op table names IR ops as string literals: each one (in the
    translator, its op table and the convolution lowering) is an op of the
    registry, so a renamed or removed op fails here, not in a user's
    compile. The modules import without a cycle (the op table builds on
    `ir_builder`, which imports neither)."""
    import ast
    import importlib

    import aot_torch
    from aot_torch import _native

    registered = set(_native.op_names())
    assert {"tensor.add", "view.select", "mut.copy_"} <= registered
    # (`aot.` literals are attribute names: `aot.no_grad`.)
    dialects = {n.split(".")[0] for n in registered} - {"aot"}
    from aot_torch import aten_ops

    found = {name: "an aten_ops entry factory" for name in aten_ops.NAMED_OPS}
    for module in ("fx_ir", "aten_ops", "ir_builder", "conv"):
        path = Path(importlib.import_module("aot_torch." + module).__file__)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                head, dot, tail = node.value.partition(".")
                if dot and head in dialects and tail.replace("_", "").isalnum():
                    found.setdefault(node.value, "%s.py:%d" % (module, node.lineno))
    assert len(found) > 100, sorted(found)
    unknown = {name: where for name, where in found.items() if name not in registered}
    assert not unknown, "op names the registry does not know: %s" % unknown
    # `ir_builder` stands alone; the op table does not import the translator.
    # (On fresh copies of the three modules, the originals put back after:
    # the other modules keep theirs, and a translation with symbolic sizes
    # sets `ir_builder.SYMBOLS` on the one they import, so a second copy
    # left in `sys.modules` made later symbolic compiles in this process
    # refuse every symbolic size.)
    import sys
    names = ("aot_torch.aten_ops", "aot_torch.fx_ir", "aot_torch.ir_builder")
    originals = {name: sys.modules[name] for name in names}
    try:
        for name in names:
            sys.modules.pop(name, None)
        builder = importlib.import_module("aot_torch.ir_builder")
        assert "aot_torch.fx_ir" not in sys.modules and "aot_torch.aten_ops" not in sys.modules
        importlib.import_module("aot_torch.aten_ops")
        assert "aot_torch.fx_ir" not in sys.modules
        fx = importlib.import_module("aot_torch.fx_ir")
        assert fx.Builder is builder.Builder and fx.ATEN_TO_IR
    finally:
        sys.modules.update(originals)
        for name, module in originals.items():
            setattr(aot_torch, name.split(".")[1], module)
