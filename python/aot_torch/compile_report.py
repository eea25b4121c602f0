"""Compile reports: what the backend did with every graph Dynamo handed it,
as one self-contained HTML file.

    aot_torch.enable_report("report.html")    # or AOT_REPORT=report.html
    model = torch.compile(model, backend="aot")
    ...                                       # written at exit
    aot_torch.report("now.html")              # or at any time

The backend always keeps a light log (the graphs, where each region ran
and why, the recompiles with the guard that failed, compile times). With
the report on (``enable_report`` or the ``AOT_REPORT`` environment
variable, before the compiles), every compile also keeps the IR before and
after the pipeline and its Graphviz picture, and prints a progress line
per region on stderr. The page has one section per Dynamo graph and region: the FX
graph, the IR before and after the pipeline, the partition (saved values,
their bytes, the modelled peak against the budget) as a picture (SVG when
Graphviz's ``dot`` is on the PATH, else its text), every fallback with its
reason and the source line that caused it, every recompile, the compile
time per pass, and with a finished :func:`aot_torch.profiler.profile` the
time per region against eager. It loads nothing from the network and runs
no script."""

from __future__ import annotations

import atexit
import dataclasses
import datetime
import html
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

import torch

from . import _native

# Past a few hundred nodes a picture is no longer readable, and dot's layout
# of a model's forward and backward (a thousand ops, long edges from the
# forward's values into the backward) takes minutes: the report then draws
# the partition alone (saved values and the cut) and gives the whole
# picture's text.
MAX_PICTURE_NODES = 500
DOT_TIMEOUT_S = 20


@dataclasses.dataclass
class Fallback:
    where: str          # the graph or region
    what: str           # what runs in PyTorch: the graph, a region, an op
    reason: str
    source: Optional[str] = None   # the user's source line, when known


@dataclasses.dataclass
class Variant:
    """One compile of a region for one calling convention."""
    index: int
    training: bool
    inputs: str
    pipeline: str
    seconds: float
    ir_before: Optional[str]        # kept with the report on (a model's IR is large)
    native: Dict[str, Any]          # Function.report(): passes, codegen_seconds, ir, dot
    budget: Optional[float]
    reason: str                     # why this variant was compiled


@dataclasses.dataclass
class Region:
    name: str
    aten_code: str
    trace: int = 1                  # the graph's k-th trace to ATen (a new shape traces again)
    variants: List[Variant] = dataclasses.field(default_factory=list)
    failed: List[Tuple[str, str]] = dataclasses.field(default_factory=list)   # (inputs, reason)
    first_inputs: Optional[str] = None


@dataclasses.dataclass
class Graph:
    name: str
    compile_id: str
    recompile_reason: Optional[str]
    location: Optional[str]
    fx_code: str
    ran: str = "not called yet"
    regions: Dict[str, Region] = dataclasses.field(default_factory=dict)
    planned: int = 1                # regions of the graph (a split graph has several)
    fallbacks: List[Fallback] = dataclasses.field(default_factory=list)


class _Log:
    def __init__(self):
        self.graphs: Dict[str, Graph] = {}
        self.detailed = False
        self.progress = False
        self.started = time.time()

    def graph_of(self, name: str) -> Optional[Graph]:
        """The graph of a graph, region or report key name (`graph 3`,
        `graph 3.region 1`, `graph 3 (trace 2)`)."""
        return self.graphs.get(re.match(r"[^.(]*", name).group(0).strip())


_log = _Log()
_exit_path: Optional[str] = None


def enable_report(path: Optional[str] = None, progress: bool = True):
    """Keeps the IR after the pipeline and its picture with every compile
    from now on (compiles cost a little more: the module is printed and
    drawn), prints a progress line per region on stderr when ``progress``,
    and writes the report to ``path`` at exit when given."""
    global _exit_path
    _log.detailed = True
    _log.started = time.time()
    _log.progress = progress
    if path is not None:
        if _exit_path is None:
            atexit.register(_write_at_exit)
        _exit_path = path


def disable_report():
    """Stops keeping the IR and pictures, and the progress lines; a report
    set to be written at exit is not."""
    global _exit_path
    _log.detailed = False
    _log.progress = False
    _exit_path = None


def _write_at_exit():
    if _exit_path is not None:
        try:
            report(_exit_path)
        except Exception as e:  # never an exception at interpreter exit
            print("aot_torch: could not write the compile report %s: %s" % (_exit_path, e), file=sys.stderr)


