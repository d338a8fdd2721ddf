"""Injectable faults of the fake LLM server: the rules, the seeded choice, and what each fault does.

A rule fires at a rate (`malformed=0.2`: a fifth of requests, drawn from the server's seed and the
request's sequence number) or on every Nth request (`rate_limit=every:3`: the 3rd, 6th, ...). At most one
fault fires per request: every-Nth rules first, then one uniform draw against the rates stacked in
`FAULTS` order, so each rate is exact and the same seed gives the same sequence of faults.

HTTP faults replace the answer (`rate_limit` 429 with Retry-After, `server_error` 500, `unavailable` 503,
`timeout`: an answer held back longer than a client waits). Content faults change a well-formed answer
(`wrong_types`, `invented_fk`, `duplicates`, `missing_fields`, `extra_fields`); text faults break its
bytes (`malformed` JSON, `truncated` with finish_reason "length"). In tool-calling mode (`toolcalls.py`)
these act on one call's arguments, and `unknown_tool` renames a call to a tool that was not offered. A
fault that does not apply to an answer (no rows to change, plain text that cannot be malformed, a final
message with no call to rename) leaves it intact and is not counted.
"""

from __future__ import annotations

import copy
import difflib
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

HTTP_FAULTS = ("rate_limit", "server_error", "unavailable", "timeout")
CONTENT_FAULTS = ("wrong_types", "invented_fk", "duplicates", "missing_fields", "extra_fields")
TEXT_FAULTS = ("malformed", "truncated")
TOOL_FAULTS = ("unknown_tool",)
FAULTS = HTTP_FAULTS + CONTENT_FAULTS + TEXT_FAULTS + TOOL_FAULTS

FaultSpec = float | str
FaultConfig = Mapping[str, FaultSpec] | Iterable[str] | None
"""`{"malformed": 0.2, "rate_limit": "every:3"}`, or CLI flags `["malformed=0.2", "rate_limit=every:3"]`."""


@dataclass(frozen=True)
class FaultRule:
    """When one fault fires: at `rate` (0..1), or on every `every`-th request when `every` > 0."""

    name: str
    rate: float = 0.0
    every: int = 0

    @property
    def spec(self) -> FaultSpec:
        """The rule as it is written in a config: `0.2` or `"every:3"`."""
        return f"every:{self.every}" if self.every else self.rate


def parse_rule(name: str, spec: FaultSpec) -> FaultRule:
    """One rule from a name and a rate or an `every:N`; the error names the closest fault."""
    if name not in FAULTS:
        close = difflib.get_close_matches(name, FAULTS, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown fault {name!r}.{hint} Known faults: {', '.join(FAULTS)}.")
    text = str(spec).strip().lower()
    if text.startswith("every"):
        count = text.removeprefix("every").strip(" :=")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"fault {name}: {spec!r} is not 'every:N' with N >= 1")
        return FaultRule(name, every=int(count))
    try:
        rate = float(text)
    except ValueError:
        raise ValueError(f"fault {name}: {spec!r} is neither a rate in [0, 1] nor 'every:N'") from None
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"fault {name}: rate {rate} is outside [0, 1]")
    return FaultRule(name, rate=rate)


def parse_faults(faults: FaultConfig) -> dict[str, FaultRule]:
    """Rules from a mapping or from `name=spec` strings; rates must add up to at most 1."""
    if faults is None:
        return {}
    pairs = faults.items() if isinstance(faults, Mapping) else (_split_flag(flag) for flag in faults)
    rules = {name: parse_rule(name, spec) for name, spec in pairs}
    total = sum(rule.rate for rule in rules.values())
    if total > 1.0 + 1e-9:
        raise ValueError(
            f"fault rates add up to {total:g}; at most one fault fires per request, so keep <= 1"
        )
    return {name: rules[name] for name in FAULTS if name in rules and (rules[name].rate or rules[name].every)}


def _split_flag(flag: str) -> tuple[str, str]:
    name, sep, spec = flag.partition("=")
    if not sep:
        raise ValueError(f"fault flag {flag!r} is not NAME=RATE or NAME=every:N, e.g. malformed=0.2")
    return name.strip(), spec.strip()


def choose_fault(rules: Mapping[str, FaultRule], seed: int, seq: int) -> str | None:
    """The fault for request number `seq` (from 1), or None: a pure function of its arguments."""
    for rule in rules.values():
        if rule.every and seq % rule.every == 0:
            return rule.name
    draw = random.Random(f"{seed}:fault:{seq}").random()
    stacked = 0.0
    for rule in rules.values():
        stacked += rule.rate
        if rule.rate and draw < stacked:
            return rule.name
    return None


def corrupt_document(
    name: str, doc: Any, fixed_rows: list[dict[str, Any]] | dict[str, dict[str, Any]], rng: random.Random
) -> Any:
    """A copy of `doc` with content fault `name` applied, or None when the fault does not apply.

    Rows by label (an object of flat objects) take the same faults, except that an invented key is an
    invented label: the row's answer under a label that was not asked for.
    """
    doc = copy.deepcopy(doc)
    labelled = _labelled(doc)
    fixed = list(fixed_rows.values()) if isinstance(fixed_rows, dict) else fixed_rows
    if labelled is not None and name == "invented_fk":
        return doc if _invent_label(labelled, rng) else None
    items = list(labelled.values()) if labelled is not None else _items(doc)
    if not items:
        return None
    return doc if _CONTENT[name](items, fixed, rng) else None


