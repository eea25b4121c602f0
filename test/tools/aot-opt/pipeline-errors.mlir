// RUN: not aot-opt %s --pass-pipeline='builtin.module(frobnicate)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not aot-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// RUN: not aot-opt %s --pass-pipeline='builtin.module(cse{bogus=1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not aot-opt %s --pass-pipeline='builtin.module(cse,,dce)' 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not aot-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// UNKNOWN:      <pass-pipeline>:1:16: error: 'frobnicate' does not refer to a registered pass or pass pipeline
// UNKNOWN-NEXT: builtin.module(frobnicate)
// UNKNOWN-NEXT: {{^               \^}}

// UNCLOSED: <pass-pipeline>:1:19: error: expected ',' or ')'

// OPTION: <pass-pipeline>:1:16: error: no such option 'bogus' for pass 'cse' (it has no options)

// EMPTY: <pass-pipeline>:1:20: error: expected pass or pipeline name, found ','

// ANCHOR: error: can't run a pipeline anchored on 'func.func' on 'builtin.module'

func.func @f() {
  return
}
