"""What the LLM path cost: calls, cache hits, tokens, retries, errors, time and an estimated price.

`LLMStats` is updated by the client from many coroutines and threads at once (every update takes a
lock), merged across tasks with `merge`, and reported with `to_dict`. Tokens of replies served from the
cache are counted apart (`cached_*_tokens`), so a rebuild from the cache reports a cost of 0.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields
from typing import Any

from stateforge.llm.settings import Price

RETRY_CAUSES = ("rate_limit", "server_error", "timeout", "connection")
"""Why a request was sent again: a 429, a 5xx, a timeout, a refused or dropped connection."""


@dataclass
class LLMStats:
    """Counters of one client (or of several, merged). Use the `record_*` methods, not the fields."""

    calls: int = 0
    """HTTP requests sent (every attempt that reached the wire counts, failed or not)."""
    unsent: int = 0
    """Attempts that never reached the server (connection refused, or not made in time): not calls, but
    each is a retry or the final failure like any other."""
    cache_hits: int = 0
    """Replies served from the cache or shared with an identical request in flight: no call made."""
    prompt_tokens: int = 0
    """Prompt tokens of replies the server sent (from its `usage`)."""
    completion_tokens: int = 0
    """Completion tokens of replies the server sent."""
    cached_prompt_tokens: int = 0
    """Prompt tokens of replies served from the cache (free)."""
    cached_completion_tokens: int = 0
    """Completion tokens of replies served from the cache (free)."""
    retries: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RETRY_CAUSES, 0))
    """Retries by cause (`RETRY_CAUSES`)."""
    errors: int = 0
    """Terminal errors: requests the server refused (bad request, auth, unknown model)."""
    gave_up: int = 0
    """Requests still failing after `max_retries` retries (raised as TransientError)."""
    malformed: int = 0
    """Replies handed back whose content did not parse as JSON (cached ones included)."""
    fallbacks: int = 0
    """Requests re-sent after a server refused json_schema (`auto` mode: json_object) or keywords of the
    schema (sent again with `portable_schema`)."""
    seconds: float = 0.0
    """Seconds spent in HTTP requests, summed over requests (overlapping requests add up)."""
    cost_usd: float = 0.0
    """Estimated cost of the tokens the server sent, from the settings' prices."""
    unpriced_models: set[str] = field(default_factory=set)
    """Models with no known price: their tokens are in the counts but not in `cost_usd`."""
    rows: int = 0
    """Rows the caller got out of these replies (`add_rows`)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    # -- updates -------------------------------------------------------------------------------------

    def record_call(
        self,
        seconds: float,
        model: str,
        price: Price | None,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        *,
        sent: bool = True,
    ) -> None:
        """One HTTP request sent (with the tokens of its reply, if it got one); with `sent=False`, an
        attempt that never reached the server (counted in `unsent`, its seconds still spent)."""
        with self._lock:
            if sent:
                self.calls += 1
            else:
                self.unsent += 1
            self.seconds += seconds
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens
            if price is not None:
                self.cost_usd += price.cost(prompt_tokens, completion_tokens)
            elif prompt_tokens or completion_tokens:
                self.unpriced_models.add(model)

    def record_cache_hit(self, prompt_tokens: int, completion_tokens: int) -> None:
        """One reply served without a call."""
        with self._lock:
            self.cache_hits += 1
            self.cached_prompt_tokens += prompt_tokens
            self.cached_completion_tokens += completion_tokens

    def record_retry(self, cause: str) -> None:
        """One retry, by cause (one of `RETRY_CAUSES`)."""
        with self._lock:
            self.retries[cause] = self.retries.get(cause, 0) + 1

    def record(self, counter: str, n: int = 1) -> None:
        """Add `n` to an integer counter: `errors`, `gave_up`, `malformed`, `fallbacks` or `rows`."""
        if counter not in ("errors", "gave_up", "malformed", "fallbacks", "rows"):
            raise ValueError(f"LLMStats has no counter {counter!r}")
        with self._lock:
            setattr(self, counter, getattr(self, counter) + n)

    def add_rows(self, n: int) -> None:
        """The caller got `n` rows out of the replies (for rows per call)."""
        self.record("rows", n)

    def merge(self, other: LLMStats) -> LLMStats:
        """Add `other`'s counters to these (e.g. the stats of several tasks); returns self."""
        theirs = other.snapshot()
        with self._lock:
            for f in fields(self):
                if f.name == "_lock":
                    continue
                mine = getattr(self, f.name)
                value = getattr(theirs, f.name)
                if isinstance(mine, dict):
                    for key, count in value.items():
                        mine[key] = mine.get(key, 0) + count
                elif isinstance(mine, set):
                    mine |= value
                else:
                    setattr(self, f.name, mine + value)
        return self

    # -- reading -------------------------------------------------------------------------------------

    def snapshot(self) -> LLMStats:
        """A consistent copy (taken under the lock)."""
        with self._lock:
            values = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_lock"}
        return LLMStats(**{k: v.copy() if isinstance(v, dict | set) else v for k, v in values.items()})

    @property
    def rows_per_call(self) -> float:
        """Rows obtained per HTTP request (0 when no call was made)."""
        return self.rows / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counters and derived figures; `cost_known` is False when a model had no price."""
        snap = self.snapshot()
        data = {f.name: getattr(snap, f.name) for f in fields(snap) if f.name != "_lock"}
        data["unpriced_models"] = sorted(snap.unpriced_models)
        data["seconds"] = round(snap.seconds, 3)
        data["cost_usd"] = round(snap.cost_usd, 6)
        data["cost_known"] = not snap.unpriced_models
        data["rows_per_call"] = round(snap.rows_per_call, 3)
        data["total_retries"] = sum(snap.retries.values())
        return data