def corrupt_text(name: str, text: str, rng: random.Random) -> tuple[str, str] | None:
    """(text, finish_reason) with text fault `name` applied, or None when it does not apply."""
    if name == "truncated" and len(text) > 1:
        return text[: rng.randint(max(1, len(text) // 3), max(1, 2 * len(text) // 3))], "length"
    if name == "malformed" and text and text[0] in "{[":
        breakers = (lambda t: t[:-1], lambda t: t[:-1] + ",}", lambda t: t.replace('"', "'", 1))
        return rng.choice(breakers)(text), "stop"
    return None


def _labelled(doc: Any) -> dict[str, dict[str, Any]] | None:
    """The rows by label of an answer: the first object found breadth-first whose values are all flat
    objects (None when the answer has none)."""
    queue: list[Any] = [doc]
    while queue:
        node = queue.pop(0)
        if isinstance(node, dict) and node and all(
            isinstance(row, dict) and not any(isinstance(v, dict | list) for v in row.values())
            for row in node.values()
        ):
            return node
        queue.extend(node.values() if isinstance(node, dict) else node if isinstance(node, list) else ())
    return None


def _invent_label(rows: dict[str, dict[str, Any]], rng: random.Random) -> bool:
    """Move one row to a label nobody asked for (its own label with a number appended)."""
    label = rng.choice(sorted(rows))
    invented = f"{label}{rng.randint(1_000, 9_999)}"
    while invented in rows:
        invented += "0"
    rows[invented] = rows.pop(label)
    return True


def _items(doc: Any) -> list[dict[str, Any]]:
    """The rows of an answer: the first list of objects found breadth-first, else the answer itself."""
    queue: list[Any] = [doc]
    while queue:
        node = queue.pop(0)
        if isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
            return node
        queue.extend(node.values() if isinstance(node, dict) else node if isinstance(node, list) else ())
    return [doc] if isinstance(doc, dict) and doc else []


def _is_key(field: str) -> bool:
    return field == "id" or field.endswith(("_id", "_key", "Id"))


def _wrong_types(items: list[dict[str, Any]], fixed: list[dict[str, Any]], rng: random.Random) -> bool:
    """Put a string where a number or boolean is (else a number where a string is)."""
    item = rng.choice(items)
    scalars = [k for k, v in item.items() if isinstance(v, int | float)]
    texts = [k for k, v in item.items() if isinstance(v, str)]
    if scalars:
        item[rng.choice(scalars)] = "n/a"
    elif texts:
        item[rng.choice(texts)] = 12345
    return bool(scalars or texts)


def _invented_fk(items: list[dict[str, Any]], fixed: list[dict[str, Any]], rng: random.Random) -> bool:
    """Give one row's key fields values that appear nowhere in the request (or the answer)."""
    source = [row for row in fixed if any(_is_key(k) for k in row)] or items
    keys = {k for row in source for k in row if _is_key(k)}
    taken: dict[str, set[Any]] = {}
    for row in source + items:
        for key, value in row.items():
            if key in keys and isinstance(value, int | str) and not isinstance(value, bool):
                taken.setdefault(key, set()).add(value)
    candidates = [item for item in items if any(k in taken for k in item)]
    if not candidates:
        return False
    item = rng.choice(candidates)
    for key in [k for k in item if k in taken and isinstance(item[k], int | str)]:
        item[key] = _invent(item[key], taken[key], rng)
    return True


def _invent(value: int | str, taken: set[Any], rng: random.Random) -> int | str:
    if isinstance(value, int):
        return max([v for v in taken if isinstance(v, int)] + [value]) + rng.randint(1_000, 9_999)
    invented = f"{value}-{rng.randint(1_000, 9_999)}"
    while invented in taken:
        invented += "x"
    return invented


def _duplicates(items: list[dict[str, Any]], fixed: list[dict[str, Any]], rng: random.Random) -> bool:
    """Repeat one row in place of another (in place, so rows by label change too)."""
    if len(items) < 2:
        return False
    source, target = rng.sample(range(len(items)), 2)
    repeated = copy.deepcopy(items[source])
    items[target].clear()
    items[target].update(repeated)
    return True


def _missing_fields(items: list[dict[str, Any]], fixed: list[dict[str, Any]], rng: random.Random) -> bool:
    """Drop one field of one row, preferring a field the request did not fix."""
    item = rng.choice(items)
    fixed_names = {k for row in fixed for k in row}
    names = [k for k in item if k not in fixed_names] or list(item)
    if not names:
        return False
    del item[rng.choice(names)]
    return True


def _extra_fields(items: list[dict[str, Any]], fixed: list[dict[str, Any]], rng: random.Random) -> bool:
    """Add a field that no schema asked for."""
    item = rng.choice(items)
    item["extra_note" if "extra_note" not in item else "extra_note_2"] = "added by the fake server"
    return True


_CONTENT: dict[str, Callable[[list[dict[str, Any]], list[dict[str, Any]], random.Random], bool]] = {
    "wrong_types": _wrong_types,
    "invented_fk": _invented_fk,
    "duplicates": _duplicates,
    "missing_fields": _missing_fields,
    "extra_fields": _extra_fields,
}
