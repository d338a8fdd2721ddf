"""Releases shared by the release tests: one small pack (tests/fixtures/ddl/postgres_dump.sql, --rows 30)
released twice, by the library and by the CLI, with the oracle and noop baselines. Never write into them:
tests that damage a bundle copy it first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from stateforge.release import make_release
from tests.conftest import FIXTURES

DDL = FIXTURES / "ddl" / "postgres_dump.sql"
OPTIONS = {"rows": 30, "seed": 5, "n": 6, "task_seed": 3}
CLI_OPTIONS = ["--rows", "30", "--seed", "5", "--n", "6", "--task-seed", "3"]


def run_cli(args: list[str]) -> int:
    """Run `stateforge ARGS` in this process; its exit code."""
    from stateforge.cli import main

    try:
        main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


@pytest.fixture(scope="session")
def release_a(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release made by the library."""
    out = tmp_path_factory.mktemp("releases") / "pg-1.0.0"
    make_release(str(DDL), version="1.0.0", out=out, baselines=["oracle", "noop"], **OPTIONS)
    return out


@pytest.fixture(scope="session")
def release_b(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same release made again, by the CLI."""
    out = tmp_path_factory.mktemp("releases") / "pg-1.0.0"
    code = run_cli(["release", str(DDL), "--version", "1.0.0", "--out", str(out), "--baseline",
                    "oracle,noop", *CLI_OPTIONS])
    assert code == 0
    return out


def copy_of(bundle: Path, target: Path) -> Path:
    """A copy of a bundle to damage."""
    return Path(shutil.copytree(bundle, target / bundle.name))
