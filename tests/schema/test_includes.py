"""Installers split over files: include commands are followed relative to the including file, with a
cycle guard; a missing include or an unset variable is an error naming the including file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.errors import SchemaError
from stateforge.schema import load_ddl


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("dialect", "include", "nested"),
    [
        ("oracle", "@@tables/parent.sql", "@@child"),
        ("oracle", "@tables/parent", "start child.sql"),
        ("postgres", "\\ir tables/parent.sql", "\\ir child.sql"),
        ("postgres", "\\i tables/parent.sql", "\\i child.sql"),
        ("mysql", "source tables/parent.sql;", "SOURCE child.sql"),
        ("sqlite", ".read tables/parent.sql", ".read child.sql"),
        ("tsql", ":r tables/parent.sql", ":r child.sql"),
    ],
)
def test_includes_are_followed_relative_to_the_including_file(
    tmp_path: Path, dialect: str, include: str, nested: str
) -> None:
    main = write(tmp_path / "install.sql", f"CREATE TABLE first (id int PRIMARY KEY);\n{include}\n")
    write(tmp_path / "tables" / "parent.sql", f"\nCREATE TABLE parent (id int PRIMARY KEY);\n{nested}\n")
    child = "\n\nCREATE TABLE child (p int REFERENCES parent (id), x inet);\n"
    write(tmp_path / "tables" / "child.sql", child)
    schema = load_ddl(main, dialect)
    assert schema.table_names == ["first", "parent", "child"]
    assert [(Path(t.file or "").name, t.line) for t in schema.tables] == [
        ("install.sql", 1), ("parent.sql", 2), ("child.sql", 3)
    ]


def test_notes_and_errors_in_an_included_file_name_that_file_and_its_line(tmp_path: Path) -> None:
    main = write(tmp_path / "install.sql", "\\i more.sql\n")
    write(tmp_path / "more.sql", "CREATE TABLE a (id int PRIMARY KEY, ip inet);\n")
    (note,) = load_ddl(main, "postgres").notes
    assert (Path(note.file or "").name, note.line) == ("more.sql", 1)
    write(tmp_path / "more.sql", "\n\nCREATE TABLE a (id int REFERENCES nowhere);\n")
    with pytest.raises(SchemaError) as caught:
        load_ddl(main, "postgres")
    assert (Path(caught.value.file or "").name, caught.value.line) == ("more.sql", 3)


def test_a_missing_include_names_the_including_file_line_and_the_path(tmp_path: Path) -> None:
    main = write(tmp_path / "install.sql", "CREATE TABLE a (id int);\n\n@@gone/tables.sql\n")
    with pytest.raises(SchemaError) as caught:
        load_ddl(main, "oracle")
    assert (caught.value.file, caught.value.line) == (str(main), 3)
    assert "'gone/tables.sql' does not exist" in str(caught.value)
    assert "--skip-missing-includes" in str(caught.value)


def test_skip_missing_includes_notes_each_at_its_line_and_reads_on(tmp_path: Path) -> None:
    """An installer whose data files are not beside it (MySQL's `source load_departments.dump`)."""
    main = write(tmp_path / "employees.sql", (
        "CREATE TABLE departments (dept_no char(4) PRIMARY KEY, dept_name varchar(40) NOT NULL);\n"
        "source load_departments.dump ;\n"
        "CREATE TABLE employees (emp_no int PRIMARY KEY, dept_no char(4) REFERENCES departments (dept_no));\n"
        "source load_employees.dump ;\n"
    ))
    with pytest.raises(SchemaError) as caught:
        load_ddl(main, "mysql")
    assert (caught.value.file, caught.value.line) == (str(main), 2)
    assert "'load_departments.dump'" in str(caught.value) and "--skip-missing-includes" in str(caught.value)
    schema = load_ddl(main, "mysql", skip_missing_includes=True)
    assert schema.table_names == ["departments", "employees"]
    notes = [str(n) for n in schema.notes]
    assert [n.split(" (looked")[0] for n in notes] == [
        f"{main}:2: the included file 'load_departments.dump' is not there",
        f"{main}:4: the included file 'load_employees.dump' is not there",
    ]
    assert all("skipped (--skip-missing-includes)" in n for n in notes)


def test_skip_missing_includes_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from stateforge.cli import main as cli

    ddl = write(tmp_path / "install.sql", "CREATE TABLE a (id int PRIMARY KEY);\n\\i data/a.sql\n")
    with pytest.raises(SystemExit) as exit_:
        cli(["schema", str(ddl), "--dialect", "postgres"])
    assert exit_.value.code == 2
    assert "--skip-missing-includes" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        cli(["schema", str(ddl), "--dialect", "postgres", "--skip-missing-includes"])
    assert exit_.value.code == 0
    assert f"{ddl}:2: the included file 'data/a.sql' is not there" in capsys.readouterr().out


def test_an_include_cycle_is_an_error(tmp_path: Path) -> None:
    main = write(tmp_path / "a.sql", "CREATE TABLE a (id int);\n\\ir b.sql\n")
    write(tmp_path / "b.sql", "\\ir a.sql\n")
    with pytest.raises(SchemaError) as caught:
        load_ddl(main, "postgres")
    assert "include cycle: a.sql -> b.sql -> a.sql" in str(caught.value)


def test_sqlplus_substitution_variables(tmp_path: Path) -> None:
    write(tmp_path / "hr" / "tables.sql", "CREATE TABLE t (id NUMBER PRIMARY KEY);\n")
    main = write(tmp_path / "main.sql", "DEFINE base = hr\n@@&&base/tables.sql\n")
    assert load_ddl(main, "oracle").table_names == ["t"]
    write(tmp_path / "main.sql", "CREATE TABLE a (id NUMBER);\n@&path/tables.sql\n")
    with pytest.raises(SchemaError) as caught:
        load_ddl(main, "oracle")
    assert caught.value.line == 2
    assert "uses the variable path, which nothing before it sets" in str(caught.value)
    assert "DEFINE path = <folder>" in str(caught.value)


def test_script_arguments_and_windows_separators(tmp_path: Path) -> None:
    write(tmp_path / "hr" / "tables.sql", "CREATE TABLE t (id NUMBER PRIMARY KEY);\n@@&1/more.sql\n")
    write(tmp_path / "hr" / "sub" / "more.sql", "CREATE TABLE u (id NUMBER PRIMARY KEY);\n")
    main = write(tmp_path / "main.sql", "@@hr\\tables.sql sub\n")
    assert load_ddl(main, "oracle").table_names == ["t", "u"]
