"""Steps of tensor-parallel training over several CPU processes (gloo on
loopback), eager against torch.compile with aot and with Inductor, side by
side in each process.

The program: an MLP block of width --width split as tensor parallelism
splits it (the first linear by columns, the second by rows, the partial
outputs all-reduced with a functional collective: what
`torch.distributed._functional_collectives` and DTensor's plans issue), a
residual, and an MSE loss, trained with SGD on --batch rows per step. Each
way runs --steps steps after two warm-up steps; the three take turns over
three rounds, and the median step time of rank 0 is reported with the
steps per second. Every rank runs one thread (the processes share the
cores).

    py=test/.venv/bin/python
    $py bench/pytorch/distributed.py [--program tp|overlap|overlap-late|dtensor|fsdp2|fsdp2-tp] [--world 2]
        [--width 256] [--batch 64] [--steps 20]
        [--no-inductor]

`--program overlap` trains a block whose all-reduce can run while an
independent branch computes (`overlap_fn`). `--program dtensor` trains the
same block as an `nn.Module` parallelized with DTensor (`parallelize_module`:
the first linear `ColwiseParallel`, the second `RowwiseParallel`, a layer
norm before them), with `torch.optim.SGD`. `--program fsdp2` trains two
such blocks with FSDP2 (`fully_shard` on each block and on the root);
`--program fsdp2-tp` the same on a (world/2)x2 mesh with each block
tensor-parallel (`--world 4`). `--program overlap-late` is `overlap` with
the all-reduce written after the independent branch.
"""

import argparse
import os
import socket
import statistics
import sys
import time

os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tests"))
from models import ResidualMLP  # noqa: E402


def step_fn(params, x, y, group):
    import torch.distributed._functional_collectives as funcol

    w1, b1, w2, b2 = params
    h = torch.nn.functional.gelu(x @ w1.t() + b1)
    out = funcol.all_reduce(h @ w2.t(), "sum", group) + b2 + x
    return ((out - y) ** 2).mean()


def overlap_fn(params, x, y, group):
    """A reduction of one branch while an independent branch computes: the
    all-reduce of `x @ w1ᵀ` can run while `tanh(x @ w2ᵀ) @ w3ᵀ` does (and
    in the backward, its gradient's all-reduce while the other branch's
    gradients do)."""
    import torch.distributed._functional_collectives as funcol

    w1, w2, w3 = params
    r = funcol.all_reduce(x @ w1.t(), "sum", group)
    c = torch.tanh(x @ w2.t()) @ w3.t()
    return ((r + c - y) ** 2).mean()


def overlap_late_fn(params, x, y, group):
    """`overlap_fn` with the all-reduce written after the independent branch
    (right before its first use, as traced graphs often have it): only a
    schedule that starts the collective as soon as its input is ready
    overlaps it with the branch."""
    import torch.distributed._functional_collectives as funcol

    w1, w2, w3 = params
    p = x @ w1.t()
    c = torch.tanh(x @ w2.t()) @ w3.t()
    r = funcol.all_reduce(p, "sum", group)
    return ((r + c - y) ** 2).mean()


def dtensor_ways(args, world, compile_inductor):
    """Per way, (step function, optimizer) over a DTensor-parallelized
    copy of one `ResidualMLP`."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    mesh = init_device_mesh("cpu", (world,))
    torch.manual_seed(0)
    base = ResidualMLP(args.width, 4 * args.width)
    ways = {}
    for k in ["eager", "aot"] + (["inductor"] if compile_inductor else []):
        m = ResidualMLP(args.width, 4 * args.width)
        m.load_state_dict(base.state_dict())
        parallelize_module(m, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
        f = m if k == "eager" else torch.compile(m, backend="aot") if k == "aot" else torch.compile(m)
        ways[k] = (f, torch.optim.SGD(m.parameters(), lr=0.01))
    return ways


def fsdp2_ways(args, world, compile_inductor, tp=False):
    """Per way, (step function, optimizer) over an FSDP2 copy (`fully_shard`
    on each of two `ResidualMLP`s and on the root) of one model; with `tp`, on a
    (world/2)x2 mesh, each block tensor-parallel over its second
    dimension and FSDP2 over the first."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    mesh = init_device_mesh("cpu", (world // 2, 2), mesh_dim_names=("dp", "tp")) if tp else None
    torch.manual_seed(0)
    base = torch.nn.Sequential(ResidualMLP(args.width, 4 * args.width), ResidualMLP(args.width, 4 * args.width))
    ways = {}
    for k in ["eager", "aot"] + (["inductor"] if compile_inductor else []):
        m = torch.nn.Sequential(ResidualMLP(args.width, 4 * args.width), ResidualMLP(args.width, 4 * args.width))
        m.load_state_dict(base.state_dict())
        for block in m:
            if tp:
                parallelize_module(block, mesh["tp"], {"up": ColwiseParallel(), "down": RowwiseParallel()})
            fully_shard(block, mesh=mesh["dp"] if tp else None)
        fully_shard(m, mesh=mesh["dp"] if tp else None)
        f = m if k == "eager" else torch.compile(m, backend="aot") if k == "aot" else torch.compile(m)
        ways[k] = (f, torch.optim.SGD(m.parameters(), lr=0.01))
    return ways


