"""Symbolic sizes from Python: a ``torch.export`` program with ``Dim``s
imports as one IR function with symbolic sizes, which one compile trains
at every size its ranges allow (loss and gradients equal eager's at each);
what the ShapeEnv decides on a size while tracing becomes a guard of the
function, and a call that breaks a range or a guard is refused; sizes
the IR cannot say give the example's sizes, with the reason kept."""

import copy
import math

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim, export

import aot_torch
from aot_torch import symbolic


class Decoder(torch.nn.Module):
    """Embedding, causal attention, layer norm, MLP, cross-entropy."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 32)
        self.ln = torch.nn.LayerNorm(32)
        self.qkv = torch.nn.Linear(32, 96)
        self.o = torch.nn.Linear(32, 32)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 32))
        self.head = torch.nn.Linear(32, 50)

    def forward(self, ids, tgt):
        h = self.emb(ids)
        b, t, c = h.shape
        q, k, v = self.qkv(self.ln(h)).split(32, dim=-1)
        q, k, v = (z.view(b, t, 4, 8).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + self.o(a.transpose(1, 2).reshape(b, t, c))
        h = h + self.mlp(self.ln(h))
        return F.cross_entropy(self.head(h).view(b * t, 50), tgt.view(-1))


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x, y):
        h = F.max_pool2d(F.relu(self.c1(x)), 2)
        h = F.relu(self.c2(h))
        return F.cross_entropy(self.fc(h.mean((2, 3))), y)


class PooledCNN(torch.nn.Module):
    """A ResNet-style stem: convolutions with batch norm, max pooling, a
    strided block, adaptive average pooling to 1x1 and a linear head (the
    flatten after the pool made PyTorch write `A mod (n*A)` sizes)."""

    channels_last = False

    def __init__(self):
        super().__init__()

        def block(cin, cout, stride):
            return torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                                       torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True))

        self.features = torch.nn.Sequential(block(3, 8, 1), torch.nn.MaxPool2d(2), block(8, 16, 2), block(16, 16, 1))
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.head = torch.nn.Linear(16, 10)
        if self.channels_last:
            self.to(memory_format=torch.channels_last)

    def forward(self, x, y):
        if self.channels_last:
            x = x.to(memory_format=torch.channels_last)
        return F.cross_entropy(self.head(self.pool(self.features(x)).flatten(1)), y)


class PooledCNNChannelsLast(PooledCNN):
    """The same with its weights and its input batch channels-last."""

    channels_last = True


class ManualAttention(torch.nn.Module):
    """Attention written out: positions from `arange` of the sequence length,
    a causal mask from `triu` of a `full` of it, and the last position's
    logits (`[:, -1]`)."""

    def __init__(self, vocab=40, d=32, heads=4):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(64, d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.o = torch.nn.Linear(d, d)
        self.ln = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab)
        self.heads = heads

    def forward(self, ids, tgt):
        b, t = ids.shape
        h = self.emb(ids) + self.pos(torch.arange(t))
        q, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in self.qkv(self.ln(h)).chunk(3, -1))
        att = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        att = (att + torch.triu(torch.full((t, t), float("-inf")), 1)).softmax(-1)
        h = h + self.o((att @ v).transpose(1, 2).reshape(b, t, -1))
        logits = self.head(h)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1)) + logits[:, -1].mean()


class EncoderLM(torch.nn.Module):
    """`nn.TransformerEncoderLayer` with a causal mask of the sequence
    length."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(40, 32)
        self.enc = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.head = torch.nn.Linear(32, 40)

    def forward(self, ids, tgt):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        h = self.enc(self.emb(ids), src_mask=mask, is_causal=True)
        return F.cross_entropy(self.head(h).flatten(0, 1), tgt.flatten())


class BatchNormCNN(torch.nn.Module):
    """Batch norm in training (its running statistics updated in place, the
    unbiased variance's factor from the symbolic count) and adaptive
    pooling."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x, y):
        h = F.relu(self.c2(F.relu(self.bn(self.c1(x)))))
        return F.cross_entropy(self.fc(F.adaptive_avg_pool2d(h, 1).flatten(1)), y)


class GroupNormConv1d(torch.nn.Module):
    """1-d convolutions (one strided) around a group norm over a symbolic
    length (its statistics through an `as_strided` view of the groups)."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv1d(4, 8, 5, padding=2)
        self.g = torch.nn.GroupNorm(2, 8)
        self.c2 = torch.nn.Conv1d(8, 8, 3, stride=2)

    def forward(self, x, y):
        return F.mse_loss(self.c2(F.silu(self.g(self.c(x)))).mean(-1), y)


class MaskedMeanPool(torch.nn.Module):
    """Mean over the non-padding tokens of each sequence."""

    def __init__(self):
        super().__init__()
        self.e = torch.nn.Embedding(30, 16)
        self.out = torch.nn.Linear(16, 2)

    def forward(self, ids, y):
        mask = ids != 0
        h = self.e(ids).masked_fill(~mask.unsqueeze(-1), 0.0)
        return F.cross_entropy(self.out(h.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)), y)


class CrossAttention(torch.nn.Module):
    """Queries and memory of two different symbolic lengths."""

    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(16, 16)
        self.kv = torch.nn.Linear(16, 32)
        self.o = torch.nn.Linear(16, 4)

    def forward(self, x, mem, y):
        k, v = self.kv(mem).chunk(2, -1)
        a = F.scaled_dot_product_attention(self.q(x).unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)).squeeze(1)
        return F.mse_loss(self.o(a).mean(1), y)


def _tokens40(b, t):
    return torch.randint(0, 40, (b, t)), torch.randint(0, 40, (b, t))


def _decoder_inputs(b, t):
    return torch.randint(0, 50, (b, t)), torch.randint(0, 50, (b, t))


def _cnn_inputs(n, h):
    return torch.randn(n, 3, h, h), torch.randint(0, 10, (n,))


CASES = [
    (Decoder, _decoder_inputs, (2, 8), lambda: {"ids": {0: Dim("B", min=2, max=32), 1: Dim("T", min=2, max=64)},
                                                 "tgt": {0: Dim("B", min=2, max=32), 1: Dim("T", min=2, max=64)}},
     [(2, 8), (3, 5), (4, 16), (2, 8)]),
    (CNN, _cnn_inputs, (2, 8), lambda: {"x": {0: Dim("N", min=2, max=32), 2: Dim("H", min=6, max=64),
                                              3: Dim("H", min=6, max=64)}, "y": {0: Dim("N", min=2, max=32)}},
     [(2, 8), (3, 12), (4, 6), (2, 7)]),
]


@pytest.mark.parametrize("model,make,example,dims,sizes", CASES, ids=["decoder", "cnn"])
@pytest.mark.parametrize("backend", ["cranelift", "interp"])
def test_one_compile_trains_at_every_size(model, make, example, dims, sizes, backend):
    torch.manual_seed(0)
    net = model()
    ep = export(copy.deepcopy(net), make(*example), dynamic_shapes=dims())
    p = aot_torch.import_exported_program(ep, joint=True)
    assert p.symbolic, p.static_reason
    header = p.text.splitlines()[0]
    assert "s0" in header and "aot.symbols" in header, header
    n_users = len(p.signature.user_inputs)
    state = [t.detach().clone().requires_grad_(t.requires_grad) for t in p.example_inputs[:-n_users]]
    f = aot_torch.compile_ir(p.text, state + list(p.example_inputs[-n_users:]), native_backend=backend)
    per_size = aot_torch.versions_per_size()
    for size in sizes:
        args = make(*size)
        (loss,), saved = f.forward(state + list(args))
        grads = f.backward(saved, [None])
        ref = copy.deepcopy(net)
        want = ref(*args)
        want.backward()
        torch.testing.assert_close(loss, want.detach(), msg="loss at %s" % (size,))
        for name, fqn in p.signature.inputs_to_parameters.items():
            torch.testing.assert_close(grads[p.input_names.index(name)], ref.get_parameter(fqn).grad,
                                       rtol=1e-4, atol=1e-5, msg="%s at %s" % (fqn, size))
    # Native code reads the sizes (the CNN's image sizes too) at run time.
    assert aot_torch.versions_per_size() == per_size, "code generated per size"


def test_a_call_outside_the_ranges_is_refused():
    torch.manual_seed(0)
    net = Decoder()
    p = aot_torch.import_exported_program(export(net, _decoder_inputs(2, 8), dynamic_shapes=CASES[0][3]()))
    state = [t.detach() for t in p.example_inputs[:-2]]
    f = aot_torch.compile_ir(p.text, state + list(_decoder_inputs(2, 8)), training=False)
    args = _decoder_inputs(5, 3)
    (out,) = f(state + list(args))
    with torch.no_grad():
        torch.testing.assert_close(out, net(*args))
    with pytest.raises(aot_torch.ConventionError, match=r"outside the range \[2, 64\] of symbol s1"):
        f(state + list(_decoder_inputs(2, 65)))
    with pytest.raises(aot_torch.ConventionError, match="sizes 0 and 1 are specialized"):
        f(state + list(_decoder_inputs(2, 1)))


def _symbolic_fake(mode, shape, dynamic):
    from torch.fx.experimental.symbolic_shapes import DimDynamic, StatelessSymbolicContext

    ctx = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC if d else DimDynamic.STATIC for d in dynamic])
    return mode.from_tensor(torch.randn(shape), symbolic_context=ctx)


def _fake_mode():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    return FakeTensorMode(shape_env=ShapeEnv())


