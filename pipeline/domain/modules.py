"""`import_pack_module`: import a pack's Python file (tools.py, recipes.py) by its path.

    module = import_pack_module(path, prefix="stateforge_tools", what="tools", error=ToolDefinitionError)

Importing by path lets a pack folder outside the repository work too. The module is cached until the file
changes; a failure while importing raises `error` with the file and the line of the pack's code at fault.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
import traceback
from pathlib import Path
from types import ModuleType

from pipeline.errors import StateforgeError

_MODULES: dict[tuple[str, str, int], ModuleType] = {}
_LOCK = threading.Lock()


def import_pack_module(
    path: Path,
    *,
    prefix: str,
    what: str,
    error: type[StateforgeError],
    keep_own: bool = False,
) -> ModuleType:
    """Import the file at `path` as module `<prefix>_<folder>_<digest>` (cached until the file changes).

    Any failure raises `error` naming `path:line` ("importing the pack's <what> failed: ..."); with
    `keep_own`, an `error` the module raises itself passes through unchanged (its message already names
    the site)."""
    if not path.is_file():
        raise error(f"{path}: no such file.")
    path = path.resolve()
    key = (prefix, str(path), path.stat().st_mtime_ns)
    with _LOCK:
        if key in _MODULES:
            return _MODULES[key]
        digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
        module_name = f"{prefix}_{path.parent.name}_{digest}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise error(f"{path}: cannot be imported as a Python module.")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except StateforgeError as exc:
            sys.modules.pop(module_name, None)
            if keep_own and isinstance(exc, error):
                raise
            raise error(f"{path}:{error_line(exc, path)}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - any error in the pack's module
            sys.modules.pop(module_name, None)
            line = error_line(exc, path)
            raise error(
                f"{path}:{line}: importing the pack's {what} failed: {type(exc).__name__}: {exc}"
            ) from exc
        _MODULES[key] = module
        return module


def error_line(exc: BaseException, path: Path) -> int | str:
    """The line of `path` (resolved) where `exc` arose: a syntax error's line, else the innermost frame in
    that file; "?" when it did not pass through the file."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return exc.lineno
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path]
    return (frames[-1].lineno or "?") if frames else "?"
