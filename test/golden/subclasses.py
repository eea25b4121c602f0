"""Tensor subclasses for the goldens: the module's `aot.subclass` declarations
as Python wrapper subclasses, and their JSON (docs/reference/json.md).

`@TwoTensor {inner = ["a", "b"]}` is PyTorch's own
`torch.testing._internal.two_tensor.TwoTensor`, so the goldens of the
subclass corpus come from the class upstream AOTAutograd is tested with.
Any other declaration (more components, nested classes, constant
metadata) becomes a generic wrapper subclass written here in the same
style: `__torch_dispatch__` runs the op once per component, in declaration
order, with dense operands shared, and wraps tensor results;
`__tensor_flatten__` returns the inner names and the constant metadata.

`aot.subclass_wrap` / `aot.subclass_unwrap` are autograd functions: the
gradient of a wrap is the output gradient's components (a dense gradient
is used for every component), the gradient of an unwrap is the subclass of
the component gradients (zeros for unused ones).
"""

import torch
import torch.utils._pytree as pytree
from torch.testing._internal.two_tensor import TwoTensor
from torch.utils._python_dispatch import return_and_correct_aliasing


def _generic_class(name, inner, meta, inner_classes):
    class Sub(torch.Tensor):
        INNER = tuple(inner)
        META = meta
        INNER_CLASSES = tuple(inner_classes)

        @staticmethod
        def __new__(cls, *comps, outer_size=None, outer_stride=None):
            a = comps[0]
            return torch.Tensor._make_wrapper_subclass(
                cls,
                a.size() if outer_size is None else outer_size,
                strides=a.stride() if outer_stride is None else outer_stride,
                storage_offset=a.storage_offset(),
                device=a.device,
                layout=a.layout,
                requires_grad=a.requires_grad,
                dtype=a.dtype,
            )

        def __init__(self, *comps, outer_size=None, outer_stride=None):
            if len(comps) != len(self.INNER):
                raise AssertionError("@%s takes %d inner tensors" % (name, len(self.INNER)))
            for n, c in zip(self.INNER, comps):
                setattr(self, n, c)

        def __repr__(self):
            return "%s(%s)" % (name, ", ".join(repr(getattr(self, n)) for n in self.INNER))

        def __tensor_flatten__(self):
            return list(self.INNER), self.META

        @staticmethod
        def __tensor_unflatten__(inner_tensors, m, outer_size, outer_stride):
            return Sub(*[inner_tensors[n] for n in Sub.INNER], outer_size=outer_size, outer_stride=outer_stride)

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            kwargs = kwargs or {}
            outs = []
            for n in cls.INNER:
                args_n = pytree.tree_map_only(cls, lambda x: getattr(x, n), args)
                kwargs_n = pytree.tree_map_only(cls, lambda x: getattr(x, n), kwargs)
                outs.append(func(*args_n, **kwargs_n))
            flat0, spec = pytree.tree_flatten(outs[0])
            flats = [pytree.tree_leaves(o) for o in outs]
            combined = [
                cls(*[f[k] for f in flats]) if isinstance(flat0[k], torch.Tensor) else flat0[k]
                for k in range(len(flat0))
            ]
            return return_and_correct_aliasing(func, args, kwargs, pytree.tree_unflatten(combined, spec))

    Sub.__name__ = name
    Sub.__qualname__ = name
    return Sub


def classes_for(decls):
    """Python classes for the module's declarations {name: attrs}."""
    out = {}
    for name, attrs in decls.items():
        inner = list(attrs.get("inner", []))
        inner_classes = list(attrs.get("inner_classes", [""] * len(inner)))
        meta = attrs.get("meta")
        if name == "TwoTensor" and inner == ["a", "b"] and not any(inner_classes) and meta is None:
            out[name] = TwoTensor
        else:
            out[name] = _generic_class(name, inner, meta, inner_classes)
    return out


def components(x):
    return [getattr(x, n) for n in (["a", "b"] if type(x) is TwoTensor else type(x).INNER)]


class _Wrap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, cls, *comps):
        ctx.n = len(comps)
        return cls(*[c.detach() for c in comps])

    @staticmethod
    def backward(ctx, g):
        if is_subclass(g):
            return (None, *components(g))
        return (None, *([g] * ctx.n))


class _Unwrap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.cls = type(x)
        ctx.like = [c.detach() for c in components(x)]
        return tuple(c.detach() for c in components(x))

    @staticmethod
    def backward(ctx, *gs):
        gs = [torch.zeros_like(l) if g is None else g for g, l in zip(gs, ctx.like)]
        return ctx.cls(*gs)


def is_subclass(x):
    return isinstance(x, torch.Tensor) and type(x) is not torch.Tensor and hasattr(type(x), "__tensor_flatten__")


def wrap(cls, comps):
    if any(c.requires_grad for c in comps):
        return _Wrap.apply(cls, *comps)
    return cls(*comps)


def unwrap(x):
    if x.requires_grad:
        return list(_Unwrap.apply(x))
    return components(x)
