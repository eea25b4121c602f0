"""Train a PyTorch model with aot as torch.compile's backend.

    pip install ./python            # builds aot_torch (needs cargo and PyTorch)
    python examples/torch_compile_train.py

A small GPT-style language model (token and position embeddings, causal
self-attention, GELU, layer norms, dropout, an output head tied to the
embedding) learns to continue a repeating token pattern. The same model is
trained eagerly side by side for 40 SGD steps without dropout (so that the
two runs draw nothing and must agree), then with dropout through aot alone
(its draws come from aot's Philox generator, seeded with
aot_torch.manual_seed).
"""

import copy
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import aot_torch


class Block(nn.Module):
    def __init__(self, vocab=32, ctx=16, d=64, nh=4, dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.ln1, self.ln2, self.lnf = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.drop = nn.Dropout(dropout)
        self.nh = nh
        self.register_buffer("causal", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)))

    def forward(self, idx):
        B, T = idx.shape
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(T)))
        q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=2)
        hs = x.shape[-1] // self.nh
        q, k, v = (t.view(B, T, self.nh, hs).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        att = self.drop(att.masked_fill(~self.causal[:T, :T], float("-inf")).softmax(-1))
        x = x + self.drop(self.proj((att @ v).transpose(1, 2).reshape(B, T, -1)))
        x = x + self.drop(self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh")))
        return self.lnf(x) @ self.wte.weight.t()


def batch(n=16, T=16, vocab=32):
    start = torch.randint(0, vocab, (n, 1))
    seq = (start + torch.arange(T + 1) * 3) % vocab
    return seq[:, :-1], seq[:, 1:]


def train(model, run, steps, seed=0):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    torch.manual_seed(seed)
    losses = []
    for _ in range(steps):
        x, y = batch()
        loss = F.cross_entropy(run(x).reshape(-1, 32), y.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    model = Block()
    eager = copy.deepcopy(model)
    t0 = time.perf_counter()
    compiled = torch.compile(model, backend="aot")
    got = train(model, compiled, 40)
    t_aot = time.perf_counter() - t0
    t0 = time.perf_counter()
    want = train(eager, eager, 40)
    t_eager = time.perf_counter() - t0
    for step in (0, 9, 19, 39):
        print("step %2d  loss aot %.5f  eager %.5f" % (step + 1, got[step], want[step]))
    worst = max(abs(a - b) for a, b in zip(got, want))
    print("largest loss difference over 40 steps: %.2e (aot %.2f s with compilation, eager %.2f s)"
          % (worst, t_aot, t_eager))
    assert worst < 1e-3, "aot and eager disagree"

    torch._dynamo.reset()
    torch.manual_seed(0)
    model = Block(dropout=0.1)
    aot_torch.manual_seed(0)
    losses = train(model, torch.compile(model, backend="aot"), 40)
    print("with dropout 0.1: loss %.4f -> %.4f" % (losses[0], losses[-1]))


if __name__ == "__main__":
    main()
