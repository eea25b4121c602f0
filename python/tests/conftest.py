"""Test ordering for pytest-xdist: the tests marked ``heavy`` (tens of
seconds each: the torch.compile fuzzer's slice, DDP on two processes) are
collected first, so that the workers start them while the many short tests
fill the rest. xdist hands tests out in collection order; left last, the
heavy ones would run one after another on one worker while the other sits
idle."""

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "heavy: a long test, scheduled first under pytest-xdist")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)
