"""What kind of statement is this? Decided from its first words, before any real parsing.

The parser reads the kinds in `READ_KINDS` (a DROP TABLE is read, then counted); every other statement
is counted under its kind and skipped.
Kinds are short nouns: `function`, `trigger`, `view`, `sequence`, `grant`, `set`, `insert`, `index`, ...
"""

from __future__ import annotations

import re

from stateforge.schema.namespaces import Ref, ref_of_text

READ_KINDS = frozenset({"table", "alter_table", "unique_index", "index", "comment", "type", "domain", "drop"})

_CREATE_PREFIX = re.compile(
    r"CREATE\s+(?:OR\s+(?:REPLACE|ALTER)\s+)?"
    r"(?:(?:TEMP|TEMPORARY|GLOBAL|LOCAL|UNLOGGED|EDITIONABLE|NONEDITIONABLE|NO\s+FORCE|FORCE|SECURE|RECURSIVE"
    r"|CONSTRAINT|TRUSTED|PROCEDURAL|DEFINER\s*=\s*\S+|ALGORITHM\s*=\s*\w+|SQL\s+SECURITY\s+\w+)\s+)*"
    r"(?P<what>\w+)",
    re.IGNORECASE,
)
_CREATE_KINDS = {
    "MATERIALIZED": "materialized_view",
    "UNIQUE": "unique_index",
    "BITMAP": "index",
    "FULLTEXT": "index",
    "SPATIAL": "index",
    "CLUSTERED": "index",
    "NONCLUSTERED": "index",
    "COLUMNSTORE": "index",
    "XML": "index",
    "PACKAGE": "package",
    "USER": "role",
    "DEFAULT": "grant",
}
_VERB_KINDS = {
    "REPLACE": "insert",
    "UPSERT": "insert",
    "START": "transaction",
    "COMMIT": "transaction",
    "ROLLBACK": "transaction",
    "END": "transaction",
    "DECLARE": "block",
    "CALL": "call",
    "EXEC": "call",
    "EXECUTE": "call",
}
_FIRST_WORD = re.compile(r"\w+")
_ALTER = re.compile(r"ALTER\s+(?P<what>\w+)", re.IGNORECASE)
_OWNER_TO = re.compile(r"\bOWNER\s+TO\b", re.IGNORECASE)
_PART = r"(?:\"[^\"]+\"|`[^`]+`|\[[^\]]+\]|[\w$#]+)"
_DROP_TABLE = re.compile(r"DROP\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+EXISTS\s+)?(?P<names>.+)", re.I | re.S)
_DROP_OPTIONS = frozenset({"CASCADE", "RESTRICT", "PURGE", "CONSTRAINTS"})
_RELATION_NAME = re.compile(
    rf"(?:VIEW|TABLE)\s+(?:ONLY\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:ONLY\s+)?(?P<name>(?:{_PART}\s*\.\s*)*{_PART})",
    re.IGNORECASE,
)


def classify(text: str, dialect: str) -> str:
    """The kind of the statement `text` (comments already removed)."""
    head = text[:400]
    first = _FIRST_WORD.match(head)
    if first is None:
        return "other"
    verb = first.group().upper()
    if verb == "CREATE":
        match = _CREATE_PREFIX.match(head)
        what = match.group("what").upper() if match else "OTHER"
        return _CREATE_KINDS.get(what, what.lower())
    if verb == "ALTER":
        match = _ALTER.match(head)
        what = match.group("what").upper() if match else "OTHER"
        if _OWNER_TO.search(text):
            return "owner"
        if what == "TABLE":
            return "alter_table"
        return _CREATE_KINDS.get(what, what.lower())
    if verb == "BEGIN":
        return "block" if dialect == "oracle" else "transaction"
    return _VERB_KINDS.get(verb, verb.lower())


def dropped_tables(text: str) -> list[Ref]:
    """The names a `DROP TABLE [IF EXISTS] a, s.b [CASCADE]` drops, as written; [] for any other DROP."""
    match = _DROP_TABLE.match(text)
    if match is None:
        return []
    names = re.findall(rf"(?:{_PART}\s*\.\s*)*{_PART}", match.group("names"))
    return [ref_of_text(name) for name in names if name.upper() not in _DROP_OPTIONS]


def relation_name(text: str) -> str | None:
    """The bare name after VIEW / TABLE in `text` (quotes removed, schema dropped), for messages."""
    ref = relation_ref(text)
    return ref.name if ref is not None else None


def relation_ref(text: str) -> Ref | None:
    """The name after VIEW / TABLE in `text`, as written (namespace and name, quotes removed)."""
    match = _RELATION_NAME.search(text[:400])
    return ref_of_text(match.group("name")) if match is not None else None
