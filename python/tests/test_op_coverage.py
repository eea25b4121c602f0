"""ATen ops that models reach, compiled with nothing left to PyTorch and
equal to eager in values and gradients: the decompositions onto catalogue
ops (upsampling's gathers, the reflection and replication pads, `F.unfold`,
`grid_sample`, the shuffles, activations and losses written with catalogue
ops), PyTorch's floor division of floats and integer remainder, rounding to
decimals, and views the trace took of an intermediate that PyTorch lays out
otherwise than the IR does, `scatter` and the gates of the recurrent
cells."""

import logging
import math

import pytest
import torch
import torch.nn.functional as F

from aot_torch import stats


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _x(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


CASES = {
    "upsample_nearest": lambda x: F.interpolate(x[None, None], scale_factor=2, mode="nearest"),
    "upsample_bilinear": lambda x: F.interpolate(x[None, None], scale_factor=2, mode="bilinear"),
    "upsample_bilinear_aligned": lambda x: F.interpolate(x[None, None], size=(6, 7), mode="bilinear",
                                                         align_corners=True),
    "upsample_bicubic": lambda x: F.interpolate(x[None, None], size=(6, 7), mode="bicubic"),
    "upsample_linear1d": lambda x: F.interpolate(x[None], size=7, mode="linear"),
    "reflection_pad": lambda x: F.pad(x[None], (2, 2), mode="reflect"),
    "replication_pad": lambda x: F.pad(x[None, None], (1, 2, 2, 1), mode="replicate"),
    "unfold_view": lambda x: x.unfold(1, 2, 1).sum(-1),
    "im2col": lambda x: F.unfold(x[None, None], 2),
    "grid_sample": lambda x: F.grid_sample(x[None, None], torch.tensor([[[[0.1, -0.4], [0.7, 0.2]]]]),
                                           align_corners=False),
    "affine_grid": lambda x: F.affine_grid(torch.eye(2, 3)[None] * 0.5, (1, 1, 4, 5), align_corners=False).sum() * x,
    "pixel_shuffle": lambda x: F.pixel_shuffle(x[None, :4, :, None].expand(1, 4, 5, 2), 2),
    "pixel_unshuffle": lambda x: F.pixel_unshuffle(x[None, None, :, :4], 2),
    "prelu": lambda x: F.prelu(x, torch.tensor([0.25])),
    "logsigmoid": lambda x: F.logsigmoid(x),
    "bce_with_logits": lambda x: F.binary_cross_entropy_with_logits(x, torch.ones(4, 5)),
    "threshold": lambda x: F.threshold(x, 0.1, 20.0),
    "kl_div": lambda x: F.kl_div(x.log_softmax(1), torch.full((4, 5), 0.2), reduction="batchmean"),
    "xlogy": lambda x: torch.xlogy(x.abs(), x.abs() + 1),
    "pairwise_distance": lambda x: F.pairwise_distance(x, x.flip(0)),
    "norm_p3": lambda x: torch.norm(x, 3, dim=1),
    "trace": lambda x: torch.trace(x),
    "diag_embed": lambda x: torch.diag_embed(x[0]) * 2,
    "cross": lambda x: torch.linalg.cross(x[:, :3], x.flip(0)[:, :3]),
    "index_add": lambda x: x.index_add(0, torch.tensor([0, 0, 1]), x[:3]),
    "aminmax": lambda x: torch.aminmax(x, dim=1)[0] + torch.aminmax(x, dim=1)[1],
    "count_nonzero": lambda x: torch.count_nonzero(x > 0, 1) * x.sum(1),
    "nanmean": lambda x: x.nanmean(1),
    "sinc": lambda x: torch.sinc(x),
    "deg2rad": lambda x: torch.deg2rad(x) + torch.rad2deg(x),
    "frac": lambda x: torch.frac(x * 3),
    "exp2_log2_log10": lambda x: torch.exp2(x) + torch.log2(x.abs() + 1) + torch.log10(x.abs() + 1),
    "fmax_fmin": lambda x: torch.fmax(x, x.flip(0)) + torch.fmin(x, x.flip(1)),
    "fmax_tie": lambda x: torch.fmax(x, x.detach() * 1),
    "nan_to_num": lambda x: torch.nan_to_num(torch.log(x), nan=0.5, neginf=-3.0),
    "eye": lambda x: torch.softmax(x[:, :4], 1) @ torch.eye(4),
    "round_decimals": lambda x: torch.round(x * 10, decimals=1) + torch.round(x * 1000, decimals=-2),
    "adaptive_avg_pool_1x1_to_6x6": lambda x: F.adaptive_avg_pool2d(x[None, None, :1, :1], 6),
    "sort": lambda x: torch.sort(x, dim=1).values * torch.sort(x, dim=0, descending=True).indices,
    "sort_stable": lambda x: torch.sort(x.t(), dim=-1, stable=True).values.exp(),
    "argsort": lambda x: x.gather(1, torch.argsort(x, dim=1, descending=True)) * 2,
    "topk": lambda x: torch.topk(x, 2, dim=1).values.sigmoid() + torch.topk(x, 3, dim=0, largest=False).indices.sum(0)[:2],
    "topk_router": lambda x: torch.softmax(x, -1).topk(2, -1).values / 2,
    # (transformers' MoE expert offsets: int32 running sums of counts.)
    "cumsum_dtype": lambda x: torch.cumsum((x > 0).sum(0), 0, dtype=torch.int32) * x,
    "cumsum_float_to_int": lambda x: torch.cumsum(x.detach() * 3, 1, dtype=torch.int32).float() + x,
    # (Where several writes land on one element, the last along `dim` wins.)
    "scatter_src": lambda x: x.scatter(1, torch.tensor([[0, 0, 4], [1, 1, 1], [3, 2, 3], [4, 4, 0]]), x.flip(0)[:, :3] * 3),
    "scatter_src_dim0": lambda x: x.scatter(0, torch.tensor([[3, 0, 1, 0, 2], [3, 3, 0, 1, 2]]), x[1:3].exp()),
    "scatter_value": lambda x: x.t().scatter(0, torch.tensor([[1, 0, 3, 2], [0, 0, 0, 0]]), -2.5),
    "one_hot_by_scatter_": lambda x: torch.zeros(4, 5).scatter_(1, x.argmax(1, keepdim=True), 1.0) * x,
    "lstm_gru_cells": lambda x: _CELLS(x),
    "layer_norm_without_bias": lambda x: F.layer_norm(x, (5,), torch.linspace(0.5, 2.0, 5), None),
    # (Products with scaled accumulators: `addr` is eager's fused
    # beta·self + (alpha·v1)·v2; with beta = 0, `self`'s NaN are not read.)
    # (A product with one zero in a row and two in another: eager's gradient
    # rule for each count of zeros.)
    "prod": lambda x: x.prod(1) + torch.prod(x[:2]),
    "prod_zeros": lambda x: torch.where(torch.tensor([[1, 0, 1, 1, 1], [0, 1, 0, 1, 1], [1] * 5, [1] * 5]) > 0, x,
                                        0.0).prod(1, keepdim=True) * 2,
    "prod_int_dtype": lambda x: (x > 0).prod(0) + (x * 3).to(torch.int32).prod(1, dtype=torch.int64).sum() + x,
    "rrelu_eval": lambda x: F.rrelu(x, 0.1, 0.3, training=False),
    "addmv": lambda x: torch.addmv(x[:, 0], x, x[0], beta=0.5, alpha=-2),
    "addr": lambda x: torch.addr(x, x[:, 0], x[0], beta=0.2, alpha=3),
    "addr_beta0": lambda x: torch.addr(torch.full((4, 5), math.nan), x[:, 0], x[0], beta=0),
    "addbmm": lambda x: torch.addbmm(x[:2, :2], x.reshape(2, 2, 5), x.reshape(2, 5, 2), beta=-1, alpha=0.5),
    "addbmm_beta0": lambda x: torch.addbmm(torch.full((2, 2), math.nan), x.reshape(2, 2, 5), x.reshape(2, 5, 2), beta=0),
}


class _Cells(torch.nn.Module):
    # (`LSTMCell` and `GRUCell` chunk their gates with `unsafe_split`.)
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lstm, self.gru = torch.nn.LSTMCell(5, 6), torch.nn.GRUCell(6, 3)

    def forward(self, x):
        h, c = self.lstm(x)
        return self.gru(h * c)


_CELLS = _Cells()


@pytest.mark.parametrize("training", [False, True], ids=["infer", "train"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_op_compiles_and_matches_eager(name, training, caplog):
    fn = CASES[name]
    x = _x(4, 5)
    leaves = [x.clone().requires_grad_(training) for _ in range(2)]
    before = dict(stats)
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(fn, backend="aot")(leaves[1])
    want = fn(leaves[0])
    assert not [r.getMessage() for r in caplog.records], "something ran in PyTorch"
    assert stats["compiled"] > before.get("compiled", 0)
    torch.testing.assert_close(got, want, equal_nan=True)
    if training and want.requires_grad:
        cot = torch.randn(want.shape, generator=torch.Generator().manual_seed(1))
        want.backward(cot)
        got.backward(cot)
        torch.testing.assert_close(leaves[1].grad, leaves[0].grad, equal_nan=True)


_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, 1e-30, -1e-30, 3e38, -3e38, float("inf"), float("-inf"),
            float("nan"), 0.3, -0.3, 5.5, 1e7 + 1, 0.1]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_floor_division_of_floats_is_pytorchs_bit_for_bit(dtype, caplog):
    # Every pair of special values: zeros of both signs, infinities, NaN,
    # huge and tiny quotients, a zero divisor; then random pairs over many
    # magnitudes. (Halves run in PyTorch, which computes their quotient in
    # float and rounds once.)
    vals = torch.tensor(_SPECIAL, dtype=dtype)
    gen = torch.Generator().manual_seed(0)
    a = torch.cat([vals.repeat_interleave(len(vals)),
                   (torch.randn(4000, generator=gen) * torch.logspace(-3, 4, 4000)).to(dtype)])
    b = torch.cat([vals.repeat(len(vals)),
                   (torch.randn(4000, generator=gen) * torch.logspace(2, -2, 4000)).to(dtype)])

    def f(x, y):
        return torch.div(x, y, rounding_mode="floor"), x // 3.5

    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(f, backend="aot")(a, b)
    half = dtype in (torch.float16, torch.bfloat16)
    assert ("floor division of %s" % dtype in caplog.text) == half, caplog.text
    for g, w in zip(got, f(a, b)):
        same = ((g == w) & (torch.signbit(g) == torch.signbit(w))) | (g.isnan() & w.isnan())
        assert bool(same.all()), (a[~same], b[~same], g[~same], w[~same])


def test_floor_division_of_a_float_that_requires_grad_runs_in_pytorch(caplog):
    # Its derivative is zeros (not no gradient), also at a zero divisor,
    # where the expansion's is not: PyTorch runs it.
    def f(x, y):
        return torch.div(x, y, rounding_mode="floor")

    leaves = [[_x(6).requires_grad_(), torch.tensor([2.0, 0.0, -1.5, 0.0, 3.0, -2.0]).requires_grad_()]
              for _ in range(2)]
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(f, backend="aot")(*leaves[1])
    want = f(*leaves[0])
    assert "floor division of torch.float32 that requires grad" in caplog.text
    torch.testing.assert_close(got, want, equal_nan=True)
    got.sum().backward()
    want.sum().backward()
    for e, c in zip(leaves[0], leaves[1]):
        assert torch.equal(c.grad, e.grad) and not c.grad.any()


def test_integer_remainder_takes_the_divisors_sign_and_refuses_zero():
    def f(x, y):
        return x % y, x % 3, 7 % y, torch.remainder(x, -4)

    x = torch.tensor([-7, -3, 0, 3, 7, 9, -9, 2 ** 40])
    y = torch.tensor([2, -2, 5, -5, 3, 4, -4, 7])
    got, want = torch.compile(f, backend="aot")(x, y), f(x, y)
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        f(x, torch.zeros_like(y))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.compile(f, backend="aot")(x, torch.zeros_like(y))


def test_a_view_of_an_intermediate_eager_laid_out_otherwise_is_taken_of_a_copy(caplog):
    # timm's ResMLP: `linear(affine(x).transpose(1, 2))` where `x` is a
    # transpose: eager's `addcmul` keeps x's layout, so the transposed result
    # is contiguous and `linear` views it; the IR's result is contiguous, and
    # its transpose is not viewable.
    lin = torch.nn.Linear(6, 6)
    alpha, beta = torch.ones(4), torch.zeros(4)

    def f(x):
        y = torch.addcmul(beta, alpha, x)
        return x + lin(y.transpose(1, 2)).transpose(1, 2)

    x = _x(2, 4, 6).transpose(1, 2)
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(f, backend="aot")(x)
    assert not caplog.records, caplog.text
    torch.testing.assert_close(got, f(x))


def test_a_view_of_a_differently_laid_out_intermediate_that_is_written_is_not_copied(caplog):
    # A write after the view reaches it in eager: a copy would not see it.
    # The graph runs in PyTorch, with the reason.
    def f(x):
        y = x * 2
        z = y.transpose(1, 2).view(-1, 6)
        y.add_(1)
        return z * 1

    x = _x(2, 4, 6).transpose(1, 2)
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(f, backend="aot")(x)
    assert "laid out otherwise than in the IR" in caplog.text and "add_ writes in place" in caplog.text
    torch.testing.assert_close(got, f(x))


def test_heaviside_is_left_to_pytorch_whose_backward_raises():
    # PyTorch has no derivative for heaviside: a compiled one that silently
    # returned zeros would differ from eager, whose backward raises.
    x = _x(5).requires_grad_()
    out = torch.compile(lambda t: torch.heaviside(t, torch.tensor(0.5)), backend="aot")(x)
    with pytest.raises(RuntimeError, match="heaviside"):
        out.sum().backward()


def test_the_coverage_table_in_docs_is_current():
    # docs/torch-ops.md is generated from the translator's tables.
    import os

    from aot_torch import coverage

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "torch-ops.md")
    assert coverage.main(["--check", path]) == 0, "regenerate: python -m aot_torch.coverage > docs/torch-ops.md"
    text = coverage.table()
    # An entry of each kind: translated, decomposed, and never translated.
    assert "| `aten.bmm.default` | `tensor.bmm` |" in text
    assert "| `aten.reflection_pad2d.default` | decomposed: PyTorch's decomposition" in text
    assert "| `aten.nonzero.default` | runs in PyTorch: data-dependent output shape |" in text


def test_sort_and_topk_keep_equal_elements_in_order_and_sort_nan_highest():
    # PyTorch leaves the order of equal elements unspecified for `topk` and
    # `sort(stable=False)`, and gives it for `stable=True`: aot's is the
    # stable one. NaN sorts above every number.
    x = torch.tensor([[1.0, float("nan"), -1.0, 1.0, 0.0, -0.0, float("nan"), 2.0]])

    def f(t):
        return (torch.sort(t, dim=1, stable=True), torch.sort(t, dim=1, descending=True, stable=True),
                torch.topk(t, 5, dim=1))

    got = torch.compile(f, backend="aot")(x)
    want = f(x)
    for (gv, gi), (wv, wi) in zip(got[:2], want[:2]):
        torch.testing.assert_close(gv, wv, equal_nan=True)
        assert torch.equal(gi, wi)
    values, indices = got[2]
    assert indices.tolist() == [[1, 6, 7, 0, 3]]
    torch.testing.assert_close(values, want[2].values, equal_nan=True)


def test_a_sort_longer_than_the_lane_limit_runs_in_pytorch(caplog):
    from aot_torch import aten_ops

    x = _x(2, aten_ops.SORT_MAX_LANE + 1)
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(lambda t: torch.topk(t, 3).values * 2, backend="aot")(x)
    assert "aot sorts lanes of up to" in caplog.text
    torch.testing.assert_close(got, torch.topk(x, 3).values * 2)


def test_an_in_place_leaky_relu_of_an_intermediate_compiles(caplog):
    # CSPDarknet's activations: PyTorch's backward reads the result, which
    # nothing can write after. Compiled, trained, equal to eager.
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3)

    def f(x):
        h = F.leaky_relu(conv(x), 0.1, inplace=True)
        return h.mean() + F.leaky_relu(h * 2, 0.2, inplace=True).sum()

    leaves = [_x(2, 3, 6, 6).requires_grad_() for _ in range(2)]
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(f, backend="aot")(leaves[1])
    assert not caplog.records, caplog.text
    want = f(leaves[0])
    torch.testing.assert_close(got, want)
    got.backward()
    want.backward()
    torch.testing.assert_close(leaves[1].grad, leaves[0].grad)


def test_an_in_place_leaky_relu_whose_result_is_written_after_raises_as_eager(caplog):
    def f(x):
        h = x * 2
        F.leaky_relu(h, 0.1, inplace=True)
        h.mul_(3)
        return h.sum()

    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        for fn in (f, torch.compile(f, backend="aot")):
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                fn(_x(5).requires_grad_()).backward()
    assert "which mul_ writes in place" in caplog.text


@pytest.mark.parametrize("bad", [5, -1], ids=["past_the_end", "negative"])
def test_a_scatter_index_out_of_range_raises_eagers_runtime_error(bad):
    idx = torch.tensor([[0, bad, 1]])
    f = lambda x: x.scatter(1, idx, 1.0)  # noqa: E731
    with pytest.raises(RuntimeError) as want:
        f(_x(2, 5))
    with pytest.raises(RuntimeError) as got:
        torch.compile(f, backend="aot")(_x(2, 5))
    assert type(want.value) is RuntimeError and not isinstance(got.value, IndexError)
    assert "out of bounds" in str(got.value)
