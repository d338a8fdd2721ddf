"""Plausible, deterministic values for a JSON schema: what the fake LLM server "writes".

`synthesize(schema, rng, fixed_rows=..., default_rows=...)` walks the subset of JSON Schema that
structured outputs use (object, array, string, integer, number, boolean, null, enum, const, anyOf/oneOf,
type lists, allOf, $ref into $defs) and returns a document that conforms to it. Property names are hints
(`email`, `city`, `created_at`, `rating`, ...) so that values look like data, not like "string".

The rows the prompt asks to complete (`find_fixed_rows`) are either an array of objects or an object of
objects by label. For an array, the first array at the root (or in a property of the root object) is
the *rows array*: its length is fixed by the schema (minItems == maxItems), else by the fixed rows, else
by `default_rows`; item `i` echoes the non-null fields of fixed row `i` that the item schema declares.
For rows by label, a property named like a fixed row's label echoes that row's non-null declared fields.
With no fixed rows (a server that ignores the prompt), only the schema decides. Unsupported keywords
(`pattern`, `not`, `if`/`then`, `patternProperties`) are ignored.
"""

from __future__ import annotations

import json
import math
import random
import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any

from stateforge.fakellm import words

MAX_DEPTH = 6
"""Deeper than this, values get their smallest legal form (null, fewest items, required fields only)."""

_NULL_SHARE = 0.15
"""How often a nullable value below the root is null."""

_EPOCH = date(2019, 1, 1)
_SPAN_DAYS = 7 * 365


FixedRows = Sequence[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]]
"""Rows to complete: in order (an array), or by label (an object of objects)."""


def synthesize(
    schema: Mapping[str, Any],
    rng: random.Random,
    *,
    fixed_rows: FixedRows = (),
    default_rows: int = 5,
) -> Any:
    """Return a JSON-compatible value that conforms to `schema`, drawn from `rng`."""
    return _Synth(schema, rng, fixed_rows, default_rows).value(schema, "", 0)


