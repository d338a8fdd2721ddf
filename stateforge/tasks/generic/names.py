"""The words people use for tables and columns, derived from a bare DDL.

    nouns(schema)["act_ru_task"]          # ('task', 'tasks'): the module prefix ACT_ and RU_ undone
    field_words(stock_table, "s_order_cnt")   # 'order count': the table's column prefix s_ undone
    field_words(orders, "cust_id")        # 'customer': a reference is named by what it points to
    is_sentence("The river flows past the old mill.")   # True: never a name

A short COMMENT ON / column comment / extended-property description (at most four words) is the name
itself; otherwise the identifier, its namespace, module prefix and column prefix dropped and common
abbreviations written out (`ABBREVIATIONS`).
"""

from __future__ import annotations

import re
from collections import Counter

from stateforge.schema.model import Column, Schema, Table
from stateforge.tools.naming import singular, snake

ABBREVIATIONS = {
    "cnt": "count", "qty": "quantity", "amt": "amount", "num": "number", "nbr": "number", "no": "number",
    "desc": "description", "dt": "date", "cust": "customer", "addr": "address", "emp": "employee",
    "dept": "department", "mgr": "manager", "prod": "product", "cat": "category", "acct": "account",
    "txn": "transaction", "msg": "message", "pwd": "password", "pct": "percent", "avg": "average",
    "val": "value", "seq": "sequence", "ref": "reference", "rev": "revision", "proc": "process",
    "def": "definition", "procdef": "process definition", "inst": "instance", "exec": "execution",
    "attr": "attribute", "param": "parameter", "cfg": "configuration", "conf": "configuration",
    "lang": "language", "loc": "location", "src": "source", "dest": "destination", "img": "image",
    "usr": "user", "grp": "group", "lvl": "level", "pos": "position", "len": "length", "wt": "weight",
    "yr": "year", "ytd": "year to date", "dob": "date of birth", "sts": "status", "stat": "status",
    "tel": "telephone", "ph": "phone", "fk": "reference", "ts": "time", "tm": "time", "dur": "duration",
    "ms": "milliseconds", "sec": "seconds", "secs": "seconds", "min": "minimum", "max": "maximum",
    "ord": "order", "inv": "invoice", "pmt": "payment", "bal": "balance", "org": "organization",
    "info": "information", "hist": "history", "sqm": "square metres", "ru": "runtime", "hi": "history",
    "re": "repository", "ge": "general", "id": "id", "ids": "ids", "procinst": "process instance",
    "actinst": "activity instance", "taskinst": "task instance", "varinst": "variable",
    "bytearray": "byte array",
}
"""Abbreviations written out (token -> words). `id` stays: a key column is never named in a request."""
PLURALS = {"heroes": "hero", "echoes": "echo", "potatoes": "potato", "analyses": "analysis"}
_NOUNS: dict[int, dict[str, tuple[str, str]]] = {}
_SHORT_COMMENT = 4
"""A comment of at most this many words is a name; a longer one is a description, not a name."""


def _tokens(name: str) -> list[str]:
    return snake(name).split("_")


def _expand(tokens: list[str]) -> str:
    return " ".join(ABBREVIATIONS.get(t, t) for t in tokens if t)


STOPWORDS = {"a", "an", "the", "that", "which", "who", "of", "for", "to", "in", "on", "by", "and", "or", "is"}


def _comment_name(text: str | None, most: int = _SHORT_COMMENT) -> str | None:
    """A short comment as a name (`'Order count'` -> `order count`), else None: at most `most` words, only
    letters, none of them a function word (`'Companies that open tickets'` describes, it does not name)."""
    if not text:
        return None
    text = text.strip().rstrip(".")
    found = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    if not found or len(text.split()) > most or len(found) != len(text.split()):
        return None
    if any(w.lower() in STOPWORDS for w in found):
        return None
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in found)


def one_of(plural: str) -> str:
    """The singular of the last word of `plural` words."""
    head, _, last = plural.rpartition(" ")
    last = PLURALS.get(last) or singular(last)
    return f"{head} {last}".strip()


def _plural_of(one: str) -> str:
    head, _, last = one.rpartition(" ")
    if last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        last += "es"
    else:
        last += "s"
    return f"{head} {last}".strip()


def _module_prefixes(tables: list[Table]) -> set[str]:
    """Leading tokens that at least half the tables (and three or more) share: `wp_`, `act_`."""
    firsts = Counter(_tokens(t.local_name)[0] for t in tables if len(_tokens(t.local_name)) > 1)
    return {tok for tok, n in firsts.items() if n >= 3 and n * 2 >= len(tables) and len(tok) <= 5}


