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


def test_a_sqlglot_warning_is_printed_once(tmp_path: Path):
    """sqlglot warns each time it generates what it cannot translate: seven tables, one line."""
    import subprocess
    import sys

    ddl = tmp_path / "format.sql"
    ddl.write_text("\nGO\n".join(f"CREATE TABLE t{i} (id int PRIMARY KEY, c AS (FORMAT(id, 'N2')))"
                                 for i in range(7)) + "\n")
    done = subprocess.run([sys.executable, "-m", "stateforge.cli", "schema", str(ddl), "--dialect", "tsql"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "Only integer formats are supported" in line]
    assert len(warnings) == 1, done.stderr
    assert done.stdout.count("generated column that DuckDB cannot compute") == 7  # the notes say where
