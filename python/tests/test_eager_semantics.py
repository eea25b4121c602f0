"""torch.compile(f, backend="aot") leaves what eager leaves: the process
state after an error, the identity of outputs that are inputs, mutations
made under no_grad. One test per class of difference found by comparing
random programs with eager PyTorch; each program is the minimized one."""

import pytest
import torch

import aot_torch  # noqa: F401  (registers the backend)


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _both(f, make_inputs):
    """(eager, compiled): f's result and its inputs, each on fresh inputs."""
    runs = []
    for fn in (f, torch.compile(f, backend="aot", fullgraph=False)):
        args = make_inputs()
        runs.append((fn(*args), args))
    return runs


def test_an_error_inside_a_no_grad_block_leaves_grad_mode_on():
    def f(a0, a1):
        v0 = a1.expand(2, -1)
        with torch.no_grad():
            v0.mul_(1.31)  # several elements of v0 share memory: PyTorch refuses
        return (a0,)

    cf = torch.compile(f, backend="aot", fullgraph=False)
    for fn in (f, cf):
        with pytest.raises(RuntimeError, match="single memory location"):
            fn(torch.randn(4), torch.randn(4, 3).diagonal())
        assert torch.is_grad_enabled(), "grad mode left off after %s raised" % ("eager" if fn is f else "compiled")


@pytest.mark.parametrize("training", [False, True])
def test_an_output_that_is_an_input_mutated_in_place_is_that_input(training):
    def f(a0):
        a0 += torch.nn.functional.gelu(a0)
        return (a0,)

    def make_inputs():
        t = torch.randn(3, 4, generator=torch.Generator().manual_seed(5))
        return [t.requires_grad_().clone() if training else t]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    assert eager[0] is e_args[0]
    assert compiled[0] is c_args[0], "the output is a new tensor (a view of the input), not the input"
    torch.testing.assert_close(compiled[0].detach(), eager[0].detach())


def test_a_leaf_that_requires_grad_is_updated_under_no_grad():
    # An optimizer or EMA step written in the model: eager allows it.
    def f(a0, a1):
        v1 = a0.clone().masked_fill(a0 > -0.41, -1e9)
        with torch.no_grad():
            a0.add_(v1, alpha=-1.58)
            a1[1:].fill_(0.25)
        return (a0 * 2,)

    def make_inputs():
        g = torch.Generator().manual_seed(3)
        return [torch.randn(4, 4, generator=g).requires_grad_(), torch.randn(3, generator=g).requires_grad_()]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    for e, c in zip(e_args, c_args):
        torch.testing.assert_close(c.detach(), e.detach())
        assert c.is_leaf and c.requires_grad and c.grad_fn is None
    torch.testing.assert_close(compiled[0].detach(), eager[0].detach())
    w = torch.randn(4, 4)
    (eager[0] * w).sum().backward()
    (compiled[0] * w).sum().backward()
    torch.testing.assert_close(c_args[0].grad, e_args[0].grad)


@pytest.mark.parametrize("dead", ["contiguous", "no_grad", "detach"])
def test_an_input_no_output_depends_on_gets_no_gradient(dead):
    def f(a0, a1):
        if dead == "contiguous":
            a0.contiguous()
            return (a1 * 2,)
        if dead == "no_grad":
            with torch.no_grad():
                v = a0 * 3
            return (a1 * 2 + v[:3],)
        return (a1 * 2 + a0.detach()[1:],)

    def make_inputs():
        g = torch.Generator().manual_seed(4)
        return [torch.randn(4, generator=g).requires_grad_(), torch.randn(3, generator=g).requires_grad_()]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    eager[0].sum().backward()
    compiled[0].sum().backward()
    torch.testing.assert_close(c_args[1].grad, e_args[1].grad)
    assert e_args[0].grad is None
    assert c_args[0].grad is None, "a zero gradient where eager has none"


def _meta(t):
    return (t.shape, t.stride(), t.storage_offset(), t.requires_grad, t.is_leaf, t._base is not None)


def test_a_leaf_view_is_filled_under_no_grad():
    # Weight initialisation through a view of a parameter: eager allows it.
    def f(a0, a1):
        with torch.no_grad():
            a1.fill_(1.27)
        return (a0 * 2,)

    def make_inputs():
        g = torch.Generator().manual_seed(9)
        t0 = torch.randn(3, generator=g).requires_grad_()
        t1 = torch.randn(19, generator=g).requires_grad_()
        return [t0, t1[1:5].view(2, 2)]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    for e, c in zip(e_args, c_args):
        torch.testing.assert_close(c.detach(), e.detach())
        assert _meta(c) == _meta(e)
        assert c._version == e._version


