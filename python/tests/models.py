"""Models the tests and benchmarks train: an MLP, a residual MLP block (the
distributed tests' and benchmarks'), a GPT-2-style decoder block, a small residual CNN, and builders for the other cases
(nn.TransformerEncoderLayer with dropout, batch norm in train mode). Sizes are small so that a CPU run of
20 optimizer steps takes a fraction of a second."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d=16, h=32, o=4):
        super().__init__()
        self.l1 = nn.Linear(d, h)
        self.l2 = nn.Linear(h, h)
        self.l3 = nn.Linear(h, o)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


class ResidualMLP(nn.Module):
    """A residual MLP block: layer norm, `up`, GELU, dropout (none by
    default), `down`. Tensor parallelism splits `up` by columns and `down`
    by rows (one all-reduce)."""

    def __init__(self, width=16, hidden=32, dropout=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x + self.down(self.drop(F.gelu(self.up(self.norm(x)))))


class GPT2Block(nn.Module):
    """Token and position embeddings, one pre-norm decoder block (causal
    self-attention with a tril mask and masked_fill(-inf), or
    scaled_dot_product_attention(is_causal=True) with `sdpa`; GELU with the
    tanh approximation), a final layer norm and an output head tied to the
    token embedding."""

    def __init__(self, vocab=64, ctx=16, d=32, nh=4, dropout=0.0, sdpa=False):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.lnf = nn.LayerNorm(d)
        self.drop = nn.Dropout(dropout)
        self.nh = nh
        self.sdpa = sdpa
        self.register_buffer("mask", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)))

    def forward(self, idx):
        B, T = idx.shape
        pos = torch.arange(T)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        h = self.ln1(x)
        q, k, v = self.attn(h).split(h.shape[-1], dim=2)
        hs = h.shape[-1] // self.nh
        q = q.view(B, T, self.nh, hs).transpose(1, 2)
        k = k.view(B, T, self.nh, hs).transpose(1, 2)
        v = v.view(B, T, self.nh, hs).transpose(1, 2)
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
            att = att.masked_fill(~self.mask[:T, :T], float("-inf"))
            y = self.drop(F.softmax(att, dim=-1)) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, -1)
        x = x + self.drop(self.proj(y))
        x = x + self.drop(self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh")))
        return self.lnf(x) @ self.wte.weight.t()


class ResNetish(nn.Module):
    """A small image classifier with the layers of a ResNet: a padded
    convolution, batch norm, ReLU and max pooling; a residual block of two
    convolutions (one depthwise, grouped); a strided, dilated convolution
    without bias; average pooling with ceil_mode and a global average pool
    into a linear head."""

    def __init__(self, c=8, classes=5):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.pool = nn.MaxPool2d(2)
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c)
        self.pw = nn.Conv2d(c, c, 1)
        self.bn2 = nn.BatchNorm2d(c)
        self.down = nn.Conv2d(c, 2 * c, 3, stride=2, padding=2, dilation=2, bias=False)
        self.avg = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        self.head = nn.Linear(2 * c, classes)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.stem(x))))
        x = F.relu(x + self.bn2(self.pw(F.relu(self.dw(x)))))
        x = self.avg(torch.tanh(self.down(x)))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def encoder_layer(dropout=0.1, d=32, nh=4, ff=64):
    return nn.TransformerEncoderLayer(d, nh, ff, dropout=dropout, batch_first=True)


def batchnorm_net():
    return nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))


def gpt_loss(out, target):
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1))


def cases(batch=4):
    """(name, model builder, input, target, loss) for the training tests."""
    g = torch.Generator().manual_seed(1)
    return [
        ("mlp", MLP, torch.randn(8, 16, generator=g), torch.randn(8, 4, generator=g), F.mse_loss),
        ("encoder", lambda: encoder_layer(dropout=0.0), torch.randn(batch, 16, 32, generator=g),
         torch.randn(batch, 16, 32, generator=g), F.mse_loss),
        ("gpt2", GPT2Block, torch.randint(0, 64, (batch, 16), generator=g),
         torch.randint(0, 64, (batch, 16), generator=g), gpt_loss),
        ("batchnorm", batchnorm_net, torch.randn(32, 8, generator=g), torch.randn(32, 2, generator=g), F.mse_loss),
        ("cnn", ResNetish, torch.randn(batch, 3, 16, 16, generator=g),
         torch.randint(0, 5, (batch,), generator=g), F.cross_entropy),
    ]
