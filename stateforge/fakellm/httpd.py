"""HTTP/1.1 plumbing of the fake LLM server: a thread per connection, keep-alive, a clean shutdown.

`FakeHTTPServer` reads each request's body and hands (method, target, lower-case headers, body) to an
`App` callable that returns a `Reply`; it knows nothing of OpenAI. A thread per connection serves any
number of concurrent clients (bounded by the listen backlog of 128 waiting connections).
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from stateforge.fakellm.chat import ApiError, Reply

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024 * 1024

App = Callable[[str, str, Mapping[str, str], bytes], Reply]
"""Answers one request: (method, target, headers with lower-case names, body) -> reply. Never raises."""


class FakeHTTPServer(ThreadingHTTPServer):
    """A thread per connection; tracks open connections so that `close()` can drop idle keep-alives."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], app: App) -> None:
        self.app = app
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that vanished mid-request is routine here; anything else is logged as an error."""
        if isinstance(sys.exc_info()[1], OSError):
            log.debug("connection from %s dropped", client_address, exc_info=True)
        else:
            log.exception("fake LLM server failed on a connection from %s", client_address)

    def close_connections(self) -> None:
        """Shut every open connection down, waking threads that wait for a keep-alive request."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 plumbing only: read the body, ask the app, write the reply."""

    protocol_version = "HTTP/1.1"
    # Small replies on a kept-alive connection otherwise wait ~40 ms for the client's delayed ACK.
    disable_nagle_algorithm = True
    server_version = "stateforge-fake-llm/0.1"
    sys_version = ""

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        app = cast(FakeHTTPServer, self.server).app
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            self.close_connection = True
            reply = ApiError(413 if length.isdigit() else 400, "Bad or too large Content-Length.").reply
        else:
            body = self.rfile.read(int(length))
            headers = {name.lower(): value for name, value in self.headers.items()}
            reply = app(self.command, self.path, headers, body)
        self._write(reply)

    def _write(self, reply: Reply) -> None:
        payload = reply.payload()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client gave up (a timeout fault, a closed server): nothing left to tell it
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)