def worker(rank, world, port, args, out):
    import aot_torch

    torch.set_num_threads(1)
    os.environ["AOT_NUM_THREADS"] = "1"
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=world)
    group = dist.group.WORLD
    d, hid = args.width, 4 * args.width
    g = torch.Generator().manual_seed(0)
    full = [torch.randn(hid, d, generator=g) * d ** -0.5, torch.zeros(hid), torch.randn(d, hid, generator=g) * hid ** -0.5,
            torch.zeros(d)]
    rows = slice(rank * hid // world, (rank + 1) * hid // world)
    shard = [full[0][rows], full[1][rows], full[2][:, rows], full[3]]
    fn = step_fn
    if args.program in ("overlap", "overlap-late"):
        fn = overlap_fn if args.program == "overlap" else overlap_late_fn
        shard = [torch.randn(d, d, generator=g) * d ** -0.5, torch.randn(hid, d, generator=g) * d ** -0.5,
                 torch.randn(d, hid, generator=g) * hid ** -0.5]
    ways = {"eager": fn, "aot": torch.compile(fn, backend="aot")}
    if not args.no_inductor:
        ways["inductor"] = torch.compile(fn)
    if args.program == "dtensor":
        ways = dtensor_ways(args, world, not args.no_inductor)
    if args.program in ("fsdp2", "fsdp2-tp"):
        ways = fsdp2_ways(args, world, not args.no_inductor, tp=args.program == "fsdp2-tp")
    params = {k: [p.clone().requires_grad_(True) for p in shard] for k in ways}
    data = torch.Generator().manual_seed(1)
    x, y = torch.randn(args.batch, d, generator=data), torch.randn(args.batch, d, generator=data)

    def run(k, n):
        if args.program in ("dtensor", "fsdp2", "fsdp2-tp"):
            f, opt = ways[k]
            for _ in range(n):
                loss = ((f(x) - y) ** 2).mean()
                loss.backward()
                opt.step()
                opt.zero_grad()
            return loss.item()
        ps, f = params[k], ways[k]
        for _ in range(n):
            loss = f(ps, x, y, group)
            loss.backward()
            with torch.no_grad():
                for p in ps:
                    p -= 0.01 * p.grad
                    p.grad = None
        return loss.item()

    for k in ways:
        run(k, 2)
    times = {k: [] for k in ways}
    for _ in range(3):
        for k in ways:
            dist.barrier()
            t0 = time.perf_counter()
            run(k, args.steps)
            times[k].append((time.perf_counter() - t0) / args.steps)
    if rank == 0:
        out.put({k: statistics.median(v) for k, v in times.items()} | {"stats": dict(aot_torch.stats)})
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--no-inductor", action="store_true")
    ap.add_argument("--program", choices=["tp", "overlap", "overlap-late", "dtensor", "fsdp2", "fsdp2-tp"],
                    default="tp",
                    help="tp: the tensor-parallel MLP block; overlap: an all-reduce beside an independent branch "
                         "(overlap-late: written after it); dtensor: the block as a module parallelized with "
                         "DTensor; fsdp2: two blocks, fully_shard; fsdp2-tp: the same on a 2-D mesh with tensor "
                         "parallelism (--world 4)")
    args = ap.parse_args()
    from machine import cpu_model

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.start_processes(worker, args=(args.world, port, args, q), nprocs=args.world, join=True, start_method="spawn")
    r = q.get()
    print("CPU: %s, %d processes of 1 thread, torch %s" % (cpu_model(), args.world, torch.__version__))
    what = {"tp": "tensor-parallel MLP block", "overlap": "an all-reduce beside an independent branch",
            "overlap-late": "an all-reduce written after an independent branch",
            "fsdp2-tp": "two MLP blocks, tensor-parallel (ColwiseParallel, RowwiseParallel) and fully_shard on a "
                        "2-D mesh",
            "dtensor": "MLP block parallelized with DTensor (layer norm, ColwiseParallel, RowwiseParallel)",
            "fsdp2": "two MLP blocks (layer norm, GELU, residual), fully_shard on each and on the root",
            }[args.program]
    print("%s, width %d (hidden %d), batch %d, SGD" % (what, args.width, 4 * args.width, args.batch))
    print("aot stats (rank 0): %s" % r.pop("stats"))
    print("| way | step (ms) | steps/s |")
    print("|---|---:|---:|")
    for k, v in r.items():
        print("| %s | %.2f | %.0f |" % (k, v * 1e3, 1 / v))


if __name__ == "__main__":
    main()
