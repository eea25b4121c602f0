"""PyTorch's functional collectives (`torch.distributed._functional_collectives`,
the ops DTensor and tensor parallelism issue) compiled through
torch.compile(backend="aot") as the `dist` dialect: several CPU processes
(gloo on loopback), each running the compiled program and eager side by
side, must agree on every output, gradient and training step, with
nothing running in PyTorch (no fallback op or region): every collective,
a tensor-parallel MLP, and sequence parallelism around one (gathers and
scatters along the sequence dimension, a layer norm on each slice)."""

import os
import socket

import pytest

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torch.multiprocessing as mp
from models import ResidualMLP


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_main(rank, world, port, out_dir, body, *args):
    """One rank of a test: one thread, the gloo group on loopback,
    `body(rank, world, *args)`, whose result is saved for the test."""
    torch.set_num_threads(1)
    os.environ["AOT_NUM_THREADS"] = "1"
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=world)
    try:
        out = body(rank, world, *args)
        dist.barrier()
        torch.save(out, os.path.join(out_dir, "rank%d.pt" % rank))
    finally:
        dist.destroy_process_group()


def _run_ranks(body, world, tmp_path, *args):
    """`body` on `world` processes (`_rank_main`): their results, by rank."""
    mp.spawn(_rank_main, args=(world, _free_port(), str(tmp_path), body) + args, nprocs=world, join=True)
    return [torch.load(tmp_path / ("rank%d.pt" % rank), weights_only=False) for rank in range(world)]


def _collectives(x, w, group):
    import torch.distributed._functional_collectives as funcol

    h = x @ w
    s = funcol.all_reduce(h, "sum", group)
    a = funcol.all_reduce(torch.tanh(s), "avg", group)
    g = funcol.all_gather_tensor(torch.relu(a), 0, group)
    r = funcol.reduce_scatter_tensor(g * 3.0, "sum", 0, group)
    t = funcol.all_to_all_single(r, None, None, group)
    return (t * t).sum() + g.sum()


def _broadcast(x, group):
    import torch.distributed._functional_collectives as funcol

    return funcol.broadcast(x + 1.0, 1, group) * 2.0


def _tensor_parallel_step(model, x, y, world, group):
    """A two-layer MLP split by hand as tensor parallelism does it: the
    first linear by columns (each rank holds hidden/world of its rows),
    the second by rows; the partial outputs all-reduced."""
    import torch.distributed._functional_collectives as funcol

    w1, b1, w2 = model
    h = torch.relu(x @ w1.t() + b1)
    part = h @ w2.t()
    out = funcol.all_reduce(part, "sum", group)
    return ((out - y) ** 2).mean()


def _sequence_parallel_step(params, x, y, group):
    """Sequence parallelism around a tensor-parallel MLP, as Megatron
    arranges it: each rank holds a slice of the sequence (dimension 1),
    layer-normalizes it, all-gathers the sequence before the column-split
    linear, and reduce-scatters the row-split linear's partial outputs back
    into sequence slices."""
    import torch.distributed._functional_collectives as funcol

    lw, lb, w1, w2 = params
    h = torch.nn.functional.layer_norm(x, (x.shape[-1],), lw, lb)
    full = funcol.all_gather_tensor(h, 1, group)
    part = torch.nn.functional.gelu(full @ w1.t()) @ w2.t()
    out = funcol.reduce_scatter_tensor(part, "sum", 1, group) + x
    return ((out - y) ** 2).mean()


def _train_side_by_side(fn, shards, batches, *extra):
    """SGD steps of `fn(params, x, y, *extra)` compiled with aot and in
    eager, each from its own copy of `shards`: the losses per step (compiled,
    eager) and both sets of parameters after the last step."""
    model = [p.clone().requires_grad_(True) for p in shards]
    ref = [p.clone().requires_grad_(True) for p in shards]
    step = torch.compile(fn, backend="aot")
    losses = []
    for xb, yb in batches:
        pair = []
        for params, f in ((model, step), (ref, fn)):
            loss = f(params, xb, yb, *extra)
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p -= 0.1 * p.grad
                    p.grad = None
            pair.append(loss.detach())
        losses.append(pair)
    return losses, [p.detach() for p in model], [p.detach() for p in ref]


