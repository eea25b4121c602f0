"""Writes the large programs the perf-* robustness tests run (to stdout).

usage: gen.py KIND N
  transpose N   a clone, then N chained view.transpose ops, returned
  alias N       N chained view.alias ops of an argument, returned
  unsqueeze N   N alternating view.unsqueeze/view.squeeze ops of a clone,
                a mut.mul_ by the argument through the last, the clone returned
  fanout N      @h0 ... @hN, each @hi calling @h(i+1) twice (2^N calls from
                @main); @hN returns its argument
  sin N         N chained tensor.sin ops of an argument, returned
  detached N    N mut.mul_ through one detached alias of an argument (after
                aot-inference: a chain of N scatters and products)
  nograd N      N mut.mul_ of an argument under no_grad, then a + 3
  copies N      N mut.copy_ of one broadcast sum into an argument
  shareddiv N   N mut.div_ of one clone by the same argument (that argument
                has N users), both arguments requiring grad
"""

import sys


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    out = []
    emit = out.append
    if kind == "transpose":
        ty = "tensor<4x4xf32>"
        emit(f"func.func @main(%v0: {ty} {{aot.requires_grad}}) -> {ty} {{")
        emit(f"  %c0 = tensor.clone %v0 : {ty}")
        for i in range(1, n + 1):
            emit(f"  %c{i} = view.transpose %c{i - 1} {{dim0 = 0, dim1 = 1}} : {ty} -> {ty}")
        emit(f"  return %c{n} : {ty}")
        emit("}")
    elif kind == "alias":
        ty = "tensor<2x3xf32>"
        emit(f"func.func @main(%v0: {ty}) -> {ty} {{")
        for i in range(1, n + 1):
            emit(f"  %v{i} = view.alias %v{i - 1} : {ty} -> {ty}")
        emit(f"  return %v{n} : {ty}")
        emit("}")
    elif kind == "unsqueeze":
        ty, ty1 = "tensor<4x4xf32>", "tensor<1x4x4xf32>"
        emit(f"func.func @main(%v0: {ty} {{aot.requires_grad}}) -> {ty} {{")
        emit(f"  %c0 = tensor.clone %v0 : {ty}")
        for i in range(1, n + 1):
            if i % 2:
                emit(f"  %c{i} = view.unsqueeze %c{i - 1} {{dim = 0}} : {ty} -> {ty1}")
            else:
                emit(f"  %c{i} = view.squeeze %c{i - 1} {{dim = 0}} : {ty1} -> {ty}")
        last = n if n % 2 == 0 else n - 1
        # By the argument: `x.mul_(x)` saves x, which its own write changes
        # (PyTorch's backward refuses that).
        emit(f"  mut.mul_ %c{last}, %v0 : {ty}")
        emit(f"  return %c0 : {ty}")
        emit("}")
    elif kind == "fanout":
        ty = "tensor<4xf32>"
        for i in range(n):
            emit(f"func.func private @h{i}(%x: {ty}) -> {ty} {{")
            emit(f"  %0 = func.call @h{i + 1}(%x) : ({ty}) -> {ty}")
            emit(f"  %1 = func.call @h{i + 1}(%0) : ({ty}) -> {ty}")
            emit(f"  return %1 : {ty}")
            emit("}")
        emit(f"func.func private @h{n}(%x: {ty}) -> {ty} {{")
        emit(f"  return %x : {ty}")
        emit("}")
        emit(f"func.func @main(%x: {ty}) -> {ty} {{")
        emit(f"  %0 = func.call @h0(%x) : ({ty}) -> {ty}")
        emit(f"  return %0 : {ty}")
        emit("}")
    elif kind == "shareddiv":
        ty = "tensor<3xf16>"
        emit(f"func.func @main(%x: {ty} {{aot.requires_grad}}, %y: {ty} {{aot.requires_grad}}) -> {ty} {{")
        emit(f"  %t = tensor.clone %x : {ty}")
        for _ in range(n):
            emit(f"  mut.div_ %t, %y : {ty}")
        emit(f"  return %t : {ty}")
        emit("}")
    elif kind == "sin":
        ty = "tensor<4xf32>"
        emit(f"func.func @main(%v0: {ty} {{aot.requires_grad}}) -> {ty} {{")
        for i in range(1, n + 1):
            emit(f"  %v{i} = tensor.sin %v{i - 1} : {ty}")
        emit(f"  return %v{n} : {ty}")
        emit("}")
    elif kind == "detached":
        ty = "tensor<2xf32>"
        emit(f"func.func @main(%z: {ty}) -> {ty} {{")
        emit(f"  %c = tensor.constant dense<2.0> : {ty}")
        emit(f"  %d = view.detach %z : {ty}")
        for _ in range(n):
            emit(f"  mut.mul_ %d, %c : {ty}")
        emit(f"  %r = tensor.add %z, %c : {ty}")
        emit(f"  return %r : {ty}")
        emit("}")
    elif kind == "nograd":
        ty = "tensor<3xf32>"
        emit(f"func.func @main(%a: {ty}) -> {ty} {{")
        emit("  %two = tensor.full {value = 2.0} : tensor<f32>")
        for _ in range(n):
            emit(f"  mut.mul_ %a, %two {{aot.no_grad}} : {ty}, tensor<f32>")
        emit("  %three = tensor.full {value = 3.0} : tensor<f32>")
        emit(f"  %r = tensor.add %a, %three : {ty}, tensor<f32> -> {ty}")
        emit(f"  return %r : {ty}")
        emit("}")
    elif kind == "copies":
        emit("func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {")
        emit("  %s = tensor.sum %a {dims = [0]} : tensor<2x3xf32> -> tensor<3xf32>")
        for _ in range(n):
            emit("  mut.copy_ %b, %s : tensor<2x3xf32>, tensor<3xf32>")
        emit("  return %b : tensor<2x3xf32>")
        emit("}")
    else:
        sys.exit(f"unknown kind {kind}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