def test_a_decision_on_a_size_becomes_a_guard():
    """`reshape(-1, 3)` of a symbolic size makes the ShapeEnv assume that 3
    divides it: the function says so (the IR proves the view's sizes with
    that guard), runs where it holds and refuses a call where it does not
    (never a wrong answer)."""
    mode = _fake_mode()
    x = _symbolic_fake(mode, (6,), [True])
    gm = torch.fx.symbolic_trace(lambda x: (x.reshape(-1, 3) * 2).sum(1))
    tr, table = symbolic.translate(gm, [x], mode, name="main")
    header = tr.text.splitlines()[0]
    assert "aot.guards" in header and "mod 3) == 0" in header, header
    assert "tensor<s0xf32>" in header, header
    f = aot_torch.compile_ir(tr.text, [torch.randn(6)], training=False)
    for n in (6, 9, 30):
        a = torch.randn(n)
        (out,) = f([a])
        torch.testing.assert_close(out, (a.reshape(-1, 3) * 2).sum(1))
    with pytest.raises(aot_torch.ConventionError, match="guard .* fails with s0 = 8"):
        f([torch.randn(8)])
    # (The ShapeEnv also assumed the new size `s0 // 3` is not 0 or 1, as
    # it does every size: s0 is at least 6.)
    with pytest.raises(aot_torch.ConventionError, match=r"outside the range \[6, "):
        f([torch.randn(3)])


