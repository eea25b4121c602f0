"""Gradients at the points where eager's derivative of an op is not the
chain rule through its decomposition: aot differentiates the IR it
translates an ATen op into, so where eager's formula for the op makes a
choice (which of tied maxima gets the gradient, what a root's derivative is
at 0), the translation must make the same one.

- ``max.dim``/``min.dim``: the whole gradient goes to the index returned;
  the full reductions (``amax``, ``max()``) share it between ties.
- ``std`` (and ``std_mean``) of a constant lane, and the p-norms of an
  all-zero vector (``linalg.vector_norm``, ``F.normalize``, a norm of a
  difference): eager's derivative is 0 there, where the root's derivative
  times that of what is under it is 0 times infinity (NaN).
- A branch that ``torch.where`` does not select, in a decomposition:
  ``softplus``, ``mish``, ``elu``, ``selu`` and ``celu`` of a large input
  (where ``exp`` overflows), ``sinc`` at 0, ``xlogy(0, 0)``; and
  ``logit`` at 0 and 1, whose derivative is infinite, not NaN.
- A NaN input: ``sign`` is 0 there (so ``abs``'s and ``l1_loss``'s
  gradients are 0), ``hardtanh``/``relu6`` pass the gradient (only the
  bounds and beyond zero it), the ELU family takes its linear branch,
  ``hardswish`` its identity branch (gradient ``g``), ``max()``/``min()``
  give a NaN result's gradient to the NaN elements (``amax`` gives NaN), ``smooth_l1_loss``
  and ``huber_loss`` their quadratic one (NaN, where an infinite
  difference's is ±1/n); ``logit`` without ``eps`` has a NaN gradient
  outside [0, 1].
  (These are eager's ``float32`` kernels; its ``float64`` ones give other
  gradients at NaN, so those cases run in ``float32`` only.)

Each case compares the values and the input's gradient with eager's, in
``float32`` and ``float64``, and checks that the graph ran compiled."""

import itertools

import pytest
import torch
import torch.nn.functional as F

import aot_torch

# Ties along both dimensions, an all-zero row, negative zero.
X = torch.tensor([[0.0, 1.0, 0.5, -0.0], [1.0, 0.0, 0.5, 2.0], [0.0, 0.0, 0.0, 0.0]])
# NaN, the infinities and both zeros.
SPECIAL = torch.tensor([[float("nan"), -0.0, 0.0, 1.0], [float("inf"), float("-inf"), 6.0, -1.0], [0.5, 7.0, -7.0, 2.0]])
# Where `exp` overflows (float32), and far below.
BIG = torch.tensor([[-100.0, -20.0, 0.0, 20.0], [89.0, 100.0, 1000.0, 3e38], [-3e38, 1.0, -1.0, 1e-3]])

