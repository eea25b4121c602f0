"""The native dispatcher (`_native.Dispatch`) the backend hands Dynamo: once
a graph's plain inference variant has run, calls with its key are read,
bound, run and returned natively. Every test compares with eager, checks
that the native path took the calls it should (`FastTable.hits`) and left
the others to the Python dispatcher."""

import importlib

import pytest
import torch

backend = importlib.import_module("aot_torch.backend")
_native = backend._native


def _compiled(fn, *example, **options):
    """What `torch.compile(fn, backend="aot")` would hand Dynamo for `fn`'s
    graph (traced here with FX, so that the test calls it directly)."""
    gm = torch.fx.symbolic_trace(fn)
    d = backend.backend(**options)(gm, list(example))
    assert isinstance(d, _native.Dispatch)
    return d


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
        assert a.requires_grad == b.requires_grad
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    else:
        assert a == b


def _pair(a):
    return a * 2 + 1, a.abs() - a


def test_inference_calls_take_the_native_path():
    d = _compiled(_pair, torch.randn(8))
    fast = d.graph.fast
    with torch.no_grad():
        for k in range(6):
            x = torch.randn(8)
            _same(list(_pair(x)), d(x))
    # The first call traces and compiles, the second registers the variant.
    assert len(fast) == 1 and fast.hits == 4


def test_each_key_selects_its_own_variant():
    d = _compiled(_pair, torch.randn(8))
    fast = d.graph.fast
    args = [torch.randn(8), torch.randn(3, 5), torch.randn(5, 3).t(), torch.randn(8, dtype=torch.float64),
            torch.randn(17)[1:9], torch.randn(4, 4)[:, 1]]
    with torch.no_grad():
        for _ in range(3):
            for x in args:
                _same(list(_pair(x)), d(x))
        assert len(fast) == len(args)
        assert fast.hits == len(args)
        # A key the table has, then one it does not: the second is not taken.
        hits = fast.hits
        d(torch.randn(8))
        d(torch.randn(9))
        assert fast.hits == hits + 1


def test_number_arguments_keep_their_type_and_value():
    def f(x, a):
        return (x * a,)

    d = _compiled(f, torch.arange(4), 2.0)
    x = torch.arange(4)
    with torch.no_grad():
        for _ in range(3):
            # 2 == 2.0 == True in Python; the results' dtypes differ.
            for a in (2.0, 2, True, 3.0, 2.0):
                _same(list(f(x, a)), d(x, a))
    assert d.graph.fast.hits > 0


def test_results_get_eager_strides():
    def f(x):
        return (x.abs() + 1, x.t() * 2)

    x = torch.randn(6, 4).t()
    d = _compiled(f, x)
    with torch.no_grad():
        for _ in range(4):
            x = torch.randn(6, 4).t()
            _same(list(f(x)), d(x))
        x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
        g = _compiled(lambda x: (torch.relu(x) * 3,), x)
        for _ in range(4):
            _same([torch.relu(x) * 3], g(x))


def test_written_arguments_and_their_versions():
    def f(x, y):
        x.add_(1)
        return (y * 2,)

    d = _compiled(f, torch.zeros(4), torch.ones(4))
    x, y = torch.zeros(4), torch.ones(4)
    ex, ey = torch.zeros(4), torch.ones(4)
    with torch.no_grad():
        for _ in range(5):
            _same(list(f(ex, ey)), d(x, y))
            _same(x, ex)
            assert x._version == ex._version
    assert d.graph.fast.hits >= 3


def test_index_errors_raise_as_in_eager():
    def f(x, i):
        return (torch.index_select(x, 0, i),)

    x = torch.randn(5, 3)
    d = _compiled(f, x, torch.tensor([0, 4]))
    with torch.no_grad():
        for _ in range(3):
            i = torch.tensor([1, 3])
            _same(list(f(x, i)), d(x, i))
        assert d.graph.fast.hits > 0
        with pytest.raises(IndexError):
            f(x, torch.tensor([0, 5]))
        with pytest.raises(IndexError):
            d(x, torch.tensor([0, 5]))
        i = torch.tensor([2, 0])
        _same(list(f(x, i)), d(x, i))


def test_grad_mode_is_part_of_the_entry():
    w = torch.randn(4, requires_grad=True)
    d = _compiled(_pair, w)
    with torch.no_grad():
        for _ in range(3):
            _same(list(_pair(w)), d(w))
    hits = d.graph.fast.hits
    assert hits > 0
    # With grad on, the same tensor is a training call: a result with a
    # history, from the Python dispatcher.
    out = d(w)
    assert out[0].grad_fn is not None
    out[0].sum().backward()
    torch.testing.assert_close(w.grad, torch.full((4,), 2.0))
    assert d.graph.fast.hits == hits


def test_lifted_attributes_follow_the_arguments():
    # What `_lift_attributes` gives the dispatcher: tensors passed after the
    # caller's arguments, the same objects at every call.
    def f(x, b):
        return (x + b,)

    b = torch.randn(4)
    gm = torch.fx.symbolic_trace(f)
    table = _native.FastTable()
    graph = backend.CompiledGraph(gm, backend.Config(), "lifted")
    graph.fast = table
    d = _native.Dispatch(graph, table, [b], backend._index_error)
    with torch.no_grad():
        for _ in range(4):
            x = torch.randn(4)
            _same([x + b], d(x))
        b.add_(1)
        x = torch.randn(4)
        _same([x + b], d(x))
    assert table.hits >= 2