def _nouns(schema: Schema) -> dict[str, tuple[str, str]]:
    tables = list(schema.tables)
    prefixes = _module_prefixes(tables)
    stripped: dict[str, list[str]] = {}
    for table in tables:
        tokens = _tokens(table.local_name)
        if len(tokens) > 1 and tokens[0] in prefixes:
            tokens = tokens[1:]
        # a short category segment after the module prefix (ACT_RU_TASK): dropped while no name collides
        stripped[table.name.lower()] = tokens
    seconds = Counter(tokens[0] for tokens in stripped.values() if len(tokens) > 1 and len(tokens[0]) <= 2)
    for key, tokens in list(stripped.items()):
        category = len(tokens[0]) <= 2 and (seconds[tokens[0]] >= 2 or tokens[0] in ABBREVIATIONS)
        if len(tokens) > 1 and category:
            shorter = tokens[1:]
            if sum(1 for other in stripped.values() if other == shorter or other[1:] == shorter) <= 1:
                stripped[key] = shorter
    out: dict[str, tuple[str, str]] = {}
    taken: Counter[str] = Counter()
    for table in tables:
        words = _comment_name(table.description, 2)
        if words is not None:
            one = one_of(words)
            many = _plural_of(one) if one == words else words
        else:
            many = _expand(stripped[table.name.lower()])
            one = one_of(many)
            if one == many:
                many = _plural_of(one)
        out[table.name.lower()] = (one, many)
        taken[one] += 1
    for table in tables:  # two tables called alike keep their full names
        one, many = out[table.name.lower()]
        if taken[one] > 1:
            many = _expand(_tokens(table.name))
            out[table.name.lower()] = (one_of(many), many)
    return out


def nouns(schema: Schema) -> dict[str, tuple[str, str]]:
    """(one, many) for every table, by lower-case name: `('task', 'tasks')`."""
    key = id(schema)
    if key not in _NOUNS:
        _NOUNS.clear()
        _NOUNS[key] = _nouns(schema)
    return _NOUNS[key]


def column_prefix(table: Table) -> str | None:
    """A one- or two-letter prefix most of a table's columns share (`s_` in TPC-C's stock), or None."""
    firsts = Counter(_tokens(c.name)[0] for c in table.columns if len(_tokens(c.name)) > 1)
    if not firsts:
        return None
    token, n = firsts.most_common(1)[0]
    if len(token) <= 2 and token not in ("is", "has", "id") and n * 3 >= len(table.columns) * 2:
        return token
    return None


def field_words(table: Table, column: str | Column, schema: Schema | None = None) -> str:
    """A column as words: its short comment, else its identifier with the table's column prefix dropped,
    abbreviations written out, `is_` dropped (`is_verified` -> `verified`) and a reference's `_id` dropped
    (`cust_id` -> `customer`)."""
    col = table.column(column) if isinstance(column, str) else column
    words = _comment_name(col.description)
    if words is not None:
        return words
    tokens = _tokens(col.name)
    prefix = column_prefix(table)
    if prefix and len(tokens) > 1 and tokens[0] == prefix:
        tokens = tokens[1:]
    if len(tokens) > 1 and tokens[0] == "is":
        tokens = tokens[1:]
    refs = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    if col.name.lower() in refs and len(tokens) > 1 and tokens[-1] in ("id", "key", "fk", "no", "code"):
        tokens = tokens[:-1]
    return _expand(tokens) or _expand(_tokens(col.name))


SENTENCE_WORDS = 5
"""A text of this many words or more is a sentence (a description, a note), not a name."""


def is_sentence(value: object) -> bool:
    """Whether a text reads as a sentence: five words or more, or ending in . ! ? (the offline fill writes
    sentences for free-text columns)."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    return len(text.split()) >= SENTENCE_WORDS or (text[-1:] in ".!?" and " " in text)


QUANTITY_WORDS = {
    "quantity", "amount", "price", "cost", "balance", "stock", "budget", "salary", "total", "fee", "credit",
    "credits", "points", "hours", "minutes", "seconds", "milliseconds", "days", "weight", "grams", "capacity",
    "discount", "revenue", "duration", "length", "size", "bytes", "gold", "diamonds", "coins", "score",
    "rating", "limit", "stars", "distance", "height", "width", "area", "volume", "contribution", "likes",
    "streams", "views", "kills", "deaths", "damage", "earned", "spent", "paid", "due", "tax", "rate",
    "percent",
}
"""Words that make a number read as a quantity, something a request may raise or lower by an amount."""
IDENTIFYING_WORDS = {
    "id", "ids", "number", "count", "sequence", "revision", "version", "ordinal", "index", "year",
}
"""Words that make a number an identifier, an ordinal or a counter the service keeps: never set or shifted
by a generic request (`employee number`, `edition number`, `sign in count`, `revision`)."""


def reads_as_quantity(words: str) -> bool:
    """Whether a number column's words read as a quantity (`order count` does not: a counter)."""
    tokens = set(words.split())
    return bool(tokens & QUANTITY_WORDS) and not tokens & IDENTIFYING_WORDS


def identifying(words: str) -> bool:
    """Whether a number column's words read as an id, an ordinal or a counter."""
    return bool(set(words.split()) & IDENTIFYING_WORDS)


def counts_children(words: str, child_many: str) -> bool:
    """Whether a column's words say it holds a count of `child_many` (`track count`, `number of tracks`,
    `tracks count`): the one place a generic request writes a count."""
    tokens = set(words.split())
    last = child_many.split()[-1]
    return bool(tokens & {"count", "number", "total"}) and bool(tokens & {last, one_of(last)})


BOOKKEEPING = ("created", "updated", "modified", "deleted", "inserted", "changed", "synced", "last_login")
"""Timestamps the service keeps about its own rows (`created_at`, `modified_date`): never a target."""


def bookkeeping(name: str) -> bool:
    """Whether a column is one the service keeps about its own rows (`created_at`, `updated_on`)."""
    return any(word in snake(name) for word in BOOKKEEPING)
