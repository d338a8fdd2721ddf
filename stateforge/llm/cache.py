"""The LLM response cache: content-addressed JSON files, so that a rebuild with the same inputs makes
no call and gets the same bytes.

Key recipe (`cache_key`): the sha256 of the canonical JSON (sorted keys, no spaces, UTF-8) of
`{"v": CACHE_FORMAT, "model", "messages", "name", "schema", "mode", "temperature", "seed", "max_tokens",
"extra"}`, where `mode` is the *configured* response-format mode (`auto` stays `auto`, whatever the
server turned out to support) and `extra` is the caller's `cache_key` dict (a prompt hash, a batch id, a
repair attempt). A tool-calling turn (`tools_key`) has `mode` "tools" and, as its `schema`, the tools
offered and the tool choice; its entry keeps the calls (`tool_calls`) beside the content. The base URL
and the API key are not in the key: the same model behind another URL (a laptop, a CI runner) reuses the
replies.

Entry: `<cache_dir>/<key[:2]>/<key>.json`, a `CachedReply`, written atomically (a temporary file in the
same folder, then `os.replace`), so a reader never sees half a file and concurrent writers of the same
key leave one whole entry. Every completed reply is cached, *malformed or truncated ones included*: the
caller's repair loop then sees the same bad reply and sends the same repair on a rebuild, which keeps
rebuilds byte-identical. Transport failures (429, 5xx, timeouts) are never cached. A repair request must
differ from the request it repairs (its messages carry the error, or `extra` an attempt number), or it
would be answered from the cache with the same bad reply.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

if TYPE_CHECKING:
    from stateforge.llm.settings import LLMSettings

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
"""Bumped when the key recipe or the entry format changes (old entries are then simply not found)."""


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text: equal values give equal strings."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def cache_key(
    *,
    model: str,
    messages: list[dict[str, Any]],
    name: str,
    schema: dict[str, Any],
    mode: str,
    temperature: float,
    seed: int | None,
    max_tokens: int | None = None,
    extra: dict[str, Any] | None = None,
) -> str:
    """The hex sha256 that names a request's cached reply (the recipe is in the module docstring)."""
    payload = {
        "v": CACHE_FORMAT,
        "model": model,
        "messages": messages,
        "name": name,
        "schema": schema,
        "mode": mode,
        "temperature": float(temperature),
        "seed": seed,
        "max_tokens": max_tokens,
        "extra": extra or {},
    }
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


def encoded_object(fields: dict[str, str]) -> str:
    """The canonical JSON of an object whose values are given as canonical JSON already: the same text
    `canonical_json` makes of the decoded object (keys sorted, no whitespace), so that a large part (the
    tools of a conversation) can be encoded once and spliced into every turn's key and body."""
    return "{" + ",".join(f"{canonical_json(k)}:{fields[k]}" for k in sorted(fields)) + "}"


def request_key(
    settings: LLMSettings,
    model: str,
    messages: list[dict[str, Any]],
    name: str,
    schema: dict[str, Any],
    extra: dict[str, Any] | None,
) -> str:
    """`cache_key` of a request made with `settings` (its configured mode, temperature, seed, max_tokens)."""
    return cache_key(
        model=model,
        messages=messages,
        name=name,
        schema=schema,
        mode=settings.response_format,
        temperature=settings.temperature,
        seed=settings.seed,
        max_tokens=settings.max_tokens,
        extra=extra,
    )


def tools_key(
    settings: LLMSettings,
    model: str,
    messages: list[dict[str, Any]],
    name: str,
    tools: list[dict[str, Any]],
    tool_choice: str | dict[str, Any],
    extra: dict[str, Any] | None,
) -> str:
    """`cache_key` of a tool-calling turn made with `settings` (mode "tools"; the tools as the schema)."""
    return encoded_tools_key(
        settings, model, canonical_json(messages), name, canonical_json(tools), tool_choice, extra
    )


def encoded_tools_key(
    settings: LLMSettings,
    model: str,
    messages_json: str,
    name: str,
    tools_json: str,
    tool_choice: str | dict[str, Any],
    extra: dict[str, Any] | None,
) -> str:
    """`tools_key` from the canonical JSON of the messages and of the tools (the same key, byte for byte,
    without serialising them again)."""
    schema = encoded_object({"tools": tools_json, "tool_choice": canonical_json(tool_choice)})
    payload = encoded_object({
        "v": canonical_json(CACHE_FORMAT),
        "model": canonical_json(model),
        "messages": messages_json,
        "name": canonical_json(name),
        "schema": schema,
        "mode": canonical_json("tools"),
        "temperature": canonical_json(float(settings.temperature)),
        "seed": canonical_json(settings.seed),
        "max_tokens": canonical_json(settings.max_tokens),
        "extra": canonical_json(extra or {}),
    })
    return hashlib.sha256(payload.encode()).hexdigest()


class CachedReply(BaseModel):
    """One cache entry: what the server answered to one request."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    format: int = CACHE_FORMAT
    """The entry format (`CACHE_FORMAT`)."""
    key: str
    """The entry's cache key (also its file name)."""
    model: str
    """The model that answered."""
    mode: str
    """The response format actually used: `json_schema` or `json_object`; `tools` for a tool-calling turn."""
    content: str
    """The assistant's message content, exactly as received."""
    finish_reason: str | None
    """Why generation stopped (`stop`, `length`, ...)."""
    tool_calls: list[dict[str, str]] | None = None
    """A tool-calling turn's calls, `{"id", "name", "arguments"}` each (arguments as the raw string)."""
    prompt_tokens: int = 0
    """Prompt tokens the server reported for the original call."""
    completion_tokens: int = 0
    """Completion tokens the server reported for the original call."""


class ResponseCache:
    """Read and write cache entries under `root`. Safe across threads and processes (atomic writes)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        """Where the entry for `key` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        """The entry for `key`, or None when there is none (an unreadable entry counts as none)."""
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as error:
            log.warning("LLM cache: cannot read %s (%s); calling the server instead", path, error)
            return None
        try:
            entry = CachedReply.model_validate_json(text)
        except ValidationError as error:
            log.warning("LLM cache: %s is not a valid entry (%s); calling the server instead", path, error)
            return None
        if entry.key != key or entry.format != CACHE_FORMAT:
            log.warning("LLM cache: %s does not hold key %s; calling the server instead", path, key)
            return None
        return entry

    def put(self, entry: CachedReply) -> Path:
        """Write `entry` atomically (replacing any entry of the same key); returns its path."""
        path = self.path(entry.key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{entry.key[:8]}-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(entry.model_dump_json(indent=1))
                handle.write("\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def __len__(self) -> int:
        """The number of entries (walks the folder: for tests and reports, not hot paths)."""
        return sum(1 for _ in self.root.glob("??/*.json")) if self.root.exists() else 0