def _from_environment():
    path = os.environ.get("AOT_REPORT")
    if path:
        enable_report(path)


def reset():
    """Forgets what was logged (the next report shows later compiles only)."""
    _log.graphs.clear()
    _log.started = time.time()


# ------------------------------------------------------------ recording

def _frame_line(stack_trace: Optional[str]) -> Optional[str]:
    """The innermost `File "...", line N, in f` entry of an FX node's stack
    trace, with its code line: the user's line the node was traced from."""
    if not stack_trace:
        return None
    lines = stack_trace.rstrip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        m = re.match(r'\s*File "([^"]+)", line (\d+), in (\S+)', lines[i])
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return "%s:%s in %s: %s" % (m.group(1), m.group(2), m.group(3), code)
    return None


def node_source(gm: Optional[torch.fx.GraphModule], name: Optional[str]) -> Optional[str]:
    """The user's source line of Dynamo node `name` of `gm`."""
    if gm is None or name is None:
        return None
    for n in gm.graph.nodes:
        if n.name == name:
            return _frame_line(n.meta.get("stack_trace"))
    return None


def _graph_location(gm: torch.fx.GraphModule) -> Optional[str]:
    for n in gm.graph.nodes:
        loc = _frame_line(n.meta.get("stack_trace"))
        if loc is not None:
            return loc
    return None


def detailed() -> bool:
    """Whether compiles keep the IR after the pipeline and its picture."""
    return _log.detailed


def progress_on() -> bool:
    """Whether compiles print a line per pass (with the report's progress
    lines)."""
    return _log.progress


def graph_source(name: str) -> Optional[str]:
    """The source location of the Dynamo graph `name` belongs to."""
    g = _log.graph_of(name)
    return g.location if g is not None else None


def graph_compiled(name: str, gm: torch.fx.GraphModule):
    """Dynamo handed `gm` to the backend (a first compile of its frame, or a
    recompile: then Dynamo's first failed guard is the reason)."""
    compile_id, reason = "?", None
    try:
        cid = torch._guards.CompileContext.current_compile_id()
        if cid is not None:
            compile_id = str(cid)
        from torch._dynamo.utils import get_metrics_context
        reason = getattr(get_metrics_context(), "_metrics", {}).get("recompile_reason")
    except Exception:  # Dynamo's internals move between releases
        pass
    try:
        code = gm.code
    except Exception as e:
        code = "(the graph's code could not be printed: %s)" % e
    _log.graphs[name] = Graph(name, compile_id, reason, _graph_location(gm), code)


def graph_ran(name: str, how: str):
    """Where graph `name` ran after its last trace (a region of a split
    graph does not say for its graph)."""
    g = _log.graph_of(name)
    if g is not None and "." not in name:
        g.ran = how


def fallback(where: str, what: str, reason: str, source: Optional[str] = None):
    g = _log.graph_of(where)
    if g is not None:
        g.fallbacks.append(Fallback(where, what, reason, source))


def region_created(name: str, aten_gm: torch.fx.GraphModule) -> str:
    """A region `name` was traced (again, for new shapes: each trace is a
    region of its own); returns the key its compiles are logged under."""
    g = _log.graph_of(name)
    if g is None:
        return name
    try:
        code = aten_gm.code
    except Exception as e:
        code = "(the graph's code could not be printed: %s)" % e
    trace = 1 + sum(1 for r in g.regions.values() if r.name == name)
    key = name if trace == 1 else "%s (trace %d)" % (name, trace)
    g.regions[key] = Region(name, code, trace)
    return key


def describe_inputs(args) -> str:
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            s = "%s[%s]" % (str(a.dtype).replace("torch.", ""), ", ".join(str(d) for d in a.shape))
            if a.requires_grad:
                s += " grad"
            out.append(s)
        else:
            out.append(type(a).__name__ + " " + repr(a)[:20])
    return ", ".join(out)


def regions_planned(name: str, n: int):
    """Graph `name` was split into `n` regions."""
    g = _log.graph_of(name)
    if g is not None:
        g.planned = n


def progress(name: str, message: str):
    """A progress line on stderr, with the report on: which region of how
    many, what it does, the seconds since the report was turned on."""
    if _log.progress:
        g = _log.graph_of(name)
        m = re.search(r"\.region (\d+)", name)
        k = int(m.group(1)) + 1 if m else 1
        n = g.planned if g is not None else 1
        where = "%s (region %d of %d)" % (name, k, n) if m or g is None or name in g.regions else name
        print("aot: [%7.2fs] %s: %s" % (time.time() - _log.started, where, message), file=sys.stderr, flush=True)