def test_guard_and_size_text():
    mode = _fake_mode()
    x = _symbolic_fake(mode, (8, 5), [True, True])
    table = symbolic.SymbolTable(mode.shape_env, [x])
    s0, s1 = x.shape
    assert table.text(s0) == "s0" and table.text(s1) == "s1"
    assert table.text(s0 * 4 + 1).replace(" ", "") in ("(1+(4*s0))", "((4*s0)+1)")
    assert table.text(s0 // 2) == "(s0 floordiv 2)"
    assert table.text(s0 * 0 + 3) == "3"
    assert table.ranges() == {}
    assert bool(s0 % 2 == 0)
    assert bool(s1 < s0)
    assert set(table.guards()) == {"(s0 mod 2) == 0", "s1 < s0"}


def test_exact_and_pinned_quotients_text():
    """A quotient a guard makes exact is multiplied out (`2*(s0 // 2)` is
    `s0` where `s0` is even), as the IR's rules settle it; a quotient by a
    size that a guard pins (`s0 // (s0 // 2) == 2`) is its constant, and
    that guard is written in the IR's words instead of vanishing."""
    mode = _fake_mode()
    x = _symbolic_fake(mode, (8, 6), [True, True])
    table = symbolic.SymbolTable(mode.shape_env, [x])
    s0, s1 = x.shape
    assert table.text(2 * (s0 // 2)) == "(2*(s0 floordiv 2))", "no guard yet"
    assert bool(2 * (s0 // 2) == s0)
    assert table.text(2 * (s0 // 2)) == "s0"
    assert table.text(4 * (s0 // 2) * s1 + 1).replace(" ", "") in ("(1+(2*s0*s1))", "((2*s0*s1)+1)")
    assert table.text(s0 // 2) == "(s0 floordiv 2)"
    assert table.text(2 * (s1 // 2)) == "(2*(s1 floordiv 2))"
    assert bool(s1 // (s1 // 2) == 2)
    assert table.text(s1 // (s1 // 2)) == "2"
    assert table.text(8 * (s1 // (s1 // 2))) == "16"
    guards = table.guards()
    assert "(2*(s1 floordiv 2)) <= s1" in guards and "s1 < (3*(s1 floordiv 2))" in guards, guards
    assert not any(g.replace(" ", "") in ("2==2",) for g in guards), guards


def test_a_quotient_by_a_size_with_a_remainder_below_it_text():
    """`(s0*s1 + s0 - 1) // s0`, a ceiling division by a size
    (`embedding_bag`'s count of bags over an `[n, T]` batch, from
    `arange(0, n*T, T)`), is `s1`: the remainder `s0 - 1` is below the
    divisor at every size. A remainder that may reach the divisor has no
    form."""
    mode = _fake_mode()
    x = _symbolic_fake(mode, (4, 6), [True, True])
    table = symbolic.SymbolTable(mode.shape_env, [x])
    s0, s1 = x.shape
    assert table.text((s0 * s1 + s0 - 1) // s0) == "s1"
    with pytest.raises(symbolic.Reject):
        table.text((s0 * s1 + s1) // s0)


def _fresh(make, dynamic):
    """A model from `make` (seeded), its eager copy, and the model through
    `torch.compile(backend="aot", dynamic=dynamic)`, Dynamo and the
    backend's stats reset."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    m = make()
    return m, copy.deepcopy(m), torch.compile(m, backend="aot", dynamic=dynamic)


def test_embedding_bags_over_a_batch_compile_once():
    """`nn.EmbeddingBag` (sums and means: a cumulative sum of the bags'
    starts, the rows gathered and added into their bags) trains with one
    compile over batch sizes and lengths; it ran in PyTorch."""

    class Bags(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.sum = torch.nn.EmbeddingBag(30, 8, mode="sum")
            self.mean = torch.nn.EmbeddingBag(30, 8, mode="mean", padding_idx=0)
            self.o = torch.nn.Linear(16, 3)

        def forward(self, ids):
            return self.o(torch.cat([self.sum(ids), self.mean(ids)], 1))

    m, ref, c = _fresh(Bags, True)
    g = torch.Generator().manual_seed(0)
    for b, t in [(3, 5), (4, 7), (2, 3)]:
        ids = torch.randint(0, 30, (b, t), generator=g)
        ids[0, :] = 0  # (a bag of padding only: a mean of nothing is 0)
        _step_as_eager(c(ids), ref(ids), m, ref, lambda o: o.square().mean())
    assert _one_symbolic_compile(), dict(aot_torch.stats)
    assert not aot_torch.stats.get("fallback_ops"), dict(aot_torch.stats)


def test_sizes_the_ir_cannot_say_give_the_example_sizes():
    """A size divided by another size has no form in the IR: the import
    keeps the example's sizes and says why."""

    class Folds(torch.nn.Module):
        def forward(self, x, y):
            return x.reshape(y.shape[0], -1).sum(1)

    a, b = Dim("a", min=2, max=16), Dim("b", min=2, max=16)
    ep = export(Folds(), (torch.randn(12), torch.randn(3)), dynamic_shapes={"x": {0: a * 4}, "y": {0: b}})
    p = aot_torch.import_exported_program(ep)
    if p.symbolic:
        pytest.skip("this PyTorch export gives the sizes a form the IR has")
    assert p.static_reason
    assert "tensor<12xf32>" in p.text.splitlines()[0]


# ---------------------------------------------------------------------------
# torch.compile: one compile per graph for every size

DECODER_SIZES = [(b, t) for t in (4, 6, 9, 12, 16, 20, 24, 32) for b in (2, 3, 4, 6)]
CNN_SIZES = [(n, h) for h in (8, 10, 12, 16) for n in (2, 3, 4, 6)]


@pytest.mark.heavy
@pytest.mark.parametrize("dynamic", [True, None], ids=["dynamic", "automatic"])
@pytest.mark.parametrize("model,make,sizes", [
    (Decoder, _decoder_inputs, DECODER_SIZES),
    (CNN, _cnn_inputs, CNN_SIZES),
    (ManualAttention, _tokens40, [(b, t) for t in (5, 8, 13) for b in (2, 3)]),
    (EncoderLM, _tokens40, [(b, t) for t in (5, 8, 13) for b in (2, 3)]),
    (BatchNormCNN, _cnn_inputs, [(n, h) for h in (8, 11) for n in (2, 5)]),
    (GroupNormConv1d, lambda n, t: (torch.randn(n, 4, t), torch.randn(n, 8)), [(2, 9), (3, 12), (2, 17)]),
    (MaskedMeanPool, lambda b, t: (torch.randint(0, 30, (b, t)), torch.randint(0, 2, (b,))), [(2, 5), (3, 8), (4, 11)]),
    (CrossAttention, lambda b, t, m: (torch.randn(b, t, 16), torch.randn(b, m, 16), torch.randn(b, 4)),
     [(2, 3, 5), (3, 4, 7), (2, 6, 9)]),
    (PooledCNN, _cnn_inputs, [(2, 16), (3, 20), (4, 12), (2, 24)]),
    (PooledCNNChannelsLast, _cnn_inputs, [(2, 16), (3, 20), (4, 12), (2, 24)]),
], ids=["decoder", "cnn", "manual-attention", "encoder-layer", "batchnorm-cnn", "groupnorm-conv1d",
        "masked-mean-pool", "cross-attention", "pooled-cnn", "pooled-cnn-channels-last"])
def test_training_over_many_shapes_compiles_each_graph_once(model, make, sizes, dynamic):
    """Trained through torch.compile over every size combination: each step's
    loss and gradients are eager's, nothing runs in PyTorch, and aot compiles
    each graph Dynamo gives once: with `dynamic=True` one graph, with the
    default automatic dynamic shapes the first (static) graph and the
    symbolic ones Dynamo makes as sizes change."""
    net, ref, f = _fresh(model, dynamic)
    per_size = aot_torch.versions_per_size()
    for size in sizes:
        args = make(*size)
        loss = f(*args)
        loss.backward()
        want = ref(*args)
        want.backward()
        torch.testing.assert_close(loss, want, msg="loss at %s" % (size,))
        for (name, p), q in zip(net.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg="%s at %s" % (name, size))
        for (name, p), q in zip(net.named_buffers(), ref.buffers()):
            torch.testing.assert_close(p, q, msg="%s at %s" % (name, size))
        net.zero_grad()
        ref.zero_grad()
    stats = aot_torch.stats
    assert stats["fallback_regions"] == 0 and stats["fallback_ops"] == 0, dict(stats)
    assert stats["compiled"] == stats["graphs"], dict(stats)
    if dynamic:
        assert stats["graphs"] == 1 and stats["symbolic_graphs"] == 1, dict(stats)
    else:
        # The first (static) shape, then one symbolic graph: the first
        # recompile makes every size symbolic, not only those that changed
        # (batch sizes change before lengths here).
        assert stats["graphs"] == 2 and stats["symbolic_graphs"] == 1, dict(stats)
    # Native code reads its sizes at run time, forward and backward (image
    # sizes too, in the convolutions and pooling): no code is generated
    # per size.
    assert aot_torch.versions_per_size() == per_size, "code generated per size"


@pytest.mark.parametrize("sdpa", [False, True], ids=["manual-attention", "sdpa"])
def test_a_decoder_with_dropout_trains_with_one_compile(sdpa):
    """A GPT-2 block with dropout 0.1 trained with `dynamic=True` over batch
    sizes and lengths: one compile per graph, nothing in PyTorch, no code
    per size (the Philox draws read their count at run time), and its
    losses, step by step, are bit for bit those of code compiled per shape
    under the same seed (the generator's offsets are expressions of the
    sizes, evaluated per call)."""
    from models import GPT2Block, gpt_loss

    sizes = [(2, 8), (3, 12), (4, 16), (2, 10), (3, 9), (2, 8)]
    g = torch.Generator().manual_seed(1)
    batches = [torch.randint(0, 64, size, generator=g) for size in sizes]
    runs = {}
    for symbolic in (True, False):
        torch._dynamo.reset()
        aot_torch.stats.clear()
        torch.manual_seed(0)
        model = GPT2Block(dropout=0.1, sdpa=sdpa)
        f = torch.compile(model, backend=aot_torch.backend(symbolic=symbolic), dynamic=True)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        per_size = aot_torch.versions_per_size()
        aot_torch.manual_seed(5)
        losses = []
        for idx in batches:
            loss = gpt_loss(f(idx), torch.roll(idx, -1, 1))
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(loss.item())
        runs[symbolic] = (losses, dict(aot_torch.stats), aot_torch.versions_per_size() - per_size)
    (losses, stats, versions), (static_losses, _, _) = runs[True], runs[False]
    assert stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"], stats
    assert not stats.get("fallback_regions") and not stats.get("fallback_ops"), stats
    assert versions == 0, "code generated per size"
    assert losses == static_losses


class _UpsamplingNet(torch.nn.Module):
    """A U-Net step: a strided convolution, a skip concatenation, upsampling
    by a scale factor, a convolution."""

    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.down = torch.nn.Conv2d(3, 8, 3, 2, 1)
        self.mid = torch.nn.Conv2d(8, 8, 3, 1, 1)
        self.up = torch.nn.Conv2d(16, 4, 3, 1, 1)

    def forward(self, x):
        a = F.relu(self.down(x))
        b = F.relu(self.mid(a))
        kw = {"align_corners": False} if self.mode == "bilinear" else {}
        return self.up(F.interpolate(torch.cat([a, b], 1), scale_factor=2, mode=self.mode, **kw))


def _images_train_as_eager(net, sizes, atol):
    """`net` compiled with `dynamic=True` (after a reset of Dynamo and of
    the counters) and a copy of it in eager, stepped on 3-channel images of
    each `(batch, height, width)`: outputs and gradients equal."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    ref = copy.deepcopy(net)
    f = torch.compile(net, backend="aot", dynamic=True)
    g = torch.Generator().manual_seed(0)
    for n, h, w in sizes:
        x = torch.randn(n, 3, h, w, generator=g)
        got, want = f(x), ref(x)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=atol)
        (got * got).mean().backward()
        (want * want).mean().backward()
        for (name, p), q in zip(net.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4, msg=f"{name} at {tuple(x.shape)}")
        net.zero_grad()
        ref.zero_grad()


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_upsampling_by_a_scale_factor_compiles_once(mode):
    """`interpolate` with a scale factor computes its output size and its
    source indices from floats of the sizes (`floor(float(s) * 2.0)`,
    `float(in) / float(out)`, a clamp to `in - 1`): those float sizes are
    folded where the sizes cancel (a ratio of 0.5) or read at run time,
    and a clamp bound of a symbolic size is a value the call computes.
    Trained over image sizes with `dynamic=True`: each graph compiled once
    (it was per shape), outputs and gradients eager's."""
    per_size = aot_torch.versions_per_size()
    _images_train_as_eager(_UpsamplingNet(mode), [(2, 16, 12), (3, 20, 20), (2, 13, 9), (4, 8, 10)], atol=1e-5)
    stats = aot_torch.stats
    # (Each graph Dynamo gives once; it gives a second one for odd sizes,
    # whose interpolation it guards apart.)
    assert 1 <= stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"] <= 2, dict(stats)
    assert not stats.get("fallback_regions") and not stats.get("fallback_ops"), dict(stats)
    # The backward's code reads its sizes at run time too: an elementwise
    # kernel there reads the gradient of a channel slice of the upsampled
    # concatenation, whose symbolic strides tie where a map is 1 wide, but
    # only reductions and convolutions read its result, so its layout is
    # free (it got code per size before).
    assert aot_torch.versions_per_size() == per_size, aot_torch.runtime_sizes_refusals()


def _cnn_steps_equal_eager(f, net, ref, sizes):
    """A step of `f` (compiling `net`) and of `ref` per `(batch, image
    size)`: losses, gradients and buffers (batch norm's statistics)
    equal."""
    for n, h in sizes:
        x, y = torch.randn(n, 3, h, h), torch.randint(0, 5, (n,))
        loss = torch.nn.functional.cross_entropy(f(x), y)
        loss.backward()
        want = torch.nn.functional.cross_entropy(ref(x), y)
        want.backward()
        torch.testing.assert_close(loss, want)
        for (name, p), q in zip(net.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg="%s at %dx%d" % (name, n, h))
        for (name, b), c in zip(net.named_buffers(), ref.buffers()):
            torch.testing.assert_close(b, c, msg="%s at %dx%d" % (name, n, h))
        net.zero_grad()
        ref.zero_grad()


@pytest.mark.heavy
def test_a_cnn_over_batch_sizes_reads_the_batch_at_run_time():
    """The residual CNN (padded, depthwise, pointwise, strided and dilated
    convolutions, batch norm, max and average pooling) trained over
    varying batch sizes at one image size, with Dynamo's automatic dynamic
    shapes: the static graph, then one graph over a symbolic batch whose
    native code reads the batch at run time (no code generated per
    size), each step equal to eager."""
    from models import ResNetish

    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    net = ResNetish(c=8, classes=5)
    ref = copy.deepcopy(net)
    f = torch.compile(net, backend="aot")
    per_size = aot_torch.versions_per_size()
    _cnn_steps_equal_eager(f, net, ref, [(n, 16) for n in (2, 3, 5, 4, 7)])
    stats = aot_torch.stats
    assert stats["compiled"] == 2 and stats["symbolic_graphs"] == 1 and not stats["fallback_regions"], dict(stats)
    assert aot_torch.versions_per_size() == per_size, "code generated per size"


@pytest.mark.heavy
def test_a_cnn_over_image_sizes_reads_them_at_run_time():
    """The residual CNN (as above: batch norm, whose statistics run over
    the images permuted channels-first, after strided convolutions that
    halve the image) trained with `dynamic=True` over batch and image
    sizes, odd and even: each step equal to eager, and its native code
    reads every size at run time (none generated per size)."""
    per_size = _resnetish_with_dynamic_sizes([(2, 16), (3, 21), (5, 12), (4, 27), (2, 16)])
    stats = aot_torch.stats
    assert stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"], dict(stats)
    assert not stats["fallback_regions"], dict(stats)
    assert aot_torch.versions_per_size() == per_size, "code generated per size"


def _resnetish_with_dynamic_sizes(sizes):
    """The residual CNN compiled with `dynamic=True` (after a reset of
    Dynamo and of the counters), stepped at each `(batch, image size)`
    against eager (`_cnn_steps_equal_eager`); returns
    `versions_per_size()` from before the steps."""
    from models import ResNetish

    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    net = ResNetish(c=8, classes=5)
    ref = copy.deepcopy(net)
    f = torch.compile(net, backend="aot", dynamic=True)
    per_size = aot_torch.versions_per_size()
    _cnn_steps_equal_eager(f, net, ref, sizes)
    return per_size


class _ResizeToHalf(torch.nn.Module):
    """A reflection pad, a convolution, and a resize to half the input's
    size: `interpolate(size=(h // 2, w // 2))`, whose scale is the ratio of
    two sizes (`h / (h // 2)`), then a cumulative sum over the flattened
    maps."""

    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.c = torch.nn.Conv2d(3, 4, 3)
        self.up = torch.nn.Conv2d(4, 4, 1)

    def forward(self, x):
        y = self.c(F.pad(x, (1, 1, 1, 1), mode="reflect"))
        kw = {"align_corners": False} if self.mode == "bilinear" else {}
        y = F.interpolate(y, size=(x.shape[2] // 2, x.shape[3] // 2), mode=self.mode, **kw)
        return self.up(y).flatten(1).cumsum(-1)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_a_resize_to_a_size_computed_from_sizes_compiles_once(mode):
    """A float that is the ratio of two sizes (`interpolate`'s scale for a
    size of `h // 2`) is divided at run time from both sizes, as Python
    divides them: the graph compiles once with symbolic sizes (it was per
    shape: "the float IntTrueDiv(s, s//2) has no form in the IR"),
    outputs and gradients eager's."""
    per_size = aot_torch.versions_per_size()
    _images_train_as_eager(_ResizeToHalf(mode), [(2, 16, 12), (3, 20, 18), (2, 10, 15)], atol=1e-4)
    stats = aot_torch.stats
    assert stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"] == 1, dict(stats)
    assert not stats.get("fallback_regions") and not stats.get("fallback_ops"), dict(stats)
    assert aot_torch.versions_per_size() == per_size, aot_torch.runtime_sizes_refusals()


class _NormsAfterAValidConv(torch.nn.Module):
    """A convolution without padding (its map `(h - 2) x (w - 2)`), then
    instance and group norms over it, a SiLU and a spatial maximum."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 8, 3)
        self.i = torch.nn.InstanceNorm2d(8, affine=True)
        self.g = torch.nn.GroupNorm(2, 8)
        self.f = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.f(F.silu(self.g(self.i(self.c(x)))).amax((2, 3)))


def test_norms_over_a_map_the_ranges_keep_nonempty_read_sizes_at_run_time():
    """The norms and the maximum reduce over `(h - 2) * (w - 2)` elements,
    which is 0 where `h` is 2; Dynamo's ranges say `h >= 3` (the
    convolution needs 3 rows), and the code generator now asks the
    function's ranges, not the default ones: no code per size (it had
    code per size before)."""
    per_size = aot_torch.versions_per_size()
    _images_train_as_eager(_NormsAfterAValidConv(), [(2, 8, 6), (3, 10, 9), (2, 7, 12)], atol=1e-5)
    stats = aot_torch.stats
    assert stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"] == 1, dict(stats)
    assert aot_torch.versions_per_size() == per_size, aot_torch.runtime_sizes_refusals()


class _CeilPools(torch.nn.Module):
    """Max pooling (3 taps, stride 2) and average pooling (2 taps) in ceil
    mode, over a padded convolution's map."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 6, 3, padding=1)
        self.f = torch.nn.Linear(6, 2)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.c(x)), 3, 2, ceil_mode=True)
        return self.f(F.avg_pool2d(y, 2, ceil_mode=True).mean((2, 3)))


def test_ceil_mode_pooling_with_windows_past_the_end_compiles_once():
    """In ceil mode a window may hang past the input's end (3 taps over 2
    rows: PyTorch pools what it covers), so a window that may not fit is
    no reason for code per shape there: each graph Dynamo gives is
    compiled once with symbolic sizes (the first was compiled per shape:
    "a window that may not fit: that needs a guard"), small images
    included, every step eager's."""
    per_size = aot_torch.versions_per_size()
    _images_train_as_eager(_CeilPools(), [(2, 13, 11), (3, 16, 20), (2, 9, 14), (2, 2, 3)], atol=1e-5)
    stats = aot_torch.stats
    assert stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"], dict(stats)
    assert not stats.get("fallback_regions") and not stats.get("fallback_ops"), dict(stats)
    assert aot_torch.versions_per_size() == per_size, aot_torch.runtime_sizes_refusals()


def _step_as_eager(got, want, m, ref, loss):
    """One training step's check: the compiled output `got` equals eager's
    `want`, and after `loss` of each backward, the parameters of `m` (the
    compiled model) have `ref`'s gradients; both are then cleared."""
    torch.testing.assert_close(got, want)
    loss(got).backward()
    loss(want).backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
    m.zero_grad()
    ref.zero_grad()


def test_a_roll_over_a_symbolic_length_compiles_once():
    """`roll` by 2 over a length T shifts by `2 mod T`, a remainder by a
    size, which the IR's sizes cannot say; where the example's T is larger
    than 2 it is 2 under the guard `T > 2` (a shorter call would run in
    PyTorch), so the graph compiles once with symbolic sizes instead of
    per shape. Outputs and gradients eager's at every length."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    lin = torch.nn.Linear(8, 8)
    ref = copy.deepcopy(lin)

    def f(m, y):
        return torch.roll(m(y), shifts=2, dims=1).tanh()

    c = torch.compile(f, backend="aot", dynamic=True)
    g = torch.Generator().manual_seed(0)
    for t in (7, 11, 5, 3):
        y = torch.randn(2, t, 8, generator=g)
        _step_as_eager(c(lin, y), f(ref, y), lin, ref, lambda o: o.square().sum())
    assert _one_symbolic_compile(), dict(aot_torch.stats)


class _FlipCumsumDiff(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.l(x)
        return (torch.roll(y, shifts=2, dims=1) + torch.flip(y, dims=[1])).cumsum(1).diff(dim=1).square()


class _TransposedConvPixelShuffle(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.nn.ConvTranspose2d(4, 3, 4, stride=2, padding=1)
        self.ps = torch.nn.PixelShuffle(2)
        self.c = torch.nn.Conv2d(3, 12, 3, padding=1)

    def forward(self, z):
        return self.ps(self.c(torch.sigmoid(self.t(z))))


class _SortCumsum(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(6, 6)

    def forward(self, x):
        v, i = self.l(x).sort(dim=1)
        return v.cumsum(1) + i.float() * 0.01


class _WindowsTopk(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.l(x.unfold(1, 4, 2).mean(-1)).topk(2, dim=1).values


class _InterpolatedPositions(torch.nn.Module):
    """A ViT's position table resized (bicubic) to the patch grid of each
    image: the resize equates the grid's height and width (square
    images), and concatenates rows of one with rows of the other."""

    def __init__(self):
        super().__init__()
        self.p = torch.nn.Conv2d(3, 8, 4, 4)
        self.pos = torch.nn.Parameter(torch.randn(1, 8, 4, 4) * 0.1)
        self.o = torch.nn.Linear(8, 5)

    def forward(self, x):
        h = self.p(x)
        h = h + F.interpolate(self.pos, size=h.shape[-2:], mode="bicubic", align_corners=False)
        return self.o(h.flatten(2).transpose(1, 2)).mean(1)


class _FoldUnfold(torch.nn.Module):
    """Overlapping 3x3 blocks (`F.unfold`, stride 2), gated by their mean,
    summed back into the image (`F.fold`, PyTorch's `col2im`: an
    accumulating put after the batch and channel dimensions)."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 1)

    def forward(self, x):
        cols = F.unfold(self.c(x), 3, padding=1, stride=2)
        cols = cols * torch.sigmoid(cols.mean(1, keepdim=True))
        return F.fold(cols, x.shape[-2:], 3, padding=1, stride=2)


class _UpsampleCrop(torch.nn.Module):
    """A decoder level: group and instance norms, a stride-2 convolution,
    nearest upsampling by 2 cropped back to the input's size. The crop of
    `2·((h - 1) // 2 + 1)` rows to `h` and the group norm's view of the
    map, whose area a guard equates to the upsampled one, compiled per
    shape."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.g = torch.nn.GroupNorm(2, 8)
        self.i = torch.nn.InstanceNorm2d(8, affine=True)
        self.down = torch.nn.Conv2d(8, 4, 3, stride=2, padding=1)

    def forward(self, x):
        h = self.i(self.g(self.c(x)).relu())
        h = F.interpolate(self.down(h), scale_factor=2, mode="nearest")
        return h[..., :x.shape[-2], :x.shape[-1]] * x[:, :1]


class _TopHalf(torch.nn.Module):
    """The better-scoring half of a sequence's positions (`topk` of `T //
    2`, a symbolic k), gathered and gated by their scores."""

    def __init__(self):
        super().__init__()
        self.score = torch.nn.Linear(8, 1)
        self.v = torch.nn.Linear(8, 8)

    def forward(self, x):
        s = self.score(x).squeeze(-1)
        i = s.topk(x.shape[1] // 2, dim=1).indices
        return self.v(x).gather(1, i[..., None].expand(-1, -1, 8)) * s.gather(1, i).sigmoid()[..., None]


class _ChunkGate(torch.nn.Module):
    """`chunk(2)` along a length that may be odd: the first half, cut to
    the second's length, gated by it (a GLU over time)."""

    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(6, 6)

    def forward(self, x):
        a, b = self.l(x).chunk(2, dim=1)
        return a[:, :b.shape[1]] * torch.sigmoid(b)


class _StridedMemory(torch.nn.Module):
    """Cross-attention to every second position (`x[:, ::2]`, a memory of
    `(T + 1) // 2` steps): the linear layer flattens the stepped slice with
    its batch, a view Dynamo's guard (`T` even) makes valid."""

    def __init__(self):
        super().__init__()
        self.m = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        self.e = torch.nn.Linear(8, 8)

    def forward(self, x):
        mem = self.e(x[:, ::2]).tanh()
        return self.m(x, mem, mem)[0]


class _PoolUpsampleSkip(torch.nn.Module):
    """A U-Net level: pooled by 2, upsampled back by 2 and concatenated
    with its input, whose sizes Dynamo guards even."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.d = torch.nn.Conv2d(7, 2, 3, padding=1)

    def forward(self, x):
        u = F.interpolate(F.max_pool2d(self.c(x), 2), scale_factor=2, mode="nearest")
        return self.d(torch.cat([u, x], 1))


class _WindowAttention(torch.nn.Module):
    """Swin's window partition and its reverse over 2x2 windows."""

    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(8, 8)

    def forward(self, x):
        B, H, W, C = x.shape
        t = x.view(B, H // 2, 2, W // 2, 2, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, 4, C)
        a = (self.q(t) @ t.transpose(1, 2)).softmax(-1) @ t
        return a.view(B, H // 2, W // 2, 2, 2, C).permute(0, 1, 3, 2, 4, 5).reshape(B, H, W, C)


class _PatchifyEncoder(torch.nn.Module):
    """A ViT's patches cut with `unfold`, a class token and an encoder
    layer."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3 * 4 * 4, 32)
        self.cls = torch.nn.Parameter(torch.zeros(1, 1, 32))
        self.enc = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.head = torch.nn.Linear(32, 5)

    def forward(self, x):
        B, C = x.shape[:2]
        t = x.unfold(2, 4, 4).unfold(3, 4, 4).permute(0, 2, 3, 1, 4, 5).reshape(B, -1, C * 16)
        t = torch.cat([self.cls.expand(B, -1, -1), self.proj(t)], 1)
        return self.head(self.enc(t)[:, 0])


class _RelativeBuckets(torch.nn.Module):
    """T5's relative position buckets: `full_like` of an integer tensor of
    the symbolic shape `[T, T]`, a log-spaced bucket, an embedding."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(8, 2)
        self.q = torch.nn.Linear(8, 8)

    def forward(self, x):
        T = x.shape[1]
        rel = torch.arange(T)[None, :] - torch.arange(T)[:, None]
        n = rel.abs()
        large = 2 + (torch.log(n.float() / 2) / math.log(4) * 2).to(torch.long)
        large = torch.min(large, torch.full_like(large, 3))
        bucket = (rel > 0).to(torch.long) * 4 + torch.where(n < 2, n, large)
        att = (self.q(x) @ x.transpose(1, 2))[:, None] + self.emb(bucket).permute(2, 0, 1)[None]
        return att.softmax(-1).sum(1) @ x


class _UnshuffleConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(12, 4, 1)

    def forward(self, x):
        return self.c(F.pixel_unshuffle(x, 2))


class _AdaptiveClassifier(torch.nn.Module):
    """A VGG-style head: adaptive average pooling to 7x7 of any image."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.p1 = torch.nn.AdaptiveAvgPool1d(3)
        self.fc = torch.nn.Linear(4 * 49, 5)

    def forward(self, x):
        h = self.c(x)
        return self.fc(F.adaptive_avg_pool2d(h, (7, 7)).flatten(1)) + self.p1(h.flatten(2)).sum((1, 2))[:, None]


@pytest.mark.parametrize("name, make, shapes", [
    # Adaptive pooling's windows over a symbolic image size: a 0/1 window
    # matrix computed from positions at run time (per shape before: the
    # divisibility of the size by 7 chose the form). Sizes below 7 (whose
    # windows repeat), divisible by 7, and neither.
    ("adaptive-classifier", _AdaptiveClassifier, [(2, 3, 5, 9), (3, 3, 14, 21), (2, 3, 10, 16)]),
    # `dynamic=True` keeps the 3 channels symbolic (s1) and the weight
    # guards `4·s1 == 12`, added after the unshuffle's sizes were written:
    # the symbol a guard pins is its value where sizes are compared, and
    # the 1x1 convolution's weight gradient, the backward's only op,
    # receives the image size it is typed over (per shape before).
    ("unshuffle-conv", _UnshuffleConv, [(2, 3, 8, 6), (3, 3, 10, 12), (2, 3, 6, 14)]),
    # An integer `full_like` of a symbolic shape was a splat literal, which
    # needs static sizes (code per size); now `tensor.full`.
    ("relative-buckets", _RelativeBuckets, [(2, 7, 8), (3, 12, 8), (2, 5, 8)]),
    # The patches' copy is saved for the backward. Its operand is dense
    # only where the image divides by the patch, so eager lays the copy out
    # two ways; saved values are read only by the backward, which takes
    # any layout, so the copy is row-major at every size (code per size
    # before).
    ("patchify-encoder", _PatchifyEncoder, [(2, 3, 16, 20), (3, 3, 26, 24), (2, 3, 12, 30)]),
    # `2*(h // 2)` (the upsampled map) is `h` under Dynamo's guard that `h`
    # is even, in the translation's sizes and the IR's rules alike; the
    # concatenation refused the two as different sizes.
    ("pool-upsample-skip", _PoolUpsampleSkip, [(2, 3, 8, 6), (3, 3, 12, 10), (2, 3, 6, 14)]),
    # PyTorch's strides of the split dimensions divide by a size
    # (`h // (h // 2)`, pinned to 2 by a guard), which the IR cannot write:
    # written as the constant, the guard as `2·(h // 2) <= h < 3·(h // 2)`.
    ("window-attention", _WindowAttention, [(2, 4, 6, 8), (3, 8, 4, 8), (2, 6, 10, 8)]),
    # `flip` over the symbolic length: its positions counted down from the
    # call's `T - 1` (traced with `.item()` of a fake tensor before).
    ("flip-cumsum-diff", _FlipCumsumDiff, [(2, 7, 8), (3, 11, 8), (2, 5, 8)]),
    # A transposed convolution flips its kernel (a constant length), whose
    # index constant was made under the translation's fake mode.
    ("tconv-pixelshuffle", _TransposedConvPixelShuffle, [(2, 4, 5, 6), (3, 4, 6, 3), (2, 4, 7, 8)]),
    # A sort over a symbolic length (code per size before).
    ("sort-cumsum", _SortCumsum, [(2, 9, 6), (3, 14, 6), (2, 6, 6)]),
    # The top 2 of `T // 2 - 1` sliding windows: the copy of the 2 rows has
    # strides `8·n` and 8, which tie at n = 1; the function's ranges keep
    # n >= 2 (code per size before, decided with the default ranges).
    ("windows-topk", _WindowsTopk, [(2, 9, 8), (3, 14, 8), (2, 10, 8)]),
    # With a symbol per size (no duck shaping) the resize guards the grid
    # square, `(s2 // 4) == (s1 // 4)`; a concatenation of two rows of
    # `s1 // 4` was typed `2*(s1 // 4)` against its operands' `s2 // 4`
    # (compiled per shape): a quotient a guard equates is rewritten where
    # it is a factor, in the IR's rules and the translation alike.
    ("interpolated-positions", _InterpolatedPositions, [(2, 3, 16, 16), (3, 3, 24, 24), (2, 3, 32, 32)]),
    # `F.fold` ran in PyTorch: `col2im`'s put after two skipped dimensions
    # into a fresh image is now taken out of place (its result copied
    # row-major, as eager's), and the blocks' count, a length of its own
    # under a guard, is that count in a view's element count.
    ("fold-unfold", _FoldUnfold, [(2, 3, 8, 6), (3, 3, 10, 12), (2, 3, 9, 7)]),
    # A crop of `2·((h - 1) // 2 + 1)` rows to `h` needed a bound of a
    # quotient against its own dividend (the atoms were bounded apart),
    # and the group norm's view an equality that is a multiple of a
    # guard's. (Even sizes: at an odd one Dynamo's guards, not aot's,
    # trace again.)
    ("upsample-crop", _UpsampleCrop, [(2, 3, 8, 6), (3, 3, 10, 12), (2, 3, 6, 14)]),
    # `topk` of `T // 2` ran per shape: k was refused when symbolic.
    ("top-half", _TopHalf, [(2, 6, 8), (3, 9, 8), (2, 11, 8)]),
    # `chunk(2)` of a symbolic length splits it into `(T + 1) // 2` and
    # the rest: a split into symbolic pieces was refused.
    ("chunk-gate", _ChunkGate, [(2, 6, 6), (3, 7, 6), (4, 9, 6)]),
    # A view flattening a stepped slice with its batch was refused with
    # symbolic sizes: its strides agree only under a guard. (Even lengths:
    # at an odd one Dynamo's guards trace again.)
    ("strided-memory", _StridedMemory, [(2, 6, 8), (3, 8, 8), (2, 10, 8)]),
])
def test_models_tried_with_dynamic_sizes_compile_once(name, make, shapes):
    """Models that compiled per shape or got code per size: now one
    compile, code reading its sizes at run time, and every step equals
    eager."""
    m, ref, c = _fresh(make, True)
    per_size = aot_torch.versions_per_size()
    g = torch.Generator().manual_seed(0)
    for shape in shapes:
        x = torch.randn(*shape, generator=g)
        _step_as_eager(c(x), ref(x), m, ref, lambda o: o.mean())
    assert _one_symbolic_compile(), dict(aot_torch.stats)
    assert aot_torch.versions_per_size() == per_size, aot_torch.runtime_sizes_refusals()


def test_a_loss_over_targets_with_symbols_of_their_own_compiles_twice():
    """Dynamo's automatic dynamic shapes give a language model's token ids
    and its targets symbols of their own (`[s0, s1]`, `[s2, s3]`) and
    guard `s0*s1 == s2*s3` where the loss flattens both: the flattened
    targets' size is the logits' rows (`Facts::equated`), so the loss
    compiles with symbolic sizes (per shape before: the masked `where`
    refused the two sizes). The first static compile and one symbolic one;
    losses and gradients eager's."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.e = torch.nn.Embedding(40, 16)
            self.l = torch.nn.Linear(16, 16)

        def forward(self, ids, tgt):
            logits = torch.tanh(self.l(self.e(ids))) @ self.e.weight.t()
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), tgt.view(-1), ignore_index=-100,
                                   label_smoothing=0.1)

    m = LM()
    ref = copy.deepcopy(m)
    c = torch.compile(m, backend="aot")
    g = torch.Generator().manual_seed(0)
    for b, t in [(2, 9), (3, 14), (2, 6), (4, 11)]:
        ids, tgt = torch.randint(0, 40, (b, t), generator=g), torch.randint(0, 40, (b, t), generator=g)
        tgt[0, 0] = -100
        _step_as_eager(c(ids, tgt), ref(ids, tgt), m, ref, lambda o: o)
    stats = aot_torch.stats
    assert stats["compiled"] == stats["graphs"] == 2 and stats["symbolic_graphs"] == 1, dict(stats)
    assert not stats.get("fallback_regions"), dict(stats)


def test_an_input_mutated_in_place_reads_its_sizes_at_run_time():
    """A graph that writes an input of a symbolic size in place ends with
    the copy into the caller's tensor (`mut.copy_`), which lowered only
    at static sizes: the whole function got code per size. Now the copy
    runs over the run-time sizes; values and the mutated inputs are
    eager's."""
    torch._dynamo.reset()
    aot_torch.stats.clear()

    def f(x, buf):
        x.mul_(2)
        buf.add_(x.sum(0))
        return x.tanh()

    c = torch.compile(f, backend="aot", dynamic=True)
    per_size = aot_torch.versions_per_size()
    g = torch.Generator().manual_seed(0)
    for n in (3, 5, 9):
        x, b = torch.randn(n, 4, generator=g), torch.zeros(4)
        x2, b2 = x.clone(), b.clone()
        torch.testing.assert_close(c(x, b), f(x2, b2))
        assert torch.equal(x, x2)
        torch.testing.assert_close(b, b2)
    assert _one_symbolic_compile(), dict(aot_torch.stats)
    assert aot_torch.versions_per_size() == per_size, aot_torch.runtime_sizes_refusals()


def test_an_integer_input_that_is_no_size_is_traced_with_its_value():
    """`dynamic=True` makes an integer argument symbolic too (Hugging Face's
    `logits_to_keep`, sliced from the end); no tensor input has it as a
    size, so the IR cannot bind it. The symbolic trace takes its value as
    a constant and serves the calls that pass that value, at every size
    (per shape before); a call with another value is traced for it, and
    every result is eager's."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    lin = torch.nn.Linear(8, 8)
    ref = copy.deepcopy(lin)

    def f(m, x, keep):
        return m(x)[:, -keep:, :].tanh()

    c = torch.compile(f, backend="aot", dynamic=True)
    per_size = aot_torch.versions_per_size()
    g = torch.Generator().manual_seed(0)
    for t in (7, 11, 5):
        x = torch.randn(2, t, 8, generator=g)
        _step_as_eager(c(lin, x, 0), f(ref, x, 0), lin, ref, lambda o: o.square().sum())
    assert _one_symbolic_compile(), dict(aot_torch.stats)
    assert aot_torch.versions_per_size() == per_size, aot_torch.runtime_sizes_refusals()
    with torch.no_grad():
        x = torch.randn(3, 6, 8, generator=g)
        torch.testing.assert_close(c(lin, x, 2), f(ref, x, 2))


def _one_symbolic_compile():
    s = aot_torch.stats
    return s["compiled"] == s["graphs"] == s["symbolic_graphs"] == 1 and not s.get("fallback_regions")


def test_a_size_pinned_to_one_by_the_first_call_compiles_once():
    """The residual CNN first called on 4x4 images, where its strided
    convolution's map is 1x1: PyTorch guards on that and writes some of the
    graph's sizes as 1 and others as their expressions (`((s1 - 1) // 2 +
    1)` with `s1` narrowed to where it is 1). Both read as 1 (the ranges pin
    it), so the graph compiles once with symbolic sizes instead of per
    shape (resnet18 first called at 32x32). Image sizes past the guard get
    Dynamo's second graph, also compiled once; every step equals eager."""
    per_size = _resnetish_with_dynamic_sizes([(2, 4), (3, 4), (5, 5), (2, 12), (3, 9)])
    stats = aot_torch.stats
    assert stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"] <= 2, dict(stats)
    assert not stats["fallback_regions"], dict(stats)
    assert aot_torch.versions_per_size() == per_size, "code generated per size"


def test_symbolic_false_compiles_per_shape():
    torch._dynamo.reset()
    aot_torch.stats.clear()
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    f = torch.compile(m, backend=aot_torch.backend(symbolic=False), dynamic=True)
    with torch.no_grad():
        for n in (3, 5, 7):
            x = torch.randn(n, 8)
            torch.testing.assert_close(f(x), m(x))
    assert aot_torch.stats["symbolic_graphs"] == 0 and aot_torch.stats["compiled"] == 3, dict(aot_torch.stats)


def _train_over(model, make, sizes, dynamic, mark=None):
    """Trains `model` through torch.compile over `sizes` against an eager
    copy (losses and gradients equal at every step, nothing in PyTorch) and
    returns the backend's stats. `mark(args)` runs on each call's inputs
    before the call."""
    net, ref, f = _fresh(model, dynamic)
    for size in sizes:
        args = make(*size)
        if mark is not None:
            mark(args)
        _step_as_eager(f(*args), ref(*args), net, ref, lambda loss: loss)
    stats = dict(aot_torch.stats)
    assert not stats.get("fallback_regions") and not stats.get("fallback_ops"), stats
    return stats


def test_sizes_equal_in_the_first_call_get_symbols_of_their_own():
    """With `dynamic=True`, PyTorch's duck shaping gives two sizes equal in
    the first call one symbol (4 sequences of 4 tokens; 3 RGB images), and
    the first call where they differ traced the frame again. aot turns duck
    shaping off, so each graph compiles once."""
    stats = _train_over(Decoder, _decoder_inputs, [(4, 4), (3, 3), (2, 5), (4, 8)], True)
    assert stats["graphs"] == stats["compiled"] == stats["symbolic_graphs"] == 1, stats
    stats = _train_over(CNN, _cnn_inputs, [(3, 8), (2, 10), (4, 8)], True)
    assert stats["graphs"] == stats["compiled"] == stats["symbolic_graphs"] == 1, stats


def test_the_first_recompile_makes_every_size_symbolic():
    """Dynamo's automatic dynamic shapes make a size symbolic once it has
    changed: batch sizes, then lengths, gave a static graph, one with a
    symbolic batch and one with both symbolic. The first recompile of a
    frame aot compiled now makes every size of its tensor inputs symbolic:
    two graphs, whatever changes next. A size the user marked static stays
    static: a new length then traces again."""
    sizes = [(2, 5), (3, 5), (4, 5), (2, 8), (3, 11), (6, 7)]
    stats = _train_over(Decoder, _decoder_inputs, sizes, None)
    assert stats["graphs"] == stats["compiled"] == 2 and stats["symbolic_graphs"] == 1, stats

    def length_static(args):
        for a in args:
            torch._dynamo.mark_static(a, 1)

    stats = _train_over(Decoder, _decoder_inputs, sizes[:4], None, mark=length_static)
    assert stats["graphs"] == stats["compiled"] == 3 and stats["symbolic_graphs"] == 2, stats


def test_sizes_a_symbolic_function_refuses_run_in_pytorch():
    """A call whose sizes break a guard of the compiled function (recorded
    while tracing, so Dynamo has it too) is never run by aot with a wrong
    answer: Dynamo's own guards, or the function's, send it elsewhere."""
    torch._dynamo.reset()
    aot_torch.stats.clear()

    def fn(x):
        return (x.reshape(-1, 3) * 2).sum(1)

    f = torch.compile(fn, backend="aot", dynamic=True)
    for n in (6, 9, 12, 8, 30):
        x = torch.randn(n)
        if n % 3:
            with pytest.raises(RuntimeError):
                fn(x)
            with pytest.raises(Exception):
                f(x)
        else:
            torch.testing.assert_close(f(x), fn(x))
    assert aot_torch.stats["symbolic_graphs"] >= 1, dict(aot_torch.stats)


def test_mark_dynamic_compiles_once_from_the_first_call():
    """`torch._dynamo.mark_dynamic` makes Dynamo's first graph symbolic in
    that dimension: aot compiles it once for every size."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.LayerNorm(16))
    f = torch.compile(m, backend="aot")
    for n in (4, 7, 12, 5):
        x = torch.randn(n, 8)
        torch._dynamo.mark_dynamic(x, 0)
        got, want = f(x), m(x)
        torch.testing.assert_close(got, want)
        got.sum().backward()
    assert aot_torch.stats["graphs"] == 1 and aot_torch.stats["symbolic_graphs"] == 1, dict(aot_torch.stats)
    assert aot_torch.stats["compiled"] == 1 and aot_torch.stats["fallback_regions"] == 0, dict(aot_torch.stats)


@pytest.mark.parametrize("runtime_sizes", ["1", "0"])
@pytest.mark.parametrize("training", [False, True])
def test_run_time_sizes_match_eager(monkeypatch, training, runtime_sizes):
    """A symbolic graph whose ops the code generator lowers with symbolic
    sizes is compiled once into kernels that read their sizes at run time
    (the default), or per size with `AOT_RUNTIME_SIZES=0`; either way
    every result and gradient is eager's, at every size."""
    monkeypatch.setenv("AOT_RUNTIME_SIZES", runtime_sizes)
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)

    def fn(x, b):
        h = torch.relu(x * 2 + b) - x.neg() * b
        return torch.softmax(h @ h.t(), dim=-1) @ h

    f = torch.compile(fn, backend="aot", dynamic=True)
    for rows, cols in ((3, 4), (5, 4), (7, 9), (64, 33), (3, 4)):
        x, b = torch.randn(rows, cols), torch.randn(cols)
        if training:
            x.requires_grad_(True)
            b.requires_grad_(True)
            xe, be = x.detach().clone().requires_grad_(True), b.detach().clone().requires_grad_(True)
            got, want = f(x, b), fn(xe, be)
            torch.testing.assert_close(got, want)
            got.sum().backward()
            want.sum().backward()
            # (The products' gradients sum in another order than eager's
            # GEMMs, per size or not: an element that cancels is off by a
            # few ulps of the largest terms, hence a tolerance on the
            # gradient's scale.)
            for g, w in ((x.grad, xe.grad), (b.grad, be.grad)):
                torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5 * float(w.abs().max()) + 1e-6)
        else:
            got, want = f(x, b), fn(x, b)
            torch.testing.assert_close(got, want)
            assert got.stride() == want.stride()
    stats = aot_torch.stats
    assert stats["graphs"] == 1 and stats["compiled"] == 1 and stats["fallback_regions"] == 0, dict(stats)


_INPLACE_SQUEEZE = """
import torch, aot_torch

def f(a):
    v = a.contiguous()
    v.squeeze_(0)
    return v * 2

outcomes = []
for backend in ("eager", "aot"):
    torch._dynamo.reset()
    try:
        for shape in ((1, 2, 3), (1, 4, 5)):
            a = torch.randn(*shape)
            torch.testing.assert_close(torch.compile(f, backend=backend, dynamic=True)(a), f(a))
        outcomes.append("ok")
    except Exception as e:
        outcomes.append(type(e).__name__)
print(outcomes)
"""


def test_an_inplace_squeeze_of_a_symbolic_alias_does_not_crash():
    """`squeeze_` of a symbolic tensor: replaying it on the meta tensor
    that tracks an argument alias's layout made this PyTorch segfault
    (`as_strided_` with SymInts). The translation no longer replays an
    in-place metadata change over symbolic sizes; the process lives, and
    the outcome is Dynamo's own (its `eager` backend's)."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _INPLACE_SQUEEZE], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    outcomes = eval(r.stdout.strip().splitlines()[-1])
    assert outcomes[0] == outcomes[1], outcomes


def test_a_data_dependent_size_is_a_clean_fallback():
    """`nonzero` under `dynamic=True`: its size depends on the data, which
    neither the IR nor a guard can say. Dynamo breaks the graph there (this
    PyTorch does not capture data-dependent output shapes by default); aot
    compiles the graphs around it, and every answer is eager's."""
    torch._dynamo.reset()
    aot_torch.stats.clear()

    def fn(x):
        y = x.exp() * 2
        return y[torch.nonzero(y > 2.5, as_tuple=True)].sum() + y.mean()

    f = torch.compile(fn, backend="aot", dynamic=True)
    for n in (5, 9, 14):
        x = torch.randn(n)
        torch.testing.assert_close(f(x), fn(x))
    stats = aot_torch.stats
    assert stats["graphs"] > 1 and stats["compiled"] >= stats["graphs"], dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)


def test_a_refused_call_of_a_symbolic_graph_runs_in_pytorch_once(monkeypatch, caplog):
    """A call the compiled function's guards refuse (its key masks the
    sizes, so it cannot tell beforehand) runs in PyTorch, with one warning;
    the variant stays, and the next call that passes the guards runs it."""
    import importlib
    import logging

    backend = importlib.import_module("aot_torch.backend")
    torch._dynamo.reset()
    aot_torch.stats.clear()
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh())
    f = torch.compile(m, backend="aot", dynamic=True)
    with torch.no_grad():
        x = torch.randn(3, 8)
        torch.testing.assert_close(f(x), m(x))
        real = backend._Variant.__call__
        calls = []

        def refuse(self, args, info=None):
            calls.append(self)
            raise aot_torch.ConventionError("forced: the guards refused the call")

        monkeypatch.setattr(backend._Variant, "__call__", refuse)
        with caplog.at_level(logging.WARNING, logger="aot_torch"):
            for n in (4, 6):
                x = torch.randn(n, 8)
                torch.testing.assert_close(f(x), m(x))
        assert calls, "the compiled variant was asked"
        assert sum("such calls run in PyTorch" in r.getMessage() for r in caplog.records) == 1
        ran = []

        def count(self, args, info=None):
            ran.append(self)
            return real(self, args, info)

        monkeypatch.setattr(backend._Variant, "__call__", count)
        x = torch.randn(5, 8)
        torch.testing.assert_close(f(x), m(x))
        assert ran == calls[:1], "the same compiled variant runs the next call"
    assert aot_torch.stats["compiled"] == 1 and aot_torch.stats["symbolic_graphs"] == 1, dict(aot_torch.stats)


_ALIASING = {
    # Views of arguments, a view made before a write of its base, a view of
    # a written view, a detached view, the argument itself.
    "views": lambda x, y: (x[1:], x.t(), x.view(-1), y + 1),
    "view_after_write": lambda x, y: (x.add_(1)[:, :1], y),
    "written_transpose": lambda x, y: (x.transpose(0, 1).mul_(2), y.sum()),
    "view_of_written_view": lambda x, y: (x[:, 1:].add_(y[:, 1:]).t(), x),
    "detached_view": lambda x, y: (x.detach()[1:], (x * y[:1]).sum(1)),
    "the_argument": lambda x, y: (x, y * 2),
}


@pytest.mark.parametrize("name", sorted(_ALIASING))
def test_results_that_alias_arguments_compile_once_in_inference(name):
    """With symbolic sizes, a result that is a view of an argument (or the
    argument) is regenerated from the argument with the layout the compiled
    code gives it at each call's sizes: one compile serves every size, and
    each result is eager's (values, sizes, strides, offset, `_base`,
    the same object), with the arguments written as eager writes them."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    fn = _ALIASING[name]
    f = torch.compile(fn, backend="aot", dynamic=True)
    with torch.no_grad():
        for shape in ((4, 3), (5, 6), (7, 2), (6, 6)):
            x0, y0 = torch.randn(*shape), torch.randn(*shape)
            ins_e, ins_c = [x0.clone(), y0.clone()], [x0.clone(), y0.clone()]
            want, got = fn(*ins_e), f(*ins_c)
            for w, g in zip(want, got):
                torch.testing.assert_close(g, w)
                assert (g.shape, g.stride(), g.storage_offset()) == (w.shape, w.stride(), w.storage_offset())
                assert [g._base is t for t in ins_c] == [w._base is t for t in ins_e]
                assert [g is t for t in ins_c] == [w is t for t in ins_e]
            for a, b in zip(ins_c, ins_e):
                torch.testing.assert_close(a, b)
    stats = aot_torch.stats
    # (Once per graph Dynamo gives: one, or two where it splits the
    # function.)
    assert 1 <= stats["graphs"] == stats["symbolic_graphs"] == stats["compiled"] <= 2, dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)


@pytest.mark.parametrize("name", sorted(_ALIASING))
def test_results_that_alias_arguments_compile_once_in_training(name):
    """The same graphs in training, on arguments that require grad (views
    of leaves, so that a write in place is allowed): a result that views
    an argument, or is it, sends its tangent to that argument's gradient,
    and a written argument's new value takes its own, through element
    routes the backward resolves for each call's sizes. One compile serves
    every size; results, arguments and the leaves' gradients are eager's."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    fn = _ALIASING[name]
    f = torch.compile(fn, backend="aot", dynamic=True)
    g = torch.Generator().manual_seed(0)
    for shape in ((4, 3), (5, 6), (7, 2), (6, 6)):
        x0, y0 = torch.randn(*shape, generator=g), torch.randn(*shape, generator=g)
        runs = []
        for call in (fn, f):
            leaves = [x0.clone().requires_grad_(), y0.clone().requires_grad_()]
            ins = [t * 1 for t in leaves]
            outs = call(*ins)
            weights = torch.Generator().manual_seed(shape[0] * 10 + shape[1])
            loss = sum((o * torch.randn(o.shape, generator=weights)).sum() for o in outs if o.requires_grad)
            loss.backward()
            runs.append((outs, ins, [t.grad for t in leaves]))
        (want, ins_e, grads_e), (got, ins_c, grads_c) = runs
        for w, c in zip(want, got):
            torch.testing.assert_close(c, w)
            assert (c.shape, c.stride(), c.storage_offset()) == (w.shape, w.stride(), w.storage_offset())
            assert c.requires_grad == w.requires_grad
        for a, b in zip(ins_c, ins_e):
            torch.testing.assert_close(a, b)
        for a, b in zip(grads_c, grads_e):
            assert (a is None) == (b is None)
            if a is not None:
                torch.testing.assert_close(a, b)
    stats = aot_torch.stats
    assert 1 <= stats["graphs"] == stats["symbolic_graphs"] == stats["compiled"] <= 2, dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)


def test_dropout_compiles_once_and_draws_as_per_shape_code():
    """Random ops over symbolic sizes: each draw's offset is an expression
    of the sizes that the call evaluates, so one compile serves every
    shape (it was compiled per shape: `rng-functionalize` refused symbolic
    sizes), and under one seed its draws over a sequence of shapes are
    those of code compiled per shape; the backward reads the forward's
    mask."""
    def f(x, w):
        return F.dropout(x, 0.5, training=True) * w + torch.rand_like(x)

    shapes = [(6, 5, 8), (3, 7, 8), (9, 2, 8), (6, 5, 8)]
    xs = [torch.randn(*s, generator=torch.Generator().manual_seed(k)) + 3 for k, s in enumerate(shapes)]
    runs = {}
    for symbolic in (True, False):
        torch._dynamo.reset()
        aot_torch.stats.clear()
        compiled = torch.compile(f, backend=aot_torch.backend(symbolic=symbolic), dynamic=True)
        w = torch.randn(8, generator=torch.Generator().manual_seed(9)).requires_grad_()
        aot_torch.manual_seed(7)
        outs = []
        for x in xs:
            xg = x.clone().requires_grad_()
            out = compiled(xg, w)
            out.sum().backward()
            outs.append((out.detach(), xg.grad))
        runs[symbolic] = (outs, dict(aot_torch.stats))
    (sym_outs, sym_stats), (static_outs, static_stats) = runs[True], runs[False]
    assert sym_stats["compiled"] == sym_stats["graphs"] == sym_stats["symbolic_graphs"] == 1, sym_stats
    assert not sym_stats.get("fallback_regions"), sym_stats
    assert static_stats["compiled"] == 3, static_stats
    for (a, ga), (b, gb) in zip(sym_outs, static_outs):
        assert torch.equal(a, b), "the draws differ from per-shape code"
        assert torch.equal(ga, gb)
    # The backward reads the forward's mask: x's gradient is 2·w where
    # dropout kept the element, else 0.
    for _, grad in sym_outs:
        kept = grad != 0
        assert 0.3 < kept.float().mean().item() < 0.7
    assert not torch.equal(sym_outs[0][0], sym_outs[3][0]), "the generator advances across shapes"


_STEPPED = {
    "every_second": lambda x: x[::2] * 2,
    "odd_rows": lambda x: x[1::2].tanh(),
    "every_third_but_the_ends": lambda x: x[:, 1:-1:3].sum(1),
    "even_and_odd": lambda x: torch.cat([x[::2], x[1::2]], 0).exp(),
}


@pytest.mark.parametrize("training", [False, True], ids=["infer", "train"])
@pytest.mark.parametrize("name", sorted(_STEPPED))
def test_stepped_slices_of_a_symbolic_dimension_compile_once(name, training):
    """`x[::2]`, `x[1::2]`, `x[:, 1:-1:3]` over a symbolic dimension: the
    slice's length is `(size - start + step - 1) floordiv step`, which the
    IR's rule derives from the end (the size, or a constant counted from
    it), so one compile serves every size; values and gradients are
    eager's."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    fn = _STEPPED[name]
    f = torch.compile(fn, backend="aot", dynamic=True)
    with torch.set_grad_enabled(training):
        for shape in ((6, 7), (9, 8), (10, 10), (7, 11)):
            x0 = torch.randn(*shape)
            xe, xc = (x0.clone().requires_grad_(training) for _ in range(2))
            want, got = fn(xe), f(xc)
            torch.testing.assert_close(got, want)
            if training:
                want.sum().backward()
                got.sum().backward()
                torch.testing.assert_close(xc.grad, xe.grad)
    stats = aot_torch.stats
    assert stats["graphs"] == stats["symbolic_graphs"] == stats["compiled"] == 1, dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)


@pytest.mark.parametrize("training", [False, True], ids=["infer", "train"])
def test_a_padded_constant_of_a_symbolic_size_compiles_once(training):
    """A causal language model's loss shifts its labels with a pad of
    ignored positions (`F.pad(labels, (0, 1), value=-100)`: Hugging Face's
    GPT-2): a splat constant of a symbolic shape, whose type the native
    code of each size must take at that size (it raised "the function does
    not verify" at the first call)."""
    torch._dynamo.reset()
    aot_torch.stats.clear()

    def fn(logits, labels):
        shift = F.pad(labels, (0, 1), value=-100)[..., 1:]
        return F.cross_entropy(logits.flatten(0, 1), shift.flatten(), ignore_index=-100)

    f = torch.compile(fn, backend="aot", dynamic=True)
    with torch.set_grad_enabled(training):
        for b, t in ((2, 12), (3, 7), (4, 9)):
            x0, labels = torch.randn(b, t, 10), torch.randint(0, 10, (b, t))
            xe, xc = (x0.clone().requires_grad_(training) for _ in range(2))
            want, got = fn(xe, labels), f(xc, labels)
            torch.testing.assert_close(got, want)
            if training:
                want.backward()
                got.backward()
                torch.testing.assert_close(xc.grad, xe.grad)
    stats = aot_torch.stats
    assert stats["graphs"] == stats["symbolic_graphs"] == stats["compiled"] == 1, dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)


class _ChannelsLastNorm(torch.nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


_STEMS = {
    # A stride-2 convolution then a stride-2 pooling: the IR's rules give
    # `((s + 1) floordiv 2 + 1) floordiv 2`, PyTorch `(s + 3) floordiv 4`.
    "resnet": lambda: torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 7, 2, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.MaxPool2d(3, 2, 1),
        torch.nn.Conv2d(8, 8, 3, 2, 1), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten()),
    # A patchify convolution, a norm over channels-last, a downsampling:
    # `((s//4)**2) // (s//4)` in a view, `(s floordiv 4) floordiv 2`.
    "convnext": lambda: torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 4, 4), _ChannelsLastNorm(8), torch.nn.Conv2d(8, 16, 2, 2),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten()),
}


@pytest.mark.parametrize("name", sorted(_STEMS))
def test_cnn_stems_compile_once_over_image_sizes(name):
    """A quotient of a quotient has one form (`aot_ir::sym::floordiv`), and
    a size divided by a size that divides it is written as the quotient, so
    the stems of ResNet and ConvNeXt compile once for every image size
    (each was compiled per shape: its declared and inferred sizes were
    written differently)."""
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    m = _STEMS[name]().eval()
    f = torch.compile(m, backend="aot", dynamic=True)
    with torch.no_grad():
        for shape in ((2, 3, 64, 64), (3, 3, 96, 80), (2, 3, 48, 112), (4, 3, 72, 72)):
            x = torch.randn(*shape)
            torch.testing.assert_close(f(x), m(x), rtol=1e-4, atol=1e-5)
    stats = aot_torch.stats
    # (Dynamo gives a second graph when the height and width first differ.)
    assert stats["graphs"] == stats["symbolic_graphs"] == stats["compiled"], dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)


# Convolution and pooling geometries, each over image sizes odd and even,
# square and not: (layer, input channels, spatial rank).
_GEOMETRIES = {
    "conv-stride-pad": (lambda: torch.nn.Conv2d(3, 6, 3, stride=2, padding=1), 3, 2),
    "conv-dilated-groups": (lambda: torch.nn.Conv2d(4, 8, 3, stride=2, dilation=2, groups=2), 4, 2),
    "depthwise": (lambda: torch.nn.Conv2d(4, 4, 5, padding=2, groups=4), 4, 2),
    "depthwise-strided": (lambda: torch.nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=4, bias=False), 4, 2),
    "pointwise": (lambda: torch.nn.Conv2d(4, 8, 1), 4, 2),
    "pointwise-strided": (lambda: torch.nn.Conv2d(4, 8, 1, stride=2), 4, 2),
    "conv1d": (lambda: torch.nn.Conv1d(3, 5, 4, stride=3, padding=2), 3, 1),
    "conv3d": (lambda: torch.nn.Conv3d(2, 3, 3, padding=1), 2, 3),
    "max-pool": (lambda: torch.nn.MaxPool2d(3, 2, 1), 3, 2),
    "max-pool-ceil": (lambda: torch.nn.MaxPool2d(2, ceil_mode=True), 3, 2),
    "max-pool1d-dilated": (lambda: torch.nn.MaxPool1d(3, 2, dilation=2), 3, 1),
    "avg-pool-ceil": (lambda: torch.nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False), 3, 2),
    "avg-pool": (lambda: torch.nn.AvgPool2d(2), 3, 2),
}


class _ChannelsLastInput(torch.nn.Module):
    """`layer` over an input given channels-last (`[N, *spatial, C]`) and
    permuted: an operand whose symbolic strides are not row-major."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x.movedim(-1, 1))


@pytest.mark.parametrize("layout", ["contiguous", "channels-last", "channels-last-argument"])
@pytest.mark.parametrize("name", sorted(_GEOMETRIES))
def test_convolutions_and_pooling_over_image_sizes_read_them_at_run_time(name, layout):
    """Each geometry (strides, padding, dilation, groups, depthwise and
    pointwise convolutions in 1, 2 and 3 dimensions, max and average
    pooling with ceil mode) trained through `torch.compile(dynamic=True)`
    over image sizes: outputs and gradients equal eager's at every size,
    nothing falls back, and no native code is generated per size (the
    image sizes are read at run time). A channels-last input (a layout
    whose strides are not row-major, permuted from `[N, *spatial, C]` in
    the graph) is copied where a lowering needs row-major strides. A
    channels-last *argument* (`[N, C, *spatial]` with the channels
    innermost in memory, as `torch.channels_last` lays it out) is compiled
    once too: its layout is the symbolic strides of that order of its
    dimensions."""
    make, channels, rank = _GEOMETRIES[name]
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    layer = _ChannelsLastInput(make()) if layout == "channels-last" else make()
    net = torch.nn.Sequential(layer, torch.nn.Tanh())
    ref = copy.deepcopy(net)
    f = torch.compile(net, backend="aot", dynamic=True)
    per_size = aot_torch.versions_per_size()
    for n, *spatial in [(2, 9, 11, 10), (3, 16, 16, 12), (2, 13, 8, 9), (4, 10, 17, 11)]:
        x = torch.randn(n, channels, *spatial[:rank])
        if layout == "channels-last":
            x = x.movedim(1, -1).contiguous()
        if layout == "channels-last-argument":
            x = x.movedim(1, -1).contiguous().movedim(-1, 1)
        xa, xb = (x.detach().clone(memory_format=torch.preserve_format).requires_grad_() for _ in range(2))
        assert xa.stride() == x.stride()
        got, want = f(xa), ref(xb)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, msg=f"{name} at {tuple(x.shape)}")
        (got * got).sum().backward()
        (want * want).sum().backward()
        torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-4, atol=1e-5, msg=f"input grad at {tuple(x.shape)}")
        for (pname, p), q in zip(net.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4, msg=f"{pname} at {tuple(x.shape)}")
        net.zero_grad()
        ref.zero_grad()
    stats = aot_torch.stats
    assert stats["fallback_regions"] == 0 and stats["fallback_ops"] == 0, dict(stats)
    assert stats["compiled"] == stats["graphs"] == stats["symbolic_graphs"], dict(stats)
    assert aot_torch.versions_per_size() == per_size, "code generated per size"


class _Decoderish(torch.nn.Module):
    """What Hugging Face decoders do over a symbolic batch and length, each
    of which made the graph compile per shape: a tensor the graph holds as
    a constant (read while translating under the fake mode), a row's last
    token by advanced indexing (a negative index counted from a symbolic
    end: that size as a value, not specialised), and a `view` of the
    attention output's transpose, which eager lays out as `(b, t, h, d)`
    (the IR's layout of it is followed through views of symbolic shapes,
    and the view taken of a copy)."""

    def __init__(self, part):
        super().__init__()
        self.part = part
        self.emb = torch.nn.Embedding(20, 8)
        self.qkv = torch.nn.Linear(8, 24)
        self.o = torch.nn.Linear(8, 8)

    def forward(self, ids):
        b, t = ids.shape
        h = self.emb(ids)
        if self.part == "attention_view":
            q, k, v = (z.view(b, t, 2, 4).transpose(1, 2) for z in self.qkv(h).split(8, -1))
            # (The view after the attention has symbolic sizes in its
            # arguments, which the layout's replay must take.)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True).view(b, 2, t, 4)
            h = self.o(a.transpose(1, 2).view(b, t, -1))
        if self.part == "constant":
            h = h * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
        if self.part == "last_token":
            h = h[torch.arange(b), (ids != 0).sum(-1) - 1]
        return h


@pytest.mark.parametrize("part", ["attention_view", "constant", "last_token"])
def test_decoder_idioms_compile_once(part):
    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    m = _Decoderish(part).eval()
    f = torch.compile(m, backend="aot", dynamic=True)
    with torch.no_grad():
        for b, t in ((2, 5), (3, 7), (4, 9)):
            ids = torch.randint(1, 20, (b, t))
            torch.testing.assert_close(f(ids), m(ids))
    stats = aot_torch.stats
    assert stats["graphs"] == stats["symbolic_graphs"] == stats["compiled"] == 1, dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)


def test_independent_parts_of_a_training_region_compile_once():
    """Outputs whose histories reach different arguments are autograd nodes
    of their own (a decoder's loss and its key/value cache): a backward from
    one leaves the other's arguments' `.grad` None, as in eager, at every
    size of one symbolic compile (such regions were compiled per shape)."""
    torch._dynamo.reset()
    aot_torch.stats.clear()

    def fn(x, w1, w2):
        return (x @ w1).tanh().sum(1), (x * 2) @ w2

    f = torch.compile(fn, backend="aot", dynamic=True)
    for n in (3, 5, 8, 6):
        x = torch.randn(n, 4)
        ws = [torch.randn(4, 3, requires_grad=True) for _ in range(2)]
        wc = [w.detach().clone().requires_grad_() for w in ws]
        want, got = fn(x, *ws), f(x, *wc)
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w)
        want[0].sum().backward()
        got[0].sum().backward()
        assert ws[1].grad is None and wc[1].grad is None
        torch.testing.assert_close(wc[0].grad, ws[0].grad)
        want[1].pow(2).sum().backward()
        got[1].pow(2).sum().backward()
        torch.testing.assert_close(wc[1].grad, ws[1].grad)
    stats = aot_torch.stats
    assert stats["graphs"] == stats["symbolic_graphs"] == stats["compiled"], dict(stats)
    assert stats["fallback_regions"] == 0, dict(stats)
