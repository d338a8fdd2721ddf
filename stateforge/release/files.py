"""The bundle's folder: hashing its files, stable copies of reports, and moving it into place atomically.

    staging, work = open_staging(target, force=False)    # .<name>.*.partial and .<name>.*.work beside it
    ...write into staging...
    publish(staging, target, force=False)                # one rename (the old bundle kept until it succeeds)

A failed release removes both temporary folders (`discard`): nothing half-written is ever at `target`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from stateforge.errors import TerminalError
from stateforge.release.model import FileEntry
from stateforge.values import dumps

CHUNK = 1 << 20

VOLATILE = frozenset({"seconds", "wall_seconds", "timing"})
"""Report keys that measure the run, not the result: left out of a bundle's reports (anywhere)."""
LLM_VOLATILE = frozenset({
    "calls", "cache_hits", "retries", "total_retries", "cost_usd", "prompt_tokens", "completion_tokens",
    "cached_prompt_tokens", "cached_completion_tokens", "calls_per_chunk", "prompt_tokens_per_row",
    "gave_up", "fallbacks", "unpriced_models",
})
"""LLM accounting that depends on the cache's state (a first build calls, a rebuild hits the cache): left
out under an `llm` key."""
VERSION_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._+-]{0,63}$")


class ReleaseError(TerminalError):
    """A release cannot be made or read as asked; the message names the folder or file and what to do."""


def check_version(version: str) -> str:
    """`version` if it can name a folder (letters, digits, `.`, `_`, `+`, `-`), else `ReleaseError`."""
    if not VERSION_RE.match(version):
        raise ReleaseError(
            f"--version {version!r} cannot name a release: use letters, digits, '.', '_', '+' and '-' "
            "(starting with a letter or digit), e.g. 1.0.0."
        )
    return version


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def bundle_files(root: Path, *, skip: tuple[str, ...] = ()) -> list[str]:
    """Every file under `root` as a POSIX path relative to it, sorted; `skip` names files to leave out."""
    found = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    return sorted(p for p in found if p not in skip)


def hash_files(root: Path, paths: list[str]) -> dict[str, FileEntry]:
    """`{path: FileEntry}` of the given files under `root`."""
    return {p: FileEntry(sha256=sha256_file(root / p), bytes=(root / p).stat().st_size) for p in paths}


def stable(data: Any, *, under_llm: bool = False) -> Any:
    """A report without what measures the run (`VOLATILE`, and `LLM_VOLATILE` under an `llm` key)."""
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if key in VOLATILE or (under_llm and key in LLM_VOLATILE):
                continue
            out[key] = stable(value, under_llm=under_llm or key == "llm")
        return out
    if isinstance(data, list):
        return [stable(v, under_llm=under_llm) for v in data]
    return data


def write_json(path: Path, data: Any) -> Path:
    """Write `data` as canonical, indented JSON with a final newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(data, indent=2) + "\n", encoding="utf-8", newline="\n")
    return path


def open_staging(target: Path, *, force: bool) -> tuple[Path, Path]:
    """The temporary folders of a release of `target`: where the bundle is written, and scratch space."""
    check_target(target, force=force)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".work", dir=target.parent))
    return staging, work


def check_target(target: Path, *, force: bool) -> None:
    """`ReleaseError` when a bundle (or anything) is already at `target` and `force` is not given."""
    if target.exists() and not force:
        raise ReleaseError(
            f"{target} already exists: a released version is never overwritten by accident. Choose another "
            "--version, or pass --force to replace it."
        )
    if target.exists() and not target.is_dir():
        raise ReleaseError(f"{target} exists and is not a folder; move it away or choose another --out.")


def publish(staging: Path, target: Path, *, force: bool) -> Path:
    """Move the finished bundle from `staging` to `target` (replacing an old one with `force`)."""
    check_target(target, force=force)
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    try:
        os.replace(staging, target)
    except BaseException:
        if old is not None:
            os.replace(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return target


def discard(*folders: Path | None) -> None:
    """Remove temporary folders (a failed or finished release)."""
    for folder in folders:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
