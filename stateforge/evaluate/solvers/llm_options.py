"""How the LLM solvers (`openai`, `openai-code`) reach their model: `LLMSettings` from a `SolverConfig`.

    settings = llm_settings(config)      # --model, --base-url, the environment, then --option KEY=VALUE

The same settings as the fill and the task generator (`stateforge.llm.settings`): OPENAI_BASE_URL and
OPENAI_API_KEY from the environment, `--base-url` and `--model` over them, then these `--option`s:

| option | meaning (default) |
|---|---|
| `temperature` | sampling temperature (0) |
| `seed` | the request's `seed` (the run's seed; none when a temperature above 0 is given, so trials differ) |
| `timeout` | seconds per HTTP request before it is retried (60) |
| `max_retries` | retries of a request after a 429, a 5xx, a timeout or a dropped connection (6) |
| `backoff` | seconds of the first retry's backoff window (0.5) |
| `concurrency` | requests in flight at once across the run's episodes (8) |
| `reply_tokens` | cap on completion tokens per reply (the server's default) |
| `max_tokens` | prompt + completion tokens per episode (`Limits.max_tokens`, else none) |
| `cache` | `on` (read and write the response cache), `off` (write only) (on) |
| `cache_dir` | the response cache's folder (artifacts/llm-cache) |

An unknown option is an error naming the known ones; so is a value that does not parse.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stateforge.errors import TerminalError
from stateforge.evaluate.solver import SolverConfig
from stateforge.llm.settings import LLMSettings
from stateforge.schema.model import suggest

LLM_OPTIONS = (
    "temperature", "seed", "timeout", "max_retries", "backoff", "concurrency", "reply_tokens", "max_tokens",
    "cache", "cache_dir",
)
"""The `--option` keys every LLM solver understands."""


def check_options(solver: str, options: dict[str, str], known: Iterable[str]) -> None:
    """TerminalError for an option `solver` does not know, with a did-you-mean and the list."""
    names = sorted(known)
    for key in options:
        if key not in names:
            raise TerminalError(
                f"solver {solver!r} has no option {key!r}.{suggest(key, names)} Its options: "
                f"{', '.join(names)} (see docs/evaluate.md)."
            )


def number(solver: str, options: dict[str, str], key: str, kind: type = float) -> Any:
    """The option `key` as a `kind` (int or float), None when absent; TerminalError when it does not parse."""
    raw = options.get(key)
    if raw is None or not raw.strip():
        return None
    try:
        return kind(raw)
    except ValueError:
        raise TerminalError(
            f"solver {solver!r}: --option {key}={raw!r} is not {'an integer' if kind is int else 'a number'}."
        ) from None


def llm_settings(solver: str, config: SolverConfig) -> LLMSettings:
    """The client settings of an LLM solver run with `config` (see the module docstring)."""
    options = config.options
    temperature = number(solver, options, "temperature")
    seed = number(solver, options, "seed", int)
    if seed is None and not temperature:
        seed = config.seed
    cache = options.get("cache", "on").strip().lower()
    if cache not in ("on", "off"):
        raise TerminalError(f"solver {solver!r}: --option cache={cache!r}: give on or off.")
    overrides: dict[str, Any] = {
        "backend": "openai",
        "model": config.model,
        "base_url": config.base_url,
        "temperature": temperature,
        "timeout": number(solver, options, "timeout"),
        "max_retries": number(solver, options, "max_retries", int),
        "backoff_base": number(solver, options, "backoff"),
        "concurrency": number(solver, options, "concurrency", int),
        "max_tokens": number(solver, options, "reply_tokens", int),
        "use_cache": cache == "on",
        "cache_dir": options.get("cache_dir") or None,
    }
    try:
        settings = LLMSettings.from_env(**overrides)
    except ValueError as exc:  # pydantic's ValidationError: a value out of range
        last = str(exc).splitlines()[-1]
        raise TerminalError(f"solver {solver!r}: {last} (check its --option values).") from None
    return settings.model_copy(update={"seed": seed})


def episode_token_limit(solver: str, config: SolverConfig) -> int | None:
    """Tokens one episode may spend: `--option max_tokens`, else `Limits.max_tokens`, else None."""
    given = number(solver, config.options, "max_tokens", int)
    return given if given is not None else config.limits.max_tokens
