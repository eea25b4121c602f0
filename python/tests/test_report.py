"""The compile report (`aot_torch.report`), opened in headless Chromium:
a small CNN and a small transformer block through `torch.compile(backend=
"aot")`, with one op aot does not support (a fallback) and a new sequence
length (a recompile by Dynamo). The page must load with no console error,
have every section, and say why the op ran in PyTorch and which guard
failed. The screenshot is kept under target/report-test/ (or $AOT_REPORT_DIR).

Chromium is Debian's `chromium`, which the test command installs; the
tests skip where it is missing unless AOT_REQUIRE_BROWSER=1 (set by the test
command, so that a missing browser fails there)."""

import os
import re
import shutil
import subprocess

import pytest
import torch

import aot_torch
from aot_torch import compile_report

import browser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _chromium():
    exe = browser.chromium()
    if exe is None:
        if os.environ.get("AOT_REQUIRE_BROWSER") == "1":
            pytest.fail("no Chromium on the PATH (the test command installs Debian's chromium)")
        pytest.skip("no Chromium on the PATH")
    return exe


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x))).mean((2, 3))
        y = torch.cumprod(y, dim=1)   # no counterpart in aot's catalogue: runs in PyTorch
        return self.fc(y)


class Block(torch.nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.ln = torch.nn.LayerNorm(d)
        self.attn = torch.nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln(x))


@pytest.fixture
def fresh_report():
    torch._dynamo.reset()
    compile_report.reset()
    compile_report.enable_report(progress=True)
    try:
        yield
    finally:
        compile_report.disable_report()
        compile_report.reset()
        torch._dynamo.reset()


def _out_dir():
    d = os.environ.get("AOT_REPORT_DIR") or os.path.join(ROOT, "target", "report-test")
    os.makedirs(d, exist_ok=True)
    return d


def test_report_of_a_cnn_and_a_transformer_in_chromium(fresh_report, capfd):
    exe = _chromium()
    torch.manual_seed(0)
    cnn = torch.compile(CNN(), backend="aot", dynamic=False)
    block = torch.compile(Block(), backend="aot", dynamic=False)
    cnn(torch.randn(2, 3, 16, 16)).sum().backward()
    block(torch.randn(2, 8, 32)).sum().backward()
    block(torch.randn(2, 12, 32)).sum().backward()   # Dynamo recompiles: size mismatch
    with aot_torch.profiler.profile() as prof:      # step time per region, against eager
        block(torch.randn(2, 12, 32)).sum().backward()
    err = capfd.readouterr().err
    # The live summary: a line per region, with its place among the graph's.
    assert re.search(r"aot: \[ *[0-9.]+s\] graph \d+\.region 0 \(region 1 of 2\): compiling for training", err), err
    assert re.search(r"graph \d+ \(region 1 of 1\): compiled in [0-9.]+s", err), err
    assert re.search(r"aot: \[ *[0-9.]+s\] graph \d+: tracing to ATen", err), err
    # ... and a line as each pass and the code generation start.
    assert "aot:     pass Functionalize on @main" in err and "aot:     pass Partition on @main" in err, err
    assert "aot:     code generation (cranelift)" in err, err

    path = aot_torch.report(os.path.join(_out_dir(), "report.html"), profile=prof)
    page_html = open(path, encoding="utf-8").read()
    # Self-contained: nothing loaded from elsewhere, no script at all.
    assert not re.search(r"<(script|link|img|iframe)\b", page_html)
    assert not re.search(r"(src|href)=\"(https?:)?//", page_html)

    with browser.Browser(exe) as b:
        page = b.load(path)
    with open(os.path.join(_out_dir(), "report.png"), "wb") as f:
        f.write(page.png)
    assert page.problems == []
    assert page.png[:8] == b"\x89PNG\r\n\x1a\n" and len(page.png) > 10000
    for section in ("summary", "fallbacks", "recompiles", "profile", "graphs"):
        assert section in page.ids, (section, page.ids)
    # One section per Dynamo graph: the CNN's, the block's and its recompile.
    assert len([i for i in page.ids if re.fullmatch(r"graph-\d+", i)]) == 3, page.ids
    text = page.text
    # Which regions ran where, and why.
    assert "split: 1 op(s) in PyTorch, the rest in aot" in text
    assert "aten.cumprod.default has no counterpart in the op catalogue" in text
    assert "y = torch.cumprod(y, dim=1)" in text          # the source line of the fallback
    # Why it recompiled: Dynamo's first failed guard.
    assert re.search(r"tensor 'x' size mismatch at index 1\. expected 8, actual 12", text), text[:3000]
    # What the backward keeps: the partition, the saved values and their bytes.
    assert re.search(r"Partition: default; \d+ values saved for backward, keeping [0-9.]+ KiB alive", text)
    assert "Saved activations" in text and "modelled peak" in text
    assert "Compile time per pass" in text
    assert re.search(r"graph \d+\s+forward\s+1\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+", text), text  # the profile's row
    if shutil.which("dot"):
        assert page_html.count("<svg") >= 4   # one picture per compiled variant
    else:
        assert "Graphviz's dot is not on the PATH" in text


