// RUN: aot-opt --list-passes | FileCheck %s

// CHECK: Available passes:
// CHECK: --cse  -  Eliminate common sub-expressions
// CHECK: --dce  -  Remove side-effect-free operations whose results are unused
// CHECK: Available pipelines:
