"""The fake LLM server of the LLM benchmarks, in a child process so that its thread does not share the
benchmark's GIL.

    with fake_server(0.5, {"malformed": 0.04}, retry_after=0.2) as base_url:   # http://127.0.0.1:PORT/v1
        ...
        server_stats(base_url)["by_path"]
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def fake_server(latency: float, faults: dict[str, float] | None, **options: Any) -> Iterator[str]:
    """A `FakeLLMServer` in a child process (`stateforge.fakellm.server.serve`, seed 11 unless `options` say
    otherwise; `options` are its other keywords); yields its base URL and stops it on the way out."""
    code = (
        "import sys, json; from stateforge.fakellm.server import serve; "
        "serve(port=0, **json.loads(sys.argv[1]))"
    )
    arguments = json.dumps({"latency": latency, "faults": faults, "seed": 11, **options})
    child = subprocess.Popen([sys.executable, "-c", code, arguments], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        found = re.search(r"(http://\S+/v1)", child.stdout.readline())
        if not found:
            raise RuntimeError("the fake LLM server did not start")
        yield found.group(1)
    finally:
        child.terminate()
        child.wait(timeout=10)


def server_stats(base_url: str) -> dict[str, Any]:
    """The server's counters (`/_control/stats`): requests by path, the peak of requests in flight, ..."""
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/_control/stats") as answer:
        return json.loads(answer.read())