CASES = {
    "max_dim": lambda x: x.max(dim=0).values,
    "max_dim_keepdim_and_index": lambda x: x.max(dim=1, keepdim=True)[0] * x.argmax(1, keepdim=True),
    "min_dim": lambda x: x.min(dim=1).values,
    "max_dim_of_0d": lambda x: x.sum().max(dim=0).values,
    "amax_shares_ties": lambda x: x.amax(0) + x.max(),
    "std_of_constant_row": lambda x: x.std(1),
    "std_all_correction_0": lambda x: x[2].std(correction=0) + x.std(),
    "std_mean": lambda x: torch.std_mean(x, 1, keepdim=True)[0],
    "norm_2": lambda x: torch.linalg.vector_norm(x, dim=1),
    "norm_3_keepdim": lambda x: torch.linalg.vector_norm(x, 3, dim=1, keepdim=True),
    "norm_half": lambda x: torch.linalg.vector_norm(x + 0.25, 0.5, dim=1),
    "norm_of_zero_vector": lambda x: torch.linalg.vector_norm(x[2]) + x.norm(),
    "norm_of_difference": lambda x: torch.dist(x, x.flip(1).flip(1)),
    "normalize_zero_row": lambda x: F.normalize(x, dim=1),
    "norm_to_float64": lambda x: torch.linalg.vector_norm(x, dim=(0, 1), dtype=torch.float64),
    "sinc": lambda x: torch.sinc(x),
    "xlogy": lambda x: torch.xlogy(x, x.flip(0)) + torch.xlogy(x, 2.0),
    "logit_at_0_and_1": lambda x: torch.logit(x.clamp(0, 1)),
    "logit_eps": lambda x: torch.logit(x, eps=1e-3),
    "softplus_large": lambda x: F.softplus(x * 100),
    "softplus_beta": lambda x: F.softplus(X_BIG_AS(x), beta=2.0, threshold=30),
    "mish_large": lambda x: F.mish(X_BIG_AS(x)),
    "elu_large": lambda x: F.elu(X_BIG_AS(x), alpha=0.5),
    "selu_large": lambda x: torch.selu(X_BIG_AS(x)),
    "celu_large": lambda x: F.celu(X_BIG_AS(x), alpha=2.0),
    "sign_abs_l1_at_nan": lambda x: torch.sign(_at(x, SPECIAL)) + _at(x, SPECIAL).abs().nan_to_num(0.0, 0.0, 0.0)
    + F.l1_loss(_at(x, SPECIAL), torch.zeros(3, 4), reduction="none").nan_to_num(0.0, 0.0, 0.0),
    "hardtanh_relu6_at_nan": lambda x: F.hardtanh(_at(x, SPECIAL), 0.0, 1.0) + F.relu6(_at(x, SPECIAL) * 6),
    "elu_family_at_nan": lambda x: F.elu(_at(x, SPECIAL)) + torch.selu(_at(x, SPECIAL)) + F.celu(_at(x, SPECIAL), 0.5),
    "max_min_at_nan": lambda x: _at(x, SPECIAL).max() + _at(x, SPECIAL).min() + _at(x, SPECIAL)[2].max(),
    "hard_activations_at_nan": lambda x: F.hardswish(_at(x, SPECIAL)) + F.hardsigmoid(_at(x, SPECIAL) * 0.5),
    "logit_outside_0_1_at_nan": lambda x: torch.logit(_at(x, SPECIAL)),
    "smooth_l1_huber_at_nan": lambda x: F.smooth_l1_loss(_at(x, SPECIAL), torch.zeros(3, 4), reduction="none", beta=0.5)
    + F.huber_loss(_at(x, SPECIAL), torch.ones(3, 4), reduction="none", delta=2.0)
    + F.smooth_l1_loss(_at(x, SPECIAL), torch.zeros(3, 4)),
}


def _at(x, values):
    # `x` moved onto `values`, differentiably.
    return x - x.detach() + values.to(x.dtype)


def X_BIG_AS(x):
    return _at(x, BIG)


@pytest.fixture(autouse=True)
def _fresh():
    torch._dynamo.reset()
    aot_torch.stats.clear()
    yield
    torch._dynamo.reset()


def _eager_and_compiled(f, dtype):
    """`f` of `X` in `dtype`, eager and through aot, each backward from the
    same seed: (eager's input, aot's input, eager's result, aot's)."""
    x = X.to(dtype).clone().requires_grad_()
    x2 = X.to(dtype).clone().requires_grad_()
    want = f(x)
    torch.manual_seed(0)
    seed = torch.randn(want.shape, dtype=want.dtype)
    want.backward(seed)
    got = torch.compile(f, backend="aot")(x2)
    got.backward(seed)
    return x, x2, want, got


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_eager_at_ties_and_zeros(name, dtype):
    if name.endswith("_at_nan") and dtype != torch.float32:
        pytest.skip("eager's gradients at NaN differ between its float32 and float64 kernels")
    x, x2, want, got = _eager_and_compiled(CASES[name], dtype)
    assert aot_torch.stats["compiled"] >= 1 and not aot_torch.stats["fallback_regions"], dict(aot_torch.stats)
    assert got.dtype == want.dtype
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)
    # (NaN only where eager's gradient has one: `xlogy`'s in `y` at (0, 0).)
    torch.testing.assert_close(x2.grad, x.grad, rtol=1e-6, atol=1e-6, equal_nan=True)


def test_normalized_embeddings_with_a_zero_row_train_like_eager():
    # A model that normalizes its embeddings (contrastive heads), one of
    # whose rows is all zero (zero-initialized, or pruned): eager's step
    # leaves that row's gradient 0; a NaN there would poison the table at
    # the optimizer's step.
    torch.manual_seed(0)
    emb = torch.nn.Embedding(6, 4)
    with torch.no_grad():
        emb.weight[0] = 0.0
    ref = torch.nn.Embedding(6, 4)
    ref.load_state_dict(emb.state_dict())

    def step(e):
        return F.normalize(e(torch.tensor([0, 1, 2, 0, 5])), dim=-1).sum(0).pow(2).sum()

    step(ref).backward()
    torch.compile(step, backend="aot")(emb).backward()
    assert not aot_torch.stats["fallback_regions"]
    torch.testing.assert_close(emb.weight.grad, ref.weight.grad, rtol=1e-6, atol=1e-6)


