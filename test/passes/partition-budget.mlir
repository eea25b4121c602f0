// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint),partition)' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEF
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint),partition{strategy=min-cut})' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=MC
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint),partition{strategy=min-cut memory-budget=0})' --pass-statistics 2>&1 | FileCheck %s --check-prefix=B0

/// Three linear+tanh layers on a large batch (activations outweigh the
/// weights). --pass-statistics reports, per strategy, the values saved,
/// the bytes of storage they keep alive (each storage once; the caller's
/// arguments, here %x, cost nothing since the caller holds them anyway), the
/// modelled peak of forward + backward (arguments count as held by the
/// caller throughout) and the work the backward repeats. Here
/// the min cut matches the default (every saved value is a matmul output or
/// read by a matmul); budget 0 recomputes a linear layer in the backward
/// for a lower peak.
// DEF:       Partition
// DEF-NEXT:    (S) 6 num-saved
// DEF-NEXT:    (S) 98304 saved-bytes
// DEF-NEXT:    (S) 245764 peak-bytes
// DEF-NEXT:    (S) 0 recompute-cost
// MC:        Partition
// MC-NEXT:     (S) 6 num-saved
// MC-NEXT:     (S) 98304 saved-bytes
// MC-NEXT:     (S) 245764 peak-bytes
// MC-NEXT:     (S) 0 recompute-cost
// MC-NEXT:     (S) 98304 default-saved-bytes
// MC-NEXT:     (S) 245764 default-peak-bytes
// B0:        func.func @mlp_backward
// B0:          tensor.linear
// B0:        Partition
// B0-NEXT:     (S) 6 num-saved
// B0-NEXT:     (S) 65536 saved-bytes
// B0-NEXT:     (S) 217092 peak-bytes
// B0-NEXT:     (S) 532480 recompute-cost
func.func @mlp(%x: tensor<256x32xf32>, %w1: tensor<32x32xf32> {aot.requires_grad}, %w2: tensor<32x32xf32> {aot.requires_grad}, %w3: tensor<32x32xf32> {aot.requires_grad}) -> tensor<256x32xf32> {
  %h1 = tensor.linear %x, %w1 : tensor<256x32xf32>, tensor<32x32xf32> -> tensor<256x32xf32>
  %a1 = tensor.tanh %h1 : tensor<256x32xf32>
  %h2 = tensor.linear %a1, %w2 : tensor<256x32xf32>, tensor<32x32xf32> -> tensor<256x32xf32>
  %a2 = tensor.tanh %h2 : tensor<256x32xf32>
  %h3 = tensor.linear %a2, %w3 : tensor<256x32xf32>, tensor<32x32xf32> -> tensor<256x32xf32>
  %a3 = tensor.tanh %h3 : tensor<256x32xf32>
  return %a3 : tensor<256x32xf32>
}
