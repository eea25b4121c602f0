"""The keys compiled graphs and regions are cached under (`_native.graph_key`,
`backend._convention_key`): two calls get one key exactly when everything
a compiled variant is specialised to agrees."""

import importlib

import torch

backend = importlib.import_module("aot_torch.backend")
_native = backend._native


def _key(*args):
    return backend._convention_key(list(args))[0]


def test_same_facts_same_key():
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    assert _key(a, 2) == _key(b, 2)
    assert _native.graph_key([a, 2]) == _native.graph_key([b, 2])


def test_each_fact_changes_the_key():
    a = torch.randn(3, 4)
    base = _key(a)
    variants = [
        torch.randn(3, 4, dtype=torch.float64),   # dtype
        torch.randn(4, 3),                        # sizes
        torch.randn(4, 3).t(),                    # strides
        torch.randn(13)[1:].view(3, 4),           # storage offset
        torch.randn(3, 4).requires_grad_(),       # requires_grad
        torch.randn(3, 4).requires_grad_() * 1,   # not a leaf
    ]
    keys = {base} | {_key(v) for v in variants}
    assert len(keys) == len(variants) + 1


def test_aliasing_is_part_of_the_key():
    s = torch.randn(8)
    x, y = torch.randn(4), torch.randn(4)
    apart = _key(x, y)
    shared = _key(s[:4], s[4:])       # one storage, one `_base`
    same = _key(x, x)                 # one object twice
    assert len({apart, shared, same}) == 3


def test_views_from_different_bases_of_one_storage():
    s = torch.randn(8)
    d = s.detach()                    # same storage, its own autograd identity
    assert _key(s[:4], s[4:]) != _key(s[:4], d[4:])


def test_regenerable_views():
    a = torch.randn(3, 3, requires_grad=True) * 1
    plain = a[1]
    multi = a.unbind(0)[1]
    with torch.no_grad():
        no_grad = a[1]
    keys = {_key(a, plain), _key(a, multi), _key(a, no_grad)}
    assert len(keys) == 3


def test_values_keep_their_type():
    a = torch.randn(2)
    assert len({_key(a, 1), _key(a, 1.0), _key(a, True), _key(a, 2)}) == 4
    assert len({_native.graph_key([a, 1]), _native.graph_key([a, 1.0]), _native.graph_key([a, True])}) == 3


def test_grad_mode_is_part_of_the_key():
    a = torch.randn(2)
    with torch.no_grad():
        off = _key(a)
    assert off != _key(a)


def test_graph_key_has_strides_not_offsets():
    # A trace records eager's result layouts, which follow the arguments'
    # strides; offsets and aliasing pick the variant.
    assert _native.graph_key([torch.randn(4, 3).t()]) != _native.graph_key([torch.randn(3, 4)])
    assert _native.graph_key([torch.randn(3, 4)]) != _native.graph_key([torch.randn(4, 3)])
    assert _native.graph_key([torch.randn(13)[1:].view(3, 4)]) == _native.graph_key([torch.randn(3, 4)])


def test_many_arguments_keep_their_aliasing():
    # Past the first few arguments the key's maps by address hash.
    ts = [torch.randn(4) for _ in range(20)]
    us = [torch.randn(4) for _ in range(20)]
    s, r = torch.randn(8), torch.randn(8)
    assert _key(*ts, ts[15]) == _key(*us, us[15])
    assert _key(*ts, ts[15]) != _key(*ts, ts[14])
    assert _key(*ts, ts[15]) != _key(*ts, torch.randn(4))
    assert _key(*ts, s[:4], s[4:]) == _key(*us, r[:4], r[4:])
    assert _key(*ts, s[:4], s[4:]) != _key(*ts, s[:4], r[4:])