def _orders():
    """Every order of x, lo and hi among NaN, the infinities, both zeros and
    three numbers: ties, crossed bounds (`lo > hi`) and NaN bounds."""
    inf = float("inf")
    vals = [float("nan"), -inf, -1.0, -0.0, 0.0, 1.0, 2.0, inf]
    return [torch.tensor([t[i] for t in itertools.product(vals, repeat=3)]) for i in range(3)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=["f32", "f64", "bf16"])
@pytest.mark.parametrize("form", ["both", "min_only", "max_only", "clamp_min", "clamp_max", "inplace"])
def test_clamp_with_tensor_bounds_splits_gradients_as_eager(form, dtype):
    # Eager's rule for `clamp(x, lo, hi)` with both bounds tensors is a
    # joint one (a tie splits g between x and the bound it meets, a NaN
    # bound takes nothing, crossed bounds give everything to hi); with one
    # bound it is `maximum`'s or `minimum`'s. Bitwise, over 512 orders.
    fs = {
        "both": lambda x, lo, hi: torch.clamp(x, lo, hi),
        "min_only": lambda x, lo, hi: torch.clamp(x, min=lo) * hi,
        "max_only": lambda x, lo, hi: torch.clamp(x, max=hi) * lo,
        "clamp_min": lambda x, lo, hi: torch.clamp_min(x, lo) + hi,
        "clamp_max": lambda x, lo, hi: torch.clamp_max(x, hi) + lo,
        "inplace": lambda x, lo, hi: (x * 1).clamp_(lo, hi),
    }
    f = fs[form]
    args = [t.to(dtype) for t in _orders()]
    g = torch.linspace(0.3, 3.7, args[0].numel(), dtype=dtype)
    runs = []
    for fn in (f, torch.compile(f, backend="aot")):
        ts = [t.clone().requires_grad_() for t in args]
        y = fn(*ts)
        y.backward(g)
        runs.append([y.detach()] + [t.grad for t in ts])
    assert aot_torch.stats["compiled"] >= 1 and not aot_torch.stats["fallback_regions"], dict(aot_torch.stats)
    (want, *want_grads), (got, *got_grads) = runs
    # (Values as numbers: the sign of a zero result follows eager's vector
    # width, which lanes of a tensor took its scalar tail.)
    torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
    for w, t in zip(want_grads, got_grads):
        torch.testing.assert_close(t, w, rtol=0, atol=0, equal_nan=True)


def test_clamp_with_broadcast_tensor_bounds_sums_gradients_like_eager():
    torch.manual_seed(0)
    x = torch.randn(5, 4)
    x[0, 0], x[1, 1], x[2, 2] = 0.0, 0.5, -1.0
    lo = torch.tensor([0.0, -2.0, -1.0, 1.0])
    hi = torch.tensor(0.5)

    def f(x, lo, hi):
        return torch.clamp(x, lo, hi).pow(2).sum()

    grads = []
    for fn in (f, torch.compile(f, backend="aot")):
        ts = [t.clone().requires_grad_() for t in (x, lo, hi)]
        fn(*ts).backward()
        grads.append([t.grad for t in ts])
    assert not aot_torch.stats["fallback_regions"]
    for w, t in zip(*grads):
        assert torch.equal(t, w)


CDIST = {
    # Up to 25 rows: the differences; zero distances on the diagonal.
    "differences": lambda x: torch.cdist(x, x) + torch.cdist(x, x.flip(0), p=1),
    # Past 25 rows eager takes the product form (`_euclidean_dist`), and
    # always under `use_mm_for_euclid_dist`; its distances of equal rows
    # are exactly 0 here (the entries are sums of halves).
    "product_past_25_rows": lambda x: torch.cdist(x.repeat(9, 1), x),
    "product_asked_for": lambda x: torch.cdist(x, x * 2, compute_mode="use_mm_for_euclid_dist"),
    "batched": lambda x: torch.cdist(x[None].expand(2, 3, 4), x[:2][None]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CDIST))
def test_cdist_compiles_with_eagers_values_and_gradient(name, dtype):
    """`torch.cdist` for p = 1 and 2 compiles (it ran in PyTorch): eager's
    values in either of its two forms, and its gradient, which is 0 where
    a distance is 0 (the chain rule through the root is NaN there)."""
    x, x2, want, got = _eager_and_compiled(CDIST[name], dtype)
    stats = aot_torch.stats
    assert stats["compiled"] >= 1 and not stats["fallback_regions"] and not stats.get("fallback_ops"), dict(stats)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)
    assert not torch.isnan(x2.grad).any()
    torch.testing.assert_close(x2.grad, x.grad, rtol=1e-5, atol=1e-5)
