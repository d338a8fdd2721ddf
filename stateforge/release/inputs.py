"""What made a release: the pack's files, the prompts, the code and the packages, the LLM and its cache.

    code_version()                      # Code(stateforge="0.1.0", git_commit="ab12...", git_dirty=False)
    package_versions()                  # {"duckdb": "2.0.1", ...}: Stateforge's own dependencies
    prompt_hashes()                     # {"fill_rows.md": sha256, ...}
    llm_inputs(build_report, settings)  # None for an offline build

Everything here is a hash or a version, never a time or an absolute path, so the same inputs give the
same manifest.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

import stateforge
from stateforge.release.files import sha256_file
from stateforge.release.model import Code, LLMInputs
from stateforge.resources import package_dir

DIST = "stateforge"
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
PACK_SKIP = re.compile(r"(^|/)(__pycache__|\.[^/]*)(/|$)|\.pyc$")
"""Files of a pack folder that are not inputs (byte code, hidden files)."""
SETTINGS_KEPT = (
    "backend", "model", "temperature", "seed", "max_tokens", "response_format", "whole_rows",
)
"""The LLM settings that change replies (not the URL, key, concurrency or retry policy)."""


def code_version() -> Code:
    """The package version, and the git commit (and whether the tree had changes) when run from a checkout."""
    root = Path(stateforge.__file__).resolve().parent.parent
    commit = dirty = None
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        if head.returncode == 0:
            commit = head.stdout.strip()
            status = subprocess.run(
                ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True, text=True, timeout=10,
            )
            dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        commit = dirty = None
    return Code(stateforge=stateforge.__version__, git_commit=commit, git_dirty=dirty)


def package_versions() -> dict[str, str]:
    """The installed version of every runtime dependency of Stateforge (its distribution's `Requires-Dist`
    without extras), by name; a dependency that is not installed is `missing`."""
    try:
        requires = metadata.requires(DIST) or []
    except metadata.PackageNotFoundError:
        requires = []
    out: dict[str, str] = {}
    for line in requires:
        if "extra ==" in line:
            continue
        match = _NAME.match(line)
        if not match:
            continue
        name = match.group(1)
        try:
            out[name.lower()] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name.lower()] = "missing"
    return dict(sorted(out.items()))


def prompt_hashes() -> dict[str, str]:
    """sha256 of every prompt template (`stateforge/prompts/*.md`) of this code version."""
    folder = package_dir("stateforge.prompts")
    return {p.name: sha256_file(p) for p in sorted(folder.glob("*.md"))}


def pack_hashes(root: Path | None) -> dict[str, str]:
    """sha256 of every file of a pack folder (tools, recipes, DDL, config), by path relative to it."""
    if root is None or not root.is_dir():
        return {}
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not PACK_SKIP.search(rel):
            out[rel] = sha256_file(path)
    return out


def cache_summary(folder: Path) -> dict[str, Any]:
    """The LLM response cache: its entries and one sha256 over their names and contents (in name order)."""
    digest = hashlib.sha256()
    entries = 0
    if folder.is_dir():
        for path in sorted(folder.rglob("*.json")):
            digest.update(f"{path.relative_to(folder).as_posix()}\t{sha256_file(path)}\n".encode())
            entries += 1
    return {"entries": entries, "sha256": digest.hexdigest()}


def llm_inputs(settings: Any | None) -> LLMInputs | None:
    """The LLM behind a build (an `LLMSettings`), or None when it was built offline."""
    if settings is None or getattr(settings, "backend", "offline") == "offline":
        return None
    dumped = settings.model_dump(mode="json")
    return LLMInputs(
        backend=settings.backend,
        model=settings.model,
        settings={k: dumped[k] for k in SETTINGS_KEPT if k in dumped},
        prompts=prompt_hashes(),
        cache=cache_summary(Path(settings.cache_dir)),
    )
