"""The exec_code sandbox's fork server: run as `python -I -S sandbox_zygote.py FD`, it loads the child's
modules once and forks one child per run, so a run costs a fork (about 1 ms of CPU) instead of an
interpreter's start (about 25 ms). The harness starts it (`sandbox_forks.py`, the parent side) and talks
to it over the AF_UNIX SOCK_SEQPACKET socket FD, one JSON message a packet:

    parent -> server   {"spawn": id, "cwd": dir} + 3 descriptors (the child's stdin, stdout, stderr)
    server -> parent   {"spawned": id, "pid": pid}        (or {"spawned": id, "error": why})
    parent -> server   {"kill": pid}                      SIGKILL to the child's process group, if alive
    server -> parent   {"exited": pid, "code": code}      reaped: exit status, or -signal

The server never runs a model's code and never changes after it is ready: each child is a copy of it
made at the fork, so nothing a run does (variables, imports, changes to a module's classes, the random
state: reseeded) can reach another run; the child then goes through `sandbox_child.main()` exactly as a
freshly started interpreter would (limits, privileges dropped, the code run). The modules only the
server uses (`socket`, `select`, `signal`) are dropped from the child's `sys.modules` before the code
runs, so the child can import nothing a fresh one could not. The server exits when the parent closes the
socket (or dies), killing the children it still has.

It uses the standard library only, and only the server is a child of the harness: the runs' children
are its children, reaped here and reported as `exited`; the harness reads their CPU time from the
server's (`/proc/<pid>/stat`: its own and its reaped children's).
"""

import gc
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sandbox_child as child  # noqa: E402 - found beside this file (isolated mode adds no path)

sys.path.pop(0)

for _name in (*child.ALLOWED_MODULES, *child.LAZY_IMPORTS):
    __import__(_name)
child.prepare()
_BASE = set(sys.modules)

import select  # noqa: E402 - after _BASE: what only the server needs, dropped in the children
import signal  # noqa: E402
import socket  # noqa: E402

SERVER_ONLY = sorted(set(sys.modules) - _BASE)
"""Modules loaded for the server alone; a child forgets them (`import socket` must fail there as in a
fresh interpreter: its file cannot be opened once the descriptors are limited)."""


def _send(sock, message):
    sock.send(json.dumps(message).encode())


def _forked(fds, cwd):
    """In the new child: its own session, the three descriptors as 0, 1 and 2, then a run. Never returns."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        os.chdir(cwd)
        for name in SERVER_ONLY:
            sys.modules.pop(name, None)
        child.reseed()
        child.main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - reported on the child's stderr for the parent to show
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)


def _reap(sock, children):
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        _send(sock, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def _handle(sock, children):
    """One message from the parent; False when the parent has gone."""
    data, fds, _, _ = socket.recv_fds(sock, 65536, 3)
    if not data:
        return False
    message = json.loads(data)
    if "kill" in message:
        pid = int(message["kill"])
        if pid in children:  # not reaped yet: the pid and its group cannot belong to anyone else
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:  # the child has not called setsid() yet
                os.kill(pid, signal.SIGKILL)
        return True
    ident = message.get("spawn")
    try:
        if len(fds) != 3:
            raise OSError(f"expected 3 descriptors, got {len(fds)}")
        pid = os.fork()
        if pid == 0:
            _forked(fds, message["cwd"])
        children.add(pid)
        _send(sock, {"spawned": ident, "pid": pid})
    except OSError as exc:
        _send(sock, {"spawned": ident, "error": str(exc)})
    finally:
        for fd in fds:
            os.close(fd)
    return True


def serve(fd):
    """Answer the parent until it closes the socket; then kill what is left and exit."""
    sock = socket.socket(fileno=fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    children = set()
    gc.collect()
    gc.freeze()  # the children's collections skip the inherited objects: fewer copy-on-write page copies
    try:
        while True:
            ready, _, _ = select.select([sock, wake_r], [], [])
            if wake_r in ready:
                os.read(wake_r, 4096)
            _reap(sock, children)
            if sock in ready and not _handle(sock, children):
                break
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        for pid in children:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


if __name__ == "__main__":
    serve(int(sys.argv[1]))
