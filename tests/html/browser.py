"""A real headless Chromium, driven over the DevTools protocol, for the tests of HTML pages.

    with Chromium.launch(tmp_path) as browser:          # pytest.skip(...) when Chromium is missing
        page = browser.open(path)                         # waits for the load event
        page.evaluate("document.title")
        page.screenshot(tmp_path / "page.png")
        page.problems()                                   # exceptions, console errors, network requests

The protocol runs over a pipe (`--remote-debugging-pipe`: file descriptors 3 and 4 of the browser,
messages as JSON ended by NUL), so no port and no websocket library is involved. Chromium comes from the
Debian package (`make browser` installs it; `make test` runs that first).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
)
"""Flags that work here (root, no display, no network but the package registries)."""

TIMEOUT = 60.0
"""Seconds to wait for one answer of the browser (a loaded machine is slow, never this slow)."""


def chromium_binary() -> str | None:
    """The Chromium executable on PATH, or None."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(AssertionError):
    """The browser died, answered with an error, or did not answer in time."""


@dataclass
class Page:
    """One tab, attached with a flat session: commands and the events they caused."""

    browser: Chromium
    session: str
    events: list[dict[str, Any]] = field(default_factory=list)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call `method` in this tab and return its result."""
        return self.browser.send(method, params, session=self.session)

    def evaluate(self, expression: str) -> Any:
        """Evaluate JavaScript in the page (awaiting a promise) and return its value as JSON."""
        found = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in found:
            raise BrowserError(f"JavaScript failed: {found['exceptionDetails']}")
        return found["result"].get("value")

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        """A PNG of the viewport (or of the whole page, up to 16,000 pixels tall)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params |= {"captureBeyondViewport": True,
                       "clip": {"x": 0, "y": 0, "width": size["width"],
                                "height": min(size["height"], 16000), "scale": 1}}
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", **params)["data"]))
        return path

    def problems(self) -> list[str]:
        """Everything that went wrong while the page ran: exceptions, console errors and warnings, log
        errors, and any request that is not the page's own file (a self-contained page makes none)."""
        self.browser.drain()
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning",
                                                                                  "assert"):
                found.append(f"console.{params['type']}: {[a.get('value') for a in params.get('args', [])]}")
            elif method == "Log.entryAdded" and params["entry"].get("level") in ("error", "warning"):
                found.append(f"log {params['entry']['level']}: {params['entry'].get('text')}")
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if not url.startswith(("file://", "data:", "about:")):
                    found.append(f"network request: {url}")
        return found


class Chromium:
    """A headless Chromium process and its DevTools pipe."""

    def __init__(self, process: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self.process, self._out, self._in = process, to_browser, from_browser
        self._buffer = b""
        self._next = 0
        self.pages: dict[str, Page] = {}

    @classmethod
    def launch(cls, profile: Path, *, width: int = 1366, height: int = 860) -> Chromium:
        """Start Chromium with a fresh profile in `profile`; skip the test (saying how to install it) when
        there is no Chromium."""
        binary = chromium_binary()
        if binary is None:
            pytest.skip("no Chromium: run `make browser` (apt-get install chromium, as root) for this test")
        profile.mkdir(parents=True, exist_ok=True)
        cmd_r, cmd_w = os.pipe()
        out_r, out_w = os.pipe()
        # The browser's ends, copied above 10 so that putting them on 3 and 4 in the child cannot
        # overwrite one with the other. Until the child exists, every pipe end stays open: 3 and 4 are
        # then open here too, which `pass_fds` needs (the child's 3 and 4 are replaced by `wire`).
        high_r, high_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(out_w, fcntl.F_DUPFD, 10)

        def wire() -> None:
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        args = [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                "--remote-debugging-pipe", "about:blank"]
        try:
            process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, preexec_fn=wire, pass_fds=(3, 4))
        finally:
            for fd in (cmd_r, out_w, high_r, high_w):
                os.close(fd)
        return cls(process, cmd_w, out_r)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the browser and wait for it."""
        try:
            self.send("Browser.close", {}, timeout=10)
        except (BrowserError, OSError):
            pass
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)

    def _read(self, timeout: float) -> dict[str, Any] | None:
        """One message, or None when none came within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium exited (code {self.process.poll()})")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        page = self.pages.get(message.get("sessionId", ""))
        if page is not None and "method" in message:
            page.events.append(message)

    def drain(self, seconds: float = 0.2) -> None:
        """Collect the events that arrive within `seconds`."""
        while (message := self._read(seconds)) is not None:
            self._dispatch(message)

    def send(self, method: str, params: dict[str, Any], *, session: str | None = None,
             timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send one command and wait for its answer; events that come meanwhile go to their page."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(max(0.0, deadline - time.monotonic()))
            if answer is None:
                raise BrowserError(f"no answer to {method} within {timeout:.0f} s")
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self._dispatch(answer)

    def open(self, path: Path, *, timeout: float = TIMEOUT) -> Page:
        """A new tab showing the file `path`, returned once its load event has fired."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        self.pages[session] = page
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(f"{domain}.enable")
        page.send("Page.navigate", url=path.resolve().as_uri())
        deadline = time.monotonic() + timeout
        while not any(e["method"] == "Page.loadEventFired" for e in page.events):
            message = self._read(max(0.0, deadline - time.monotonic()))
            if message is None:
                raise BrowserError(f"{path} did not finish loading within {timeout:.0f} s")
            self._dispatch(message)
        return page


PLOTS_JS = """
[...document.querySelectorAll('figure.plot')].map(function (f) {
  var svg = f.querySelector('svg'), box = svg ? svg.getBoundingClientRect() : null;
  var data = document.getElementById(f.id + '-data'), drawn = data ? data.getBBox() : null;
  var marks = data ? data.querySelectorAll('path, use, rect').length : 0;
  return {id: f.id, width: box ? box.width : 0, height: box ? box.height : 0,
          data_width: drawn ? drawn.width : 0, data_height: drawn ? drawn.height : 0, marks: marks};
})
"""
"""Every `figure.plot` of a page: its SVG's rendered size, and the box of its drawn marks (`<id>-data`)."""


def undrawn(plots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plots (from `PLOTS_JS`) that the browser did not draw: no size, or no visible marks."""
    return [p for p in plots if not (p["width"] > 50 and p["height"] > 20 and p["marks"] > 0
                                     and p["data_width"] > 0 and p["data_height"] > 0)]


def distinct_colours(png: Path) -> int:
    """How many colours a screenshot holds (a blank or failed page has one or two)."""
    from PIL import Image

    with Image.open(png) as image:
        return len(image.convert("RGB").getcolors(maxcolors=1 << 20) or [])
