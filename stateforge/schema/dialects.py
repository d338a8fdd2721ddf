"""The DDL dialects Stateforge reads: names, aliases, and a guess from the text itself."""

from __future__ import annotations

import re

from stateforge.errors import SchemaError
from stateforge.schema.model import suggest

DIALECTS = ("duckdb", "postgres", "mysql", "sqlite", "oracle", "tsql")

# Other names people use, compared with spaces, dashes, underscores and dots removed ("T-SQL", "sql server").
ALIASES = {
    "duck": "duckdb",
    "postgresql": "postgres",
    "postgre": "postgres",
    "pg": "postgres",
    "pgsql": "postgres",
    "psql": "postgres",
    "plpgsql": "postgres",
    "mariadb": "mysql",
    "maria": "mysql",
    "sqlite3": "sqlite",
    "ora": "oracle",
    "plsql": "oracle",
    "oracledb": "oracle",
    "sqlplus": "oracle",
    "mssql": "tsql",
    "sqlserver": "tsql",
    "mssqlserver": "tsql",
    "microsoftsqlserver": "tsql",
    "transactsql": "tsql",
    "azuresql": "tsql",
    "sqlcmd": "tsql",
}

# Markers that give a dialect away, with a weight: dump headers are near-certain, the rest are hints.
# `$$` and `::` are postgres unless mysql's stronger markers (DELIMITER $$, backticks) outweigh them;
# DuckDB shares postgres' syntax and wins only on its own types and statements (no marker: duckdb too).
# T-SQL shares sqlite's [brackets]; its GO lines, [dbo]. names and ON [PRIMARY] outweigh them.
# Include commands name their client: `@file` SQL*Plus, `\i` psql, `source` mysql, `:r` SQLCMD.
_MARKERS: dict[str, list[tuple[str, int]]] = {
    "postgres": [
        (r"^--\s*PostgreSQL database dump", 10),
        (r"\bpg_catalog\.", 5),
        (r"^\\(connect|c|restrict)\b", 5),
        (r"\bFROM\s+stdin\s*;", 5),
        (r"\$\w*\$", 2),
        (r"['\w)]::\w", 3),
        (r"\b(big|small)?serial\b", 2),
        (r"\bnextval\s*\(", 2),
        (r"^\\i[r]?\s+\S", 4),
    ],
    "mysql": [
        (r"^--\s*(MySQL|MariaDB) dump", 10),
        (r"/\*!\d{5}", 5),
        (r"`\w[^`\n]*`", 4),
        (r"\bENGINE\s*=", 4),
        (r"^\s*DELIMITER\s+\S+", 4),
        (r"\bAUTO_INCREMENT\b", 4),
        (r"\bLOCK TABLES\b", 3),
        (r"^\s*source\s+\S+", 3),
    ],
    "oracle": [
        (r"^\s*rem(ark)?\b", 4),
        (r"^\s*prompt\b", 4),
        (r"\bN?VARCHAR2\s*\(", 5),
        (r"\bNUMBER\s*\(", 4),
        (r"^\s*SET\s+(ECHO|DEFINE|SERVEROUTPUT|FEEDBACK|VERIFY)\b", 4),
        (r"^\s*spool\b", 4),
        (r"^\s*/\s*$", 2),
        (r"^\s*@@?[\w&./\\]", 4),
    ],
    "tsql": [
        (r"^\s*GO\s*$", 8),
        (r"\[dbo\]\.", 8),
        (r"\bON\s+\[PRIMARY\]", 8),
        (r"\bsp_addextendedproperty\b", 8),
        (r"^\s*SET\s+(ANSI_NULLS|QUOTED_IDENTIFIER|NOCOUNT|ANSI_PADDING)\b", 8),
        (r"\bIDENTITY\s*\(\s*\d+\s*,\s*\d+\s*\)", 4),
        (r"\bN?VARCHAR\s*\(\s*MAX\s*\)", 5),
        (r"\b(NON)?CLUSTERED\b", 5),
        (r"\b(UNIQUEIDENTIFIER|DATETIME2|DATETIMEOFFSET|NTEXT|SMALLDATETIME)\b", 3),
        (r"\b(GETDATE|NEWID|SYSDATETIME)\s*\(", 3),
        (r"^:(r|setvar)\s", 8),
    ],
    "sqlite": [
        (r"\bAUTOINCREMENT\b", 5),
        (r"(^|[\s(,.])\[[A-Za-z_][^\]\n]*\]", 4),
        (r"\bWITHOUT\s+ROWID\b", 5),
        (r"^\s*PRAGMA\b", 4),
        (r"\bsqlite_sequence\b", 5),
    ],
    "duckdb": [
        (r"\b(U(TINY|SMALL|BIG|HUGE)?INT(EGER)?|HUGEINT|TIMESTAMP_(S|MS|NS))\b", 5),
        (r"\bCREATE\s+(OR\s+REPLACE\s+)?(TEMP\s+)?MACRO\b", 5),
        (r"\b(STRUCT|MAP|UNION)\s*\(", 3),
        (r"\bCREATE\s+SEQUENCE\s+\S+\s+START\s+\d", 3),
    ],
}
_COMPILED = {
    name: [(re.compile(p, re.IGNORECASE | re.MULTILINE), w) for p, w in markers]
    for name, markers in _MARKERS.items()
}


def resolve_dialect(name: str) -> str:
    """The canonical dialect for `name` (case-insensitive, aliases accepted); SchemaError otherwise.

    An unknown name suggests the dialect whose name or alias is closest to it.
    """
    key = re.sub(r"[\s\-_.]", "", name.strip().lower())
    if key in DIALECTS:
        return key
    if key in ALIASES:
        return ALIASES[key]
    choices = list(DIALECTS) + list(ALIASES)
    hint = suggest(key, choices)
    if hint:  # suggest() names the closest spelling; show the canonical dialect it stands for
        close = hint.split('"')[1]
        hint = f' Did you mean "{ALIASES.get(close, close)}"?'
    raise SchemaError(
        f'unknown dialect "{name}"; valid dialects: {", ".join(DIALECTS)}.{hint}',
        hint="Pass one of them (aliases such as postgresql, pg, mariadb, sqlite3, mssql, sqlserver, t-sql "
        "work too).",
    )


def detect_dialect(text: str) -> str:
    """Guess the dialect of a DDL text from its markers (dump headers, quoting, types); duckdb if none."""
    scores = {
        name: sum(weight for pattern, weight in markers if pattern.search(text))
        for name, markers in _COMPILED.items()
    }
    best = max(scores, key=lambda name: scores[name])  # ties go to the first listed
    return best if scores[best] > 0 else "duckdb"
