"""Where Stateforge reads its package data and writes its outputs, inside a checkout or installed.

    package_dir("stateforge.packs") / "music" / "schema.sql"    # the packs and prompts ship in the wheel
    artifacts_dir() / "music"                           # outputs: ./artifacts/ under the current directory

Packs (`stateforge/packs/`) and prompt templates (`stateforge/prompts/`) are Python packages with package
data, found with
`importlib.resources` wherever Stateforge is installed (never by path arithmetic from a source file).
Outputs never go beside the code: they go under the current working directory (or where `--out` says).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from stateforge.errors import TerminalError


def package_dir(package: str) -> Path:
    """The folder of an installed data package (`stateforge.packs`, `stateforge.prompts`), as a path."""
    found = resources.files(package)
    if not isinstance(found, Path):
        raise TerminalError(
            f"the {package} package is not a folder on disk ({found!r}): install Stateforge from its "
            "wheel or a checkout (pip install stateforge), not as a zip archive."
        )
    return found


def artifacts_dir() -> Path:
    """Where outputs go by default: `./artifacts/` under the current working directory."""
    return Path.cwd() / "artifacts"