@pytest.mark.parametrize("where", ["after", "index"])
def test_a_value_computed_under_no_grad_is_a_leaf_without_grad(where):
    # The region takes a non-leaf argument (an earlier activation): it is
    # compiled, not run in PyTorch, and its no_grad ops carry no gradient.
    def f(a0, a1):
        v = torch.matmul(a1, a0)
        v = torch.add(v, v, alpha=0.5)
        with torch.no_grad():
            if where == "index":
                w = v[torch.tensor([1, 0, 1])]
            else:
                w = v.cos()
        return (w, v * w.sum())

    def make_inputs():
        g = torch.Generator().manual_seed(11)
        t0 = torch.randn(3, generator=g).requires_grad_()
        t1 = torch.randn(20, generator=g)
        return [t0 * 1, t1[1:7].view(3, 2).t()], t0

    runs = []
    for fn in (f, torch.compile(f, backend="aot", fullgraph=False)):
        args, leaf = make_inputs()
        out = fn(*args)
        out[1].sum().backward()
        runs.append((out, leaf))
    (e_out, e_leaf), (c_out, c_leaf) = runs
    assert not c_out[0].requires_grad and c_out[0].is_leaf
    for e, c in zip(e_out, c_out):
        torch.testing.assert_close(c.detach(), e.detach())
        assert (c.requires_grad, c.is_leaf) == (e.requires_grad, e.is_leaf)
    torch.testing.assert_close(c_leaf.grad, e_leaf.grad)


@pytest.mark.parametrize("training", [False, True])
def test_a_view_of_an_intermediate_keeps_its_offset_and_can_be_written(training):
    def f(a0):
        v = torch.sin(a0)
        w = torch.cos(a0)
        return (v.narrow(0, 2, 1), w, w[1:3], w.view(2, 2).t())

    def make_inputs():
        t = torch.randn(4, generator=torch.Generator().manual_seed(2))
        return [t.requires_grad_() if training else t]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c.detach(), e.detach())
        assert _meta(c) == _meta(e)
    # Outputs of one storage share it as in eager; w[1:3] is a view of w.
    assert compiled[2]._base is compiled[1] and compiled[3]._base is compiled[1]
    if training:
        # A view of an intermediate may be written in place (it is not a
        # view made inside an autograd Function), and gradients flow.
        for out in (eager, compiled):
            out[0].mul_(3)
        ws = [torch.randn(1), torch.randn(4), torch.randn(2), torch.randn(2, 2)]
        for out in (eager, compiled):
            sum((o * w).sum() for o, w in zip(out, ws)).backward()
        torch.testing.assert_close(c_args[0].grad, e_args[0].grad)


def test_overlapping_views_of_an_intermediate_get_each_gradient_once():
    def f(a0):
        v = torch.exp(a0)
        return (v[0:3], v[1:4], v[2:3].expand(3))

    def make_inputs():
        return [torch.randn(4, generator=torch.Generator().manual_seed(6)).requires_grad_()]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    ws = [torch.randn(3, generator=torch.Generator().manual_seed(k)) for k in range(3)]
    for out in (eager, compiled):
        sum((o * w).sum() for o, w in zip(out, ws)).backward()
    torch.testing.assert_close(c_args[0].grad, e_args[0].grad)


def test_ops_left_to_pytorch_run_under_the_traced_grad_mode():
    # torch.linalg.det has no IR counterpart: the split graph runs it in
    # PyTorch, inside the no_grad block, between compiled regions.
    def f(a0, a1):
        v = a0 * 2
        with torch.no_grad():
            d = torch.linalg.det(v.view(2, 2)) * a1
        return (v + d, d)

    def make_inputs():
        g = torch.Generator().manual_seed(12)
        return [torch.randn(4, generator=g).requires_grad_(), torch.randn(4, generator=g).requires_grad_()]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c.detach(), e.detach())
        assert (c.requires_grad, c.is_leaf) == (e.requires_grad, e.is_leaf)
    for out in (eager, compiled):
        out[0].sum().backward()
    for e, c in zip(e_args, c_args):
        assert (c.grad is None) == (e.grad is None)
        if e.grad is not None:
            torch.testing.assert_close(c.grad, e.grad)


def test_a_region_run_in_pytorch_keeps_its_no_grad_blocks(monkeypatch):
    # A region aot does not compile runs its ATen graph in PyTorch, which
    # has no no_grad blocks of its own (make_fx traces below autograd).
    import importlib

    backend = importlib.import_module("aot_torch.backend")
    monkeypatch.setattr(backend._Region, "_compile", lambda self, args: None)

    def f(a0):
        v = a0 * 2
        with torch.no_grad():
            w = v.cos()
        return (v, w)

    def make_inputs():
        return [torch.randn(3, generator=torch.Generator().manual_seed(8)).requires_grad_()]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c.detach(), e.detach())
        assert (c.requires_grad, c.is_leaf) == (e.requires_grad, e.is_leaf)
    assert torch.is_grad_enabled()


