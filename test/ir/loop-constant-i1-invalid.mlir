// An i1 loop constant is `true`, `false`, `0 : i1` or `1 : i1`.

// RUN: aot-opt %s --verify-diagnostics

// expected-error @+1 {{integer constant out of range for i1}}
%0 = loop.constant 2 : i1
