"""Decompositions whose derivative is eager's.

aot differentiates the IR an ATen op is translated into, so an op that
reaches it through a decomposition gets the chain rule through that
decomposition, where eager (and upstream AOTAutograd, which traces eager's
backward formulas) uses the op's own formula. The two differ at the points
these decompositions are for, where the chain rule multiplies 0 by
infinity:

- a branch that ``torch.where`` does not select still has its derivative
  taken (times the 0 the ``where`` gives it): ``sin(x)/x`` at 0 in
  ``sinc``, ``log(y)`` at 0 in ``xlogy(0, 0)``;
- a root's derivative at 0 (``sqrt`` of a zero sum of squares in a
  p-norm, or of a zero distance in ``cdist``) times the 0 derivative of
  what is under it.

(The ELU family, softplus, mish, logit and glu are catalogue ops,
``tensor.elu``, ``tensor.softplus``, ``tensor.mish``, ``tensor.logit``
and ``tensor.glu``, with eager's own backward formulas.)

Each decomposition here computes the same values as upstream's (same ops
in the same order on the selected inputs, computed in the same dtype), and
evaluates every unselected branch at a harmless input instead (the
"double where"), so that its derivative is 0 there, as eager's is.
Anything else goes to upstream's decomposition unchanged."""

import math

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND as KIND
from torch._prims_common import REDUCTION_OUTPUT_TYPE_KIND, reduction_dtypes
from torch._prims_common.wrappers import elementwise_type_promotion_wrapper as promoting
from torch._decomp.decompositions import pw_cast_for_opmath as _pw_cast_for_opmath

aten = torch.ops.aten


def _vector_norm(upstream):
    def decomposition(x, ord=2, dim=None, keepdim=False, *, dtype=None):
        from torch.fx.experimental.symbolic_shapes import guard_or_false

        if isinstance(dim, int):
            dim = [dim]
        dims = None if dim is None or len(dim) == 0 else [d % x.ndim if x.ndim else d for d in dim]
        single = (guard_or_false(x.numel() == 1) if dims is None
                  else x.ndim > 0 and all(guard_or_false(x.shape[d] == 1) for d in dims))
        # (Orders 0, 1 and ±inf take no root; a single element is its
        # absolute value; negative orders are infinite, not 0, at 0.)
        if (isinstance(ord, bool) or not isinstance(ord, (int, float)) or not 0 < ord < math.inf or ord == 1
                or x.is_complex() or single):
            return upstream(x, ord, dim, keepdim, dtype=dtype)
        compute, result = reduction_dtypes(x, REDUCTION_OUTPUT_TYPE_KIND.COMPLEX_TO_FLOAT, dtype)
        x = x.to(compute)
        if float(ord) % 2.0 != 0.0:
            x = torch.abs(x)
        s = torch.sum(torch.pow(x, ord), dim=dims, keepdim=keepdim)
        zero = s == 0
        safe = torch.where(zero, 1.0, s)
        # (The 2-norm as a root: its derivative `g / (2n)` times `2x` is
        # eager's `x · (g / n)` bit for bit.)
        root = torch.sqrt(safe) if ord == 2 else torch.pow(safe, 1.0 / ord)
        return torch.where(zero, 0.0, root).to(result)

    decomposition.__name__ = "vector_norm"
    return decomposition


@promoting(type_promoting_args=("a",), type_promotion_kind=KIND.INT_TO_FLOAT)
def _sinc(a):
    a = math.pi * a
    zero = a == 0
    safe = torch.where(zero, 1.0, a)
    return torch.where(zero, 1.0, torch.sin(safe) / safe)


@promoting(type_promoting_args=("a", "b"), type_promotion_kind=KIND.INT_TO_FLOAT)
def _xlogy(a, b):
    if not isinstance(a, torch.Tensor):
        a = torch.scalar_tensor(a, dtype=b.dtype, device=b.device)
    elif not isinstance(b, torch.Tensor):
        b = torch.scalar_tensor(b, dtype=a.dtype, device=a.device)
    zero = torch.eq(a, 0)
    # (The logarithm is left out where `a` is 0, not replaced by the log of
    # a safe value: eager's derivative in `b` there is `a / b`, NaN at
    # b = 0, which the log's own derivative gives.)
    log_b = torch.where(zero, 0.0, torch.log(b))
    rhs = torch.where(zero, 0.0, torch.mul(a, log_b))
    return torch.where(torch.isnan(b), math.nan, rhs)


