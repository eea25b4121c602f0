"""Headless Chromium for the tests: loads a page, and gives back what a
person would see and what the browser complained about.

Chromium is driven over the DevTools protocol on a pipe
(`--remote-debugging-pipe`: the browser reads commands from its file
descriptor 3 and writes answers and events to 4, JSON messages ended by a
NUL byte), so no WebDriver or websocket library is needed. `load(path)`
opens a file in a fresh tab and waits for its load event; the console's
errors and warnings, uncaught exceptions and the browser's own error log
entries (a resource that failed to load) are collected from the start.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional


def chromium() -> Optional[str]:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Page:
    """What loading a page gave: its text, its section ids, the problems
    the browser reported, and a PNG screenshot."""

    def __init__(self, text: str, ids: List[str], problems: List[str], png: bytes):
        self.text = text
        self.ids = ids
        self.problems = problems
        self.png = png


class Browser:
    def __init__(self, exe: str, timeout: float = 60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="aot-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Moved above the descriptors the child gets, so that placing them
        # at 3 and 4 cannot overwrite one with the other.
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 64)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 64)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def place():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        # As root the sandbox cannot start; nothing here is untrusted. A
        # container's /dev/shm may be too small for the renderer's shared
        # memory: temporary files instead.
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--remote-debugging-pipe",
                "--no-first-run", "--user-data-dir=" + self.profile, "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=place, pass_fds=(3, 4))
        os.close(high_r)
        os.close(high_w)
        self._buf = b""
        self._next_id = 0
        self.events: List[Dict[str, Any]] = []

    def _send(self, method: str, params: Optional[dict] = None, session: Optional[str] = None) -> dict:
        self._next_id += 1
        msg: Dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            msg["sessionId"] = session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        want = self._next_id
        while True:
            m = self._receive()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def _receive(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium sent nothing for %.0f s" % self.timeout)
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe (exit status %s)" % self.proc.poll())
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def _wait_event(self, method: str, session: str):
        for m in self.events:
            if m.get("method") == method and m.get("sessionId") == session:
                return
        while True:
            m = self._receive()
            self.events.append(m)
            if m.get("method") == method and m.get("sessionId") == session:
                return

    def load(self, path: str, width: int = 1300, height: int = 1800) -> Page:
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self._send(domain + ".enable", session=s)
        self._send("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=s)
        self._send("Page.navigate", {"url": "file://" + os.path.abspath(path)}, session=s)
        self._wait_event("Page.loadEventFired", s)
        text = self._evaluate(s, "document.body ? document.body.innerText : ''")
        ids = self._evaluate(s, "Array.from(document.querySelectorAll('[id]')).map(e => e.id)")
        png = base64.b64decode(self._send("Page.captureScreenshot", {"format": "png"}, session=s)["data"])
        return Page(text, ids, self._problems(s), png)

    def _evaluate(self, session: str, expression: str) -> Any:
        r = self._send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluating %r: %s" % (expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def _problems(self, session: str) -> List[str]:
        out = []
        for m in self.events:
            if m.get("sessionId") != session:
                continue
            p = m.get("params", {})
            if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                                  for a in p.get("args", []))))
            elif m.get("method") == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("uncaught: %s" % d.get("exception", {}).get("description", d.get("text")))
            elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                e = p["entry"]
                out.append("log %s: %s %s" % (e["level"], e.get("text"), e.get("url", "")))
        return out

    def close(self):
        try:
            self._send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