@pytest.mark.parametrize("returned", [False, True])
def test_a_non_leaf_written_in_grad_mode_is_compiled_and_differentiated(returned):
    # An activation written in place (a residual `h += f(h)`): autograd
    # records the write on the argument's own history, as eager does.
    def f(a0, a1):
        a0.mul_(a1.sigmoid())
        a0.add_(1.5)
        return (a0,) if returned else (a0 * a1,)

    def make_inputs():
        g = torch.Generator().manual_seed(21)
        w = torch.randn(3, 4, generator=g).requires_grad_()
        x = torch.randn(3, 4, generator=g).requires_grad_()
        return [w * 2, x], (w, x)

    before = aot_torch.stats["fallback_regions"]
    runs = []
    for fn in (f, torch.compile(f, backend="aot", fullgraph=False)):
        args, leaves = make_inputs()
        out = fn(*args)
        (out[0] * torch.arange(12.0).view(3, 4)).sum().backward()
        runs.append((out, args, leaves))
    (e_out, e_args, e_leaves), (c_out, c_args, c_leaves) = runs
    assert aot_torch.stats["fallback_regions"] == before, "the region ran in PyTorch"
    if returned:
        assert c_out[0] is c_args[0]
    torch.testing.assert_close(c_out[0].detach(), e_out[0].detach())
    torch.testing.assert_close(c_args[0].detach(), e_args[0].detach())
    assert c_args[0]._version > 0
    for e, c in zip(e_leaves, c_leaves):
        torch.testing.assert_close(c.grad, e.grad)


def test_a_transposed_row_compiles_for_its_own_layout():
    # `t_()` of a 1 x 5 tensor: strides [1, 5], contiguous to PyTorch. The
    # guards took it for another layout than the one compiled ([1, 1]) and
    # the region fell back (fuzz seed 2495).
    def f(a0):
        v0 = a0.clone()
        v0.t_()
        v4 = v0 + 1.68
        s2 = v4.sum().item()  # a graph break: v0 enters the next graph as is
        return (v4 * s2,)

    before = aot_torch.stats["fallback_regions"]
    (eager, _), (compiled, _) = _both(f, lambda: [torch.randn(1, 5, generator=torch.Generator().manual_seed(3))])
    assert aot_torch.stats["fallback_regions"] == before, "a region ran in PyTorch"
    torch.testing.assert_close(compiled[0], eager[0])
    # The strides that address something (the fuzzer's comparison: a
    # dimension of size 1 has none to compare).
    assert compiled[0].stride()[0] == eager[0].stride()[0] == 1


@pytest.mark.parametrize("returns", ["view", "view_and_other", "other"])
def test_a_written_view_of_an_activation_is_compiled_and_differentiated(returns):
    # A view of an activation passed on from an earlier graph and written in
    # place (the most common fallback of the torch.compile fuzzer): the
    # write lands on the view's base as in eager (a CopySlices node), also
    # when the region has other outputs, which PyTorch refuses to an
    # autograd.Function that marks a view dirty.
    def f(a0, a1):
        a0.mul_(a1)
        a0.add_(0.25)
        if returns == "view":
            return (a0,)
        if returns == "view_and_other":
            return (a0, a1.sin())
        return (a0 * 3.0, a1.sin())

    def make_inputs():
        g = torch.Generator().manual_seed(8)
        x = torch.randn(4, 3, generator=g).requires_grad_()
        w = torch.randn(3, 2, generator=g).requires_grad_()
        y = x * 1.5
        return [y[1:, :2], w], (x, w), y

    before = aot_torch.stats["fallback_regions"]
    runs = []
    for fn in (f, torch.compile(f, backend="aot", fullgraph=False)):
        args, leaves, base = make_inputs()
        version = args[0]._version
        out = fn(*args)
        # The base sees the write, and a loss through it reaches both the
        # write and what the base held before.
        loss = sum((o * torch.arange(float(o.numel())).view(o.shape)).sum() for o in out)
        (loss + (base * base).sum()).backward()
        runs.append((out, args, leaves, base, args[0]._version - version))
    (e_out, e_args, e_leaves, e_base, e_bumped), (c_out, c_args, c_leaves, c_base, c_bumped) = runs
    assert aot_torch.stats["fallback_regions"] == before, "the region ran in PyTorch"
    if returns != "other":
        assert c_out[0] is c_args[0]
    for e, c in zip(e_out, c_out):
        torch.testing.assert_close(c.detach(), e.detach())
    torch.testing.assert_close(c_base.detach(), e_base.detach())
    assert type(c_base.grad_fn).__name__ == type(e_base.grad_fn).__name__ == "CopySlices"
    assert c_args[0]._base is c_base
    assert c_bumped > 0 and e_bumped > 0
    for e, c in zip(e_leaves, c_leaves):
        torch.testing.assert_close(c.grad, e.grad)


