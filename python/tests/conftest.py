"""Test ordering for pytest-xdist: the tests marked ``heavy`` (tens of
seconds each: the torch.compile fuzzer's slice, DDP on two processes) are
collected first, so that the workers start them while the many short tests
fill the rest. xdist hands tests out in collection order; left last, the
heavy ones would run one after another on one worker while the other sits
idle.

Every test process also skips Dynamo's guard-latency measurement: after
flushing the CPU's caches it times each new set of guards (about 35 ms per
compiled frame, a fifth of a small program's compile) only for its debug
log, which no test reads (the fuzzer's check.skip_guard_latency_profiling)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_regressions"))
from fuzzcheck import _check  # noqa: E402  (the fuzzer's check.py, loaded once for every test)


def pytest_configure(config):
    config.addinivalue_line("markers", "heavy: a long test, scheduled first under pytest-xdist")
    _check().skip_guard_latency_profiling()


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)
