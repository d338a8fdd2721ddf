"""CHECK shapes over expressions of one column: what `stateforge.constraints.checks` reads beyond `col op x`.

    applied(UPPER(kind))          -> ("upper", "kind")      functions whose fixed points a value can be
    fixed_point("upper", "A")     -> True                   `f(col) IN ('A', 'B')` keeps the listed values v
                                                            with f(v) = v (other values can never qualify)
    subject(ABS(x)), subject(LENGTH(TRIM(s))), subject(EXTRACT(YEAR FROM d))
                                  -> ("abs", "x"), ("length", "s"), ("year", "d")
    like_shape("AB-%")            -> LIKE pattern kept as it is, generated values are shaped into it
    regex_code("^[A-Z]{3}-\\d{4}$") -> "???-####"           a simple regular expression as a code pattern
    constant(<expr without columns>) -> its value, folded by DuckDB (a time-relative bound pinned to
                                     the build's clock: `CAST('2026-06-30' AS TIMESTAMP) + INTERVAL 1 DAY`)

Everything here is pure reading of sqlglot trees; the facts are recorded by `checks`.
"""

from __future__ import annotations

import re
import threading
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

import duckdb
from sqlglot import exp

CASE_FUNCTIONS = {exp.Upper: "upper", exp.Lower: "lower"}


def unwrap(node: exp.Expression) -> exp.Expression:
    """Without parentheses and casts to text (`(kind)::text`, as pg_dump writes a CHECK)."""
    while True:
        if isinstance(node, exp.Paren):
            node = node.this
        elif isinstance(node, exp.Cast) and node.to.is_type(*exp.DataType.TEXT_TYPES):
            node = node.this
        else:
            return node


def column_of(node: exp.Expression | None) -> str | None:
    """The lower-cased name of a bare column (through parentheses and casts to text), or None."""
    node = unwrap(node) if node is not None else None
    return node.name.lower() if isinstance(node, exp.Column) else None


def applied(node: exp.Expression) -> tuple[str, str] | None:
    """(function, column) for UPPER / LOWER / TRIM / LTRIM / RTRIM of a column, else None."""
    node = unwrap(node)
    if isinstance(node, tuple(CASE_FUNCTIONS)) and column_of(node.this):
        return CASE_FUNCTIONS[type(node)], column_of(node.this)  # type: ignore[return-value]
    if isinstance(node, exp.Trim) and column_of(node.this) and node.args.get("expression") is None:
        side = str(node.args.get("position") or "BOTH").upper()
        return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(side, "trim"), column_of(node.this)  # type: ignore[return-value]
    return None


def fixed_point(function: str, value: Any) -> bool:
    """`function(value) == value`: the value passes `function(col) = value` when generated as itself."""
    if not isinstance(value, str):
        return False
    apply = {"upper": str.upper, "lower": str.lower, "trim": str.strip, "ltrim": str.lstrip,
             "rtrim": str.rstrip}[function]
    return apply(value) == value


def subject(node: exp.Expression) -> tuple[str, str] | None:
    """What a comparison's side measures of one column: ("column" | "length" | "abs" | "year", column)."""
    node = unwrap(node)
    col = column_of(node)
    if col:
        return "column", col
    if isinstance(node, exp.Length) or (isinstance(node, exp.Anonymous) and node.name.upper() in _LENGTHS):
        inner = node.this if isinstance(node, exp.Length) else (node.expressions or [None])[0]
        if inner is None:
            return None
        col = column_of(inner) or (applied(inner) or (None, None))[1]
        return ("length", col) if col else None
    if isinstance(node, exp.Abs) and column_of(node.this):
        return "abs", column_of(node.this)  # type: ignore[return-value]
    if isinstance(node, exp.Year) and column_of(node.this):
        return "year", column_of(node.this)  # type: ignore[return-value]
    if isinstance(node, exp.Extract) and node.this.name.upper() == "YEAR" and column_of(node.expression):
        return "year", column_of(node.expression)  # type: ignore[return-value]
    parts = node.expressions if isinstance(node, exp.Anonymous) else []
    if node.name.upper() in ("DATE_PART", "DATEPART") and len(parts) == 2 and column_of(parts[1]) \
            and parts[0].name.upper() in ("YEAR", "YEARS", "Y", "YY", "YYYY"):  # fmt: skip
        return "year", column_of(parts[1])  # type: ignore[return-value]
    return None


_LENGTHS = ("CHAR_LENGTH", "CHARACTER_LENGTH", "LEN", "LENGTH", "STRLEN")


def trims(node: exp.Expression) -> bool:
    """`LENGTH(TRIM(col))`: the length of the trimmed value (generated values are kept trimmed)."""
    node = unwrap(node)
    inner = node.this if isinstance(node, exp.Length) else None
    found = applied(inner) if inner is not None else None
    return found is not None and found[0] in ("trim", "ltrim", "rtrim")


