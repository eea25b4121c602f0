"""Pooling and transposed convolutions as the IR's catalogue ops see
them: decompositions that `fx_ir.to_aten` applies while tracing.

A convolution, a max pool and an average pool are not decomposed: the
graph keeps `aten.convolution`, `aten.max_pool*d_with_indices` and
`aten.avg_pool*d`, which the translator writes as the catalogue ops
`tensor.conv`, `tensor.max_pool` and `tensor.avg_pool` (their derivatives
and kernels are the IR's). What is left here adapts the other spellings
to those: an unbatched input gets its batch dimension, `max_pool*d`
without indices takes the values of the op with them, a 1-d average with
a divisor override becomes a 2-d one, an adaptive average pool whose
sizes divide becomes an average pool (windows of unequal length become
products with 0/1 matrices).

A transposed convolution is the convolution of the input spread out with
zeros (stride − 1 between elements, padded by d·(k − 1) − p) with the
weight flipped in space, each group's channels swapped.

Each function works for 1, 2 and 3 spatial dimensions and returns
`NotImplemented` for what it leaves alone: the ATen op stays in the graph
(what was traced before is dead, and dropped); the translator writes it,
or names it and the region runs in PyTorch.
"""
from typing import List, Sequence

import torch

aten = torch.ops.aten


def expand(v, k: int) -> List[int]:
    """An int or a sequence of 1 or k ints as k ints (PyTorch's rule)."""
    if isinstance(v, int):
        return [v] * k
    v = [int(x) for x in v]
    return v * k if len(v) == 1 else v


def _pad(x: torch.Tensor, before: Sequence[int], after: Sequence[int], value: float) -> torch.Tensor:
    if not any(before) and not any(after):
        return x
    pads: List[int] = []
    for b, a in zip(reversed(list(before)), reversed(list(after))):
        pads += [int(b), int(a)]
    return aten.constant_pad_nd.default(x, pads, value)


def eager_format(y: torch.Tensor, input: torch.Tensor) -> torch.Tensor:
    """y in the memory format PyTorch's kernel (a convolution, pooling,
    batch norm) gives its result: channels-last for a channels-last (4-d or
    5-d) input, else contiguous. The IR computes a contiguous value either
    way; the traced layout tells the backend which strides eager's result
    has (`Translation.result_strides`)."""
    fmt = torch.contiguous_format
    for f, rank in ((torch.channels_last, 4), (torch.channels_last_3d, 5)):
        if input.dim() == rank and not input.is_contiguous() and input.is_contiguous(memory_format=f):
            fmt = f
    if y.is_contiguous(memory_format=fmt) and (fmt == torch.contiguous_format or not y.is_contiguous()):
        return y
    return aten.clone.default(y, memory_format=fmt)


def _batched(x: torch.Tensor, k: int):
    """x with a batch dimension (unbatched inputs have k + 1 dims), and
    whether one was added."""
    if x.dim() == k + 1:
        return aten.unsqueeze.default(x, 0), True
    return x, False


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """A transposed convolution as a convolution (`_conv_transpose`). The
    others stay ATen ops, which the translator writes as `tensor.conv`: a
    catalogue op with its own derivative (`tensor.conv_input_grad`,
    `tensor.conv_weight_grad`) and kernels that read the input in place
    (depthwise) or through one column buffer and a GEMM per group. (A
    decomposition traced a node per kernel offset, and its derivative
    scattered every offset's slice back on its own.)"""
    if transposed and weight.dim() >= 3 and input.dim() == weight.dim():
        return _conv_transpose(input, weight, bias, stride, padding, dilation, output_padding, groups)
    return NotImplemented