def test_a_graph_too_large_to_draw_gets_the_partition_alone(fresh_report, tmp_path, monkeypatch):
    """Past `MAX_PICTURE_NODES` the page draws the saved values and the cut
    (a model's thousand ops take dot minutes and cannot be read), and
    keeps the whole picture's text."""
    monkeypatch.setattr(compile_report, "MAX_PICTURE_NODES", 5)
    mlp = torch.compile(torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1)),
                        backend="aot")
    mlp(torch.randn(4, 8)).sum().backward()
    text = open(aot_torch.report(str(tmp_path / "r.html")), encoding="utf-8").read()
    assert re.search(r"Picture of the partition: the values saved for backward and the cut \(the whole graph "
                     r"has \d+ nodes, too many to draw\)", text)
    assert re.search(r"its Graphviz text \(\d+ nodes\)", text)
    if shutil.which("dot"):
        assert text.count("<svg") == 1


def test_each_shape_of_a_dynamic_graph_is_in_the_report(fresh_report, tmp_path):
    """Under `dynamic=True` without symbolic sizes one Dynamo graph serves
    every shape and aot traces it again per shape: each trace is a region
    of the report, and the later ones say they were compiled for new
    shapes."""
    f = torch.compile(lambda x: torch.tanh(x) * 2, backend=aot_torch.backend(symbolic=False), dynamic=True)
    f(torch.randn(4, requires_grad=True)).sum().backward()
    f(torch.randn(6, requires_grad=True)).sum().backward()
    text = open(aot_torch.report(str(tmp_path / "r.html")), encoding="utf-8").read()
    assert re.search(r"Region graph \d+, trace 2 \(new shapes\)", text), text
    assert "a call with new shapes: traced to ATen again (trace 2)" in text
    assert "float32[4] grad" in text and "float32[6] grad" in text


def test_a_symbolic_graph_is_one_region_in_the_report(fresh_report, tmp_path):
    """With symbolic sizes (the default) the graph is one region, compiled
    once, whose IR has the symbols; the report says it ran with symbolic
    sizes."""
    f = torch.compile(lambda x: torch.tanh(x) * 2, backend="aot", dynamic=True)
    f(torch.randn(4, requires_grad=True)).sum().backward()
    f(torch.randn(6, requires_grad=True)).sum().backward()
    text = open(aot_torch.report(str(tmp_path / "r.html")), encoding="utf-8").read()
    assert "aot (symbolic sizes)" in text
    assert "trace 2" not in text
    assert "tensor&lt;s0xf32&gt;" in text or "tensor<s0xf32>" in text, text


def test_the_browser_harness_sees_console_errors(tmp_path):
    """The check above can fail: a page that logs an error and throws is
    reported."""
    exe = _chromium()
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><h1 id='x'>hi</h1><script>console.error('broken');"
                   "undefinedFunction();</script></body></html>")
    with browser.Browser(exe) as b:
        page = b.load(str(bad))
    assert any("console.error: broken" in p for p in page.problems), page.problems
    assert any("undefinedFunction" in p for p in page.problems), page.problems
    assert page.ids == ["x"] and "hi" in page.text


def test_report_without_detail_says_how_to_get_it(tmp_path):
    """Recorded with the report off, the page still lists the graphs and
    says how to get the IR and pictures."""
    torch._dynamo.reset()
    compile_report.reset()
    try:
        f = torch.compile(lambda x: torch.tanh(x) * 2, backend="aot")
        f(torch.randn(4, requires_grad=True)).sum().backward()
        text = open(aot_torch.report(str(tmp_path / "r.html")), encoding="utf-8").read()
        assert "Recorded without the report on" in text
        assert "IR before the pipeline" not in text   # a model's IR is not kept unasked
        assert re.search(r"id=\"graph-\d+\"", text) and "Compile time per pass" in text
    finally:
        compile_report.reset()
        torch._dynamo.reset()


def test_report_is_written_at_exit_from_the_environment(tmp_path):
    """`AOT_REPORT=path` writes the report when the process ends."""
    path = tmp_path / "exit.html"
    code = ("import torch, aot_torch\n"
            "f = torch.compile(lambda x: x.sin() + 1, backend='aot')\n"
            "f(torch.randn(3))\n")
    env = dict(os.environ, AOT_REPORT=str(path))
    r = subprocess.run([os.environ.get("PYTHON", __import__("sys").executable), "-c", code], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "(region 1 of 1): compiled in" in r.stderr
    text = path.read_text(encoding="utf-8")
    assert "aot compile report" in text and "IR after the pipeline" in text
