// RUN: aot-opt %s --verify-diagnostics --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse))'

// `lower-to-loops` takes symbolic sizes (elementwise ops); the code
// generator's later passes do not yet, and refuse the lowered function
// with the list of the passes that do, rather than compute with an
// expression as if it were a number.

// expected-error@+1 {{pass 'fuse' does not support symbolic sizes yet: 'func.func' attribute 'function_type' has a symbolic size (the passes that do: cse, dce, canonicalize, flatten-subclasses, functionalize, simplify, collect-metadata, dedupe, synthetic-base, rng-functionalize, joint, partition, lower-to-loops)}}
func.func @symbolic(%x: tensor<s0x8xf32>) -> tensor<s0x8xf32> {
  %0 = tensor.exp %x : tensor<s0x8xf32>
  return %0 : tensor<s0x8xf32>
}
