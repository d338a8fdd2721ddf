"""Shared fixtures. Prefect settings are fixed before anything imports Prefect."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# Prefect must never talk to a server the developer happens to run, nor write into ~/.prefect.
_PREFECT_HOME = Path(tempfile.mkdtemp(prefix="stateforge-prefect-"))
os.environ["PREFECT_HOME"] = str(_PREFECT_HOME)
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = "90"
os.environ.pop("PREFECT_API_URL", None)
# The LLM path must be asked for explicitly in tests, whatever the developer's shell holds.
for _var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "STATEFORGE_LLM_MODEL", "STATEFORGE_LLM_BACKEND",
             "STATEFORGE_LLM_CACHE"):
    os.environ.pop(_var, None)

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory):
    """One Prefect test server for the session, with results stored in a temporary folder."""
    from prefect.settings import PREFECT_RESULTS_LOCAL_STORAGE_PATH, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    results = tmp_path_factory.mktemp("prefect-results")
    with temporary_settings({PREFECT_RESULTS_LOCAL_STORAGE_PATH: results}):
        with prefect_test_harness(server_startup_timeout=90):
            yield


@pytest.fixture
def refused_url() -> Iterator[str]:
    """`http://127.0.0.1:<port>/v1` where connections are refused for as long as the test runs.

    The port is held by a socket that is bound but never listens: the kernel refuses every connection,
    and no other process (another test's server) can take the port meanwhile, as it could if the port
    were merely found free and released.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.fixture
def unconnectable_url() -> Iterator[str]:
    """`http://127.0.0.1:<port>/v1` where a connection is never made: every connect attempt times out.

    The port listens with an accept queue of one that is filled at once and never accepted from, so the
    kernel drops the handshake of every further connection (the client's connect times out, as it does
    when the client is starved on a loaded machine); no request ever reaches the port.
    """
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        address = listener.getsockname()
        fillers = [socket.socket() for _ in range(3)]
        try:
            for filler in fillers:
                filler.setblocking(False)
                filler.connect_ex(address)
            yield f"http://127.0.0.1:{address[1]}/v1"
        finally:
            for filler in fillers:
                filler.close()