def _worker(rank, world):
    import aot_torch

    group = dist.group.WORLD
    torch._dynamo.reset()
    aot_torch.stats.clear()
    out = {}
    torch.manual_seed(rank)
    x = torch.randn(4 * world, 6)
    w = torch.randn(6, 4 * world, requires_grad=True)
    we = w.detach().clone().requires_grad_(True)
    f = torch.compile(_collectives, backend="aot")
    got, want = f(x, w, group), _collectives(x, we, group)
    got.backward()
    want.backward()
    out["collectives"] = (got.detach(), want.detach(), w.grad, we.grad)
    b = torch.compile(_broadcast, backend="aot")
    out["broadcast"] = (b(x, group), _broadcast(x, group))

    torch.manual_seed(0)
    hidden = 8 * world
    full = [torch.randn(hidden, 6) * 0.3, torch.randn(hidden) * 0.1, torch.randn(3, hidden) * 0.3]
    rows = slice(rank * hidden // world, (rank + 1) * hidden // world)
    shards = [full[0][rows], full[1][rows], full[2][:, rows]]
    g = torch.Generator().manual_seed(7)
    batches = [(torch.randn(5, 6, generator=g), torch.randn(5, 3, generator=g)) for _ in range(4)]
    out["tp"] = _train_side_by_side(_tensor_parallel_step, shards, batches, world, group)

    # Sequence parallelism: batch 3, 2 sequence positions per rank,
    # width 6, hidden 4 per rank.
    torch.manual_seed(1)
    sp_full = [torch.ones(6), torch.zeros(6), torch.randn(4 * world, 6) * 0.3, torch.randn(6, 4 * world) * 0.3]
    cols = slice(rank * 4, (rank + 1) * 4)
    sp_shard = [sp_full[0], sp_full[1], sp_full[2][cols], sp_full[3][:, cols]]
    batches = [(torch.randn(3, 2, 6, generator=g), torch.randn(3, 2, 6, generator=g)) for _ in range(3)]
    out["sp"] = _train_side_by_side(_sequence_parallel_step, sp_shard, batches, group)
    out["stats"] = dict(aot_torch.stats)
    return out


@pytest.mark.heavy
@pytest.mark.parametrize("world", [2, 4])
def test_functional_collectives_compile_and_match_eager(tmp_path, world):
    for r in _run_ranks(_worker, world, tmp_path):
        st = r["stats"]
        assert st.get("compiled", 0) >= 3 and not st.get("fallback_regions") and not st.get("fallback_ops"), st
        got, want, gw, we = r["collectives"]
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(gw, we, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(*r["broadcast"])
        for program in ("tp", "sp"):
            losses, params, ref = r[program]
            for a, b in losses:
                torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
            for p, q in zip(params, ref):
                torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)


def _full(t):
    """A DTensor's whole value (a plain tensor as it is)."""
    from torch.distributed.tensor import DTensor

    return t.full_tensor() if isinstance(t, DTensor) else t


def _sgd_side_by_side(compiled, model, ref, batches, after_backward=None):
    """SGD steps of `compiled` (over `model`) and of `ref` on the mean
    square of their outputs: the losses per step (compiled, eager);
    `after_backward(step)` runs after each step's backwards."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    losses = []
    for step, x in enumerate(batches):
        loss = compiled(x).pow(2).mean()
        loss.backward()
        want = ref(x).pow(2).mean()
        want.backward()
        losses.append((loss.detach(), want.detach()))
        if after_backward is not None:
            after_backward(step)
        opt.step()
        ref_opt.step()
        opt.zero_grad()
        ref_opt.zero_grad()
    return losses


def _grads(model, ref):
    return [(_full(p.grad), _full(q.grad)) for p, q in zip(model.parameters(), ref.parameters())]


def _placements(model, ref):
    return [(getattr(p.grad, "placements", None), getattr(q.grad, "placements", None))
            for p, q in zip(model.parameters(), ref.parameters())]


def _dtensor_worker(rank, world):
    import aot_torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, SequenceParallel, \
        parallelize_module

    torch._dynamo.reset()
    aot_torch.stats.clear()
    mesh = init_device_mesh("cpu", (world,))
    torch.manual_seed(0)
    model = torch.nn.Sequential(ResidualMLP(), ResidualMLP())
    ref = torch.nn.Sequential(ResidualMLP(), ResidualMLP())
    ref.load_state_dict(model.state_dict())
    plan = {"%d.up" % i: ColwiseParallel() for i in range(2)}
    plan.update({"%d.down" % i: RowwiseParallel() for i in range(2)})
    for m in (model, ref):
        parallelize_module(m, mesh, plan)
    compiled = torch.compile(model, backend="aot")
    out = {"inference": []}
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for batch in (4, 4, 6):
            x = torch.randn(batch, 16, generator=g)
            out["inference"].append((compiled(x), ref(x)))
    inference_stats = dict(aot_torch.stats)

    # A graph that returns a DTensor: wrapped again with the traced
    # placements.
    def sharded(w):
        return torch.sin((w * 2.0).redistribute(mesh, [Replicate()]))

    w = distribute_tensor(torch.randn(8, 4, generator=torch.Generator().manual_seed(5)), mesh, [Shard(0)])
    with torch.no_grad():
        got = torch.compile(sharded, backend="aot")(w)
    want = sharded(w)
    out["dtensor_out"] = (isinstance(got, DTensor) and tuple(got.placements) == (Replicate(),),
                          _full(got), want.full_tensor())

    # Training: DTensor's gradients (the backward its autograd traced),
    # with eager's placements, through SGD steps.
    aot_torch.stats.clear()

    def first_step(step):
        if step == 0:
            out["placements"], out["grads"] = _placements(model, ref), _grads(model, ref)

    batches = [torch.randn(4, 16, generator=g) for _ in range(3)]
    out["losses"] = _sgd_side_by_side(compiled, model, ref, batches, first_step)
    out["params"] = [(_full(p).detach(), _full(q).detach()) for p, q in zip(model.parameters(), ref.parameters())]

    # Sequence parallelism: each rank holds a slice of the sequence,
    # the layer norm runs on it (its parameters' gradients are
    # `Partial`, as in eager), the sequence is gathered before the
    # column-split linear and reduce-scattered after the row-split one.
    torch.manual_seed(1)
    sp, sp_ref = ResidualMLP(), ResidualMLP()
    sp_ref.load_state_dict(sp.state_dict())
    sp_plan = {"norm": SequenceParallel(), "up": ColwiseParallel(input_layouts=Shard(1)),
               "down": RowwiseParallel(output_layouts=Shard(1))}
    for m in (sp, sp_ref):
        parallelize_module(m, mesh, sp_plan)
    sp_grads = []

    def each_step(step):
        sp_grads.extend(_grads(sp, sp_ref))
        if step == 0:
            out["placements"] += _placements(sp, sp_ref)

    batches = [torch.randn(2, 2 * world, 16, generator=g)[:, 2 * rank:2 * rank + 2].contiguous() for _ in range(3)]
    out["sp"] = _sgd_side_by_side(torch.compile(sp, backend="aot"), sp, sp_ref, batches, each_step) + sp_grads
    out["stats"] = (inference_stats, dict(aot_torch.stats))
    return out


@pytest.mark.heavy
@pytest.mark.parametrize("world", [2, 4])
def test_dtensor_tensor_parallelism_compiles_and_trains_as_eager(tmp_path, world):
    """A model parallelized with DTensor (`parallelize_module`) compiles
    as its local program, with DTensor's redistributions as collectives,
    and matches eager on every rank: in inference, where a DTensor result
    comes back as a DTensor, and in training, where the gradients are
    DTensor's (not the derivatives of the collectives) with eager's
    placements, through SGD steps; also sequence parallelism around a
    layer norm (`SequenceParallel`, whose parameters' gradients are
    `Partial`). Nothing runs in PyTorch."""
    for r in _run_ranks(_dtensor_worker, world, tmp_path):
        inference, training = r["stats"]
        assert inference.get("compiled", 0) >= 2 and not inference.get("fallback_regions"), inference
        assert not inference.get("fallback_ops"), inference
        for got, want in r["inference"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
        is_dtensor, got, want = r["dtensor_out"]
        assert is_dtensor
        torch.testing.assert_close(got, want)
        assert training.get("compiled", 0) >= 1 and not training.get("fallback_regions"), training
        assert not training.get("fallback_ops"), training
        for got, want in r["losses"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        for got, want in r["placements"]:
            assert got == want, (got, want)
        for got, want in r["grads"] + r["params"] + r["sp"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        assert any(p.is_partial() for got, _ in r["placements"] if got for p in got), r["placements"]


def _fsdp2_worker(rank, world, tp=False):
    import aot_torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    model = torch.nn.Sequential(ResidualMLP(), ResidualMLP())
    ref = torch.nn.Sequential(ResidualMLP(), ResidualMLP())
    ref.load_state_dict(model.state_dict())
    # With `tp`: a 2x2 mesh, tensor parallelism inside each block over
    # its "tp" dimension, FSDP2 over "dp".
    mesh = init_device_mesh("cpu", (world // 2, 2), mesh_dim_names=("dp", "tp")) if tp else None
    for m in (model, ref):
        for block in m:
            if tp:
                parallelize_module(block, mesh["tp"], {"up": ColwiseParallel(), "down": RowwiseParallel()})
            fully_shard(block, mesh=mesh["dp"] if tp else None)
        fully_shard(m, mesh=mesh["dp"] if tp else None)
    g = torch.Generator().manual_seed(1 + (mesh["dp"].get_local_rank() if tp else rank))
    batches = [torch.randn(4, 16, generator=g) for _ in range(3)]
    out = {"losses": _sgd_side_by_side(torch.compile(model, backend="aot"), model, ref, batches)}
    out["params"] = [(p.full_tensor(), q.full_tensor()) for p, q in zip(model.parameters(), ref.parameters())]
    out["stats"] = dict(aot_torch.stats)
    return out


@pytest.mark.heavy
def test_fsdp2_trains_as_eager(tmp_path):
    """FSDP2 (`fully_shard` on each block and on the root) frees its
    unsharded parameters after the forward (`resize_(0)` of their storage)
    and gathers them again before the backward: the compiled backward reads
    them where they are then, as eager's saved tensors do (it read freed
    memory before, and training went to NaN). Losses and parameters over
    SGD steps equal eager's, with nothing running in PyTorch."""
    world = 2
    for r in _run_ranks(_fsdp2_worker, world, tmp_path):
        st = r["stats"]
        assert st.get("compiled", 0) >= 2 and not st.get("fallback_regions") and not st.get("fallback_ops"), st
        for got, want in r["losses"] + r["params"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.heavy
def test_fsdp2_with_tensor_parallelism_trains_as_eager(tmp_path):
    """FSDP2 over one dimension of a 2x2 mesh and DTensor tensor
    parallelism over the other: each block's graph takes its parameters as
    DTensors on the tensor-parallel sub-mesh and the previous block's
    output as its input (which gave the first block no gradient before:
    `test_dtensor_graphs_across_a_graph_break_pass_the_gradient_on`).
    Losses and parameters over SGD steps equal eager's, with nothing
    running in PyTorch."""
    world = 4
    for r in _run_ranks(_fsdp2_worker, world, tmp_path, True):
        st = r["stats"]
        assert st.get("compiled", 0) >= 2 and not st.get("fallback_regions") and not st.get("fallback_ops"), st
        for got, want in r["losses"] + r["params"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def _twins(build, build_ref, world):
    """A fresh start (Dynamo and aot's counters reset, seed 0): a model,
    its eager reference with the same parameters, and a 1-D CPU mesh of
    `world` ranks."""
    import aot_torch
    from torch.distributed.device_mesh import init_device_mesh

    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)
    model, ref = build(), build_ref()
    ref.load_state_dict(model.state_dict())
    return model, ref, init_device_mesh("cpu", (world,))


def _graph_break_worker(rank, world):
    import aot_torch
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    class Split(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = ResidualMLP(), ResidualMLP()

        def forward(self, x):
            h = self.a(x)
            torch._dynamo.graph_break()
            return self.b(h)

    model, ref, mesh = _twins(Split, Split, world)
    for m in (model, ref):
        for block in (m.a, m.b):
            parallelize_module(block, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    g = torch.Generator().manual_seed(1)
    batches = [torch.randn(4, 16, generator=g) for _ in range(2)]
    grads = []
    out = {"losses": _sgd_side_by_side(torch.compile(model, backend="aot"), model, ref, batches,
                                       lambda step: grads.extend(_grads(model, ref)))}
    out["grads"] = grads
    out["stats"] = dict(aot_torch.stats)

    # The same with `dynamic=True` over more batch sizes than
    # `recompile_limit` (2 here): Dynamo passes the layer norms' `eps` as
    # 0-dim tensors the graph reads by `.item()` (the DTensor trace takes
    # their values as constants; it ran the whole graph in PyTorch before),
    # and the traces per shape do not count as conventions (the third
    # shape ran in PyTorch).
    model, ref, mesh = _twins(Split, Split, world)
    for m in (model, ref):
        for block in (m.a, m.b):
            parallelize_module(block, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    batches = [torch.randn(b, 16, generator=g) for b in (3, 5, 6, 7)]
    grads = []
    compiled = torch.compile(model, backend=aot_torch.backend(recompile_limit=2), dynamic=True)
    out["dynamic_losses"] = _sgd_side_by_side(compiled, model, ref, batches,
                                              lambda step: grads.extend(_grads(model, ref)))
    out["dynamic_grads"] = grads
    out["dynamic_stats"] = dict(aot_torch.stats)
    return out


@pytest.mark.heavy
def test_dtensor_graphs_across_a_graph_break_pass_the_gradient_on(tmp_path):
    """A tensor-parallel model split in two graphs by a graph break: the
    second graph's input is the first's output, an activation that
    requires grad. Its gradient reaches the first graph, whose parameters
    get eager's gradients (they got none: the DTensor trace took that
    input through a `detach`, so the backend saw no path from it). Also
    with `dynamic=True` over batch sizes, where nothing runs in PyTorch
    (the DTensor graph is traced per shape)."""
    for r in _run_ranks(_graph_break_worker, 2, tmp_path):
        st = r["stats"]
        assert st.get("compiled", 0) == 2 and not st.get("fallback_regions") and not st.get("fallback_ops"), st
        for got, want in r["grads"]:
            assert got is not None, "a parameter without a gradient"
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        for got, want in r["losses"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        st = r["dynamic_stats"]
        assert st.get("compiled", 0) >= 2 and not st.get("fallback_regions") and not st.get("fallback_ops"), st
        for got, want in r["dynamic_grads"]:
            assert got is not None, "a parameter without a gradient"
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        for got, want in r["dynamic_losses"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


class _DropoutMLP(ResidualMLP):
    """The residual MLP with dropout, returning its hidden activation after
    dropout too (each rank's shard: the column-split linear's output stays
    local), so that the mask a step drew can be read off it."""

    def __init__(self):
        super().__init__(dropout=0.5)

    def forward(self, x):
        h = self.drop(F.gelu(self.up(self.norm(x))))
        return x + self.down(h), h


class _MaskedMLP(ResidualMLP):
    """The residual MLP with a given dropout mask (scaled by 1 / (1 - p)),
    the eager reference of a step of `_DropoutMLP` that drew `mask`."""

    mask = None

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))) * self.mask * 2.0)


def _dropout_worker(rank, world):
    import aot_torch
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    model, ref, mesh = _twins(_DropoutMLP, _MaskedMLP, world)
    for m in (model, ref):
        parallelize_module(m, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    compiled = torch.compile(model, backend="aot")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(2)
    out = {"steps": [], "kept": []}
    for _ in range(3):
        x = torch.randn(8, 16, generator=g)
        y, h = compiled(x)
        loss = y.pow(2).mean()
        loss.backward()
        mask = (h != 0).float()
        out["kept"].append(mask.mean().item())
        ref.mask = mask
        want = ref(x).pow(2).mean()
        want.backward()
        out["steps"].append(((loss.detach(), want.detach()), _grads(model, ref)))
        opt.step()
        ref_opt.step()
        opt.zero_grad()
        ref_opt.zero_grad()
    out["stats"] = dict(aot_torch.stats)
    return out


@pytest.mark.heavy
def test_dtensor_dropout_backward_reads_the_forward_mask(tmp_path):
    """Dropout in a tensor-parallel graph compiles (it ran in PyTorch: the
    backward DTensor's autograd traced recomputes the forward's dropout,
    which would draw a second mask). The backward reads the mask the
    forward drew: with that mask fixed in an eager copy, losses and
    gradients agree through SGD steps. Nothing runs in PyTorch."""
    for r in _run_ranks(_dropout_worker, 2, tmp_path):
        st = r["stats"]
        assert st.get("compiled", 0) >= 1 and not st.get("fallback_regions") and not st.get("fallback_ops"), st
        for kept in r["kept"]:
            assert 0.2 < kept < 0.8, r["kept"]
        assert len(set(r["kept"])) > 1, "each step draws a new mask"
        for (got, want), grads in r["steps"]:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
            for g, w in grads:
                torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6)


class _TransformerBlock(torch.nn.Module):
    """Pre-norm attention (causal, four heads) and MLP, residual."""

    def __init__(self, width=32, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(width)
        # (No bias: a key bias has a zero gradient, whose rounding noise
        # AdamW would turn into steps of the learning rate's size.)
        self.qkv = torch.nn.Linear(width, 3 * width, bias=False)
        self.proj = torch.nn.Linear(width, width)
        self.norm2 = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, c))
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))


