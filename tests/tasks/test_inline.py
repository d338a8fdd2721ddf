"""Inlining a verifier's parameters: a placeholder cast at once (`?::BIGINT[]`, one token to sqlglot) is a
placeholder like any other, and the inlined SQL gives what the parameterised one gives."""

from __future__ import annotations

import duckdb
import pytest

from stateforge.tasks.verifiers import inline

SQL = (
    "SELECT count(*) AS n FROM range(10) AS t(x) "
    "WHERE x IN (SELECT unnest(?::BIGINT[])) AND x >= ? AND 'a?' <> '?'"
)


def test_a_placeholder_cast_at_once_is_inlined() -> None:
    text = inline(SQL, [[1, 2, 7], 2])
    assert "[1, 2, 7]::BIGINT[]" in text and "x >= 2" in text and "'a?' <> '?'" in text
    with duckdb.connect() as con:
        assert con.execute(text).fetchall() == con.execute(SQL, [[1, 2, 7], 2]).fetchall() == [(2,)]


def test_a_missing_parameter_is_named() -> None:
    with pytest.raises(ValueError, match="2 \\? placeholders but 1"):
        inline(SQL, [[1]])