def variant_compiled(name: str, args, variant, seconds: float, pipeline: str, budget: Optional[float]):
    g = _log.graph_of(name)
    r = g.regions.get(name) if g is not None else None
    if r is None:
        return
    inputs = describe_inputs(args)
    if r.first_inputs is None:
        r.first_inputs = inputs
        why = "first call" if r.trace == 1 else "a call with new shapes: traced to ATen again (trace %d)" % r.trace
    else:
        why = "a call with a new calling convention (inputs: %s; the first variant's: %s)" % (inputs, r.first_inputs)
    try:
        native = variant.fn.report()
    except Exception as e:
        native = {"passes": [], "codegen_seconds": 0.0, "ir": None, "dot": None, "error": str(e)}
    r.variants.append(Variant(len(r.variants), variant.training, inputs, pipeline, seconds,
                              variant.translation.text if _log.detailed else None, native, budget, why))
    if _log.progress:
        passes = ", ".join("%s %.3fs" % (p, s) for p, s in native.get("passes", []) if s >= 0.001)
        progress(name, "compiled in %.2fs (%s; codegen %.3fs)" % (seconds, passes or "passes < 1 ms",
                                                                  native.get("codegen_seconds", 0.0)))


def variant_failed(name: str, args, reason: str):
    g = _log.graph_of(name)
    r = g.regions.get(name) if g is not None else None
    if r is not None:
        r.failed.append((describe_inputs(args), reason))


# ------------------------------------------------------------ rendering

def human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0
    return str(n)


def _svg(dot_text: str) -> Tuple[Optional[str], str]:
    """(SVG or None, why not) for a picture."""
    exe = shutil.which("dot")
    if exe is None:
        return None, "Graphviz's dot is not on the PATH: the picture's text follows"
    try:
        r = subprocess.run([exe, "-Tsvg"], input=dot_text, capture_output=True, text=True, timeout=DOT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, "dot took more than %d s: the picture's text follows" % DOT_TIMEOUT_S
    if r.returncode != 0:
        return None, "dot failed (%s): the picture's text follows" % r.stderr.strip()[:300]
    svg = r.stdout
    start = svg.find("<svg")
    return (svg[start:] if start >= 0 else None), "dot gave no SVG"


_CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2em; color: #222; max-width: 110em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.1em; margin-top: 1.5em; } h4 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { border: 1px solid #ccc; padding: 0.2em 0.6em;
  text-align: left; vertical-align: top; font-size: 0.92em; } th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.85em; max-height: 40em; }
