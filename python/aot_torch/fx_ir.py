"""FX graph -> aot IR.

A torch.compile backend gets a Dynamo FX GraphModule and its example inputs
(parameters and buffers lifted as leading inputs). This module

1. traces it to ATen (`to_aten`): `make_fx` with real tensors and a small
   decomposition table, *without* functionalization, so views and in-place
   ops stay as the program wrote them (aot's own `functionalize` pass removes
   them later);
2. translates the ATen graph into one `func.func` of the IR in the generic
   op form (`translate`), or raises `Unsupported` for the first node it
   cannot translate exactly.

Public API: `to_aten`, `translate`, `unsupported_reason`, `Translation`,
`Unsupported`, `ATEN_TO_IR`, `DECOMPOSITIONS`, `IR_DTYPES`.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import operator
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx

from . import conv
from . import eager_derivatives
from . import ir_builder
from . import aten_ops
from .aten_ops import ATEN_TO_IR
from .ir_builder import (IR_DTYPES, Builder, Reject, Unsupported, Value, _is_symbolic, bind_args, node_val,
                         tensor_meta)

aten = torch.ops.aten
prims = torch.ops.prims

# ---------------------------------------------------------------------------
# Decompositions


def _bn_decomp(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch norm on ops the IR has. Running statistics are updated in place
    (`copy_`) from detached values, as PyTorch's kernel does outside
    autograd.

    A half-precision input is normalized in `float` and rounded once, as
    eager's CPU kernel computes it; with `float` parameters (autocast's
    mixed batch norm) the saved statistics are `float` too, else of the
    input's type."""
    half = input.dtype in (torch.float16, torch.bfloat16)
    if half:
        params = [t for t in (weight, bias, running_mean, running_var) if t is not None]
        stats_dtype = torch.float32 if any(t.dtype == torch.float32 for t in params) else input.dtype

        def up(t):
            return t if t is None or t.dtype == torch.float32 else aten._to_copy.default(t, dtype=torch.float32)
        # (Running statistics are written through their own tensors: only
        # the values read are converted.)
        out, save_mean, save_rstd = _bn_decomp_float(
            aten._to_copy.default(input, dtype=torch.float32), up(weight), up(bias), running_mean, running_var,
            training, momentum, eps)
        # (`_to_copy` keeps the layout `_bn_decomp_float` gave: eager's.)
        out = aten._to_copy.default(out, dtype=input.dtype)
        if stats_dtype != torch.float32:
            save_mean = aten._to_copy.default(save_mean, dtype=stats_dtype)
            save_rstd = aten._to_copy.default(save_rstd, dtype=stats_dtype)
        return out, save_mean, save_rstd
    return _bn_decomp_float(input, weight, bias, running_mean, running_var, training, momentum, eps)


def _bn_decomp_float(input, weight, bias, running_mean, running_var, training, momentum, eps):
    C = input.shape[1]
    bshape = [1, C] + [1] * (input.dim() - 2)
    if training:
        # Per channel, a layer norm over [N, *spatial] of the input with its
        # channels first: the IR's layer_norm has the closed-form backward
        # (two sums in one pass over the input, then the gradient), where
        # the derivatives of a written-out mean and variance take a pass more.
        perm = [1, 0] + list(range(2, input.dim()))
        channels_first = aten.permute.default(input, perm)
        normed, mean, rstd = aten.native_layer_norm.default(
            channels_first, list(channels_first.shape[1:]), None, None, eps)
        out = aten.permute.default(normed, perm)
        save_mean = aten.view.default(mean, [C])
        save_rstd = aten.view.default(rstd, [C])
        if running_mean is not None:
            m = aten.detach.default(save_mean)
            new_mean = aten.add.Tensor(aten.mul.Tensor(m, momentum),
                                       aten.mul.Tensor(running_mean, 1.0 - momentum))
            aten.copy_.default(running_mean, new_mean)
        if running_var is not None:
            n = input.numel() // C
            # The biased variance back from rstd = 1/sqrt(var + eps).
            r = aten.detach.default(save_rstd)
            v = aten.sub.Tensor(aten.reciprocal.default(aten.mul.Tensor(r, r)), eps)
            if isinstance(n, torch.SymInt):
                # (A symbolic count, at least 2: the factor is computed per
                # call, never made a constant of the example's count.)
                unbiased = aten.div.Tensor(aten.mul.Tensor(v, n), n - 1)
            else:
                unbiased = aten.mul.Tensor(v, float(n) / float(max(n - 1, 1))) if n > 1 else aten.mul.Tensor(v, math.inf)
            new_var = aten.add.Tensor(aten.mul.Tensor(unbiased, momentum),
                                      aten.mul.Tensor(running_var, 1.0 - momentum))
            aten.copy_.default(running_var, new_var)
    else:
        mean = aten.view.default(running_mean, bshape)
        var = aten.view.default(running_var, bshape)
        rstd = aten.rsqrt.default(aten.add.Tensor(var, eps))
        out = aten.mul.Tensor(aten.sub.Tensor(input, mean), rstd)
        save_mean = aten.new_zeros.default(input, [0])
        save_rstd = aten.new_zeros.default(input, [0])
    if weight is not None:
        out = aten.mul.Tensor(out, aten.view.default(weight, bshape))
    if bias is not None:
        out = aten.add.Tensor(out, aten.view.default(bias, bshape))
    # (The channels-first normalization gives another layout.)
    out = conv.eager_format(out, input)
    return out, save_mean, save_rstd


def _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _bn_decomp(input, weight, bias, running_mean, running_var, training, momentum, eps)


def _bn_legit_no_stats(input, weight, bias, training, momentum, eps):
    return _bn_decomp(input, weight, bias, None, None, True, momentum, eps)


def _dropout(input, p, train):
    # PyTorch's CPU dropout returns the input itself when it does nothing.
    if not train or p == 0 or input.numel() == 0:
        return input
    return aten.native_dropout.default(input, p, train)[0]


def _dropout_(input, p, train):
    if not train or p == 0 or input.numel() == 0:
        return input
    return aten.copy_.default(input, aten.native_dropout.default(input, p, train)[0])


def _index_copy(x, dim, index, source):
    # The IR's index_put takes one 1-D index on dim 0: move `dim` there.
    if x.dim() == 0:
        return aten.index_put.default(x.reshape(1), [index.reshape(-1)], source.reshape(-1)).reshape(())
    d = dim % x.dim()
    if source.dim() < x.dim():
        source = source.unsqueeze(d)
    moved = aten.index_put.default(x.movedim(d, 0), [index.reshape(-1)], source.movedim(d, 0))
    # A fresh result in eager's layout (the IR's index_put result is
    # contiguous where PyTorch's keeps the moved input's).
    return aten.clone.default(moved.movedim(0, d), memory_format=torch.contiguous_format)


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    """`nn.EmbeddingBag`'s sums and means (modes 0 and 1) as catalogue ops:
    each position's bag counted from the offsets at or before it (a
    cumulative sum of marks), the rows gathered (`embedding`, which checks
    the indices as eager does), weighted, and added into their bags
    (`index_add`). Positions before the first offset, at or after the
    last one with `include_last_offset`, and of `padding_idx` are in no
    bag; an empty bag is zeros, and a mean divides by the rows its bag
    kept. Max bags, gradients scaled by frequency and sparse gradients
    stay eager's op. The other results (each position's bag, the bags'
    sizes, the max mode's positions) feed only eager's backward, which
    aot does not call: they are given with eager's shapes."""
    if mode not in (0, 1) or sparse or scale_grad_by_freq or indices.dim() != 1 or offsets.dim() != 1:
        return NotImplemented
    if per_sample_weights is not None and mode != 0:
        return NotImplemented
    n = indices.shape[0]
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    idx = indices.long()
    starts = offsets.long().clamp(0, n)
    marks = aten.index_put.default(idx.new_zeros(n + 1), [starts], torch.ones_like(starts), True)
    bag = aten.cumsum.default(marks[:n], 0) - 1
    keep = (bag >= 0) & (bag < bags)
    if padding_idx >= 0:
        keep = keep & (idx != padding_idx)
    rows = aten.embedding.default(weight, idx)
    w = keep.to(weight.dtype)
    if per_sample_weights is not None:
        w = w * per_sample_weights.to(weight.dtype)
    rows = rows * w.unsqueeze(1)
    slot = bag.clamp(0, max(bags - 1, 0)) if bags > 0 else bag
    out = aten.index_add.default(weight.new_zeros(bags, weight.shape[1]), 0, slot, rows)
    sizes = aten.index_add.default(idx.new_zeros(bags), 0, slot, keep.long())
    if mode == 1:
        out = out / sizes.clamp(min=1).to(weight.dtype).unsqueeze(1)
    return out, bag, sizes, idx.new_zeros(bags)


def _index_copy_(x, dim, index, source):
    return aten.copy_.default(x, _index_copy(x, dim, index, source))


def _addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    # beta·self + alpha·Σ_b batch1[b] @ batch2[b]; with beta = 0 `self` is
    # not read (its NaN do not propagate), as in eager.
    total = aten.sum.dim_IntList(aten.bmm.default(batch1, batch2), [0])
    if alpha != 1:
        total = aten.mul.Tensor(total, alpha)
    if beta == 0:
        return aten.expand.default(total, self.shape).clone() if total.shape != self.shape else total
    return aten.add.Tensor(aten.mul.Tensor(self, beta) if beta != 1 else self, total)


