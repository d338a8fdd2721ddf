"""The exec_code sandbox against the ways out people try: files, modules, dunder tricks, frames, processes,
CPU, memory and time; with the Python layer on (as the solver runs it) and off (the OS layer alone must
still hold). Real child processes; the tool calls are answered by a plain function."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from stateforge.episode import Episode
from stateforge.evaluate.solvers.sandbox import RunResult, Sandbox, SandboxLimits
from stateforge.evaluate.solvers.sandbox_forks import shared_server

pytestmark = pytest.mark.xdist_group("evaluate")
TOOLS = [("get_user", ["id"])]


def answer(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if arguments.get("id") == 0:
        return {"ok": False, "error": "no user has id 0"}
    return {"ok": True, "value": {"id": arguments.get("id"), "name": "Ada", "tags": ["a", "b"]}}


@pytest.fixture(scope="module")
def guarded() -> Any:
    sandbox = Sandbox(SandboxLimits(timeout=3, cpu_seconds=1, memory_mb=256))
    yield sandbox
    sandbox.close()


@pytest.fixture(scope="module")
def raw() -> Any:
    sandbox = Sandbox(SandboxLimits(timeout=3, cpu_seconds=1, memory_mb=256), guards=False)
    yield sandbox
    sandbox.close()


def run(sandbox: Sandbox, code: str) -> RunResult:
    return sandbox.run(code, TOOLS, answer)


def test_tools_are_functions_returning_json_or_raising_tool_error(guarded: Sandbox) -> None:
    code = (
        "import json\nuser = get_user(id=7)\nprint(user['name'], json.dumps(user['tags']))\n"
        "try:\n    get_user(0)\nexcept ToolError as error:\n    print('refused:', error)\n"
        "def twice(n):\n    return get_user(n)['id'] * 2\n[twice(i) for i in (1, 2)]"
    )
    result = run(guarded, code)
    assert (result.stdout, result.result, result.error, result.calls) == (
        'Ada ["a", "b"]\nrefused: no user has id 0\n', "[2, 4]", None, 4
    )
    failed = run(guarded, "x = 1\nget_user(id=0)")
    assert failed.error is not None and failed.error.splitlines() == [
        "Traceback (most recent call last):", "  line 2, in <module>", "    get_user(id=0)",
        "ToolError: no user has id 0",
    ]
    assert "sandbox_child" not in failed.text() and failed.text().startswith("error:")
    dates = (
        "import datetime\nfrom collections.abc import Mapping\n"
        "datetime.datetime.strptime('2024-01-02', '%Y-%m-%d').year"
    )
    assert run(guarded, dates).result == "2024"  # strptime's lazy import is loaded before the limits


@pytest.mark.parametrize(
    ("code", "refusal"),
    [
        ("open('/etc/passwd').read()", "name 'open' is not defined"),
        ("import socket", "import of 'socket' is not allowed"),
        ("import os", "import of 'os' is not allowed"),
        ("import subprocess", "import of 'subprocess' is not allowed"),
        ("from ctypes import CDLL", "import of 'ctypes' is not allowed"),
        ("__import__('os')", "the name '__import__' is not allowed"),
        ("__builtins__['open']", "the name '__builtins__' is not allowed"),
        ("[c for c in ().__class__.__base__.__subclasses__()]", "attribute '__subclasses__' is not allowed"),
        ("getattr((), '__cl' + 'ass__')", "attribute '__class__' is not allowed"),
        ("def g():\n    yield\nit = g()\nit.gi_frame", "attribute 'gi_frame' is not allowed"),
        ("import random\nrandom._os", "attribute '_os' is not allowed"),
        ("import typing\ntyping.sys", "has no attribute 'sys'"),
        ("from json import decoder", "cannot import name 'decoder'"),
        ("import _strptime", "import of '_strptime' is not allowed"),
        ("eval('1')", "name 'eval' is not defined"),
        ("exec('import os')", "name 'exec' is not defined"),
        ("vars(get_user)", "name 'vars' is not defined"),
    ],
)
def test_the_python_layer_refuses_the_ways_out(guarded: Sandbox, code: str, refusal: str) -> None:
    result = run(guarded, code)
    assert result.error is not None and refusal in result.error, result.error
    assert result.killed is None


def test_the_episode_file_cannot_be_read(guarded: Sandbox, raw: Sandbox, pack_db: Path) -> None:
    with Episode.open(pack_db) as episode:
        path = str(episode.path)
        assert "name 'open' is not defined" in (run(guarded, f"open({path!r}, 'rb').read()").error or "")
        escaped = run(raw, f"open({path!r}, 'rb').read(16)")  # the Python layer broken: the OS holds
        assert "Too many open files" in (escaped.error or ""), escaped.error


def test_the_os_layer_holds_without_the_python_layer(raw: Sandbox) -> None:
    cases = {
        "open('/etc/passwd').read()": "Too many open files",
        "import os\nos.listdir('/')": "Too many open files",
        "import os\nos.open('/etc/hostname', os.O_RDONLY)": "Too many open files",
        "open('notes.txt', 'w')": "Too many open files",
        "import socket": "Too many open files",  # not loaded yet: its file cannot even be opened
        "import os\nwhile True:\n    os.fork()": "Resource temporarily unavailable",
        "import os\nos.execv('/bin/sh', ['sh', '-c', 'id'])": "",
    }
    for code, error in cases.items():
        result = run(raw, code)
        assert result.error is not None and error in result.error, (code, result.error)
    inside = run(raw, "import os\n(dict(os.environ), os.getcwd(), os.getuid() if os.getuid() else 'same')")
    assert inside.result is not None and "{'LANG': 'C.UTF-8'}" in inside.result
    assert "stateforge-sandbox-" in inside.result
    if os.getuid() == 0:
        assert inside.result.endswith("65534)")  # root dropped to nobody before the code ran


def test_loops_sleeps_and_memory_hogs_are_stopped(guarded: Sandbox) -> None:
    spin = run(guarded, "while True:\n    pass")
    assert spin.killed in ("cpu", "timeout") and "was stopped" in (spin.error or "")
    sleep = run(guarded, "import time\ntime.sleep(60)")
    assert sleep.killed == "timeout" and "longer than 3 s" in (sleep.error or "")
    hog = run(guarded, "blob = bytearray(2 * 1024 ** 3)")
    assert hog.killed is None and "MemoryError" in (hog.error or "")
    after = run(guarded, "sum(range(10))")  # the sandbox goes on after each
    assert after.result == "45"


LEAVE = (
    "import textwrap, random\nleft = 'behind'\ntextwrap.TextWrapper.left = 1\nToolError.left = 2\n"
    "random.seed(7)\nrandom.random()"
)
PROBE = (
    "import textwrap, random\nfound = []\ntry:\n    left\n    found.append('variable')\nexcept NameError:\n"
    "    pass\ntry:\n    json\n    found.append('module')\nexcept NameError:\n    pass\n"
    "if hasattr(textwrap.TextWrapper, 'left'):\n    found.append('class attribute')\n"
    "if hasattr(ToolError, 'left'):\n    found.append('ToolError attribute')\n(found, random.random())"
)


def test_the_warm_child_carries_nothing_from_one_episode_to_the_next() -> None:
    limits = SandboxLimits(timeout=3, cpu_seconds=1, memory_mb=256)
    first, second = Sandbox(limits), Sandbox(limits)  # two episodes, one fork server
    first.warm()
    server = shared_server()
    seeded = run(first, "import json\n" + LEAVE)
    assert seeded.error is None and seeded.result is not None
    after_same_episode = run(first, PROBE)
    after_next_episode = run(second, PROBE)
    for probe in (after_same_episode, after_next_episode):
        assert probe.error is None and probe.result is not None, probe.error
        found, value = probe.result.rsplit(", ", 1)
        assert found == "([]", probe.result  # no variable, module, class or ToolError attribute left
        assert value.rstrip(")") != seeded.result  # the random state is each child's own
    assert after_same_episode.result != after_next_episode.result
    assert shared_server() is server and server.proc.poll() is None  # the same warm server served all
    first.close()
    second.close()


def test_each_run_is_a_new_child_of_the_fork_server_which_is_replaced_if_it_dies(raw: Sandbox) -> None:
    server = shared_server()
    ids = [run(raw, "import os\n(os.getpid(), os.getppid())").result for _ in range(2)]
    (pid1, parent1), (pid2, parent2) = (tuple(map(int, i.strip("()").split(", "))) for i in ids if i)
    assert pid1 != pid2 and parent1 == parent2 == server.proc.pid
    server.proc.kill()
    server.proc.wait()
    assert run(raw, "1 + 1").result == "2"  # a new server, started at the next run
    assert shared_server() is not server