def _loss_reduction(loss, reduction):
    from torch._decomp.decompositions import apply_loss_reduction

    return apply_loss_reduction(loss, reduction)


@_pw_cast_for_opmath
def _smooth_l1_loss(self, target, reduction=1, beta=1.0):
    # Upstream's, with the quadratic branch evaluated at 0 where it is not
    # taken: an infinite difference's derivative is ±1/n, as eager's, not
    # `0 · inf`. A NaN difference takes the quadratic branch, as in eager's
    # backward (`x < -beta` and `x > beta` both fail): NaN, not 0.
    if beta == 0.0:
        return _loss_reduction((self - target).abs(), reduction)
    loss = (self - target).abs()
    small = torch.logical_not(loss >= beta)
    safe = torch.where(small, loss, 0.0)
    return _loss_reduction(torch.where(small, 0.5 * safe**2 / beta, loss - 0.5 * beta), reduction)


@promoting(type_promoting_args=("self", "target"), type_promotion_kind=KIND.DEFAULT)
def _huber_loss(self, target, reduction=1, delta=1.0):
    # (As `_smooth_l1_loss`.)
    z = (self - target).abs()
    small = torch.logical_not(z >= delta)
    safe = torch.where(small, z, 0.0)
    return _loss_reduction(torch.where(small, 0.5 * safe * safe, delta * (z - 0.5 * delta)), reduction)


def _cdist_forward(x1, x2, p, compute_mode=None):
    """`torch.cdist` for p = 1 and 2, with eager's values and its
    derivative (`_cdist_backward`: 0 where a distance is 0, where the
    chain rule through a root would give `0 · inf`). For p = 2 eager
    takes the product form (`_euclidean_dist`: `-2·x1·x2ᵀ` plus the
    squared norms through one matrix product, clamped at 0) where either
    side has more than 25 rows (compute mode 0) or always (mode 1), and
    the differences otherwise; so does this. Other orders, and a choice
    between the two forms that depends on a symbolic size, stay the ATen
    op (NotImplemented)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    if (isinstance(p, bool) or p not in (1, 2) or x1.dtype != x2.dtype
            or x1.dtype not in (torch.float32, torch.float64) or x1.dim() < 2 or x2.dim() < 2):
        return NotImplemented
    mode = 0 if compute_mode is None else int(compute_mode)
    r1, r2 = x1.shape[-2], x2.shape[-2]
    product = p == 2 and mode == 1
    if p == 2 and mode == 0:
        if statically_known_true(r1 > 25) or statically_known_true(r2 > 25):
            product = True
        elif not (statically_known_true(r1 <= 25) and statically_known_true(r2 <= 25)):
            return NotImplemented
    if product:
        return _euclidean_dist(x1, x2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == 1:
        return torch.sum(torch.abs(diff), -1)
    s = torch.sum(diff * diff, -1)
    return _root_of_squares(s, s == 0)


def _euclidean_dist(x1, x2):
    """Eager's product form of the 2-norm distances (what `torch.cdist`
    calls past 25 rows): the squared norms and `-2·x1·x2ᵀ` through one
    matrix product, clamped at 0, and a root whose derivative is 0 where
    the distance is (`_euclidean_dist_backward`)."""
    n1 = torch.sum(x1.pow(2), -1, keepdim=True)
    n2 = torch.sum(x2.pow(2), -1, keepdim=True)
    a = torch.cat([x1.mul(-2), n1, torch.ones_like(n1)], -1)
    b = torch.cat([x2, torch.ones_like(n2), n2], -1)
    s = torch.matmul(a, b.mT)
    return _root_of_squares(s, s <= 0)


def _root_of_squares(s, zero):
    """`sqrt(s)`, 0 where `zero` (and its derivative 0 there, eager's at a
    zero distance: the root is taken of 1 instead)."""
    return torch.where(zero, 0.0, torch.sqrt(torch.where(zero, 1.0, s)))


def install(table):
    """Puts this module's decompositions into `table` (upstream's, for
    the ops it has), for the functional overloads."""
    table[aten.linalg_vector_norm.default] = _vector_norm(table[aten.linalg_vector_norm.default])
    table[aten.sinc.default] = _sinc
    for ov in (aten.xlogy.Tensor, aten.xlogy.Scalar_Self, aten.xlogy.Scalar_Other):
        table[ov] = _xlogy
    table[aten.smooth_l1_loss.default] = _smooth_l1_loss
    table[aten.huber_loss.default] = _huber_loss
    table[aten._cdist_forward.default] = _cdist_forward
    table[aten._euclidean_dist.default] = _euclidean_dist