@pytest.mark.parametrize("op", ["vector_norm", "linspace", "index_fill_", "index_copy"])
@pytest.mark.parametrize("training", [False, True])
def test_composite_ops_upstream_compiles_compile_here(op, training):
    def f(x, s):
        if op == "vector_norm":
            return (torch.linalg.vector_norm(x, dim=1) * 2, torch.linalg.vector_norm(x, ord=3))
        if op == "linspace":
            return (x * torch.linspace(0, 1, 5), torch.logspace(0, 1, 5) + x)
        if op == "index_fill_":
            y = x.clone()
            y.index_fill_(1, torch.tensor([0, 2]), -1.0)
            return (y * 2, x.index_fill(0, torch.tensor([1]), 3.0))
        z = x.clone()
        z.index_copy_(0, torch.tensor([2]), s[:1, :1].expand(1, 5) * 1)
        return (x.index_copy(1, torch.tensor([3, 0]), s), z)

    def make_inputs():
        g = torch.Generator().manual_seed(31)
        x, s = torch.randn(3, 5, generator=g), torch.randn(3, 2, generator=g)
        return [x.requires_grad_(), s.requires_grad_()] if training else [x, s]

    before = aot_torch.stats["fallback_ops"] + aot_torch.stats["fallback_regions"]
    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    assert aot_torch.stats["fallback_ops"] + aot_torch.stats["fallback_regions"] == before, "ran in PyTorch"
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c.detach(), e.detach())
        assert c.stride() == e.stride()
    if training:
        ws = [torch.arange(float(o.numel())).view(o.shape) for o in eager]
        for out in (eager, compiled):
            sum((o * w).sum() for o, w in zip(out, ws)).backward()
        for e, c in zip(e_args, c_args):
            assert (c.grad is None) == (e.grad is None)
            if e.grad is not None:
                torch.testing.assert_close(c.grad, e.grad)


@pytest.mark.parametrize("layout", ["disjoint", "overlapping", "base_and_view", "duplicate"])
@pytest.mark.parametrize("written", ["first", "both"])
def test_written_views_of_one_activation_beside_each_other_are_compiled(layout, written):
    # Views of one activation passed on from an earlier graph, one of them
    # written in place (the fuzzer's most common fallback after single
    # written views compiled): a write through one reaches the others, so
    # their gradients meet in the storage. The compiled code takes them as
    # views of a differentiable base over `_base`'s storage and autograd
    # takes its gradient on into `_base`, as eager's CopySlices does.
    def f(a0, a1):
        a0.mul_(1.5)
        if written == "both":
            a1.add_(a0.sum())
        v = a1 * a1
        return (v.sum(0), a0 + 1)

    def make_inputs():
        g = torch.Generator().manual_seed(4)
        x = torch.randn(4, 3, generator=g).requires_grad_()
        y = x * 2.0
        if layout == "disjoint":
            args = [y[:2], y[2:]]
        elif layout == "overlapping":
            args = [y[:3], y[1:]]
        elif layout == "base_and_view":
            args = [y[1:], y.view(12)]
        else:
            args = [y[1:], y[1:]]
        return args, x, y

    before = aot_torch.stats["fallback_regions"]
    runs = []
    for fn in (f, torch.compile(f, backend="aot", fullgraph=False)):
        args, x, y = make_inputs()
        if layout == "duplicate":
            args[1] = args[0]
        out = fn(*args)
        w = [torch.arange(float(o.numel())).view(o.shape) for o in out]
        (sum((o * wi).sum() for o, wi in zip(out, w)) + (y * y).sum()).backward()
        runs.append((out, args, x, y))
    (e_out, e_args, e_x, e_y), (c_out, c_args, c_x, c_y) = runs
    if layout != "duplicate":
        assert aot_torch.stats["fallback_regions"] == before, "the region ran in PyTorch"
    for e, c in zip(e_out, c_out):
        torch.testing.assert_close(c.detach(), e.detach())
    torch.testing.assert_close(c_y.detach(), e_y.detach())
    for e, c in zip(e_args, c_args):
        torch.testing.assert_close(c.detach(), e.detach())
        assert c._base is c_y
    torch.testing.assert_close(c_x.grad, e_x.grad)


