#!/usr/bin/env python3
"""Generate the training-model cases of `test/run/models/` and check them
against PyTorch's own modules.

Each case is a whole training step written in the IR — an MLP with an MSE
loss, a transformer encoder layer (multi-head attention, layer_norm, GELU,
residuals) with an MSE loss, and the same layer with dropout — plus its
inputs. Before writing a case this script runs the IR with PyTorch eager
semantics (torch_ref.py) and compares loss and every gradient with the
equivalent `torch.nn` module (`nn.Linear` stacks, `nn.TransformerEncoderLayer`)
loaded with the same weights: the IR is the model it claims to be, so the
goldens `gen.py` then writes are PyTorch's gradients of that model.

The dropout variant cannot have a golden (PyTorch's CPU generator is not
Philox); it is written in f64 so that the tests check it against finite
differences of the eager interpreter under the same seed.

Usage (needs torch; see README.md):
  models.py            write the cases, then run gen.py models/
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import torch_ref  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "test", "run", "models")
DT = {torch.float32: "f32", torch.float64: "f64"}


def ty(shape, dt):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dt)


class Builder:
    """SSA text for one function: `op` appends `%N = name operands ...`."""

    def __init__(self, dt):
        self.dt = dt
        self.args = []
        self.lines = []
        self.types = {}
        self.n = 0

    def arg(self, name, shape):
        self.args.append("%%%s: %s" % (name, ty(shape, self.dt)))
        self.types["%" + name] = ty(shape, self.dt)
        return "%" + name

    def op(self, name, operands, shapes, attrs="", dt=None):
        """`shapes`: one result shape, or a list of them (multi-result)."""
        multi = isinstance(shapes[0], (list, tuple)) if shapes else False
        rshapes = shapes if multi else [shapes]
        rtypes = [ty(s, dt or self.dt) for s in rshapes]
        v = "%%%d" % self.n
        self.n += 1
        lhs = v if not multi else "%s:%d" % (v, len(rshapes))
        attr = (" " + attrs) if attrs else ""
        ins = ", ".join(self.types[o] for o in operands)
        outs = rtypes[0] if len(rtypes) == 1 else "(%s)" % ", ".join(rtypes)
        self.lines.append("  %s = %s %s%s : %s -> %s" % (lhs, name, ", ".join(operands), attr, ins, outs))
        if not multi:
            self.types[v] = rtypes[0]
            return v
        names = ["%s#%d" % (v, i) for i in range(len(rshapes))]
        for nm, t in zip(names, rtypes):
            self.types[nm] = t
        return names

    def const(self, value):
        v = "%%%d" % self.n
        self.n += 1
        t = ty([], self.dt)
        self.lines.append("  %s = tensor.constant dense<%r> : %s" % (v, float(value), t))
        self.types[v] = t
        return v

    def text(self, doc, results):
        rt = [self.types[r] for r in results]
        rts = rt[0] if len(rt) == 1 else "(%s)" % ", ".join(rt)
        head = "".join("/// %s\n" % line for line in doc)
        return "%sfunc.func @main(%s) -> %s {\n%s\n  return %s : %s\n}\n" % (
            head,
            ", ".join(self.args),
            rts,
            "\n".join(self.lines),
            ", ".join(results),
            ", ".join(rt),
        )


def mse(b, y, target, shape):
    d = b.op("tensor.sub", [y, target], shape)
    sq = b.op("tensor.mul", [d, d], shape)
    return b.op("tensor.mean", [sq], [], "{dims = []}")


def values(gen, shape, scale):
    t = torch.randn(shape, generator=gen, dtype=torch.float64) * scale
    return [round(float(v), 4) for v in t.flatten()]


def spec(dt, shape, data, rg):
    return {"dtype": DT[dt], "shape": list(shape), "data": data, "requires_grad": rg}


# --------------------------------------------------------------------------
# MLP: 4 -> 16 (tanh) -> 16 (relu) -> 2, mean squared error.

MLP = [(16, 4), (16, 16), (2, 16)]


def mlp_case(dt):
    n = 8
    b = Builder(DT[dt])
    x = b.arg("x", [n, 4])
    t = b.arg("target", [n, 2])
    params = []
    for i, (o, k) in enumerate(MLP):
        params.append((b.arg("w%d" % i, [o, k]), b.arg("b%d" % i, [o])))
    h = x
    for i, ((w, bias), (o, _)) in enumerate(zip(params, MLP)):
        h = b.op("tensor.linear", [h, w, bias], [n, o])
        if i == 0:
            h = b.op("tensor.tanh", [h], [n, o])
        elif i == 1:
            h = b.op("tensor.relu", [h], [n, o])
    loss = mse(b, h, t, [n, 2])
    text = b.text(
        [
            "A training step of a three-layer MLP (tanh, relu) with a mean squared",
            "error loss: the loss is the only output, so every parameter's gradient",
            "is d loss / d parameter. Generated by test/golden/models.py, which checks",
            "it against torch.nn.Linear layers and F.mse_loss.",
        ],
        [loss],
    )
    gen = torch.Generator().manual_seed(1)
    args = [spec(dt, [n, 4], values(gen, [n, 4], 1.0), False), spec(dt, [n, 2], values(gen, [n, 2], 1.0), False)]
    for o, k in MLP:
        args.append(spec(dt, [o, k], values(gen, [o, k], 1.0 / k**0.5), True))
        args.append(spec(dt, [o], values(gen, [o], 0.1), True))
    return text, {"args": args}


def mlp_reference(inputs, dt):
    a = [torch.tensor(s["data"], dtype=dt).reshape(s["shape"]) for s in inputs["args"]]
    layers = [nn.Linear(k, o).to(dt) for o, k in MLP]
    with torch.no_grad():
        for i, lin in enumerate(layers):
            lin.weight.copy_(a[2 + 2 * i])
            lin.bias.copy_(a[3 + 2 * i])
    y = torch.relu(layers[1](torch.tanh(layers[0](a[0]))))
    loss = F.mse_loss(layers[2](y), a[1])
    loss.backward()
    grads = [None, None]
    for lin in layers:
        grads += [lin.weight.grad, lin.bias.grad]
    return loss, grads


# --------------------------------------------------------------------------
# Transformer encoder layer (post-norm, GELU, batch_first), MSE loss.

B, S, D, H, FF = 2, 3, 8, 2, 16
HD = D // H
ENC_PARAMS = [
    ("in_w", [3 * D, D]),
    ("in_b", [3 * D]),
    ("out_w", [D, D]),
    ("out_b", [D]),
    ("l1_w", [FF, D]),
    ("l1_b", [FF]),
    ("l2_w", [D, FF]),
    ("l2_b", [D]),
    ("n1_w", [D]),
    ("n1_b", [D]),
    ("n2_w", [D]),
    ("n2_b", [D]),
]


def encoder_case(dt, p):
    b = Builder(DT[dt])
    x = b.arg("x", [B, S, D])
    t = b.arg("target", [B, S, D])
    w = {name: b.arg(name, shape) for name, shape in ENC_PARAMS}

    def dropout(v, shape):
        if p == 0.0:
            return v
        out, _ = b.op("rng.dropout", [v], [shape, shape], "{p = %r}" % p)
        # The mask's element type is i1: fix the declared type.
        b.lines[-1] = b.lines[-1].replace(
            "-> (%s, %s)" % (ty(shape, b.dt), ty(shape, b.dt)), "-> (%s, %s)" % (ty(shape, b.dt), ty(shape, "i1"))
        )
        return out

    qkv = b.op("tensor.linear", [x, w["in_w"], w["in_b"]], [B, S, 3 * D])
    q, k, v = b.op("view.split", [qkv], [[B, S, D]] * 3, "{dim = -1, sizes = [%d, %d, %d]}" % (D, D, D))
    heads = []
    for m in (q, k, v):
        r = b.op("view.reshape", [m], [B, S, H, HD], "{shape = [%d, %d, %d, %d]}" % (B, S, H, HD))
        heads.append(b.op("view.permute", [r], [B, H, S, HD], "{dims = [0, 2, 1, 3]}"))
    qh, kh, vh = heads
    kt = b.op("view.transpose", [kh], [B, H, HD, S], "{dim0 = -2, dim1 = -1}")
    scores = b.op("tensor.matmul", [qh, kt], [B, H, S, S])
    scale = b.const(1.0 / HD**0.5)
    scaled = b.op("tensor.mul", [scores, scale], [B, H, S, S])
    attn = b.op("tensor.softmax", [scaled], [B, H, S, S], "{dim = -1}")
    attn = dropout(attn, [B, H, S, S])
    ctx = b.op("tensor.matmul", [attn, vh], [B, H, S, HD])
    ctx = b.op("view.permute", [ctx], [B, S, H, HD], "{dims = [0, 2, 1, 3]}")
    ctx = b.op("view.reshape", [ctx], [B, S, D], "{shape = [%d, %d, %d]}" % (B, S, D))
    sa = b.op("tensor.linear", [ctx, w["out_w"], w["out_b"]], [B, S, D])
    sa = dropout(sa, [B, S, D])
    r1 = b.op("tensor.add", [x, sa], [B, S, D])
    n1 = b.op(
        "tensor.layer_norm",
        [r1, w["n1_w"], w["n1_b"]],
        [[B, S, D], [B, S, 1], [B, S, 1]],
        "{normalized_ndim = 1, eps = 1.0e-5}",
    )[0]
    h = b.op("tensor.linear", [n1, w["l1_w"], w["l1_b"]], [B, S, FF])
    h = b.op("tensor.gelu", [h], [B, S, FF])
    h = dropout(h, [B, S, FF])
    f = b.op("tensor.linear", [h, w["l2_w"], w["l2_b"]], [B, S, D])
    f = dropout(f, [B, S, D])
    r2 = b.op("tensor.add", [n1, f], [B, S, D])
    out = b.op(
        "tensor.layer_norm",
        [r2, w["n2_w"], w["n2_b"]],
        [[B, S, D], [B, S, 1], [B, S, 1]],
        "{normalized_ndim = 1, eps = 1.0e-5}",
    )[0]
    loss = mse(b, out, t, [B, S, D])
    doc = [
        "A training step of a transformer encoder layer: %d-head self-attention" % H,
        "(packed q/k/v projection, scaled dot product, softmax), residual and",
        "layer_norm, a GELU feed-forward block, residual and layer_norm, then a",
        "mean squared error loss (d_model %d, feed-forward %d, batch %d, sequence %d)." % (D, FF, B, S),
    ]
    if p == 0.0:
        doc.append("Generated by test/golden/models.py, which checks it against")
        doc.append("torch.nn.TransformerEncoderLayer(activation=\"gelu\", batch_first=True).")
    else:
        doc = [
            "// golden: skip (PyTorch's CPU generator is mt19937, not Philox: gradients are checked against finite differences)",
            "",
        ] + doc
        doc.append("Dropout (p = %r) on the attention weights, the attention output, the" % p)
        doc.append("GELU output and the feed-forward output, as nn.TransformerEncoderLayer")
        doc.append("does in training; f64 so that finite differences are exact enough.")
    gen = torch.Generator().manual_seed(2)
    args = [
        spec(dt, [B, S, D], values(gen, [B, S, D], 1.0), True),
        spec(dt, [B, S, D], values(gen, [B, S, D], 1.0), False),
    ]
    for name, shape in ENC_PARAMS:
        if name.startswith("n") and name.endswith("_w"):
            data = [round(1.0 + v, 4) for v in values(gen, shape, 0.1)]
        else:
            data = values(gen, shape, 0.1 if name.endswith("_b") else 1.0 / shape[-1] ** 0.5)
        args.append(spec(dt, shape, data, True))
    text = b.text([d for d in doc if not d.startswith("//") and d != ""], [loss])
    skip = [d for d in doc if d.startswith("//")]
    if skip:
        text = skip[0] + "\n\n" + text
    return text, {"args": args}


def encoder_reference(inputs, dt):
    a = [torch.tensor(s["data"], dtype=dt).reshape(s["shape"]) for s in inputs["args"]]
    x = a[0].clone().requires_grad_(True)
    layer = nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, activation="gelu", batch_first=True).to(dt)
    mods = [
        layer.self_attn.in_proj_weight,
        layer.self_attn.in_proj_bias,
        layer.self_attn.out_proj.weight,
        layer.self_attn.out_proj.bias,
        layer.linear1.weight,
        layer.linear1.bias,
        layer.linear2.weight,
        layer.linear2.bias,
        layer.norm1.weight,
        layer.norm1.bias,
        layer.norm2.weight,
        layer.norm2.bias,
    ]
    with torch.no_grad():
        for p, v in zip(mods, a[2:]):
            p.copy_(v)
    layer.train()  # the fast path is inference-only; the math is the same
    loss = F.mse_loss(layer(x), a[1])
    loss.backward()
    return loss, [x.grad, None] + [p.grad for p in mods]


# --------------------------------------------------------------------------


def check(name, text, inputs, reference, dt):
    got = torch_ref.run(text, inputs, None)
    if "error" in got:
        raise SystemExit("%s: torch_ref raised: %s" % (name, got["error"]))
    loss, grads = reference(inputs, dt)
    tol = dict(rtol=1e-4, atol=1e-5) if dt == torch.float32 else dict(rtol=1e-9, atol=1e-12)
    out = torch.tensor(got["outputs"][0]["data"], dtype=dt).reshape(())
    if not torch.allclose(out, loss.detach(), **tol):
        raise SystemExit("%s: loss %s, torch.nn gives %s" % (name, out.item(), loss.item()))
    for i, (g, want) in enumerate(zip(got["grads"], grads)):
        if want is None:
            if g is not None:
                raise SystemExit("%s: grads[%d] should be null" % (name, i))
            continue
        have = torch.tensor(g["data"], dtype=dt).reshape(want.shape)
        if not torch.allclose(have, want, **tol):
            raise SystemExit("%s: grads[%d] differs from torch.nn: max error %g" % (name, i, (have - want).abs().max()))


def write(name, text, inputs):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".mlir"), "w") as fh:
        fh.write(text)
    with open(os.path.join(OUT, name + ".inputs.json"), "w") as fh:
        fh.write(torch_ref.dumps(inputs) + "\n")
    print("wrote test/run/models/%s" % name)


def main():
    torch.set_num_threads(1)
    for dt, suffix in [(torch.float32, ""), (torch.float64, "_f64")]:
        text, inputs = mlp_case(dt)
        check("mlp_mse" + suffix, text, inputs, mlp_reference, dt)
        write("mlp_mse" + suffix, text, inputs)
    text, inputs = encoder_case(torch.float32, 0.0)
    check("transformer_encoder_layer", text, inputs, encoder_reference, torch.float32)
    write("transformer_encoder_layer", text, inputs)
    text, inputs = encoder_case(torch.float64, 0.0)
    check("transformer_encoder_layer_f64", text, inputs, encoder_reference, torch.float64)
    write("transformer_encoder_layer_f64", text, inputs)
    text, inputs = encoder_case(torch.float64, 0.1)
    write("transformer_encoder_layer_dropout", text, inputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