def find_fixed_rows(text: str) -> list[dict[str, Any]] | dict[str, dict[str, Any]]:
    """The rows to complete: the last top-level, non-empty JSON array of objects, or object of flat
    objects (rows by label), in `text` (else [])."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] | dict[str, dict[str, Any]] = []
    position = _next_open(text, 0)
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            end = position + 1
        else:
            if _is_rows(value):
                found = value
        position = _next_open(text, end)
    return found


def _next_open(text: str, start: int) -> int:
    found = [i for i in (text.find("[", start), text.find("{", start)) if i != -1]
    return min(found) if found else -1


def _is_rows(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(isinstance(row, dict) for row in value)
    return (isinstance(value, dict) and bool(value) and all(isinstance(row, dict) for row in value.values())
            and not any(isinstance(v, dict | list) for row in value.values() for v in row.values()))


def hint_value(name: str, rng: random.Random) -> Any:
    """A plausible value for a field known only by its name (no schema): an id, a count or text."""
    kind = "integer" if words.numeric_range(tokens(name)) is not None else "string"
    return _Synth({}, rng, (), 0).value({"type": kind}, name, 1)


def object_answer(
    prompt: str, fixed_rows: list[dict[str, Any]] | dict[str, dict[str, Any]], rng: random.Random,
    default_rows: int,
) -> dict:
    """A `json_object` answer: the fixed rows with their nulls filled (rows by label: only the nulls, under
    the same labels), invented rows if the prompt asks for rows, else `{"answer": ...}`."""
    if isinstance(fixed_rows, dict):
        return {"rows": {label: {k: hint_value(k, rng) for k, v in row.items() if v is None}
                         for label, row in fixed_rows.items()}}
    if fixed_rows:
        return {
            "rows": [
                {k: hint_value(k, rng) if v is None else v for k, v in row.items()} for row in fixed_rows
            ]
        }
    if re.search(r"\brows?\b", prompt, re.IGNORECASE):
        return {
            "rows": [
                {"id": i + 1, "name": words.title(rng), "description": words.sentence(rng)}
                for i in range(default_rows)
            ]
        }
    return {"answer": words.sentence(rng)}


def text_answer(rng: random.Random) -> str:
    """A plain-text answer of one to three sentences."""
    return " ".join(words.sentence(rng) for _ in range(rng.randint(1, 3)))


def tokens(name: str) -> tuple[str, ...]:
    """Split a property name into lower-case words: `createdAt` and `created_at` give (created, at)."""
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return tuple(t for t in re.split(r"[^a-z0-9]+", snake) if t)


class _Synth:
    """One document's generation: the root (for $ref), the rng and the rows still to place."""

    def __init__(self, root: Mapping[str, Any], rng: random.Random, fixed: FixedRows, default: int) -> None:
        self.root = root
        self.rng = rng
        self.by_label = dict(fixed) if isinstance(fixed, Mapping) else {}
        self.fixed = [] if isinstance(fixed, Mapping) else list(fixed)
        self.default_rows = default
        self.rows_pending = True

    def value(self, schema: Any, hint: str, depth: int, fixed: Mapping[str, Any] | None = None) -> Any:
        """Dispatch on the schema's shape; `hint` is the property name, `depth` the nesting level."""
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self.rng.choice(schema["enum"])
        branches = schema.get("anyOf") or schema.get("oneOf")
        if branches:
            return self.value(self.pick_branch(branches, depth), hint, depth, fixed)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = self.pick_branch([{"type": k} for k in kind], depth)["type"]
        kind = kind or ("object" if "properties" in schema else "array" if "items" in schema else "string")
        if kind == "object":
            return self.object(schema, hint, depth, fixed or {})
        if kind == "array":
            return self.array(schema, hint, depth)
        if kind in ("integer", "number"):
            return self.number(schema, hint, integer=kind == "integer")
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.string(schema, hint)

    def resolve(self, schema: Any) -> dict[str, Any]:
        """Follow `$ref` (JSON pointers into the root) and merge `allOf` parts into one schema."""
        schema = dict(schema) if isinstance(schema, Mapping) else {}
        while "$ref" in schema:
            ref = schema.pop("$ref")
            schema = {**self.pointer(ref), **schema}
        for part in schema.pop("allOf", None) or []:
            schema = {**self.resolve(part), **schema}
        return schema

    def pointer(self, ref: str) -> dict[str, Any]:
        """The schema at a local reference such as `#/$defs/Song`."""
        if not ref.startswith("#"):
            raise ValueError(f"only local $ref are supported, got {ref!r}")
        node: Any = self.root
        for part in filter(None, ref[1:].split("/")):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return dict(node)

    def pick_branch(self, branches: Sequence[Any], depth: int) -> dict[str, Any]:
        """Choose a union branch: mostly not null, never null at the root, null when too deep."""
        resolved = [self.resolve(b) for b in branches]
        nulls = [b for b in resolved if b.get("type") == "null"]
        others = [b for b in resolved if b.get("type") != "null"] or nulls
        plain = [b for b in others if "pattern" not in b] or others
        if nulls and (depth > MAX_DEPTH or (depth > 1 and self.rng.random() < _NULL_SHARE)):
            return nulls[0]
        return self.rng.choice(plain)

    def object(self, schema: dict[str, Any], hint: str, depth: int, fixed: Mapping[str, Any]) -> dict:
        """Every declared property (echoing fixed values), or a few entries of a typed map."""
        properties = schema.get("properties") or {}
        entity = " ".join((schema.get("title") or "", hint))
        out: dict[str, Any] = {}
        for name, sub in properties.items():
            if fixed.get(name) is not None:
                out[name] = fixed[name]
            elif depth <= MAX_DEPTH or name in schema.get("required", ()):
                row = self.by_label.get(name) if depth <= 1 else None
                out[name] = self.value(sub, _with_entity(name, entity), depth + 1, row)
        extra = schema.get("additionalProperties")
        if not properties and isinstance(extra, Mapping):
            for i in range(self.rng.randint(1, 3)):
                out[f"{words.singular(hint) or 'key'}_{i + 1}"] = self.value(extra, hint, depth + 1)
        return out

    def array(self, schema: dict[str, Any], hint: str, depth: int) -> list:
        """The rows array takes its length from the schema, the prompt's rows or the default."""
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        is_rows = self.rows_pending and depth <= 1
        if is_rows:
            self.rows_pending = False
            count = len(self.fixed) if self.fixed else self.default_rows
        else:
            count = low if depth > MAX_DEPTH else self.rng.randint(*_item_span(low, high))
        count = max(low, count if high is None else min(int(high), count))
        prefix = schema.get("prefixItems") or []
        item_hint = words.singular(hint)
        out: list[Any] = []
        seen: set[str] = set()
        for _ in range(count * 10):  # uniqueItems may reject draws: give up on more items, never repeat one
            if len(out) == count:
                break
            sub = prefix[len(out)] if len(out) < len(prefix) else schema.get("items", {})
            row = self.fixed[len(out)] if is_rows and len(out) < len(self.fixed) else None
            item = self.value(sub, item_hint, depth + 1, row)
            key = json.dumps(item, sort_keys=True)
            if not (schema.get("uniqueItems") and key in seen):
                seen.add(key)
                out.append(item)
        return out

    def number(self, schema: dict[str, Any], hint: str, *, integer: bool) -> int | float:
        """A number in the hint's usual range, moved inside the schema's bounds."""
        low, high = words.numeric_range(tokens(hint)) or (0, 100)
        low, high = _fit(low, high, *_bounds(schema, integer))
        step = schema.get("multipleOf") or (1 if integer else 0)
        if step:
            first, last = math.ceil(low / step), math.floor(high / step)
            value = step * self.rng.randint(first, max(first, last))
            return int(value) if integer else value
        value = round(self.rng.uniform(low, high), 2)
        return value if _within(value, schema) else (low + high) / 2

    def string(self, schema: dict[str, Any], hint: str) -> str:
        """A string in the schema's format, else one the property name suggests, fitted to its lengths."""
        fmt = schema.get("format")
        text = self.formatted(fmt) if fmt else words.text_for(tokens(hint), self.rng, self.when)
        low, high = int(schema.get("minLength", 0)), schema.get("maxLength")
        while len(text) < low:
            text += " " + self.rng.choice(words.NOUNS)
        if high is not None and len(text) > int(high):
            text = text[: int(high)].rstrip() or text[: int(high)]
        return text

    def formatted(self, fmt: str) -> str:
        """A string in a JSON-schema format; an unknown format gets a plain word."""
        makers = {
            "date": lambda: self.when().date().isoformat(),
            "date-time": lambda: self.when().isoformat() + "Z",
            "time": lambda: self.when().time().isoformat(),
            "email": lambda: words.email(self.rng),
            "uuid": lambda: str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
            "uri": lambda: words.url(self.rng),
            "url": lambda: words.url(self.rng),
            "hostname": lambda: f"{self.rng.choice(words.NOUNS)}.example.com",
            "ipv4": lambda: f"192.0.2.{self.rng.randint(1, 254)}",
            "duration": lambda: f"PT{self.rng.randint(1, 90)}M",
        }
        return makers.get(fmt, lambda: self.rng.choice(words.NOUNS))()

    def when(self) -> datetime:
        """A timestamp between 2019 and 2025, to the second."""
        day = _EPOCH + timedelta(days=self.rng.randrange(_SPAN_DAYS))
        return datetime(day.year, day.month, day.day) + timedelta(seconds=self.rng.randrange(86_400))


