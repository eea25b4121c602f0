#!/usr/bin/env python3
"""PyTorch's AOTAutograd on the model `aot-bench train` generates, for the
comparison in bench/README.md: a stack of `layers` nn.TransformerEncoderLayer
(d_model, heads, ff, dropout 0.1, GELU, batch_first, post-norm) and an MSE
loss, compiled with aot_module (no-op compilers, so the time is tracing,
functionalization, the joint graph and the partition). Reports the best of
`--reps` fresh compilations and the joint graph's node count.

Needs torch (not a project dependency):
  "$(bash bench/pytorch/python.sh)" bench/pytorch/aot_train.py [--layers 12 --d-model 256 --heads 4 --ff 1024 --batch 2 --seq 16]
"""

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from functorch.compile import aot_module, default_partition, make_boxed_func, min_cut_rematerialization_partition


class Model(nn.Module):
    def __init__(self, layers, d, h, ff):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d, h, ff, dropout=0.1, activation="gelu", batch_first=True) for _ in range(layers)
        )

    def forward(self, x, target):
        for layer in self.layers:
            x = layer(x)
        return F.mse_loss(x, target)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ns = ap.parse_args()
    torch.manual_seed(0)
    x = torch.randn(ns.batch, ns.seq, ns.d_model, requires_grad=True)
    target = torch.randn(ns.batch, ns.seq, ns.d_model)
    nodes = {}

    def counting(name):
        def compiler(gm, _inputs):
            nodes[name] = sum(1 for n in gm.graph.nodes if n.op == "call_function")
            return make_boxed_func(gm)

        return compiler

    def joint_partition(partition):
        def p(joint, joint_inputs, **kw):
            nodes["joint"] = sum(1 for n in joint.graph.nodes if n.op == "call_function")
            return partition(joint, joint_inputs, **kw)

        return p

    for label, partition in [("default", default_partition), ("min-cut", min_cut_rematerialization_partition)]:
        best = float("inf")
        for _ in range(ns.reps):
            model = Model(ns.layers, ns.d_model, ns.heads, ns.ff).train()
            compiled = aot_module(
                model, fw_compiler=counting("forward"), bw_compiler=counting("backward"),
                partition_fn=joint_partition(partition),
            )
            t0 = time.perf_counter()
            loss = compiled(x, target)  # traces, builds the joint, partitions
            loss.backward()  # the backward compiler may run lazily
            best = min(best, time.perf_counter() - t0)
        print(
            "%-8s compile + first call: %.2f s  (joint %d nodes, forward %d, backward %d)"
            % (label, best, nodes["joint"], nodes["forward"], nodes["backward"])
        )


if __name__ == "__main__":
    main()
