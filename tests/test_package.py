"""A wheel built from the repository works outside the checkout: packs and prompts ship inside it, and
outputs go under the current directory, never into site-packages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
SOURCES = ("stateforge", "pyproject.toml", "README.md")


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    args_ = [str(a) for a in args]
    done = subprocess.run(args_, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder`: (size, mtime in ns)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_the_wheel_installs_outside_the_checkout_and_builds_a_pack(tmp_path: Path):
    src = tmp_path / "src"  # the files a clean clone has, copied: the build never writes into the checkout
    for name in SOURCES:
        origin = CHECKOUT / name
        if origin.is_dir():
            shutil.copytree(origin, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(origin, src / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
        "-w", tmp_path / "dist", src)
    (wheel,) = (tmp_path / "dist").glob("stateforge-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    # One namespace: the package and its dist-info, nothing else at the top of site-packages.
    assert {name.split("/")[0] for name in shipped} == {"stateforge", "stateforge-0.1.0.dist-info"}
    for pack in ("music", "game", "meeting"):
        assert {f"stateforge/packs/{pack}/schema.sql", f"stateforge/packs/{pack}/domain.yaml",
                f"stateforge/packs/{pack}/tools/__init__.py",
                f"stateforge/packs/{pack}/tasks/__init__.py"} <= shipped
    assert {"stateforge/prompts/fill_rows.md", "stateforge/prompts/repair_rows.md", "stateforge/cli.py",
            "stateforge/tasks/task.schema.json"} <= shipped

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    # The project venv's third-party packages, as a plain path: its .pth files (the editable install's
    # hook among them) are not run from there, so the checkout stays out of reach.
    deps = sysconfig.get_paths()["purelib"]
    (site / "project_deps.pth").write_text(deps + "\n")
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel)

    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    probe = (
        "import importlib.util, json, sys\n"
        "import stateforge, stateforge.packs, stateforge.prompts, stateforge.flows\n"
        "from stateforge.domain import list_domains\n"
        "mods = (stateforge, stateforge.packs, stateforge.prompts, stateforge.flows)\n"
        "print(json.dumps({'files': [m.__file__ for m in mods], 'path': sys.path, 'packs': list_domains(),"
        " 'tests': importlib.util.find_spec('tests') is not None,"
        " 'others': [n for n in ('pipeline', 'schemas', 'validation', 'flows', 'prompts')"
        " if importlib.util.find_spec(n) is not None]}))\n"
    )
    found = json.loads(run(python, "-c", probe, cwd=work, env=env))
    assert all(Path(f).is_relative_to(site) for f in found["files"]), found["files"]
    # The checkout is not importable: nothing of it on the path but the third-party packages of its venv.
    reachable = [p for p in found["path"] if p and p != deps and Path(p).resolve().is_relative_to(CHECKOUT)]
    assert not reachable and not found["tests"], found["path"]
    assert found["packs"] == ["game", "hr", "itsm", "library", "meeting", "music", "workplace"]
    assert found["others"] == [], "the wheel installs a top-level package besides stateforge"
    done = subprocess.run([python, "-c", "import schemas"], cwd=work, env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr

    before = snapshot(site)
    run(venv / "bin" / "stateforge", "build-domain", "music", "--scale", "0.02", cwd=work, env=env)
    assert (work / "artifacts" / "music" / "music.duckdb").is_file()
    report = json.loads((work / "artifacts" / "music" / "build_report.json").read_text())
    assert report["totals"]["violations"] == 0
    assert report["database"] == str(work / "artifacts" / "music" / "music.duckdb")
    assert snapshot(site) == before, "the build wrote into site-packages"
    assert sorted(p.name for p in work.iterdir()) == ["artifacts"]