details { margin: 0.4em 0; } summary { cursor: pointer; color: #1a4f8b; }
.aot { color: #1b7a2b; font-weight: bold; } .torch { color: #b03a2e; font-weight: bold; }
.split { color: #b9770e; font-weight: bold; } .reason { color: #7b241c; }
.picture { overflow: auto; border: 1px solid #ddd; max-height: 60em; }
.muted { color: #777; }
"""


class _Html:
    def __init__(self):
        self.parts: List[str] = []

    def add(self, s: str):
        self.parts.append(s)

    def text(self, s: Any) -> str:
        return html.escape(str(s))

    def pre(self, s: str) -> str:
        return "<pre>%s</pre>" % html.escape(s)

    def details(self, summary: str, body: str, open_: bool = False) -> str:
        return "<details%s><summary>%s</summary>%s</details>" % (" open" if open_ else "", html.escape(summary), body)

    def table(self, head: List[str], rows: List[List[str]], num: Tuple[int, ...] = ()) -> str:
        out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % html.escape(h) for h in head)]
        for r in rows:
            out.append("<tr>%s</tr>" % "".join(
                '<td class="num">%s</td>' % c if i in num else "<td>%s</td>" % c for i, c in enumerate(r)))
        out.append("</table>")
        return "".join(out)


def _machine() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _variant_html(h: _Html, v: Variant) -> str:
    out = []
    native = v.native
    mode = "training (forward and backward)" if v.training else "inference"
    out.append("<h4>Variant %d: %s</h4>" % (v.index, h.text(mode)))
    out.append("<p>Inputs: <code>%s</code><br>Compiled because: %s<br>Pipeline: <code>%s</code></p>" % (
        h.text(v.inputs), h.text(v.reason), h.text(v.pipeline)))
    rows = [[h.text(p), "%.2f" % (s * 1000)] for p, s in native.get("passes", [])]
    rows.append(["code generation (forward)", "%.2f" % (native.get("codegen_seconds", 0.0) * 1000)])
    rows.append(["<b>total, tracing to ATen excluded</b>", "<b>%.2f</b>" % (v.seconds * 1000)])
    out.append(h.details("Compile time per pass (%.1f ms in all)" % (v.seconds * 1000),
                         h.table(["pass", "ms"], rows, num=(1,)), open_=False))
    ir = native.get("ir")
    part = native.get("partition")
    if part:
        budget = "none (the runtime-optimal cut)" if v.budget is None else "%.2f" % v.budget
        out.append('<p class="partition">Partition: <b>%s</b>; <b>%d</b> values saved for backward, '
                   "keeping <b>%s</b> alive (the caller's arguments excluded); modelled peak of forward "
                   "and backward: <b>%s</b>; memory budget: %s.</p>" % (
                       h.text(part["strategy"]), part["num_saved"], human_bytes(part["saved_bytes"]),
                       human_bytes(part["peak_bytes"]), h.text(budget)))
        saved = part["saved"]
        if saved:
            out.append(h.details("Saved activations (%d)" % len(saved), h.table(
                ["#", "type", "bytes"], [[str(i), "<code>%s</code>" % h.text(t), human_bytes(b)]
                                         for i, t, b in saved], num=(0, 2)), open_=len(saved) <= 20))
    elif v.training and ir is not None:
        out.append("<p>No partition: nothing of this region needs a backward.</p>")
    if v.ir_before is not None:
        out.append(h.details("IR before the pipeline", h.pre(v.ir_before)))
    if ir is not None:
        out.append(h.details("IR after the pipeline", h.pre(ir)))
    dot_text = native.get("dot")
    if dot_text:
        title = "Picture of the IR after the pipeline" + (" (forward, backward and the cut)" if part else "")
        nodes = dot_text.count(" [label=")
        partition = native.get("dot_partition")
        if nodes > MAX_PICTURE_NODES and partition:
            svg, why = _svg(partition)
            if svg is not None:
                out.append(h.details("Picture of the partition: the values saved for backward and the cut (the "
                                     "whole graph has %d nodes, too many to draw)" % nodes,
                                     '<div class="picture">%s</div>' % svg, open_=True))
            out.append(h.details(title + ": its Graphviz text (%d nodes)" % nodes, h.pre(dot_text)))
        else:
            svg, why = _svg(dot_text) if nodes <= MAX_PICTURE_NODES else \
                (None, "%d nodes are too many to draw readably: the picture's text follows" % nodes)
            if svg is not None:
                out.append(h.details(title, '<div class="picture">%s</div>' % svg, open_=True))
            else:
                out.append(h.details(title + ": " + why, h.pre(dot_text)))
    elif ir is None:
        out.append('<p class="muted">The IR after the pipeline and its picture are kept with the report on '
                   "before the compile (<code>aot_torch.enable_report()</code> or <code>AOT_REPORT</code>).</p>")
    return "".join(out)


def report(path: str, profile: Any = None) -> str:
    """Writes the compile report of everything compiled so far to `path`
    (one self-contained HTML file) and returns the path. `profile`: a
    finished :func:`aot_torch.profiler.profile`, whose time per region and
    eager's for the same graphs are added."""
    h = _Html()
    graphs = list(_log.graphs.values())
    fallbacks = [f for g in graphs for f in g.fallbacks]
    recompiles = [g for g in graphs if g.recompile_reason]
    variants = [v for g in graphs for r in g.regions.values() for v in r.variants]
    h.add("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>aot compile report</title><style>%s</style></head><body>" % _CSS)
    h.add("<h1>aot compile report</h1>")
    h.add("<p class=\"muted\">Written %s &middot; aot %s &middot; PyTorch %s &middot; Python %s &middot; %s</p>" % (
        h.text(datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")), h.text(_native.VERSION),
        h.text(torch.__version__), h.text(platform.python_version()), h.text(_machine())))
    if not _log.detailed:
        h.add("<p class=\"muted\">Recorded without the report on: the IR after the pipeline and the pictures are "
              "missing. Turn it on before compiling with <code>aot_torch.enable_report()</code> or "
              "<code>AOT_REPORT=path.html</code>.</p>")

    h.add('<h2 id="summary">Summary</h2>')
    h.add("<p>%d Dynamo graph(s), %d region(s) compiled in %d variant(s), %d fallback(s), %d recompile(s) by "
          "Dynamo; %.2f s compiling in aot.</p>" % (
              len(graphs), sum(len(g.regions) for g in graphs), len(variants), len(fallbacks), len(recompiles),
              sum(v.seconds for v in variants)))
    rows = []
    for g in graphs:
        cls = "aot" if g.ran.startswith("aot") else ("split" if g.ran.startswith("split") else "torch")
        why = "; ".join(f.reason for f in g.fallbacks) or "&mdash;"
        rows.append(['<a href="#%s">%s</a>' % (_anchor(g.name), h.text(g.name)), h.text(g.compile_id),
                     h.text(g.location or "?"), '<span class="%s">%s</span>' % (cls, h.text(g.ran)),
                     h.text(why) if g.fallbacks else why])
    h.add(h.table(["graph", "compile id", "source", "ran", "why not (all) in aot"], rows))

    h.add('<h2 id="fallbacks">Fallbacks</h2>')
    if fallbacks:
        h.add(h.table(["where", "what runs in PyTorch", "reason", "source line"], [
            [h.text(f.where), h.text(f.what), '<span class="reason">%s</span>' % h.text(f.reason),
             "<code>%s</code>" % h.text(f.source) if f.source else '<span class="muted">unknown</span>']
            for f in fallbacks]))
    else:
        h.add("<p>None: every region ran in aot.</p>")

    h.add('<h2 id="recompiles">Recompiles</h2>')
    if recompiles:
        h.add(h.table(["graph", "compile id", "source", "guard that failed"], [
            [h.text(g.name), h.text(g.compile_id), h.text(g.location or "?"),
             '<code class="reason">%s</code>' % h.text(g.recompile_reason)] for g in recompiles]))
    else:
        h.add("<p>Dynamo recompiled nothing.</p>")
    again = [(r.name, v) for g in graphs for r in g.regions.values() for v in r.variants
             if v.index > 0 or r.trace > 1]
    if again:
        h.add("<p>Regions aot compiled again, for new shapes or a new calling convention, under the same "
              "Dynamo graph:</p>")
        h.add(h.table(["region", "variant", "why"], [[h.text(n), str(v.index), h.text(v.reason)] for n, v in again]))

    if profile is not None and getattr(profile, "regions", None):
        h.add('<h2 id="profile">Time per region</h2>')
        h.add(h.table(["region", "program", "calls", "ms per call", "kernels ms", "eager ms"], [
            [h.text(r.region), h.text(r.program), str(r.calls), "%.3f" % (r.wall / max(r.calls, 1) * 1000),
             "%.3f" % (r.kernels / max(r.calls, 1) * 1000),
             "%.3f" % (r.eager * 1000) if getattr(r, "eager", None) is not None else "&mdash;"]
            for r in profile.regions], num=(2, 3, 4, 5)))

    h.add('<h2 id="graphs">Graphs</h2>')
    for g in graphs:
        h.add('<section class="graph" id="%s"><h3>%s (compile id %s)</h3>' % (
            _anchor(g.name), h.text(g.name), h.text(g.compile_id)))
        h.add("<p>Source: <code>%s</code>; ran: %s.</p>" % (h.text(g.location or "?"), h.text(g.ran)))
        if g.recompile_reason:
            h.add('<p>Recompiled by Dynamo; the guard that failed: <code class="reason">%s</code></p>'
                  % h.text(g.recompile_reason))
        for f in g.fallbacks:
            h.add('<p>In PyTorch: %s &mdash; <span class="reason">%s</span>%s</p>' % (
                h.text(f.what), h.text(f.reason), " (<code>%s</code>)" % h.text(f.source) if f.source else ""))
        h.add(h.details("The FX graph Dynamo handed over", h.pre(g.fx_code)))
        for r in g.regions.values():
            key = r.name if r.trace == 1 else "%s, trace %d (new shapes)" % (r.name, r.trace)
            h.add('<section class="region"><h3>Region %s</h3>' % h.text(key))
            h.add(h.details("Its ATen graph (what aot translated)", h.pre(r.aten_code)))
            for inputs, reason in r.failed:
                h.add('<p>Not compiled for <code>%s</code>: <span class="reason">%s</span></p>' % (
                    h.text(inputs), h.text(reason)))
            for v in r.variants:
                h.add(_variant_html(h, v))
            h.add("</section>")
        h.add("</section>")
    h.add("</body></html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(h.parts))
    return path


def _anchor(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")