def like_shape(pattern: str) -> tuple[str | None, str | None]:
    """(LIKE pattern to shape values into, or a code pattern when it fixes every character)."""
    if "%" in pattern:
        return pattern, None
    if "#" in pattern or "?" in pattern:
        return pattern, None  # literal # and ? would read as code slots: shaped instead
    return None, pattern.replace("_", "?")


_CLASS = {"\\d": "#", "[[:digit:]]": "#", "[[:upper:]]": "?", "[[:alpha:]]": "?", "[[:alnum:]]": "?"}
_TOKEN = re.compile(r"(\[\[:\w+:\]\]|\[[^\]\[]+\]|\\.|[A-Za-z0-9 _\-:/.@])"
                    r"(\{(\d+)(?:,(\d*))?\}|\+|\*|\?)?")
_UPPER, _DIGITS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), frozenset("0123456789")


def class_symbol(text: str) -> str | None:
    """The code symbol whose values a bracket class admits: `?` (A-Z) when the class holds every upper-case
    letter, else `#` when it holds every digit (`[A-Z0-9]` -> `?`, `[0-9a-f]` -> `#`, `[A-Za-z]` -> `?`);
    None for a negated class or one that holds neither whole range. The generator then draws from a part
    of the class, which every value of the class's part matches."""
    if text in _CLASS:
        return _CLASS[text]
    body = text[1:-1]
    if not body or body.startswith("^"):
        return None
    held: set[str] = set()
    at = 0
    while at < len(body):
        if body.startswith("\\d", at):
            held |= _DIGITS
            at += 2
        elif at + 2 < len(body) and body[at + 1] == "-":
            low, high = body[at], body[at + 2]
            held |= {chr(c) for c in range(ord(low), ord(high) + 1)}
            at += 3
        else:
            held.add(body[at + 1] if body[at] == "\\" and at + 1 < len(body) else body[at])
            at += 2 if body[at] == "\\" else 1
    if _UPPER <= held:
        return "?"
    return "#" if _DIGITS <= held else None


def regex_code(pattern: str, *, anchored: bool = False) -> str | None:
    """A code pattern (`?` an upper-case letter, `#` a digit, anything else literal) that generates only
    strings matching the regular expression `pattern` in full, or None when the expression is not that
    simple. `anchored`: the expression must match the whole value (SIMILAR TO) even without ^ and $."""
    body = pattern
    if not anchored:
        if not (body.startswith("^") and body.endswith("$") and not body.endswith("\\$")):
            return None
        body = body[1:-1]
    out, at = [], 0
    while at < len(body):
        m = _TOKEN.match(body, at)
        if m is None:
            return None
        atom, quantifier = m.group(1), m.group(2)
        klass = atom in _CLASS or (atom.startswith("[") and len(atom) > 1)
        if klass:
            symbol = class_symbol(atom)
            if symbol is None:
                return None
        elif atom.startswith("\\"):
            symbol = atom[1:]
            if symbol.isalnum():
                return None  # \w, \s, ...: classes, not literals
        else:
            symbol = atom
        if symbol in "#?" and not klass:
            return None
        if quantifier is None:
            count = 1
        elif quantifier in ("+", "*", "?"):
            count = {"+": 2, "*": 2, "?": 1}[quantifier]
        else:
            count = max(int(m.group(3)), 1 if m.group(4) is not None else 0)
        out.append(symbol * count)
        at = m.end()
    code = "".join(out)
    return code or None


_LOCK = threading.Lock()
_CON: list[duckdb.DuckDBPyConnection] = []
NOT_CONSTANT = object()


def constant(node: exp.Expression) -> Any:
    """The value of an expression that reads no column (folded by an in-memory DuckDB), or NOT_CONSTANT."""
    if node.find(exp.Column) is not None or node.find(exp.Subquery) is not None:
        return NOT_CONSTANT
    return _fold(node.sql(dialect="duckdb"))


@lru_cache(maxsize=1024)
def _fold(sql: str) -> Any:
    with _LOCK:
        if not _CON:
            _CON.append(duckdb.connect(":memory:"))
        try:
            row = _CON[0].execute(f"SELECT ({sql})").fetchone()
        except duckdb.Error:
            return NOT_CONSTANT
    if row is None:
        return NOT_CONSTANT
    return float(row[0]) if isinstance(row[0], Decimal) else row[0]


def unwrap_parens(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


NOT_LITERAL = object()


def literal(node: exp.Expression) -> Any:
    """The Python value of a literal (numbers, strings, booleans, NULL, typed date/time strings)."""
    node = unwrap_parens(node)
    if isinstance(node, exp.Neg):
        value = literal(node.this)
        return -value if isinstance(value, int | float) and not isinstance(value, bool) else NOT_LITERAL
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string:
        return iso(node.this.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = str(node.this)
        try:
            return int(text)
        except ValueError:
            return float(text)
    return NOT_LITERAL


def iso(text: str) -> Any:
    for parse in (date.fromisoformat, datetime.fromisoformat):
        try:
            return parse(text)
        except ValueError:
            continue
    return text
