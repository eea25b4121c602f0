// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse,dce))' --timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse,dce))' --timing --timing-display=tree -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse,dce))' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// LIST:      ... Execution time report ...
// LIST:      Total Execution Time: {{[0-9.]+}} seconds
// LIST:      ----Wall Time----  ----Name----
// LIST-DAG:  {{[0-9.]+}} ({{ *[0-9.]+}}%)  CSE
// LIST-DAG:  {{[0-9.]+}} ({{ *[0-9.]+}}%)  DCE
// LIST-DAG:  {{[0-9.]+}} ({{ *[0-9.]+}}%)  Parser
// LIST:      (100.0%)  Total

// TREE:      ----Wall Time----  ----Name----
// TREE:      Parser
// TREE:      Pipeline
// TREE-NEXT:   'func.func' Pipeline
// TREE-NEXT:     CSE
// TREE-NEXT:     DCE
// TREE:      Output
// TREE:      Total

// STATS:      ... Pass statistics report ...
// STATS:      'builtin.module' Pipeline
// STATS-NEXT:   'func.func' Pipeline
// STATS-NEXT:     CSE
// STATS-NEXT:       (S) 1 num-cse'd - Number of operations CSE'd
// STATS-NEXT:     DCE
// STATS-NEXT:       (S) 0 num-dce'd - Number of operations removed

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  %1 = tensor.mul %x, %x : tensor<4xf32>
  %2 = tensor.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