def _addr(self, vec1, vec2, *, beta=1, alpha=1):
    # Eager's kernel: beta·self + (alpha·vec1)·vec2 per element, the last
    # multiply-add fused (`addcmul` is translated as one); with beta = 0,
    # (alpha·vec1)·vec2 alone, `self` not read.
    col = aten.unsqueeze.default(vec1, 1)
    if alpha != 1:
        col = aten.mul.Tensor(col, alpha)
    row = aten.unsqueeze.default(vec2, 0)
    if beta == 0:
        return aten.expand.default(aten.mul.Tensor(col, row), self.shape).clone()
    base = aten.mul.Tensor(self, beta) if beta != 1 else self
    return aten.addcmul.default(aten.expand.default(base, (vec1.shape[0], vec2.shape[0])), col, row)


def _rrelu_with_noise(self, noise, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    # Outside training, eager's `rrelu` is a leaky ReLU whose slope is the
    # mean of the bounds (in double, as eager computes it); the random
    # slopes of training stay PyTorch's.
    if training:
        return NotImplemented
    return aten.leaky_relu.default(self, (float(lower) + float(upper)) / 2)


def _eye(n, m=None, *, dtype=None, layout=None, device=None, pin_memory=None):
    # (torch._refs' eye compares uint8 ranges, a dtype the IR does not have.)
    m = n if m is None else m
    rows = aten.arange.default(n, dtype=torch.int64, device=device).unsqueeze(1)
    cols = aten.arange.default(m, dtype=torch.int64, device=device)
    return aten.eq.Tensor(rows, cols).to(dtype or torch.get_default_dtype())


def _nan_to_num(a, nan=0.0, posinf=None, neginf=None):
    if not a.is_floating_point():
        return aten.clone.default(a)
    info = torch.finfo(a.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = torch.where(torch.isnan(a), nan if nan is not None else 0.0, a)
    out = torch.where(a == math.inf, posinf, out)
    return torch.where(a == -math.inf, neginf, out)


def _fmax_fmin(extremum):
    # The non-NaN operand where one is NaN, else `maximum`/`minimum`, whose
    # derivative splits the gradient at a tie, as PyTorch's fmax's does.
    def fn(a, b):
        return torch.where(torch.isnan(b), a, torch.where(torch.isnan(a), b, extremum(a, b)))

    return fn


def _exp2(a):
    return aten.pow.Scalar(2.0, a)


def _log_base(base):
    def fn(a):
        return aten.div.Tensor(aten.log.default(a), math.log(base))

    return fn


def _frac(a):
    return aten.sub.Tensor(a, aten.trunc.default(a))


def _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                                   use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
                                   norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2,
                                   mask=None, mask_type=None):
    """`nn.TransformerEncoderLayer`'s inference fast path (eval, no_grad,
    batch first) as the layer's own ops: attention over the packed
    projection (rows q, k, v, each split by head), then the feed-forward,
    with the layer norms before (`norm_first`) or after each.

    The mask the layer merged (`mask_type` 1: a key padding mask `[b, t]`;
    0: an attention mask `[t, t]`; 2: both, `[b, heads, t, t]`) arrives as
    floats, and the fast path masks every position where it is non-zero
    (its masked softmax reads it as booleans: a finite float mask masks
    where it is not 0), a row with every key masked coming out NaN. So the
    attention is written out (PyTorch's `scaled_dot_product_attention` gives
    such a row zeros). With nested tensors PyTorch runs it."""
    if src.dim() != 3 or src.is_nested:
        return NotImplemented
    F = torch.nn.functional
    b, t, e = src.shape
    d = embed_dim // num_heads
    masked = None
    if mask is not None:
        shapes = {1: (b, 1, 1, t), 0: (1, 1, t, t), 2: (b, num_heads, t, t)}
        if mask_type not in shapes or mask.numel() != math.prod(shapes[mask_type]):
            return NotImplemented
        masked = (mask != 0).view(shapes[mask_type])

    def attention(x):
        q, k, v = F.linear(x, qkv_weight, qkv_bias).view(b, t, 3, num_heads, d).permute(2, 0, 3, 1, 4)
        if masked is None:
            o = F.scaled_dot_product_attention(q, k, v)
        else:
            scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
            o = torch.matmul(torch.softmax(scores.masked_fill(masked, float("-inf")), -1), v)
        return F.linear(o.transpose(1, 2).reshape(b, t, e), proj_weight, proj_bias)

    def feed_forward(x):
        h = F.linear(x, ffn_weight_1, ffn_bias_1)
        return F.linear(F.gelu(h) if use_gelu else F.relu(h), ffn_weight_2, ffn_bias_2)

    def norm1(x):
        return F.layer_norm(x, (e,), norm_weight_1, norm_bias_1, eps)

    def norm2(x):
        return F.layer_norm(x, (e,), norm_weight_2, norm_bias_2, eps)

    if norm_first:
        x = src + attention(norm1(src))
        return x + feed_forward(norm2(x))
    x = norm1(src + attention(src))
    return norm2(x + feed_forward(x))


def _inplace_on_a_copy(functional):
    """An in-place op as its functional form on a copy of `self`, then
    `copy_` into `self`. PyTorch's in-place kernels whose derivative reads
    `self` save the original (a copy), so writing `self`, by this very op or
    later, leaves their backward valid. The functional form on `self` itself
    (`torch._refs`' in-place decompositions) would save `self`, which the
    `copy_` then writes: a "modified by an inplace operation" error in
    backward where eager trains (an in-place SiLU after a batch norm)."""

    def fn(self, *args, **kwargs):
        # (Under no_grad nothing is saved: no copy, one traced op less.)
        source = aten.clone.default(self) if torch.is_grad_enabled() else self
        return aten.copy_.default(self, functional(source, *args, **kwargs))

    return fn


# The in-place activations whose eager derivative reads the original `self`
# (PyTorch saves a copy of it). Those whose derivative reads the result
# (`elu_`, `leaky_relu_`, `celu_`: a later write of the result makes eager's
# backward raise) are not decomposed: `leaky_relu_` is translated where
# nothing can write its result after (`aten_ops._leaky_relu_`), the others
# are left to PyTorch.
# `test_eager_semantics.test_in_place_activations_save_what_eager_saves`
# checks both lists against PyTorch's autograd.
INPLACE_SAVING_SELF = ("silu", "hardtanh", "hardsigmoid", "hardswish", "mish")


def _bce_with_logits(upstream):
    """`binary_cross_entropy_with_logits` of floats without `pos_weight`:
    the unreduced loss stays one op (`tensor.bce_logits`, eager's forward
    and backward formulas), then the weight and the reduction as eager
    applies them; upstream's decomposition otherwise."""

    def bce(x, target, weight=None, pos_weight=None, reduction=1):
        if pos_weight is not None or x.dtype not in (torch.float32, torch.float64) or target.dtype != x.dtype:
            return upstream(x, target, weight, pos_weight, reduction)
        if weight is None and reduction == 0:
            return NotImplemented
        from torch._decomp.decompositions import apply_loss_reduction

        loss = aten.binary_cross_entropy_with_logits.default(x, target, None, None, 0)
        if weight is not None:
            loss = loss * weight
        return apply_loss_reduction(loss, reduction)

    return bce


def _glu_of_known_halves(upstream):
    """`glu` stays one op (`tensor.glu` of the halves, eager's backward
    formula) where the halves' size is a number and the input a float;
    upstream's decomposition otherwise (a symbolic size)."""

    def glu(x, dim=-1):
        size = x.shape[dim % x.dim()] if x.dim() else None
        if isinstance(size, int) and size % 2 == 0 and x.dtype.is_floating_point:
            return NotImplemented
        return upstream(x, dim)

    return glu


def _sdpa_for_cpu(upstream):
    """PyTorch's CPU attention stays one op, which the translator writes as
    `tensor.attention` (one GEMM for the scores, one row kernel for the
    masked softmax, one GEMM for the values; its gradient saves the output
    and each row's log-sum-exp, as eager's fused kernel does). Upstream's
    decomposition (`q` and `k` scaled, the scores, a safe softmax) is kept
    for what the op does not take: dropout, grouped-query heads (fewer key
    heads than query heads), a mask that needs a gradient."""

    def sdpa(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
        same = (query.dim() == 4 and key.dim() == 4 and value.dim() == 4
                and query.shape[:2] == key.shape[:2] == value.shape[:2]
                and query.dtype == key.dtype == value.dtype and query.dtype.is_floating_point)
        mask_ok = attn_mask is None or (attn_mask.dtype in (torch.bool, query.dtype) and not attn_mask.requires_grad)
        if dropout_p == 0.0 and same and mask_ok:
            return NotImplemented
        return upstream(query, key, value, dropout_p, is_causal, attn_mask=attn_mask, scale=scale)

    return sdpa


# PyTorch's `_foreach_*` ops (optimizers with `foreach=True`,
# `clip_grad_norm_`): a list of tensors through one op each. Upstream has
# no decompositions for them; these call the op per element, so that each
# element's op is the catalogue's.
_FOREACH_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow", "lerp")
_FOREACH_UNARY = ("sqrt", "rsqrt", "exp", "log", "neg", "abs", "sign", "reciprocal", "sigmoid", "tanh",
                  "zero")
_FOREACH_POINTWISE = ("addcmul", "addcdiv")


def _foreach_decomposition(name: str, inplace: bool):
    method = getattr(torch.Tensor, name + "_" if inplace else name, None)
    if method is None:
        # (No in-place method, `maximum_`: the result copied in.)
        functional = getattr(torch.Tensor, name)

        def method(t, *args, **kwargs):
            return t.copy_(functional(t, *args, **kwargs))
    pointwise = name in _FOREACH_POINTWISE

    def decomposition(self, *args, **kwargs):
        def at(a, i):
            return a[i] if isinstance(a, (list, tuple)) else a
        if not isinstance(self, (list, tuple)):
            # (`_foreach_pow.ScalarAndTensor`: a number to each power.)
            n = next(len(a) for a in args if isinstance(a, (list, tuple)))
            return [getattr(torch, name)(self, *[at(a, i) for a in args]) for i in range(n)]
        outs = []
        for i, t in enumerate(self):
            xs = [at(a, i) for a in args]
            kw = {k: at(v, i) for k, v in kwargs.items()}
            if pointwise and len(xs) == 3:
                # (`value` is keyword-only in the method, positional in
                # the foreach op's `ScalarList`/`Tensor` overloads.)
                v = xs.pop()
                kw["value"] = v.item() if isinstance(v, torch.Tensor) and v.dim() == 1 else v
            outs.append(method(t, *xs, **kw))
        return None if inplace else outs
    decomposition.__name__ = "_foreach_per_tensor"
    return decomposition


def _foreach_norm(self, ord=2, dtype=None):
    return [torch.linalg.vector_norm(t, ord, dtype=dtype) for t in self]


def _foreach_decompositions():
    table = {}
    for name in _FOREACH_BINARY + _FOREACH_UNARY + _FOREACH_POINTWISE:
        for inplace in (False, True):
            packet = getattr(aten, "_foreach_%s%s" % (name, "_" if inplace else ""), None)
            if packet is None or (name == "zero" and not inplace):
                continue
            for ov in packet.overloads():
                if "out" not in ov:
                    table[getattr(packet, ov)] = _foreach_decomposition(name, inplace)
    for ov in aten._foreach_norm.overloads():
        if "out" not in ov:
            table[getattr(aten._foreach_norm, ov)] = _foreach_norm
    return table


def _build_decompositions():
    from torch._decomp import get_decompositions

    # (`silu`, `hardswish`, `hardsigmoid`, `hardtanh` and the inference
    # batch norm are translated from one ATen op each: `aten_ops`.)
    table = dict(get_decompositions([
        aten.nll_loss_forward,
        aten.tril, aten.triu,
        aten.mse_loss,
        aten.leaky_relu,
        aten.smooth_l1_loss, aten.huber_loss,
        aten.binary_cross_entropy,
        aten.nll_loss2d_forward,
        aten.logsumexp,
        aten.native_group_norm,
        aten.constant_pad_nd,
        aten.stack,
        aten.repeat,
        # Composites of catalogue ops (upstream compiles them the same way).
        aten.linalg_vector_norm,
        aten.addmv,
        aten.linspace, aten.logspace,
        aten.index_fill, aten.index_fill_,
        # Weight normalization (`nn.utils.weight_norm`: wav2vec2's
        # positional convolution).
        aten._weight_norm_interface,
        # Gathers with computed indices (`interpolate`'s upsampling, the
        # reflection and replication pads, `F.unfold`, `grid_sample`) and
        # index arithmetic.
        aten._unsafe_index,
        # (And what PyTorch's embedding backward writes, which a backward
        # traced by autograd calls: masked accumulating index puts.)
        aten._unsafe_index_put, aten._unsafe_masked_index, aten._unsafe_masked_index_put_accumulate,
        aten.reflection_pad1d, aten.reflection_pad2d, aten.reflection_pad3d,
        aten.replication_pad1d, aten.replication_pad2d, aten.replication_pad3d,
        aten.im2col, aten.col2im,
        aten.grid_sampler_2d,
        aten.index_add,
        aten.affine_grid_generator,
        aten.linalg_cross,
        aten.diag_embed,
        aten.trace,
        # Shuffles, as views.
        aten.pixel_shuffle, aten.pixel_unshuffle,
        aten.unfold,
        # Activations, losses and reductions written with catalogue ops.
        aten._prelu_kernel,
        aten.threshold,
        aten.xlogy,
        aten.sinc,
        aten.deg2rad, aten.rad2deg,
        aten.norm,
        aten.aminmax,
        aten.count_nonzero,
        aten.nansum,
    ]))
    table[aten._scaled_dot_product_flash_attention_for_cpu.default] = _sdpa_for_cpu(
        get_decompositions([aten._scaled_dot_product_flash_attention_for_cpu])[
            aten._scaled_dot_product_flash_attention_for_cpu.default])
    eager_derivatives.install(table)
    table[aten.binary_cross_entropy_with_logits.default] = _bce_with_logits(
        get_decompositions([aten.binary_cross_entropy_with_logits])[aten.binary_cross_entropy_with_logits.default])
    table[aten.glu.default] = _glu_of_known_halves(table.get(aten.glu.default)
                                                   or get_decompositions([aten.glu])[aten.glu.default])
    table[aten.addbmm.default] = _addbmm
    table[aten.addr.default] = _addr
    table[aten.rrelu_with_noise.default] = _rrelu_with_noise
    table[aten.eye.default] = _eye
    table[aten.eye.m] = _eye
    table[aten.nan_to_num.default] = _nan_to_num
    table[aten.fmax.default] = _fmax_fmin(torch.maximum)
    table[aten.fmin.default] = _fmax_fmin(torch.minimum)
    table[aten.exp2.default] = _exp2
    table[aten.log10.default] = _log_base(10.0)
    table[aten.log2.default] = _log_base(2.0)
    table[aten.frac.default] = _frac
    table[aten.native_batch_norm.default] = _native_batch_norm
    table[aten._native_batch_norm_legit.default] = _native_batch_norm
    table[aten._native_batch_norm_legit.no_stats] = _bn_legit_no_stats
    # (`_native_batch_norm_legit_no_training` is translated: `aten_ops`.)
    table[aten._embedding_bag.default] = _embedding_bag
    table[aten._embedding_bag_forward_only.default] = _embedding_bag
    table[aten.index_copy.default] = _index_copy
    table[aten.index_copy_.default] = _index_copy_
    table[aten.dropout.default] = _dropout
    table[aten.dropout_.default] = _dropout_
    table[aten._transformer_encoder_layer_fwd.default] = _transformer_encoder_layer_fwd
    table.update(conv.decompositions())
    table.update(_foreach_decompositions())
    for name in INPLACE_SAVING_SELF:
        packet, inplace = getattr(aten, name), getattr(aten, name + "_")
        for ov in inplace.overloads():
            table[getattr(inplace, ov)] = _inplace_on_a_copy(getattr(packet, ov))
    return table


DECOMPOSITIONS = _build_decompositions()


# ---------------------------------------------------------------------------
# Tracing


def _copy_inputs(example_inputs):
    """Copies of the example tensors (same sizes, strides, offsets, storage
    sharing, requires_grad), so that tracing with real tensors does not
    mutate the caller's tensors."""
    storages: Dict[Tuple[int, int, str], Any] = {}
    nonleaf_roots: Dict[Tuple[int, int, str], Any] = {}
    by_id: Dict[int, Any] = {}
    out = []
    for t in example_inputs:
        if not isinstance(t, torch.Tensor):
            out.append(t)
            continue
        if id(t) in by_id:
            out.append(by_id[id(t)])
            continue
        with torch.no_grad():
            st = t.untyped_storage()
            key = (st.data_ptr(), st.nbytes(), str(t.device))
            if st.data_ptr() == 0 or t.is_sparse:
                c = t.detach().clone()
            else:
                if key not in storages:
                    storages[key] = st.clone()
                c = torch.empty(0, dtype=t.dtype, device=t.device)
                c.set_(storages[key], t.storage_offset(), t.size(), t.stride())
        if t.requires_grad:
            if t.is_leaf or key not in storages:
                c.requires_grad_(True)
                if not t.is_leaf:
                    c = c.clone(memory_format=torch.preserve_format)
            else:
                # A non-leaf keeps its strides and offset, and the non-leaf
                # arguments of one storage keep sharing it: views of one
                # non-leaf root over a copy of the storage (a clone of a
                # strided tensor would be dense: `contiguous()` of it would
                # trace as nothing).
                root = nonleaf_roots.get(key)
                if root is None:
                    n = storages[key].nbytes() // t.element_size()
                    with torch.no_grad():
                        flat = torch.empty(0, dtype=t.dtype, device=t.device)
                        flat.set_(storages[key], 0, (n,), (1,))
                    root = nonleaf_roots[key] = flat.requires_grad_().clone()
                c = root.as_strided(t.size(), t.stride(), t.storage_offset())
        by_id[id(t)] = c
        out.append(c)
    return out


_GRAD_KEY = "aot_grad_enabled"
# meta["custom"] key of a random node's draw tag (`dtensor._trace`): its
# random ops are marked `aot.draw`, the same in a forward and in the
# traced backward that recomputes the node, which the `joint` pass then
# reads from the forward instead of drawing again.
DRAW_KEY = "aot_draw"
_SOURCE_KEY = "aot_source"


def annotate_grad_mode(gm: torch.fx.GraphModule) -> None:
    """Record in each Dynamo node's meta["custom"] whether grad mode is on
    when it runs (Dynamo writes `torch._C._set_grad_enabled` calls into the
    graph; make_fx traces below autograd and would lose them). make_fx
    copies meta["custom"] to the ATen nodes each node produces."""
    state = torch.is_grad_enabled()
    hop = getattr(torch.ops.higher_order, "wrap_with_set_grad_enabled", None)
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch._C._set_grad_enabled:
            state = bool(n.args[0])
        custom = dict(n.meta.get("custom") or {})
        # torch.export writes a no_grad block as a higher-order op whose
        # body runs with the given mode (the ops it traces get this meta).
        custom[_GRAD_KEY] = bool(n.args[0]) if hop is not None and n.target is hop else state
        # The Dynamo node each ATen node comes from: an op left to PyTorch
        # runs as the user's program wrote it (`source_of`).
        custom[_SOURCE_KEY] = n.name
        n.meta["custom"] = custom


def item_inputs(gm: torch.fx.GraphModule) -> List[int]:
    """The positions of the graph inputs that are read only as Python
    numbers (`x.item()`): the float attributes and arguments Dynamo passes
    as 0-dim tensors when it does not specialize on floats (`dynamic=True`:
    a layer norm's `eps`, an embedding's `norm_type`). Tracing cannot read a
    traced tensor's value; the caller keys its traces on these values and
    traces with them as constants (`with_item_values`). So are the integer
    inputs Dynamo makes symbolic that no tensor input's size is (Hugging
    Face's `logits_to_keep`): the IR's sizes are those of its arguments'
    dimensions."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    dims: set = set()
    for n in placeholders:
        v = n.meta.get("example_value")
        if isinstance(v, torch.Tensor):
            for d in v.shape:
                if isinstance(d, torch.SymInt):
                    dims |= d.node.expr.free_symbols
    out = []
    for k, n in enumerate(placeholders):
        v = n.meta.get("example_value")
        if isinstance(v, torch.SymInt):
            if n.users and not v.node.expr.free_symbols <= dims:
                out.append(k)
        elif n.users and all(u.op == "call_method" and u.target == "item" and len(u.args) == 1 and not u.kwargs
                             for u in n.users):
            out.append(k)
    return out


def with_item_values(gm: torch.fx.GraphModule, values: Dict[int, Any]) -> torch.fx.GraphModule:
    """A copy of `gm` in which `x.item()` of graph input k (a position of
    `item_inputs`), or the input itself where it is an integer, is the
    number values[k]; the input stays, unused."""
    graph = torch.fx.Graph()
    copied: Dict[torch.fx.Node, torch.fx.Node] = {}
    graph.output(graph.graph_copy(gm.graph, copied))
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]

    def sub(a, item, value):
        if a is item:
            return value
        if isinstance(a, (list, tuple)):
            return type(a)(sub(x, item, value) for x in a)
        if isinstance(a, dict):
            return {k: sub(x, item, value) for k, x in a.items()}
        return a

    for k, value in values.items():
        for item in list(placeholders[k].users):
            if not (item.op == "call_method" and item.target == "item"):
                # (A symbolic integer input, read as itself.)
                item.args = sub(item.args, placeholders[k], value)
                item.kwargs = sub(item.kwargs, placeholders[k], value)
                continue
            for u in list(item.users):
                u.args = sub(u.args, item, value)
                u.kwargs = sub(u.kwargs, item, value)
            graph.erase_node(item)
    return torch.fx.GraphModule(gm, graph)


def source_of(node: torch.fx.Node) -> Optional[str]:
    """The name of the Dynamo node an ATen node was traced from (None: not
    recorded)."""
    return (node.meta.get("custom") or {}).get(_SOURCE_KEY)


def grad_mode_of(node: torch.fx.Node) -> Optional[bool]:
    """The grad mode `node` ran under when traced (None: not recorded)."""
    mode = (node.meta.get("custom") or {}).get(_GRAD_KEY)
    return None if mode is None else bool(mode)


def insert_grad_mode_switches(gm: torch.fx.GraphModule, entry_mode: bool,
                              mode_of: Optional[Callable[[torch.fx.Node], Optional[bool]]] = None
                              ) -> torch.fx.GraphModule:
    """Makes an ATen graph that runs in PyTorch switch grad mode as the
    traced program did: make_fx traces below autograd, so its graph has no
    `no_grad` blocks, only the per-node annotation (`grad_mode_of`). Inserts
    `torch._C._set_grad_enabled` before each node whose mode differs from the
    current one and restores `entry_mode` before the output. A node whose
    mode is None keeps the current one. Changes `gm` in place."""
    mode_of = mode_of or grad_mode_of
    graph = gm.graph
    current = entry_mode
    changed = False
    for n in list(graph.nodes):
        if n.op == "output":
            if current != entry_mode:
                with graph.inserting_before(n):
                    graph.call_function(torch._C._set_grad_enabled, (entry_mode,))
                changed = True
            break
        if n.op not in ("call_function", "call_module", "call_method"):
            continue
        mode = mode_of(n)
        if mode is not None and mode != current:
            with graph.inserting_before(n):
                graph.call_function(torch._C._set_grad_enabled, (mode,))
            current = mode
            changed = True
    if changed:
        gm.recompile()
    return gm


# How many graphs `to_aten` traced on fake tensors, and how many it traced
# for real (a plain callable, or what fake tensors could not trace).
TRACES = {"fake": 0, "real": 0}


def to_aten(gm: Callable, example_inputs: Sequence[Any],
            decompositions: Optional[Dict] = None) -> torch.fx.GraphModule:
    """Trace `gm` (a Dynamo GraphModule or any callable) to an ATen graph
    with views and in-place ops kept (no functionalization). Traces copies of
    the example inputs: the caller's tensors are not mutated. ATen nodes
    that run with grad mode off carry meta["custom"]["aot_grad_enabled"] =
    False (they are emitted with `aot.no_grad`)."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch.fx import traceback as fx_traceback
    from torch.fx.experimental.proxy_tensor import make_fx

    table = DECOMPOSITIONS if decompositions is None else decompositions
    fn = gm
    if isinstance(gm, torch.fx.GraphModule):
        annotate_grad_mode(gm)

        def fn(*args):
            return torch.fx.Interpreter(gm).run(*args)

    elif not torch.is_grad_enabled():
        raise ValueError("to_aten of a plain callable under no_grad: pass a GraphModule")
    # The Python dispatcher lets the table replace CompositeImplicitAutograd
    # ops (aten.dropout) before they decompose in C++.
    # `torch.set_grad_enabled(mode)` restores the mode on exit: a graph that
    # raises between its own `_set_grad_enabled` calls (a no_grad block)
    # does not leave grad mode switched.
    # Real tracing records each node's value as a fake tensor made under
    # the ambient fake mode, and makes a new FakeTensorMode for every node
    # where there is none (milliseconds each: most of a ResNet's first
    # call). One mode serves the whole trace.
    from torch._guards import TracingContext, tracing
    from torch._subclasses.fake_tensor import FakeTensorMode
    ambient = TracingContext.try_get()
    context = ambient if ambient is not None and ambient.fake_mode is not None else \
        TracingContext(FakeTensorMode(allow_fallback_kernels=True, allow_non_fake_inputs=True))
    # A Dynamo graph is traced on fake tensors first, as AOTAutograd traces:
    # nothing runs for real (a real trace runs every op of the program and
    # its decompositions, and copies every input: half of a ResNet's first
    # call). What fake tensors cannot trace (data-dependent shapes or
    # values, an op without a fake kernel) is traced again for real.
    if isinstance(gm, torch.fx.GraphModule) and os.environ.get("AOT_REAL_TRACE", "0") != "1":
        mode = context.fake_mode
        try:
            with torch.set_grad_enabled(torch.is_grad_enabled()), enable_python_dispatcher(), \
                    fx_traceback.preserve_node_meta(), tracing(context), mode:
                fakes = [mode.from_tensor(t) if isinstance(t, torch.Tensor) else t for t in example_inputs]
                traced = make_fx(fn, decomposition_table=table, tracing_mode="real")(*fakes)
            TRACES["fake"] += 1
            return traced
        except Exception as e:  # PyTorch's fake tracing: any failure retraces for real
            logging.getLogger("aot_torch").debug("aot_torch: fake tracing failed (%s); tracing for real",
                                                 str(e).splitlines()[0] if str(e) else type(e).__name__)
    inputs = _copy_inputs(example_inputs)
    TRACES["real"] += 1
    with torch.set_grad_enabled(torch.is_grad_enabled()), enable_python_dispatcher(), \
            fx_traceback.preserve_node_meta(), tracing(context):
        return make_fx(fn, decomposition_table=table, tracing_mode="real")(*inputs)


# ---------------------------------------------------------------------------
# Translation


@dataclass
class Translation:
    text: str
    num_inputs: int
    # One entry per FX output: ("tensor", k) = k-th result of the IR
    # function, or ("const", value).
    outputs: List[Tuple[str, Any]]
    # Indices of inputs the program writes (data or metadata, also through
    # views).
    mutated_inputs: List[int]
    # Of those, the inputs written at least once with grad mode on (the
    # others are written under no_grad only).
    inputs_written_with_grad: List[int] = field(default_factory=list)
    # Of those, the inputs every grad-mode write reaches through a view made
    # in the graph (`a[1:] = v`), never as the input itself, and that no
    # grad-mode op takes after the first such write (`_written_through_views`).
    inputs_written_through_views: List[int] = field(default_factory=list)
    # The program draws random numbers (from the IR's Philox generator:
    # values differ from PyTorch's).
    has_random: bool = False
    name: str = "main"
    input_types: List[str] = field(default_factory=list)
    result_types: List[str] = field(default_factory=list)
    # (shape, dtype) of each result of the IR function.
    result_meta: List[Tuple[Tuple[int, ...], torch.dtype]] = field(default_factory=list)
    # Per result: the strides PyTorch gives it when they are not the
    # contiguous ones (an op that keeps its input's memory format,
    # `x.t() * 2`), else None. The IR's fresh results are contiguous; the
    # backend restrides such a result so that code after the region sees
    # eager's layout.
    result_strides: List[Optional[Tuple[int, ...]]] = field(default_factory=list)
    # With those strides, the result's storage offset in eager (in the
    # storage of the intermediate a view of one views); None where not known.
    result_offsets: List[Optional[int]] = field(default_factory=list)
    # Per result: eager's is a view (of an input or an intermediate), so it
    # has a `_base`; and the last `detach` on its view chain: None (none),
    # "last" (the result itself is a detach: no `_base`, no grad) or
    # "inner" (a view of a detached tensor: a `_base`, no grad).
    result_is_view: List[bool] = field(default_factory=list)
    result_detach: List[Optional[str]] = field(default_factory=list)
    # Per result: whether eager's is (a view of) an output of an op that
    # returns several views (`unbind`, `split`) taken in grad mode, which
    # PyTorch forbids writing in place (its CreationMeta).
    result_multi_view: List[bool] = field(default_factory=list)
    # Per result: the graph input it is (the same object: the input, or an
    # in-place op's result, which is its destination), else None.
    result_input: List[Optional[int]] = field(default_factory=list)
    # Per result: the graph input its chain of views (and in-place results)
    # starts from, else None. The runtime's `aliases_input` names one
    # member of a synthetic base for all of them; this is the one eager's
    # view is of.
    result_view_of: List[Optional[int]] = field(default_factory=list)
    # Per result that is a view of an input made under no_grad, or an output
    # of an op returning several views: the graph inputs an in-place op
    # wrote after it was made. Where one of them shares the storage of the
    # input it views (itself, or another view of one base, which only the
    # call's arguments tell), eager's view records an older version than
    # its base has, and reading its grad_fn (or is_leaf) raises.
    result_stale_view: List[frozenset] = field(default_factory=list)
    # Per result: a view of an intermediate made under no_grad. Eager's
    # requires grad when its base does, yet is a leaf: no history, no
    # gradient through it.
    result_no_grad_view: List[bool] = field(default_factory=list)
    # Per result: a view made in grad mode of a view made under no_grad
    # (`with no_grad(): v0 = a.unsqueeze(1)`, then `v0.unbind(1)[0]`). Its
    # gradient stops at that no_grad view, a leaf of no history: none
    # reaches the argument below it (fuzz seed 12532).
    result_through_no_grad_view: List[bool] = field(default_factory=list)
    # Per result: a number naming the fresh value (an op's result, not an
    # input) whose storage eager's result is in, through views and in-place
    # results, else None (a view of an input, or not known). Results of one
    # number share memory in eager (`with no_grad(): v1, v2 = y.unbind(0)`
    # of an intermediate `y`), which the IR's separate results do not.
    result_fresh_root: List[Optional[int]] = field(default_factory=list)
    # Per result: a detach of an intermediate that an in-place op autograd
    # recorded wrote afterwards, which eager gives that op's history
    # (translated as a fresh value, not a detach).
    result_detached_history: List[bool] = field(default_factory=list)


def _through_no_grad_view(node: torch.fx.Node) -> bool:
    """Whether the chain of views and in-place results below `node` (not
    `node`'s own maker) holds a view made under no_grad."""
    n = node
    first = True
    while isinstance(n, torch.fx.Node) and n.op == "call_function" and n.args:
        if n.target is operator.getitem:
            n = n.args[0]
            continue
        if not (_is_inplace_node(n) or _is_view_node(n)):
            return False
        if not first and _is_view_node(n) and grad_mode_of(n) is False:
            return True
        first = False
        n = n.args[0]
    return False


def _is_view_node(node: torch.fx.Node) -> bool:
    """An ATen view op (its result aliases its first argument)."""
    return node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload) and _is_view_op(node.target)


def _is_view_op(op) -> bool:
    try:
        rets = op._schema.returns
        return (len(rets) >= 1 and rets[0].alias_info is not None and not rets[0].alias_info.is_write
                and not op._schema.is_mutable)
    except Exception:
        return False


def _eager_view(node: torch.fx.Node) -> bool:
    """A view op that eager ran as a view: not one a decomposition wrote
    (make_fx records the op it decomposed as `original_aten`; `stack`'s
    decomposition ends in a `view` of a fresh `cat`)."""
    if not _is_view_node(node):
        return False
    orig = node.meta.get("original_aten")
    return orig is None or orig is node.target or _is_view_op(orig)


def _view_chain(node: torch.fx.Node) -> Tuple[bool, Optional[str], bool]:
    """(is a view, detach position, made under no_grad) of an output node,
    per `Translation.result_is_view` / `result_detach` /
    `result_no_grad_view`."""
    # The object an in-place op returns is its destination.
    obj = node
    while isinstance(obj, torch.fx.Node) and _is_inplace_node(obj):
        obj = obj.args[0]
    if not isinstance(obj, torch.fx.Node):
        obj = node
    # A detach shares memory but has no `_base` in eager.
    element = obj.op == "call_function" and obj.target is operator.getitem
    is_view = (_eager_view(obj) and obj.target is not aten.detach.default) or \
        (element and _eager_view(obj.args[0]))
    # The op that made it (an element's is the multi-output op's).
    maker = obj.args[0] if element else obj
    no_grad = isinstance(maker, torch.fx.Node) and maker.op == "call_function" and grad_mode_of(maker) is False
    detach: Optional[str] = None
    n = node
    first = True
    while isinstance(n, torch.fx.Node):
        if n.op == "call_function" and n.target is operator.getitem:
            n = n.args[0]
            continue
        if _is_inplace_node(n):
            # An in-place op's result is its destination, the same object
            # (v.squeeze_(0), v.mul_(2)): a detach right under it is still
            # the result itself.
            n = n.args[0]
            continue
        if not _is_view_node(n):
            break
        if n.target in (aten.detach.default,) and detach is None:
            detach = "last" if first else "inner"
        first = False
        n = n.args[0] if n.args else None
    return is_view, detach, is_view and detach is None and no_grad


def _recorded_write_on(node: torch.fx.Node, grad_nodes: set) -> bool:
    """Whether an in-place op on top of `node`'s object (the chain of
    in-place results down to what made it) ran where autograd records it:
    with grad on and a value that may require grad (`Builder.grad_nodes`)."""
    n = node
    while isinstance(n, torch.fx.Node) and n.op == "call_function" and _is_inplace_node(n):
        if n in grad_nodes and grad_mode_of(n) is not False:
            return True
        n = n.args[0]
    return False


def _multi_output_view(node: torch.fx.Node) -> bool:
    """Whether the chain of views and in-place results that ends at `node`
    passes through an element of an op returning several views, taken in
    grad mode (PyTorch's CreationMeta.MULTI_OUTPUT_NODE, which views of it
    inherit)."""
    n = node
    while isinstance(n, torch.fx.Node) and n.op == "call_function":
        if n.target is operator.getitem:
            src = n.args[0]
            if isinstance(src, torch.fx.Node) and _eager_view(src):
                return grad_mode_of(src) is not False
            return False
        if not (_is_inplace_node(n) or _is_view_node(n)) or not n.args:
            return False
        n = n.args[0]
    return False


def _is_inplace_node(node: torch.fx.Node) -> bool:
    """An in-place op whose result is its first argument (written)."""
    t = node.target
    if node.op != "call_function" or not isinstance(t, torch._ops.OpOverload) or not node.args:
        return False
    try:
        rets, args = t._schema.returns, t._schema.arguments
        return (len(rets) == 1 and rets[0].alias_info is not None and rets[0].alias_info.is_write
                and bool(args) and args[0].alias_info is not None and args[0].alias_info.is_write)
    except Exception:
        return False


def _creation_and_root(node: torch.fx.Node) -> Tuple[Optional[torch.fx.Node], Optional[torch.fx.Node]]:
    """The node that made the object `node` is (past in-place ops, which
    return their destination) and the graph input its view chain starts
    from (None: not a view of an input)."""
    n = node
    made = None
    while isinstance(n, torch.fx.Node):
        if n.op == "placeholder":
            return made, n
        if n.op == "call_function" and n.target is operator.getitem:
            made = made or n
            n = n.args[0]
        elif _is_inplace_node(n):
            n = n.args[0]
        elif _is_view_node(n):
            made = made or n
            n = n.args[0]
        else:
            return made, None
    return made, None


def _written_through_views(graph: torch.fx.Graph) -> List[int]:
    """`Translation.inputs_written_through_views`. Where such an input is a
    view whose base did not require grad when it was made, PyTorch keeps no
    history for it (its cached `grad_fn` is none); a write through another
    view gives the base one but leaves this view's cache as it was, and
    the next in-place op on the view takes it for a leaf that requires
    grad and raises. The runtime must leave it so (fuzz seed 47785)."""
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    index = {n: k for k, n in enumerate(placeholders)}
    written, direct, taken = set(), set(), set()
    for n in graph.nodes:
        if n.op != "call_function" or grad_mode_of(n) is False:
            continue
        # A use of the input itself, after it was written, takes (and so
        # makes again) its history; so does a write into it directly.
        for m in n.all_input_nodes:
            k = index.get(_creation_and_root(m)[1]) if _creation_and_root(m)[0] is None else None
            if k is not None and k in written:
                taken.add(k)
        if _is_inplace_node(n) and isinstance(n.args[0], torch.fx.Node):
            made, root = _creation_and_root(n.args[0])
            k = index.get(root)
            if k is None:
                continue
            if made is None:
                direct.add(k)
            else:
                written.add(k)
    return sorted(written - direct - taken)


def _stale_views(graph: torch.fx.Graph, outputs: List[torch.fx.Node]) -> List[frozenset]:
    """Per output node, `Translation.result_stale_view`."""
    order = {n: k for k, n in enumerate(graph.nodes)}
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    writes = [(order[n], _creation_and_root(n.args[0])[1]) for n in graph.nodes
              if _is_inplace_node(n) and isinstance(n.args[0], torch.fx.Node)]
    out = []
    for o in outputs:
        made, root = _creation_and_root(o)
        if made is None or root is None or (grad_mode_of(made) is not False and not _multi_output_view(o)):
            out.append(frozenset())
            continue
        out.append(frozenset(placeholders.index(r) for k, r in writes if k > order[made] and r is not None))
    return out


def stale_input_uses(graph: torch.fx.Graph) -> List[Tuple[int, frozenset]]:
    """Per graph input i, the inputs j written in place before a grad-mode
    use of i or of a view of it: `(i, {j...})`, only where there are such
    writes. Run on the graph as traced, dead nodes included: a dead op runs
    in eager too. When input i is itself a view that autograd refuses to
    regenerate (made by a multi-output op or under no_grad) and shares
    storage with an input j written before, eager raises at that use ("...
    is a view and its base or another view of its base has been modified
    inplace"): only the call's tensors tell (`backend._stale_inputs`)."""
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    written: set = set()
    found: Dict[int, set] = {}
    for n in graph.nodes:
        if n.op != "call_function":
            continue
        if written and grad_mode_of(n) is not False:
            for m in n.all_input_nodes:
                root = _creation_and_root(m)[1]
                if root is not None:
                    found.setdefault(placeholders.index(root), set()).update(written)
        if _is_inplace_node(n) and isinstance(n.args[0], torch.fx.Node):
            root = _creation_and_root(n.args[0])[1]
            if root is not None:
                written.add(placeholders.index(root))
    return [(i, frozenset(js)) for i, js in sorted(found.items())]


def _input_object(node: torch.fx.Node, placeholders: List[torch.fx.Node]) -> Optional[int]:
    """The index of the graph input `node` is the same object as: the input
    itself, or an in-place op's result (its destination) on one."""
    n = node
    while isinstance(n, torch.fx.Node) and _is_inplace_node(n):
        n = n.args[0]
    if isinstance(n, torch.fx.Node) and n.op == "placeholder":
        return placeholders.index(n)
    return None


def _is_mutating(node: torch.fx.Node) -> bool:
    """In-place ops (and `out=` forms) must run even when their result is
    unused. Dead random ops are dropped: the IR's draws are its own anyway."""
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        try:
            return bool(t._schema.is_mutable)
        except Exception:
            return False
    return False


def live_nodes(graph: torch.fx.Graph) -> set:
    """Nodes the outputs or a side effect (mutation, random draw) need."""
    live = set()
    stack = []
    for n in graph.nodes:
        if n.op in ("output", "placeholder") or (n.op == "call_function" and _is_mutating(n)):
            stack.append(n)
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        stack.extend(n.all_input_nodes)
    return live


def _lookup(target):
    fn = ATEN_TO_IR.get(target)
    if fn is None and isinstance(target, torch._ops.OpOverload):
        fn = ATEN_TO_IR.get(target.overloadpacket)
        if fn is None and target.namespace == "prims" and target.__name__ == "fma.default":
            # (Registered by Inductor after import: not in the table, which
            # `aot_torch.coverage` lists.)
            fn = aten_ops._prims_fma
    return fn


def _translate_node(b: Builder, node: torch.fx.Node) -> Any:
    """The value(s) of one call_function node; raises Reject."""
    t = node.target
    if t is operator.getitem:
        src, idx = node.args
        vals = b.env.get(src)
        if not isinstance(vals, (list, tuple)):
            raise Reject("getitem of a non-tuple")
        v = vals[idx]
        if v is None:
            raise Reject("result %d of %s is not translated" % (idx, src.name))
        return v
    symbols = ir_builder.SYMBOLS
    if symbols is not None and (t in _SIZE_OPS or t in _SIZE_ARITHMETIC or t in _SIZE_CONVERSIONS):
        # A size computed from sizes: the trace's value is its expression,
        # which the ops that take it as an argument write out. A float on
        # the way (`interpolate`'s `floor(float(s) * 2.0)`) is kept as the
        # trace's value: only size arithmetic reads it, and the integer it
        # ends in must have a form in the size language.
        val = node_val(node)
        if isinstance(val, (float, torch.SymFloat)) and not isinstance(val, bool):
            return val
        if not isinstance(val, (int, torch.SymInt)) or isinstance(val, bool):
            raise Reject("%s of a non-integer size" % getattr(t, "__name__", t))
        return symbols.dim(val)
    if not isinstance(t, torch._ops.OpOverload):
        name = getattr(t, "__name__", str(t))
        raise Reject("%s is not an ATen op (trace with to_aten first)" % name)
    if t.namespace not in ("aten", "prims", "_c10d_functional"):
        raise Reject("%s has no counterpart in the op catalogue" % t)
    fn = _lookup(t)
    if fn is None:
        raise Reject("%s has no counterpart in the op catalogue" % t)
    for a in list(node.args) + list(node.kwargs.values()):
        for x in (a if isinstance(a, (list, tuple)) else [a]):
            if _is_symbolic(x) and symbols is None:
                raise Reject("dynamic shape (symbolic argument)")
    val = node_val(node)
    for v in (val if isinstance(val, (list, tuple)) else [val]):
        if isinstance(v, torch.Tensor):
            tensor_meta(v)
        elif _is_symbolic(v):
            raise Reject("dynamic shape (symbolic result)")
    args = bind_args(node)
    if symbols is not None:
        args = {k: _sizes_of(b, v) for k, v in args.items()}
    return fn(b, node, args)


# Ops that read a size, and Python's arithmetic on sizes, as a traced graph
# with symbolic sizes has them.
_SIZE_OPS = frozenset([torch.ops.aten.sym_size.int, torch.ops.aten.sym_numel.default,
                       torch.ops.aten.sym_stride.int, torch.ops.aten.sym_storage_offset.default])
_SIZE_ARITHMETIC = frozenset([operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
                              operator.neg, operator.truediv] + ([torch.sym_sum] if hasattr(torch, "sym_sum") else []))
# Conversions between integer and float sizes (`interpolate` with a scale
# factor computes its output size as `floor(float(s) * scale)`).
_SIZE_CONVERSIONS = frozenset([torch.sym_float, torch.sym_int, math.floor, math.ceil, math.trunc])


def _sizes_of(b: Builder, a: Any) -> Any:
    """Argument `a` with the nodes that compute a size replaced by the size
    (a SymInt, or an int): what an op's translation reads of a size list."""
    if isinstance(a, torch.fx.Node):
        v = b.env.get(a)
        return v if isinstance(v, (torch.SymInt, int)) and not isinstance(v, bool) else a
    if isinstance(a, (list, tuple)):
        return type(a)(_sizes_of(b, x) for x in a)
    return a


def _quote(s: str) -> str:
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def _location(node: torch.fx.Node) -> str:
    """`"name"("file":line:1)` from the node's stack trace, else `"name"`."""
    name = _quote(node.name)
    st = node.meta.get("stack_trace")
    if isinstance(st, str):
        import re

        found = re.findall(r'File "([^"]+)", line (\d+)', st)
        if found:
            f, line = found[-1]
            return '%s(%s:%s:1)' % (name, _quote(f), line)
    return name


def _placeholder_value(node: torch.fx.Node, index: int, example, name: Optional[str] = None) -> Value:
    val = node.meta.get("val", example)
    if not isinstance(val, torch.Tensor):
        if isinstance(example, torch.Tensor):
            val = example
        else:
            raise Reject("non-tensor graph input (%s)" % type(val).__name__)
    shape, dtype = tensor_meta(val)
    return Value("%" + (name or "arg%d" % index), shape, dtype, frozenset([index]))


def _returns_fresh(node: torch.fx.Node) -> bool:
    """Whether a node's result is a fresh tensor (not a view or an in-place
    result)."""
    t = node.target
    if node.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
        return False
    try:
        rets = t._schema.returns
        return len(rets) == 1 and rets[0].alias_info is None and not t._schema.is_mutable
    except Exception:
        return False


def _returns_fresh_tuple(node: torch.fx.Node) -> bool:
    """Whether a node returns several results, each a fresh tensor."""
    t = node.target
    if node.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
        return False
    try:
        rets = t._schema.returns
        return len(rets) > 1 and all(r.alias_info is None for r in rets) and not t._schema.is_mutable
    except Exception:
        return False


def _overloads(*names):
    """The ATen overloads named `packet.overload` this PyTorch has."""
    out = set()
    for n in names:
        packet, overload = n.split(".")
        op = getattr(getattr(torch.ops.aten, packet, None), overload, None)
        if op is not None:
            out.add(op)
    return frozenset(out)


# Ops that change a tensor's metadata in place.
_META_MUTATIONS = _overloads(
    "t_.default", "transpose_.default", "squeeze_.default", "squeeze_.dim", "squeeze_.dims",
    "unsqueeze_.default", "as_strided_.default", "set_.source_Tensor", "set_.source_Storage",
    "set_.source_Storage_storage_offset", "resize_.default", "resize_as_.default", "swapdims_.default",
    "swapaxes_.default", "detach_.default")


# The metadata changes that give a tensor another storage, or a layout
# that may reach an element twice (the others permute dimensions or add
# ones of size 1, or only change autograd's view: `detach_`).
STORAGE_MUTATIONS = _overloads(
    "set_.source_Tensor", "set_.source_Storage", "set_.source_Storage_storage_offset", "resize_.default",
    "resize_as_.default", "as_strided_.default")


# The view ops whose result may reach an element at several positions.
OVERLAPPING_VIEWS = _overloads("as_strided.default", "as_strided_.default", "expand.default", "unfold.default")


def calls_any(graph: torch.fx.Graph, ops: frozenset) -> bool:
    """Whether a node of `graph` calls one of `ops`."""
    return any(n.op == "call_function" and n.target in ops for n in graph.nodes)


def storage_root(n: Any) -> Optional[Tuple[torch.fx.Node, bool]]:
    """The node whose storage graph value `n` is in (a placeholder, or an op
    that returned fresh memory) through views and in-place results, and
    whether that chain passes a view op that may reach an element twice;
    None where the graph does not tell."""
    through = False
    while isinstance(n, torch.fx.Node):
        if n.op == "placeholder":
            return n, through
        if n.op != "call_function":
            return None
        if n.target is operator.getitem:
            src = n.args[0]
            if isinstance(src, torch.fx.Node) and src.op == "call_function" and \
                    isinstance(src.target, torch._ops.OpOverload) and not src.target._schema.is_mutable and \
                    all(r.alias_info is None for r in src.target._schema.returns):
                return n, through  # (an element of a fresh multi-result)
            n = src
            continue
        if _returns_fresh(n):
            return n, through
        if not (_is_view_node(n) or _is_inplace_node(n)):
            return None
        through = through or n.target in OVERLAPPING_VIEWS
        n = n.args[0]
    return None


def _meta_layout(t: torch.Tensor) -> Optional[torch.Tensor]:
    """A meta tensor with `t`'s sizes, strides and storage offset, over a
    storage of its size."""
    try:
        n = t.untyped_storage().nbytes() // t.element_size()
        return torch.empty(n, dtype=t.dtype, device="meta").as_strided(t.size(), t.stride(), t.storage_offset())
    except Exception:  # (a tensor without a plain storage: no layout)
        return None


def _has_symbolic_layout(t: Any) -> bool:
    """Whether tensor `t` has a symbolic size, stride or offset."""
    if not isinstance(t, torch.Tensor):
        return False
    return any(_is_symbolic(d) for d in (*t.shape, *t.stride(), t.storage_offset()))


def _replay(node: torch.fx.Node, src: Any) -> Any:
    """`node` (a view, a metadata change, or an element of a multi-view
    result) run on `src`, the meta tensor (or tuple of them) standing for
    its first operand; None where it takes another tensor or fails."""
    # (A size the graph computes, a node of a symbolic graph's size
    # arithmetic, is its value: a SymInt of the meta tensors' ShapeEnv.)
    def size(n):
        v = n.meta.get("val")
        return v if isinstance(v, (int, torch.SymInt)) else n

    args = torch.fx.node.map_arg(tuple(node.args[1:]), size)
    kwargs = torch.fx.node.map_arg(dict(node.kwargs), size)
    found = []
    torch.fx.node.map_arg((args, kwargs), lambda n: found.append(n))
    if found:
        return None
    # An in-place metadata change of a tensor with symbolic sizes crashes
    # this PyTorch (`squeeze_` reaches `as_strided_` with SymInts and
    # segfaults in `SymInt::clone`): not replayed, the caller forgets the
    # layouts.
    if node.target in _META_MUTATIONS and _has_symbolic_layout(src):
        return None
    try:
        if node.target is operator.getitem:
            return src[args[0]]
        return node.target(src, *args, **kwargs)
    except Exception:  # (not replayable: no layout)
        return None


def _track_layout(b: "Builder", node: torch.fx.Node) -> None:
    """Replays the layout of an argument's alias through `node` when it is a
    view or an in-place op of one (its result aliases its first operand):
    views and metadata changes run on the meta tensor, as they ran in the
    program; an in-place data op keeps it. A metadata change that cannot
    be replayed (`set_` of another tensor) forgets every layout."""
    if b.layouts is None or not isinstance(node.target, torch._ops.OpOverload) or not node.args:
        return
    v = b.env.get(node)
    if isinstance(v, Value) and v.name in b.fresh_values:
        # A fresh value is contiguous from offset 0 in the IR; where the
        # trace laid it out so too, aliases of it have the same layouts in
        # both.
        t = node.meta.get("val")
        if isinstance(t, torch.Tensor) and t.is_contiguous() and t.storage_offset() == 0:
            b.layouts[node] = torch.empty(v.shape, dtype=t.dtype, device="meta")
        return
    src = b.layouts.get(node.args[0]) if isinstance(node.args[0], torch.fx.Node) else None
    rets = node.target._schema.returns
    meta_change = node.target in _META_MUTATIONS
    if src is None or len(rets) != 1 or rets[0].alias_info is None:
        if meta_change and src is not None:
            b.layouts = None
        return
    if rets[0].alias_info.is_write and not meta_change:
        b.layouts[node] = src
        return
    replayed = _replay(node, src)
    if replayed is not None:
        b.layouts[node] = replayed
    elif meta_change:
        b.layouts = None


def _track_eager_layout(b: "Builder", node: torch.fx.Node) -> None:
    """`Builder.eager_layouts` through `node`: a fresh result starts from the
    trace's sizes and strides at offset 0; a view (or an element of a
    multi-view op) of a tracked value is replayed on its meta tensor; an
    in-place data op's result is its operand, with its layout (fuzz seed
    18160: `v0 = a0 - a0; v0.add_(...); v4, v5 = v0.unbind(0)` lost `v5`'s
    offset at the `add_`)."""
    t = node.meta.get("val")
    if _returns_fresh(node):
        if isinstance(t, torch.Tensor):
            try:
                b.eager_layouts[node] = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
            except Exception:  # (no layout to keep)
                pass
        return
    if _returns_fresh_tuple(node) and isinstance(t, (tuple, list)):
        # Each element of a multi-result op (`sort`, `max.dim`) is fresh,
        # laid out as the trace says (fuzz seed 122160: `sort(0)` of a
        # transposed tensor keeps its strides, so a row of its values sits
        # at an offset of 1 in eager).
        try:
            b.eager_layouts[node] = tuple(
                torch.empty_strided(e.shape, e.stride(), dtype=e.dtype, device="meta")
                if isinstance(e, torch.Tensor) else None for e in t)
        except Exception:  # (no layout to keep)
            pass
        return
    if _is_inplace_node(node) and node.target not in _META_MUTATIONS and isinstance(node.args[0], torch.fx.Node):
        src = b.eager_layouts.get(node.args[0])
        if src is not None:
            b.eager_layouts[node] = src
        return
    _replay_view(b.eager_layouts, node)


def _replay_view(layouts: Dict[torch.fx.Node, Any], node: torch.fx.Node) -> None:
    """`layouts[node]`: a view (or an element of a multi-view op) of a value
    `layouts` holds, replayed on its meta tensor."""
    if not node.args or not isinstance(node.args[0], torch.fx.Node):
        return
    src = layouts.get(node.args[0])
    if src is not None and (node.target is operator.getitem or _is_view_node(node)):
        replayed = _replay(node, src)
        if replayed is not None:
            layouts[node] = replayed


def _track_ir_layout(b: "Builder", node: torch.fx.Node) -> None:
    """`Builder.ir_layouts` through `node`: a fresh result is contiguous;
    a view (or an element of a multi-view op) of a tracked value is replayed
    on its meta tensor. A value whose handler recorded its layout keeps it."""
    if node in b.ir_layouts:
        return
    v = b.env.get(node)
    t = node.meta.get("val")
    if isinstance(v, Value) and v.name in b.fresh_values:
        if isinstance(t, torch.Tensor):
            b.ir_layouts[node] = torch.empty(v.shape, dtype=t.dtype, device="meta")
        return
    _replay_view(b.ir_layouts, node)


def _probe_roots(node: torch.fx.Node) -> frozenset:
    """What `translate` will know of the storage a value views, for a node
    checked alone: the placeholder it is a chain of views or in-place
    results of (each aliasing its first operand); -1 for such a chain from
    a fresh result (`translate` gives it no root, but knows its layout);
    else nothing."""
    n = node
    while n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and n.args:
        rets = n.target._schema.returns
        if len(rets) != 1 or rets[0].alias_info is None or not isinstance(n.args[0], torch.fx.Node):
            return frozenset({-1}) if _returns_fresh(n) and n is not node else frozenset()
        n = n.args[0]
    if n.op != "placeholder":
        return frozenset()
    return frozenset({[p for p in n.graph.nodes if p.op == "placeholder"].index(n)})


def unsupported_reason(node: torch.fx.Node) -> Optional[str]:
    """None when `translate` can translate this node of an ATen graph, else
    a short reason."""
    if node.op in ("placeholder", "output"):
        if node.op == "placeholder":
            try:
                _placeholder_value(node, 0, None)
            except Reject as e:
                return str(e)
        return None
    if node.op == "get_attr":
        return None
    if node.op != "call_function":
        return "%s nodes are not supported" % node.op
    b = Builder()
    b.probing = True
    # Stand-ins for the operands, typed from their metadata.
    for i, inp in enumerate(node.all_input_nodes):
        val = inp.meta.get("val")
        try:
            if isinstance(val, (list, tuple)):
                b.env[inp] = [Value("%%in%d#%d" % (i, j), *tensor_meta(v)) if isinstance(v, torch.Tensor) else None
                              for j, v in enumerate(val)]
            elif isinstance(val, torch.Tensor):
                b.env[inp] = Value("%%in%d" % i, *tensor_meta(val), roots=_probe_roots(inp))
                if _returns_fresh(inp):
                    b.fresh_values.add("%%in%d" % i)
            else:
                b.env[inp] = val
        except Reject as e:
            return "operand %s: %s" % (inp.name, e)
    try:
        _translate_node(b, node)
    except Reject as e:
        return str(e)
    return None


def with_traced_backward(tr: Translation, bt: Translation, tangent_outputs: Sequence[int], grads: Sequence[int],
                         unreached: Sequence[int]) -> Translation:
    """`tr` (a forward) with `bt` as its traced backward (``aot.traced_backward``,
    which the `joint` pass splices in): `bt` takes `tr`'s arguments, then a
    tangent per graph output in `tangent_outputs`, and returns the gradient
    of argument `grads[j]` (zeros for those in `unreached`)."""
    tangents = []
    for p in tangent_outputs:
        kind, r = tr.outputs[p]
        if kind != "tensor" or r in tangents:
            raise Unsupported("output %d" % p, "a differentiated output returned twice, or not a tensor")
        tangents.append(r)
    if [d for d in bt.outputs if d[0] != "tensor"] or [r for _, r in bt.outputs] != list(range(len(grads))):
        raise Unsupported("backward", "the traced backward's results are not one tensor per gradient")
    name = bt.name
    text = bt.text.replace("func.func @%s(" % name, "func.func private @%s(" % name, 1)
    record = ('aot.traced_backward = #aot.traced_backward<function = "%s", tangents = [%s], grads = [%s], '
              'unreached = [%s]>' % (name, ", ".join(map(str, tangents)), ", ".join(map(str, grads)),
                                     ", ".join(map(str, unreached))))
    first, rest = tr.text.split("\n", 1)
    if not first.endswith(" {"):
        raise ValueError("unexpected function header: %r" % first)
    head = first[:-2]
    if head.endswith("}") and " attributes {" in head:
        head = head[:-1] + ", " + record + "}"
    else:
        head = head + " attributes {" + record + "}"
    return dataclasses.replace(tr, text=head + " {\n" + rest + text)


def translate(aten_gm: torch.fx.GraphModule, example_inputs: Optional[Sequence[Any]] = None,
              name: str = "main", arg_names: Optional[Sequence[str]] = None,
              mark_requires_grad: bool = False) -> Translation:
    """Translate an ATen graph (from `to_aten`) into an IR module. The
    function's arguments are `%arg<i>`, or `%<arg_names[i]>` (valid SSA
    names); with `mark_requires_grad`, the example inputs that require grad
    are declared `aot.requires_grad` (for a module `aot-opt` differentiates
    as is; compiling for example tensors does not need it)."""
    graph = aten_gm.graph
    live = live_nodes(graph)
    b = Builder()
    b.graph_module = aten_gm
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    examples = list(example_inputs) if example_inputs is not None else [None] * len(placeholders)
    if len(examples) != len(placeholders):
        raise ValueError("%d example inputs for %d graph inputs" % (len(examples), len(placeholders)))
    if arg_names is not None and len(arg_names) != len(placeholders):
        raise ValueError("%d argument names for %d graph inputs" % (len(arg_names), len(placeholders)))
    args = []
    grad_attr: List[bool] = []
    for i, (p, ex) in enumerate(zip(placeholders, examples)):
        if not isinstance(ex, torch.Tensor) and isinstance(ex, (int, float, bool, torch.SymInt)) \
                and not isinstance(p.meta.get("val"), torch.Tensor):
            # A number the graph was traced with (a concrete symbolic size):
            # the translation is specialised to it, so it is no argument.
            b.env[p] = ex
            continue
        try:
            v = _placeholder_value(p, i, ex, arg_names[i] if arg_names is not None else None)
        except Reject as e:
            raise Unsupported(p.name, str(e)) from None
        b.env[p] = v
        args.append(v)
        grad_attr.append(mark_requires_grad and isinstance(ex, torch.Tensor) and ex.requires_grad)
        if isinstance(ex, torch.Tensor):
            b.arg_offsets[i] = int(ex.storage_offset())
            b.layouts[p] = _meta_layout(ex)
        if ex is None or (isinstance(ex, torch.Tensor) and ex.requires_grad):
            b.grad_nodes.add(p)

    output_node = None
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            output_node = node
            break
        if node not in live:
            continue
        b.loc = _location(node)
        b.no_grad = (node.meta.get("custom") or {}).get(_GRAD_KEY) is False
        b.draw, b.draws = (node.meta.get("custom") or {}).get(DRAW_KEY), 0
        if not b.no_grad and any(n in b.grad_nodes for n in node.all_input_nodes) and \
                (torch.is_grad_enabled() or grad_mode_of(node)):
            b.grad_nodes.add(node)
        try:
            if node.op == "get_attr":
                obj = getattr(aten_gm, node.target)
                if not isinstance(obj, torch.Tensor):
                    raise Reject("get_attr of a %s" % type(obj).__name__)
                b.env[node] = b.constant(obj)
            elif node.op == "call_function":
                b.env[node] = _translate_node(b, node)
                _track_layout(b, node)
                _track_eager_layout(b, node)
                _track_ir_layout(b, node)
            else:
                raise Reject("%s nodes are not supported" % node.op)
        except Reject as e:
            raise Unsupported(node.name, str(e)) from None
    b.loc = None
    b.no_grad = False
    b.draw = None

    # Outputs.
    outs = output_node.args[0] if output_node is not None else ()
    flat = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    results: List[Value] = []
    strides: List[Optional[Tuple[int, ...]]] = []
    views: List[bool] = []
    detaches: List[Optional[str]] = []
    detached_history: List[bool] = []
    multi: List[bool] = []
    no_grad_views: List[bool] = []
    through_no_grad: List[bool] = []
    offsets: List[int] = []
    inputs: List[Optional[int]] = []
    view_of: List[Optional[int]] = []
    fresh_root: List[Optional[int]] = []
    fresh_roots: Dict[torch.fx.Node, int] = {}
    # (Where the graph changes a tensor's storage, chains do not tell it.)
    storage_changed = calls_any(graph, STORAGE_MUTATIONS)
    result_nodes: List[torch.fx.Node] = []
    index_of: Dict[torch.fx.Node, int] = {}
    descr: List[Tuple[str, Any]] = []
    for o in flat:
        if isinstance(o, torch.fx.Node):
            v = b.env.get(o)
            if isinstance(v, Value):
                if o not in index_of:
                    index_of[o] = len(results)
                    results.append(v)
                    t = o.meta.get("val")
                    # Eager's strides, whenever there is an element: a
                    # contiguous result can still be a view of an
                    # intermediate eager lays out otherwise (fuzz seed 9147:
                    # `(a0 - a0).select(1, -1)` of a transposed `a0` has
                    # stride 1 in eager, 5 over a row-major intermediate;
                    # seed 16124: the one-element `diagonal(-1)` of such an
                    # intermediate, at offset 1 in eager, 5 over row-major).
                    laid_out = isinstance(t, torch.Tensor) and t.numel() > 0
                    strides.append(tuple(t.stride()) if laid_out else None)
                    eager_t = b.eager_layouts.get(o)
                    # (Strides of dimensions of size 1 step nowhere: a replay
                    # may give them others than the trace did, fuzz seed
                    # 64165: `reshape(1, 1)` of a one-element diagonal.)
                    offsets.append(int(eager_t.storage_offset()) if laid_out and isinstance(eager_t, torch.Tensor)
                                   and all(a == c for a, c, n in zip(eager_t.stride(), t.stride(), t.shape) if n != 1)
                                   and eager_t.dim() == t.dim() else None)
                    is_view, detach, no_grad_view = _view_chain(o)
                    history = detach == "last" and _creation_and_root(o)[1] is None and \
                        _recorded_write_on(o, b.grad_nodes)
                    if history:
                        # A detach of an intermediate that an in-place op
                        # autograd recorded then wrote (`v2 = v0.detach();
                        # v2.sub_(v0)`): eager's result has that op's
                        # history, and still no `_base`, as a fresh value
                        # (fuzz seed 92900). (One of an argument is
                        # `_Variant.adopted`'s.)
                        detach = None
                    detached_history.append(history)
                    views.append(is_view)
                    detaches.append(detach)
                    multi.append(is_view and detach is None and _multi_output_view(o))
                    no_grad_views.append(no_grad_view)
                    through_no_grad.append(is_view and detach is None and not no_grad_view and
                                           _through_no_grad_view(o))
                    inputs.append(_input_object(o, placeholders))
                    root = _creation_and_root(o)[1]
                    view_of.append(placeholders.index(root) if root is not None else None)
                    found = None if storage_changed else storage_root(o)
                    fresh_root.append(fresh_roots.setdefault(found[0], len(fresh_roots))
                                      if found is not None and found[0].op != "placeholder" else None)
                    result_nodes.append(o)
                descr.append(("tensor", index_of[o]))
            elif isinstance(v, (int, float, bool)) or v is None:
                descr.append(("const", v))
            else:
                raise Unsupported(o.name, "output is not a tensor (%s)" % type(v).__name__)
        elif o is None or isinstance(o, (int, float, bool, str, torch.dtype, torch.device)):
            descr.append(("const", o))
        else:
            raise Unsupported("output", "unsupported output %r" % (o,))

    arg_decl = ", ".join("%s: %s%s" % (a.name, a.type, " {aot.requires_grad}" if g else "")
                         for a, g in zip(args, grad_attr))
    res_types = [r.type for r in results]
    # (With symbolic sizes: their ranges, and the guards every decision
    # made on them while tracing and translating recorded.)
    attributes = ir_builder.SYMBOLS.attributes() if ir_builder.SYMBOLS is not None else ""
    lines = ["func.func @%s(%s) -> (%s)%s {" % (name, arg_decl, ", ".join(res_types), attributes)]
    lines.extend(b.lines)
    lines.append('  "func.return"(%s) : (%s) -> ()' % (", ".join(r.name for r in results), ", ".join(res_types)))
    lines.append("}")
    return Translation(
        text="\n".join(lines) + "\n",
        num_inputs=len(args),
        outputs=descr,
        mutated_inputs=sorted(b.mutated_roots),
        inputs_written_with_grad=sorted(b.grad_mutated_roots),
        inputs_written_through_views=_written_through_views(graph),
        has_random=b.has_random,
        name=name,
        input_types=[a.type for a in args],
        result_types=res_types,
        result_meta=[(tuple(r.shape), r.dtype) for r in results],
        result_strides=strides,
        result_offsets=offsets,
        result_is_view=views,
        result_multi_view=multi,
        result_detach=detaches,
        result_no_grad_view=no_grad_views,
        result_through_no_grad_view=through_no_grad,
        result_input=inputs,
        result_view_of=view_of,
        result_fresh_root=fresh_root,
        result_detached_history=detached_history,
        result_stale_view=_stale_views(graph, result_nodes),
    )

