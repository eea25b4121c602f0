"""Reported reproducers: random Python programs full of views, in-place ops
and ``no_grad`` blocks, compiled with ``torch.compile(f, backend="aot")``
and compared with eager by an outside fuzzer, minimized. Each test is one
report, its program unchanged; the comparison is this project's own
(``fuzzcheck.assert_same``: both modes where the report allows, both
partitions, two calls).

- a write under ``no_grad`` to a leaf that requires grad, or to a view of
  one, is allowed (weight init, optimizer and EMA updates are written this
  way); the reports had the leaf error raised;
- a value computed under ``no_grad`` is a leaf that does not require grad,
  and the gradients of the inputs do not see it;
- an input used only by a dead ``contiguous()`` gets no ``.grad``;
- ``a += g(a); return a`` returns the input itself, not a view of it;
- a program PyTorch rejects raises, and grad mode is what it was;
- ``a.contiguous().float().unsqueeze_(0)`` (both calls return ``a`` itself,
  so the program changes the rank of its input): Dynamo's guard building
  fails on it (an ``IndexError`` in ``produce_guards``) whatever the backend,
  ``eager`` and ``aot_eager`` included. aot must do what Dynamo's own
  backends do; where Dynamo gets fixed, the program must then match eager.
"""

import pytest
import torch
import torch.nn.functional as F

from fuzzcheck import _check, assert_same


def test_nograd_fill_of_leaf_view():
    def f(a0, a1):
        with torch.no_grad():
            a1.fill_(1.27)
        return (a0,)

    def make_inputs(g):
        t0 = torch.randn((), generator=g)
        t1 = torch.randn(19, generator=g).requires_grad_()
        return [t0, t1[1:5].view(2, 2)], [t0, t1]

    assert_same(f, make_inputs, seed=1000, modes=("train",))


def test_nograd_add_to_leaf():
    def f(a0):
        v0 = a0.clone()
        v1 = v0.masked_fill(v0 > -0.41, -1e9)
        with torch.no_grad():
            a0.add_(v1, alpha=-1.58)
        return (a0,)

    def make_inputs(g):
        t0 = torch.randn(4, 4, 4, generator=g).requires_grad_()
        return [t0], [t0]

    assert_same(f, make_inputs, seed=1021, modes=("train",))


def test_nograd_result_does_not_require_grad():
    def f(a0, a1):
        v0 = torch.matmul(a1, a0)
        v1 = v0.expand(2)
        v2 = torch.add(v1, v1, alpha=0.5)
        with torch.no_grad():
            v3 = v2.cos()
        return (v3,)

    def make_inputs(g):
        leaf = torch.randn(3, generator=g).requires_grad_()
        t0 = leaf * 1  # not a leaf
        t1 = torch.randn(20, generator=g)
        return [t0, t1[1:7].view(3, 2).t()], [leaf, t1]

    assert_same(f, make_inputs, seed=1002, modes=("train",))


def test_nograd_index_then_view_outside():
    def f(a0):
        v4 = torch.sin(a0)
        with torch.no_grad():
            v5 = v4[torch.tensor([-2, 0, 1, 1])]
        v7 = v5.narrow(-1, 2, 1)
        return (v7.contiguous(),)

    def make_inputs(g):
        t0 = torch.randn(3, 2, generator=g).requires_grad_()
        return [t0[:, 1]], [t0]

    assert_same(f, make_inputs, seed=1066, modes=("train",))


def test_unused_contiguous_gives_no_grad():
    def f(a0, a1):
        v0 = a1.view_as(a1)
        v1, v2, v3, v4 = v0.unbind(0)
        v5 = v4.index_select(0, torch.tensor([0]))
        a0.contiguous()
        return (v5,)

    def make_inputs(g):
        t0 = torch.randn(4, generator=g).requires_grad_()
        t1 = torch.randn(4, 1, generator=g).requires_grad_()
        return [t0, t1], [t0, t1]

    assert_same(f, make_inputs, seed=1165, modes=("train",))


def test_inplace_add_returns_the_input_itself():
    def f(a0):
        a0 += F.gelu(a0)
        return (a0,)

    def make_inputs(g):
        t0 = torch.randn(2, 4, generator=g)
        return [t0], [t0]

    assert_same(f, make_inputs, seed=1021, modes=("infer",))


def test_rejected_program_leaves_grad_mode_on():
    def f(a0, a1):
        v0 = a1.expand(2, -1)
        with torch.no_grad():
            v0.mul_(1.31)  # PyTorch: more than one element of the written tensor refers to one location
        return (a0,)

    def make_inputs(g):
        t0 = torch.randn(4, generator=g)
        t1 = torch.randn(4, 3, generator=g)
        return [t0, t1.diagonal()], [t0, t1]

    ref = _check().call(f, make_inputs, "train", 1005)
    assert ref["error"] is not None, "eager no longer rejects the program"
    assert_same(f, make_inputs, seed=1005, modes=("train",))
    assert torch.is_grad_enabled()


def _rank_changing_program(a0):
    v0 = a0.contiguous()
    v2 = v0.float()
    v2.unsqueeze_(0)
    return (a0,)


def _rank_inputs(g):
    t0 = torch.randn(2, generator=g)
    return [t0], [t0]


def test_input_rank_changed_in_place_does_as_dynamo():
    check = _check()
    outcome = {}
    for backend in ("eager", "aot"):
        for _, cf, _ in check.compiled_configs(_rank_changing_program, backend, ("infer",), False):
            outcome[backend] = check.call(cf, _rank_inputs, "infer", 1051)
    torch._dynamo.reset()
    dynamo, aot = outcome["eager"], outcome["aot"]
    if dynamo["error"] is None:
        # Dynamo fixed: the program is an ordinary one and must match eager.
        assert_same(_rank_changing_program, _rank_inputs, seed=1051, modes=("infer",))
        return
    assert "IndexError" in str(dynamo["error"]), dynamo["error"]
    assert aot["error"] == dynamo["error"], (aot["error"], dynamo["error"])
    assert torch.is_grad_enabled()
