"""The child side of the exec_code sandbox: `main()` runs in each child forked by the fork server
(`sandbox_zygote.py`), or as `python -I -S sandbox_child.py` by hand; the harness imports it only for its
constants (it uses the standard library alone; `sandbox.py` is the parent side and says what it
guarantees).

Protocol, one JSON object a line, on the child's stdin and stdout (the only files it has):

    child  -> parent   {"ready": true}                                    modules loaded, waiting
    parent -> child    {"code", "tools": [[name, [param, ...]], ...], "cpu_seconds", "memory_mb", "guards"}
    child  -> parent   {"started": true}                                  limits set, privileges dropped
    child  -> parent   {"call": name, "arguments": {...}}                 a tool function was called
    parent -> child    {"ok": true, "value": v} | {"ok": false, "error": why} | {"stop": why}
    child  -> parent   {"done": true, "stdout", "result", "error"}        the run's output

Order matters: the child starts with the protocol's modules (forked from the fork server: every allowed
module too; it waits for the request); then memory and CPU are bounded, the allowed modules the code
imports are loaded while files can still be opened (already loaded in a forked child), the other limits go
on (no new file descriptors, no processes, no file writes), root drops to `nobody`, and only then is the
code compiled, checked and run.
"""

import ast
import builtins
import io
import json
import linecache
import os
import resource
import sys
import traceback
import types

ALLOWED_MODULES = (
    "math", "cmath", "json", "re", "datetime", "time", "calendar", "collections", "collections.abc",
    "itertools", "functools", "statistics", "decimal", "fractions", "random", "textwrap", "heapq", "bisect",
    "copy", "pprint", "typing",
)
SAFE_BUILTINS = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "complex", "dict",
    "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "id", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord",
    "pow", "print", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "super",
    "tuple", "type", "zip", "True", "False", "None", "Ellipsis", "NotImplemented", "__build_class__",
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "Exception", "IndexError",
    "KeyError", "LookupError", "MemoryError", "NameError", "NotImplementedError", "OverflowError",
    "RecursionError", "RuntimeError", "StopIteration", "TypeError", "UnicodeError", "ValueError",
    "ZeroDivisionError",
)
FRAME_ATTRIBUTES = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame", "ag_code",
    "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "tb_frame", "tb_next",
})
"""Attributes that lead from an object to a frame and its globals (the classic way out of a namespace)."""
FILENAME = "<exec_code>"
MAX_OUTPUT = 20_000
MAX_RESULT = 5_000

_in = _out = None  # the real stdin and stdout, set by main() before the code can replace sys.stdout


def _send(message):
    _out.write(json.dumps(message, default=_jsonable, ensure_ascii=False).encode() + b"\n")
    _out.flush()


def _receive():
    line = _in.readline()
    if not line:
        raise SystemExit(3)  # the parent went away
    return json.loads(line)


def _jsonable(value):
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


class ToolError(Exception):
    """A tool refused the call (the message says why); nothing was changed."""

    __module__ = "builtins"  # shown as `ToolError: ...` in tracebacks, however this module was loaded


class Stopped(BaseException):
    """The episode's budget is spent: the run ends here (not catchable by `except Exception`)."""

    __module__ = "builtins"


def _view(name, modules):
    """The public face of an allowed module: no underscore names, no modules that are not allowed."""
    real = modules[name]
    # Not the module's own name: `from json import decoder` falls back to sys.modules["<name>.decoder"].
    view = types.ModuleType(f"exec_code view of {name}")
    for key in dir(real):
        if key.startswith("_"):
            continue
        value = getattr(real, key)
        if isinstance(value, types.ModuleType):
            full = f"{name}.{key}"
            if full not in ALLOWED_MODULES:
                continue
            value = _view(full, modules)
        setattr(view, key, value)
    return view


LAZY_IMPORTS = ("_strptime",)
"""Modules the allowed ones import on first use (`datetime.strptime`), from C, through the code's
`__import__`: given as they are (the code itself cannot name them: its imports are checked first)."""


def _importer(views):
    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name in LAZY_IMPORTS and name in sys.modules and not level:
            return sys.modules[name]
        if level or name not in views:
            raise ImportError(
                f"import of {name!r} is not allowed in exec_code; allowed: {', '.join(ALLOWED_MODULES)}"
            )
        return views[name] if fromlist else views[name.split(".")[0]]

    return guarded_import


def _guarded_getattr(obj, name, *default):
    if isinstance(name, str) and (name.startswith("_") or name in FRAME_ATTRIBUTES):
        raise AttributeError(f"attribute {name!r} is not allowed in exec_code")
    return getattr(obj, name, *default)