def _item_span(low: int, high: Any) -> tuple[int, int]:
    """How many items an inner array gets: one to three unless its bounds say otherwise."""
    top = low + 3 if high is None else min(int(high), low + 3)
    return min(max(low, 1), top), top


def _with_entity(name: str, entity: str) -> str:
    """Keep the owning object's name with a bare `name` property (a player's name is a person's)."""
    return f"{entity} {name}" if tokens(name) == ("name",) else name


def _bounds(schema: Mapping[str, Any], integer: bool) -> tuple[float | None, float | None]:
    """The tightest lower and upper bounds; an integer's exclusive bounds become inclusive ones."""
    lower, upper = _number(schema.get("minimum")), _number(schema.get("maximum"))
    above, below = _number(schema.get("exclusiveMinimum")), _number(schema.get("exclusiveMaximum"))
    if above is not None:
        above = math.floor(above) + 1 if integer else above
        lower = above if lower is None else max(lower, above)
    if below is not None:
        below = math.ceil(below) - 1 if integer else below
        upper = below if upper is None else min(upper, below)
    return lower, upper


def _fit(low: float, high: float, lower: float | None, upper: float | None) -> tuple[float, float]:
    """Move the range [low, high] inside [lower, upper], keeping its width where the bounds allow."""
    if lower is not None and high < lower:
        low, high = lower, lower + (high - low)
    if upper is not None and low > upper:
        low, high = upper - (high - low), upper
    low = low if lower is None else max(low, lower)
    high = high if upper is None else min(high, upper)
    return low, max(low, high)


def _within(value: float, schema: Mapping[str, Any]) -> bool:
    """Whether a rounded draw still satisfies every bound of `schema`."""
    checks = (
        ("minimum", lambda b: value >= b),
        ("maximum", lambda b: value <= b),
        ("exclusiveMinimum", lambda b: value > b),
        ("exclusiveMaximum", lambda b: value < b),
    )
    return all(check(b) for key, check in checks if (b := _number(schema.get(key))) is not None)


def _number(value: Any) -> float | None:
    """A numeric schema keyword, or None (booleans are draft-4 flags, not bounds)."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None
