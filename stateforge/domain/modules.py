"""`import_pack_part`: import a part of a pack (its `tools` or `tasks` package) wherever the folder lives.

    tools = import_pack_part(pack_dir, "tools", what="tools", error=ToolDefinitionError)

A pack folder is imported as a package of its own, under a name unique to the folder and to the state of
its files (`stateforge_pack_<folder>_<path digest>_<files digest>`), so that the pack's modules import
each other with relative imports (`from .lookup import find_song`, `from ..tools.playlists import ...`)
whether the folder ships inside Stateforge or lies anywhere else. A part may be a package (`tools/`, the
documented shape) or a single module (`tools.py`).

The module cache is keyed on every Python file of the folder (path, size, mtime): an edit to any of them
gives the pack a new name on its next load, and the modules of the stale version are dropped from
`sys.modules`. A failure while importing raises `error` naming the `file:line` of the pack's code at fault.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
import threading
import traceback
from pathlib import Path
from types import ModuleType

from stateforge.errors import StateforgeError

PREFIX = "stateforge_pack"
_LOADED: dict[str, str] = {}  # resolved pack folder -> the package name its files were last loaded as
_LOCK = threading.Lock()


def pack_files_stamp(root: Path) -> str:
    """A digest of every Python file under `root` (relative path, size, mtime): what the cache is keyed on."""
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def has_part(root: Path, part: str) -> bool:
    """Whether the pack folder `root` has the part `part`, as a package (`part/__init__.py`) or a module."""
    return (root / part / "__init__.py").is_file() or (root / f"{part}.py").is_file()


def part_file(root: Path, part: str) -> Path:
    """The file that defines the part: `part/__init__.py`, else `part.py`."""
    package = root / part / "__init__.py"
    return package if package.is_file() else root / f"{part}.py"


def import_pack_part(
    root: Path,
    part: str,
    *,
    what: str,
    error: type[StateforgeError],
    keep_own: bool = False,
) -> ModuleType:
    """Import `<pack>.<part>` of the pack folder `root` (cached until any Python file of the folder changes);
    `part` may be dotted (`tools.invites`: a module of the part, the same object the pack's tools use).

    Any failure raises `error` naming `file:line` ("importing the pack's <what> failed: ..."); with
    `keep_own`, an `error` the module raises itself passes through unchanged (its message already names
    the site)."""
    root = root.resolve()
    top = part.split(".")[0]
    if not has_part(root, top):
        raise error(f"{root}: no {top}/ package (or {top}.py) in this pack folder.")
    stamp = pack_files_stamp(root)
    where = hashlib.sha1(str(root).encode()).hexdigest()[:10]
    folder = "".join(c if c.isalnum() else "_" for c in root.name)
    package = f"{PREFIX}_{folder}_{where}_{stamp}"
    name = f"{package}.{part}"
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        stale = _LOADED.get(str(root))
        if stale and stale != package:
            forget(stale)
        if package not in sys.modules:
            spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
            spec.submodule_search_locations = [str(root)]
            holder = importlib.util.module_from_spec(spec)
            holder.__path__ = [str(root)]
            sys.modules[package] = holder
        try:
            module = importlib.import_module(name)
        except StateforgeError as exc:
            forget(package)
            if keep_own and isinstance(exc, error):
                raise
            raise error(f"{error_site(exc, root, top)}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - any error in the pack's modules
            forget(package)
            raise error(
                f"{error_site(exc, root, top)}: importing the pack's {what} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        _LOADED[str(root)] = package
        return module


def forget(package: str) -> None:
    """Drop a loaded pack package and all its modules from `sys.modules`."""
    for key in [k for k in sys.modules if k == package or k.startswith(package + ".")]:
        sys.modules.pop(key, None)


def error_site(exc: BaseException, root: Path, part: str) -> str:
    """`file:line` where `exc` arose inside the pack folder `root`: a syntax error's site, else the innermost
    frame in one of the folder's files; the part's own file with "?" when it did not pass through them."""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return f"{exc.filename}:{exc.lineno}"
    inside = [
        f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve().is_relative_to(root)
    ]
    if inside:
        return f"{inside[-1].filename}:{inside[-1].lineno or '?'}"
    return f"{part_file(root, part)}:?"
