"""Issue 19 item 6: a file:line prints as written (no emoji codes, no markup eaten)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.cli import main


def test_a_file_line_in_an_error_prints_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    ddl = tmp_path / "dump.sql"
    lines = ["-- filler"] * 99 + ["CREATE TABLE [t] (id int PRIMARY KEY, p int REFERENCES missing (id));"]
    ddl.write_text("\n".join(lines) + "\n")
    with pytest.raises(SystemExit) as exit_:
        main(["schema", str(ddl), "--dialect", "sqlite"])
    assert exit_.value.code == 2
    out = capsys.readouterr().err
    assert "dump.sql:100:" in out and "💯" not in out and "🔢" not in out, out