def _fsdp2_transformer_worker(rank, world):
    import aot_torch
    from torch.distributed.fsdp import fully_shard

    torch._dynamo.reset()
    aot_torch.stats.clear()
    torch.manual_seed(0)

    def make():
        return torch.nn.Sequential(torch.nn.Embedding(64, 32), *[_TransformerBlock() for _ in range(3)],
                                   torch.nn.LayerNorm(32), torch.nn.Linear(32, 64))

    model, ref = make(), make()
    ref.load_state_dict(model.state_dict())
    for m in (model, ref):
        for block in m[1:4]:
            fully_shard(block)
        fully_shard(m)
    compiled = torch.compile(model, backend="aot")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    ref_opt = torch.optim.AdamW(ref.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(1 + rank)
    losses = []
    for _ in range(3):
        tokens = torch.randint(0, 64, (2, 12), generator=g)
        target = torch.randint(0, 64, (2, 12), generator=g)
        pair = []
        for f, o in ((compiled, opt), (ref, ref_opt)):
            loss = torch.nn.functional.cross_entropy(f(tokens).flatten(0, 1), target.flatten())
            loss.backward()
            o.step()
            o.zero_grad()
            pair.append(loss.detach())
        losses.append(tuple(pair))
    return {"losses": losses, "stats": dict(aot_torch.stats),
            "params": [(p.full_tensor(), q.full_tensor()) for p, q in zip(model.parameters(), ref.parameters())]}


@pytest.mark.heavy
def test_fsdp2_trains_a_transformer_of_several_blocks_as_eager(tmp_path):
    """FSDP2 on a small causal transformer (an embedding, three blocks of
    attention and MLP, each `fully_shard`ed, and the root) trained with
    AdamW through the backend: losses and parameters over three steps
    equal eager's, and every graph Dynamo gives is compiled. (Dynamo
    gives one: the block's, which serves the three blocks, their
    parameters its inputs; FSDP2's hooks break the root's loop over the
    blocks, which Dynamo then leaves to eager.)"""
    for r in _run_ranks(_fsdp2_transformer_worker, 2, tmp_path):
        st = r["stats"]
        assert st.get("compiled", 0) == st.get("graphs") >= 1, st
        assert not st.get("fallback_regions") and not st.get("fallback_ops"), st
        for got, want in r["losses"] + r["params"]:
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


class _RMSNorm(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class _LlamaAttention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.wq, self.wk, self.wv, self.wo = (torch.nn.Linear(d, d, bias=False) for _ in range(4))

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = (w(x).view(b, t, -1, self.head_dim).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(b, t, -1))


class _LlamaFeedForward(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w1, self.w2, self.w3 = (torch.nn.Linear(d, 4 * d, bias=False), torch.nn.Linear(4 * d, d, bias=False),
                                     torch.nn.Linear(d, 4 * d, bias=False))

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class _LlamaBlock(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.attention_norm, self.ffn_norm = _RMSNorm(d), _RMSNorm(d)
        self.attention = _LlamaAttention(d, heads)
        self.feed_forward = _LlamaFeedForward(d)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class _Llama(torch.nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, layers=2):
        super().__init__()
        self.tok_embeddings = torch.nn.Embedding(vocab, d)
        self.layers = torch.nn.ModuleList(_LlamaBlock(d, heads) for _ in range(layers))
        self.norm = _RMSNorm(d)
        self.output = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        x = self.tok_embeddings(ids)
        for layer in self.layers:
            x = layer(x)
        return self.output(self.norm(x))


def _llama_tp_worker(rank, world):
    """PyTorch's tensor-parallel recipe for Llama: the embedding split by
    rows (its output sharded along the sequence), each block's norms
    sequence-parallel, q/k/v and w1/w3 split by columns, wo and w2 by rows
    (reduce-scattered along the sequence), the head by columns into a
    vocabulary-sharded loss (`loss_parallel`), AdamW."""
    import aot_torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import ColwiseParallel, PrepareModuleInput, RowwiseParallel, \
        SequenceParallel, loss_parallel, parallelize_module

    torch._dynamo.reset()
    aot_torch.stats.clear()
    mesh = init_device_mesh("cpu", (world,))
    torch.manual_seed(0)
    model, ref = _Llama(), _Llama()
    ref.load_state_dict(model.state_dict())
    for m in (model, ref):
        parallelize_module(m, mesh, {
            "tok_embeddings": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)),
            "norm": SequenceParallel(),
            "output": ColwiseParallel(input_layouts=Shard(1), output_layouts=Shard(-1), use_local_output=False)})
        for block in m.layers:
            block.attention.heads //= world
            parallelize_module(block, mesh, {
                "attention_norm": SequenceParallel(), "ffn_norm": SequenceParallel(),
                "attention": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
                "attention.wq": ColwiseParallel(), "attention.wk": ColwiseParallel(),
                "attention.wv": ColwiseParallel(), "attention.wo": RowwiseParallel(output_layouts=Shard(1)),
                "feed_forward": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
                "feed_forward.w1": ColwiseParallel(), "feed_forward.w3": ColwiseParallel(),
                "feed_forward.w2": RowwiseParallel(output_layouts=Shard(1))})
    compiled = torch.compile(model, backend="aot")
    opt, ref_opt = torch.optim.AdamW(model.parameters(), lr=1e-2), torch.optim.AdamW(ref.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(1)
    out = {"losses": [], "grads": [], "placements": []}
    for step in range(3):
        ids, tgt = torch.randint(0, 64, (2, 8), generator=g), torch.randint(0, 64, (2, 8), generator=g)
        losses = []
        for net in (compiled, ref):
            with loss_parallel():
                loss = F.cross_entropy(net(ids).flatten(0, 1), tgt.flatten())
                loss.backward()
            losses.append(_full(loss.detach()))
        out["losses"].append(tuple(losses))
        if step == 0:
            out["grads"], out["placements"] = _grads(model, ref), _placements(model, ref)
        for o in (opt, ref_opt):
            o.step()
            o.zero_grad()
    out["params"] = [(_full(p).detach(), _full(q).detach()) for p, q in zip(model.parameters(), ref.parameters())]
    out["stats"] = dict(aot_torch.stats)
    return out


@pytest.mark.heavy
def test_llama_tensor_parallelism_as_pytorchs_recipe_trains_as_eager(tmp_path):
    """Llama parallelized as PyTorch's tensor-parallel tutorial does it,
    trained with AdamW: losses, gradients (with eager's placements: the
    embedding's weight, split by rows, gets a replicated gradient) and
    parameters equal eager's on both ranks, with nothing in PyTorch.
    DTensor's traced backward calls the fused attention's backward and
    the embedding's (an accumulating put of a 2-D index's rows), which
    ran the whole graph in PyTorch before."""
    for r in _run_ranks(_llama_tp_worker, 2, tmp_path):
        st = r["stats"]
        assert st.get("compiled", 0) == st.get("graphs") >= 1, st
        assert not st.get("fallback_regions") and not st.get("fallback_ops"), st
        for got, want in r["placements"]:
            assert got == want, r["placements"]
        for got, want in r["losses"] + r["grads"]:
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
        for got, want in r["params"]:
            torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-4)