def test_profiling_calls_go_to_the_python_dispatcher():
    d = _compiled(_pair, torch.randn(8))
    with torch.no_grad():
        for _ in range(3):
            d(torch.randn(8))
        hits = d.graph.fast.hits
        was = _native.set_profiling(True)
        try:
            x = torch.randn(8)
            _same(list(_pair(x)), d(x))
        finally:
            _native.set_profiling(was)
        assert d.graph.fast.hits == hits


def test_through_torch_compile():
    torch._dynamo.reset()
    f = torch.compile(_pair, backend="aot")
    with torch.no_grad():
        for n in (8, 8, 8, 5, 5, 8):
            x = torch.randn(n)
            _same(_pair(x), f(x))


def test_native_dispatch_off():
    gm = torch.fx.symbolic_trace(_pair)
    d = backend.backend(native_dispatch=False)(gm, [torch.randn(8)])
    with torch.no_grad():
        for _ in range(4):
            x = torch.randn(8)
            _same(list(_pair(x)), d(x))
    assert d.graph.fast is None


def test_symbolic_sizes_register_per_size():
    def f(x):
        return x.t() * 2 + 1, x.amax(0)

    torch._dynamo.reset()
    cf = torch.compile(f, backend="aot", dynamic=True)
    sizes = [(3, 5), (4, 6), (7, 2), (3, 5), (4, 6), (7, 2), (4, 6), (9, 9)]
    with torch.no_grad():
        for _ in range(3):
            for n, m in sizes:
                x = torch.randn(n, m)
                _same(list(f(x)), list(cf(x)))
    assert backend.stats["symbolic_graphs"] > 0
    assert any(t.hits > 0 for t in gc_tables())


def gc_tables():
    """The fast tables of the compiled graphs alive now."""
    import gc
    return [o.fast for o in gc.get_objects() if type(o) is backend.CompiledGraph and o.fast is not None]


def test_a_table_keeps_its_latest_entries():
    cap = _native.FastTable.capacity
    d = _compiled(_pair, torch.randn(2), recompile_limit=2 * cap)
    with torch.no_grad():
        for n in range(1, cap + 6):
            x = torch.randn(n)
            for _ in range(2):
                _same(list(_pair(x)), d(x))
        assert len(d.graph.fast) == cap
        hits = d.graph.fast.hits
        d(torch.randn(cap + 5))   # the newest is kept
        assert d.graph.fast.hits == hits + 1
        d(torch.randn(1))         # the oldest went
        assert d.graph.fast.hits == hits + 1


def _variants(d):
    return [v for region in d.graph.regions.values() for v in region.variants.values() if v is not None]


def test_plain_training_calls_take_the_lean_path():
    # A training variant that writes no argument and whose results alias
    # nothing runs only its autograd node (`_Variant.lean`); its results,
    # gradients and version checks are eager's, over several steps and a
    # retained graph.
    def f(a, w):
        return a * w, a + w

    p = torch.randn(6, requires_grad=True)
    w = torch.randn(6, requires_grad=True)
    d = _compiled(f, p * 1, w)
    ep, ew = p.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    for step in range(4):
        a, ea = p * 1.5, ep * 1.5
        out, eout = d(a, w), list(f(ea, ew))
        _same(eout, out)
        keep = step == 2
        (out[0] + out[1]).sum().backward(retain_graph=keep)
        (eout[0] + eout[1]).sum().backward(retain_graph=keep)
        if keep:
            out[1].sum().backward()
            eout[1].sum().backward()
        _same(ep.grad, p.grad)
        _same(ew.grad, w.grad)
    assert [v.lean for v in _variants(d)] == [True]
    # `mul` saved `a`: writing it before the backward raises as in eager,
    # with eager's message.
    a, ea = p * 1.5, ep * 1.5
    out, eout = d(a, w), f(ea, ew)
    with torch.no_grad():
        a.mul_(2)
        ea.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as eager_error:
        eout[0].sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as error:
        out[0].sum().backward()
    assert str(error.value) == str(eager_error.value)


def test_lean_training_results_get_eager_strides():
    # A channels-last result the runtime lays out otherwise leaves the
    # lean path for the whole epilogue, which gives it eager's strides.
    def f(x):
        return (torch.relu(x) * 3,)

    x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last).requires_grad_()
    ex = x.detach().clone().requires_grad_()
    d = _compiled(f, x)
    for _ in range(3):
        out, eout = d(x), list(f(ex))
        _same(eout, out)
        out[0].sum().backward()
        eout[0].sum().backward()
        _same(ex.grad, x.grad)
    assert [v.lean for v in _variants(d)] == [True]


def test_a_written_save_raises_eagers_message():
    # Eager names the node that output a saved tensor, and no node for a
    # leaf; the hint is this PyTorch's own.
    def f(a, w):
        return (torch.sin(a) * w,)

    p = torch.randn(5, requires_grad=True)
    w = torch.randn(5, requires_grad=True)
    d = _compiled(f, p.cos(), w)
    for write in ("a", "w"):
        a = p.cos()
        out, eout = d(a, w), f(a, w)
        with torch.no_grad():
            (a if write == "a" else w).add_(1)
        with pytest.raises(RuntimeError) as eager_error:
            eout[0].sum().backward()
        with pytest.raises(RuntimeError) as error:
            out[0].sum().backward()
        assert str(error.value) == str(eager_error.value)
        with torch.no_grad():
            (a if write == "a" else w).sub_(1)