def _conv_transpose(input, weight, bias, stride, padding, dilation, output_padding, groups):
    """A transposed convolution as a convolution (the gradient of one
    with respect to its input): the input with stride − 1 zeros between
    its elements and d·(k − 1) − p zeros around it (cropped where that is
    negative, output_padding more at the end), convolved at stride 1 with
    the weight flipped in space and each group's in and out channels
    swapped."""
    if input.dtype != weight.dtype or not input.dtype.is_floating_point:
        return NotImplemented
    k = weight.dim() - 2
    stride, padding = expand(stride, k), expand(padding, k)
    dilation, output_padding = expand(dilation, k), expand(output_padding, k)
    kernel = list(weight.shape[2:])
    n, c = input.shape[:2]
    g = int(groups)
    if g < 1 or c % g or weight.shape[0] != c:
        return NotImplemented
    o = weight.shape[1] * g
    spatial = list(input.shape[2:])
    if any(s == 0 for s in spatial) or n == 0:
        return NotImplemented
    spread = [(spatial[i] - 1) * stride[i] + 1 for i in range(k)]
    # Padding d(k-1) - p before, the same plus output_padding after;
    # negative amounts crop.
    before = [dilation[i] * (kernel[i] - 1) - padding[i] for i in range(k)]
    after = [before[i] + output_padding[i] for i in range(k)]
    crop = [(max(0, -before[i]), spread[i] - max(0, -after[i])) for i in range(k)]
    if any(lo >= hi for lo, hi in crop):
        return NotImplemented
    # Zeros between the input's elements.
    x = input
    if any(s > 1 for s in stride):
        z = aten.new_zeros.default(input, [n, c] + spread)
        view = z
        for i in range(k):
            view = aten.slice.Tensor(view, 2 + i, 0, spread[i], stride[i])
        aten.copy_.default(view, input)
        x = z
    for i, (lo, hi) in enumerate(crop):
        if lo or hi != spread[i]:
            x = aten.slice.Tensor(x, 2 + i, lo, hi, 1)
    x = _pad(x, [max(0, b) for b in before], [max(0, a) for a in after], 0.0)
    # [C_in, O/g, *K] -> per group [O/g, C_in/g, *K], flipped in space.
    w = aten.view.default(aten.clone.default(weight, memory_format=torch.contiguous_format),
                          [g, c // g, o // g] + kernel)
    w = aten.transpose.int(w, 1, 2)
    w = aten.clone.default(w, memory_format=torch.contiguous_format)
    w = aten.view.default(w, [o, c // g] + kernel)
    w = aten.flip.default(w, list(range(2, 2 + k)))
    # (Through the dispatcher, so that a depthwise one stays an ATen op
    # for the translator, as `convolution` leaves it.)
    return aten.convolution.default(x, w, bias, [1] * k, [0] * k, dilation, False, [0] * k, g)


def _max_pool(op, k, input, kernel_size, stride, padding, dilation, ceil_mode):
    """The ATen op stays in the graph (the translator writes it as
    `tensor.max_pool`); an unbatched input gets its batch dimension here."""
    x, added = _batched(input, k)
    if not added:
        return NotImplemented
    val, index = op(x, kernel_size, stride, padding, dilation, ceil_mode)
    return aten.squeeze.dim(val, 0), aten.squeeze.dim(index, 0)


def _avg_pool(k, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """The ATen op stays in the graph (`tensor.avg_pool`); an unbatched
    input gets its batch dimension, a 1-d pool with a divisor override
    (which `avg_pool1d` lacks) becomes a 2-d one."""
    x, added = _batched(input, k)
    if not added and not (k == 1 and divisor_override):
        return NotImplemented
    if k == 1:
        kernel, st = expand(kernel_size, 1), expand(stride, 1) if stride else []
        y = aten.avg_pool2d.default(aten.unsqueeze.default(x, 2), [1] + kernel, [1] + (st or kernel),
                                    [0] + expand(padding, 1), ceil_mode, count_include_pad, divisor_override)
        y = aten.squeeze.dim(y, 2)
    else:
        op = getattr(aten, "avg_pool%dd" % k).default
        y = op(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return aten.squeeze.dim(y, 0) if added else y


def _adaptive_avg_pool(k, input, output_size):
    x, added = _batched(input, k)
    size = expand(output_size, k)
    spatial = x.shape[2:]
    if any(s is None for s in size):
        size = [spatial[i] if size[i] is None else size[i] for i in range(k)]
    if any(o <= 0 for o in size) or any(n == 0 for n in spatial):
        return NotImplemented
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    divisible = all(statically_known_true(spatial[i] % o == 0) for i, o in enumerate(size))
    if not divisible and not all(isinstance(n, int) for n in spatial):
        y = _adaptive_windows_at_run_time(x, spatial, size)
    elif not divisible:
        y = _adaptive_windows(x, spatial, size)
    elif k == 1:
        y = aten.avg_pool1d.default(x, [spatial[0] // size[0]], [spatial[0] // size[0]], [0], False, True)
    else:
        kernel = [spatial[i] // size[i] for i in range(k)]
        y = getattr(aten, "avg_pool%dd" % k).default(x, kernel, kernel, [0] * k, False, True, None)
    return aten.squeeze.dim(y, 0) if added else y


def _adaptive_windows_at_run_time(x, spatial, size):
    """`_adaptive_windows` over sizes known at run time only (a VGG's 7×7
    pool of any image size): the 0/1 window matrix of a dimension of n is
    computed from positions, `floor(o·n/out) <= i < ceil((o+1)·n/out)`,
    and so are the window lengths; no guard on n."""
    y = x
    counts = None
    for d, (n, out) in enumerate(zip(spatial, size)):
        i = torch.arange(n, device=x.device)
        o = torch.arange(out, device=x.device)
        start = torch.div(o * n, out, rounding_mode="floor")
        end = torch.div((o + 1) * n + (out - 1), out, rounding_mode="floor")
        windows = ((i[:, None] >= start[None, :]) & (i[:, None] < end[None, :])).to(x.dtype)
        dim = 2 + d
        y = aten.transpose.int(aten.matmul.default(aten.transpose.int(y, dim, -1), windows), dim, -1)
        ext = (end - start).to(x.dtype)
        counts = ext if counts is None else counts[..., None] * ext
    return aten.div.Tensor(y, counts)


def _adaptive_windows(x, spatial, size):
    """Adaptive average pooling whose windows differ in length or overlap
    (AlexNet's 6×6 pool of a smaller map): output o of a dimension of n
    averages inputs floor(o·n/out) to ceil((o+1)·n/out), PyTorch's windows.
    Per dimension, the window sums are a product with a 0/1 matrix; the
    product of the window lengths divides them at the end."""
    y = x
    lengths = []
    for d, (n, out) in enumerate(zip(spatial, size)):
        rows = []
        ext = []
        for o in range(out):
            start, end = (o * n) // out, -((-(o + 1) * n) // out)
            rows.append([1.0 if start <= i < end else 0.0 for i in range(n)])
            ext.append(end - start)
        lengths.append(ext)
        windows = torch.tensor(rows, dtype=x.dtype).t()
        dim = 2 + d
        y = aten.transpose.int(aten.matmul.default(aten.transpose.int(y, dim, -1), windows), dim, -1)
    counts = [1]
    for ext in lengths:
        counts = [c * e for c in counts for e in ext]
    return aten.div.Tensor(y, torch.tensor(counts, dtype=x.dtype).view(list(size)))


def decompositions():
    """The table entries: ATen overload -> decomposition."""
    table = {aten.convolution.default: convolution}
    for k, name in ((1, "1d"), (2, "2d"), (3, "3d")):
        mp = getattr(aten, "max_pool%s_with_indices" % name, None)
        if mp is not None:
            table[mp.default] = (lambda kk, op: lambda x, ks, st=(), pad=0, dil=1, ceil=False:
                                 _max_pool(op, kk, x, ks, st, pad, dil, ceil))(k, mp.default)
        plain = getattr(aten, "max_pool%s" % name, None)
        if plain is not None and mp is not None:
            # The values of the op with indices (PyTorch's own
            # `max_pool2d` picks a kernel without them when no gradient
            # is needed; the values are the same).
            def plain_pool(x, ks, st=(), pad=0, dil=1, ceil=False, op=mp.default):
                return op(x, ks, st, pad, dil, ceil)[0]
            table[plain.default] = plain_pool
        ap = getattr(aten, "avg_pool%s" % name, None)
        if ap is not None:
            def avg(x, ks, st=(), pad=0, ceil=False, include=True, divisor=None, kk=k):
                return _avg_pool(kk, x, ks, st, pad, ceil, include, divisor)
            table[ap.default] = avg
        for ad in ("adaptive_avg_pool%s" % name, "_adaptive_avg_pool%s" % name):
            op = getattr(aten, ad, None)
            if op is not None:
                table[op.default] = (lambda kk: lambda x, size: _adaptive_avg_pool(kk, x, size))(k)
    return table
