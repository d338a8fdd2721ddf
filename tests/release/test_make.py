"""Making a release: an existing version is refused without --force, a failed release leaves nothing behind,
and --force replaces a bundle in one move."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.release import ReleaseError, ReleaseRun, Stage, baseline_names, run_release
from stateforge.release.files import check_version, publish
from tests.release.conftest import DDL, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]  # one worker builds the releases


def test_an_existing_version_is_refused_without_force(
    release_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.name for p in release_a.parent.iterdir())
    assert run_cli(["release", str(DDL), "--version", "1.0.0", "--out", str(release_a)]) == 2
    message = capsys.readouterr().err
    assert "already exists" in message and "--force" in message
    assert sorted(p.name for p in release_a.parent.iterdir()) == before


def test_bad_versions_and_baselines_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ReleaseError, match="cannot name a release"):
        check_version("../1.0")
    assert baseline_names("all") == ["oracle", "noop"] and baseline_names("noop, noop") == ["noop"]
    assert run_cli(["release", str(DDL), "--version", "1", "--out", str(tmp_path / "x"),
                    "--baseline", "oracel"]) == 2
    assert "oracle" in capsys.readouterr().err  # the closest registered name
    assert not (tmp_path / "x").exists()


def test_a_release_that_fails_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "releases" / "pg-2.0.0"
    seen: list[str] = []

    def failing(stage: Stage, label: str, work) -> None:
        seen.append(label)
        if stage.name == "document":
            raise OSError("disk full (simulated)")
        work()

    run = ReleaseRun(str(DDL), "2.0.0", out=target, rows=20, seed=5, n=2, task_seed=3)
    with pytest.raises(OSError, match="disk full"):
        run_release(run, runner=failing)
    assert seen == ["build", "generate-tasks", "bundle", "document"]
    assert list(target.parent.iterdir()) == []  # no bundle, no temporary folder


def test_force_replaces_a_bundle_in_one_move(tmp_path: Path) -> None:
    target, staging = tmp_path / "b", tmp_path / ".b.partial"
    target.mkdir()
    (target / "old").write_text("old")
    staging.mkdir()
    (staging / "new").write_text("new")
    with pytest.raises(ReleaseError, match="already exists"):
        publish(staging, target, force=False)
    publish(staging, target, force=True)
    assert [p.name for p in target.iterdir()] == ["new"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]  # the old bundle and the staging gone
