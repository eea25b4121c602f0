// The PyTorch differential fuzzer's generator (fuzz/torch/gen.py) must keep
// writing valid IR: every program of these seeds parses and verifies with
// aot-opt, and run.py's comparison classifies hand-made answers correctly.
// Needs no torch.
// RUN: %python %repo/fuzz/torch/selftest.py --aot-opt aot-opt --seeds 0..39 | FileCheck %s
// CHECK: torch-fuzz selftest: 40 programs verified