@pytest.mark.parametrize("op", ["as_strided", "as_strided_"])
def test_as_strided_of_a_view_of_an_argument_keeps_the_views_offset(op):
    # `as_strided` without a storage offset keeps its input's; for a view of
    # an argument the op was taken as of an unknown offset and ran in
    # PyTorch. (The translator reads the offset from the trace, which holds
    # one fake tensor per object: only where no other op changes metadata.)
    def f(a0):
        v = a0[1:]
        if op == "as_strided":
            return (v.as_strided((2, 2), (1, 2)) * 2, v + 1)
        v.as_strided_((3,), (2,))
        return (v + 1, a0 * 2)

    def make_inputs():
        return [torch.randn(5, 4, generator=torch.Generator().manual_seed(6))[1:]]

    before = dict(aot_torch.stats)
    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    for key in ("fallback_regions", "fallback_ops"):
        assert aot_torch.stats[key] == before.get(key, 0), "an op or a region ran in PyTorch"
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c.detach(), e.detach())
        assert c.stride() == e.stride() and c.storage_offset() == e.storage_offset()


def test_as_strided_of_a_written_intermediate_keeps_its_offset():
    # An in-place op's result on a fresh value, then `as_strided_` without an
    # offset (fuzz seed 2989): its layout is replayed from the fresh value's.
    def f(a0):
        v = (a0 * 2).masked_fill(a0 > 0, -1.0)
        w = v.add_(0.5)[1:]
        w.as_strided_((2,), (3,))
        return (w * 3, v)

    before = dict(aot_torch.stats)
    (eager, _), (compiled, _) = _both(f, lambda: [torch.randn(4, 3, generator=torch.Generator().manual_seed(2))])
    for key in ("fallback_regions", "fallback_ops"):
        assert aot_torch.stats[key] == before.get(key, 0), "an op or a region ran in PyTorch"
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c, e)


@pytest.mark.parametrize("grad", [False, True])
def test_a_whole_view_of_a_returned_intermediate_shares_its_storage(grad):
    # `v0[:]` views all of `v0`; functionalization folds the view away, and
    # the two outputs were one graph value returned twice, which the
    # runtime copied (fuzz seed 3312, with grad mode on and no argument
    # requiring grad).
    def f(a0):
        v0 = a0.cumsum(0)
        v1 = v0[:]
        return (v1, v0)

    with torch.set_grad_enabled(grad):
        (eager, _), (compiled, _) = _both(f, lambda: [torch.randn(3, generator=torch.Generator().manual_seed(1))])
    assert compiled[0]._base is compiled[1] and eager[0]._base is eager[1]
    compiled[1].add_(1.0)
    eager[1].add_(1.0)
    torch.testing.assert_close(compiled[0], eager[0])


@pytest.mark.parametrize("grad", [False, True])
def test_a_written_view_returned_beside_its_intermediate_shares_its_storage(grad):
    # The write makes the compiler fold the view into the product, so the
    # two outputs are no longer views of one value; eager's share `v`'s
    # storage, and with grad mode on (and nothing requiring grad) the
    # compiled ones came back in two storages.
    def f(a0):
        v = a0.sin()
        w = v[1:]
        w.mul_(2.0)
        return (w, v)

    with torch.set_grad_enabled(grad):
        (eager, _), (compiled, _) = _both(f, lambda: [torch.randn(3, 3, generator=torch.Generator().manual_seed(1))])
    assert compiled[0]._base is compiled[1] and eager[0]._base is eager[1]
    assert compiled[0].storage_offset() == eager[0].storage_offset() == 3
    compiled[1].add_(1.0)
    eager[1].add_(1.0)
    torch.testing.assert_close(compiled[0], eager[0])


@pytest.mark.parametrize("training", [False, True])
def test_the_elements_of_an_op_left_to_pytorch_stay_there(training):
    # `cummax` has no catalogue counterpart and runs in PyTorch; taking its
    # elements (`getitem`) in the next region made that region's input a
    # tuple, and the whole region ran in PyTorch too.
    def f(a0):
        v0 = a0 * 2
        values, indices = v0.cummax(1)
        return (values.tanh() + 1, indices * 2)

    def make_inputs():
        x = torch.randn(3, 4, generator=torch.Generator().manual_seed(9))
        return [x.requires_grad_() if training else x]

    before = dict(aot_torch.stats)
    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    assert aot_torch.stats["fallback_regions"] == before.get("fallback_regions", 0), "a region ran in PyTorch"
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c.detach(), e.detach())
    if training:
        eager[0].sum().backward()
        compiled[0].sum().backward()
        torch.testing.assert_close(c_args[0].grad, e_args[0].grad)