def _guarded_hasattr(obj, name):
    try:
        _guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def check(tree):
    """Refuse what leads out of the namespace: underscore attributes, frame attributes, dunder names, and
    imports of modules that are not allowed. Returns the first problem, or None."""
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and (node.attr.startswith("_") or node.attr in FRAME_ATTRIBUTES):
            return f"{where}: the attribute {node.attr!r} is not allowed in exec_code"
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            return f"{where}: the name {node.id!r} is not allowed in exec_code"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                if getattr(node, "level", 0) or name not in ALLOWED_MODULES:
                    return (f"{where}: import of {name!r} is not allowed in exec_code; allowed: "
                            f"{', '.join(ALLOWED_MODULES)}")
    return None


def _limit():
    """No new descriptors, processes or file writes; then drop root (CPU and memory are bounded already)."""
    os.closerange(3, 1 << 16)  # nothing but stdin, stdout and stderr stays open ...
    resource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))  # ... and no descriptor can be added
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.getuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


def _tool(name, params, stopped):
    def call(*args, **kwargs):
        if args:
            if len(args) == 1 and isinstance(args[0], dict) and not kwargs:
                kwargs = dict(args[0])
            elif len(args) > len(params):
                raise TypeError(f"{name}() takes at most {len(params)} positional arguments")
            else:
                kwargs = {**dict(zip(params, args, strict=False)), **kwargs}
        _send({"call": name, "arguments": kwargs})
        reply = _receive()
        if "stop" in reply:
            stopped.append(reply["stop"])
            raise Stopped(reply["stop"])
        if not reply.get("ok"):
            raise ToolError(reply.get("error") or "the call failed")
        return reply.get("value")

    call.__name__ = call.__qualname__ = name
    return call


def _trimmed(exc):
    """The traceback of the user's code only: its own frames, the error's type and message."""
    report = traceback.TracebackException.from_exception(exc, limit=-15)
    report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename == FILENAME])
    text = "".join(report.format())
    return text.replace(f'File "{FILENAME}", ', "")


_prepared = None  # the guarded builtins, made once by prepare() in the fork server (or per run)


def _guarded_builtins():
    """The allow-listed builtins, with imports through views of the allowed modules loaded now."""
    views = {m: _view(m, sys.modules) for m in ALLOWED_MODULES if m in sys.modules}
    safe = {k: getattr(builtins, k) for k in SAFE_BUILTINS}
    safe.update(__import__=_importer(views), getattr=_guarded_getattr, hasattr=_guarded_hasattr)
    return safe


def prepare():
    """Make the guarded builtins once, after every allowed module is loaded (the fork server calls it:
    each forked child gets its own copy, so what one run does to them no other run sees)."""
    global _prepared
    _prepared = _guarded_builtins()


def reseed():
    """A forked child's own random state (the fork copied the server's)."""
    import random

    random.seed()


def run(request):
    """Run one request's code; the `done` message."""
    code, guards = request["code"], request.get("guards", True)
    stopped = []
    namespace = {"__name__": "exec_code", "ToolError": ToolError}
    for name, params in request["tools"]:
        namespace[name] = _tool(name, params, stopped)
    if guards:
        namespace["__builtins__"] = _prepared if _prepared is not None else _guarded_builtins()
    captured = io.StringIO()
    result = error = None
    try:
        tree = ast.parse(code, FILENAME)
        problem = check(tree) if guards else None
        if problem:
            raise PermissionError(problem)
        linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        sys.stdout = captured
        try:
            exec(compile(tree, FILENAME, "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), FILENAME, "eval"), namespace)
                if value is not None:
                    result = repr(value)
        finally:
            sys.stdout = sys.__stdout__
    except SyntaxError as exc:
        error = "".join(traceback.format_exception_only(exc)).replace(f'File "{FILENAME}", ', "")
    except PermissionError as exc:
        error = f"refused: {exc}"
    except Stopped as exc:
        error = f"stopped: {exc}"
    except BaseException as exc:  # noqa: BLE001 - the code's own failure, for the model to read
        error = _trimmed(exc)
    output = captured.getvalue()
    if len(output) > MAX_OUTPUT:
        output = output[:MAX_OUTPUT] + f"\n... ({len(output) - MAX_OUTPUT} more characters cut)"
    if result is not None and len(result) > MAX_RESULT:
        result = result[:MAX_RESULT] + f"... ({len(result) - MAX_RESULT} more characters cut)"
    return {"done": True, "stdout": output, "result": result, "error": error, "stopped": bool(stopped)}


def needed(code):
    """The allowed modules the code imports (and what they import lazily), to load before the limits."""
    try:
        tree = ast.parse(code, FILENAME)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    wanted = [m for m in ALLOWED_MODULES if m in found]
    if "datetime" in found or "time" in found:
        wanted.append("_strptime")  # strptime imports it on first use, when no file can be opened
    return wanted


def main():
    global _in, _out
    _in, _out = sys.stdin.buffer, sys.stdout.buffer
    _send({"ready": True})
    request = _receive()
    memory = int(request["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))  # before the code is even parsed
    cpu = int(request["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    for module in needed(request["code"]):
        __import__(module)
    _limit()
    _send({"started": True})
    _send(run(request))


if __name__ == "__main__":
    main()
