// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @uneven(%x: tensor<5x3xf32>) {
  // expected-error@+1 {{a reduce-scatter splits dimension 0 (5) into 2 equal parts: it must divide}}
  %0 = dist.reduce_scatter %x {group = "0", size = 2, reduce = "sum"} : tensor<5x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @unknown_reduction(%x: tensor<4xf32>) {
  // expected-error@+1 {{'reduce' must be sum, avg, product, max or min, got "bor"}}
  %0 = dist.all_reduce %x {group = "0", size = 2, reduce = "bor"} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @no_group(%x: tensor<4xf32>) {
  // expected-error@+1 {{'group'}}
  %0 = dist.all_gather %x {size = 2} : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @empty_group(%x: tensor<4xf32>) {
  // expected-error@+1 {{a process group has at least one rank, got size 0}}
  %0 = dist.all_gather %x {group = "0", size = 0} : tensor<4xf32> -> tensor<0xf32>
  return
}

// -----

func.func @scalar(%x: tensor<f32>) {
  // expected-error@+1 {{an all-gather needs a tensor of rank 1 or more}}
  %0 = dist.all_gather %x {group = "0", size = 2} : tensor<f32> -> tensor<2xf32>
  return
}

// -----

func.func @source_outside(%x: tensor<4xf32>) {
  // expected-error@+1 {{'src' must be a rank of the group (0 to 1), got 2}}
  %0 = dist.broadcast %x {group = "0", size = 2, src = 2} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @gathered_size(%x: tensor<4xf32>) {
  // expected-error@+1 {{tensor<8xf32>}}
  %0 = dist.all_gather %x {group = "0", size = 2} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @strided_collective(%x: memref<4x4xf32>) {
  %v = loop.view %x : memref<4x4xf32> -> memref<4x4xf32, strided<[1, 4], offset: 0>>
  %o = loop.alloc : memref<8x4xf32>
  // expected-error@+1 {{a collective reads and writes contiguous buffers (no layout)}}
  loop.collective %v, %o {kind = "all_gather", group = "0", size = 2} : memref<4x4xf32, strided<[1, 4], offset: 0>>, memref<8x4xf32>
  return
}

// -----

func.func @unknown_kind(%x: memref<4xf32>) {
  %o = loop.alloc : memref<4xf32>
  // expected-error@+1 {{'scatter' is not a collective}}
  loop.collective %x, %o {kind = "scatter", group = "0", size = 2} : memref<4xf32>, memref<4xf32>
  return
}