def test_written_views_of_one_activation_beside_each_other_compile_under_no_grad():
    # The same arguments as above in inference: the runtime refused them as
    # views that require grad without a differentiable base, though no
    # gradient is recorded (fuzz seed 2802's class).
    def f(a0, a1):
        a0.mul_(1.5)
        return ((a1 * a1).sum(0), a0 + 1)

    def make_inputs():
        x = torch.randn(4, 3, generator=torch.Generator().manual_seed(4)).requires_grad_()
        y = x * 2.0
        return [y[:3], y[1:]]

    before = aot_torch.stats["fallback_regions"]
    with torch.no_grad():
        (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    assert aot_torch.stats["fallback_regions"] == before, "the region ran in PyTorch"
    for e, c in zip(list(eager) + e_args, list(compiled) + c_args):
        torch.testing.assert_close(c, e)


_IN_PLACE = {
    "silu": lambda x: torch.nn.functional.silu(x, inplace=True),
    "relu6": lambda x: torch.nn.functional.relu6(x, inplace=True),
    "hardtanh": lambda x: torch.nn.functional.hardtanh(x, -0.5, 0.5, inplace=True),
    "hardswish": lambda x: torch.nn.functional.hardswish(x, inplace=True),
    "hardsigmoid": lambda x: torch.nn.functional.hardsigmoid(x, inplace=True),
    "mish": lambda x: torch.nn.functional.mish(x, inplace=True),
    "sin_": lambda x: x.sin_(),
    "abs_": lambda x: x.abs_(),
    "log1p_": lambda x: x.abs_().log1p_(),
    "pow_": lambda x: x.pow_(2),
}


@pytest.mark.parametrize("act", sorted(_IN_PLACE))
def test_an_in_place_op_whose_derivative_reads_its_input_trains_compiled(act):
    """Eager's in-place kernels whose derivative reads `self` (SiLU,
    Hardswish, ReLU6, `sin_`, ...) save a copy of it, so writing `self`
    leaves the backward valid: a model with an in-place activation after a
    batch norm trains. Computing such an op as its functional form on `self`
    and copying back made the IR's autograd model, and the decomposed ATen
    graph PyTorch ran on fallback, see the save as stale ("modified by an
    inplace operation"; torchvision's EfficientNet-B0 and MobileNetV2)."""

    def f(x, w, bias):
        y = torch.nn.functional.batch_norm(x @ w, None, None, training=True)
        y = _IN_PLACE[act](y)
        return (y.mean(0) + bias,)

    def make_inputs():
        g = torch.Generator().manual_seed(5)
        return [torch.randn(6, 4, generator=g), torch.randn(4, 3, generator=g).requires_grad_(),
                torch.randn(3, generator=g).requires_grad_()]

    before = aot_torch.stats["fallback_ops"] + aot_torch.stats["fallback_regions"]
    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    assert aot_torch.stats["fallback_ops"] + aot_torch.stats["fallback_regions"] == before, "ran in PyTorch"
    torch.testing.assert_close(compiled[0].detach(), eager[0].detach())
    for out in (eager, compiled):
        (out[0] * torch.arange(3.0)).sum().backward()
    for e, c in zip(e_args[1:], c_args[1:]):
        torch.testing.assert_close(c.grad, e.grad)


@pytest.mark.parametrize("act", ["relu6", "silu"])
def test_a_later_write_after_an_in_place_activation_that_saves_its_input_is_allowed(act):
    """The saved copy is not the tensor: writing the activation's result
    again later does not make eager's backward raise, nor aot's."""

    def f(x, w):
        y = x @ w * 1
        y = _IN_PLACE[act](y)
        y.mul_(2)
        return (y,)

    def make_inputs():
        g = torch.Generator().manual_seed(6)
        return [torch.randn(3, 4, generator=g), torch.randn(4, 2, generator=g).requires_grad_()]

    (eager, e_args), (compiled, c_args) = _both(f, make_inputs)
    for out in (eager, compiled):
        out[0].sum().backward()
    torch.testing.assert_close(c_args[1].grad, e_args[1].grad)


def test_in_place_activations_save_what_eager_saves():
    """The in-place activations decomposed as their functional form on a
    copy are exactly those whose eager derivative reads the original `self`
    (a saved copy); those that save their result are left to PyTorch, since
    a later write of the result must make the backward raise."""
    from aot_torch import fx_ir

    aten = torch.ops.aten
    scalars = {"hardtanh": (-0.5, 0.5)}
    for name in fx_ir.INPLACE_SAVING_SELF:
        x = torch.randn(4, requires_grad=True) * 1
        y = getattr(aten, name + "_").default(x, *scalars.get(name, ()))
        saved = [a for a in dir(y.grad_fn) if a.startswith("_saved_")]
        assert "_saved_self" in saved and "_saved_result" not in saved, (name, saved)
        assert fx_ir.DECOMPOSITIONS[getattr(aten, name + "_").default].__qualname__.startswith("_inplace_on_a_copy")
    for name in ("elu", "leaky_relu", "celu"):
        x = torch.randn(4, requires_grad=True) * 1
        y = getattr(aten, name + "_").default(x)
        assert hasattr(y.grad_fn, "_saved_result"), name
        assert getattr(aten, name + "_").default not in fx_ir.DECOMPOSITIONS


@pytest.mark.parametrize("partition", ["default", "min-cut"])
def test_an_output_left_out_of_the_loss_adds_nothing_to_the_gradients(partition):
    """Log-probabilities kept for logging, `log` of exact zeros: the loss
    does not use them, PyTorch's engine never runs their derivative, and
    the weights' gradient is finite. Compiled, the missing tangent was
    zeros, and `0 * -inf` made every gradient nan; the backward is now
    specialised for the outputs no gradient reached."""

    def f(x, w):
        h = x @ w
        p = torch.softmax(h, -1) * (h > 0)
        return h.square().sum(), torch.log(p)

    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(1))
    grads = []
    for fn in (f, torch.compile(f, backend="aot", options={"partition": partition})):
        w = torch.randn(3, 5, generator=torch.Generator().manual_seed(0)).requires_grad_()
        for _ in range(2):  # the specialised backward is reused
            loss, logp = fn(x, w)
            assert torch.isinf(logp).any()
            loss.backward()
        grads.append(w.grad)
    assert torch.isfinite(grads[1]).all()
    torch.testing.assert_close(grads[1], grads[0])


