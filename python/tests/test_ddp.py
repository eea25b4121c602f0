"""torch.compile(backend="aot") inside PyTorch's DistributedDataParallel:
two CPU processes (gloo on loopback) train the same model on different
shards, compiled and eager side by side in each process; the losses and
the parameters after several steps must agree (DDP averages the
gradients the compiled backward produced across the processes)."""

import copy
import os
import socket

import pytest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

STEPS = 6
WORLD = 2


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank, port, out_dir):
    import aot_torch  # noqa: F401  (registers nothing by import; the entry point does)
    from models import MLP

    torch.set_num_threads(1)
    os.environ["AOT_NUM_THREADS"] = "1"
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=WORLD)
    try:
        torch.manual_seed(0)
        model = MLP()
        ref = copy.deepcopy(model)
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        ddp_ref = torch.nn.parallel.DistributedDataParallel(ref)
        compiled = torch.compile(ddp, backend="aot")
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        opt_ref = torch.optim.SGD(ref.parameters(), lr=0.05)
        g = torch.Generator().manual_seed(100 + rank)
        losses, losses_ref = [], []
        for _ in range(STEPS):
            x = torch.randn(8, 16, generator=g)
            y = torch.randn(8, 4, generator=g)
            for net, o, acc in ((compiled, opt, losses), (ddp_ref, opt_ref, losses_ref)):
                loss = F.mse_loss(net(x), y)
                loss.backward()
                o.step()
                o.zero_grad()
                acc.append(loss.item())
        # Both ranks are done communicating before either tears gloo down
        # (a rank destroying its group while the other still talks makes
        # gloo abort the other: "terminate called without an active
        # exception").
        dist.barrier()
        from aot_torch.backend import stats

        torch.save({"stats": dict(stats), "losses": losses, "losses_ref": losses_ref, "params": [p.detach() for p in model.parameters()],
                    "params_ref": [p.detach() for p in ref.parameters()]},
                   os.path.join(out_dir, "rank%d.pt" % rank))
    finally:
        dist.destroy_process_group()


@pytest.mark.heavy
def test_ddp_with_the_aot_backend_matches_eager_ddp(tmp_path):
    mp.spawn(_worker, args=(_free_port(), str(tmp_path)), nprocs=WORLD, join=True)
    results = [torch.load(tmp_path / ("rank%d.pt" % r)) for r in range(WORLD)]
    for r in results:
        assert r["stats"].get("compiled", 0) >= 1 and not r["stats"].get("fallback_regions"), r["stats"]
        torch.testing.assert_close(torch.tensor(r["losses"]), torch.tensor(r["losses_ref"]), rtol=1e-5, atol=1e-6)
        for p, q in zip(r["params"], r["params_ref"]):
            torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    # The processes saw different data yet hold the same parameters: the
    # gradients were all-reduced.
    assert results[0]["losses"] != results[1]["losses"]
    for p, q in zip(results[0]["params"], results[1]["params"]):
        torch.testing.assert_close(p, q)