@pytest.mark.parametrize("partition", ["default", "min-cut"])
def test_saved_arguments_are_shared_only_where_eager_saves_them(partition):
    """The compiled forward keeps a weight its backward reads as the
    weight's own memory, not a copy (a copy of every weight was a third of
    a CNN's training forward). Writing it before the backward then raises
    PyTorch's error, as eager's does, since eager's `mm` saved it too. An
    input eager does not save (it saved `x * 2`, the min-cut partition may
    keep `x` and recompute) may be written: the backward gets a copy."""
    def f(x, w):
        return ((x * 2) @ w).tanh().sum()

    run = torch.compile(f, backend=aot_torch.backend(partition=partition))
    for call in (f, run):
        x = torch.randn(4, 3, requires_grad=True)
        w = torch.randn(3, 2, requires_grad=True)
        loss = call(x, w)
        with torch.no_grad():
            w.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()

    def g(a, b):
        return ((a * 2).sin() * b).sum()

    run = torch.compile(g, backend=aot_torch.backend(partition=partition))
    grads = []
    for call in (g, run):
        gen = torch.Generator().manual_seed(0)
        base = torch.randn(5, generator=gen).requires_grad_()
        a = base * 1  # a non-leaf: it may be written after the call
        b = torch.randn(5, generator=gen)
        loss = call(a, b)
        with torch.no_grad():
            a.zero_()
        loss.backward()
        grads.append(base.grad)
    assert torch.allclose(grads[0], grads[1]), grads


@pytest.mark.parametrize("partition", ["default", "min-cut"])
def test_a_written_saved_argument_raises_only_where_the_backward_reads_it(partition):
    """Eager's backward unpacks a saved tensor only in the derivatives it
    runs: `x * w` saves `x`, but a loss on `w.sin()` alone never runs the
    product's, and writing `x` after the call is fine. The compiled region
    is one autograd node that differentiates both; it raised. It now raises
    where eager's backward would, for the gradients that reach it."""
    def f(x, w):
        return x * w, w.sin()

    run = torch.compile(f, backend=aot_torch.backend(partition=partition))
    for which, raises in ((1, False), (0, True)):
        grads = []
        for call in (f, run):
            x = torch.randn(3, requires_grad=True)
            w = torch.randn(3, generator=torch.Generator().manual_seed(0)).requires_grad_()
            outs = call(x, w)
            with torch.no_grad():
                x.add_(1.0)
            if raises:
                with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                    outs[which].sum().backward()
            else:
                outs[which].sum().backward()
                grads.append(w.grad)
        if grads:
            torch.testing.assert_close(grads[1], grads[0])


@pytest.mark.parametrize("partition", ["default", "min-cut"])
def test_a_written_argument_the_compiled_backward_reads_never_gives_a_wrong_gradient(partition):
    """`sigmoid` saves its result and `sin` its input: with only the
    sigmoid's output in the loss, eager's backward reads no save of `x`,
    and writing `x` after the call changes nothing. The compiled backward
    may read `x` where eager reads the result (a partition that recomputes
    the sigmoid): then it cannot give eager's answer, and raises PyTorch's
    error instead of differentiating at the new value."""
    def f(x):
        return torch.sigmoid(x), x.sin()

    run = torch.compile(f, backend=aot_torch.backend(partition=partition))
    grads = []
    for call in (f, run):
        x = torch.randn(4, generator=torch.Generator().manual_seed(0)).requires_grad_()
        y, _ = call(x)
        with torch.no_grad():
            x.mul_(3.0)
        try:
            y.sum().backward()
        except RuntimeError as e:
            assert call is run and "modified by an inplace operation" in str(e)
            continue
        grads.append(x.grad)
    if len(grads) == 2:
        torch.testing.assert_close(grads[1], grads[0])


def _write_both_ways(write):
    """Runs `a = randn(3, 3); <write>; return (a * 2,)` eagerly and compiled,
    asserts the outputs and `a` agree, and returns how many regions fell back
    to PyTorch."""
    scope = {"torch": torch}
    exec("def f(a):\n    %s\n    return (a * 2,)\n" % write, scope)
    before = aot_torch.stats["fallback_regions"]
    (eager, e_args), (compiled, c_args) = _both(
        scope["f"], lambda: [torch.randn(3, 3, generator=torch.Generator().manual_seed(5))])
    fallbacks = aot_torch.stats["fallback_regions"] - before
    torch.testing.assert_close(compiled[0], eager[0])
    torch.testing.assert_close(c_args[0], e_args[0])
    return fallbacks


@pytest.mark.parametrize("write", [
    "a.sub_(a[:, :1])",          # a column broadcast over the rows it is in
    "a[:, 1:].copy_(a[:, :-1])",  # columns shifted: read after written
    "a[:, :2].mul_(a[:2].t())",  # a transpose of the block written
    "a[0].add_(a[:, 1])",        # a row from a column that crosses it elsewhere
    "a.as_strided((3, 3), (2, 1)).mul_(2)",  # rows that overlap: shared elements visited twice
])
def test_an_in_place_op_reading_its_destination_elsewhere_runs_as_eager(write):
    """An in-place op that reads elements of its destination at other
    positions than it writes them: eager's kernel reads some before and
    some after writing them, so its values depend on the order it visits
    memory (fuzz seeds 8183, 14736, 16605, 18073); so does one writing a
    view that reaches an element at several positions (20995). Such a
    region runs in PyTorch and gives eager's values."""
    fallbacks = _write_both_ways(write)
    assert fallbacks == 1, "compiled: its values need eager's kernel order"


@pytest.mark.parametrize("write", [
    "a.mul_(a)",                 # each element read where it is written
    "a[:, 1:].mul_(a[:, 1:])",   # the same view, made twice
    "a[0].add_(a[1])",           # disjoint rows
    "a[:, 0].sub_(a[:, 2])",     # disjoint columns, whose extents interleave
    "a[::2].add_(a[1::2][:1])",  # interleaved rows, broadcast
    "a.add_(a.sum(0))",          # a fresh operand
    "a[0].add_(a[:, 0])",        # a column that crosses the row at its own position
    "a.as_strided((2, 3), (4, 1)).mul_(2)",  # rows apart: no element reached twice
])
def test_an_in_place_op_reading_only_its_own_positions_compiles(write):
    """Reads of other memory, or of each element at its own position, do
    not depend on eager's order: the region compiles, with eager's values."""
    fallbacks = _write_both_ways(write)
    assert fallbacks == 0, "the region ran in PyTorch"


def test_writes_the_graph_shows_apart_need_no_run_on_fake_tensors(monkeypatch):
    """The overlap probe runs the region on fake tensors only where the
    graph cannot show that an in-place op's operands are apart: a running
    statistic updated from a batch's (a fresh value: another storage) is
    decided from the graph, as a batch norm's is at every compile; a write
    reading a view of its own destination runs the probe (and the region
    in PyTorch)."""
    import sys
    backend = sys.modules["aot_torch.backend"]
    runs = []
    real_run = backend._OrderProbe.run

    def counted(self, *args):
        runs.append(1)
        return real_run(self, *args)

    monkeypatch.setattr(backend._OrderProbe, "run", counted)

    def update(r, x):
        r.mul_(0.9).add_(x.mean(0), alpha=0.1)
        return (x * 2,)

    (eager, e_args), (compiled, c_args) = _both(update, lambda: [torch.zeros(4), torch.arange(12.0).view(3, 4)])
    assert runs == [], "a write from a fresh value ran the probe"
    torch.testing.assert_close(c_args[0], e_args[0])

    def shifted(a):
        a -= a[:, :1]
        return (a * 2,)

    (eager, e_args), (compiled, c_args) = _both(shifted, lambda: [torch.arange(9.0).view(3, 3)])
    assert runs == [1], "a write reading its own destination did not run the probe"
    torch.testing.assert_close(c_args[0], e_args[0])
